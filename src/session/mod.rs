//! Session stores: what a browser agent must remember across reloads.
//! The trait is the one behaviour both backends share; `checks` holds the
//! validation both run before touching storage.

pub mod call;
pub mod checks;
pub mod export;
mod memory;

pub use memory::MemorySessionStore;

use crate::json;
use crate::json::{Map, Value};

use crate::attachment::AttachmentStore;
use crate::error::key_path;
use crate::Error;

/// Session-state key of the target's introspection tree.
pub const SNAPSHOT_KEY: &str = "snapshot";
/// Session-state key of the REPL's `{env?, history?}`.
pub const REPL_STATE_KEY: &str = "repl_state";
/// The last millisecond a JS Date holds, and why a time past it is refused.
pub const MAX_TIME: f64 = 8.64e15;
pub const TIME_RANGE: &str = "must be whole milliseconds from 0 to 8.64e15";

/// Session-state key of the pinned attachments' specs, in pin order.
pub const ATTACHMENTS_KEY: &str = "attachments";
/// Session-state key of the specs `checkPrefix` last compared against, so
/// the first check after a reload compares with the last one before it.
pub const PREFIX_BASELINE_KEY: &str = "prefix_baseline";

#[derive(Debug, Clone, PartialEq)]
pub struct SessionInfo {
    pub id: String,
    pub title: String,
    /// Milliseconds since the Unix epoch.
    pub created_at: f64,
    /// The last write's time, never moved back.
    pub updated_at: f64,
    pub meta: Map,
}

#[derive(Debug, Clone, Default, PartialEq)]
pub struct NewSession {
    pub id: Option<String>,
    pub title: Option<String>,
    pub meta: Option<Map>,
}

impl SessionInfo {
    /// `{id, title, createdAt, updatedAt, meta}`: as stored and as hosts
    /// see it. Times are whole milliseconds, as `Date.now()` gives them.
    pub fn to_value(&self) -> Value {
        json!({
            "id": self.id,
            "title": self.title,
            "createdAt": (self.created_at as i64),
            "updatedAt": (self.updated_at as i64),
            "meta": self.meta,
        })
    }

    /// A stored session record, or the field that is wrong and why.
    pub fn from_value(value: &Value) -> Result<Self, (&'static str, &'static str)> {
        let text = |name: &'static str| value[name].as_str().ok_or((name, "must be a string"));
        // Not bounded here: a record stored before imports capped times
        // still lists. An import checks the bound.
        // as_u64 reads `N.0` too: builds of 29-30 November stored times so.
        let time = |name: &'static str| match value[name].as_u64() {
            Some(ms) => Ok(ms as f64),
            None => Err((name, TIME_RANGE)),
        };
        Ok(Self {
            id: text("id")?.to_owned(),
            title: text("title")?.to_owned(),
            created_at: time("createdAt")?,
            updated_at: time("updatedAt")?,
            meta: (value["meta"]
                .as_object()
                .ok_or(("meta", "must be an object"))?)
            .clone(),
        })
    }
}

impl NewSession {
    /// `{id?, title?, meta?}`; anything else is refused with its path.
    pub fn from_value(value: &Value) -> Result<Self, Error> {
        let wrong = |field: &str, reason: &str| Error::InvalidValue {
            path: format!("options.{field}"),
            reason: reason.to_owned(),
        };
        let fields = value
            .as_object()
            .ok_or_else(|| Error::argument("options", "must be an object"))?;
        // Before an unknown key can become part of a path.
        checks::no_credentials("options", value)?;
        let mut new = NewSession::default();
        for (key, field) in fields {
            let string = || match field {
                Value::String(text) => Ok(text.clone()),
                _ => Err(wrong(key, "must be a string")),
            };
            match key.as_str() {
                // An id, as every id argument: INVALID_ARGUMENT.
                "id" => match field {
                    Value::String(id) => new.id = Some(id.clone()),
                    _ => return Err(Error::argument("options.id", "must be a string")),
                },
                "title" => new.title = Some(string()?),
                "meta" => {
                    let meta = field
                        .as_object()
                        .ok_or_else(|| wrong(key, "must be an object"))?;
                    new.meta = Some(meta.clone());
                }
                // As every other method's options: the key is at fault,
                // not a value.
                _ => {
                    let field = key_path("options", key);
                    return Err(Error::argument(&field, "is not a known option"));
                }
            }
        }
        Ok(new)
    }
}

