use std::rc::Rc;

use crate::json::Value;
use idb::Query;
use wasm_bindgen::{JsCast, JsValue};

use super::connection::{Connection, Durability, Listener};
use super::errors::Dom;
use super::history::frame_batch;
use super::plan::{More, Op, Plan, Read, Write};
use super::records::{
    corrupt, key, parsed, past, payload, payload_text, record, session_payload, session_range,
    state_key_of,
};
use super::schema::{ACTIVITY_FRAMES, BY_REQUEST, BY_SESSION, MESSAGES, SESSIONS, SESSION_STATE};
use crate::session::call::{self, Call, Reply};
use crate::session::export::SessionExport;
use crate::session::{
    checks, sort_sessions, Environment, KeyRange, NewSession, Page, RequestSummary, SessionInfo,
    SessionStore, SessionUpdate, TurnWrite, Upper,
};
use crate::session::{Pins, ATTACHMENTS_KEY, PREFIX_BASELINE_KEY};
use crate::Error;

/// The session store backed by IndexedDB.
pub struct IdbSessionStore {
    pub(super) env: Rc<dyn Environment>,
    connection: Connection,
}

pub(super) const ALL: [&str; 4] = [SESSIONS, SESSION_STATE, ACTIVITY_FRAMES, MESSAGES];

/// The most keys a reverse listing walks a cursor for; beyond it, the
/// scan's keys are read in one request and the core takes the last.
const LAST_KEYS_BY_CURSOR: u32 = 64;

/// At most `count` keys of `query`, the last with `reverse`; all of them
/// where a backwards cursor's request per key costs more than one read
/// of every key (past 64: true of short histories; at 10,000 messages in
/// fake-indexeddb, 64 keys by cursor took 6.7 ms and all keys 14.5).
pub(super) fn keys_read(
    store: &'static str,
    index: Option<&'static str>,
    query: Query,
    count: Option<usize>,
    reverse: bool,
) -> Read {
    match count.map(|n| u32::try_from(n).unwrap_or(u32::MAX)) {
        // The last few (the latest checkpoint, a turn's pop or page).
        Some(count) if !reverse || count <= LAST_KEYS_BY_CURSOR => {
            Read::Keys(store, index, query, count, reverse)
        }
        _ => Read::AllKeys(store, index, Some(query)),
    }
}

impl IdbSessionStore {
    pub async fn open(
        name: &str,
        durability: Durability,
        env: Rc<dyn Environment>,
    ) -> Result<Self, Error> {
        Ok(Self {
            env,
            connection: Connection::open(name, durability).await?,
        })
    }

    pub fn name(&self) -> &str {
        self.connection.name()
    }

    /// Called after another connection asked to upgrade or delete the
    /// database and this store closed its connection; the next call reopens.
    pub fn on_version_change(&self, listener: Option<Listener>) {
        self.connection.set_listener(listener);
    }

    /// The live connection, if open: lets tests close it behind our back.
    #[doc(hidden)]
    pub fn current_connection(&self) -> Option<web_sys::IdbDatabase> {
        self.connection.current()
    }

    pub fn close(&self) {
        self.connection.close();
    }

    /// See `Connection::hold`: the binding takes one as each call is made.
    pub fn hold(&self) -> super::Hold {
        self.connection.hold()
    }

