//! JSON values across the boundary: checked and serialized in JS, parsed in
//! Rust; back out as JSON text parsed by the engine's own `JSON.parse`.

use js_sys::{Reflect, JSON};
use serde::{de::DeserializeOwned, Serialize};
use wasm_bindgen::prelude::*;

use crate::Error;

#[wasm_bindgen(module = "/src/js/json.js")]
extern "C" {
    #[wasm_bindgen(catch, js_name = toJson)]
    fn to_json_text(value: &JsValue, path: &str) -> Result<String, JsValue>;
}

pub fn from_js<T: DeserializeOwned>(value: &JsValue, path: &str) -> Result<T, Error> {
    let text = to_json_text(value, path).map_err(|problem| {
        let field = |name: &str| {
            Reflect::get(&problem, &name.into())
                .ok()
                .and_then(|v| v.as_string())
        };
        Error::InvalidValue {
            path: field("path").unwrap_or_else(|| path.to_owned()),
            reason: field("reason").unwrap_or_else(|| "is not JSON data".to_owned()),
        }
    })?;
    // Also refuses lone surrogates, which JSON.stringify escapes but UTF-8 cannot hold.
    serde_json::from_str(&text).map_err(|e| Error::InvalidValue {
        path: path.to_owned(),
        reason: format!("is not valid JSON data: {e}"),
    })
}

pub fn to_js(value: &impl Serialize) -> Result<JsValue, Error> {
    let text = serde_json::to_string(value).map_err(|e| Error::InvalidValue {
        path: String::new(),
        reason: e.to_string(),
    })?;
    Ok(JSON::parse(&text).expect("serde_json writes valid JSON"))
}

/// A string argument such as a session id; anything else is refused rather
/// than coerced.
pub fn string_arg(value: &JsValue, name: &str) -> Result<String, Error> {
    value.as_string().ok_or_else(|| Error::InvalidArgument {
        field: name.to_owned(),
        reason: "must be a string".to_owned(),
    })
}
