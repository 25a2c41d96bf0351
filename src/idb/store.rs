use std::rc::Rc;

use crate::json::{self, Value};
use idb::Query;
use wasm_bindgen::{JsCast, JsValue};

use super::connection::{Connection, Durability, Listener};
use super::plan::{Plan, Read, Write};
use super::records::{
    corrupt, key, payload_text, record, session_payload, session_range, state_key_of,
};
use super::schema::{ACTIVITY_FRAMES, BY_REQUEST, BY_SESSION, MESSAGES, SESSIONS, SESSION_STATE};
use crate::session::{checks, sort_sessions, Environment, NewSession, SessionInfo, SessionStore};
use crate::Error;

/// The session store backed by IndexedDB.
pub struct IdbSessionStore {
    env: Rc<dyn Environment>,
    connection: Connection,
}

const ALL: [&str; 4] = [SESSIONS, SESSION_STATE, ACTIVITY_FRAMES, MESSAGES];

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

    /// Writes to an existing session in one transaction: after `reads`
    /// (the session record is read first), `writes` issues its writes; if
    /// there are any, the session's `updatedAt` is bumped in the same
    /// transaction. `NOT_FOUND` writes nothing.
    async fn write_session(
        &self,
        session_id: &str,
        stores: &'static [&'static str],
        idempotent: bool,
        mut reads: Vec<Read>,
        writes: &dyn Fn(&[JsValue]) -> Vec<Write>,
    ) -> Result<Vec<JsValue>, Error> {
        let now = self.env.now();
        reads.insert(0, Read::Get(SESSIONS, Query::Key(session_id.into())));
        let decide = |results: &[JsValue]| {
            let stored = &results[0];
            if stored.is_undefined() {
                return Err(Error::NotFound {
                    session_id: session_id.to_owned(),
                });
            }
            let mut writes = writes(&results[1..]);
            if !writes.is_empty() {
                let mut info = session_payload(stored)?;
                info.updated_at = info.updated_at.max(now);
                writes.push(Write::Put(SESSIONS, session_record(&info)));
            }
            Ok(writes)
        };
        let plan = Plan {
            stores,
            write: true,
            idempotent,
            reads,
            decide: &decide,
        };
        let mut results = self.connection.execute(&plan).await?;
        results.remove(0);
        Ok(results)
    }

    /// Adds `records` to `stores[1]` of an existing session. Not
    /// idempotent: run again after a lost connection, it could add twice.
    async fn append(
        &self,
        session_id: &str,
        stores: &'static [&'static str],
        records: Vec<JsValue>,
    ) -> Result<(), Error> {
        let add = |_: &[JsValue]| {
            let add = |record: &JsValue| Write::Add(stores[1], record.clone());
            records.iter().map(add).collect()
        };
        self.write_session(session_id, stores, false, Vec::new(), &add)
            .await
            .map(drop)
    }

    /// One read in its own read-only transaction, on the store it names.
    async fn read(&self, read: Read) -> Result<JsValue, Error> {
        let all: &'static [&'static str] = &ALL;
        let at = all
            .iter()
            .position(|&name| name == read.store())
            .unwrap_or(0);
        let plan = Plan::read(&all[at..=at], vec![read]);
        let mut results = self.connection.execute(&plan).await?;
        Ok(results.pop().unwrap_or_default())
    }
}

fn session_record(info: &SessionInfo) -> JsValue {
    record(&[("id", &info.id)], info.to_value().to_json())
}

/// A `getAll`/`getAllKeys` result as a list.
fn records_of(result: &JsValue) -> Vec<JsValue> {
    result
        .dyn_ref::<js_sys::Array>()
        .map(|all| all.iter().collect())
        .unwrap_or_default()
}

