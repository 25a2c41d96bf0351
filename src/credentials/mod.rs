//! Credentials are never attached or stored. This finds them: a string
//! shaped like a key, token, credential line or password URL anywhere
//! inside a value, JSON text included; a field named like a credential
//! holding text (a string, a list of them, `{ value }`), or a named pair
//! (`{ name: "DB_PASSWORD", value }`); or a secret the host registered. What is not caught is in the
//! README (a key in base64, a key split in two).

#[doc(hidden)]
pub mod examples;
mod patterns;

use std::cell::RefCell;

use crate::json::Value;
use crate::Error;

mod redact;

pub use patterns::{locate, scan, Hit};
pub use redact::{
    redact_field, redact_state, redact_text, redact_value, redactions_value, Redaction,
};

thread_local! {
    /// Exact strings the host holds (the page's API key, say).
    static HOST_SECRETS: RefCell<Vec<String>> = const { RefCell::new(Vec::new()) };
    /// Moves when a secret is registered, so what was checked before can
    /// be checked again.
    static GENERATION: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
    /// How many times a registered secret was looked for: what a test of
    /// the scan's cost counts, as no test times it.
    #[cfg(test)]
    pub(crate) static SECRET_SCANS: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
    /// Bytes `scrub` handed the detectors, for the same reason.
    #[cfg(test)]
    static SCRUBBED: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
    /// Spans `scrub` compared, passed over and moved to join its hits.
    #[cfg(test)]
    static JOIN_STEPS: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// Moves with each new form of a secret registered (its JSON-escaped form
/// too): only a change matters, to what checked against the old list.
pub fn host_secrets_generation() -> u64 {
    GENERATION.with(std::cell::Cell::get)
}

/// Refuses `text` if it holds a registered secret, at `path`.
pub fn check_host_secrets(path: &str, text: &str) -> Result<(), Error> {
    match host_secret(text, 0) {
        Some(hit) => Err(refused(path, hit.kind)),
        None => Ok(()),
    }
}

/// Refuses `value` at `path` if a string or key anywhere in it holds a
/// registered secret. Free when none is registered.
pub fn check_host_secrets_in(path: &str, value: &Value) -> Result<(), Error> {
    fn walk(path: &str, value: &Value) -> Result<(), Error> {
        match value {
            Value::String(text) => check_host_secrets(path, text),
            // A secret of digits (an account number) as a JSON number.
            Value::Number(n) => check_host_secrets(path, n.as_str()),
            Value::Array(items) => items.iter().try_for_each(|item| walk(path, item)),
            Value::Object(fields) => fields.iter().try_for_each(|(key, field)| {
                check_host_secrets(path, key)?;
                walk(path, field)
            }),
            _ => Ok(()),
        }
    }
    match any_host_secrets() {
        true => walk(path, value),
        false => Ok(()),
    }
}

/// Whether the host registered any secret.
pub fn any_host_secrets() -> bool {
    HOST_SECRETS.with(|s| !s.borrow().is_empty())
}

/// The shortest secret a host may register: shorter ones would match
/// ordinary text.
pub const MIN_HOST_SECRET: usize = 8;

/// Registers a string to refuse wherever it appears.
pub fn register_host_secret(secret: &str) -> Result<(), Error> {
    if secret.trim().len() < MIN_HOST_SECRET {
        return Err(Error::argument(
            "secret",
            "must be at least 8 bytes of UTF-8",
        ));
    }
    let secret = secret.trim();
    // As JSON text holds it too (tool arguments kept as a string): a `"`,
    // `\` or tab in a password is escaped there.
    let quoted = crate::json::quote(secret);
    // crate::text's slicing: str's own costs kilobytes of wasm.
    let escaped = crate::text::part(&quoted, 1, quoted.len() - 1);
    HOST_SECRETS.with(|secrets| {
        let mut secrets = secrets.borrow_mut();
        for form in [secret, escaped] {
            if !secrets.iter().any(|s| s == form) {
                secrets.push(form.to_owned());
                GENERATION.with(|g| g.set(g.get() + 1));
            }
        }
    });
    Ok(())
}

/// Text about a value (an error's message or field path) with every
/// credential in it replaced by its marker. Shape checks run before the
/// guard in some routes, and an error names what it refused: a key, a
/// kind. An error must never echo a secret, not even a part of it.
pub fn scrub(text: &str) -> String {
    let text = &cut_partials(text);
    // A path goes on after a key with `.` or `[`, which the key's own run
    // may take in (a SendGrid key holds dots, a password's value followed
    // by `.label` reads as code): so each that ends a segment long enough
    // to end a credential (8 bytes, the shortest value the guard takes) is
    // tried as the text's end too, over at most WINDOW bytes before it: a
    // value the guard measures (512 bytes at most) with its name. The
    // whole text each time made a 32 KB dotted error take 20 s.
    const WINDOW: usize = 1024;
    const SEGMENT: usize = 8;
    // Each try's spans are taken against the text itself and joined where
    // they overlap: replaced as found, a header's later segments were left
    // without its name for the tries after (a signed cookie's signature).
    // Kept in text order, each span under the kind of its first in text
    // order (first found on a tie): a search of every span for each one's
    // next took 504 ms for a 123 KB error, each key found by many tries.
    let mut joined: Vec<Hit> = Vec::new();
    let (mut at, mut segment) = (0, 0);
    loop {
        // The text's end is the last try, over the whole text.
        let b = text.as_bytes().get(at).copied();
        let separator = matches!(b, Some(b'.' | b'['));
        if b.is_none() || (separator && segment >= SEGMENT) {
            let mut from = if b.is_none() {
                0
            } else {
                at.saturating_sub(WINDOW)
            };
            // From a boundary where one is near the window's start (a
            // key's middle would read as a key's start), keeping at least
            // three quarters: a long run may be glued to a key's name.
            if from > 0 {
                let key_byte = |b: &u8| {
                    b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'+' | b'/' | b'=')
                };
                match text.as_bytes()[from..at].iter().position(|b| !key_byte(b)) {
                    Some(p) if p < WINDOW / 4 => from += p + 1,
                    _ => {}
                }
            }
            while !text.is_char_boundary(from) {
                from += 1;
            }
            let part = crate::text::part(text, from, at);
            #[cfg(test)]
            SCRUBBED.with(|n| n.set(n.get() + part.len()));
            let Ok(found) = redact::spans("", part) else {
                return "[REDACTED]".to_owned();
            };
            for hit in found {
                let mut hit = Hit {
                    start: from + hit.start,
                    end: from + hit.end,
                    ..hit
                };
                // Those it overlaps are `i..j`.
                let i = joined.partition_point(|s| {
                    #[cfg(test)]
                    JOIN_STEPS.with(|n| n.set(n.get() + 1));
                    s.end <= hit.start
                });
                let j = i + joined[i..].iter().take_while(|s| s.start < hit.end).count();
                // What is moved counts too: the last try, over the whole
                // text, finds every span again, each already there.
                #[cfg(test)]
                let moved = if i < j {
                    (j > i + 1) as usize * (joined.len() - j)
                } else {
                    joined.len() - i
                };
                #[cfg(test)]
                JOIN_STEPS.with(|n| n.set(n.get() + (j - i) + moved));
                if i < j {
                    if joined[i].start <= hit.start {
                        hit.start = joined[i].start;
                        hit.kind = joined[i].kind;
                    }
                    hit.end = hit.end.max(joined[j - 1].end);
                    joined[i] = hit;
                    if j > i + 1 {
                        joined.copy_within(j.., i + 1);
                        joined.truncate(joined.len() + i + 1 - j);
                    }
                } else {
                    joined.insert(i, hit);
                }
            }
        }
        if b.is_none() {
            break;
        }
        segment = if separator { 0 } else { segment + 1 };
        at += 1;
    }
    redact::replaced(text, &joined)
}

