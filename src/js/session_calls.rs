//! One path for every session-store method: a method only checks its
//! arguments into a `Call`; `run` does it on either backend. The memory
//! store never suspends, so its calls settle at once with no executor; the
//! IndexedDB store's share one `future_to_promise`. One state machine per
//! backend instead of one per method is most of the wasm this saves.

use std::cell::Cell;
use std::rc::Rc;

use js_sys::{Function, Promise};
use wasm_bindgen::prelude::wasm_bindgen;
use wasm_bindgen::JsValue;
use wasm_bindgen_futures::future_to_promise;

use super::error::to_js as error_to_js;
use super::values::Options;
use super::values::{from_js, from_js_with_ids, id_arg, list_from_js, string_arg, to_js};
use super::AttachmentStore;
use crate::credentials::{self, Redaction};
use crate::json::Value;
pub use crate::session::call::Call;
use crate::session::call::{self, Reply};
use crate::session::export::{malformed, SessionExport};
use crate::session::{self, KeyRange, NewSession, Page, SessionInfo, SessionUpdate, TurnWrite};
use crate::{idb, Error};

pub enum Store {
    Memory(Rc<session::MemorySessionStore>),
    Idb(Rc<idb::IdbSessionStore>),
}

impl Store {
    fn class(&self) -> &'static str {
        match self {
            Store::Memory(_) => "MemorySessionStore",
            Store::Idb(_) => "IdbSessionStore",
        }
    }
}

/// What a store does with a credential in a value: refuse the write (the
/// default) or redact it, and whom it tells.
#[derive(Default)]
pub struct Policy {
    pub redact: bool,
    pub on_redact: Option<Function>,
    /// Set while one of the store's calls reads its arguments, where a
    /// getter or toJSON may call back into the store.
    reading: Cell<bool>,
}

impl Policy {
    /// `credentials` and `onRedact`, from a store's options.
    pub fn read(options: &Options) -> Result<Self, Error> {
        let redact = match super::values::short_string(&options.get("credentials")).as_deref() {
            _ if options.get("credentials").is_undefined() => false,
            Some("refuse") => false,
            Some("redact") => true,
            _ => {
                return Err(Error::argument(
                    "credentials",
                    "must be \"refuse\" or \"redact\"",
                ))
            }
        };
        let on_redact = options.function("onRedact")?;
        Ok(Self {
            redact,
            on_redact,
            reading: Cell::new(false),
        })
    }

    /// Tells the host what a completed write redacted, once the call has
    /// returned and before its promise resolves, on both stores: a memory
    /// store's write completes inside the call, and the listener must not
    /// run before the host has the promise (a host that awaits it sees what
    /// the listener wrote).
    fn report(&self, session_id: &str, found: &[Redaction]) {
        let Some(listener) = self.on_redact.as_ref().filter(|_| !found.is_empty()) else {
            return;
        };
        let redactions = crate::credentials::redactions_value(found);
        let event = crate::json!({"sessionId": session_id, "redactions": redactions});
        // A small object: a handful of redactions' kinds and paths.
        tell_later(listener, &to_js(&event).unwrap_or_default());
    }
}

/// The values a call takes in, redacted on the way when the store says so,
/// at the paths a refusal would name.
pub struct Intake {
    redact: bool,
    found: Vec<Redaction>,
    /// Whether another call was reading its arguments when this began.
    outer: bool,
}

/// Swaps a document's session times with `times`: out, and back in.
fn swap_times(document: &mut Value, times: &mut [Value; 2]) {
    if let Value::Object(fields) = document {
        if let Some(Value::Object(session)) = fields.get_mut("session") {
            for (key, time) in ["createdAt", "updatedAt"].iter().zip(times.iter_mut()) {
                if let Some(slot) = session.get_mut(key) {
                    std::mem::swap(slot, time);
                }
            }
        }
    }
}

impl Intake {
    /// Values at the path `id` are ids: their type, length and form checked
    /// before the copy (see `from_js_with_ids`), and refused, not redacted.
    pub fn value(&mut self, value: &JsValue, path: &str, id: &str) -> Result<Value, Error> {
        let mut value = from_js_with_ids(value, path, id, false)?;
        if self.redact {
            credentials::redact_value(path, &mut value, &[id], &mut self.found)?;
        }
        Ok(value)
    }

    /// A session-state value, redacted as the field `key` would be.
    pub fn state(&mut self, value: &JsValue, key: &str) -> Result<Value, Error> {
        let mut value = from_js(value, key)?;
        if self.redact {
            credentials::redact_field(key, &mut value, &mut self.found)?;
        }
        Ok(value)
    }