/// What `update_session` changes: the title, the meta, or both.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SessionUpdate {
    pub title: Option<String>,
    pub meta: Option<Map>,
}

impl SessionUpdate {
    /// `{title?, meta?}`; an id cannot change.
    pub fn from_value(value: &Value) -> Result<Self, Error> {
        let new = NewSession::from_value(value)?;
        if new.id.is_some() {
            return Err(Error::argument(
                "options.id",
                "cannot change; export and import the session under a new id",
            ));
        }
        Ok(SessionUpdate {
            title: new.title,
            meta: new.meta,
        })
    }

    pub fn apply(self, info: &mut SessionInfo, now: f64) -> Result<(), Error> {
        if let Some(meta) = &self.meta {
            let meta = Value::Object(meta.clone());
            checks::no_credentials("options.meta", &meta)?;
            checks::nesting("options.meta", &meta)?;
        }
        if let Some(title) = &self.title {
            crate::credentials::check_text("options.title", title)?;
        }
        info.title = self
            .title
            .unwrap_or_else(|| std::mem::take(&mut info.title));
        info.meta = self.meta.unwrap_or_else(|| std::mem::take(&mut info.meta));
        info.updated_at = info.updated_at.max(now);
        Ok(())
    }
}

/// A window of a session's messages: the last `limit` before position
/// `before`. Positions count from 0 in append order; a message keeps its
/// position until one at or before it is replaced, popped or cleared.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Page {
    pub limit: Option<usize>,
    pub before: Option<usize>,
}

impl Page {
    pub fn range(&self, count: usize) -> std::ops::Range<usize> {
        let end = self.before.map_or(count, |before| before.min(count));
        let start = self.limit.map_or(0, |limit| end.saturating_sub(limit));
        start..end
    }

    pub fn is_all(&self) -> bool {
        self.limit.is_none() && self.before.is_none()
    }
}

/// Which state keys a listing returns: those starting with `prefix` and
/// below `before`, ascending (or descending with `reverse`), at most
/// `limit`. Keys compare as IndexedDB compares them, by UTF-16 code units,
/// on both backends.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct KeyRange {
    pub prefix: Option<String>,
    pub before: Option<String>,
    pub limit: Option<usize>,
    pub reverse: bool,
}

/// Where a scan of a session's keys in order, from the range's prefix,
/// can stop (exclusive).
#[derive(Debug, PartialEq)]
pub enum Upper<'a> {
    /// Below this key: `before`, when it is tighter than the prefix.
    Before(&'a str),
    /// Below this prefix with its last UTF-16 unit raised by one: every key
    /// that extends it, and nothing else.
    Past(&'a str),
    /// The session's last key.
    End,
}

/// A scan that serves a [`KeyRange`] from an ordered index.
#[derive(Debug, PartialEq)]
pub struct Scan<'a> {
    pub upper: Upper<'a>,
    /// Keys to read from the scan's start (or, with `reverse`, its end):
    /// the limit, when every key scanned is one the range selects.
    pub count: Option<usize>,
}