/// `text` with what ends just before each `…` (where a long path or quote
/// was cut) replaced by a marker if it may start a credential: cut, it
/// matches none whole. A registered secret's first 4 bytes or more, or a
/// word holding what could be key material: 6 letters and digits, with a
/// digit or a capital.
fn cut_partials(text: &str) -> String {
    let mut spans = Vec::new();
    let mut from = 0;
    while let Some(at) = crate::text::find(crate::text::tail(text, from), "…") {
        let (before, end) = (crate::text::part(text, from, from + at), from + at);
        let mut secret = usize::MAX;
        for which in 0..host_secret_count() {
            let found = with_host_secret(which, &|s| {
                let mut k = s.len().min(before.len() + 1);
                while k > 4 {
                    k -= 1;
                    if s.is_char_boundary(k) && before.ends_with(crate::text::part(s, 0, k)) {
                        return Some((end - k, end));
                    }
                }
                None
            });
            secret = secret.min(found.map_or(usize::MAX, |(start, _)| start));
        }
        // The word the cut ends, back to a space, quote or bracket.
        let (mut start, mut run, mut capital, mut material) = (before.len(), 0, false, false);
        for &b in before.as_bytes().iter().rev().take(512) {
            if matches!(b, b' ' | b'\n' | b'"' | b'\'' | b'`' | b'[' | b']') {
                break;
            }
            start -= 1;
            (run, capital) = match b.is_ascii_alphanumeric() {
                true => (run + 1, capital || !b.is_ascii_lowercase()),
                false => (0, false),
            };
            material |= run >= 6 && capital;
        }
        while !before.is_char_boundary(start) {
            start += 1;
        }
        let shape = if material { from + start } else { usize::MAX };
        if secret.min(shape) < end {
            let kind = if secret < end { "host_secret" } else { "cut" };
            let start = secret.min(shape);
            spans.push(Hit { kind, start, end });
        }
        from = end + '…'.len_utf8();
    }
    redact::replaced(text, &spans)
}