    /// `{key: value}` session state at `path` (`state`, `stateIfAbsent`):
    /// its keys are ids, each value redacted as `state` does it, the pins
    /// refused.
    pub fn state_object(&mut self, value: &JsValue, path: &str) -> Result<Value, Error> {
        let mut value = from_js_with_ids(value, path, &format!("{path}.*"), false)?;
        if self.redact {
            self.redact_state(path, &mut value)?;
        }
        Ok(value)
    }

    fn redact_state(&mut self, path: &str, state: &mut Value) -> Result<(), Error> {
        let pins = PINS.map(|key| format!("{path}.{key}"));
        let pins = [pins[0].as_str(), pins[1].as_str()];
        credentials::redact_state(path, state, &pins, &mut self.found)
    }

    /// A session document: its state as `state_object` takes it, the rest
    /// as `value` does.
    pub fn document(&mut self, value: &JsValue) -> Result<Value, Error> {
        let ids = "document.session.id\ndocument.frames[].requestId\ndocument.state.*";
        // A document's ids are part of the value, as the core says of a
        // blank one there.
        let mut value = from_js_with_ids(value, "document", ids, true).map_err(malformed)?;
        if self.redact {
            let state = match &mut value {
                Value::Object(document) => document.get_mut("state").map(std::mem::take),
                _ => None,
            };
            // The session's times are the document's frame, which a
            // refusing store does not read: a secret of digits keeps out.
            let mut times = [Value::Null, Value::Null];
            swap_times(&mut value, &mut times);
            let names = ["document.session.id", "document.frames[].requestId"];
            credentials::redact_value("document", &mut value, &names, &mut self.found)?;
            swap_times(&mut value, &mut times);
            if let (Some(mut state), Value::Object(document)) = (state, &mut value) {
                self.redact_state("document.state", &mut state)?;
                document.insert("state".into(), state);
            }
        }
        Ok(value)
    }

    pub fn list(&mut self, value: &JsValue, path: &str) -> Result<Vec<Value>, Error> {
        let mut items = list_from_js(value, path)?;
        if self.redact {
            for (i, item) in items.iter_mut().enumerate() {
                credentials::redact_value(&format!("{path}[{i}]"), item, &[], &mut self.found)?;
            }
        }
        Ok(items)
    }
}

/// The pins' state keys: refused, never redacted.
const PINS: [&str; 2] = [session::ATTACHMENTS_KEY, session::PREFIX_BASELINE_KEY];

/// A store and its policy, for one call.
pub struct Backend {
    pub store: Store,
    pub policy: Rc<Policy>,
}

impl Backend {
    /// The call's promise. Never throws: a bad argument is a rejection.
    pub fn call(&self, call: Result<Call, Error>) -> Promise {
        let intake = self.intake(false);
        self.run(call, intake)
    }

    /// A call that takes values in, through the store's policy.
    pub fn call_with(&self, build: impl FnOnce(&mut Intake) -> Result<Call, Error>) -> Promise {
        let mut intake = self.intake(true);
        let call = build(&mut intake);
        self.run(call, intake)
    }

    /// A call's intake; `reads` marks the store as reading arguments until
    /// `run`, which restores what it was: a nested call ends inside this one.
    #[inline(never)]
    fn intake(&self, reads: bool) -> Intake {
        let reading = &self.policy.reading;
        Intake {
            redact: self.policy.redact,
            found: Vec::new(),
            outer: if reads {
                reading.replace(true)
            } else {
                reading.get()
            },
        }
    }

    #[inline(never)]
    fn run(&self, call: Result<Call, Error>, intake: Intake) -> Promise {
        self.policy.reading.set(intake.outer);
        let found = intake.found;
        let call = match call {
            Ok(call) if !(intake.outer && call.writes()) => call,
            Ok(_) => {
                let class = self.store.class();
                return Promise::reject(&error_to_js(&Error::Busy { class }));
            }
            Err(e) => return Promise::reject(&error_to_js(&e)),
        };
        let session_id = call.session_id().map(str::to_owned);
        let policy = self.policy.clone();
        // After the write completed: the session's id, a new one's included.
        let report = move |reply: &Reply| {
            let id = match reply {
                Reply::Info(info) => Some(info.id.as_str()),
                _ => session_id.as_deref(),
            };
            policy.report(id.unwrap_or_default(), &found);
        };
        match &self.store {
            Store::Memory(store) => {
                let reply = call::run_now(&**store, call).and_then(|reply| {
                    report(&reply);
                    to_reply(reply)
                });
                match reply {
                    Ok(reply) => Promise::resolve(&reply),
                    Err(e) => Promise::reject(&error_to_js(&e)),
                }
            }
            Store::Idb(store) => {
                let store = store.clone();
                // Now, not when the future first runs: a close() between
                // would find no call and drop the connection under it.
                let hold = store.hold();
                future_to_promise(async move {
                    let _hold = hold;
                    let reply = store.run(call).await.map_err(|e| error_to_js(&e))?;
                    report(&reply);
                    to_reply(reply).map_err(|e| error_to_js(&e))
                })
            }
        }
    }
}

