//! The one error type of the core. Each variant has a stable code that the
//! JS bindings expose as `error.code`, so hosts branch on codes, not text.

use std::fmt;

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Error {
    /// A spec named a kind that is not memory, file, todo or custom.
    UnknownKind { kind: String },
    /// A spec field is missing, mistyped, empty or not expected.
    InvalidSpec { field: String, reason: String },
    /// A custom attachment id is not of the form `{kind}:{slug}`.
    InvalidId { id: String },
}

impl Error {
    /// The stable code hosts match on.
    pub fn code(&self) -> &'static str {
        match self {
            Error::UnknownKind { .. } => "UNKNOWN_KIND",
            Error::InvalidSpec { .. } => "INVALID_SPEC",
            Error::InvalidId { .. } => "INVALID_ID",
        }
    }

    /// The spec field at fault, as a path such as `items[2].text`.
    pub fn field(&self) -> Option<&str> {
        match self {
            Error::UnknownKind { .. } => Some("kind"),
            Error::InvalidSpec { field, .. } => Some(field),
            Error::InvalidId { .. } => Some("id"),
        }
    }

    pub(crate) fn invalid(field: impl Into<String>, reason: impl Into<String>) -> Self {
        Error::InvalidSpec {
            field: field.into(),
            reason: reason.into(),
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::UnknownKind { kind } => write!(
                f,
                "unknown attachment kind {kind:?}: expected \"memory\", \"file\", \"todo\" or \"custom\""
            ),
            Error::InvalidSpec { field, reason } if field.is_empty() => {
                write!(f, "invalid attachment spec: {reason}")
            }
            Error::InvalidSpec { field, reason } => {
                write!(f, "invalid attachment spec: `{field}` {reason}")
            }
            Error::InvalidId { id } => write!(
                f,
                "invalid attachment id {id:?}: expected \"{{kind}}:{{slug}}\" with a kind of \
                 lowercase letters, digits, '-' or '_' and a non-empty slug"
            ),
        }
    }
}

impl std::error::Error for Error {}
