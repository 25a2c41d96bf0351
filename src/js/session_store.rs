use std::rc::Rc;

use js_sys::{Function, Object, Promise, Reflect};
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::future_to_promise;

use super::error::to_js;
use super::session_calls::{self as calls, Backend, Call, Policy, Store};
use super::values::{id_arg, Options};
use super::AttachmentStore;
use crate::idb::{self, BrowserEnvironment, Durability, VersionChange};
use crate::session::{self, REPL_STATE_KEY, SNAPSHOT_KEY};
use crate::Error;

/// Sessions kept in memory: the same behaviour as `IdbSessionStore`, gone
/// on reload. Holds wasm memory: call `free()` when done.
#[wasm_bindgen]
pub struct MemorySessionStore(Rc<session::MemorySessionStore>, Rc<Policy>);

#[wasm_bindgen]
impl MemorySessionStore {
    /// `const store = new MemorySessionStore({ credentials: "redact", onRedact })`
    #[wasm_bindgen(constructor)]
    pub fn new(
        #[wasm_bindgen(unchecked_optional_param_type = "SessionStoreOptions")] options: JsValue,
    ) -> Result<MemorySessionStore, JsValue> {
        let options =
            Options::read(&options, &["credentials", "onRedact"]).map_err(|e| to_js(&e))?;
        let policy = Policy::read(&options).map_err(|e| to_js(&e))?;
        let store = session::MemorySessionStore::new(Rc::new(BrowserEnvironment));
        Ok(Self(Rc::new(store), Rc::new(policy)))
    }
}

impl MemorySessionStore {
    fn backend(&self) -> Backend {
        Backend {
            store: Store::Memory(self.0.clone()),
            policy: self.1.clone(),
        }
    }
}

/// Sessions kept in IndexedDB. Open with `await IdbSessionStore.open()`.
/// Holds a database connection and wasm memory: call `free()` when done,
/// which closes the connection (`close()` alone keeps the store to reopen).
#[wasm_bindgen]
pub struct IdbSessionStore(Rc<idb::IdbSessionStore>, Rc<Policy>);

#[wasm_bindgen]
impl IdbSessionStore {
    /// `const store = await IdbSessionStore.open({ name: "attache", durability: "relaxed", onVersionChange })`
    #[wasm_bindgen(unchecked_return_type = "Promise<IdbSessionStore>")]
    pub fn open(
        #[wasm_bindgen(unchecked_optional_param_type = "IdbSessionStoreOptions")] options: JsValue,
    ) -> Promise {
        let (name, durability, listener, policy) = match open_options(&options) {
            Ok(options) => options,
            Err(e) => return Promise::reject(&to_js(&e)),
        };
        future_to_promise(async move {
            let store = idb::IdbSessionStore::open(&name, durability, Rc::new(BrowserEnvironment))
                .await
                .map_err(|e| to_js(&e))?;
            if let Some(listener) = listener {
                store.on_version_change(Some(Rc::new(move |change: VersionChange| {
                    let event = Object::new();
                    let _ = Reflect::set(&event, &"oldVersion".into(), &change.old_version.into());
                    let new_version = change.new_version.map_or(JsValue::NULL, JsValue::from);
                    let _ = Reflect::set(&event, &"newVersion".into(), &new_version);
                    let _ = super::attempt::call1(&listener, &JsValue::UNDEFINED, &event);
                })));
            }
            Ok(IdbSessionStore(Rc::new(store), Rc::new(policy)).into())
        })
    }

    fn backend(&self) -> Backend {
        Backend {
            store: Store::Idb(self.0.clone()),
            policy: self.1.clone(),
        }
    }

    /// `store.name // the database name`
    #[wasm_bindgen(getter)]
    pub fn name(&self) -> String {
        self.0.name().to_owned()
    }

    /// `store.close()`: the next call reopens the connection.
    pub fn close(&self) {
        self.0.close();
    }
}

type Opened = (String, Durability, Option<Function>, Policy);

fn open_options(options: &JsValue) -> Result<Opened, Error> {
    let known = [
        "name",
        "durability",
        "onVersionChange",
        "credentials",
        "onRedact",
    ];
    let options = Options::read(options, &known)?;
    let name = match options.get("name") {
        v if v.is_undefined() => "attache".to_owned(),
        v => id_arg(&v, "name")?,
    };
    let durability = match options.get("durability") {
        v if v.is_undefined() => Durability::Default,
        v => super::values::short_string(&v)
            .as_deref()
            .and_then(Durability::parse)
            .ok_or_else(|| {
                Error::argument(
                    "durability",
                    "must be \"default\", \"strict\" or \"relaxed\"",
                )
            })?,
    };
    let listener = options.function("onVersionChange")?;
    Ok((name, durability, listener, Policy::read(&options)?))
}

