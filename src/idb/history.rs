//! The history's operations beyond appending: pages, replacement, pop and
//! clear; requests; a whole turn in one transaction. Positions are ranks in
//! the session's append order (the `by_session` index, by auto-increment
//! key), so a message keeps its position until one at or before it goes.

use std::cell::RefCell;
use std::rc::Rc;

use idb::Query;
use js_sys::Reflect;
use wasm_bindgen::JsValue;

use super::plan::{More, Op, Plan, Read, Write};
use super::records::{key, payload, payload_text, record, session_payload};
use super::schema::{ACTIVITY_FRAMES, BY_SESSION, MESSAGES, SESSIONS, SESSION_STATE};
use super::store::{records_of, session_record, IdbSessionStore, ALL};
use crate::json::{quote, Value};
use crate::session::{
    check_absent, check_replace, Page, RequestSummary, SessionInfo, SessionUpdate, TurnWrite,
};
use crate::Error;

/// One append's batch of frames: its request, when, and how many.
pub(super) fn frame_batch(
    session_id: &str,
    request_id: &str,
    frames: Vec<Value>,
    at: f64,
) -> JsValue {
    let count = frames.len() as f64;
    let batch = record(
        &[("sessionId", session_id), ("requestId", request_id)],
        Value::Array(frames).to_json(),
    );
    let _ = Reflect::set(&batch, &"at".into(), &at.into());
    let _ = Reflect::set(&batch, &"count".into(), &count.into());
    batch
}

fn message_keys(session_id: &str) -> Read {
    Read::AllKeys(
        MESSAGES,
        Some(BY_SESSION),
        Some(Query::Key(session_id.into())),
    )
}

/// The keys of the session's last `count` messages (all, with none), so a
/// turn's pop or page reads what it returns, not the whole history.
fn last_message_keys(session_id: &str, count: Option<usize>) -> Read {
    let session = Query::Key(session_id.into());
    super::store::keys_read(MESSAGES, Some(BY_SESSION), session, count, true)
}

pub(super) fn message_records(session_id: &str, messages: &[Value]) -> Vec<JsValue> {
    crate::map_vec(messages, |m| {
        record(&[("sessionId", session_id)], m.to_json())
    })
}

/// A JSON array of the records' payloads, as stored; with `batches`, of
/// the frames each payload holds, so an empty batch adds none.
pub(super) fn join_records(records: &[JsValue], batches: bool) -> Result<String, Error> {
    let mut list = String::from("[");
    for record in records {
        let text = payload_text(record)?;
        let item = match batches {
            true => super::records::batch_elements(&text)?,
            false => &text,
        };
        if batches && item.is_empty() {
            continue;
        }
        if list.len() > 1 {
            list.push(',');
        }
        list.push_str(item);
    }
    list.push(']');
    Ok(list)
}

fn number(record: &JsValue, field: &str) -> Option<f64> {
    Reflect::get(record, &field.into())
        .ok()
        .and_then(|v| v.as_f64())
}

/// Batches as `[{requestId, frames}]` JSON text, grouped in first-append
/// order, the frames joined without parsing them; with `runs`, one group
/// per run of a request's batches, so an export keeps the append order.
pub(super) fn frames_by_request(batches: &[JsValue], runs: bool) -> Result<String, Error> {
    let mut grouped = crate::session::ByRequest::new(crate::session::group_id, runs);
    for batch in batches {
        let request_id = super::records::batch_request_id(batch)?;
        let text = payload_text(batch)?;
        let inner = super::records::batch_elements(&text)?;
        let frames = &mut grouped
            .entry(&request_id, || (request_id.clone(), String::new()))
            .1;
        if !inner.is_empty() {
            if !frames.is_empty() {
                frames.push(',');
            }
            frames.push_str(inner);
        }
    }
    let items = crate::map_vec(&grouped.items, |(id, frames)| {
        format!("{{\"requestId\":{},\"frames\":[{frames}]}}", quote(id))
    });
    Ok(format!("[{}]", crate::text::join(&items, ",")))
}

