use std::cell::{Cell, RefCell};

use wasm_bindgen::prelude::*;

use super::error::to_js;
use super::values::from_js;
use crate::attachment::{self, Attachment};

/// The attachments pinned to every request. Holds wasm memory: call
/// `free()` when done with it.
#[wasm_bindgen]
#[derive(Default)]
pub struct AttachmentStore {
    core: attachment::AttachmentStore,
    /// The last consolidated message built, with the revision it shows.
    message: RefCell<Option<(u64, JsValue)>>,
    /// Its parts' JS objects with their serials, in consolidated order: a
    /// rebuild copies only the texts that changed across the boundary.
    parts: RefCell<Vec<(u64, JsValue)>>,
    /// What `checkPrefix` compares against.
    pub(crate) prefix: RefCell<attachment::PrefixTracker>,
    /// The prefix's characters and bytes, with the revision they measure.
    pub(crate) prefix_size: RefCell<Option<(u64, u64, usize)>>,
    /// The host counter's answer for the prefix: revision, function, tokens.
    pub(crate) prefix_counted: RefCell<Option<(u64, JsValue, u64)>>,
}

#[wasm_bindgen]
impl AttachmentStore {
    /// `const store = new AttachmentStore()`
    #[wasm_bindgen(constructor)]
    pub fn new() -> Self {
        Self::default()
    }

    /// `const id = store.setAttachment({ kind: "memory", slug: "auth", memory: "..." })`
    ///
    /// Pins, or replaces in place, and returns the id. Throws an
    /// `AttacheError` and leaves the store unchanged on a bad spec.
    #[wasm_bindgen(js_name = setAttachment)]
    pub fn set_attachment(
        &mut self,
        #[wasm_bindgen(unchecked_param_type = "AttachmentSpecInput")] spec: JsValue,
    ) -> Result<String, JsValue> {
        // The JSON check refuses cycles, functions and lone surrogates
        // before anything reaches Rust.
        let spec: crate::json::Value = from_js(&spec, "").map_err(|e| {
            to_js(&match e {
                crate::Error::InvalidValue { path, reason } => crate::Error::InvalidSpec {
                    field: path,
                    reason,
                },
                other => other,
            })
        })?;
        let attachment = Attachment::from_spec(&spec).map_err(|e| to_js(&e))?;
        Ok(self.core.pin(attachment).to_owned())
    }

    /// `store.detachAttachment("file:src/main.rs") // true if it was pinned`
    #[wasm_bindgen(js_name = detachAttachment)]
    pub fn detach_attachment(
        &mut self,
        #[wasm_bindgen(unchecked_param_type = "string")] id: JsValue,
    ) -> Result<bool, JsValue> {
        Ok(self.core.detach(&attachment_id(&id)?))
    }

    /// `store.hasAttachment("todo:session")`
    #[wasm_bindgen(js_name = hasAttachment)]
    pub fn has_attachment(
        &self,
        #[wasm_bindgen(unchecked_param_type = "string")] id: JsValue,
    ) -> Result<bool, JsValue> {
        Ok(self.core.contains(&attachment_id(&id)?))
    }

    /// `store.getAttachment("todo:session") // a copy of its spec, or undefined`
    ///
    /// To tick a todo after a reload: read the spec, change it, pin it again.
    #[wasm_bindgen(js_name = getAttachment, unchecked_return_type = "PinnedSpec | undefined")]
    pub fn get_attachment(
        &self,
        #[wasm_bindgen(unchecked_param_type = "string")] id: JsValue,
    ) -> Result<JsValue, JsValue> {
        let id = attachment_id(&id)?;
        self.unregistered(&id)?;
        Ok(self
            .core
            .get(&id)
            .map_or(Ok(JsValue::UNDEFINED), |a| {
                super::values::to_js(&a.to_spec())
            })
            .map_err(|e| to_js(&e))?)
    }

    /// Hands the session store that calls it this store's specs and the
    /// specs `checkPrefix` last compared against: see `handed_pins`.
    /// Internal.
    #[wasm_bindgen(js_name = __pins, skip_typescript)]
    pub fn hand_pins(&self) {
        let pins = crate::session::PinsToSave::of(&self.core, &self.prefix.borrow());
        HANDED.set(Some(pins));
    }

    /// `store.specs() // copies of every spec, in pin order`
    #[wasm_bindgen(unchecked_return_type = "PinnedSpec[]")]
    pub fn specs(&self) -> Result<JsValue, JsValue> {
        super::values::to_js(&self.core.to_specs()).map_err(|e| to_js(&e))
    }

    /// `store.attachmentIds() // in pin order`
    #[wasm_bindgen(js_name = attachmentIds)]
    pub fn attachment_ids(&self) -> Vec<String> {
        self.core.ids().map(str::to_owned).collect()
    }

    /// `store.size`
    #[wasm_bindgen(getter)]
    pub fn size(&self) -> usize {
        self.core.len()
    }

    /// `store.renderAttachment("memory:auth") // string, or undefined if not pinned`
    #[wasm_bindgen(js_name = renderAttachment)]
    pub fn render_attachment(
        &self,
        #[wasm_bindgen(unchecked_param_type = "string")] id: JsValue,
    ) -> Result<Option<String>, JsValue> {
        let id = attachment_id(&id)?;
        self.unregistered(&id)?;
        Ok(self.core.rendered(&id).map(str::to_owned))
    }