impl KeyRange {
    /// The scan that finds this range's keys, so a store reads only those;
    /// `None` when no key can match.
    pub fn scan(&self) -> Option<Scan<'_>> {
        if self.limit == Some(0) {
            return None;
        }
        let prefix = self.prefix.as_deref().unwrap_or_default();
        let ends_below_max = prefix.encode_utf16().last().is_some_and(|u| u < u16::MAX);
        let below_past = |b: &str| {
            let mut past: Vec<u16> = prefix.encode_utf16().collect();
            if let Some(last) = past.last_mut() {
                *last += 1;
            }
            b.encode_utf16().lt(past)
        };
        let upper = match self.before.as_deref() {
            Some(b) if b.encode_utf16().le(prefix.encode_utf16()) => return None,
            Some(b) if !ends_below_max || below_past(b) => Upper::Before(b),
            _ if ends_below_max => Upper::Past(prefix),
            _ => Upper::End,
        };
        // A scan from a prefix ending in U+FFFF also meets keys that do not
        // extend it, so the limit is applied after reading.
        let exact = prefix.is_empty() || ends_below_max;
        let count = self.limit.filter(|_| exact);
        Some(Scan { upper, count })
    }

    /// Whether it selects `key`, whatever the limit.
    fn holds(&self, key: &str) -> bool {
        key.starts_with(self.prefix.as_deref().unwrap_or_default())
            && self
                .before
                .as_deref()
                .is_none_or(|b| crate::text::utf16_cmp(key, b).is_lt())
    }

    /// The keys it selects, from a session's keys in any order.
    pub fn select(&self, mut keys: Vec<String>) -> Vec<String> {
        keys.retain(|k| self.holds(k));
        // Each backend hands its keys in this order already, so an
        // insertion sort is linear here, and far smaller in the wasm than
        // the library's sorts.
        let lt = |a: &String, b: &String| crate::text::utf16_cmp(a, b).is_lt();
        for i in 1..keys.len() {
            let mut j = i;
            while j > 0 && lt(&keys[j], &keys[j - 1]) {
                keys.swap(j, j - 1);
                j -= 1;
            }
        }
        if self.reverse {
            keys.reverse();
        }
        keys.truncate(self.limit.unwrap_or(usize::MAX));
        keys
    }
}

/// One request's frames, counted: `{requestId, frames, firstAt, lastAt}`.
#[derive(Debug, Clone, PartialEq)]
pub struct RequestSummary {
    pub request_id: String,
    pub frames: u64,
    pub first_at: f64,
    pub last_at: f64,
}

impl RequestSummary {
    pub fn to_value(&self) -> Value {
        json!({
            "requestId": self.request_id,
            "frames": self.frames,
            "firstAt": (self.first_at as i64),
            "lastAt": (self.last_at as i64),
        })
    }

    /// Adds a batch of `frames` appended at `at` to the summaries, in
    /// first-append order.
    pub(crate) fn add(
        list: &mut ByRequest<RequestSummary>,
        request_id: &str,
        frames: u64,
        at: f64,
    ) {
        let summary = list.entry(request_id, || RequestSummary {
            request_id: request_id.to_owned(),
            frames: 0,
            first_at: at,
            last_at: at,
        });
        summary.frames += frames;
        // Stamped when called, stored when its transaction ran: a batch
        // that waited for a reopened connection lands later.
        summary.first_at = summary.first_at.min(at);
        summary.last_at = summary.last_at.max(at);
    }
}

/// Entries by request id, in first-append order. A request is found by a
/// binary search: a scan per batch was quadratic in request ids (8,000
/// took 350 ms to list).
pub(crate) struct ByRequest<T> {
    pub items: Vec<T>,
    /// Positions in `items`, sorted by request id.
    sorted: Vec<usize>,
    id_of: fn(&T) -> &str,
    /// One entry per run of a request's frames, so an export keeps the
    /// append order across requests; only the last entry can be found.
    runs: bool,
}

impl<T> ByRequest<T> {
    pub fn new(id_of: fn(&T) -> &str, runs: bool) -> Self {
        Self {
            items: Vec::new(),
            sorted: Vec::new(),
            id_of,
            runs,
        }
    }

    /// The request's entry, made by `make`, which must give it `request_id`,
    /// if it has none.
    pub fn entry(&mut self, request_id: &str, make: impl FnOnce() -> T) -> &mut T {
        let (items, id_of) = (&self.items, self.id_of);
        let at = find(
            &mut self.sorted,
            &|i| id_of(&items[i]),
            items.len(),
            request_id,
            self.runs,
        )
        .unwrap_or_else(|| {
            self.items.push(make());
            self.items.len() - 1
        });
        &mut self.items[at]
    }
}

/// A frame group's request id.
pub(crate) fn group_id<T>(group: &(String, T)) -> &str {
    &group.0
}

/// Where `request_id` is among `len` entries (`id_of` each), or `None` for
/// a new one, whose position `len` is then kept in `sorted`. Not generic:
/// one copy for every kind of entry.
#[inline(never)]
fn find<'a>(
    sorted: &mut Vec<usize>,
    id_of: &dyn Fn(usize) -> &'a str,
    len: usize,
    request_id: &str,
    runs: bool,
) -> Option<usize> {
    if runs {
        return len.checked_sub(1).filter(|&i| id_of(i) == request_id);
    }
    match sorted.binary_search_by(|&i| id_of(i).cmp(request_id)) {
        Ok(k) => Some(sorted[k]),
        Err(k) => {
            sorted.insert(k, len);
            None
        }
    }
}

