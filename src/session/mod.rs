//! Session stores: what a browser agent must remember across reloads.
//! The trait is the one behaviour both backends share; `checks` holds the
//! validation both run before touching storage.

pub mod checks;
mod memory;

pub use memory::MemorySessionStore;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::attachment::AttachmentStore;
use crate::Error;

/// Session-state key of the target's introspection tree.
pub const SNAPSHOT_KEY: &str = "snapshot";
/// Session-state key of the REPL's `{env?, history?}`.
pub const REPL_STATE_KEY: &str = "repl_state";
/// Session-state key of the pinned attachments' specs, in pin order.
pub const ATTACHMENTS_KEY: &str = "attachments";

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SessionInfo {
    pub id: String,
    pub title: String,
    /// Milliseconds since the Unix epoch.
    pub created_at: f64,
    /// Bumped by every write to the session.
    pub updated_at: f64,
    pub meta: Map<String, Value>,
}

#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NewSession {
    pub id: Option<String>,
    pub title: Option<String>,
    pub meta: Option<Map<String, Value>>,
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
        let specs = self.load_session_state(session_id, ATTACHMENTS_KEY).await?;
        specs
            .map(|specs| AttachmentStore::from_specs(&specs))
            .transpose()
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
