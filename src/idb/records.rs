//! Record shapes. Payloads are stored as JSON text: it round-trips values
//! exactly and crosses the wasm boundary as one string per record.

use js_sys::{Array, Object, Reflect};
use wasm_bindgen::{JsCast, JsValue};

use super::errors::Dom;
use crate::json::{self, Value};
use crate::session::SessionInfo;
use crate::Error;

pub fn record(fields: &[(&str, &str)], json: String) -> JsValue {
    // No prototype: a read-only key on a polluted Object.prototype would
    // refuse the value, and the record go in without it.
    let record: Object = super::bare();
    for (name, value) in fields {
        let _ = Reflect::set(&record, &(*name).into(), &(*value).into());
    }
    let _ = Reflect::set(&record, &"json".into(), &json.into());
    record.into()
}

/// A record's payload as the JSON text it was stored as.
pub fn payload_text(record: &JsValue) -> Result<String, Error> {
    Reflect::get(record, &"json".into())
        .ok()
        .and_then(|json| json.as_string())
        // Empty is no JSON, and joined into a list it would vanish.
        .filter(|json| !json.is_empty())
        .ok_or_else(|| corrupt("a record has no JSON payload"))
}

pub fn payload(record: &JsValue) -> Result<Value, Error> {
    parsed(&payload_text(record)?)
}

/// Stored JSON text as a value.
pub fn parsed(text: &str) -> Result<Value, Error> {
    json::parse(text).map_err(|e| corrupt(&format!("a stored payload {}", e.reason())))
}

/// A frame batch's text without its brackets: its frames, joined. The
/// brackets must be one array's: a damaged batch that closes early
/// (`[1]},{"requestId":…`) would paste a request no one stored into a
/// grouped load or an export. Scanned, not parsed: loads join unread.
pub fn batch_elements(batch: &str) -> Result<&str, Error> {
    let (mut depth, mut string, mut escaped) = (0usize, false, false);
    let mut closed = None;
    for (at, &b) in batch.as_bytes().iter().enumerate() {
        if string {
            (escaped, string) = (!escaped && b == b'\\', escaped || b != b'"');
            continue;
        }
        // A frame is an object, and attache writes no whitespace: a batch
        // holding anything else was not written by attache.
        if depth == 1 && !matches!(b, b'{' | b',' | b']') {
            break;
        }
        match b {
            b'"' => string = true,
            b'[' | b'{' => depth += 1,
            b']' | b'}' if depth > 1 => depth -= 1,
            _ if depth == 0 => break,
            b']' | b'}' => {
                closed = Some(at);
                break;
            }
            _ => {}
        }
    }
    match closed {
        Some(at) if batch.starts_with('[') && at + 1 == batch.len() && batch.ends_with(']') => {
            Ok(crate::text::part(batch, 1, at))
        }
        _ => Err(corrupt("a frame batch is not an array")),
    }
}

/// A frame batch's request id, which attache never writes empty (blank,
/// builds before 1 December did).
pub fn batch_request_id(batch: &JsValue) -> Result<String, Error> {
    let id = Reflect::get(batch, &"requestId".into()).ok();
    let id = id.and_then(|id| id.as_string());
    id.filter(|id| !id.is_empty())
        .ok_or_else(|| corrupt("a frame batch has no request id"))
}

pub fn session_payload(record: &JsValue) -> Result<SessionInfo, Error> {
    SessionInfo::from_value(&payload(record)?).map_err(|_| corrupt("a session record is malformed"))
}

pub fn key(parts: &[&str]) -> JsValue {
    parts
        .iter()
        .map(|part| JsValue::from_str(part))
        .collect::<Array>()
        .into()
}

/// The `[sessionId, ...]` range of a compound key: arrays sort after every
/// string, so `[id, []]` bounds all of a session's string keys.
pub fn session_range(session_id: &str) -> Result<idb::KeyRange, Error> {
    let lower = key(&[session_id]);
    let upper: JsValue = Array::of2(&session_id.into(), &Array::new()).into();
    idb::KeyRange::bound(&lower, &upper, Some(false), Some(false)).dom()
}

/// `prefix` with its last UTF-16 unit raised by one: below it, every key
/// that extends the prefix, and nothing else. The result may hold a lone
/// surrogate, so it is built in JS, a unit or two of it by char code.
pub fn past(prefix: &str) -> JsValue {
    let Some(last) = prefix.chars().next_back() else {
        return JsValue::from_str(prefix);
    };
    let mut units = [0; 2];
    let units = last.encode_utf16(&mut units);
    if let Some(unit) = units.last_mut() {
        *unit = unit.saturating_add(1);
    }
    let head = js_sys::JsString::from(crate::text::head(prefix, prefix.len() - last.len_utf8()));
    head.concat(&js_sys::JsString::from_char_code(units)).into()
}

pub fn state_key_of(primary: &JsValue) -> Option<String> {
    primary
        .dyn_ref::<Array>()
        .and_then(|parts| parts.get(1).as_string())
}

pub fn corrupt(reason: &str) -> Error {
    Error::value("stored", reason)
}