/// Forgets every registered secret.
pub fn clear_host_secrets() {
    HOST_SECRETS.with(|secrets| secrets.borrow_mut().clear());
}

/// The kind of credential in `text`, if any.
pub fn find(text: &str) -> Option<&'static str> {
    first(text).map(|hit| hit.kind)
}

/// How many secrets are registered, escaped forms counted.
fn host_secret_count() -> usize {
    HOST_SECRETS.with(|s| s.borrow().len())
}

/// Where registered secret `which` is first in `text`, at or after `from`.
fn host_secret_from(which: usize, text: &str, from: usize) -> Option<Hit> {
    #[cfg(test)]
    SECRET_SCANS.with(|n| n.set(n.get() + 1));
    let (start, end) = with_host_secret(which, &|s| {
        let at = from + crate::text::find(crate::text::tail(text, from), s)?;
        Some((at, at + s.len()))
    })?;
    Some(Hit {
        kind: "host_secret",
        start,
        end,
    })
}

/// What `read` finds in registered secret `which`: one reader of the
/// thread-local, whose code each caller's closure would copy.
fn with_host_secret(
    which: usize,
    read: &dyn Fn(&str) -> Option<(usize, usize)>,
) -> Option<(usize, usize)> {
    HOST_SECRETS.with(|secrets| secrets.borrow().get(which).and_then(|s| read(s)))
}

/// The first registered secret in `text` at or after byte `from`.
fn host_secret(text: &str, from: usize) -> Option<Hit> {
    // Of two starting together (a secret and its escaped form), the
    // longer: `abcdefgh\` must not leave its escaped `\` behind.
    (0..host_secret_count())
        .filter_map(|which| host_secret_from(which, text, from))
        .min_by_key(|hit| (hit.start, std::cmp::Reverse(hit.end)))
}

/// The credential that starts first in `text`, a host's secret or a shape.
fn first(text: &str) -> Option<Hit> {
    host_secret(text, 0)
        .into_iter()
        .chain(locate(text))
        .min_by_key(|hit| hit.start)
}

/// A field name folded across camelCase, snake_case, kebab-case and
/// ENV_STYLE: `apiKey`, `api_key`, `x-api-key`, `OPENAI_API_KEY` are one
/// family. On the stack: it runs for every name in every value. Longer
/// names than 64 letters are no credential's.
fn fold(name: &str, buffer: &mut [u8; 64]) -> Option<usize> {
    let mut len = 0;
    for b in name.bytes().filter(u8::is_ascii_alphanumeric) {
        *buffer.get_mut(len)? = b.to_ascii_lowercase();
        len += 1;
    }
    Some(len)
}

/// Whether a field of this name holds a credential.
pub fn is_credential_name(name: &str) -> bool {
    credential_name(name).is_some()
}

