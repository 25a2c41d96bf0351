//! Checks every backend runs before it writes, so bad input is refused
//! before any storage is touched.

use crate::json::{Map, Value};

use super::{NewSession, SessionInfo};
use crate::Error;

/// The longest id, in UTF-16 code units as JS counts them: the bindings
/// refuse longer ones before copying them into wasm.
pub const MAX_ID_UNITS: usize = 4096;

pub fn id_argument(field: &str, value: &str) -> Result<(), Error> {
    crate::credentials::check_text(field, value)?;
    id_shape(field, value)
}

/// An id's shape alone: not blank, not too long. For an id that is only
/// looked up, never stored or sent (an attachment id to detach).
pub fn id_shape(field: &str, value: &str) -> Result<(), Error> {
    let reason = if crate::text::is_blank(value) {
        "must not be empty or blank"
    } else if value.encode_utf16().count() > MAX_ID_UNITS {
        "must be at most 4096 UTF-16 code units long"
    } else {
        return Ok(());
    };
    Err(Error::argument(field, reason))
}

/// Resolves a new session's defaults and checks it.
pub fn new_session(
    new: NewSession,
    now: f64,
    new_id: impl FnOnce() -> String,
) -> Result<SessionInfo, Error> {
    let id = new.id.unwrap_or_else(new_id);
    id_argument("options.id", &id)?;
    let meta = new.meta.unwrap_or_default();
    let session = SessionInfo {
        id,
        title: new.title.unwrap_or_default(),
        created_at: now,
        updated_at: now,
        meta,
    };
    crate::credentials::check_text("options.title", &session.title)?;
    let meta = Value::Object(session.meta.clone());
    no_credentials("options.meta", &meta)?;
    nesting("options.meta", &meta)?;
    Ok(session)
}

/// A stored value nests at most 128 levels, wherever it is carried: the
/// same value must save, export and import.
pub fn nesting(path: &str, value: &Value) -> Result<(), Error> {
    if value.depth() > crate::json::MAX_DEPTH {
        return Err(Error::value(path, "nests more than 128 levels deep"));
    }
    Ok(())
}

/// A session-state value: any JSON without credentials, with the shapes of
/// the two typed keys enforced.
pub fn state_value(key: &str, value: &Value) -> Result<(), Error> {
    nesting(key, value)?;
    let mut pins = None;
    // A baseline may be null (none yet); pins may not.
    if key == super::ATTACHMENTS_KEY || (key == super::PREFIX_BASELINE_KEY && !value.is_null()) {
        // The spec's own code (UNKNOWN_KIND, INVALID_SPEC, ...) first, as
        // setAttachment reports it: a code does not change with the route.
        // Scanned below, with the rest of the value.
        let store = crate::attachment::AttachmentStore::from_specs_unscanned(value)
            .map_err(|e| e.within(key))?;
        pins = Some(store.len());
    }
    // Credentials before the other shapes, as for messages: a secret used
    // as a key would be a shape error at a path that holds it.
    crate::credentials::check_field(key, value)?;
    match key {
        super::SNAPSHOT_KEY => snapshot(value)?,
        super::REPL_STATE_KEY => repl_state(value)?,
        _ => {}
    }
    // Loaded, one would replace the other: the store would not give back
    // what was saved.
    match pins {
        Some(n) if value.as_array().map_or(0, Vec::len) != n => {
            Err(Error::value(key, "pins one attachment id twice"))
        }
        _ => Ok(()),
    }
}

pub const NOT_FRAME: &str = "must be a JSON object";

/// Frames and messages are JSON objects; one that is not is told `not_object`.
pub fn objects(what: &str, values: &[Value], not_object: &str) -> Result<(), Error> {
    for (index, value) in values.iter().enumerate() {
        let path = format!("{what}[{index}]");
        if !value.is_object() {
            return Err(Error::InvalidValue {
                path,
                reason: not_object.to_owned(),
            });
        }
        no_credentials(&path, value)?;
        nesting(&path, value)?;
    }
    Ok(())
}

/// Messages are attache's one message model, checked on write so a
/// provider's raw payload never lands in the history.
pub fn messages(values: &[Value]) -> Result<(), Error> {
    // Credentials first: a shape error's path could hold a secret key.
    // Worded as the message model words it on every other route.
    objects("messages", values, crate::message::NOT_MESSAGE)?;
    crate::message::Message::list(values, "messages").map(drop)
}

/// `repl_state` is `{ env?: Record<string, Json>, history?: string[] }`.
pub fn repl_state(value: &Value) -> Result<(), Error> {
    let fields = as_object("repl_state", value)?;
    for (key, field) in fields {
        // The path names the value at fault: a history's item, say.
        let (path, reason) = match (key.as_str(), field) {
            ("env", field) if field.is_object() => continue,
            ("env", _) => (String::new(), "must be an object"),
            ("history", Value::Array(items)) => match items.iter().position(|v| !v.is_string()) {
                None => continue,
                Some(i) => (format!("[{i}]"), "must be a string"),
            },
            ("history", _) => (String::new(), "must be an array of strings"),
            _ => (
                String::new(),
                "is not a field of repl_state, which holds `env` and `history`",
            ),
        };
        return Err(Error::InvalidValue {
            path: format!("{}{path}", crate::error::key_path("repl_state", key)),
            reason: reason.to_owned(),
        });
    }
    Ok(())
}

/// A snapshot node is an object whose `children`, when present, are
/// snapshot nodes too.
pub fn snapshot(value: &Value) -> Result<(), Error> {
    fn node(path: &str, value: &Value) -> Result<(), Error> {
        let fields = as_object(path, value)?;
        match fields.get("children") {
            None => Ok(()),
            Some(Value::Array(children)) => children
                .iter()
                .enumerate()
                .try_for_each(|(i, child)| node(&format!("{path}.children[{i}]"), child)),
            Some(_) => Err(Error::InvalidValue {
                path: format!("{path}.children"),
                reason: "must be an array of snapshot nodes".to_owned(),
            }),
        }
    }
    node("snapshot", value)
}

fn as_object<'a>(path: &str, value: &'a Value) -> Result<&'a Map, Error> {
    value
        .as_object()
        .ok_or_else(|| Error::value(path, "must be a JSON object"))
}

/// Refuses values that carry a credential (see `crate::credentials`).
pub fn no_credentials(path: &str, value: &Value) -> Result<(), Error> {
    crate::credentials::check_value(path, value)
}