/// Everything one turn wrote, for `commit_turn`: one transaction.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct TurnWrite {
    pub messages: Vec<Value>,
    /// Replace the history from this position on, instead of appending.
    pub replace_from: Option<usize>,
    /// What the caller named `replace_from`, for its errors: `from` for
    /// `replaceMessages`; empty is commitTurn's `replaceFrom`.
    pub replace_option: &'static str,
    /// `(request id, frames)` batches.
    pub frames: Vec<(String, Vec<Value>)>,
    /// `(key, value)` session state; the pins ride here under `attachments`.
    pub state: Vec<(String, Value)>,
    /// Session state written only where its key holds nothing yet: the
    /// first write wins, in the same transaction.
    pub state_if_absent: Vec<(String, Value)>,
    /// `CONFLICT`, and nothing written, unless the history holds this many
    /// messages when the turn commits.
    pub expected_count: Option<usize>,
    /// `CONFLICT`, and nothing written, if any of these keys holds a value:
    /// an operation id recorded once, say.
    pub require_absent: Vec<String>,
    /// Positions in `state` already checked as this turn would check
    /// them: a live store's pins, and their baseline when it is them.
    pub checked: Vec<usize>,
    /// Where in `state` the pins and their baseline are, when given.
    pub pinned_at: Option<usize>,
    /// The host-secret generation they were checked at: a secret
    /// registered since (an IndexedDB write waits its turn) undoes it.
    pub checked_at: u64,
}

impl TurnWrite {
    /// Drops the pins' baseline if it holds a secret registered since they
    /// were handed over (an IndexedDB call is checked a moment later), as
    /// `PinsToSave::of` drops one: no host could detach it, and it would
    /// refuse the turn.
    pub fn drop_stale_baseline(&mut self) {
        if self.checked_at == crate::credentials::host_secrets_generation() {
            return;
        }
        let at = self.pinned_at.map(|p| p + 1);
        if let Some((_, baseline)) = at.and_then(|at| self.state.get_mut(at)) {
            if crate::credentials::check_host_secrets_in("", baseline).is_err() {
                *baseline = Value::Null;
            }
        }
    }

    /// Every check, before any storage is touched.
    pub fn check(&self) -> Result<(), Error> {
        let fresh = self.checked_at == crate::credentials::host_secrets_generation();
        checks::messages(&self.messages)?;
        for (i, (request_id, frames)) in self.frames.iter().enumerate() {
            checks::id_argument(&format!("frames[{i}].requestId"), request_id)?;
            checks::objects(&format!("frames[{i}].frames"), frames, checks::NOT_FRAME)?;
        }
        for key in &self.require_absent {
            checks::id_argument("requireAbsent", key)?;
        }
        for (field, state) in [
            ("state", &self.state),
            ("stateIfAbsent", &self.state_if_absent),
        ] {
            for (at, (key, value)) in state.iter().enumerate() {
                // Named at the object: a blank or secret key is no path.
                checks::id_argument(field, key).map_err(|e| match e {
                    Error::InvalidArgument { field, reason } => Error::InvalidArgument {
                        field,
                        reason: format!("has a key that {reason}"),
                    },
                    other => other,
                })?;
                // The pins' own entries, not a host's of those keys: named
                // as `saveSessionState` names them, as no `state` was given.
                if field == "state" && fresh && self.checked.contains(&at) {
                    continue;
                }
                let pins =
                    field == "state" && self.pinned_at.is_some_and(|p| (p..p + 2).contains(&at));
                checks::state_value(key, value).map_err(|e| {
                    if pins {
                        e
                    } else {
                        e.under_key(field, key)
                    }
                })?;
            }
        }
        // One key in both, or twice as a first write (which one would win
        // differs by backend): after the keys' own checks, so no secret is
        // a path. Sorted: comparing every pair is quadratic, and a turn may
        // carry any number of keys.
        let mut keys = Vec::with_capacity(self.state.len() + self.state_if_absent.len());
        for (key, _) in &self.state {
            keys.push((key.as_str(), 0));
        }
        for (i, (key, _)) in self.state_if_absent.iter().enumerate() {
            keys.push((key.as_str(), i + 1));
        }
        heap_sort(&mut keys, |a, b| a < b);
        // Within one key, state entries (0) come first, then stateIfAbsent
        // positions ascending: an entry clashes with the one before it.
        let mut clash: Option<(usize, &str, &str)> = None;
        // No key is empty (checked above), so the start matches none.
        let mut previous = ("", 0);
        for (key, at) in keys {
            let (before, in_state) = std::mem::replace(&mut previous, (key, at));
            // Twice in state: only a key the pins write can be, as the
            // host's state is one object. One of the two would be lost.
            if before == key && (at > 0 || in_state == 0) && clash.is_none_or(|c| at < c.0) {
                let reason = match (in_state, at) {
                    (0, 0) => "is also written by `attachments`",
                    // The pins' keys may be in state as the pins wrote them.
                    (0, _) if key == ATTACHMENTS_KEY || key == PREFIX_BASELINE_KEY => {
                        "is also in state, or written by `attachments`"
                    }
                    (0, _) => "is also in state",
                    _ => "is given twice",
                };
                clash = Some((at, key, reason));
            }
        }
        match clash {
            Some((0, key, reason)) => Err(Error::value(&key_path("state", key), reason)),
            Some((_, key, reason)) => Err(Error::value(&key_path("stateIfAbsent", key), reason)),
            None => Ok(()),
        }
    }

