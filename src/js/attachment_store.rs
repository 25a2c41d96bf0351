use std::cell::RefCell;

use js_sys::{Array, Object, Reflect};
use serde::Serialize;
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
    /// What `checkPrefix` compares against.
    pub(crate) prefix: RefCell<attachment::PrefixTracker>,
    /// The prefix's characters and bytes, with the revision they measure.
    pub(crate) prefix_size: RefCell<Option<(u64, u64, usize)>>,
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
        #[wasm_bindgen(unchecked_param_type = "AttachmentSpec")] spec: JsValue,
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
        Ok(self.core.rendered(&attachment_id(&id)?).map(str::to_owned))
    }

    /// `JSON.stringify(store) // its specs, in pin order`
    ///
    /// What `saveAttachments` stores, and what `loadAttachments` pins again.
    #[wasm_bindgen(js_name = toJSON, unchecked_return_type = "AttachmentSpec[]")]
    pub fn to_json(&self) -> Result<JsValue, JsValue> {
        Ok(super::values::to_js(&self.core.to_specs()))
    }

    /// `store.renderAll() // memories, then files, then todos`
    #[wasm_bindgen(js_name = renderAll)]
    pub fn render_all(&self) -> Vec<String> {
        self.core
            .render_all()
            .into_iter()
            .map(str::to_owned)
            .collect()
    }

    /// `const message = store.consolidatedMessage(); if (message) request.messages.unshift(message)`
    ///
    /// The same frozen object comes back every call until the store
    /// changes: nothing is rebuilt or copied across the boundary on an
    /// unchanged turn. Copy it before adding fields such as `cache_control`.
    #[wasm_bindgen(
        js_name = consolidatedMessage,
        unchecked_return_type = "Readonly<ConsolidatedMessage> | undefined"
    )]
    pub fn consolidated_message(&self) -> JsValue {
        let revision = self.core.revision();
        if let Some((built, message)) = self.message.borrow().as_ref() {
            if *built == revision {
                return message.clone();
            }
        }
        let message = match self.core.consolidated_message() {
            Some(message) => freeze(
                message
                    .serialize(&serde_wasm_bindgen::Serializer::json_compatible())
                    .expect("strings and arrays always convert"),
            ),
            None => JsValue::UNDEFINED,
        };
        *self.message.borrow_mut() = Some((revision, message.clone()));
        message
    }
}

fn attachment_id(id: &JsValue) -> Result<String, JsValue> {
    super::values::id_arg(id, "id").map_err(|e| to_js(&e))
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
}

/// Freezes the message, its content array and each part, since every
/// caller shares the one object.
fn freeze(message: JsValue) -> JsValue {
    if let Ok(content) = Reflect::get(&message, &"content".into()) {
        for part in Array::from(&content).iter() {
            Object::freeze(part.unchecked_ref::<Object>());
        }
        Object::freeze(content.unchecked_ref::<Object>());
    }
    Object::freeze(message.unchecked_ref::<Object>());
    message
}
