use serde::Serialize;
use wasm_bindgen::prelude::*;

use super::error::to_js;
use super::values::from_js;
use crate::attachment::{self, Attachment};

/// The attachments pinned to every request. Holds wasm memory: call
/// `free()` when done with it.
#[wasm_bindgen]
#[derive(Default)]
pub struct AttachmentStore(attachment::AttachmentStore);

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
        let spec: serde_json::Value = from_js(&spec, "").map_err(|e| {
            to_js(&match e {
                crate::Error::InvalidValue { path, reason } => crate::Error::InvalidSpec {
                    field: path,
                    reason,
                },
                other => other,
            })
        })?;
        let attachment = Attachment::from_spec(&spec).map_err(|e| to_js(&e))?;
        Ok(self.0.pin(attachment).to_owned())
    }

    /// `store.detachAttachment("file:src/main.rs") // true if it was pinned`
    #[wasm_bindgen(js_name = detachAttachment)]
    pub fn detach_attachment(&mut self, id: &str) -> bool {
        self.0.detach(id)
    }

    /// `store.hasAttachment("todo:session")`
    #[wasm_bindgen(js_name = hasAttachment)]
    pub fn has_attachment(&self, id: &str) -> bool {
        self.0.contains(id)
    }

    /// `store.attachmentIds() // in pin order`
    #[wasm_bindgen(js_name = attachmentIds)]
    pub fn attachment_ids(&self) -> Vec<String> {
        self.0.ids().map(str::to_owned).collect()
    }

    /// `store.size`
    #[wasm_bindgen(getter)]
    pub fn size(&self) -> usize {
        self.0.len()
    }

    /// `store.renderAttachment("memory:auth") // string, or undefined if not pinned`
    #[wasm_bindgen(js_name = renderAttachment)]
    pub fn render_attachment(&self, id: &str) -> Option<String> {
        self.0.rendered(id).map(str::to_owned)
    }

    /// `store.renderAll() // memories, then files, then todos`
    #[wasm_bindgen(js_name = renderAll)]
    pub fn render_all(&self) -> Vec<String> {
        self.0.render_all().into_iter().map(str::to_owned).collect()
    }

    /// `const message = store.consolidatedMessage(); if (message) request.messages.unshift(message)`
    #[wasm_bindgen(
        js_name = consolidatedMessage,
        unchecked_return_type = "ConsolidatedMessage | undefined"
    )]
    pub fn consolidated_message(&self) -> JsValue {
        match self.0.consolidated_message() {
            Some(message) => message
                .serialize(&serde_wasm_bindgen::Serializer::json_compatible())
                .expect("strings and arrays always convert"),
            None => JsValue::UNDEFINED,
        }
    }
}