    /// Replaces the history from `from` on with `messages`, unless it no
    /// longer holds `expected` messages.
    pub fn replacing(from: usize, expected: Option<usize>, messages: Vec<Value>) -> Self {
        TurnWrite {
            messages,
            replace_from: Some(from),
            replace_option: "from",
            expected_count: expected,
            ..TurnWrite::default()
        }
    }

    /// `[{requestId, frames}]`, each checked with its path.
    pub fn frames_from(value: &Value) -> Result<Vec<(String, Vec<Value>)>, Error> {
        let wrong = |path: String, reason: &str| Error::InvalidValue {
            path,
            reason: reason.to_owned(),
        };
        let items = value.as_array().ok_or_else(|| {
            wrong(
                "frames".to_owned(),
                "must be an array of {requestId, frames}",
            )
        })?;
        let mut batches = Vec::new();
        for (i, item) in items.iter().enumerate() {
            let fields = item
                .as_object()
                .filter(|f| f.keys().all(|k| k == "requestId" || k == "frames"));
            let fields = fields
                .ok_or_else(|| wrong(format!("frames[{i}]"), "must be {requestId, frames}"))?;
            let request_id = fields.get("requestId").and_then(Value::as_str);
            // An id, as `check` reads it: INVALID_ARGUMENT (an import's INVALID_VALUE).
            let request_id = request_id.ok_or_else(|| {
                Error::argument(&format!("frames[{i}].requestId"), "must be a string")
            })?;
            let frames = fields.get("frames").and_then(Value::as_array);
            let frames =
                frames.ok_or_else(|| wrong(format!("frames[{i}].frames"), "must be an array"))?;
            batches.push((request_id.to_owned(), frames.clone()));
        }
        Ok(batches)
    }

    /// `{key: value}`, in the order given; moved, not copied, as a
    /// checkpoint can be large.
    pub fn state_from(value: Value, path: &str) -> Result<Vec<(String, Value)>, Error> {
        match value {
            Value::Object(fields) => Ok(fields.into_iter().collect()),
            _ => Err(Error::value(
                path,
                "must be an object of session-state values",
            )),
        }
    }

    /// Whether it adds anything (a replacement may still remove).
    pub fn adds(&self) -> bool {
        !self.messages.is_empty()
            || self.frames.iter().any(|(_, f)| !f.is_empty())
            || !self.state.is_empty()
    }
}

/// `CONFLICT` if a key that must hold nothing holds something.
pub fn check_absent(present: Option<&str>) -> Result<(), Error> {
    match present {
        Some(key) => Err(Error::Conflict {
            reason: format!("session state `{key}` already holds a value"),
        }),
        None => Ok(()),
    }
}

