use js_sys::{Error as JsError, Object, Reflect};
use wasm_bindgen::prelude::*;

/// Every error crosses into JS as a real `Error` named `AttacheError` with
/// a stable `code`, and `field` where a spec field is at fault.
/// Message and field are scrubbed of credentials (see `credentials::scrub`).
pub(crate) fn to_js(error: &crate::Error) -> JsValue {
    use crate::credentials::scrub;
    let js = JsError::new(&scrub(&error.to_string()));
    js.set_name("AttacheError");
    // Setting a data property on a fresh Error cannot fail.
    let _ = Reflect::set(&js, &"code".into(), &error.code().into());
    if let Some(field) = error.field() {
        let _ = Reflect::set(&js, &"field".into(), &scrub(field).into());
    }
    if let crate::Error::Credential { kind, .. } = error {
        let _ = Reflect::set(&js, &"kind".into(), &kind.into());
    }
    if let Some(dom_name) = error.dom_name() {
        let _ = Reflect::set(&js, &"domName".into(), &dom_name.into());
    }
    // The error behind it, as `new Error(message, { cause })` would keep
    // it: a DOMException, or what the host's counter threw.
    let cause = error
        .cause()
        .0
        .clone()
        .or_else(|| super::budget::thrown_by_counter(error));
    if let Some(cause) = cause {
        let descriptor = Object::new();
        let _ = Reflect::set(&descriptor, &"value".into(), &cause);
        let _ = Reflect::set(&descriptor, &"writable".into(), &true.into());
        let _ = Reflect::set(&descriptor, &"configurable".into(), &true.into());
        Object::define_property(&js, &"cause".into(), &descriptor);
    }
    js.into()
}

/// ```js
/// try { store.setAttachment(spec) } catch (e) { if (isAttacheError(e)) console.log(e.code) }
/// ```
#[wasm_bindgen(js_name = isAttacheError, unchecked_return_type = "value is AttacheError")]
pub fn is_attache_error(#[wasm_bindgen(unchecked_param_type = "unknown")] value: &JsValue) -> bool {
    value.is_instance_of::<JsError>()
        && super::attempt::get(value, "name")
            .ok()
            .and_then(|n| n.as_string())
            .as_deref()
            == Some("AttacheError")
        && super::attempt::get(value, "code").is_ok_and(|code| code.is_string())
}
