//! Session stores: what a browser agent must remember across reloads.
//! The trait is the one behaviour both backends share; `checks` holds the
//! validation both run before touching storage.

pub mod call;
pub mod checks;
mod memory;

pub use memory::MemorySessionStore;

use crate::json;
use crate::json::{Map, Value};

use crate::attachment::AttachmentStore;
use crate::Error;

/// Session-state key of the target's introspection tree.
pub const SNAPSHOT_KEY: &str = "snapshot";
/// Session-state key of the REPL's `{env?, history?}`.
pub const REPL_STATE_KEY: &str = "repl_state";
/// Session-state key of the pinned attachments' specs, in pin order.
pub const ATTACHMENTS_KEY: &str = "attachments";

#[derive(Debug, Clone, PartialEq)]
pub struct SessionInfo {
    pub id: String,
    pub title: String,
    /// Milliseconds since the Unix epoch.
    pub created_at: f64,
    /// Bumped by every write to the session.
    pub updated_at: f64,
    pub meta: Map,
}

#[derive(Debug, Clone, Default, PartialEq)]
pub struct NewSession {
    pub id: Option<String>,
    pub title: Option<String>,
    pub meta: Option<Map>,
}

impl SessionInfo {
    /// `{id, title, createdAt, updatedAt, meta}`: as stored and as hosts
    /// see it. Times are whole milliseconds, as `Date.now()` gives them.
    pub fn to_value(&self) -> Value {
        json!({
            "id": self.id,
            "title": self.title,
            "createdAt": (self.created_at as i64),
            "updatedAt": (self.updated_at as i64),
            "meta": self.meta,
        })
    }

    /// A stored session record; `None` if it is not one.
    pub fn from_value(value: &Value) -> Option<Self> {
        let time = |name: &str| value[name].as_u64().map(|ms| ms as f64);
        Some(Self {
            id: value["id"].as_str()?.to_owned(),
            title: value["title"].as_str()?.to_owned(),
            created_at: time("createdAt")?,
            updated_at: time("updatedAt")?,
            meta: value["meta"].as_object()?.clone(),
        })
    }
}

impl NewSession {
    /// `{id?, title?, meta?}`; anything else is refused with its path.
    pub fn from_value(value: &Value) -> Result<Self, Error> {
        let wrong = |field: &str, reason: &str| Error::InvalidValue {
            path: format!("options.{field}"),
            reason: reason.to_owned(),
        };
        let fields = value.as_object().ok_or_else(|| Error::InvalidValue {
            path: "options".to_owned(),
            reason: "must be an object".to_owned(),
        })?;
        let mut new = NewSession::default();
        for (key, field) in fields {
            let string = || match field {
                Value::String(text) => Ok(text.clone()),
                _ => Err(wrong(key, "must be a string")),
            };
            match key.as_str() {
                "id" => new.id = Some(string()?),
                "title" => new.title = Some(string()?),
                "meta" => {
                    let meta = field
                        .as_object()
                        .ok_or_else(|| wrong(key, "must be an object"))?;
                    new.meta = Some(meta.clone());
                }
                _ => return Err(wrong(key, "is not a known field")),
            }
        }
        Ok(new)
    }
}

/// Time and fresh ids come from the host: `Date.now()` and
/// `crypto.randomUUID()` in a browser, a fake in native tests.
pub trait Environment {
    fn now(&self) -> f64;
    fn new_id(&self) -> String;
}

/// One behaviour, two backends: [`MemorySessionStore`] and the IndexedDB
/// store. Every write is all-or-nothing; a write to a missing session is
/// `NOT_FOUND` and writes nothing.
#[allow(async_fn_in_trait)]
pub trait SessionStore {
    async fn create_session(&self, new: NewSession) -> Result<SessionInfo, Error>;
    async fn get_session(&self, id: &str) -> Result<Option<SessionInfo>, Error>;
    /// Most recently updated first; ties by id.
    async fn list_sessions(&self) -> Result<Vec<SessionInfo>, Error>;
    /// Removes the session with its state, frames and messages at once.
    async fn delete_session(&self, id: &str) -> Result<bool, Error>;