    /// Writes to an existing session in one transaction: after `reads`
    /// (the session record is read first), `writes` issues its writes; if
    /// there are any, the session's `updatedAt` is bumped in the same
    /// transaction. `NOT_FOUND` writes nothing. The results are the reads'.
    pub(super) fn write_session(
        &self,
        session_id: &str,
        stores: &'static [&'static str],
        idempotent: bool,
        mut reads: Vec<Read>,
        more: Option<More>,
        writes: impl Fn(&[JsValue]) -> Result<Vec<Write>, Error> + 'static,
    ) -> Op<Vec<JsValue>> {
        let now = self.env.now();
        let session_id = session_id.to_owned();
        reads.insert(
            0,
            Read::Get(SESSIONS, Query::Key(session_id.as_str().into())),
        );
        let decide = move |results: &[JsValue]| {
            let stored = &results[0];
            if stored.is_undefined() {
                return Err(Error::NotFound {
                    session_id: session_id.clone(),
                });
            }
            let mut writes = writes(&results[1..])?;
            if !writes.is_empty() {
                let mut info = session_payload(stored)?;
                info.updated_at = info.updated_at.max(now);
                writes.push(Write::Put(SESSIONS, session_record(&info)));
            }
            Ok(writes)
        };
        // Further reads see the results after the session record, as
        // `writes` does.
        let more = more.map(|more| -> More { Box::new(move |results| more(&results[1..])) });
        let plan = Plan {
            stores,
            write: true,
            idempotent,
            reads,
            more,
            decide: Box::new(decide),
        };
        Op::new(plan, |mut results| {
            results.remove(0);
            Ok(results)
        })
    }

    /// Adds `records` to `stores[1]` of an existing session. Not
    /// idempotent: run again after a lost connection, it could add twice.
    fn append(
        &self,
        session_id: &str,
        stores: &'static [&'static str],
        records: Vec<JsValue>,
    ) -> Op<()> {
        let add = move |_: &[JsValue]| {
            let add = |record: &JsValue| Write::Add(stores[1], record.clone());
            Ok(crate::map_vec(&records, add))
        };
        self.write_session(session_id, stores, false, Vec::new(), None, add)
            .map(drop)
    }

    /// One read in its own read-only transaction, on the store it names.
    pub(super) fn read<T: 'static>(
        &self,
        read: Read,
        finish: impl FnOnce(JsValue) -> Result<T, Error> + 'static,
    ) -> Op<T> {
        let all: &'static [&'static str] = &ALL;
        let at = all
            .iter()
            .position(|&name| name == read.store())
            .unwrap_or(0);
        let plan = Plan {
            stores: &all[at..=at],
            write: false,
            idempotent: true,
            reads: vec![read],
            more: None,
            decide: Box::new(|_| Ok(Vec::new())),
        };
        Op::new(plan, |mut results| {
            finish(results.pop().unwrap_or_default())
        })
    }

    /// Runs a call: every call is one operation, so this is the bindings'
    /// one state machine.
    pub async fn run(&self, call: Call) -> Result<Reply, Error> {
        self.op(call)?.run(&self.connection).await
    }

    #[inline(never)]
    fn op(&self, call: Call) -> Result<Op<Reply>, Error> {
        Ok(match call {
            Call::CreateSession(new) => self.create_session_op(new)?.map(Reply::Info),
            Call::GetSession(id) => self.get_session_op(&id).map(Reply::MaybeInfo),
            Call::ListSessions => self.list_sessions_op().map(Reply::Infos),
            Call::DeleteSession(id) => self.delete_session_op(&id)?.map(Reply::Bool),
            Call::SaveState(id, key, value) => {
                self.save_state_op(&id, &key, value)?.map(|()| Reply::Unit)
            }
            Call::LoadState(id, key) => self.load_state_op(&id, &key).map(Reply::MaybeText),
            Call::StateKeys(id, range) => self.state_keys_op(&id, range)?.map(Reply::Keys),
            Call::LoadStates(id, keys) => self.load_states_op(&id, &keys).map(Reply::Text),
            Call::DeleteState(id, key) => self.delete_state_op(&id, &key).map(Reply::Bool),
            Call::AppendFrames(id, request, frames) => self
                .append_frames_op(&id, &request, frames)?
                .map(|()| Reply::Unit),
            Call::LoadFrames(id, request) => self
                .load_frames_op(&id, request.as_deref())
                .map(Reply::Text),
            Call::AppendMessages(id, messages) => self
                .append_messages_op(&id, messages)?
                .map(|()| Reply::Unit),
            Call::LoadMessages(id, page) => self.load_messages_page_op(&id, page).map(Reply::Text),
            Call::UpdateSession(id, update) => self.update_session_op(&id, update).map(Reply::Info),
            Call::PopMessage(id) => self.pop_message_op(&id).map(Reply::MaybeText),
            Call::ClearMessages(id) => self.clear_messages_op(&id).map(|()| Reply::Unit),
            Call::ListRequests(id) => self.list_requests_op(&id).map(Reply::Json),
            Call::LoadFramesByRequest(id) => self.load_frames_by_request_op(&id).map(Reply::Text),
            Call::CommitTurn(id, turn) => self.commit_turn_op(&id, turn)?.map(|()| Reply::Unit),
            Call::ExportSession(id) => self.export_session_op(&id)?.map(Reply::Text),
            Call::ImportSession(export) => self.import_session_op(export)?.map(Reply::Info),
            Call::LoadAttachments(id) => self.load_pins_op(&id).map(Reply::Pinned),
        })
    }

    /// The pins and their baseline, read in one transaction.
    fn load_pins_op(&self, session_id: &str) -> Op<Option<Pins>> {
        let get = |key_name| Read::Get(SESSION_STATE, Query::Key(key(&[session_id, key_name])));
        let plan = Plan {
            stores: &[SESSION_STATE],
            write: false,
            idempotent: true,
            reads: vec![get(ATTACHMENTS_KEY), get(PREFIX_BASELINE_KEY)],
            more: None,
            decide: Box::new(|_| Ok(Vec::new())),
        };
        Op::new(plan, |results| {
            let value =
                |found: &JsValue| (!found.is_undefined()).then(|| payload(found)).transpose();
            call::pins(value(&results[0])?, value(&results[1])?)
        })
    }

    fn create_session_op(&self, new: NewSession) -> Result<Op<SessionInfo>, Error> {
        let info = checks::new_session(new, self.env.now(), || self.env.new_id())?;
        let stored = session_record(&info);
        let plan = Plan {
            stores: &[SESSIONS],
            write: true,
            idempotent: false,
            reads: Vec::new(),
            more: None,
            decide: Box::new(move |_| Ok(vec![Write::Add(SESSIONS, stored.clone())])),
        };
        Ok(creating(plan, info))
    }

    fn get_session_op(&self, id: &str) -> Op<Option<SessionInfo>> {
        self.read(Read::Get(SESSIONS, Query::Key(id.into())), |found| {
            (!found.is_undefined())
                .then(|| session_payload(&found))
                .transpose()
        })
    }

    fn list_sessions_op(&self) -> Op<Vec<SessionInfo>> {
        self.read(Read::All(SESSIONS, None, None), |all| {
            // A record another program damaged is left out, not a failure
            // for every session: getSession names it, deleteSession takes it.
            let mut sessions: Vec<SessionInfo> = records_of(&all)
                .iter()
                .filter_map(|r| session_payload(r).ok())
                .collect();
            sort_sessions(&mut sessions);
            Ok(sessions)
        })
    }

    fn delete_session_op(&self, id: &str) -> Result<Op<bool>, Error> {
        let by_session = || Some(Query::Key(id.into()));
        let reads = vec![
            Read::Get(SESSIONS, Query::Key(id.into())),
            Read::AllKeys(ACTIVITY_FRAMES, Some(BY_SESSION), by_session()),
            Read::AllKeys(MESSAGES, Some(BY_SESSION), by_session()),
        ];
        let range = session_range(id)?;
        let id = JsValue::from_str(id);
        let decide = move |results: &[JsValue]| {
            if results[0].is_undefined() {
                return Ok(Vec::new());
            }
            let mut writes = vec![
                Write::Delete(SESSIONS, Query::Key(id.clone())),
                Write::Delete(SESSION_STATE, Query::KeyRange(range.clone())),
            ];
            for (store, keys) in [(ACTIVITY_FRAMES, &results[1]), (MESSAGES, &results[2])] {
                writes.extend(
                    records_of(keys)
                        .into_iter()
                        .map(|k| Write::Delete(store, Query::Key(k))),
                );
            }
            Ok(writes)
        };
        let plan = Plan {
            stores: &ALL,
            write: true,
            idempotent: true,
            reads,
            more: None,
            decide: Box::new(decide),
        };
        Ok(Op::new(plan, |results| Ok(!results[0].is_undefined())))
    }

    fn save_state_op(
        &self,
        session_id: &str,
        key_name: &str,
        value: Value,
    ) -> Result<Op<()>, Error> {
        checks::id_argument("key", key_name)?;
        checks::state_value(key_name, &value)?;
        let stored = record(
            &[("sessionId", session_id), ("key", key_name)],
            value.to_json(),
        );
        let put = move |_: &[JsValue]| Ok(vec![Write::Put(SESSION_STATE, stored.clone())]);
        Ok(self
            .write_session(
                session_id,
                &[SESSIONS, SESSION_STATE],
                true,
                Vec::new(),
                None,
                put,
            )
            .map(drop))
    }

    fn load_state_op(&self, session_id: &str, key_name: &str) -> Op<Option<String>> {
        let primary = Query::Key(key(&[session_id, key_name]));
        self.read(Read::Get(SESSION_STATE, primary), |found| {
            (!found.is_undefined())
                .then(|| payload_text(&found))
                .transpose()
        })
    }

    /// Only the keys of the core's scan are read, and with a limit only
    /// that many: the latest checkpoint is one key, however many precede
    /// it. The core still selects, as it does for the memory store.
    fn state_keys_op(&self, session_id: &str, range: KeyRange) -> Result<Op<Vec<String>>, Error> {
        let lower = key(&[session_id, range.prefix.as_deref().unwrap_or_default()]);
        let read = match range.scan() {
            // Nothing can match: read at most the one key at the start.
            None => Read::AllKeys(SESSION_STATE, None, Some(Query::Key(lower))),
            Some(scan) => {
                let upper = match scan.upper {
                    Upper::Before(before) => JsValue::from_str(before),
                    Upper::Past(prefix) => past(prefix),
                    // Arrays sort after every string.
                    Upper::End => js_sys::Array::new().into(),
                };
                let upper = js_sys::Array::of2(&session_id.into(), &upper);
                let bounds = idb::KeyRange::bound(&lower, &upper, Some(false), Some(true)).dom()?;
                let query = Query::KeyRange(bounds);
                keys_read(SESSION_STATE, None, query, scan.count, range.reverse)
            }
        };
        Ok(self.read(read, move |keys| {
            let keys = records_of(&keys).iter().filter_map(state_key_of).collect();
            Ok(range.select(keys))
        }))
    }

    /// One transaction; a JSON array with `null` where a key holds nothing.
    fn load_states_op(&self, session_id: &str, keys: &[String]) -> Op<String> {
        let get = |k: &String| Read::Get(SESSION_STATE, Query::Key(key(&[session_id, k])));
        let plan = Plan {
            stores: &[SESSION_STATE],
            write: false,
            idempotent: true,
            reads: crate::map_vec(keys, get),
            more: None,
            decide: Box::new(|_| Ok(Vec::new())),
        };
        Op::new(plan, |results| {
            let texts = results
                .iter()
                .map(|found| match found.is_undefined() {
                    true => Ok("null".to_owned()),
                    false => payload_text(found),
                })
                .collect::<Result<Vec<_>, Error>>()?;
            Ok(format!("[{}]", crate::text::join(&texts, ",")))
        })
    }

    fn delete_state_op(&self, session_id: &str, key_name: &str) -> Op<bool> {
        let primary = key(&[session_id, key_name]);
        // One transaction: checking and deleting apart would let another
        // connection act in between.
        let reads = vec![Read::GetKey(SESSION_STATE, Query::Key(primary.clone()))];
        let delete = move |results: &[JsValue]| {
            if results[0].is_undefined() {
                return Ok(Vec::new());
            }
            Ok(vec![Write::Delete(
                SESSION_STATE,
                Query::Key(primary.clone()),
            )])
        };
        let op = self.write_session(
            session_id,
            &[SESSIONS, SESSION_STATE],
            true,
            reads,
            None,
            delete,
        );
        let finish = op.finish;
        Op {
            plan: op.plan,
            finish: Box::new(move |outcome| match finish(outcome) {
                Ok(results) => Ok(!results[0].is_undefined()),
                Err(Error::NotFound { .. }) => Ok(false),
                Err(other) => Err(other),
            }),
        }
    }

    fn append_frames_op(
        &self,
        session_id: &str,
        request_id: &str,
        frames: Vec<Value>,
    ) -> Result<Op<()>, Error> {
        checks::id_argument("requestId", request_id)?;
        checks::objects("frames", &frames, checks::NOT_FRAME)?;
        // One record per call: the batch is atomic anyway, and IndexedDB's
        // cost is per record, so a 1,000-frame call is one add, not 1,000.
        let now = self.env.now();
        let batch = (!frames.is_empty()).then(|| frame_batch(session_id, request_id, frames, now));
        let stores = &[SESSIONS, ACTIVITY_FRAMES];
        Ok(self.append(session_id, stores, batch.into_iter().collect()))
    }

    fn load_frames_op(&self, session_id: &str, request_id: Option<&str>) -> Op<String> {
        let (index, query) = match request_id {
            Some(request_id) => (BY_REQUEST, key(&[session_id, request_id])),
            None => (BY_SESSION, JsValue::from_str(session_id)),
        };
        let read = Read::All(ACTIVITY_FRAMES, Some(index), Some(Query::Key(query)));
        // Each record is one batch's array: the frames are their elements,
        // joined without parsing them.
        self.read(read, |batches| {
            super::history::join_records(&records_of(&batches), true)
        })
    }

    fn append_messages_op(&self, session_id: &str, messages: Vec<Value>) -> Result<Op<()>, Error> {
        checks::messages(&messages)?;
        let ids = [("sessionId", session_id)];
        let records = crate::map_vec(&messages, |m| record(&ids, m.to_json()));
        Ok(self.append(session_id, &[SESSIONS, MESSAGES], records))
    }

    pub(super) fn load_messages_op(&self, session_id: &str) -> Op<String> {
        let query = Some(Query::Key(session_id.into()));
        self.read(Read::All(MESSAGES, Some(BY_SESSION), query), |all| {
            super::history::join_records(&records_of(&all), false)
        })
    }
}

