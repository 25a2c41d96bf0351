//! JSON values across the boundary: checked and serialized in JS, parsed in
//! Rust; back out as JSON text parsed by the engine's own `JSON.parse`.

use wasm_bindgen::prelude::*;

use crate::json::{self, Value};
use crate::session::checks;
use crate::Error;

#[wasm_bindgen(module = "/src/js/snippet.js")]
extern "C" {
    #[wasm_bindgen(catch, js_name = toJson)]
    fn to_json_text(
        value: &JsValue,
        path: &str,
        ids: &str,
        document: bool,
    ) -> Result<String, JsValue>;
    #[wasm_bindgen(js_name = idProblem)]
    fn id_problem(value: &JsValue) -> Option<String>;
    #[wasm_bindgen(js_name = isArray)]
    pub fn is_array(value: &JsValue) -> bool;
}

/// An array's items as a plain array, read once in JS (see
/// `tryArrayItems`): at most `max`, or `INVALID_ARGUMENT` at `name`.
pub fn array_items(
    value: &JsValue,
    name: &str,
    max: u32,
    not_array: &str,
) -> Result<js_sys::Array, Error> {
    match super::attempt::array_items(value, max, not_array) {
        Ok(items) => items
            .dyn_into()
            .map_err(|reason| Error::argument(name, &reason.as_string().unwrap_or_default())),
        Err(thrown) => Err(threw(name, &thrown)),
    }
}

/// `INVALID_ARGUMENT` at `field` for what a getter or a Proxy's trap threw,
/// which the error keeps as its cause.
fn threw(field: &str, thrown: &JsValue) -> Error {
    super::error::keep_cause(field, thrown);
    Error::argument(field, "threw when read")
}

/// A JSON value from JS: checked and serialized by `toJson` (which refuses
/// what is not JSON data, naming the path), then parsed by the core.
pub fn from_js(value: &JsValue, path: &str) -> Result<Value, Error> {
    from_js_with_ids(value, path, "", false)
}

/// The same, with the ids inside it (`ids`: their paths, one per line, as
/// `toJson` takes them) checked in JS as `string_arg` checks one (type,
/// length, lone surrogates) before the value is copied: else a huge id
/// grows wasm memory before it is refused. Blank ones the core refuses.
/// `document`: importSession's, bounded as an export is (see `toJson`).
pub fn from_js_with_ids(
    value: &JsValue,
    path: &str,
    ids: &str,
    document: bool,
) -> Result<Value, Error> {
    let text = to_json_text(value, path, ids, document).map_err(|problem| {
        // A path names keys as given: a huge one is not copied in whole,
        // and is cut as every path is (a pair split at 1,024 falls past it).
        let field = |name: &str| host_text(&super::attempt::get(&problem, name).ok()?);
        let reason = field("reason").unwrap_or_else(|| "is not JSON data".to_owned());
        if let Ok(cause) = super::attempt::get(&problem, "cause") {
            if !cause.is_undefined() {
                let at = field("path").unwrap_or_else(|| path.to_owned());
                super::error::keep_cause(&at, &cause);
            }
        }
        match field("field") {
            Some(field) => Error::InvalidArgument { field, reason },
            None => Error::InvalidValue {
                path: field("path").unwrap_or_else(|| path.to_owned()),
                reason,
            },
        }
    })?;
    // JSON.stringify's text parses; only its nesting can be too deep.
    json::parse(&text).map_err(|e| Error::value(path, e.reason()))
}

/// A JSON array from JS: frames, messages, a history.
pub fn list_from_js(value: &JsValue, path: &str) -> Result<Vec<Value>, Error> {
    let not_array = || Error::value(path, "must be an array");
    if !is_array(value) {
        return Err(not_array());
    }
    // An array with its own toJSON may still serialize as something else.
    match from_js(value, path)? {
        Value::Array(items) => Ok(items),
        _ => Err(not_array()),
    }
}

/// Out through the engine's own `JSON.parse`: one string crosses.
pub fn to_js(value: &Value) -> Result<JsValue, Error> {
    let text = value.to_json();
    crate::text::fits_js(&text, "result")?;
    Ok(super::attempt::parse(&text).unwrap_or(JsValue::UNDEFINED))
}

/// An id argument: a session id, key, request id, attachment id or
/// database name. Its type, length and well-formedness are checked in JS
/// before it is copied; whether it is blank is the core's call.
pub fn id_arg(value: &JsValue, name: &str) -> Result<String, Error> {
    let id = string_arg(value, name)?;
    checks::id_argument(name, &id)?;
    Ok(id)
}

/// A string argument, checked in JS (type, length, lone surrogates) before
/// it is copied.
pub fn string_arg(value: &JsValue, name: &str) -> Result<String, Error> {
    if let Some(reason) = id_problem(value) {
        return Err(Error::InvalidArgument {
            field: name.to_owned(),
            reason,
        });
    }
    Ok(value.as_string().unwrap_or_default())
}

