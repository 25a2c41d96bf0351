//! The session-store methods shared by both JS classes, generic over the
//! backend. `session_store_methods!` stamps them onto each class.

use std::future::Future;
use std::rc::Rc;

use js_sys::Promise;
use serde_json::Value;
use wasm_bindgen::JsValue;
use wasm_bindgen_futures::future_to_promise;

use super::error::to_js as error_to_js;
use super::values::{from_js, id_arg, to_js};
use crate::session::{NewSession, SessionStore};
use crate::Error;

pub fn promise(work: impl Future<Output = Result<JsValue, Error>> + 'static) -> Promise {
    future_to_promise(async move { work.await.map_err(|e| error_to_js(&e)) })
}

pub fn create_session<S: SessionStore + 'static>(
    store: Rc<S>,
    options: Option<js_sys::Object>,
) -> Promise {
    promise(async move {
        let new: NewSession = match options {
            Some(options) => from_js(&options, "options")?,
            None => NewSession::default(),
        };
        to_js(&store.create_session(new).await?)
    })
}

pub fn by_session<S: SessionStore + 'static, T: serde::Serialize>(
    store: Rc<S>,
    session_id: JsValue,
    op: impl AsyncFnOnce(&S, &str) -> Result<T, Error> + 'static,
) -> Promise {
    promise(async move {
        let session_id = id_arg(&session_id, "sessionId")?;
        to_js(&op(&store, &session_id).await?)
    })
}

pub fn by_key<S: SessionStore + 'static, T: serde::Serialize>(
    store: Rc<S>,
    session_id: JsValue,
    key: JsValue,
    op: impl AsyncFnOnce(&S, &str, &str) -> Result<T, Error> + 'static,
) -> Promise {
    promise(async move {
        let (session_id, key) = (id_arg(&session_id, "sessionId")?, id_arg(&key, "key")?);
        to_js(&op(&store, &session_id, &key).await?)
    })
}

/// Checks and converts a value before the returned promise starts, so a
/// value the caller mutates right after the call is stored as it was.
pub fn with_value<S: SessionStore + 'static, T: serde::de::DeserializeOwned + 'static>(
    store: Rc<S>,
    session_id: JsValue,
    value: &JsValue,
    path: &str,
    op: impl AsyncFnOnce(&S, &str, T) -> Result<(), Error> + 'static,
) -> Promise {
    let converted = from_js::<T>(value, path);
    promise(async move {
        let session_id = id_arg(&session_id, "sessionId")?;
        op(&store, &session_id, converted?).await?;
        Ok(JsValue::UNDEFINED)
    })
}

pub fn values(value: &JsValue, path: &str) -> Result<Vec<Value>, Error> {
    if !js_sys::Array::is_array(value) {
        return Err(Error::InvalidValue {
            path: path.to_owned(),
            reason: "must be an array".to_owned(),
        });
    }
    from_js(value, path)
}