/// Where a turn's messages go in a history of `count`: `CONFLICT` if it no
/// longer has `expected` messages, `INVALID_ARGUMENT` (naming `option`, as
/// the caller called it) if `from` is past its end.
pub fn check_replace(
    count: usize,
    from: Option<usize>,
    expected: Option<usize>,
    option: &'static str,
) -> Result<usize, Error> {
    let from = from.unwrap_or(count);
    if expected.is_some_and(|expected| expected != count) {
        return Err(Error::Conflict {
            reason: format!(
                "the history has {count} messages, not the expected {}",
                expected.unwrap_or(0)
            ),
        });
    }
    if from > count {
        let field = match option {
            "" => "replaceFrom",
            named => named,
        };
        return Err(Error::InvalidArgument {
            field: field.to_owned(),
            reason: format!("is past the history's end ({count} messages)"),
        });
    }
    Ok(from)
}

/// Time and fresh ids come from the host: `Date.now()` and
/// `crypto.randomUUID()` in a browser, a fake in native tests.
pub trait Environment {
    /// Milliseconds since 1970, as the host's clock says.
    fn clock(&self) -> f64;
    fn new_id(&self) -> String;
    /// The clock as a stored time: whole milliseconds (a mocked clock's
    /// fractions would order the stores' sessions apart), from 0 to the
    /// last time a JS `Date` holds. A clock before 1970 or NaN would store
    /// a record that fails to read back.
    fn now(&self) -> f64 {
        self.clock().floor().max(0.0).min(MAX_TIME)
    }
}

/// One behaviour, two backends: [`MemorySessionStore`] and the IndexedDB
/// store. Every write is all-or-nothing; a write to a missing session is
/// `NOT_FOUND` and writes nothing.
#[allow(async_fn_in_trait)]
pub trait SessionStore {
    async fn create_session(&self, new: NewSession) -> Result<SessionInfo, Error>;
    async fn get_session(&self, id: &str) -> Result<Option<SessionInfo>, Error>;
    /// Most recently updated first; ties by id.
    async fn list_sessions(&self) -> Result<Vec<SessionInfo>, Error>;
    /// Removes the session with its state, frames and messages at once.
    async fn delete_session(&self, id: &str) -> Result<bool, Error>;

    async fn save_session_state(
        &self,
        session_id: &str,
        key: &str,
        value: Value,
    ) -> Result<(), Error>;
    async fn load_session_state(&self, session_id: &str, key: &str)
        -> Result<Option<Value>, Error>;
    /// Keys in ascending order.
    async fn list_session_state_keys(&self, session_id: &str) -> Result<Vec<String>, Error> {
        self.list_state_keys(session_id, &KeyRange::default()).await
    }
    /// The keys `range` selects; none for a missing session.
    async fn list_state_keys(
        &self,
        session_id: &str,
        range: &KeyRange,
    ) -> Result<Vec<String>, Error>;
    /// Several values read at once (in one transaction), as a JSON array
    /// with `null` where a key holds nothing.
    async fn load_session_states_json(
        &self,
        session_id: &str,
        keys: &[String],
    ) -> Result<String, Error>;
    async fn delete_session_state(&self, session_id: &str, key: &str) -> Result<bool, Error>;

    /// Appends all frames or none.
    async fn append_activity_frames(
        &self,
        session_id: &str,
        request_id: &str,
        frames: Vec<Value>,
    ) -> Result<(), Error>;
    /// One request's frames, or all of the session's, in append order.
    async fn load_activity_frames(
        &self,
        session_id: &str,
        request_id: Option<&str>,
    ) -> Result<Vec<Value>, Error>;

    async fn append_messages(&self, session_id: &str, messages: Vec<Value>) -> Result<(), Error>;
    async fn load_messages(&self, session_id: &str) -> Result<Vec<Value>, Error>;