/// A name a host gave (a format, a counter's, `credentials`): a short
/// string as given, a longer one as "", which names nothing. A huge one is
/// not copied in only to be refused: wasm memory never shrinks.
pub fn short_string(value: &JsValue) -> Option<String> {
    let text = value.dyn_ref::<js_sys::JsString>()?;
    Some(match text.length() {
        0..=64 => text.into(),
        _ => String::new(),
    })
}

/// Text a host's code made (a thrown message, a reason): at most 1,024
/// units copied in, cut as a path is.
pub fn host_text(value: &JsValue) -> Option<String> {
    let text = value.dyn_ref::<js_sys::JsString>()?;
    Some(crate::error::cut_path(text.slice(0, 1024).into()))
}

/// An options object: `undefined` or `null` for none. Every key is read
/// once, up front, so a throwing getter or a typo (`nme` for `name`) is an
/// `INVALID_ARGUMENT` naming it rather than a default taken silently.
pub struct Options(Vec<(&'static str, JsValue)>);

impl Options {
    /// A call's options, whose checks name each by its key (`limit`): a
    /// getter that throws is named alike, a typo under `options`.
    pub fn read(value: &JsValue, known: &[&'static str]) -> Result<Self, Error> {
        Self::read_in(value, "options", "", known)
    }

    /// An object whose checks name its keys under it: `counter.ratio`,
    /// a session's `options.title`.
    pub fn read_as(value: &JsValue, what: &str, known: &[&'static str]) -> Result<Self, Error> {
        Self::read_in(value, what, what, known)
    }

    fn read_in(
        value: &JsValue,
        what: &str,
        at: &str,
        known: &[&'static str],
    ) -> Result<Self, Error> {
        let wrong = |field: &str, reason: &str| Error::argument(field, reason);
        if value.is_undefined() || value.is_null() {
            return Ok(Self(Vec::new()));
        }
        // Plain, in any realm: a Map or a Date has no own keys, so its
        // entries would be taken silently as no options at all.
        // Only an object is asked for its prototype: for anything else
        // Reflect throws, and each caught throw left wasm memory a little
        // larger (the fuzz test saw 1 MiB over 20,000 runs).
        let prototype = super::attempt::prototype_of;
        if !value.is_object() {
            return Err(wrong(what, "must be a plain object"));
        }
        // A revoked Proxy (a stale Immer draft) throws here: kept as the cause.
        let first = prototype(value).map_err(|e| threw(what, &e))?;
        let plain = first.is_null() || prototype(&first).is_ok_and(|p| p.is_null());
        if is_array(value) || !plain {
            return Err(wrong(what, "must be a plain object"));
        }
        let keys = super::attempt::own_keys(value).map_err(|e| threw(what, &e))?;
        // Only own keys are options: one on Object.prototype (another
        // library's pollution) would otherwise be taken silently.
        let mut own = Vec::new();
        for key in keys.iter() {
            // A symbol key (a MobX object's $mobx, say) is no option, as
            // JSON.stringify ignores it.
            if key.is_symbol() {
                continue;
            }
            // Checked before the copy: as_string() would turn a lone
            // surrogate in the key into U+FFFD.
            let name = id_problem(&key)
                .is_none()
                .then(|| key.as_string())
                .flatten();
            match name {
                Some(name) if known.contains(&name.as_str()) => own.push(name),
                Some(name) => {
                    // A secret as a key is refused without echoing it.
                    crate::credentials::check_text(what, &name)?;
                    // Under the object's name: a typo such as `sessionId`
                    // must not read as that argument's own error.
                    let field = crate::error::key_path(what, &name);
                    return Err(wrong(&field, "is not a known option"));
                }
                None => return Err(wrong(what, "has a key that is not a known option")),
            }
        }
        // The rest are absent: get() gives undefined for them.
        known
            .iter()
            .filter(|&&name| own.iter().any(|o| o == name))
            .map(|&name| match super::attempt::get(value, name) {
                Ok(v) => Ok((name, v)),
                Err(thrown) => Err(threw(&crate::error::key_path(at, name), &thrown)),
            })
            .collect::<Result<_, _>>()
            .map(Self)
    }

    /// The options as read, in a new plain object: one copied whole as a
    /// value after (a session's) has had each getter run once.
    pub fn object(&self) -> JsValue {
        // No prototype: a setter or read-only key on a polluted
        // Object.prototype would take the value instead.
        let object: js_sys::Object = crate::idb::bare();
        for (name, value) in self.0.iter().filter(|(_, v)| !v.is_undefined()) {
            let _ = js_sys::Reflect::set(&object, &JsValue::from_str(name), value);
        }
        object.into()
    }

    /// The option's value; `undefined` when not given.
    pub fn get(&self, name: &str) -> JsValue {
        self.0
            .iter()
            .find(|(known, _)| *known == name)
            .map_or(JsValue::UNDEFINED, |(_, v)| v.clone())
    }

    /// A callback option: absent, or a function.
    pub fn function(&self, name: &str) -> Result<Option<js_sys::Function>, Error> {
        match self.get(name) {
            v if v.is_undefined() => Ok(None),
            v => v
                .dyn_into()
                .map(Some)
                .map_err(|_| Error::argument(name, "must be a function")),
        }
    }
}
