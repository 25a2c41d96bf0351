//! Every session-store method as data: the bindings check their arguments
//! into a `Call` and hand back its `Reply`. One dispatch per backend, not
//! one state machine per method, is what keeps the wasm small.

use std::future::Future;
use std::pin::pin;
use std::task::{Context, Poll, Waker};

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
            | Call::LoadAttachments(id) => id,
        })
    }

    /// Whether the call changes the store. One started while another call
    /// on the same store still reads its arguments is BUSY: it would land
    /// before the call that began first.
    pub fn writes(&self) -> bool {
        !matches!(
            self,
            Call::GetSession(_)
                | Call::ListSessions
                | Call::LoadState(..)
                | Call::StateKeys(..)
                | Call::LoadStates(..)
                | Call::LoadFrames(..)
                | Call::LoadMessages(..)
                | Call::ListRequests(_)
                | Call::LoadFramesByRequest(_)
                | Call::ExportSession(_)
                | Call::LoadAttachments(_)
        )
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

/// Runs a call on a store that never suspends (the memory store), through
/// the trait: each method's future is polled once, so there is no state
/// machine around the dispatch.
pub fn run_now<S: SessionStore>(store: &S, call: Call) -> Result<Reply, Error> {
    Ok(match call {
        Call::CreateSession(new) => Reply::Info(now(store.create_session(new))?),
        Call::GetSession(id) => Reply::MaybeInfo(now(store.get_session(&id))?),
        Call::ListSessions => Reply::Infos(now(store.list_sessions())?),
        Call::DeleteSession(id) => Reply::Bool(now(store.delete_session(&id))?),
        Call::SaveState(id, key, value) => {
            now(store.save_session_state(&id, &key, value))?;
            Reply::Unit
        }
        Call::LoadState(id, key) => {
            Reply::MaybeText(now(store.load_session_state_json(&id, &key))?)
        }
        Call::StateKeys(id, range) => Reply::Keys(now(store.list_state_keys(&id, &range))?),
        Call::LoadStates(id, keys) => Reply::Text(now(store.load_session_states_json(&id, &keys))?),
        Call::DeleteState(id, key) => Reply::Bool(now(store.delete_session_state(&id, &key))?),
        Call::AppendFrames(id, request, frames) => {
            now(store.append_activity_frames(&id, &request, frames))?;
            Reply::Unit
        }
        Call::LoadFrames(id, request) => Reply::Text(now(
            store.load_activity_frames_json(&id, request.as_deref())
        )?),
        Call::AppendMessages(id, messages) => {
            now(store.append_messages(&id, messages))?;
            Reply::Unit
        }
        Call::LoadMessages(id, page) => {
            Reply::Json(Value::Array(now(store.load_messages_page(&id, page))?))
        }
        Call::UpdateSession(id, update) => Reply::Info(now(store.update_session(&id, update))?),
        Call::PopMessage(id) => Reply::Json(now(store.pop_message(&id))?.unwrap_or(Value::Null)),
        Call::ClearMessages(id) => {
            now(store.clear_messages(&id))?;
            Reply::Unit
        }
        Call::ListRequests(id) => {
            let list = now(store.list_requests(&id))?;
            Reply::Json(Value::Array(crate::map_vec(
                &list,
                RequestSummary::to_value,
            )))
        }
        Call::LoadFramesByRequest(id) => {
            let grouped = now(store.load_frames_by_request(&id))?;
            let group = |(id, frames): (String, Vec<Value>)| crate::json!({"requestId": id, "frames": (Value::Array(frames))});
            Reply::Json(Value::Array(grouped.into_iter().map(group).collect()))
        }
        Call::ExportSession(id) => Reply::Text(now(store.export_session(&id))?),
        Call::ImportSession(export) => Reply::Info(now(store.import_session(export))?),
        Call::CommitTurn(id, turn) => {
            now(store.commit_turn(&id, turn))?;
            Reply::Unit
        }
        Call::LoadAttachments(id) => Reply::Pinned(now(store.load_pins(&id))?),
    })
}

/// A future's output if it is ready at the first poll; the memory store's
/// always are. Inlined into each arm: out of line, a copy per output type
/// cost 0.7 KB gzip more than the state machine this replaces.
#[inline(always)]
fn now<T>(work: impl Future<Output = Result<T, Error>>) -> Result<T, Error> {
    let mut work = pin!(work);
    match work.as_mut().poll(&mut Context::from_waker(Waker::noop())) {
        Poll::Ready(result) => result,
        // Were the memory store to await something, this says so rather
        // than hanging.
        Poll::Pending => Err(suspended()),
    }
}

/// Out of line: `now` is inlined into every arm.
#[cold]
#[inline(never)]
fn suspended() -> Error {
    Error::Unavailable {
        dom_name: String::new(),
        message: "the memory store suspended".to_owned(),
        cause: crate::error::Cause::NONE,
    }
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