    /// Changes the title or meta; returns the session as it is now.
    async fn update_session(&self, id: &str, update: SessionUpdate) -> Result<SessionInfo, Error>;
    /// The `page` of the history, in order.
    async fn load_messages_page(&self, session_id: &str, page: Page) -> Result<Vec<Value>, Error>;
    /// Replaces every message from position `from` on with `messages`, in
    /// one transaction: how compaction persists a summary and the kept tail.
    /// A turn of only that: one mechanism, so both backends replace alike.
    async fn replace_messages(
        &self,
        session_id: &str,
        from: usize,
        expected: Option<usize>,
        messages: Vec<Value>,
    ) -> Result<(), Error> {
        self.commit_turn(session_id, TurnWrite::replacing(from, expected, messages))
            .await
    }
    /// Removes the last message and returns it.
    async fn pop_message(&self, session_id: &str) -> Result<Option<Value>, Error>;
    async fn clear_messages(&self, session_id: &str) -> Result<(), Error>;
    /// The session's requests, in first-append order.
    async fn list_requests(&self, session_id: &str) -> Result<Vec<RequestSummary>, Error>;
    /// Every frame, grouped by request, in first-append order.
    async fn load_frames_by_request(
        &self,
        session_id: &str,
    ) -> Result<Vec<(String, Vec<Value>)>, Error>;
    /// Everything a turn wrote, all of it or nothing.
    async fn commit_turn(&self, session_id: &str, turn: TurnWrite) -> Result<(), Error>;
    /// The session as one document's JSON text (`export::SessionExport`).
    async fn export_session(&self, id: &str) -> Result<String, Error>;
    /// Writes a checked document in one transaction; a taken id is
    /// `ALREADY_EXISTS` and writes nothing.
    async fn import_session(&self, export: export::SessionExport) -> Result<SessionInfo, Error>;

    // The loads again, as the JSON text the bindings hand to `JSON.parse`:
    // a backend that stores text passes it through without parsing it.

    async fn load_session_state_json(
        &self,
        session_id: &str,
        key: &str,
    ) -> Result<Option<String>, Error> {
        let value = self.load_session_state(session_id, key).await?;
        Ok(value.map(|v| v.to_json()))
    }
    /// A JSON array.
    async fn load_activity_frames_json(
        &self,
        session_id: &str,
        request_id: Option<&str>,
    ) -> Result<String, Error> {
        let frames = self.load_activity_frames(session_id, request_id).await?;
        Ok(Value::Array(frames).to_json())
    }
    /// A JSON array.
    async fn load_messages_json(&self, session_id: &str) -> Result<String, Error> {
        Ok(Value::Array(self.load_messages(session_id).await?).to_json())
    }

    /// The target's introspection tree, under key `snapshot`.
    async fn save_snapshot(&self, session_id: &str, snapshot: Value) -> Result<(), Error> {
        self.save_session_state(session_id, SNAPSHOT_KEY, snapshot)
            .await
    }
    async fn load_snapshot(&self, session_id: &str) -> Result<Option<Value>, Error> {
        self.load_session_state(session_id, SNAPSHOT_KEY).await
    }
    /// `{env?, history?}`, under key `repl_state`.
    async fn save_repl_state(&self, session_id: &str, state: Value) -> Result<(), Error> {
        self.save_session_state(session_id, REPL_STATE_KEY, state)
            .await
    }
    async fn load_repl_state(&self, session_id: &str) -> Result<Option<Value>, Error> {
        self.load_session_state(session_id, REPL_STATE_KEY).await
    }
    /// The pinned attachments, under key `attachments`.
    async fn save_attachments(
        &self,
        session_id: &str,
        pinned: &AttachmentStore,
    ) -> Result<(), Error> {
        self.save_pins(session_id, pinned, None).await
    }
    /// The store saved for this session, pinned again in the same order,
    /// so its consolidated message is byte-identical; `None` if none.
    async fn load_attachments(&self, session_id: &str) -> Result<Option<AttachmentStore>, Error> {
        Ok(self.load_pins(session_id).await?.map(|(pinned, _)| pinned))
    }
    /// The pins and their prefix baseline (or none), in one transaction.
    async fn save_pins(
        &self,
        session_id: &str,
        pinned: &AttachmentStore,
        baseline: Option<Value>,
    ) -> Result<(), Error> {
        let pins = PinsToSave {
            specs: pinned.to_specs(),
            baseline,
            specs_checked: false,
            baseline_is_specs: false,
            checked_at: 0,
        };
        self.commit_turn(session_id, TurnWrite::default().with_pins(pins))
            .await
    }
    /// The pins and the baseline saved with them.
    async fn load_pins(&self, session_id: &str) -> Result<Option<Pins>, Error> {
        let pinned = self.load_session_state(session_id, ATTACHMENTS_KEY).await?;
        let baseline = self
            .load_session_state(session_id, PREFIX_BASELINE_KEY)
            .await?;
        call::pins(pinned, baseline)
    }
}

