use std::rc::Rc;

use crate::json::Value;
use idb::Query;
use wasm_bindgen::JsValue;

use super::connection::{completed, Connection, Durability, Listener, Tx};
use super::errors::{from_idb, Dom};
use super::records::{key, payload, record, session_payload, session_range, state_key_of};
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

    /// Writes to an existing session in one transaction: issues `writes`,
    /// which says whether it wrote anything, and if it did, bumps the
    /// session's `updatedAt` in the same transaction. `NOT_FOUND` writes
    /// nothing.
    async fn write_session(
        &self,
        session_id: &str,
        stores: &[&str],
        idempotent: bool,
        writes: impl AsyncFn(&idb::Transaction) -> Result<bool, Error>,
    ) -> Result<bool, Error> {
        let now = self.env.now();
        self.connection
            .run(stores, true, idempotent, async |tx: Tx| {
                let sessions = tx.idb.object_store(SESSIONS).dom()?;
                let found = sessions.get(JsValue::from_str(session_id)).dom()?.await;
                let Some(stored) = found.dom()? else {
                    return Err(Error::NotFound {
                        session_id: session_id.to_owned(),
                    });
                };
                if !writes(&tx.idb).await? {
                    // Nothing issued: the transaction completes empty.
                    return Ok(false);
                }
                let mut info = session_payload(&stored)?;
                info.updated_at = info.updated_at.max(now);
                sessions.put(&session_record(&info), None).dom()?;
                completed(tx).await.map(|()| true)
            })
            .await
    }

    async fn read<T>(
        &self,
        stores: &[&str],
        op: impl AsyncFn(&idb::Transaction) -> Result<T, Error>,
    ) -> Result<T, Error> {
        self.connection
            .run(stores, false, true, async |tx: Tx| op(&tx.idb).await)
            .await
    }
}

fn session_record(info: &SessionInfo) -> JsValue {
    record(&[("id", &info.id)], info.to_value().to_json())
}

fn payloads(records: Vec<JsValue>) -> Result<Vec<Value>, Error> {
    records.iter().map(payload).collect()
}

fn store(tx: &idb::Transaction, name: &str) -> Result<idb::ObjectStore, Error> {
    tx.object_store(name).dom()
}

impl SessionStore for IdbSessionStore {
    async fn create_session(&self, new: NewSession) -> Result<SessionInfo, Error> {
        let info = checks::new_session(new, self.env.now(), || self.env.new_id())?;
        let stored = session_record(&info);
        self.connection
            .run(&[SESSIONS], true, false, async |tx: Tx| {
                let added = store(&tx.idb, SESSIONS)?.add(&stored, None).dom()?.await;
                if let Err(e) = added {
                    return Err(match from_idb(&e) {
                        Error::Aborted { dom_name, .. } if dom_name == "ConstraintError" => {
                            Error::AlreadyExists {
                                session_id: info.id.clone(),
                            }
                        }
                        other => other,
                    });
                }
                completed(tx).await
            })
            .await?;
        Ok(info)
    }

    async fn get_session(&self, id: &str) -> Result<Option<SessionInfo>, Error> {
        self.read(&[SESSIONS], async |tx| {
            let found = store(tx, SESSIONS)?.get(JsValue::from_str(id)).dom()?.await;
            found.dom()?.as_ref().map(session_payload).transpose()
        })
        .await
    }

    async fn list_sessions(&self) -> Result<Vec<SessionInfo>, Error> {
        let records = self
            .read(&[SESSIONS], async |tx| {
                let all = store(tx, SESSIONS)?.get_all(None, None).dom()?.await;
                all.dom()
            })
            .await?;
        let mut sessions = records
            .iter()
            .map(session_payload)
            .collect::<Result<Vec<SessionInfo>, _>>()?;
        sort_sessions(&mut sessions);
        Ok(sessions)
    }

    async fn delete_session(&self, id: &str) -> Result<bool, Error> {
        let range = session_range(id)?;
        self.connection
            .run(&ALL, true, true, async |tx: Tx| {
                let sessions = store(&tx.idb, SESSIONS)?;
                let found = sessions.get(JsValue::from_str(id)).dom()?.await;
                if found.dom()?.is_none() {
                    return Ok(false);
                }
                sessions.delete(JsValue::from_str(id)).dom()?;
                store(&tx.idb, SESSION_STATE)?.delete(range.clone()).dom()?;
                for name in [ACTIVITY_FRAMES, MESSAGES] {
                    let appended = store(&tx.idb, name)?;
                    let index = appended.index(BY_SESSION).dom()?;
                    let keys = index
                        .get_all_keys(Some(Query::Key(id.into())), None)
                        .dom()?
                        .await;
                    for primary in keys.dom()? {
                        appended.delete(primary).dom()?;
                    }
                }
                completed(tx).await.map(|()| true)
            })
            .await
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
        self.write_session(session_id, &[SESSIONS, SESSION_STATE], true, async |tx| {
            store(tx, SESSION_STATE)?.put(&stored, None).dom()?;
            Ok(true)
        })
        .await
        .map(drop)
    }