/// Whether a field of this name holds a credential: `Some(true)` for a
/// password's or a secret's, whose any text is one (`monkey`), and
/// `Some(false)` for a key's, a token's or a header's.
pub(crate) fn credential_name(name: &str) -> Option<bool> {
    let mut buffer = [0; 64];
    let len = fold(name, &mut buffer)?;
    // Only ASCII letters and digits were kept. A numbered credential
    // (`API_KEY_2`, `password1`) is one.
    let name = std::str::from_utf8(&buffer[..len])
        .unwrap_or_default()
        .trim_end_matches(|c: char| c.is_ascii_digit());
    // Not `token` alone: a streaming frame's token is text.
    const EXACT: &[&str] = &["cookie", "setcookie"];
    // A secret's name ends in its word, or in the word and what holds its
    // text (`secretKey`, `passwordConfirmation`): `passwordPolicy`,
    // `secretName` and `secretary` hold none.
    const WORDS: &[&str] = &["password", "passwd", "passphrase", "secret"];
    const HOLDERS: &[&str] = &[
        "",
        "key",
        "keybase",
        "accesskey",
        "value",
        "string",
        "text",
        "b64",
        "base64",
        "confirm",
        "confirmation",
        "plain",
        "plaintext",
    ];
    const TOKEN_OWNERS: &[&str] = &[
        "auth",
        "access",
        "refresh",
        "id",
        "bearer",
        "api",
        "session",
        "secret",
        "bot",
        "github",
        "gitlab",
        "slack",
        "npm",
        "hf",
        "huggingface",
        "personalaccess",
        "oauth",
        "xauth",
        "private",
        "csrf",
        "xsrf",
        "password",
        "reset",
    ];
    let worded = |holder: &&str| {
        name.strip_suffix(holder)
            .is_some_and(|rest| WORDS.iter().any(|w| rest.ends_with(w)))
    };
    let password = HOLDERS.iter().any(worded);
    let other = EXACT.contains(&name)
        || name.ends_with("authorization")
        || name.ends_with("apikey")
        || name.ends_with("privatekey")
        || name.strip_suffix("token").is_some_and(|owner| {
            // `invalidToken` is an OAuth error, no id token.
            let invalid = owner.ends_with("invalid");
            TOKEN_OWNERS
                .iter()
                .any(|o| owner == *o || owner.ends_with(o) && !(invalid && *o == "id"))
        });
    (password || other).then_some(password)
}

/// A state, not a key: a word an approval's `authorization`, a consent
/// `cookie` or an unset `api_key` holds. No key, token or header value is
/// one; a password may be (`secret: "none"`), and a word not listed may be
/// a key (`supersecret`).
pub(crate) fn says_state(text: &[u8]) -> bool {
    const STATES: &[u8] =
        b"none|null|undefined|unknown|n/a|pending|approved|accepted|denied|rejected|\
        granted|revoked|expired|required|optional|missing|unset|enabled|disabled|yes|no|true|false";
    one_of(text, STATES)
}

/// Whether `word` is one of `list`'s `|`-separated words, in any case. One
/// string, not a list, and one copy: a table of slices costs more wasm.
#[inline(never)]
pub(crate) fn one_of(word: &[u8], list: &[u8]) -> bool {
    list.split(|&b| b == b'|')
        .any(|w| word.eq_ignore_ascii_case(w))
}

fn refused(path: &str, kind: &'static str) -> Error {
    Error::Credential {
        path: path.to_owned(),
        kind: kind.to_owned(),
    }
}

/// Checks a string that enters attache (an id, a title, a key).
pub fn check_text(path: &str, text: &str) -> Result<(), Error> {
    match find(text) {
        Some(kind) => Err(refused(path, kind)),
        None => Ok(()),
    }
}

/// Walks a value: every string, every key, and every field named like a
/// credential. With `path` empty, an object's fields are named by
/// themselves.
pub fn check_value(path: &str, value: &Value) -> Result<(), Error> {
    walk(path, value)
}

/// A session-state value under `key`, checked as the field `key` of an
/// object is: an export holds it so, and an import must take it back.
pub fn check_field(key: &str, value: &Value) -> Result<(), Error> {
    if named_credential(key, value) {
        return Err(refused(key, "credential_field"));
    }
    check_value(key, value)
}

/// A key holding a secret is refused in either mode, reported at its
/// object's path (the root's is empty, for the caller to name): a path
/// with the key in it would echo the secret. A key names a field, so it is
/// never rewritten. Returns the field's path.
fn field_path(path: &str, key: &str) -> Result<String, Error> {
    check_text(path, key)?;
    Ok(crate::error::key_path(path, key))
}

