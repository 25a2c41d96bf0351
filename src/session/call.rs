//! Every session-store method as data: the bindings check their arguments
//! into a `Call` and hand back its `Reply`. One dispatch per backend, not
//! one state machine per method, is what keeps the wasm small.

use super::export::SessionExport;
use super::{
    KeyRange, NewSession, Page, Pins, RequestSummary, SessionInfo, SessionStore, SessionUpdate,
    TurnWrite,
};
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
    StateKeys(String, KeyRange),
    LoadStates(String, Vec<String>),
    DeleteState(String, String),
    AppendFrames(String, String, Vec<Value>),
    LoadFrames(String, Option<String>),
    AppendMessages(String, Vec<Value>),
    LoadMessages(String, Page),
    UpdateSession(String, SessionUpdate),
    PopMessage(String),
    ClearMessages(String),
    ListRequests(String),
    LoadFramesByRequest(String),
    CommitTurn(String, TurnWrite),
    ExportSession(String),
    ImportSession(SessionExport),
    /// The pins, and the specs `checkPrefix` last compared against.
    SaveAttachments(String, AttachmentStore, Option<Value>),
    LoadAttachments(String),
}

impl Call {
    /// The session a call is about, when it names one.
    pub fn session_id(&self) -> Option<&str> {
        Some(match self {
            Call::CreateSession(new) => return new.id.as_deref(),
            Call::ImportSession(export) => &export.session.id,
            Call::ListSessions => return None,
            Call::GetSession(id)
            | Call::DeleteSession(id)
            | Call::SaveState(id, ..)
            | Call::LoadState(id, _)
            | Call::StateKeys(id, _)
            | Call::LoadStates(id, _)
            | Call::DeleteState(id, _)
            | Call::AppendFrames(id, ..)
            | Call::LoadFrames(id, _)
            | Call::AppendMessages(id, _)
            | Call::LoadMessages(id, _)
            | Call::UpdateSession(id, _)
            | Call::PopMessage(id)
            | Call::ClearMessages(id)
            | Call::ListRequests(id)
            | Call::LoadFramesByRequest(id)
            | Call::CommitTurn(id, _)
            | Call::ExportSession(id)
            | Call::SaveAttachments(id, ..)
            | Call::LoadAttachments(id) => id,
        })
    }
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
    Pinned(Option<Pins>),
    Json(Value),
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
        Call::StateKeys(id, range) => Reply::Keys(store.list_state_keys(&id, &range).await?),
        Call::LoadStates(id, keys) => {
            Reply::Text(store.load_session_states_json(&id, &keys).await?)
        }
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
        Call::LoadMessages(id, page) => {
            Reply::Json(Value::Array(store.load_messages_page(&id, page).await?))
        }
        Call::UpdateSession(id, update) => Reply::Info(store.update_session(&id, update).await?),
        Call::PopMessage(id) => Reply::Json(store.pop_message(&id).await?.unwrap_or(Value::Null)),
        Call::ClearMessages(id) => {
            store.clear_messages(&id).await?;
            Reply::Unit
        }
        Call::ListRequests(id) => {
            let list = store.list_requests(&id).await?;
            Reply::Json(Value::Array(
                list.iter().map(RequestSummary::to_value).collect(),
            ))
        }
        Call::LoadFramesByRequest(id) => {
            let grouped = store.load_frames_by_request(&id).await?;
            let group = |(id, frames): (String, Vec<Value>)| crate::json!({"requestId": id, "frames": (Value::Array(frames))});
            Reply::Json(Value::Array(grouped.into_iter().map(group).collect()))
        }
        Call::ExportSession(id) => Reply::Text(store.export_session(&id).await?),
        Call::ImportSession(export) => Reply::Info(store.import_session(export).await?),
        Call::CommitTurn(id, turn) => {
            store.commit_turn(&id, turn).await?;
            Reply::Unit
        }
        Call::SaveAttachments(id, pinned, baseline) => {
            store.save_pins(&id, &pinned, baseline).await?;
            Reply::Unit
        }
        Call::LoadAttachments(id) => Reply::Pinned(store.load_pins(&id).await?),
    })
}

/// The saved pins from their stored specs, with the saved baseline (null
/// or absent is none).
pub fn pins(specs: Option<Value>, baseline: Option<Value>) -> Result<Option<Pins>, Error> {
    let baseline = baseline.filter(|b| !b.is_null());
    Ok(match specs {
        Some(specs) => Some((AttachmentStore::from_specs(&specs)?, baseline)),
        None => None,
    })
}