/// A store of pins and the specs its prefix was last checked against.
pub type Pins = (AttachmentStore, Option<Value>);

/// Pins as the turn that saves them takes them.
pub struct PinsToSave {
    pub specs: Value,
    /// The specs the prefix was last checked against, if any.
    pub baseline: Option<Value>,
    /// Whether the specs passed every check the turn makes when they were
    /// pinned or loaded, and hold no secret registered since: a pin's
    /// full scan costs the turn what it cost `setAttachment`.
    pub specs_checked: bool,
    /// Whether the baseline is `specs` (nothing pinned or detached since
    /// that check): most turns.
    pub baseline_is_specs: bool,
    /// The host-secret generation both were found at.
    pub checked_at: u64,
}

impl PinsToSave {
    /// A live store's pins, with what its own checks find now.
    pub fn of(pinned: &AttachmentStore, prefix: &crate::attachment::PrefixTracker) -> Self {
        // Every pin was checked when pinned (a loaded one that held a
        // credential is held, and fails this), and this looks for secrets
        // registered since: free when there are none.
        let specs_checked = pinned.check_host_secrets().is_ok();
        let baseline_is_specs = prefix.is_current(pinned);
        // A baseline holding a secret registered since the check that
        // left it is not saved: no host can see or detach it, and it would
        // refuse the turn. The next check starts afresh. Not looked for
        // again in one that is the specs, which passed.
        let passed = baseline_is_specs && specs_checked;
        let baseline = prefix
            .baseline()
            .filter(|b| passed || crate::credentials::check_host_secrets_in("", b).is_ok());
        Self {
            specs: pinned.to_specs(),
            baseline: baseline.cloned(),
            specs_checked,
            baseline_is_specs,
            checked_at: crate::credentials::host_secrets_generation(),
        }
    }
}

impl TurnWrite {
    /// Also saves pins: their specs, and the baseline or null. The
    /// turn's check checks what is not known to pass.
    pub fn with_pins(mut self, pins: PinsToSave) -> Self {
        let at = self.state.len();
        self.pinned_at = Some(at);
        self.state.push((ATTACHMENTS_KEY.to_owned(), pins.specs));
        let baseline = pins.baseline.unwrap_or(Value::Null);
        self.state.push((PREFIX_BASELINE_KEY.to_owned(), baseline));
        if pins.specs_checked {
            self.checked.push(at);
        }
        // A baseline that is the specs passes or fails with them.
        if pins.baseline_is_specs {
            self.checked.push(at + 1);
        }
        self.checked_at = pins.checked_at;
        self
    }
}

/// Sessions sort most recently updated first, ties by id, in every backend.
/// The order is total, so any sort gives the same.
pub(crate) fn sort_sessions(sessions: &mut [SessionInfo]) {
    heap_sort(sessions, |a, b| {
        let order = b.updated_at.total_cmp(&a.updated_at);
        order.then_with(|| a.id.cmp(&b.id)).is_lt()
    });
}

/// Sorts by `before`, which must be a total order. A heap sort is O(n log
/// n) in a few hundred bytes of wasm, where core's sort was 1.2 KB gzipped.
pub(crate) fn heap_sort<T>(items: &mut [T], before: impl Fn(&T, &T) -> bool) {
    // Sifts down a heap whose root sorts last.
    let sift = |s: &mut [T], mut root: usize, end: usize| loop {
        let mut child = 2 * root + 1;
        if child >= end {
            break;
        }
        if child + 1 < end && before(&s[child], &s[child + 1]) {
            child += 1;
        }
        if !before(&s[root], &s[child]) {
            break;
        }
        s.swap(root, child);
        root = child;
    };
    let len = items.len();
    for root in (0..len / 2).rev() {
        sift(items, root, len);
    }
    for end in (1..len).rev() {
        items.swap(0, end);
        sift(items, 0, end);
    }
}

#[cfg(test)]
mod tests;