/// A plan that adds a session record (it has no reads of its own), as the
/// operation returning that session. A taken id is `ALREADY_EXISTS`, found
/// by a read in the same transaction, before any write: any other add's
/// `ConstraintError` stays `ABORTED`.
pub(super) fn creating(mut plan: Plan, info: SessionInfo) -> Op<SessionInfo> {
    let id = info.id.clone();
    plan.reads = vec![Read::GetKey(SESSIONS, Query::Key(id.as_str().into()))];
    let decide = plan.decide;
    plan.decide = Box::new(move |found| match found[0].is_undefined() {
        true => decide(&[]),
        false => Err(Error::AlreadyExists {
            session_id: id.clone(),
        }),
    });
    Op::new(plan, move |_| Ok(info))
}

pub(super) fn session_record(info: &SessionInfo) -> JsValue {
    record(&[("id", &info.id)], info.to_value().to_json())
}

/// A `getAll`/`getAllKeys` result as a list.
pub(super) fn records_of(result: &JsValue) -> Vec<JsValue> {
    result
        .dyn_ref::<js_sys::Array>()
        .map(|all| all.iter().collect())
        .unwrap_or_default()
}

// The trait, for Rust callers and the conformance suite: each method runs
// the same operation the bindings run.
impl SessionStore for IdbSessionStore {
    async fn create_session(&self, new: NewSession) -> Result<SessionInfo, Error> {
        self.create_session_op(new)?.run(&self.connection).await
    }

