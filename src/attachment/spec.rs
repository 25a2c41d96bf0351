//! Specs are the plain objects hosts pass to `setAttachment`. They are
//! checked field by field so a typo such as `content` for `contents` is an
//! error instead of a silent path-only pin.

use crate::json;
use crate::json::{Map, Value};

use super::{Attachment, AttachmentKind, TodoItem};
use crate::session::checks::MAX_ID_UNITS;
use crate::Error;

impl Attachment {
    /// Build an attachment from a spec:
    /// `{kind:"memory", slug, memory}`,
    /// `{kind:"file", path, contents?: string|null, truncate?: boolean}`,
    /// `{kind:"todo", items:[{text, completed}]}` or
    /// `{kind:"custom", id, rank: "memory"|"file"|"todo", text}`.
    pub fn from_spec(spec: &Value) -> Result<Self, Error> {
        // Pinned text rides every request: a credential never gets in.
        let (attachment, held) = Self::from_saved(spec, true)?;
        // A blank custom part carries nothing, and providers drop it, which
        // would move or lose the cache breakpoint. Refused when pinned; a
        // saved one (older versions took it) still loads.
        if let Attachment::Custom { text, .. } = &attachment {
            if crate::text::is_blank(text) {
                return Err(Error::invalid("text", "must not be empty or blank"));
            }
        }
        held.map_or(Ok(attachment), Err)
    }

    /// A spec read back from a store, and the credential it holds, if any:
    /// a secret registered, or a rule added, since it was saved. Returned
    /// rather than refused, so one such pin does not lose the others.
    /// Unless `scan`, none is looked for: the caller scans for them.
    pub fn from_saved(spec: &Value, scan: bool) -> Result<(Self, Option<Error>), Error> {
        let attachment = Self::from_fields(spec)?;
        let held = match scan.then(|| crate::credentials::check_value("", spec)) {
            None | Some(Ok(())) => None,
            Some(Err(held @ Error::Credential { .. })) => Some(held),
            Some(Err(other)) => return Err(other),
        };
        // Every id-taking call refuses a longer id, so such a pin could
        // never be detached.
        if attachment.id().encode_utf16().count() > MAX_ID_UNITS {
            let field = match &attachment {
                Attachment::Memory { .. } => "slug",
                Attachment::File(_) => "path",
                _ => "id",
            };
            return Err(Error::invalid(
                field,
                format!("makes an id longer than {MAX_ID_UNITS} UTF-16 code units"),
            ));
        }
        Ok((attachment, held))
    }

    fn from_fields(spec: &Value) -> Result<Self, Error> {
        let fields = spec.as_object().ok_or_else(|| {
            Error::invalid("", format!("expected an object, got {}", type_name(spec)))
        })?;
        let kind = match fields.get("kind") {
            Some(Value::String(kind)) => kind.as_str(),
            Some(other) => return Err(mistyped("kind", "a string", other)),
            None => return Err(Error::invalid("kind", "is missing")),
        };
        match kind {
            "memory" => {
                only(fields, &["kind", "slug", "memory"])?;
                Attachment::memory(string(fields, "slug")?, string(fields, "memory")?)
            }
            "file" => {
                only(fields, &["kind", "path", "contents", "truncate"])?;
                let contents = match fields.get("contents") {
                    None | Some(Value::Null) => None,
                    Some(Value::String(contents)) => Some(contents.clone()),
                    Some(other) => return Err(mistyped("contents", "a string or null", other)),
                };
                let truncate = match fields.get("truncate") {
                    None | Some(Value::Null) => true,
                    Some(Value::Bool(truncate)) => *truncate,
                    Some(other) => return Err(mistyped("truncate", "a boolean", other)),
                };
                Attachment::file(string(fields, "path")?, contents, truncate)
            }
            "todo" => {
                only(fields, &["kind", "items"])?;
                Ok(Attachment::todo(todo_items(fields)?))
            }
            "custom" => {
                only(fields, &["kind", "id", "rank", "text"])?;
                let rank = string(fields, "rank")?;
                let rank = AttachmentKind::parse(&rank).ok_or_else(|| {
                    Error::invalid(
                        "rank",
                        format!(
                            "must be \"memory\", \"file\" or \"todo\", got {}",
                            crate::error::quote(&rank)
                        ),
                    )
                })?;
                Attachment::custom(string(fields, "id")?, rank, string(fields, "text")?)
            }
            other => Err(Error::UnknownKind {
                field: "kind".to_owned(),
                kind: other.to_owned(),
            }),
        }
    }
}

fn todo_items(fields: &Map) -> Result<Vec<TodoItem>, Error> {
    let items = match fields.get("items") {
        Some(Value::Array(items)) => items,
        Some(other) => return Err(mistyped("items", "an array", other)),
        None => return Err(Error::invalid("items", "is missing")),
    };
    items
        .iter()
        .enumerate()
        .map(|(index, item)| {
            let at = format!("items[{index}]");
            let item = item
                .as_object()
                .ok_or_else(|| mistyped(&at, "an object", item))?;
            let field = |name: &str| crate::error::key_path(&at, name);
            if let Some(unknown) = item.keys().find(|k| *k != "text" && *k != "completed") {
                return Err(Error::invalid(field(unknown), "is not a todo item field"));
            }
            let text = match item.get("text") {
                Some(Value::String(text)) => text.clone(),
                Some(other) => return Err(mistyped(&field("text"), "a string", other)),
                None => return Err(Error::invalid(field("text"), "is missing")),
            };
            let completed = match item.get("completed") {
                Some(Value::Bool(completed)) => *completed,
                Some(other) => return Err(mistyped(&field("completed"), "a boolean", other)),
                None => return Err(Error::invalid(field("completed"), "is missing")),
            };
            Ok(TodoItem { text, completed })
        })
        .collect()
}

fn string(fields: &Map, name: &str) -> Result<String, Error> {
    match fields.get(name) {
        Some(Value::String(value)) => Ok(value.clone()),
        Some(other) => Err(mistyped(name, "a string", other)),
        None => Err(Error::invalid(name, "is missing")),
    }
}

fn only(fields: &Map, allowed: &[&str]) -> Result<(), Error> {
    match fields.keys().find(|key| !allowed.contains(&key.as_str())) {
        Some(unknown) => Err(Error::invalid(
            crate::error::key_path("", unknown),
            format!(
                "is not a field of this kind (expected {})",
                crate::text::join(allowed, ", ")
            ),
        )),
        None => Ok(()),
    }
}

fn mistyped(field: &str, expected: &str, got: &Value) -> Error {
    Error::invalid(field, format!("must be {expected}, got {}", type_name(got)))
}

fn type_name(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

impl Attachment {
    /// The spec this attachment was built from, normalised: `from_spec` of
    /// it gives the same attachment back.
    pub fn to_spec(&self) -> Value {
        match self {
            Attachment::Memory { slug, memory } => {
                json!({"kind": "memory", "slug": slug, "memory": memory})
            }
            Attachment::File(file) => json!({
                "kind": "file", "path": file.path, "contents": file.contents, "truncate": file.truncate,
            }),
            Attachment::Todo { items } => json!({
                "kind": "todo",
                "items": items.iter().map(|i| json!({"text": i.text, "completed": i.completed})).collect::<Vec<_>>(),
            }),
            Attachment::Custom { id, rank, text } => {
                json!({"kind": "custom", "id": id, "rank": rank.as_str(), "text": text})
            }
        }
    }
}
