//! A session out as one document, read in one transaction, and back in,
//! written in one.

use idb::Query;
use js_sys::Reflect;
use wasm_bindgen::JsValue;

use super::history::{frame_batch, frames_by_request, join_records, message_records};
use super::plan::{Op, Plan, Read, Write};
use super::records::{
    corrupt, parsed, payload, payload_text, record, session_payload, session_range,
};
use super::schema::{ACTIVITY_FRAMES, BY_SESSION, MESSAGES, SESSIONS, SESSION_STATE};
use super::store::{creating, records_of, session_record, IdbSessionStore, ALL};
use crate::session::export::{document_text, SessionExport};
use crate::session::SessionInfo;
use crate::Error;

impl IdbSessionStore {
    pub(super) fn export_session_op(&self, id: &str) -> Result<Op<String>, Error> {
        let by_session = || Some(Query::Key(id.into()));
        let reads = vec![
            Read::Get(SESSIONS, Query::Key(id.into())),
            Read::All(
                SESSION_STATE,
                None,
                Some(Query::KeyRange(session_range(id)?)),
            ),
            Read::All(MESSAGES, Some(BY_SESSION), by_session()),
            Read::All(ACTIVITY_FRAMES, Some(BY_SESSION), by_session()),
        ];
        let plan = Plan {
            stores: &ALL,
            write: false,
            idempotent: true,
            reads,
            more: None,
            decide: Box::new(|_| Ok(Vec::new())),
        };
        let session_id = id.to_owned();
        Ok(Op::new(plan, move |results| {
            if results[0].is_undefined() {
                return Err(Error::NotFound { session_id });
            }
            // Each record must be one value with its key: pasted unread, a
            // damaged one (two values in one, no key) would give a document
            // holding what was never saved. Not checked as a message: one an
            // older version stored loads, and a backup of it must not fail.
            session_payload(&results[0])?;
            let mut state = Vec::new();
            for record in records_of(&results[1]) {
                let key = Reflect::get(&record, &"key".into())
                    .ok()
                    .and_then(|k| k.as_string())
                    .ok_or_else(|| corrupt("a state record has no key"))?;
                let text = payload_text(&record)?;
                parsed(&text)?;
                state.push((key, text));
            }
            let records = records_of(&results[2]);
            for record in &records {
                payload(record)?;
            }
            let messages = join_records(&records, false)?;
            let frames = frames_by_request(&records_of(&results[3]), true)?;
            let session = payload_text(&results[0])?;
            Ok(document_text(&session, &state, &messages, &frames))
        }))
    }

    pub(super) fn import_session_op(
        &self,
        export: SessionExport,
    ) -> Result<Op<SessionInfo>, Error> {
        export.check()?;
        let now = self.env.now();
        let export = export.not_after(now);
        let info = export.session;
        let id = info.id.as_str();
        let mut writes = vec![(SESSIONS, true, session_record(&info))];
        for (key, value) in &export.state {
            writes.push((
                SESSION_STATE,
                false,
                record(&[("sessionId", id), ("key", key)], value.to_json()),
            ));
        }
        writes.extend(
            message_records(id, &export.messages)
                .into_iter()
                .map(|m| (MESSAGES, true, m)),
        );
        for (request_id, frames) in export.frames.into_iter().filter(|(_, f)| !f.is_empty()) {
            writes.push((
                ACTIVITY_FRAMES,
                true,
                frame_batch(id, &request_id, frames, now),
            ));
        }
        let decide = move |_: &[JsValue]| {
            Ok(crate::map_vec(&writes, |(store, add, record)| match add {
                true => Write::Add(store, record.clone()),
                false => Write::Put(store, record.clone()),
            }))
        };
        let plan = Plan {
            stores: &ALL,
            write: true,
            idempotent: false,
            reads: Vec::new(),
            more: None,
            decide: Box::new(decide),
        };
        Ok(creating(plan, info))
    }
}