#[wasm_bindgen(module = "/src/js/snippet.js")]
extern "C" {
    #[wasm_bindgen(js_name = tellLater)]
    fn tell_later(listener: &Function, event: &JsValue);
}

/// Not generic: one copy of the conversion for both backends.
#[inline(never)]
fn to_reply(reply: Reply) -> Result<JsValue, Error> {
    let parse = |text: &str| {
        crate::text::fits_js(text, "result")?;
        super::attempt::parse(text)
            .map_err(|_| Error::value("stored", "a stored payload is not valid JSON"))
    };
    Ok(match reply {
        Reply::Unit => JsValue::UNDEFINED,
        Reply::Bool(b) => b.into(),
        Reply::Info(info) => to_js(&info.to_value())?,
        Reply::MaybeInfo(info) => to_js(&info.map(|i| i.to_value()).unwrap_or_default())?,
        Reply::Infos(infos) => to_js(&Value::Array(crate::map_vec(&infos, SessionInfo::to_value)))?,
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
        Reply::Json(value) => to_js(&value)?,
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
    intake: &mut Intake,
) -> Result<Call, Error> {
    let id = id_arg(id, "sessionId")?;
    let key = key?;
    // The pins are refused, never redacted, whichever call saves them.
    let pins = PINS.contains(&key.as_str());
    let value = match pins {
        true => from_js(value, &key)?,
        false => intake.state(value, &key)?,
    };
    Ok(Call::SaveState(id, key, value))
}

#[inline(never)]
pub fn append_frames(
    id: &JsValue,
    request: &JsValue,
    frames: &JsValue,
    intake: &mut Intake,
) -> Result<Call, Error> {
    let (id, request) = (id_arg(id, "sessionId")?, id_arg(request, "requestId")?);
    Ok(Call::AppendFrames(
        id,
        request,
        intake.list(frames, "frames")?,
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
pub fn append_messages(
    id: &JsValue,
    messages: &JsValue,
    intake: &mut Intake,
) -> Result<Call, Error> {
    let id = id_arg(id, "sessionId")?;
    Ok(Call::AppendMessages(id, intake.list(messages, "messages")?))
}

/// `{id?, title?, meta?}`: its keys and shape by the one options reader,
/// so a typo is INVALID_ARGUMENT whatever its value; then its values.
const SESSION_OPTIONS: [&str; 3] = ["id", "title", "meta"];

pub fn create_session(options: &JsValue, intake: &mut Intake) -> Result<Call, Error> {
    let read = Options::read_as(options, "options", &SESSION_OPTIONS)?;
    let new = if options.is_undefined() || options.is_null() {
        NewSession::default()
    } else {
        NewSession::from_value(&intake.value(&read.object(), "options", "options.id")?)?
    };
    Ok(Call::CreateSession(new))
}

/// A position or count option: absent, or a non-negative whole number.
fn position(options: &Options, name: &'static str) -> Result<Option<usize>, Error> {
    let value = options.get(name);
    // Not read as absent: `expectedCount: seen ?? null` would turn off the
    // conflict check unseen.
    if value.is_null() {
        return Err(Error::argument(name, "must be a non-negative safe integer"));
    }
    // Saturating: on wasm32 a cast would wrap 2^32 to 0, and `from: 0`
    // replaces the whole history.
    let n = super::budget::tokens(&value, name)?;
    Ok(n.map(|n| usize::try_from(n).unwrap_or(usize::MAX)))
}

/// `{prefix?, before?, limit?, reverse?}`
#[inline(never)]
pub fn state_keys(id: &JsValue, options: &JsValue) -> Result<Call, Error> {
    let id = id_arg(id, "sessionId")?;
    let options = Options::read(options, &["prefix", "before", "limit", "reverse"])?;
    let text = |name: &str| match options.get(name) {
        v if v.is_undefined() => Ok(None),
        v => string_arg(&v, name).map(Some),
    };
    let reverse = match options.get("reverse") {
        v if v.is_undefined() => false,
        v => v
            .as_bool()
            .ok_or_else(|| Error::argument("reverse", "must be a boolean"))?,
    };
    let range = KeyRange {
        prefix: text("prefix")?,
        before: text("before")?,
        limit: position(&options, "limit")?,
        reverse,
    };
    Ok(Call::StateKeys(id, range))
}

/// At most this many keys per list: each is its own request.
const MAX_KEYS: u32 = 10_000;

/// An array of state keys, each checked as an id; absent is none.
fn key_list(keys: &JsValue, name: &str) -> Result<Vec<String>, Error> {
    if keys.is_undefined() && name != "keys" {
        return Ok(Vec::new());
    }
    let keys = super::values::array_items(keys, name, MAX_KEYS, "must be an array of state keys")?;
    (0..keys.length())
        .map(|i| id_arg(&keys.get(i), &format!("{name}[{i}]")))
        .collect()
}

#[inline(never)]
pub fn load_states(id: &JsValue, keys: &JsValue) -> Result<Call, Error> {
    let id = id_arg(id, "sessionId")?;
    Ok(Call::LoadStates(id, key_list(keys, "keys")?))
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
pub fn update_session(id: &JsValue, update: &JsValue, intake: &mut Intake) -> Result<Call, Error> {
    let id = id_arg(id, "sessionId")?;
    // Absent is no update, as null is: not a value to check.
    if update.is_undefined() || update.is_null() {
        return Err(Error::argument("options", "must be an object"));
    }
    let read = Options::read_as(update, "options", &SESSION_OPTIONS)?;
    let update =
        SessionUpdate::from_value(&intake.value(&read.object(), "options", "options.id")?)?;
    Ok(Call::UpdateSession(id, update))
}

fn required(options: &Options, name: &'static str) -> Result<JsValue, Error> {
    let value = options.get(name);
    if value.is_undefined() {
        return Err(Error::argument(name, "is required"));
    }
    Ok(value)
}

#[inline(never)]
pub fn replace_messages(
    id: &JsValue,
    options: &JsValue,
    intake: &mut Intake,
) -> Result<Call, Error> {
    let id = id_arg(id, "sessionId")?;
    let options = Options::read(options, &["from", "expectedCount", "messages"])?;
    // None only when absent: null and the rest are refused by position().
    let from = position(&options, "from")?.ok_or_else(|| Error::argument("from", "is required"))?;
    let expected = position(&options, "expectedCount")?;
    let messages = intake.list(&required(&options, "messages")?, "messages")?;
    Ok(Call::CommitTurn(
        id,
        TurnWrite::replacing(from, expected, messages),
    ))
}

#[inline(never)]
pub fn commit_turn(
    id: &JsValue,
    options: &JsValue,
    pinned: impl FnOnce(&JsValue, &str) -> Result<session::PinsToSave, Error>,
    intake: &mut Intake,
) -> Result<Call, Error> {
    let id = id_arg(id, "sessionId")?;
    let options = Options::read(
        options,
        &[
            "messages",
            "replaceFrom",
            "frames",
            "state",
            "stateIfAbsent",
            "expectedCount",
            "requireAbsent",
            "attachments",
        ],
    )?;
    let mut turn = TurnWrite {
        replace_from: position(&options, "replaceFrom")?,
        expected_count: position(&options, "expectedCount")?,
        require_absent: key_list(&options.get("requireAbsent"), "requireAbsent")?,
        ..TurnWrite::default()
    };
    let messages = options.get("messages");
    if !messages.is_undefined() {
        turn.messages = intake.list(&messages, "messages")?;
    }
    let frames = options.get("frames");
    if !frames.is_undefined() {
        let value = intake.value(&frames, "frames", "frames[].requestId")?;
        turn.frames = TurnWrite::frames_from(&value)?;
    }
    let state = options.get("state");
    if !state.is_undefined() {
        let value = intake.state_object(&state, "state")?;
        turn.state = TurnWrite::state_from(value, "state")?;
    }
    let if_absent = options.get("stateIfAbsent");
    if !if_absent.is_undefined() {
        let value = intake.state_object(&if_absent, "stateIfAbsent")?;
        turn.state_if_absent = TurnWrite::state_from(value, "stateIfAbsent")?;
    }
    let attachments = options.get("attachments");
    if !attachments.is_undefined() {
        turn = turn.with_pins(pinned(&attachments, "attachments")?);
    }
    Ok(Call::CommitTurn(id, turn))
}

#[inline(never)]
pub fn import_session(
    document: &JsValue,
    options: &JsValue,
    intake: &mut Intake,
) -> Result<Call, Error> {
    let options = Options::read(options, &["id"])?;
    let id = match options.get("id") {
        v if v.is_undefined() => None,
        v => Some(id_arg(&v, "id")?),
    };
    let export = SessionExport::from_value(&intake.document(document)?)?;
    Ok(Call::ImportSession(export.with_id(id)?))
}
