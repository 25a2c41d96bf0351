//! One path for every session-store method: a method only checks its
//! arguments into a `Call`; `run` does it on either backend. The memory
//! store never suspends, so its calls settle at once with no executor; the
//! IndexedDB store's share one `future_to_promise`. One state machine per
//! backend instead of one per method is most of the wasm this saves.

use std::future::Future;
use std::pin::pin;
use std::rc::Rc;
use std::task::{Context, Poll, Waker};

use js_sys::Promise;
use wasm_bindgen::JsValue;
use wasm_bindgen_futures::future_to_promise;

use super::error::to_js as error_to_js;
use super::values::Options;
use super::values::{from_js, id_arg, list_from_js, to_js};
use super::AttachmentStore;
pub use crate::session::call::Call;
use crate::session::call::{self, Reply};
use crate::session::export::SessionExport;
use crate::session::{self, NewSession, Page, SessionInfo, SessionUpdate, TurnWrite};
use crate::{idb, Error};

pub enum Backend {
    Memory(Rc<session::MemorySessionStore>),
    Idb(Rc<idb::IdbSessionStore>),
}

impl Backend {
    /// The call's promise. Never throws: a bad argument is a rejection.
    pub fn call(&self, call: Result<Call, Error>) -> Promise {
        let call = match call {
            Ok(call) => call,
            Err(e) => return Promise::reject(&error_to_js(&e)),
        };
        match self {
            Backend::Memory(store) => {
                let mut work = pin!(call::run(&**store, call));
                match work.as_mut().poll(&mut Context::from_waker(Waker::noop())) {
                    Poll::Ready(Ok(reply)) => match to_reply(reply) {
                        Ok(reply) => Promise::resolve(&reply),
                        Err(e) => Promise::reject(&error_to_js(&e)),
                    },
                    Poll::Ready(Err(e)) => Promise::reject(&error_to_js(&e)),
                    // The memory store awaits nothing; were that to change,
                    // this says so rather than hanging.
                    Poll::Pending => Promise::reject(&error_to_js(&Error::Unavailable {
                        dom_name: String::new(),
                        message: "the memory store suspended".to_owned(),
                        cause: crate::error::Cause::NONE,
                    })),
                }
            }
            Backend::Idb(store) => {
                let store = store.clone();
                future_to_promise(async move {
                    store
                        .run(call)
                        .await
                        .and_then(to_reply)
                        .map_err(|e| error_to_js(&e))
                })
            }
        }
    }
}

/// Not generic: one copy of the conversion for both backends.
#[inline(never)]
fn to_reply(reply: Reply) -> Result<JsValue, Error> {
    let parse = |text: &str| {
        js_sys::JSON::parse(text).map_err(|_| Error::InvalidValue {
            path: "stored".to_owned(),
            reason: "a stored payload is not valid JSON".to_owned(),
        })
    };
    Ok(match reply {
        Reply::Unit => JsValue::UNDEFINED,
        Reply::Bool(b) => b.into(),
        Reply::Info(info) => to_js(&info.to_value()),
        Reply::MaybeInfo(info) => to_js(&info.map(|i| i.to_value()).unwrap_or_default()),
        Reply::Infos(infos) => to_js(&infos.iter().map(SessionInfo::to_value).collect()),
        Reply::Keys(keys) => keys
            .into_iter()
            .map(JsValue::from)
            .collect::<js_sys::Array>()
            .into(),
        Reply::Text(text) => parse(&text)?,
        Reply::MaybeText(Some(text)) => parse(&text)?,
        Reply::MaybeText(None) => JsValue::NULL,
        Reply::Pinned(Some(pins)) => AttachmentStore::from_pins(pins).into(),
        Reply::Pinned(None) => JsValue::NULL,
        Reply::Json(value) => to_js(&value),
    })
}

// Argument checks, shared by both classes' methods and kept out of line so
// each exported method stays a few instructions.

#[inline(never)]
pub fn session(id: &JsValue, make: fn(String) -> Call) -> Result<Call, Error> {
    Ok(make(id_arg(id, "sessionId")?))
}

#[inline(never)]
pub fn keyed(id: &JsValue, key: &JsValue, make: fn(String, String) -> Call) -> Result<Call, Error> {
    Ok(make(id_arg(id, "sessionId")?, id_arg(key, "key")?))
}

/// A value is converted now, so one the caller mutates right after the
/// call is stored as it was. Its path is the key it is saved under.
#[inline(never)]
pub fn save_state(
    id: &JsValue,
    key: Result<String, Error>,
    value: &JsValue,
) -> Result<Call, Error> {
    let id = id_arg(id, "sessionId")?;
    let key = key?;
    let value = from_js(value, &key)?;
    Ok(Call::SaveState(id, key, value))
}

#[inline(never)]
pub fn append_frames(id: &JsValue, request: &JsValue, frames: &JsValue) -> Result<Call, Error> {
    let (id, request) = (id_arg(id, "sessionId")?, id_arg(request, "requestId")?);
    Ok(Call::AppendFrames(
        id,
        request,
        list_from_js(frames, "frames")?,
    ))
}