    async fn get_session(&self, id: &str) -> Result<Option<SessionInfo>, Error> {
        self.get_session_op(id).run(&self.connection).await
    }

    async fn list_sessions(&self) -> Result<Vec<SessionInfo>, Error> {
        self.list_sessions_op().run(&self.connection).await
    }

    async fn delete_session(&self, id: &str) -> Result<bool, Error> {
        self.delete_session_op(id)?.run(&self.connection).await
    }

    async fn save_session_state(
        &self,
        session_id: &str,
        key_name: &str,
        value: Value,
    ) -> Result<(), Error> {
        let op = self.save_state_op(session_id, key_name, value)?;
        op.run(&self.connection).await
    }

    async fn load_session_state(
        &self,
        session_id: &str,
        key_name: &str,
    ) -> Result<Option<Value>, Error> {
        let text = self.load_session_state_json(session_id, key_name).await?;
        text.map(|text| parsed(&text)).transpose()
    }

    /// One transaction, as `loadAttachments` from JS: two reads could pair
    /// one tab's pins with another's baseline.
    async fn load_pins(&self, session_id: &str) -> Result<Option<Pins>, Error> {
        self.load_pins_op(session_id).run(&self.connection).await
    }

    async fn list_state_keys(
        &self,
        session_id: &str,
        range: &KeyRange,
    ) -> Result<Vec<String>, Error> {
        let op = self.state_keys_op(session_id, range.clone())?;
        op.run(&self.connection).await
    }