    async fn save_session_state(
        &self,
        session_id: &str,
        key: &str,
        value: Value,
    ) -> Result<(), Error>;
    async fn load_session_state(&self, session_id: &str, key: &str)
        -> Result<Option<Value>, Error>;
    /// Keys in ascending order.
    async fn list_session_state_keys(&self, session_id: &str) -> Result<Vec<String>, Error>;
    async fn delete_session_state(&self, session_id: &str, key: &str) -> Result<bool, Error>;

    /// Appends all frames or none.
    async fn append_activity_frames(
        &self,
        session_id: &str,
        request_id: &str,
        frames: Vec<Value>,
    ) -> Result<(), Error>;
    /// One request's frames, or all of the session's, in append order.
    async fn load_activity_frames(
        &self,
        session_id: &str,
        request_id: Option<&str>,
    ) -> Result<Vec<Value>, Error>;

    async fn append_messages(&self, session_id: &str, messages: Vec<Value>) -> Result<(), Error>;
    async fn load_messages(&self, session_id: &str) -> Result<Vec<Value>, Error>;

    // The loads again, as the JSON text the bindings hand to `JSON.parse`:
    // a backend that stores text passes it through without parsing it.

    async fn load_session_state_json(
        &self,
        session_id: &str,
        key: &str,
    ) -> Result<Option<String>, Error> {
        let value = self.load_session_state(session_id, key).await?;
        Ok(value.map(|v| v.to_json()))
    }
    /// A JSON array.
    async fn load_activity_frames_json(
        &self,
        session_id: &str,
        request_id: Option<&str>,
    ) -> Result<String, Error> {
        let frames = self.load_activity_frames(session_id, request_id).await?;
        Ok(Value::Array(frames).to_json())
    }
    /// A JSON array.
    async fn load_messages_json(&self, session_id: &str) -> Result<String, Error> {
        Ok(Value::Array(self.load_messages(session_id).await?).to_json())
    }

    /// The target's introspection tree, under key `snapshot`.
    async fn save_snapshot(&self, session_id: &str, snapshot: Value) -> Result<(), Error> {
        self.save_session_state(session_id, SNAPSHOT_KEY, snapshot)
            .await
    }
    async fn load_snapshot(&self, session_id: &str) -> Result<Option<Value>, Error> {
        self.load_session_state(session_id, SNAPSHOT_KEY).await
    }
    /// `{env?, history?}`, under key `repl_state`.
    async fn save_repl_state(&self, session_id: &str, state: Value) -> Result<(), Error> {
        self.save_session_state(session_id, REPL_STATE_KEY, state)
            .await
    }
    async fn load_repl_state(&self, session_id: &str) -> Result<Option<Value>, Error> {
        self.load_session_state(session_id, REPL_STATE_KEY).await
    }
    /// The pinned attachments, under key `attachments`.
    async fn save_attachments(
        &self,
        session_id: &str,
        pinned: &AttachmentStore,
    ) -> Result<(), Error> {
        self.save_session_state(session_id, ATTACHMENTS_KEY, pinned.to_specs())
            .await
    }
    /// The store saved for this session, pinned again in the same order,
    /// so its consolidated message is byte-identical; `None` if none.
    async fn load_attachments(&self, session_id: &str) -> Result<Option<AttachmentStore>, Error> {
        call::pinned(self.load_session_state(session_id, ATTACHMENTS_KEY).await?)
    }
}

/// Sessions sort most recently updated first, ties by id, in every backend.
/// The order is total, so an unstable sort (less code) gives the same.
pub(crate) fn sort_sessions(sessions: &mut [SessionInfo]) {
    sessions.sort_unstable_by(|a, b| {
        b.updated_at
            .total_cmp(&a.updated_at)
            .then_with(|| a.id.cmp(&b.id))
    });
}

#[cfg(test)]
mod tests;
