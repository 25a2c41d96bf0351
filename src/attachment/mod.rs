//! Pinned context that rides every model request outside the conversation
//! history, rendered byte for byte as loopctl 0.4.1 `attachment.rs` does.

mod kind;
mod message;
mod prefix;
mod render;
mod spec;
mod store;

pub use kind::AttachmentKind;
pub use message::ConsolidatedMessage;
pub use prefix::{
    first_change, minimum_cacheable_tokens, PrefixChange, PrefixPart, PrefixParts, PrefixStatus,
    PrefixTracker,
};
pub use render::{truncate_contents, FILE_CONTENTS_LIMIT_BYTES};
pub use store::AttachmentStore;

use crate::Error;

/// The id every todo list pins under: one live list per session.
pub const TODO_ID: &str = "todo:session";

/// One pinned attachment. Built through [`Attachment::from_spec`] or the
/// checked constructors, so every value here is valid.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Attachment {
    Memory {
        slug: String,
        memory: String,
    },
    File(FileAttachment),
    Todo {
        items: Vec<TodoItem>,
    },
    /// Host-rendered: the text is kept and sent verbatim.
    Custom {
        id: String,
        rank: AttachmentKind,
        text: String,
    },
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileAttachment {
    pub path: String,
    /// `None` pins the path only.
    pub contents: Option<String>,
    /// Cut contents past [`FILE_CONTENTS_LIMIT_BYTES`]; the default.
    pub truncate: bool,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TodoItem {
    pub text: String,
    pub completed: bool,
}

impl Attachment {
    pub fn memory(slug: impl Into<String>, memory: impl Into<String>) -> Result<Self, Error> {
        let slug = non_empty("slug", slug.into())?;
        Ok(Attachment::Memory {
            slug,
            memory: memory.into(),
        })
    }

    pub fn file(
        path: impl Into<String>,
        contents: Option<String>,
        truncate: bool,
    ) -> Result<Self, Error> {
        let path = non_empty("path", path.into())?;
        Ok(Attachment::File(FileAttachment {
            path,
            contents,
            truncate,
        }))
    }

    pub fn todo(items: Vec<TodoItem>) -> Self {
        Attachment::Todo { items }
    }

    pub fn custom(
        id: impl Into<String>,
        rank: AttachmentKind,
        text: impl Into<String>,
    ) -> Result<Self, Error> {
        let id = id.into();
        if !is_valid_id(&id) {
            return Err(Error::InvalidId {
                id,
                field: "id".to_owned(),
            });
        }
        Ok(Attachment::Custom {
            id,
            rank,
            text: text.into(),
        })
    }

    /// The store key: `memory:{slug}`, `file:{path}`, `todo:session`, or
    /// the custom id as given.
    pub fn id(&self) -> String {
        match self {
            Attachment::Memory { slug, .. } => format!("memory:{slug}"),
            Attachment::File(file) => format!("file:{}", file.path),
            Attachment::Todo { .. } => TODO_ID.to_owned(),
            Attachment::Custom { id, .. } => id.clone(),
        }
    }

    /// The kind this attachment ranks as in the consolidated render.
    pub fn kind(&self) -> AttachmentKind {
        match self {
            Attachment::Memory { .. } => AttachmentKind::Memory,
            Attachment::File(_) => AttachmentKind::File,
            Attachment::Todo { .. } => AttachmentKind::Todo,
            Attachment::Custom { rank, .. } => *rank,
        }
    }
}

/// A slug or path makes the id: a blank one (`"memory: "`) could never be
/// looked up, as every id-taking call refuses a blank id.
fn non_empty(field: &str, value: String) -> Result<String, Error> {
    if crate::text::is_blank(&value) {
        return Err(Error::invalid(field, "must not be empty or blank"));
    }
    Ok(value)
}

/// `{kind}:{slug}`: a kind of lowercase ASCII letters, digits, `-` or `_`,
/// then a slug that is not blank. The kind is restricted so ids stay greppable and
/// never carry whitespace or a second colon before the slug.
fn is_valid_id(id: &str) -> bool {
    let Some((kind, slug)) = id.split_once(':') else {
        return false;
    };
    !kind.is_empty()
        && !crate::text::is_blank(slug)
        && kind
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-' || b == b'_')
}

#[cfg(test)]
mod tests;
