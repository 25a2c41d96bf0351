//! The redact mode: each credential in a value is replaced with
//! `[REDACTED:<kind>]`, and where is reported, for a host that would rather
//! keep the rest of a frame than lose it all.

use super::{field_path, header_entry, named_credential, named_entry, named_pair, patterns, Hit};
use crate::json::Value;
use crate::Error;

/// One replacement: the JSON path of the string and the kind it held.
#[derive(Debug, Clone, PartialEq)]
pub struct Redaction {
    pub path: String,
    pub kind: &'static str,
}

/// Redactions as hosts see them: `[{path, kind}]`.
pub fn redactions_value(found: &[Redaction]) -> Value {
    Value::Array(crate::map_vec(
        found,
        // Cut as an error's field is: a root key as given may be 4,096 units.
        |r| crate::json!({"path": (crate::error::cut_path(r.path.clone())), "kind": (r.kind)}),
    ))
}

/// Redacts every string in `value`. Names are never rewritten, so one
/// holding a secret is still `CREDENTIAL`: object keys, and whatever sits
/// at a path in `names` (a session's `id`, a batch's `requestId`, the pins,
/// which are checked when pinned and never redacted). In a name, `[]`
/// stands for any index: `frames[].requestId`. Only there: a host's
/// `meta.attachments` is redacted like any other field.
pub fn redact_value(
    path: &str,
    value: &mut Value,
    names: &[&str],
    found: &mut Vec<Redaction>,
) -> Result<(), Error> {
    walk(path, value, names, found)
}

/// A session-state value under `key`, as the field `key` of an object.
pub fn redact_field(key: &str, value: &mut Value, found: &mut Vec<Redaction>) -> Result<(), Error> {
    if named_credential(key, value) {
        replace(value, key.to_owned(), "credential_field", found);
        return Ok(());
    }
    redact_value(key, value, &[], found)
}

/// A value holding a credential whole (a credential-named field's, a
/// header list's) becomes one marker.
fn replace(field: &mut Value, path: String, kind: &'static str, found: &mut Vec<Redaction>) {
    *field = Value::String(marker(kind));
    found.push(Redaction { path, kind });
}

fn walk(
    path: &str,
    value: &mut Value,
    names: &[&str],
    found: &mut Vec<Redaction>,
) -> Result<(), Error> {
    match value {
        Value::Object(fields) => {
            if named_pair(fields) {
                if let Some(field) = fields.get_mut("value") {
                    replace(field, field_path(path, "value")?, "credential_field", found);
                }
            }
            each_field(path, fields, names, found)?;
        }
        Value::Array(items) => {
            for i in 0..items.len() {
                // A header list's value, whole: a line's would keep its scheme.
                if let Some(hit) = header_entry(items, i) {
                    if let Some(value) = items.get_mut(i) {
                        replace(value, format!("{path}[{i}]"), hit.kind, found);
                    }
                }
            }
            for (i, item) in items.iter_mut().enumerate() {
                let at = format!("{path}[{i}]");
                if let (true, Value::Array(pair)) = (named_entry(item), &mut *item) {
                    replace(&mut pair[1], format!("{at}[1]"), "credential_field", found);
                }
                walk(&at, item, names, found)?;
            }
        }
        Value::String(text) => redact_text(path, text, found)?,
        // A secret of digits (an account number) as a JSON number.
        Value::Number(n) if super::host_secret(n.as_str(), 0).is_some() => {
            replace(value, path.to_owned(), "host_secret", found);
        }
        _ => {}
    }
    Ok(())
}

fn each_field(
    path: &str,
    fields: &mut crate::json::Map,
    names: &[&str],
    found: &mut Vec<Redaction>,
) -> Result<(), Error> {
    for (key, field) in fields.iter_mut() {
        let at = field_path(path, key)?;
        if names.iter().any(|name| same_shape(&at, name)) {
            super::check_value(&at, field)?;
        } else if named_credential(key, field) {
            replace(field, at, "credential_field", found);
        } else {
            walk(&at, field, names, found)?;
        }
    }
    Ok(())
}

/// Session state, `{key: value}`: each value as the field of its key, as
/// `saveSessionState` takes it. Keys side by side are not one object, so
/// `type: "password"` beside `value` is not a named pair.
pub fn redact_state(
    path: &str,
    state: &mut Value,
    names: &[&str],
    found: &mut Vec<Redaction>,
) -> Result<(), Error> {
    match state {
        Value::Object(fields) => each_field(path, fields, names, found),
        // Not state at all: refused when read as state.
        _ => Ok(()),
    }
}