impl IdbSessionStore {
    pub(super) fn update_session_op(&self, id: &str, update: SessionUpdate) -> Op<SessionInfo> {
        let now = self.env.now();
        let session_id = id.to_owned();
        let updated: Rc<RefCell<Option<SessionInfo>>> = Rc::default();
        let out = updated.clone();
        let decide = move |results: &[JsValue]| {
            if results[0].is_undefined() {
                return Err(Error::NotFound {
                    session_id: session_id.clone(),
                });
            }
            let mut info = session_payload(&results[0])?;
            update.clone().apply(&mut info, now)?;
            let stored = session_record(&info);
            *updated.borrow_mut() = Some(info);
            Ok(vec![Write::Put(SESSIONS, stored)])
        };
        let plan = Plan {
            stores: &[SESSIONS],
            write: true,
            idempotent: true,
            reads: vec![Read::Get(SESSIONS, Query::Key(id.into()))],
            more: None,
            decide: Box::new(decide),
        };
        Op::new(plan, move |_| {
            out.borrow_mut().take().ok_or_else(|| Error::Conflict {
                reason: "the session changed during the update".to_owned(),
            })
        })
    }

    pub(super) fn load_messages_page_op(&self, session_id: &str, page: Page) -> Op<String> {
        if page.is_all() {
            return self.load_messages_op(session_id);
        }
        let more: More = Box::new(move |results| {
            let keys = records_of(&results[0]);
            let range = page.range(keys.len());
            Ok(crate::map_vec(&keys[range], |k| {
                Read::Get(MESSAGES, Query::Key(k.clone()))
            }))
        });
        let plan = Plan {
            stores: &[MESSAGES],
            write: false,
            idempotent: true,
            // Without `before`, the last `limit` keys are the page's.
            reads: vec![match page.before {
                None => last_message_keys(session_id, page.limit),
                Some(_) => message_keys(session_id),
            }],
            more: Some(more),
            decide: Box::new(|_| Ok(Vec::new())),
        };
        Op::new(plan, |results| join_records(&results[1..], false))
    }

    pub(super) fn pop_message_op(&self, session_id: &str) -> Op<Option<String>> {
        let last = |results: &[JsValue]| records_of(&results[0]).pop();
        let more: More = Box::new(move |results| {
            Ok(last(results)
                .map(|k| Read::Get(MESSAGES, Query::Key(k)))
                .into_iter()
                .collect())
        });
        let writes = move |results: &[JsValue]| {
            // A message that cannot be returned is not deleted: checked
            // here, the transaction aborts.
            if let Some(record) = results.get(1) {
                payload(record)?;
            }
            Ok(last(results)
                .map(|k| Write::Delete(MESSAGES, Query::Key(k)))
                .into_iter()
                .collect())
        };
        let reads = vec![last_message_keys(session_id, Some(1))];
        self.write_session(
            session_id,
            &[SESSIONS, MESSAGES],
            false,
            reads,
            Some(more),
            writes,
        )
        .and_then(|results| results.get(1).map(payload_text).transpose())
    }

    pub(super) fn clear_messages_op(&self, session_id: &str) -> Op<()> {
        let writes = |results: &[JsValue]| {
            Ok(records_of(&results[0])
                .into_iter()
                .map(|k| Write::Delete(MESSAGES, Query::Key(k)))
                .collect())
        };
        let reads = vec![message_keys(session_id)];
        self.write_session(session_id, &[SESSIONS, MESSAGES], true, reads, None, writes)
            .map(drop)
    }

