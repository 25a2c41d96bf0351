//! A session as one versioned JSON document: its info, state (the pins
//! among it, under `attachments`), messages and frames by request. Import
//! checks all of it first and writes it in one transaction.

use super::{checks, SessionInfo, TurnWrite};
use crate::json::{quote, Value};
use crate::Error;

pub const FORMAT: &str = "attache-session";
/// The document version this build writes and reads.
pub const DOCUMENT_VERSION: u64 = 1;

#[derive(Debug, Clone, PartialEq)]
pub struct SessionExport {
    pub session: SessionInfo,
    /// `(key, value)` in key order.
    pub state: Vec<(String, Value)>,
    pub messages: Vec<Value>,
    /// `(request id, frames)` in first-append order.
    pub frames: Vec<(String, Vec<Value>)>,
}

fn wrong(path: &str, reason: &str) -> Error {
    Error::InvalidValue {
        path: format!("document.{path}"),
        reason: reason.to_owned(),
    }
}

/// The document's text from its parts, each already JSON text: a backend
/// that stores text joins it without parsing, into one string sized once
/// (a history's megabytes, grown by doubling, would hold twice that).
pub fn document_text(
    session: &str,
    state: &[(String, String)],
    messages: &str,
    frames: &str,
) -> String {
    let state = crate::map_vec(state, |(k, v)| format!("{}:{v}", quote(k)));
    let state = crate::text::join(&state, ",");
    let mut out =
        String::with_capacity(96 + session.len() + state.len() + messages.len() + frames.len());
    let _ = std::fmt::Write::write_fmt(
        &mut out,
        format_args!(
            "{{\"format\":\"{FORMAT}\",\"version\":{DOCUMENT_VERSION},\"session\":{session},\"state\":{{{state}}},\"messages\":{messages},\"frames\":{frames}}}"
        ),
    );
    out
}

/// Text one JS string must hold, checked before each piece is added: a
/// document too long for one fails before it is built, not after, which
/// (copies and all) could run wasm out of memory. Past it, nothing more is
/// made.
struct Capped {
    text: String,
    limit: usize,
    over: bool,
}

impl Capped {
    #[inline(never)]
    fn add(&mut self, piece: &str) {
        self.over |= self.text.len() + piece.len() > self.limit;
        if !self.over {
            self.text.push_str(piece);
        }
    }

    fn value(&mut self, before: &str, value: &Value) {
        self.add(before);
        if !self.over {
            self.add(&value.to_json());
        }
    }
}