impl SessionStore for IdbSessionStore {
    async fn create_session(&self, new: NewSession) -> Result<SessionInfo, Error> {
        let info = checks::new_session(new, self.env.now(), || self.env.new_id())?;
        let stored = session_record(&info);
        let decide = |_: &[JsValue]| Ok(vec![Write::Add(SESSIONS, stored.clone())]);
        let plan = Plan {
            stores: &[SESSIONS],
            write: true,
            idempotent: false,
            reads: Vec::new(),
            decide: &decide,
        };
        match self.connection.execute(&plan).await {
            Ok(_) => Ok(info),
            Err(Error::Aborted { dom_name, .. }) if dom_name == "ConstraintError" => {
                Err(Error::AlreadyExists {
                    session_id: info.id,
                })
            }
            Err(other) => Err(other),
        }
    }

    async fn get_session(&self, id: &str) -> Result<Option<SessionInfo>, Error> {
        let found = self
            .read(Read::Get(SESSIONS, Query::Key(id.into())))
            .await?;
        (!found.is_undefined())
            .then(|| session_payload(&found))
            .transpose()
    }

    async fn list_sessions(&self) -> Result<Vec<SessionInfo>, Error> {
        let all = self.read(Read::All(SESSIONS, None, None)).await?;
        let mut sessions = records_of(&all)
            .iter()
            .map(session_payload)
            .collect::<Result<Vec<SessionInfo>, _>>()?;
        sort_sessions(&mut sessions);
        Ok(sessions)
    }