/// Whether a field holds a credential by its name alone.
fn named_credential(key: &str, field: &Value) -> bool {
    credential_name(key).is_some_and(|password| {
        holds_text(field) && (password || !field.as_str().is_some_and(|s| says_state(s.as_bytes())))
    })
}

/// Whether a credential-named field holds text: a non-empty string, a list
/// holding one (Node's `set-cookie` headers), or an object whose `value`
/// does (`{ value: "…" }`). A JSON Schema's property (`{ type: "string" }`)
/// holds none, nor does a list of sentences: an API's validation errors are
/// `{ password: ["must be at least 8 characters."] }`.
fn holds_text(field: &Value) -> bool {
    match field {
        Value::String(s) => {
            let s = s.as_bytes();
            !s.is_empty() && !patterns::stands_in(s)
        }
        Value::Array(items) => items.iter().any(|item| {
            let sentence = item
                .as_str()
                .is_some_and(|s| s.contains(' ') && !s.contains('='));
            !sentence && holds_text(item)
        }),
        Value::Object(fields) => fields.get("value").is_some_and(holds_text),
        _ => false,
    }
}

/// Whether an object is a named pair whose `value` is a credential: an
/// env list's `{ name: "DB_PASSWORD", value }`, a HAR header's
/// `{ name: "Authorization", value }`, a form field's
/// `{ type: "password", value }`.
fn named_pair(fields: &crate::json::Map) -> bool {
    // `value` first: it runs for every object, and most have none.
    fields.get("value").is_some_and(|value| {
        ["name", "key", "type"].iter().any(|k| {
            fields
                .get(k)
                .and_then(Value::as_str)
                .is_some_and(|name| named_credential(name, value))
        })
    })
}

/// The credential's span in a list's item `i` when the item before it
/// names a credential header: `["Authorization", "Basic …"]`, as fetch's
/// header lists and `Headers`' entries hold them, or Node's flat
/// `rawHeaders`.
fn header_entry(items: &[Value], i: usize) -> Option<Hit> {
    match (items.get(i.checked_sub(1)?)?, items.get(i)?) {
        (Value::String(name), Value::String(value)) => patterns::header_pair(name, value),
        _ => None,
    }
}

/// Whether a list's item is a `[name, value]` pair naming a credential
/// holding text, as `Object.entries(env)`, `[...formData]`,
/// `[...url.searchParams]` and `[...headers]` give them: read as an
/// object's field. A name holds no space (a FAQ's `["How do I reset my
/// password?", …]` is prose). A header's line is read by its own rule
/// first, and a cookie's value is left to it (`["cookie", "accepted"]`
/// is a consent flag).
fn named_entry(item: &Value) -> bool {
    let Value::Array(pair) = item else {
        return false;
    };
    match &pair[..] {
        [Value::String(name), value] => {
            let name = name.trim();
            header_entry(pair, 1).is_none()
                && !name.bytes().any(|b| b.is_ascii_whitespace())
                && !["cookie", "set-cookie"]
                    .iter()
                    .any(|c| c.eq_ignore_ascii_case(name))
                && named_credential(name, value)
        }
        _ => false,
    }
}

fn walk(path: &str, value: &Value) -> Result<(), Error> {
    match value {
        Value::Object(fields) => {
            if named_pair(fields) {
                return Err(refused(&field_path(path, "value")?, "credential_field"));
            }
            for (key, field) in fields {
                let at = field_path(path, key)?;
                if named_credential(key, field) {
                    return Err(refused(&at, "credential_field"));
                }
                walk(&at, field)?;
            }
            Ok(())
        }
        Value::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                if let Some(hit) = header_entry(items, i) {
                    return Err(refused(&format!("{path}[{i}]"), hit.kind));
                }
                if named_entry(item) {
                    return Err(refused(&format!("{path}[{i}][1]"), "credential_field"));
                }
                walk(&format!("{path}[{i}]"), item)?;
            }
            Ok(())
        }
        Value::String(text) => check_text(path, text),
        // A secret of digits (an account number) as a JSON number.
        Value::Number(n) => check_host_secrets(path, n.as_str()),
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests;