    async fn load_session_state(
        &self,
        session_id: &str,
        key_name: &str,
    ) -> Result<Option<Value>, Error> {
        self.read(&[SESSION_STATE], async |tx| {
            let found = store(tx, SESSION_STATE)?
                .get(key(&[session_id, key_name]))
                .dom()?
                .await;
            found.dom()?.as_ref().map(payload).transpose()
        })
        .await
    }

    async fn list_session_state_keys(&self, session_id: &str) -> Result<Vec<String>, Error> {
        let range = session_range(session_id)?;
        let keys = self
            .read(&[SESSION_STATE], async |tx| {
                let keys = store(tx, SESSION_STATE)?
                    .get_all_keys(Some(Query::KeyRange(range.clone())), None);
                keys.dom()?.await.dom()
            })
            .await?;
        Ok(keys.iter().filter_map(state_key_of).collect())
    }

    async fn delete_session_state(&self, session_id: &str, key_name: &str) -> Result<bool, Error> {
        let primary = key(&[session_id, key_name]);
        // One transaction: checking and deleting apart would let another
        // connection act in between.
        let removed = self
            .write_session(session_id, &[SESSIONS, SESSION_STATE], true, async |tx| {
                let state = store(tx, SESSION_STATE)?;
                if state.get_key(primary.clone()).dom()?.await.dom()?.is_none() {
                    return Ok(false);
                }
                state.delete(primary.clone()).dom()?;
                Ok(true)
            })
            .await;
        match removed {
            Err(Error::NotFound { .. }) => Ok(false),
            other => other,
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
        let batch = if frames.is_empty() {
            None
        } else {
            let ids = [("sessionId", session_id), ("requestId", request_id)];
            Some(record(&ids, Value::Array(frames).to_json()))
        };
        self.write_session(
            session_id,
            &[SESSIONS, ACTIVITY_FRAMES],
            false,
            async |tx| {
                let Some(batch) = &batch else {
                    return Ok(false);
                };
                store(tx, ACTIVITY_FRAMES)?.add(batch, None).dom()?;
                Ok(true)
            },
        )
        .await
        .map(drop)
    }

    async fn load_activity_frames(
        &self,
        session_id: &str,
        request_id: Option<&str>,
    ) -> Result<Vec<Value>, Error> {
        let (index, query) = match request_id {
            Some(request_id) => (BY_REQUEST, key(&[session_id, request_id])),
            None => (BY_SESSION, JsValue::from_str(session_id)),
        };
        let records = self
            .read(&[ACTIVITY_FRAMES], async |tx| {
                let index = store(tx, ACTIVITY_FRAMES)?.index(index).dom()?;
                let all = index
                    .get_all(Some(Query::Key(query.clone())), None)
                    .dom()?
                    .await;
                all.dom()
            })
            .await?;
        let batches = records
            .iter()
            .map(|record| match payload(record)? {
                Value::Array(frames) => Ok(frames),
                _ => Err(Error::InvalidValue {
                    path: "stored".to_owned(),
                    reason: "a frame batch is not an array".to_owned(),
                }),
            })
            .collect::<Result<Vec<_>, _>>()?;
        Ok(batches.into_iter().flatten().collect())
    }

    async fn append_messages(&self, session_id: &str, messages: Vec<Value>) -> Result<(), Error> {
        checks::objects("messages", &messages)?;
        let ids = [("sessionId", session_id)];
        let records = messages
            .iter()
            .map(|m| record(&ids, m.to_json()))
            .collect::<Vec<_>>();
        self.write_session(session_id, &[SESSIONS, MESSAGES], false, async |tx| {
            let messages = store(tx, MESSAGES)?;
            for record in &records {
                messages.add(record, None).dom()?;
            }
            Ok(!records.is_empty())
        })
        .await
        .map(drop)
    }

    async fn load_messages(&self, session_id: &str) -> Result<Vec<Value>, Error> {
        let records = self
            .read(&[MESSAGES], async |tx| {
                let index = store(tx, MESSAGES)?.index(BY_SESSION).dom()?;
                let all = index
                    .get_all(Some(Query::Key(session_id.into())), None)
                    .dom()?
                    .await;
                all.dom()
            })
            .await?;
        payloads(records)
    }
}
