use crate::json::Value;
use wasm_bindgen::prelude::*;

use super::error::to_js;
use super::values::{from_js, list_from_js, to_js as value_to_js, Options};
use crate::request::{build_request, default_cache_control, Format, Turn};
use crate::Error;

/// ```js
/// const request = buildRequest({ format: "anthropic", system, history,
///   attachments: store.consolidatedMessage(), cacheControl: true });
/// await anthropic.messages.create({ model, max_tokens, ...request });
/// ```
// Typed by overloads in types.rs: the format picks the result's type.
#[wasm_bindgen(js_name = buildRequest, skip_typescript)]
pub fn build_request_js(options: JsValue) -> Result<JsValue, JsValue> {
    build(&options).map_err(|e| to_js(&e))
}

fn build(options: &JsValue) -> Result<JsValue, Error> {
    let options = Options::read(
        options,
        &[
            "format",
            "system",
            "attachments",
            "contributors",
            "memories",
            "history",
            "cacheControl",
            "reasoningContent",
        ],
    )?;
    let get = |name: &str| options.get(name);
    let absent = |v: &JsValue| v.is_undefined() || v.is_null();
    let format = match super::values::short_string(&get("format")) {
        None if absent(&get("format")) => Format::Generic,
        Some(name) => Format::parse(&name).ok_or_else(|| {
            Error::argument(
                "format",
                "must be \"generic\", \"openai\", \"anthropic\" or \"ai-sdk\"",
            )
        })?,
        None => return Err(Error::argument("format", "must be a string")),
    };
    let list = |name: &str| -> Result<Vec<Value>, Error> {
        let value = get(name);
        if absent(&value) {
            return Ok(Vec::new());
        }
        if !super::values::is_array(&value) {
            return Err(Error::argument(name, "must be an array of messages"));
        }
        list_from_js(&value, name)
    };
    let optional = |name: &str| -> Result<Option<Value>, Error> {
        let value = get(name);
        if absent(&value) {
            Ok(None)
        } else {
            from_js(&value, name).map(Some)
        }
    };
    let cache_control = match get("cacheControl") {
        v if v.as_bool() == Some(true) => Some(default_cache_control()),
        v if absent(&v) || v.as_bool() == Some(false) => None,
        // An object is read as options are: own keys, each getter once; a
        // value in it JSON cannot hold is the caller's mistake too, at its
        // path, with what a toJSON threw as the cause. No object at all
        // goes in as null, which the core refuses.
        v if v.is_object() => {
            let marker = Options::read_as(&v, "cacheControl", &["type", "ttl"])?;
            Some(
                from_js(&marker.object(), "cacheControl").map_err(|e| match e {
                    Error::InvalidValue { path, reason } => Error::InvalidArgument {
                        field: path,
                        reason,
                    },
                    e => e,
                })?,
            )
        }
        _ => Some(Value::Null),
    };
    let reasoning_content = match get("reasoningContent") {
        v if absent(&v) => false,
        v => v
            .as_bool()
            .ok_or_else(|| Error::argument("reasoningContent", "must be a boolean"))?,
    };
    let system = match get("system") {
        v if absent(&v) => None,
        // Through the JSON check, so a lone surrogate is refused, not replaced.
        v if v.is_string() => Some(
            from_js(&v, "system")?
                .as_str()
                .unwrap_or_default()
                .to_owned(),
        ),
        _ => return Err(Error::argument("system", "must be a string")),
    };
    let history = get("history");
    if !super::values::is_array(&history) {
        return Err(Error::argument(
            "history",
            "is required: an array of messages",
        ));
    }
    let turn = Turn {
        system,
        attachments: optional("attachments")?,
        contributors: list("contributors")?,
        memories: list("memories")?,
        history: list("history")?,
        cache_control,
        reasoning_content,
    };
    value_to_js(&build_request(format, turn)?)
}