/// An absent request id (undefined or null) means every request's frames.
#[inline(never)]
pub fn load_frames(id: &JsValue, request: &JsValue) -> Result<Call, Error> {
    let id = id_arg(id, "sessionId")?;
    let all = request.is_undefined() || request.is_null();
    let request = (!all).then(|| id_arg(request, "requestId")).transpose()?;
    Ok(Call::LoadFrames(id, request))
}

#[inline(never)]
pub fn append_messages(id: &JsValue, messages: &JsValue) -> Result<Call, Error> {
    let id = id_arg(id, "sessionId")?;
    Ok(Call::AppendMessages(
        id,
        list_from_js(messages, "messages")?,
    ))
}

pub fn create_session(options: &JsValue) -> Result<Call, Error> {
    let new = if options.is_undefined() || options.is_null() {
        NewSession::default()
    } else {
        NewSession::from_value(&from_js(options, "options")?)?
    };
    Ok(Call::CreateSession(new))
}

/// A position or count option: absent, or a non-negative whole number.
fn position(options: &Options, name: &'static str) -> Result<Option<usize>, Error> {
    // Saturating: on wasm32 a cast would wrap 2^32 to 0, and `from: 0`
    // replaces the whole history.
    let n = super::budget::tokens(&options.get(name), name)?;
    Ok(n.map(|n| usize::try_from(n).unwrap_or(usize::MAX)))
}

#[inline(never)]
pub fn load_messages(id: &JsValue, options: &JsValue) -> Result<Call, Error> {
    let id = id_arg(id, "sessionId")?;
    let options = Options::read(options, &["limit", "before"])?;
    let page = Page {
        limit: position(&options, "limit")?,
        before: position(&options, "before")?,
    };
    Ok(Call::LoadMessages(id, page))
}

#[inline(never)]
pub fn update_session(id: &JsValue, update: &JsValue) -> Result<Call, Error> {
    let id = id_arg(id, "sessionId")?;
    let update = SessionUpdate::from_value(&from_js(update, "options")?)?;
    Ok(Call::UpdateSession(id, update))
}

fn required(options: &Options, name: &'static str) -> Result<JsValue, Error> {
    let value = options.get(name);
    if value.is_undefined() {
        return Err(Error::InvalidArgument {
            field: name.to_owned(),
            reason: "is required".to_owned(),
        });
    }
    Ok(value)
}

#[inline(never)]
pub fn replace_messages(id: &JsValue, options: &JsValue) -> Result<Call, Error> {
    let id = id_arg(id, "sessionId")?;
    let options = Options::read(options, &["from", "expectedCount", "messages"])?;
    let from = required(&options, "from")?;
    let from = position(&options, "from")?.filter(|_| !from.is_null());
    let from = from.ok_or_else(|| Error::InvalidArgument {
        field: "from".to_owned(),
        reason: "must be a non-negative whole number".to_owned(),
    })?;
    let expected = position(&options, "expectedCount")?;
    let messages = list_from_js(&required(&options, "messages")?, "messages")?;
    Ok(Call::ReplaceMessages(id, from, expected, messages))
}

#[inline(never)]
pub fn commit_turn(
    id: &JsValue,
    options: &JsValue,
    pinned: impl FnOnce(&JsValue) -> Result<session::Pins, Error>,
) -> Result<Call, Error> {
    let id = id_arg(id, "sessionId")?;
    let options = Options::read(
        options,
        &["messages", "replaceFrom", "frames", "state", "attachments"],
    )?;
    let mut turn = TurnWrite {
        replace_from: position(&options, "replaceFrom")?,
        ..TurnWrite::default()
    };
    let messages = options.get("messages");
    if !messages.is_undefined() {
        turn.messages = list_from_js(&messages, "messages")?;
    }
    let frames = options.get("frames");
    if !frames.is_undefined() {
        turn.frames = TurnWrite::frames_from(&from_js(&frames, "frames")?)?;
    }
    let state = options.get("state");
    if !state.is_undefined() {
        turn.state = TurnWrite::state_from(&from_js(&state, "state")?)?;
    }
    let attachments = options.get("attachments");
    if !attachments.is_undefined() {
        let (store, baseline) = pinned(&attachments)?;
        turn.state.extend(session::pins_state(&store, baseline));
    }
    Ok(Call::CommitTurn(id, turn))
}

#[inline(never)]
pub fn import_session(document: &JsValue, options: &JsValue) -> Result<Call, Error> {
    let options = Options::read(options, &["id"])?;
    let id = match options.get("id") {
        v if v.is_undefined() => None,
        v => Some(id_arg(&v, "id")?),
    };
    let export = SessionExport::from_value(&from_js(document, "document")?)?;
    Ok(Call::ImportSession(export.with_id(id)?))
}
