//! Every session-store method as data: the bindings check their arguments
//! into a `Call` and hand back its `Reply`. One dispatch per backend, not
//! one state machine per method, is what keeps the wasm small.

use super::{NewSession, SessionInfo, SessionStore};
use crate::attachment::AttachmentStore;
use crate::json::Value;
use crate::Error;

/// A checked session-store call.
pub enum Call {
    CreateSession(NewSession),
    GetSession(String),
    ListSessions,
    DeleteSession(String),
    SaveState(String, String, Value),
    LoadState(String, String),
    StateKeys(String),
    DeleteState(String, String),
    AppendFrames(String, String, Vec<Value>),
    LoadFrames(String, Option<String>),
    AppendMessages(String, Vec<Value>),
    LoadMessages(String),
    SaveAttachments(String, AttachmentStore),
    LoadAttachments(String),
}

pub enum Reply {
    Unit,
    Bool(bool),
    Info(SessionInfo),
    MaybeInfo(Option<SessionInfo>),
    Infos(Vec<SessionInfo>),
    Keys(Vec<String>),
    /// JSON text, as stored: parsed once, by the engine.
    Text(String),
    MaybeText(Option<String>),
    Pinned(Option<AttachmentStore>),
}

/// Runs a call on a store through the trait.
pub async fn run<S: SessionStore>(store: &S, call: Call) -> Result<Reply, Error> {
    Ok(match call {
        Call::CreateSession(new) => Reply::Info(store.create_session(new).await?),
        Call::GetSession(id) => Reply::MaybeInfo(store.get_session(&id).await?),
        Call::ListSessions => Reply::Infos(store.list_sessions().await?),
        Call::DeleteSession(id) => Reply::Bool(store.delete_session(&id).await?),
        Call::SaveState(id, key, value) => {
            store.save_session_state(&id, &key, value).await?;
            Reply::Unit
        }
        Call::LoadState(id, key) => {
            Reply::MaybeText(store.load_session_state_json(&id, &key).await?)
        }
        Call::StateKeys(id) => Reply::Keys(store.list_session_state_keys(&id).await?),
        Call::DeleteState(id, key) => Reply::Bool(store.delete_session_state(&id, &key).await?),
        Call::AppendFrames(id, request, frames) => {
            store.append_activity_frames(&id, &request, frames).await?;
            Reply::Unit
        }
        Call::LoadFrames(id, request) => Reply::Text(
            store
                .load_activity_frames_json(&id, request.as_deref())
                .await?,
        ),
        Call::AppendMessages(id, messages) => {
            store.append_messages(&id, messages).await?;
            Reply::Unit
        }
        Call::LoadMessages(id) => Reply::Text(store.load_messages_json(&id).await?),
        Call::SaveAttachments(id, pinned) => {
            store.save_attachments(&id, &pinned).await?;
            Reply::Unit
        }
        Call::LoadAttachments(id) => Reply::Pinned(store.load_attachments(&id).await?),
    })
}

/// The saved pins from their stored specs.
pub fn pinned(specs: Option<Value>) -> Result<Option<AttachmentStore>, Error> {
    specs
        .map(|specs| AttachmentStore::from_specs(&specs))
        .transpose()
}