    async fn load_session_states_json(
        &self,
        session_id: &str,
        keys: &[String],
    ) -> Result<String, Error> {
        self.load_states_op(session_id, keys)
            .run(&self.connection)
            .await
    }

    async fn delete_session_state(&self, session_id: &str, key_name: &str) -> Result<bool, Error> {
        let op = self.delete_state_op(session_id, key_name);
        op.run(&self.connection).await
    }

    async fn append_activity_frames(
        &self,
        session_id: &str,
        request_id: &str,
        frames: Vec<Value>,
    ) -> Result<(), Error> {
        let op = self.append_frames_op(session_id, request_id, frames)?;
        op.run(&self.connection).await
    }

    async fn load_activity_frames(
        &self,
        session_id: &str,
        request_id: Option<&str>,
    ) -> Result<Vec<Value>, Error> {
        let text = self
            .load_activity_frames_json(session_id, request_id)
            .await?;
        into_list(parsed(&text)?)
    }

    async fn append_messages(&self, session_id: &str, messages: Vec<Value>) -> Result<(), Error> {
        let op = self.append_messages_op(session_id, messages)?;
        op.run(&self.connection).await
    }

    async fn load_messages(&self, session_id: &str) -> Result<Vec<Value>, Error> {
        into_list(parsed(&self.load_messages_json(session_id).await?)?)
    }