    fn frame_batches<T: 'static>(
        &self,
        session_id: &str,
        finish: impl FnOnce(Vec<JsValue>) -> Result<T, Error> + 'static,
    ) -> Op<T> {
        let read = Read::All(
            ACTIVITY_FRAMES,
            Some(BY_SESSION),
            Some(Query::Key(session_id.into())),
        );
        self.read(read, move |batches| finish(records_of(&batches)))
    }

    pub(super) fn list_requests_op(&self, session_id: &str) -> Op<Value> {
        self.frame_batches(session_id, |batches| {
            let mut list =
                crate::session::ByRequest::new(|s: &RequestSummary| &s.request_id, false);
            for batch in &batches {
                let request_id = super::records::batch_request_id(batch)?;
                let count = match number(batch, "count") {
                    Some(count) => count as u64,
                    // Written before batches carried their count.
                    None => crate::json::parse(&payload_text(batch)?)
                        .ok()
                        .and_then(|v| v.as_array().map(|a| a.len() as u64))
                        .unwrap_or(0),
                };
                RequestSummary::add(
                    &mut list,
                    &request_id,
                    count,
                    number(batch, "at").unwrap_or(0.0),
                );
            }
            Ok(Value::Array(crate::map_vec(
                &list.items,
                RequestSummary::to_value,
            )))
        })
    }

    /// `[{requestId, frames}]` as JSON text, the frames joined unparsed.
    pub(super) fn load_frames_by_request_op(&self, session_id: &str) -> Op<String> {
        self.frame_batches(session_id, |batches| frames_by_request(&batches, false))
    }

    pub(super) fn commit_turn_op(
        &self,
        session_id: &str,
        mut turn: TurnWrite,
    ) -> Result<Op<()>, Error> {
        turn.drop_stale_baseline();
        turn.check()?;
        let now = self.env.now();
        let mut adds = message_records(session_id, &turn.messages);
        for (request_id, frames) in turn.frames.into_iter().filter(|(_, f)| !f.is_empty()) {
            adds.push(frame_batch(session_id, &request_id, frames, now));
        }
        let mut puts = Vec::with_capacity(turn.state.len());
        for (key, value) in &turn.state {
            // Each record's text crosses as one JS string: pins, which
            // never crossed as one value, may be longer than one holds.
            let json = value.to_json();
            crate::text::fits_js(&json, key)?;
            puts.push(record(&[("sessionId", session_id), ("key", key)], json));
        }
        let (from, option) = (turn.replace_from, turn.replace_option);
        // First write wins: each is read first, in the same transaction.
        let if_absent = crate::map_vec(&turn.state_if_absent, |(k, value)| {
            let stored = record(&[("sessionId", session_id), ("key", k)], value.to_json());
            (key(&[session_id, k]), stored)
        });
        let expected = turn.expected_count;
        let counts = from.is_some() || expected.is_some();
        let mut reads: Vec<Read> = counts
            .then(|| message_keys(session_id))
            .into_iter()
            .collect();
        let found_at = reads.len();
        let state_key = |k: &JsValue| Read::GetKey(SESSION_STATE, Query::Key(k.clone()));
        reads.extend(if_absent.iter().map(|(k, _)| state_key(k)));
        let required_at = reads.len();
        let required = turn.require_absent;
        reads.extend(required.iter().map(|k| state_key(&key(&[session_id, k]))));
        // Puts alone (saveAttachments, a turn of state) end the same if run
        // twice, so a connection lost midway may retry them.
        let idempotent = adds.is_empty() && !counts && required.is_empty();
        let writes = move |results: &[JsValue]| {
            let mut writes = Vec::new();
            let mut present = required.iter().zip(&results[required_at..]);
            let present = present.find(|(_, found)| !found.is_undefined());
            check_absent(present.map(|(k, _)| k.as_str()))?;
            if counts {
                let keys = records_of(&results[0]);
                let from = check_replace(keys.len(), from, expected, option)?;
                writes.extend(
                    keys[from..]
                        .iter()
                        .map(|k| Write::Delete(MESSAGES, Query::Key(k.clone()))),
                );
            }
            for add in &adds {
                // Frame batches carry a requestId; messages do not.
                let store = if Reflect::has(add, &"requestId".into()).unwrap_or(false) {
                    ACTIVITY_FRAMES
                } else {
                    MESSAGES
                };
                writes.push(Write::Add(store, add.clone()));
            }
            writes.extend(puts.iter().map(|p| Write::Put(SESSION_STATE, p.clone())));
            let absent = if_absent.iter().zip(&results[found_at..required_at]);
            writes.extend(
                absent
                    .filter(|(_, found)| found.is_undefined())
                    .map(|((_, stored), _)| Write::Put(SESSION_STATE, stored.clone())),
            );
            Ok(writes)
        };
        Ok(self
            .write_session(session_id, &ALL, idempotent, reads, None, writes)
            .map(drop))
    }
}