macro_rules! session_store_methods {
    ($class:ident) => {
        #[wasm_bindgen]
        impl $class {
            /// `const session = await store.createSession({ title: "Fix the build" })`
            #[wasm_bindgen(js_name = createSession, unchecked_return_type = "Promise<SessionInfo>")]
            pub fn create_session(&self, #[wasm_bindgen(unchecked_optional_param_type = "NewSession")] options: JsValue) -> Promise {
                self.backend().call_with(|intake| calls::create_session(&options, intake))
            }

            /// `await store.getSession(id) // SessionInfo or null`
            #[wasm_bindgen(js_name = getSession, unchecked_return_type = "Promise<SessionInfo | null>")]
            pub fn get_session(&self, #[wasm_bindgen(unchecked_param_type = "string")] id: JsValue) -> Promise {
                self.backend().call(calls::session(&id, Call::GetSession))
            }

            /// `await store.listSessions() // most recently updated first`
            #[wasm_bindgen(js_name = listSessions, unchecked_return_type = "Promise<SessionInfo[]>")]
            pub fn list_sessions(&self) -> Promise {
                self.backend().call(Ok(Call::ListSessions))
            }

            /// `await store.deleteSession(id) // true if it existed`
            #[wasm_bindgen(js_name = deleteSession, unchecked_return_type = "Promise<boolean>")]
            pub fn delete_session(&self, #[wasm_bindgen(unchecked_param_type = "string")] id: JsValue) -> Promise {
                self.backend().call(calls::session(&id, Call::DeleteSession))
            }

            /// `await store.saveSessionState(sessionId, "plan", { step: 2 })`
            ///
            /// Four keys keep checked shapes: `snapshot` and `repl_state`
            /// (see their helpers), and the pins' `attachments` and
            /// `prefix_baseline` (attachment specs, as `saveAttachments` writes).
            #[wasm_bindgen(js_name = saveSessionState, unchecked_return_type = "Promise<void>")]
            pub fn save_session_state(
                &self,
                #[wasm_bindgen(js_name = sessionId, unchecked_param_type = "string")] session_id: JsValue,
                #[wasm_bindgen(unchecked_param_type = "string")] key: JsValue,
                #[wasm_bindgen(unchecked_param_type = "JsonInput | readonly AttachmentSpecInput[]")] value: JsValue,
            ) -> Promise {
                self.backend().call_with(|intake| calls::save_state(&session_id, id_arg(&key, "key"), &value, intake))
            }

            /// `await store.loadSessionState(sessionId, "plan") // the value or null`
            #[wasm_bindgen(js_name = loadSessionState, unchecked_return_type = "Promise<Json | null>")]
            pub fn load_session_state(
                &self,
                #[wasm_bindgen(js_name = sessionId, unchecked_param_type = "string")] session_id: JsValue,
                #[wasm_bindgen(unchecked_param_type = "string")] key: JsValue,
            ) -> Promise {
                self.backend().call(calls::keyed(&session_id, &key, Call::LoadState))
            }

            /// `await store.listSessionStateKeys(sessionId, { prefix: "lg/", reverse: true, limit: 1 }) // sorted`
            #[wasm_bindgen(js_name = listSessionStateKeys, unchecked_return_type = "Promise<string[]>")]
            pub fn list_session_state_keys(
                &self,
                #[wasm_bindgen(js_name = sessionId, unchecked_param_type = "string")] session_id: JsValue,
                #[wasm_bindgen(unchecked_optional_param_type = "StateKeyOptions")] options: JsValue,
            ) -> Promise {
                self.backend().call(calls::state_keys(&session_id, &options))
            }

            /// `const [a, b] = await store.loadSessionStates(sessionId, ["a", "b"]) // null where absent`
            #[wasm_bindgen(js_name = loadSessionStates, unchecked_return_type = "Promise<(Json | null)[]>")]
            pub fn load_session_states(
                &self,
                #[wasm_bindgen(js_name = sessionId, unchecked_param_type = "string")] session_id: JsValue,
                #[wasm_bindgen(unchecked_param_type = "readonly string[]")] keys: JsValue,
            ) -> Promise {
                self.backend().call(calls::load_states(&session_id, &keys))
            }

            /// `await store.deleteSessionState(sessionId, "plan") // true if it existed`
            #[wasm_bindgen(js_name = deleteSessionState, unchecked_return_type = "Promise<boolean>")]
            pub fn delete_session_state(
                &self,
                #[wasm_bindgen(js_name = sessionId, unchecked_param_type = "string")] session_id: JsValue,
                #[wasm_bindgen(unchecked_param_type = "string")] key: JsValue,
            ) -> Promise {
                self.backend().call(calls::keyed(&session_id, &key, Call::DeleteState))
            }

            /// `await store.saveSnapshot(sessionId, { accepts: [...], state: {...}, children: [...] })`
            #[wasm_bindgen(js_name = saveSnapshot, unchecked_return_type = "Promise<void>")]
            pub fn save_snapshot(
                &self,
                #[wasm_bindgen(js_name = sessionId, unchecked_param_type = "string")] session_id: JsValue,
                #[wasm_bindgen(unchecked_param_type = "SnapshotNode")] snapshot: JsValue,
            ) -> Promise {
                self.backend().call_with(|intake| calls::save_state(&session_id, Ok(SNAPSHOT_KEY.to_owned()), &snapshot, intake))
            }

            /// `await store.loadSnapshot(sessionId) // SnapshotNode or null`
            #[wasm_bindgen(js_name = loadSnapshot, unchecked_return_type = "Promise<SnapshotNode | null>")]
            pub fn load_snapshot(&self, #[wasm_bindgen(js_name = sessionId, unchecked_param_type = "string")] session_id: JsValue) -> Promise {
                self.backend().call(calls::session(&session_id, |id| Call::LoadState(id, SNAPSHOT_KEY.to_owned())))
            }

            /// `await store.saveReplState(sessionId, { env: { x: 1 }, history: ["x = 1"] })`
            #[wasm_bindgen(js_name = saveReplState, unchecked_return_type = "Promise<void>")]
            pub fn save_repl_state(
                &self,
                #[wasm_bindgen(js_name = sessionId, unchecked_param_type = "string")] session_id: JsValue,
                #[wasm_bindgen(unchecked_param_type = "SerializedReplState")] state: JsValue,
            ) -> Promise {
                self.backend().call_with(|intake| calls::save_state(&session_id, Ok(REPL_STATE_KEY.to_owned()), &state, intake))
            }

            /// `await store.loadReplState(sessionId) // SerializedReplState or null`
            #[wasm_bindgen(js_name = loadReplState, unchecked_return_type = "Promise<SerializedReplState | null>")]
            pub fn load_repl_state(&self, #[wasm_bindgen(js_name = sessionId, unchecked_param_type = "string")] session_id: JsValue) -> Promise {
                self.backend().call(calls::session(&session_id, |id| Call::LoadState(id, REPL_STATE_KEY.to_owned())))
            }

            /// `await store.appendActivityFrames(sessionId, requestId, frames) // all or none`
            #[wasm_bindgen(js_name = appendActivityFrames, unchecked_return_type = "Promise<void>")]
            pub fn append_activity_frames(
                &self,
                #[wasm_bindgen(js_name = sessionId, unchecked_param_type = "string")] session_id: JsValue,
                #[wasm_bindgen(js_name = requestId, unchecked_param_type = "string")] request_id: JsValue,
                #[wasm_bindgen(unchecked_param_type = "readonly JsonObjectInput[]")] frames: JsValue,
            ) -> Promise {
                self.backend().call_with(|intake| calls::append_frames(&session_id, &request_id, &frames, intake))
            }

            /// `await store.loadActivityFrames(sessionId, requestId?) // in append order`
            #[wasm_bindgen(js_name = loadActivityFrames, unchecked_return_type = "Promise<ActivityFrame[]>")]
            pub fn load_activity_frames(
                &self,
                #[wasm_bindgen(js_name = sessionId, unchecked_param_type = "string")] session_id: JsValue,
                #[wasm_bindgen(js_name = requestId, unchecked_optional_param_type = "string | null")] request_id: JsValue,
            ) -> Promise {
                self.backend().call(calls::load_frames(&session_id, &request_id))
            }

            /// `await store.appendMessages(sessionId, [{ role: "user", content: [...] }])`
            #[wasm_bindgen(js_name = appendMessages, unchecked_return_type = "Promise<void>")]
            pub fn append_messages(
                &self,
                #[wasm_bindgen(js_name = sessionId, unchecked_param_type = "string")] session_id: JsValue,
                #[wasm_bindgen(unchecked_param_type = "readonly MessageInput[]")] messages: JsValue,
            ) -> Promise {
                self.backend().call_with(|intake| calls::append_messages(&session_id, &messages, intake))
            }

            /// `await store.loadMessages(sessionId, { limit: 20 }) // the last 20, in order`
            #[wasm_bindgen(js_name = loadMessages, unchecked_return_type = "Promise<Message[]>")]
            pub fn load_messages(
                &self,
                #[wasm_bindgen(js_name = sessionId, unchecked_param_type = "string")] session_id: JsValue,
                #[wasm_bindgen(unchecked_optional_param_type = "LoadMessagesOptions")] options: JsValue,
            ) -> Promise {
                self.backend().call(calls::load_messages(&session_id, &options))
            }

            /// `await store.updateSession(id, { title: "Renamed" }) // the updated session`
            #[wasm_bindgen(js_name = updateSession, unchecked_return_type = "Promise<SessionInfo>")]
            pub fn update_session(
                &self,
                #[wasm_bindgen(unchecked_param_type = "string")] id: JsValue,
                #[wasm_bindgen(unchecked_param_type = "SessionUpdate")] update: JsValue,
            ) -> Promise {
                self.backend().call_with(|intake| calls::update_session(&id, &update, intake))
            }

            /// `await store.replaceMessages(sessionId, { from: 0, expectedCount: n, messages: [summary, ...kept] })`
            #[wasm_bindgen(js_name = replaceMessages, unchecked_return_type = "Promise<void>")]
            pub fn replace_messages(
                &self,
                #[wasm_bindgen(js_name = sessionId, unchecked_param_type = "string")] session_id: JsValue,
                #[wasm_bindgen(unchecked_param_type = "ReplaceMessagesOptions")] options: JsValue,
            ) -> Promise {
                self.backend().call_with(|intake| calls::replace_messages(&session_id, &options, intake))
            }

            /// `await store.popMessage(sessionId) // the removed message, or null`
            #[wasm_bindgen(js_name = popMessage, unchecked_return_type = "Promise<Message | null>")]
            pub fn pop_message(&self, #[wasm_bindgen(js_name = sessionId, unchecked_param_type = "string")] session_id: JsValue) -> Promise {
                self.backend().call(calls::session(&session_id, Call::PopMessage))
            }

            /// `await store.clearMessages(sessionId)`
            #[wasm_bindgen(js_name = clearMessages, unchecked_return_type = "Promise<void>")]
            pub fn clear_messages(&self, #[wasm_bindgen(js_name = sessionId, unchecked_param_type = "string")] session_id: JsValue) -> Promise {
                self.backend().call(calls::session(&session_id, Call::ClearMessages))
            }

            /// `await store.listRequests(sessionId) // [{ requestId, frames, firstAt, lastAt }]`
            #[wasm_bindgen(js_name = listRequests, unchecked_return_type = "Promise<RequestSummary[]>")]
            pub fn list_requests(&self, #[wasm_bindgen(js_name = sessionId, unchecked_param_type = "string")] session_id: JsValue) -> Promise {
                self.backend().call(calls::session(&session_id, Call::ListRequests))
            }

            /// `await store.loadFramesByRequest(sessionId) // [{ requestId, frames }]`
            #[wasm_bindgen(js_name = loadFramesByRequest, unchecked_return_type = "Promise<RequestFrames[]>")]
            pub fn load_frames_by_request(&self, #[wasm_bindgen(js_name = sessionId, unchecked_param_type = "string")] session_id: JsValue) -> Promise {
                self.backend().call(calls::session(&session_id, Call::LoadFramesByRequest))
            }

            /// `const doc = await store.exportSession(id) // one JSON document`
            #[wasm_bindgen(js_name = exportSession, unchecked_return_type = "Promise<SessionDocument>")]
            pub fn export_session(&self, #[wasm_bindgen(unchecked_param_type = "string")] id: JsValue) -> Promise {
                self.backend().call(calls::session(&id, Call::ExportSession))
            }

            /// `await store.importSession(doc, { id: "copy" }) // the imported session`
            #[wasm_bindgen(js_name = importSession, unchecked_return_type = "Promise<SessionInfo>")]
            pub fn import_session(
                &self,
                #[wasm_bindgen(unchecked_param_type = "SessionDocumentInput")] document: JsValue,
                #[wasm_bindgen(unchecked_optional_param_type = "ImportSessionOptions")] options: JsValue,
            ) -> Promise {
                self.backend().call_with(|intake| calls::import_session(&document, &options, intake))
            }

            /// `await store.commitTurn(sessionId, { messages, frames: [{ requestId, frames }], state: { snapshot }, attachments: pinned })`
            #[wasm_bindgen(js_name = commitTurn, unchecked_return_type = "Promise<void>")]
            pub fn commit_turn(
                &self,
                #[wasm_bindgen(js_name = sessionId, unchecked_param_type = "string")] session_id: JsValue,
                #[wasm_bindgen(unchecked_param_type = "TurnCommit")] turn: JsValue,
            ) -> Promise {
                self.backend().call_with(|intake| calls::commit_turn(&session_id, &turn, pinned_specs, intake))
            }

            /// `await store.saveAttachments(sessionId, pinned) // under key "attachments"`
            #[wasm_bindgen(js_name = saveAttachments, unchecked_return_type = "Promise<void>")]
            pub fn save_attachments(
                &self,
                #[wasm_bindgen(js_name = sessionId, unchecked_param_type = "string")] session_id: JsValue,
                #[wasm_bindgen(unchecked_param_type = "AttachmentStore")] pinned: JsValue,
            ) -> Promise {
                // Read as values are: a Proxy's trap may call back in (BUSY).
                self.backend().call_with(|_| save_attachments(&session_id, &pinned))
            }

            /// `const pinned = (await store.loadAttachments(sessionId)) ?? new AttachmentStore()`
            #[wasm_bindgen(js_name = loadAttachments, unchecked_return_type = "Promise<AttachmentStore | null>")]
            pub fn load_attachments(&self, #[wasm_bindgen(js_name = sessionId, unchecked_param_type = "string")] session_id: JsValue) -> Promise {
                self.backend().call(calls::session(&session_id, Call::LoadAttachments))
            }
        }
    };
}