    async fn load_session_state_json(
        &self,
        session_id: &str,
        key_name: &str,
    ) -> Result<Option<String>, Error> {
        let op = self.load_state_op(session_id, key_name);
        op.run(&self.connection).await
    }

    async fn load_activity_frames_json(
        &self,
        session_id: &str,
        request_id: Option<&str>,
    ) -> Result<String, Error> {
        let op = self.load_frames_op(session_id, request_id);
        op.run(&self.connection).await
    }

    async fn load_messages_json(&self, session_id: &str) -> Result<String, Error> {
        self.load_messages_op(session_id)
            .run(&self.connection)
            .await
    }

    async fn update_session(&self, id: &str, update: SessionUpdate) -> Result<SessionInfo, Error> {
        self.update_session_op(id, update)
            .run(&self.connection)
            .await
    }

    async fn load_messages_page(&self, session_id: &str, page: Page) -> Result<Vec<Value>, Error> {
        let text = self
            .load_messages_page_op(session_id, page)
            .run(&self.connection)
            .await?;
        into_list(parsed(&text)?)
    }

    async fn pop_message(&self, session_id: &str) -> Result<Option<Value>, Error> {
        let text = self
            .pop_message_op(session_id)
            .run(&self.connection)
            .await?;
        text.map(|text| parsed(&text)).transpose()
    }

    async fn clear_messages(&self, session_id: &str) -> Result<(), Error> {
        self.clear_messages_op(session_id)
            .run(&self.connection)
            .await
    }

    async fn list_requests(&self, session_id: &str) -> Result<Vec<RequestSummary>, Error> {
        let list = self
            .list_requests_op(session_id)
            .run(&self.connection)
            .await?;
        let summary = |v: &Value| RequestSummary {
            request_id: v["requestId"].as_str().unwrap_or_default().to_owned(),
            frames: v["frames"].as_u64().unwrap_or(0),
            first_at: v["firstAt"].as_u64().unwrap_or(0) as f64,
            last_at: v["lastAt"].as_u64().unwrap_or(0) as f64,
        };
        Ok(crate::map_vec(&into_list(list)?, summary))
    }

    async fn load_frames_by_request(
        &self,
        session_id: &str,
    ) -> Result<Vec<(String, Vec<Value>)>, Error> {
        let text = self
            .load_frames_by_request_op(session_id)
            .run(&self.connection)
            .await?;
        let group = |v: Value| {
            let id = v["requestId"].as_str().unwrap_or_default().to_owned();
            (id, v["frames"].as_array().cloned().unwrap_or_default())
        };
        Ok(into_list(parsed(&text)?)?.into_iter().map(group).collect())
    }

    async fn export_session(&self, id: &str) -> Result<String, Error> {
        self.export_session_op(id)?.run(&self.connection).await
    }

    async fn import_session(&self, export: SessionExport) -> Result<SessionInfo, Error> {
        self.import_session_op(export)?.run(&self.connection).await
    }

    async fn commit_turn(&self, session_id: &str, turn: TurnWrite) -> Result<(), Error> {
        self.commit_turn_op(session_id, turn)?
            .run(&self.connection)
            .await
    }
}

fn into_list(value: Value) -> Result<Vec<Value>, Error> {
    match value {
        Value::Array(items) => Ok(items),
        _ => Err(corrupt("a stored list is not an array")),
    }
}
