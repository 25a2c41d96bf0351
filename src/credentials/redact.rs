//! The redact mode: each credential in a value is replaced with
//! `[REDACTED:<kind>]`, and where is reported, for a host that would rather
//! keep the rest of a frame than lose it all.

use super::{field_path, first, named_credential};
use crate::json::Value;
use crate::Error;

/// One replacement: the JSON path of the string and the kind it held.
#[derive(Debug, Clone, PartialEq)]
pub struct Redaction {
    pub path: String,
    pub kind: &'static str,
}

/// Redacts every string in `value`. Names are never rewritten, so one
/// holding a secret is still `CREDENTIAL`: object keys, and the strings
/// under a field in `names` (a session's `id`, a batch's `requestId`).
pub fn redact_value(
    path: &str,
    value: &mut Value,
    names: &[&str],
    found: &mut Vec<Redaction>,
) -> Result<(), Error> {
    walk(path, value, false, names, found)
}

fn walk(
    path: &str,
    value: &mut Value,
    schema: bool,
    names: &[&str],
    found: &mut Vec<Redaction>,
) -> Result<(), Error> {
    match value {
        Value::Object(fields) => {
            for (key, field) in fields.iter_mut() {
                let at = field_path(path, key)?;
                if let (true, Some(name)) = (names.contains(&key.as_str()), field.as_str()) {
                    super::check_text(&at, name)?;
                } else if named_credential(key, field, schema) {
                    *field = Value::String(marker("credential_field"));
                    found.push(Redaction {
                        path: at,
                        kind: "credential_field",
                    });
                } else {
                    let properties = key == "properties" && field.is_object();
                    walk(&at, field, properties, names, found)?;
                }
            }
        }
        Value::Array(items) => {
            for (i, item) in items.iter_mut().enumerate() {
                walk(&format!("{path}[{i}]"), item, false, names, found)?;
            }
        }
        Value::String(text) => redact_text(path, text, found)?,
        _ => {}
    }
    Ok(())
}

fn marker(kind: &str) -> String {
    format!("[REDACTED:{kind}]")
}

/// Left to right, and the text after each marker only: a marker is never
/// scanned again, so `Authorization: Bearer [REDACTED:…]` ends the loop.
pub fn redact_text(path: &str, text: &mut String, found: &mut Vec<Redaction>) -> Result<(), Error> {
    let Some(mut hit) = first(text) else {
        return Ok(());
    };
    let mut out = String::with_capacity(text.len());
    let mut rest = text.as_str();
    loop {
        out.push_str(&rest[..hit.start]);
        out.push_str(&marker(hit.kind));
        found.push(Redaction {
            path: path.to_owned(),
            kind: hit.kind,
        });
        // Every span holds a byte; were one empty, refusing beats looping.
        if hit.end <= hit.start {
            return Err(super::refused(path, hit.kind));
        }
        rest = &rest[hit.end..];
        match first(rest) {
            Some(next) => hit = next,
            None => break,
        }
    }
    out.push_str(rest);
    *text = out;
    Ok(())
}
