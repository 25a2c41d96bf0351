//! The one error type of the core. Each variant has a stable code that the
//! JS bindings expose as `error.code`, so hosts branch on codes, not text.

use std::fmt;

/// A value an error names, quoted, with any credential in it replaced by
/// its marker: quoting escapes `"`, which would hide a secret from a later
/// scrub of the whole message.
pub(crate) fn quote(text: &str) -> String {
    // Cut first: a spec's 10 MB kind or id would be a 10 MB message.
    crate::json::quote(&crate::credentials::scrub(&cut_path(text.to_owned())))
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Error {
    /// A spec named a kind that is not memory, file, todo or custom; `field`
    /// is where (`kind`, or `attachments[2].kind` when nested).
    UnknownKind { kind: String, field: String },
    /// A spec field is missing, mistyped, empty or not expected.
    InvalidSpec { field: String, reason: String },
    /// A custom attachment id is not of the form `{kind}:{slug}`.
    InvalidId { id: String, field: String },
    /// An argument such as a session id or state key is empty or mistyped.
    InvalidArgument { field: String, reason: String },
    /// A value to store is not JSON data of the expected shape.
    InvalidValue { path: String, reason: String },
    /// A value to store holds what looks like a credential; attache never
    /// stores credentials.
    /// `kind` says what was found (`openai_key`, `credential_field`, ...);
    /// the secret itself is never kept.
    Credential { path: String, kind: String },
    /// The session does not exist.
    NotFound { session_id: String },
    /// A session with this id exists already.
    AlreadyExists { session_id: String },
    /// The history changed since the caller read it (`expectedCount`).
    Conflict { reason: String },
    /// The database was written by a newer version of attache. When the
    /// browser's `VersionError` said so, it is the cause.
    Version { reason: String, cause: Cause },
    /// The browser refused the write for lack of storage.
    Quota {
        dom_name: String,
        message: String,
        cause: Cause,
    },
    /// The transaction aborted; nothing of it was stored.
    Aborted {
        dom_name: String,
        message: String,
        cause: Cause,
    },
    /// The connection was lost and could not be restored.
    ConnectionLost {
        dom_name: String,
        message: String,
        cause: Cause,
    },
    /// IndexedDB is missing or refused to open (private mode, policy).
    Unavailable {
        dom_name: String,
        message: String,
        cause: Cause,
    },
    /// An object was used after its `free()`.
    Freed { class: String },
    /// A call that changes the object came while another of its calls was
    /// still reading its arguments (from a getter, say): it would land first.
    Busy { class: &'static str },
}

/// The JS error (a DOMException, say) behind a storage error, kept so the
/// binding can hand it to the host as `error.cause`. Natively there is
/// none. It never decides equality: two errors are equal by what they say.
#[derive(Clone, Default)]
pub struct Cause(#[cfg(target_arch = "wasm32")] pub Option<wasm_bindgen::JsValue>);

impl Cause {
    pub const NONE: Cause = Cause(
        #[cfg(target_arch = "wasm32")]
        None,
    );

    /// Whether there is one: only the browser's errors have it.
    pub fn is_some(&self) -> bool {
        #[cfg(target_arch = "wasm32")]
        return self.0.is_some();
        #[cfg(not(target_arch = "wasm32"))]
        false
    }
}

impl PartialEq for Cause {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

impl Eq for Cause {}

impl fmt::Debug for Cause {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Cause")
    }
}

impl Error {
    /// An abort found to come from a lost connection: the same DOM error,
    /// as `CONNECTION_LOST`.
    pub fn lost(self) -> Self {
        match self {
            Error::Aborted {
                dom_name,
                message,
                cause,
            } => Error::ConnectionLost {
                dom_name,
                message,
                cause,
            },
            other => other,
        }
    }

    /// The stable code hosts match on.
    pub fn code(&self) -> &'static str {
        // In CODES' order, so the list `isAttacheError` checks is this one;
        // 15, INVALID_THIS, is guard.js's.
        CODES[match self {
            Error::UnknownKind { .. } => 0,
            Error::InvalidSpec { .. } => 1,
            Error::InvalidId { .. } => 2,
            Error::InvalidArgument { .. } => 3,
            Error::InvalidValue { .. } => 4,
            Error::Credential { .. } => 5,
            Error::NotFound { .. } => 6,
            Error::AlreadyExists { .. } => 7,
            Error::Conflict { .. } => 8,
            Error::Version { .. } => 9,
            Error::Quota { .. } => 10,
            Error::Aborted { .. } => 11,
            Error::ConnectionLost { .. } => 12,
            Error::Unavailable { .. } => 13,
            Error::Freed { .. } => 14,
            Error::Busy { .. } => 16,
        }]
    }

    /// The field at fault, as a path such as `items[2].text`.
    pub fn field(&self) -> Option<&str> {
        match self {
            Error::UnknownKind { field, .. }
            | Error::InvalidId { field, .. }
            | Error::InvalidSpec { field, .. }
            | Error::InvalidArgument { field, .. } => Some(field),
            Error::InvalidValue { path, .. } | Error::Credential { path, .. } => Some(path),
            _ => None,
        }
    }

    /// The DOMException name behind a storage error, such as
    /// `QuotaExceededError`.
    pub fn dom_name(&self) -> Option<&str> {
        match self {
            Error::Quota { dom_name, .. }
            | Error::Aborted { dom_name, .. }
            | Error::ConnectionLost { dom_name, .. }
            | Error::Unavailable { dom_name, .. } => Some(dom_name),
            Error::Version { cause, .. } if cause.is_some() => Some("VersionError"),
            _ => None,
        }
    }

    /// The JS error behind this one, for the binding's `error.cause`.
    pub fn cause(&self) -> &Cause {
        match self {
            Error::Quota { cause, .. }
            | Error::Aborted { cause, .. }
            | Error::ConnectionLost { cause, .. }
            | Error::Unavailable { cause, .. }
            | Error::Version { cause, .. } => cause,
            _ => &Cause::NONE,
        }
    }

    /// Maps a DOMException by name: quota, version, connection loss and
    /// denied storage get their own codes; anything else aborted the
    /// transaction.
    pub fn from_dom(name: &str, message: &str, cause: Cause) -> Self {
        let (dom_name, message) = (name.to_owned(), message.to_owned());
        let text = message.to_ascii_lowercase();
        match name {
            "QuotaExceededError" => Error::Quota {
                dom_name,
                message,
                cause,
            },
            "VersionError" => Error::Version {
                reason: message,
                cause,
            },
            // Storage denied (an opaque origin, a sandboxed frame, blocked
            // cookies; Chromium's is an UnknownError "The user denied
            // permission..."): a host falls back to the memory store on
            // this code, where a reload would fail the same way. Not any
            // "denied": a closing connection's FILE_ERROR_ACCESS_DENIED is
            // lost, and may pass.
            _ if name == "SecurityError"
                || (name == "UnknownError"
                    && crate::text::contains(&text, "user denied permission")) =>
            {
                Error::Unavailable {
                    dom_name,
                    message,
                    cause,
                }
            }
            // Chromium, clearing site data, fails the reopen with an
            // AbortError "The connection was closed."; the snippet's
            // untilClosed ends a wait with the same.
            "InvalidStateError" | "UnknownError" | "AbortError"
                if crate::text::contains(&text, "clos") || crate::text::contains(&text, "lost") =>
            {
                Error::ConnectionLost {
                    dom_name,
                    message,
                    cause,
                }
            }
            _ => Error::Aborted {
                dom_name,
                message,
                cause,
            },
        }
    }

    /// The same error, found inside `outer`: its field becomes a path such
    /// as `attachments[0].kind`, and its code stays, whichever route
    /// reports it.
    pub fn within(mut self, outer: &str) -> Self {
        if let Some(field) = self.field_mut() {
            *field = join(outer, field);
        }
        self
    }

    fn field_mut(&mut self) -> Option<&mut String> {
        match self {
            Error::UnknownKind { field, .. }
            | Error::InvalidId { field, .. }
            | Error::InvalidSpec { field, .. }
            | Error::InvalidArgument { field, .. }
            | Error::InvalidValue { path: field, .. }
            | Error::Credential { path: field, .. } => Some(field),
            _ => None,
        }
    }

    /// The same, for a value checked with its `key` as its root, found in
    /// the object at `outer`: `state.k.x` for `k`, `state["a/b"].x` for `a/b`.
    pub fn under_key(mut self, outer: &str, key: &str) -> Self {
        if let Some(field) = self.field_mut() {
            let rest = field
                .strip_prefix(key)
                .filter(|rest| rest.is_empty() || rest.starts_with(['.', '[']));
            *field = cut_path(match rest {
                Some(rest) => format!("{}{rest}", key_path(outer, key)),
                // Cut inside the key itself: the path is the key's.
                None if field.strip_suffix('…').is_some_and(|f| key.starts_with(f)) => {
                    key_path(outer, key)
                }
                None => join(outer, field),
            });
        }
        self
    }

    /// `INVALID_ARGUMENT`: one call per site, where a struct literal
    /// inlined two string copies at each of dozens of sites.
    #[inline(never)]
    pub fn argument(field: &str, reason: &str) -> Self {
        Error::InvalidArgument {
            field: field.to_owned(),
            reason: reason.to_owned(),
        }
    }

    /// `INVALID_VALUE` at `path`.
    #[inline(never)]
    pub fn value(path: &str, reason: &str) -> Self {
        Error::InvalidValue {
            path: path.to_owned(),
            reason: reason.to_owned(),
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
            Error::UnknownKind { kind, .. } => write!(
                f,
                "unknown attachment kind {}: expected \"memory\", \"file\", \"todo\" or \"custom\"",
                quote(kind)
            ),
            Error::InvalidSpec { field, reason } if field.is_empty() => {
                write!(f, "invalid attachment spec: {reason}")
            }
            Error::InvalidSpec { field, reason } => {
                write!(f, "invalid attachment spec: `{field}` {reason}")
            }
            Error::InvalidId { id, .. } => write!(
                f,
                "invalid attachment id {}: expected \"{{kind}}:{{slug}}\" with a kind of \
                 lowercase letters, digits, '-' or '_' and a slug that is not blank",
                quote(id)
            ),
            // A colon, as some reasons are sentences of their own.
            Error::InvalidArgument { field, reason } => write!(f, "`{field}`: {reason}"),
            Error::InvalidValue { path, reason } => write!(f, "value at `{path}`: {reason}"),
            Error::Credential { path, kind } => write!(
                f,
                "value at `{path}` holds a credential ({kind}); attache never attaches or stores credentials: \
                 leave it out, or redact it with redactCredentials() (a session store opened with \
                 credentials: \"redact\" redacts the values it writes, never ids, keys or pins)"
            ),
            Error::NotFound { session_id } => write!(f, "no session {}", quote(session_id)),
            Error::AlreadyExists { session_id } => {
                write!(f, "session {} exists already", quote(session_id))
            }
            Error::Conflict { reason } => write!(f, "conflict: {reason}; nothing was written"),
            Error::Version { reason, .. } => write!(f, "version mismatch: {reason}"),
            Error::Quota {
                dom_name, message, ..
            } => {
                write!(
                    f,
                    "storage quota exceeded, nothing was stored ({})",
                    cause(dom_name, message)
                )
            }
            Error::Aborted {
                dom_name, message, ..
            } => {
                write!(
                    f,
                    "transaction aborted, nothing was stored ({})",
                    cause(dom_name, message)
                )
            }
            Error::ConnectionLost {
                dom_name, message, ..
            } => {
                write!(f, "database connection lost ({})", cause(dom_name, message))
            }
            Error::Unavailable {
                dom_name, message, ..
            } => {
                write!(
                    f,
                    "IndexedDB is unavailable ({}); MemorySessionStore keeps sessions without it",
                    cause(dom_name, message)
                )
            }
            Error::Freed { class } => write!(f, "this {class} was freed; create a new one"),
            Error::Busy { class } => write!(
                f,
                "this {class} is in use by a call still running (reading its arguments, or in \
                 a callback it called); call it again \
                 once that call returns"
            ),
        }
    }
}

/// `key` under `at`, as JS would reach it: `at.key` for an identifier,
/// else `at["key"]`, so a key such as `""`, `a.b` or `a[0]` makes an
/// unambiguous path.
pub(crate) fn key_path(at: &str, key: &str) -> String {
    let word = |c: char| c.is_ascii_alphanumeric() || c == '_' || c == '$';
    if key.starts_with(|c: char| word(c) && !c.is_ascii_digit()) && key.chars().all(word) {
        join(at, key)
    } else {
        cut_path(format!("{at}[{}]", crate::json::quote(key)))
    }
}

/// A path past 1,000 UTF-16 units is its first 1,000 (never half a
/// character) and `…`, as the JS walk cuts one: a huge key is named by its
/// start, and a walk that names each item under it copies no more. Cut
/// again after more is joined on, it stays the full path's cut.
pub(crate) fn cut_path(mut path: String) -> String {
    if path.len() <= 1000 || path.encode_utf16().count() <= 1000 {
        return path;
    }
    let mut units = 0;
    let end = path.char_indices().find(|(_, c)| {
        units += c.len_utf16();
        units > 1000
    });
    path.truncate(end.map_or(path.len(), |(i, _)| i));
    // Its own `…` kept, where a pair stopped the first cut at 999 units.
    if !path.ends_with('…') {
        path.push('…');
    }
    path
}

/// `outer` then `inner` as one path: `a` + `b` is `a.b`, `a` + `[0]` is
/// `a[0]`, and an empty side adds nothing.
pub(crate) fn join(outer: &str, inner: &str) -> String {
    cut_path(
        match (outer.is_empty(), inner.is_empty() || inner.starts_with('[')) {
            (true, _) => inner.to_owned(),
            (false, true) => format!("{outer}{inner}"),
            (false, false) => format!("{outer}.{inner}"),
        },
    )
}

/// Browsers often leave a DOMException's message empty.
fn cause(dom_name: &str, message: &str) -> String {
    if message.is_empty() {
        dom_name.to_owned()
    } else {
        format!("{dom_name}: {message}")
    }
}

impl std::error::Error for Error {}

/// Every code, as `AttacheErrorCode` in the declarations lists them:
/// `code()` gives one, and `isAttacheError` narrows only to these.
pub(crate) const CODES: [&str; 17] = [
    "UNKNOWN_KIND",
    "INVALID_SPEC",
    "INVALID_ID",
    "INVALID_ARGUMENT",
    "INVALID_VALUE",
    "CREDENTIAL",
    "NOT_FOUND",
    "ALREADY_EXISTS",
    "CONFLICT",
    "VERSION",
    "QUOTA",
    "ABORTED",
    "CONNECTION_LOST",
    "UNAVAILABLE",
    "FREED",
    "INVALID_THIS",
    "BUSY",
];

#[cfg(test)]
mod tests {
    use super::{Cause, Error};

    #[test]
    fn within_prefixes_the_path_and_keeps_the_code() {
        let unknown = Error::UnknownKind {
            kind: "image".into(),
            field: "kind".into(),
        }
        .within("[0]")
        .within("attachments");
        assert_eq!(
            (unknown.code(), unknown.field()),
            ("UNKNOWN_KIND", Some("attachments[0].kind"))
        );
        let whole = Error::invalid("", "must be an object").within("attachments");
        assert_eq!(whole.field(), Some("attachments"), "no dangling dot");
        let quota = Error::from_dom("QuotaExceededError", "", Cause::NONE).within("x");
        assert_eq!(quota.field(), None, "storage errors have no field");
    }

    #[test]
    fn any_key_makes_an_unambiguous_path() {
        use super::key_path;
        let paths = [
            key_path("meta", "plain_$1"),
            key_path("meta", "a.b"),
            key_path("meta", "a[0]"),
            key_path("meta", ""),
            key_path("meta", "1st"),
            key_path("meta", "x-api-key"),
            key_path("meta", "`"),
            key_path("", "é"),
            key_path("", "top"),
        ];
        assert_eq!(
            paths,
            [
                "meta.plain_$1",
                r#"meta["a.b"]"#,
                r#"meta["a[0]"]"#,
                r#"meta[""]"#,
                r#"meta["1st"]"#,
                r#"meta["x-api-key"]"#,
                r#"meta["`"]"#,
                r#"["é"]"#,
                "top",
            ]
        );
        // A value checked with its key as root, found in `state`.
        let under = |field: &str, key: &str| {
            Error::value(field, "r")
                .under_key("state", key)
                .field()
                .map(str::to_owned)
        };
        assert_eq!(under("a/b.x", "a/b").as_deref(), Some(r#"state["a/b"].x"#));
        assert_eq!(under("k[0]", "k").as_deref(), Some("state.k[0]"));
        assert_eq!(under("k", "k").as_deref(), Some("state.k"));
        assert_eq!(
            under("kb.x", "k").as_deref(),
            Some("state.kb.x"),
            "not its key"
        );
        // Under a list's item, as `within` joins it.
        assert_eq!(
            Error::invalid(key_path("", ""), "x")
                .within("attachments[2]")
                .field(),
            Some(r#"attachments[2][""]"#)
        );
    }

    #[test]
    fn the_codes_are_the_declarations_union_and_each_error_gives_one() {
        let types = include_str!("js/types.rs");
        let union = types
            .split("export type AttacheErrorCode =")
            .nth(1)
            .and_then(|rest| rest.split(';').next())
            .expect("the declarations name AttacheErrorCode");
        let declared: Vec<&str> = union
            .split('|')
            .map(|c| c.trim().trim_matches('"'))
            .filter(|c| !c.is_empty())
            .collect();
        assert_eq!(declared, super::CODES);
        // code() indexes the list: every variant at its own place in it.
        let s = String::new;
        let errors = [
            (
                Error::UnknownKind {
                    kind: s(),
                    field: s(),
                },
                "UNKNOWN_KIND",
            ),
            (
                Error::InvalidSpec {
                    field: s(),
                    reason: s(),
                },
                "INVALID_SPEC",
            ),
            (
                Error::InvalidId {
                    id: s(),
                    field: s(),
                },
                "INVALID_ID",
            ),
            (
                Error::Credential {
                    path: s(),
                    kind: s(),
                },
                "CREDENTIAL",
            ),
            (Error::NotFound { session_id: s() }, "NOT_FOUND"),
            (Error::AlreadyExists { session_id: s() }, "ALREADY_EXISTS"),
            (Error::Conflict { reason: s() }, "CONFLICT"),
            (
                Error::from_dom("QuotaExceededError", "", Cause::NONE),
                "QUOTA",
            ),
            (
                Error::from_dom("UnknownError", "connection lost", Cause::NONE),
                "CONNECTION_LOST",
            ),
            (Error::argument("id", "is required"), "INVALID_ARGUMENT"),
            (Error::value("v", "bad"), "INVALID_VALUE"),
            (Error::from_dom("VersionError", "", Cause::NONE), "VERSION"),
            (Error::from_dom("AbortError", "", Cause::NONE), "ABORTED"),
            (
                Error::from_dom("SecurityError", "", Cause::NONE),
                "UNAVAILABLE",
            ),
            (
                Error::Busy {
                    class: "AttachmentStore",
                },
                "BUSY",
            ),
            (Error::Freed { class: "x".into() }, "FREED"),
        ];
        // INVALID_THIS is guard.js's alone: no Rust call sees a wrong `this`.
        assert_eq!(errors.len() + 1, super::CODES.len());
        assert_eq!(super::CODES[15], "INVALID_THIS");
        for (error, code) in errors {
            assert_eq!(error.code(), code);
        }
    }

    #[test]
    fn dom_exceptions_map_to_codes_that_keep_the_dom_name() {
        let quota = Error::from_dom("QuotaExceededError", "full", Cause::NONE);
        assert_eq!(
            (quota.code(), quota.dom_name()),
            ("QUOTA", Some("QuotaExceededError"))
        );
        assert_eq!(
            Error::from_dom("VersionError", "newer", Cause::NONE).code(),
            "VERSION"
        );
        let constraint = Error::from_dom("ConstraintError", "key exists", Cause::NONE);
        assert_eq!(
            (constraint.code(), constraint.dom_name()),
            ("ABORTED", Some("ConstraintError"))
        );
        let denied = Error::from_dom("SecurityError", "denied", Cause::NONE);
        assert_eq!(
            (denied.code(), denied.dom_name()),
            ("UNAVAILABLE", Some("SecurityError"))
        );
        // Chromium where the site's cookies are blocked: not a lost
        // connection, which a reload would mend.
        let message = "The user denied permission to access the database.";
        let chromium = Error::from_dom("UnknownError", message, Cause::NONE);
        assert_eq!(
            (chromium.code(), chromium.dom_name()),
            ("UNAVAILABLE", Some("UnknownError"))
        );
        assert_eq!(chromium.lost().code(), "UNAVAILABLE");
        let unknown = Error::from_dom("UnknownError", "Internal error.", Cause::NONE);
        assert_eq!(unknown.code(), "ABORTED");
        // Chromium's storage engine failing a file (on Windows, often for a
        // moment): the connection is lost, and the call may be retried.
        let message = "Connection is closing because of: IO error: FILE_ERROR_ACCESS_DENIED";
        let closing = Error::from_dom("UnknownError", message, Cause::NONE);
        assert_eq!(closing.code(), "CONNECTION_LOST");
    }

    #[test]
    fn a_refused_credential_or_a_missing_indexeddb_says_what_to_do() {
        let kind = "OpenAI API key".to_owned();
        let credential = Error::Credential {
            path: "v".into(),
            kind,
        }
        .to_string();
        assert!(credential.contains("redactCredentials()"), "{credential}");
        assert!(
            credential.contains("credentials: \"redact\""),
            "{credential}"
        );
        let unavailable = Error::from_dom("SecurityError", "", Cause::NONE).to_string();
        assert!(unavailable.contains("MemorySessionStore"), "{unavailable}");
    }

    #[test]
    fn closed_and_lost_connections_are_connection_lost() {
        let webkit = Error::from_dom(
            "UnknownError",
            "Connection to Indexed Database server lost. Refresh the page to try again",
            Cause::NONE,
        );
        assert_eq!(webkit.code(), "CONNECTION_LOST", "WebKit's wording");
        let closed = Error::from_dom(
            "InvalidStateError",
            "The database connection is closing.",
            Cause::NONE,
        );
        assert_eq!(
            closed.code(),
            "CONNECTION_LOST",
            "Chromium's wording after close()"
        );
        // Chromium, with site data cleared mid-call: a transaction it
        // aborts, and the reopen's failure.
        for (name, message) in [
            ("AbortError", "The connection was closed."),
            (
                "UnknownError",
                "Connection is closing because of: Force close delete origin",
            ),
        ] {
            let error = Error::from_dom(name, message, Cause::NONE);
            assert_eq!(error.code(), "CONNECTION_LOST", "{name}: {message}");
        }
        assert_eq!(
            Error::from_dom("UnknownError", "disk I/O", Cause::NONE).code(),
            "ABORTED",
            "other unknowns abort"
        );
        let aborted = "The transaction was aborted, so the request cannot be fulfilled.";
        assert_eq!(
            Error::from_dom("AbortError", aborted, Cause::NONE).code(),
            "ABORTED",
            "a plain abort is no lost connection"
        );
        // Chromium says so of any abort's torn-down tasks: plan.rs asks
        // the connection whether it was lost.
        assert_eq!(
            Error::from_dom("InvalidStateError", "Backend aborted error", Cause::NONE).code(),
            "ABORTED"
        );
    }

    #[test]
    fn a_path_past_1000_units_is_its_first_1000_and_never_half_a_character() {
        let long = super::key_path("k", &"x".repeat(2000));
        assert_eq!(long, format!("k.{}…", "x".repeat(998)));
        // Quoted, two units a character: the cut falls between pairs.
        let emoji = super::key_path("k", &format!("a{}", "😀".repeat(600)));
        assert_eq!(emoji, format!("k[\"a{}…", "😀".repeat(498)));
        // Under it, each item's path is as short: the full path's cut.
        let item = super::join(&long, "[3999999]");
        assert_eq!(item, long);
        assert_eq!(super::key_path(&item, "b"), long);
        // Where a pair stopped the cut at 999 units, one `…` still.
        let odd = super::key_path("k[", &"😀".repeat(600));
        assert_eq!(super::join(&odd, "[0]"), odd);
        // A state value's path under a key the walk cut is the key's own.
        let key = format!("a.b{}", "x".repeat(1200));
        // (The walk's root is the key as given; a child's path cuts it.)
        let cut =
            super::Error::value(&super::key_path(&key, "child"), "r").under_key("state", &key);
        assert_eq!(cut.field(), Some(super::key_path("state", &key).as_str()));
        assert!(cut.field().unwrap().starts_with("state[\"a.b"));
        let short = super::key_path("k", &"x".repeat(998));
        assert_eq!(short.encode_utf16().count(), 1000, "at the limit, whole");
    }
}