/// Whether `path` is `name` with each `[]` of `name` read as any index.
fn same_shape(path: &str, name: &str) -> bool {
    let (mut p, mut n) = (path.as_bytes(), name.as_bytes());
    loop {
        if let (Some(rest), Some(b'[')) = (n.strip_prefix(b"[]"), p.first()) {
            let Some(close) = p.iter().position(|&b| b == b']') else {
                return false;
            };
            (n, p) = (rest, &p[close + 1..]);
            continue;
        }
        match (n.split_first(), p.split_first()) {
            (None, None) => return true,
            (Some((a, n_rest)), Some((b, p_rest))) if a == b => (n, p) = (n_rest, p_rest),
            _ => return false,
        }
    }
}

/// Where a name and what joins it to its value (`DB_PASSWORD = '`) that
/// end at `end` begin: up to 256 bytes back, twice the longest name the
/// guard reads, and not past a line's start.
fn name_before(bytes: &[u8], end: usize) -> usize {
    let mut at = end;
    while at + 256 > end
        && at > 0
        && (bytes[at - 1].is_ascii_alphanumeric()
            || matches!(
                bytes[at - 1],
                b'_' | b'-' | b'=' | b':' | b' ' | b'\t' | b'\'' | b'"' | b'\\'
            ))
    {
        at -= 1;
    }
    at
}

fn marker(kind: &str) -> String {
    format!("[REDACTED:{kind}]")
}

/// Left to right, each scanner asked again once redaction has passed its
/// hit, so a text is scanned about once however many keys it holds. Each
/// registered secret is a scanner of its own: one absent is looked for
/// once, not again after every hit.
/// Overlapping hits are one span: a key that runs into a PEM header must
/// not leave the key's body behind. A scanner is asked again from a little
/// before the span's end, at the name (`DB_PASSWORD=`) the span may have
/// cut into, so the value after it is found. A marker is never scanned.
pub fn redact_text(path: &str, text: &mut String, found: &mut Vec<Redaction>) -> Result<(), Error> {
    let spans = spans(path, text)?;
    if spans.is_empty() {
        return Ok(());
    }
    *text = replaced(text, &spans);
    found.extend(spans.iter().map(|hit| Redaction {
        path: path.to_owned(),
        kind: hit.kind,
    }));
    Ok(())
}

/// What `redact_text` replaces: spans in order and apart, each with the
/// kind of the hit it starts with.
pub(super) fn spans(path: &str, source: &str) -> Result<Vec<Hit>, Error> {
    let mut spans = Vec::new();
    let scanners = patterns::DETECTORS + super::host_secret_count();
    let detect = |which: usize, from: usize| match which {
        w if w < patterns::DETECTORS => patterns::detect(w, source, from),
        w => super::host_secret_from(w - patterns::DETECTORS, source, from),
    };
    let mut next: Vec<Option<Hit>> = (0..scanners).map(|w| detect(w, 0)).collect();
    while let Some(hit) = next.iter().flatten().min_by_key(|h| h.start).copied() {
        // Every span holds a byte; were one empty, refusing beats looping.
        if hit.end <= hit.start {
            return Err(super::refused(path, hit.kind));
        }
        let mut end = hit.end;
        let mut passed = true;
        while passed {
            passed = false;
            for (which, slot) in next.iter_mut().enumerate() {
                if let Some(h) = slot.filter(|h| h.start < end) {
                    end = end.max(h.end);
                    // Past this hit's start, so each scanner moves on and
                    // this ends; at most 256 bytes before the end, so
                    // little is read twice.
                    let mut after = name_before(source.as_bytes(), end).max(h.start + 1);
                    while !source.is_char_boundary(after) {
                        after += 1;
                    }
                    *slot = detect(which, after);
                    passed = true;
                }
            }
        }
        spans.push(Hit { end, ..hit });
    }
    Ok(spans)
}

/// `source` with each span (in order, apart) replaced by its marker.
pub(super) fn replaced(source: &str, spans: &[Hit]) -> String {
    let mut out = String::with_capacity(source.len());
    let mut pos = 0;
    for hit in spans {
        out.push_str(crate::text::part(source, pos, hit.start));
        out.push_str(&marker(hit.kind));
        pos = hit.end;
    }
    out.push_str(crate::text::tail(source, pos));
    out
}