/// The document's text from a store's own data, borrowed: a copy of a long
/// history, as a `SessionExport`, would raise wasm memory's high-water mark
/// for good. `frames` are `(request id, frame)` in append order; a run of
/// one request's is one entry. Text past `limit` bytes is `INVALID_VALUE`.
/// The same text as `document_text` (a native test compares them).
pub fn export_text<'a>(
    session: &SessionInfo,
    state: &[(String, Value)],
    messages: &[Value],
    frames: impl Iterator<Item = (&'a str, &'a Value)>,
    limit: usize,
) -> Result<String, Error> {
    let mut doc = Capped {
        text: String::new(),
        limit,
        over: false,
    };
    doc.value(
        r#"{"format":"attache-session","version":1,"session":"#,
        &session.to_value(),
    );
    doc.add(r#","state":{"#);
    for (at, (key, value)) in state.iter().enumerate() {
        doc.add(if at == 0 { "" } else { "," });
        doc.add(&quote(key));
        doc.value(":", value);
    }
    doc.add(r#"},"messages":["#);
    for (at, message) in messages.iter().enumerate() {
        doc.value(if at == 0 { "" } else { "," }, message);
    }
    doc.add(r#"],"frames":["#);
    let mut run = None;
    for (request_id, frame) in frames {
        let before = if run == Some(request_id) {
            ","
        } else {
            doc.add(if run.is_some() { "]}," } else { "" });
            doc.add(r#"{"requestId":"#);
            doc.add(&quote(request_id));
            run = Some(request_id);
            r#","frames":["#
        };
        doc.value(before, frame);
    }
    doc.add(if run.is_some() { "]}]}" } else { "]}" });
    match doc.over {
        true => Err(Error::value("result", crate::text::TOO_LONG)),
        false => Ok(doc.text),
    }
}

impl SessionExport {
    /// Checks every part, as the stores would on write; a document from a
    /// newer attache is `VERSION`.
    pub fn from_value(value: &Value) -> Result<Self, Error> {
        let fields = value.as_object().ok_or_else(|| {
            Error::value("document", "must be a session document from exportSession")
        })?;
        // Each part is checked for credentials below, as the stores check
        // it: state value by value, since keys side by side are not one
        // object. Not the whole document at once, which would read
        // `type: "password"` beside a `value` key as a pair.
        if fields.get("format").and_then(Value::as_str) != Some(FORMAT) {
            return Err(wrong("format", "must be \"attache-session\""));
        }
        match fields.get("version").and_then(Value::as_u64) {
            Some(DOCUMENT_VERSION) => {}
            Some(newer) if newer > DOCUMENT_VERSION => {
                return Err(Error::Version {
                    reason: format!(
                    "the document is version {newer}; this build reads version {DOCUMENT_VERSION}"
                ),
                    cause: crate::error::Cause::NONE,
                })
            }
            _ => return Err(wrong("version", "must be 1")),
        }
        // After the version: a newer document may add a field.
        if let Some(key) = fields.keys().find(|k| {
            ![
                "format", "version", "session", "state", "messages", "frames",
            ]
            .contains(&k.as_str())
        }) {
            // A key is named in the path, so never with a secret in it:
            // refused at the document, as a redacting store refuses it.
            crate::credentials::check_text("document", key)?;
            return Err(Error::value(
                &crate::error::key_path("document", key),
                "is not a field of a session document",
            ));
        }
        // Exactly these fields (one more would be dropped unseen); each
        // field is named where it is wrong.
        const SESSION_FIELDS: [&str; 5] = ["id", "title", "createdAt", "updatedAt", "meta"];
        let header = fields.get("session").filter(|s| {
            s.as_object()
                .is_some_and(|s| s.keys().all(|k| SESSION_FIELDS.contains(&k.as_str())))
        });
        let header = header
            .ok_or_else(|| wrong("session", "must be {id, title, createdAt, updatedAt, meta}"))?;
        let session = SessionInfo::from_value(header)
            .map_err(|(key, reason)| wrong(&format!("session.{key}"), reason))?;
        // A larger time would not export back.
        if session.created_at > super::MAX_TIME {
            return Err(wrong("session.createdAt", super::TIME_RANGE));
        }
        if session.updated_at > super::MAX_TIME {
            return Err(wrong("session.updatedAt", super::TIME_RANGE));
        }
        // The stores never move updatedAt back (a clock that does leaves it).
        if session.updated_at < session.created_at {
            return Err(wrong("session.updatedAt", "must not be before createdAt"));
        }
        let state = match fields.get("state") {
            Some(Value::Object(state)) => {
                state.iter().map(|(k, v)| (k.clone(), v.clone())).collect()
            }
            _ => return Err(wrong("state", "must be an object")),
        };
        let messages = match fields.get("messages") {
            Some(Value::Array(messages)) => messages.clone(),
            _ => return Err(wrong("messages", "must be an array")),
        };
        let frames = TurnWrite::frames_from(fields.get("frames").unwrap_or(&Value::Null))
            .map_err(|e| malformed(e.within("document")))?;
        let export = SessionExport {
            session,
            state,
            messages,
            frames,
        };
        export.check()?;
        Ok(export)
    }

    /// Checks its session and its writes, fields named within the
    /// document. IndexedDB checks again as the call runs: a secret may be
    /// registered a moment after the call is made.
    pub fn check(&self) -> Result<(), Error> {
        let session = &self.session;
        let meta = Value::Object(session.meta.clone());
        checks::id_argument("session.id", &session.id)
            .and_then(|()| crate::credentials::check_text("session.title", &session.title))
            .and_then(|()| checks::no_credentials("session.meta", &meta))
            .and_then(|()| checks::nesting("session.meta", &meta))
            .and_then(|()| self.as_turn().check())
            .map_err(|e| malformed(e.within("document")))
    }

    /// Its writes, as a turn, for the stores' shared checks.
    pub fn as_turn(&self) -> TurnWrite {
        TurnWrite {
            messages: self.messages.clone(),
            replace_from: None,
            frames: self.frames.clone(),
            state: self.state.clone(),
            ..TurnWrite::default()
        }
    }

    /// Under a new id, if one is given.
    pub fn with_id(mut self, id: Option<String>) -> Result<Self, Error> {
        if let Some(id) = id {
            checks::id_argument("id", &id)?;
            self.session.id = id;
        }
        Ok(self)
    }

    /// Times no later than `now`: one from a clock that ran ahead would
    /// keep the session first in `listSessions`, unmoved by its writes.
    pub fn not_after(mut self, now: f64) -> Self {
        self.session.updated_at = self.session.updated_at.min(now);
        self.session.created_at = self.session.created_at.min(now);
        self
    }
}

/// An id inside a document is part of its value: a bad one makes the
/// document malformed (`INVALID_VALUE`), not the argument the id checks
/// report for a parameter.
pub fn malformed(error: Error) -> Error {
    match error {
        Error::InvalidArgument { field, reason } => Error::InvalidValue {
            path: field,
            reason,
        },
        other => other,
    }
}