    /// `JSON.stringify(store) // its specs, in pin order`
    ///
    /// What `saveAttachments` stores, and what `loadAttachments` pins again.
    #[wasm_bindgen(js_name = toJSON, unchecked_return_type = "PinnedSpec[]")]
    pub fn to_json(&self) -> Result<JsValue, JsValue> {
        super::values::to_js(&self.core.to_specs()).map_err(|e| to_js(&e))
    }

    /// `store.renderAll() // memories, then files, then todos`
    #[wasm_bindgen(js_name = renderAll)]
    pub fn render_all(&self) -> Result<Vec<String>, JsValue> {
        self.core.check_host_secrets().map_err(|e| to_js(&e))?;
        Ok(self
            .core
            .render_all()
            .into_iter()
            .map(str::to_owned)
            .collect())
    }

    /// `buildRequest({ history, attachments: store.consolidatedMessage() })`
    ///
    /// The same frozen object comes back every call until the store
    /// changes: nothing is rebuilt or copied across the boundary on an
    /// unchanged turn. Copy it, parts and all, before changing it or
    /// adding fields such as `cache_control`.
    /// `CREDENTIAL` when a pin holds a secret registered after pinning it.
    #[wasm_bindgen(
        js_name = consolidatedMessage,
        unchecked_return_type = "Readonly<ConsolidatedMessage> | undefined"
    )]
    pub fn consolidated_message(&self) -> Result<JsValue, JsValue> {
        self.core.check_host_secrets().map_err(|e| to_js(&e))?;
        Ok(self.message())
    }
}

impl AttachmentStore {
    /// `CREDENTIAL` when the pin `id` holds a secret registered after it
    /// was pinned, or was loaded holding a credential. `specs()` and
    /// `toJSON()` still list it, so a host can show it and detach it;
    /// saving it is refused.
    fn unregistered(&self, id: &str) -> Result<(), JsValue> {
        self.core.check_pin(id).map_err(|e| to_js(&e))
    }

    /// The cached message, built again only after a change. Callers check
    /// host secrets first.
    pub(super) fn message(&self) -> JsValue {
        let revision = self.core.revision();
        if let Some((built, message)) = self.message.borrow().as_ref() {
            if *built == revision {
                return message.clone();
            }
        }
        let message = if self.core.is_empty() {
            self.parts.borrow_mut().clear();
            JsValue::UNDEFINED
        } else {
            self.rebuild()
        };
        *self.message.borrow_mut() = Some((revision, message.clone()));
        message
    }
}

#[wasm_bindgen(module = "/src/js/snippet.js")]
extern "C" {
    #[wasm_bindgen(js_name = textPart)]
    fn text_part(text: &str) -> JsValue;
    #[wasm_bindgen(js_name = userMessage)]
    fn user_message(parts: Vec<JsValue>) -> JsValue;
}

/// How far ahead a part is looked for among the last build's: a detach
/// shifts the rest by one, a changed part by none.
const LOOKAHEAD: usize = 8;

impl AttachmentStore {
    /// The message from the cached part objects, making only the parts
    /// whose serial is new since the last build.
    fn rebuild(&self) -> JsValue {
        let previous = std::mem::take(&mut *self.parts.borrow_mut());
        let mut next = Vec::with_capacity(self.core.len());
        let mut at = 0;
        for (serial, text) in self.core.parts() {
            let end = previous.len().min(at + LOOKAHEAD);
            let part = match (at..end).find(|&k| previous[k].0 == serial) {
                Some(k) => {
                    at = k + 1;
                    previous[k].1.clone()
                }
                None => text_part(text),
            };
            next.push((serial, part));
        }
        let message = user_message(crate::map_vec(&next, |(_, part)| part.clone()));
        *self.parts.borrow_mut() = next;
        message
    }
}

/// An attachment id to look up: a string, well formed, at most 4096 units
/// and not blank, but not run through the credential guard. It is never
/// stored or sent, and a pin whose id the guard refuses (its slug holds a
/// secret registered after it was pinned; its path reads as a URL with a
/// password once `file:` is in front) must still be found and detached.
fn attachment_id(id: &JsValue) -> Result<String, JsValue> {
    let id = super::values::string_arg(id, "id").map_err(|e| to_js(&e))?;
    crate::session::checks::id_shape("id", &id).map_err(|e| to_js(&e))?;
    Ok(id)
}

thread_local! {
    static HANDED: Cell<Option<crate::session::PinsToSave>> = const { Cell::new(None) };
}

/// What `__pins` last handed, taken: the pins reach the session store
/// inside wasm, never crossing to JS and back (a 2 MiB pin's specs took
/// 50 ms each way). None if no store's own method ran.
pub(crate) fn handed_pins() -> Option<crate::session::PinsToSave> {
    HANDED.take()
}

impl AttachmentStore {
    pub(crate) fn core(&self) -> &attachment::AttachmentStore {
        &self.core
    }

    pub(crate) fn from_core(core: attachment::AttachmentStore) -> Self {
        Self {
            core,
            ..Self::default()
        }
    }

    /// Loaded pins with the baseline saved beside them: the first
    /// `checkPrefix` after a reload compares with the last one before it.
    pub(crate) fn from_pins((core, baseline): crate::session::Pins) -> Self {
        let store = Self::from_core(core);
        if let Some(specs) = baseline {
            // A baseline that no longer reads as specs is dropped: the next
            // check is then a first one, as without a baseline.
            let _ = store.prefix.borrow_mut().restore(&specs);
        }
        store
    }
}
