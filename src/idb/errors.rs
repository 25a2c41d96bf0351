use wasm_bindgen::{JsCast, JsValue};
use web_sys::DomException;

use crate::error::Cause;
use crate::js::values::host_text;
use crate::Error;

/// The error a JS error maps to, keeping the JS error as its cause.
pub fn from_js(value: &JsValue) -> Error {
    let text = |v: &JsValue| host_text(v).unwrap_or_default();
    let from_dom =
        |name: &str, message: &str| Error::from_dom(name, message, Cause(Some(value.clone())));
    let error = match value.dyn_ref::<DomException>() {
        Some(dom) => Some(dom.unchecked_ref::<js_sys::Error>()),
        None => value.dyn_ref::<js_sys::Error>(),
    };
    match error {
        // A DOMException, or a host's Error (a wrapped indexedDB may throw
        // either): its text cut before it is copied in, as a host's is.
        Some(error) => from_dom(&text(&error.name().into()), &text(&error.message().into())),
        // A thrown non-Error: a string says what it is; anything else
        // is named by its type alone.
        None => from_dom(
            "Error",
            &host_text(value).unwrap_or_else(|| "a value that is not an Error".to_owned()),
        ),
    }
}

pub fn from_idb(error: &idb::Error) -> Error {
    use idb::Error as E;
    match error {
        E::DomException(dom) => from_js(dom),
        E::AddFailed(v)
        | E::ClearFailed(v)
        | E::CountFailed(v)
        | E::DeleteFailed(v)
        | E::GetAllFailed(v)
        | E::GetAllKeysFailed(v)
        | E::GetFailed(v)
        | E::GetKeyFailed(v)
        | E::IndexCreateFailed(v)
        | E::IndexedDbOpenFailed(v)
        | E::IndexNotFound(v)
        | E::ObjectStoreCreateFailed(v)
        | E::ObjectStoreNotFound(v)
        | E::UpdateFailed(v)
        | E::TransactionOpenFailed(v)
        | E::TransactionCommitError(v)
        | E::TransactionAbortError(v)
        | E::KeyRangeCreateFailed(v)
        | E::OpenCursorFailed(v)
        | E::OpenKeyCursorFailed(v)
        | E::CursorContinueFailed(v)
        | E::CursorAdvanceFailed(v)
        | E::IndexedDbNotFound(v) => from_js(v),
        // The idb crate's own failures (a closed channel, an unexpected JS
        // type) carry no DOMException; its Display text is not worth the
        // 3 KB of wasm its strings cost.
        _ => Error::from_dom(
            "UnknownError",
            "the idb crate failed outside IndexedDB",
            Cause::NONE,
        ),
    }
}

/// `.dom()` turns an `idb` result into ours, mapping the DOMException.
pub trait Dom<T> {
    fn dom(self) -> Result<T, Error>;
}

impl<T> Dom<T> for Result<T, idb::Error> {
    fn dom(self) -> Result<T, Error> {
        self.map_err(|e| from_idb(&e))
    }
}