thread_local! {
    /// `AttachmentStore.prototype`, to tell a store from a look-alike.
    static PINNED_PROTOTYPE: JsValue = Object::get_prototype_of(&AttachmentStore::default().into()).into();
}

/// The pins of the store given to `saveAttachments`, handed over by its
/// own method: a Rust object cannot be borrowed out of an arbitrary JS
/// value. Anything but a live `AttachmentStore` is a typed error.
#[inline(never)]
fn save_attachments(session_id: &JsValue, pinned: &JsValue) -> Result<Call, Error> {
    let session_id = id_arg(session_id, "sessionId")?;
    let pins = pinned_specs(pinned, "pinned")?;
    // The write commitTurn's `attachments` makes, and no more.
    Ok(Call::CommitTurn(
        session_id,
        session::TurnWrite::default().with_pins(pins),
    ))
}

/// The pins a live store hands over, with what its own checks found
/// (see `PinsToSave`). `name` is the parameter's: `pinned`, or
/// commitTurn's `attachments`.
fn pinned_specs(pinned: &JsValue, name: &str) -> Result<session::PinsToSave, Error> {
    let prototype = PINNED_PROTOTYPE.with(JsValue::clone);
    let is_store =
        pinned.is_object() && super::attempt::prototype_of(pinned).is_ok_and(|p| p == prototype);
    if !is_store {
        return Err(Error::argument(name, "must be an AttachmentStore"));
    }
    // The prototype's own method (an instance may shadow it), which hands
    // the pins over inside wasm. Anything an earlier failed call left is
    // no one's: cleared first.
    let hand: Function = super::attempt::get(&prototype, "__pins")
        .unwrap_or_default()
        .unchecked_into();
    let _ = super::attachment_store::handed_pins();
    let called = super::attempt::call0(&hand, pinned);
    // Taken whatever the call did: a method that threw after handing must
    // not leave a copy of the pins behind.
    let handed = super::attachment_store::handed_pins();
    let live = || Error::argument(name, "must be a live AttachmentStore");
    // The guard's FREED, or the store's own call reading this argument
    // (BUSY). Anything else is no live store's method: a forged pointer
    // (INVALID_THIS), or a method the host put in its place that threw.
    called.map_err(|thrown| {
        let code = super::attempt::get(&thrown, "code").unwrap_or_default();
        match super::values::short_string(&code).as_deref() {
            Some("FREED") => Error::Freed {
                class: "AttachmentStore".to_owned(),
            },
            Some("BUSY") => Error::Busy {
                class: "AttachmentStore",
            },
            _ => live(),
        }
    })?;
    // None if a method the host put in its place handed nothing (one that
    // calls the real one on another store hands that store's pins, with
    // what that store's checks found, as a replaced toJSON could give
    // any specs).
    handed.ok_or_else(live)
}

session_store_methods!(MemorySessionStore);
session_store_methods!(IdbSessionStore);