    async fn delete_session(&self, id: &str) -> Result<bool, Error> {
        let by_session = || Some(Query::Key(id.into()));
        let reads = vec![
            Read::Get(SESSIONS, Query::Key(id.into())),
            Read::AllKeys(ACTIVITY_FRAMES, Some(BY_SESSION), by_session()),
            Read::AllKeys(MESSAGES, Some(BY_SESSION), by_session()),
        ];
        let range = session_range(id)?;
        let decide = |results: &[JsValue]| {
            if results[0].is_undefined() {
                return Ok(Vec::new());
            }
            let mut writes = vec![
                Write::Delete(SESSIONS, Query::Key(id.into())),
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
            decide: &decide,
        };
        let results = self.connection.execute(&plan).await?;
        Ok(!results[0].is_undefined())
    }

    async fn save_session_state(
        &self,
        session_id: &str,
        key_name: &str,
        value: Value,
    ) -> Result<(), Error> {
        checks::id_argument("key", key_name)?;
        checks::state_value(key_name, &value)?;
        let stored = record(
            &[("sessionId", session_id), ("key", key_name)],
            value.to_json(),
        );
        let put = |_: &[JsValue]| vec![Write::Put(SESSION_STATE, stored.clone())];
        self.write_session(
            session_id,
            &[SESSIONS, SESSION_STATE],
            true,
            Vec::new(),
            &put,
        )
        .await
        .map(drop)
    }

    async fn load_session_state(
        &self,
        session_id: &str,
        key_name: &str,
    ) -> Result<Option<Value>, Error> {
        let text = self.load_session_state_json(session_id, key_name).await?;
        text.map(|text| parsed(&text)).transpose()
    }

    async fn list_session_state_keys(&self, session_id: &str) -> Result<Vec<String>, Error> {
        let range = Some(Query::KeyRange(session_range(session_id)?));
        let keys = self.read(Read::AllKeys(SESSION_STATE, None, range)).await?;
        Ok(records_of(&keys).iter().filter_map(state_key_of).collect())
    }

    async fn delete_session_state(&self, session_id: &str, key_name: &str) -> Result<bool, Error> {
        let primary = key(&[session_id, key_name]);
        // One transaction: checking and deleting apart would let another
        // connection act in between.
        let reads = vec![Read::GetKey(SESSION_STATE, Query::Key(primary.clone()))];
        let delete = |results: &[JsValue]| {
            if results[0].is_undefined() {
                return Vec::new();
            }
            vec![Write::Delete(SESSION_STATE, Query::Key(primary.clone()))]
        };
        let stores = &[SESSIONS, SESSION_STATE];
        match self
            .write_session(session_id, stores, true, reads, &delete)
            .await
        {
            Ok(results) => Ok(!results[0].is_undefined()),
            Err(Error::NotFound { .. }) => Ok(false),
            Err(other) => Err(other),
        }
    }

    async fn append_activity_frames(
        &self,
        session_id: &str,
        request_id: &str,
        frames: Vec<Value>,
    ) -> Result<(), Error> {
        checks::id_argument("requestId", request_id)?;
        checks::objects("frames", &frames)?;
        // One record per call: the batch is atomic anyway, and IndexedDB's
        // cost is per record, so a 1,000-frame call is one add, not 1,000.
        let batch = (!frames.is_empty()).then(|| {
            let ids = [("sessionId", session_id), ("requestId", request_id)];
            record(&ids, Value::Array(frames).to_json())
        });
        let stores = &[SESSIONS, ACTIVITY_FRAMES];
        self.append(session_id, stores, batch.into_iter().collect())
            .await
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
        checks::objects("messages", &messages)?;
        let ids = [("sessionId", session_id)];
        let records = messages.iter().map(|m| record(&ids, m.to_json())).collect();
        self.append(session_id, &[SESSIONS, MESSAGES], records)
            .await
    }

    async fn load_messages(&self, session_id: &str) -> Result<Vec<Value>, Error> {
        into_list(parsed(&self.load_messages_json(session_id).await?)?)
    }

    async fn load_session_state_json(
        &self,
        session_id: &str,
        key_name: &str,
    ) -> Result<Option<String>, Error> {
        let primary = Query::Key(key(&[session_id, key_name]));
        let found = self.read(Read::Get(SESSION_STATE, primary)).await?;
        (!found.is_undefined())
            .then(|| payload_text(&found))
            .transpose()
    }

    async fn load_activity_frames_json(
        &self,
        session_id: &str,
        request_id: Option<&str>,
    ) -> Result<String, Error> {
        let (index, query) = match request_id {
            Some(request_id) => (BY_REQUEST, key(&[session_id, request_id])),
            None => (BY_SESSION, JsValue::from_str(session_id)),
        };
        let read = Read::All(ACTIVITY_FRAMES, Some(index), Some(Query::Key(query)));
        let batches = self.read(read).await?;
        // Each record is one batch's array: the frames are their elements,
        // joined without parsing them.
        join_list(&batches, batch_elements)
    }

    async fn load_messages_json(&self, session_id: &str) -> Result<String, Error> {
        let read = Read::All(
            MESSAGES,
            Some(BY_SESSION),
            Some(Query::Key(session_id.into())),
        );
        join_list(&self.read(read).await?, whole)
    }
}

/// A JSON array of the records' payloads, each cut down by `element`.
fn join_list(records: &JsValue, element: fn(&str) -> Result<&str, Error>) -> Result<String, Error> {
    let mut list = String::from("[");
    for record in records_of(records) {
        let text = payload_text(&record)?;
        let inner = element(&text)?;
        if !inner.is_empty() {
            if list.len() > 1 {
                list.push(',');
            }
            list.push_str(inner);
        }
    }
    list.push(']');
    Ok(list)
}

fn batch_elements(batch: &str) -> Result<&str, Error> {
    batch
        .strip_prefix('[')
        .and_then(|rest| rest.strip_suffix(']'))
        .ok_or_else(|| corrupt("a frame batch is not an array"))
}

fn whole(text: &str) -> Result<&str, Error> {
    Ok(text)
}

fn parsed(text: &str) -> Result<Value, Error> {
    json::parse(text).map_err(|e| corrupt(&format!("a stored payload {}", e.reason())))
}

fn into_list(value: Value) -> Result<Vec<Value>, Error> {
    match value {
        Value::Array(items) => Ok(items),
        _ => Err(corrupt("a stored list is not an array")),
    }
}
