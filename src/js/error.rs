use js_sys::{Error as JsError, Object, Reflect};
use wasm_bindgen::prelude::*;

/// Every error crosses into JS as a real `Error` named `AttacheError` with
/// a stable `code`, and `field` where a spec field is at fault.
/// Message and field are scrubbed of credentials (see `credentials::scrub`).
pub(crate) fn to_js(error: &crate::Error) -> JsValue {
    use crate::credentials::scrub;
    let js = JsError::new(&scrub(&error.to_string()));
    // Defined, not set: with Error.prototype frozen, setting `name` throws,
    // and a read-only `code` on a polluted Object.prototype refuses a set.
    define(&js, "name", &"AttacheError".into(), true);
    define(&js, "code", &error.code().into(), true);
    // A spec that is no object at all has no field: none, rather than "".
    if let Some(field) = error.field().filter(|f| !f.is_empty()) {
        // Cut as every path is: a root key as given may be 4,096 units.
        let field = crate::error::cut_path(scrub(field));
        define(&js, "field", &field.into(), true);
    }
    if let crate::Error::Credential { kind, .. } = error {
        define(&js, "kind", &kind.into(), true);
    }
    if let Some(dom_name) = error.dom_name() {
        define(&js, "domName", &dom_name.into(), true);
    }
    // The error behind it, as `new Error(message, { cause })` would keep
    // it: a DOMException, or what the host's code threw.
    let cause = error.cause().0.clone().or_else(|| take_cause(error));
    if let Some(cause) = cause {
        define(&js, "cause", &cause, false);
    }
    js.into()
}

/// An own data property, writable and configurable, as an assignment or
/// `new Error(message, { cause })` makes it.
fn define(target: &JsError, key: &str, value: &JsValue, enumerable: bool) {
    // No prototype: defineProperty reads a descriptor's inherited `get`
    // too, and a polluted Object.prototype.get made every error throw.
    let descriptor: Object = crate::idb::bare();
    let _ = Reflect::set(&descriptor, &"value".into(), value);
    let _ = Reflect::set(&descriptor, &"writable".into(), &true.into());
    let _ = Reflect::set(&descriptor, &"enumerable".into(), &enumerable.into());
    let _ = Reflect::set(&descriptor, &"configurable".into(), &true.into());
    Object::define_property(target, &key.into(), &descriptor);
}

thread_local! {
    /// What the host's code (a counter, a getter, a toJSON, a Proxy's
    /// trap) threw, and the field it was read at, until the error it
    /// became reaches JS: within the same synchronous call.
    static THROWN: std::cell::RefCell<Option<(String, JsValue)>> = const { std::cell::RefCell::new(None) };
}

pub(crate) fn keep_cause(field: &str, thrown: &JsValue) {
    THROWN.with(|kept| kept.replace(Some((field.to_owned(), thrown.clone()))));
}

/// What was thrown, if `error` is the one it caused: the same field, and
/// a reason that says so.
fn take_cause(error: &crate::Error) -> Option<JsValue> {
    let kept = THROWN.with(|kept| kept.take())?;
    let said = || crate::text::contains(&error.to_string(), "threw");
    (error.field() == Some(kept.0.as_str()) && said()).then_some(kept.1)
}

/// ```js
/// try { store.setAttachment(spec) } catch (e) { if (isAttacheError(e)) console.log(e.code) }
/// ```
#[wasm_bindgen(js_name = isAttacheError, unchecked_return_type = "value is AttacheError")]
pub fn is_attache_error(#[wasm_bindgen(unchecked_param_type = "unknown")] value: &JsValue) -> bool {
    value.is_instance_of::<JsError>()
        && super::attempt::get(value, "name")
            .ok()
            .and_then(|n| super::values::short_string(&n))
            .as_deref()
            == Some("AttacheError")
        && super::attempt::get(value, "code")
            .ok()
            .and_then(|code| super::values::short_string(&code))
            .is_some_and(|code| crate::error::CODES.contains(&code.as_str()))
}
