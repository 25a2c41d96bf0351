use std::cell::RefCell;
use std::rc::Rc;

use crate::json::Value;

use super::export::{self, SessionExport};
use super::{
    check_absent, check_replace, checks, sort_sessions, Environment, KeyRange, NewSession, Page,
    RequestSummary, SessionInfo, SessionStore, SessionUpdate, TurnWrite,
};
use crate::Error;

/// The in-memory twin of the IndexedDB store: same behaviour, nothing
/// survives a reload. For tests and private-mode fallbacks.
pub struct MemorySessionStore {
    env: Rc<dyn Environment>,
    data: RefCell<Data>,
}

#[derive(Default)]
struct Data {
    sessions: Sorted<Stored>,
}

struct Stored {
    info: SessionInfo,
    state: Sorted<Value>,
    /// `(request id, appended at, frame)` in append order.
    frames: Vec<(String, f64, Value)>,
    messages: Vec<Value>,
}

impl Stored {
    fn new(info: SessionInfo, messages: Vec<Value>) -> Self {
        Self {
            info,
            state: Sorted::default(),
            frames: Vec::new(),
            messages,
        }
    }
}

impl MemorySessionStore {
    pub fn new(env: Rc<dyn Environment>) -> Self {
        Self {
            env,
            data: RefCell::default(),
        }
    }

    /// Runs `write` on an existing session and, if it says it wrote
    /// anything, bumps its `updated_at`.
    fn write(
        &self,
        session_id: &str,
        write: impl FnOnce(&mut Stored) -> bool,
    ) -> Result<bool, Error> {
        let now = self.env.now();
        let mut data = self.data.borrow_mut();
        let stored = data
            .sessions
            .get_mut(session_id)
            .ok_or_else(|| Error::NotFound {
                session_id: session_id.to_owned(),
            })?;
        let wrote = write(stored);
        if wrote {
            stored.info.updated_at = stored.info.updated_at.max(now);
        }
        Ok(wrote)
    }

    /// A missing session is NOT_FOUND before anything about its history,
    /// as in IndexedDB, where the session record is read first.
    fn message_count(&self, session_id: &str) -> Result<usize, Error> {
        self.read(session_id, |s| s.messages.len())
            .ok_or_else(|| Error::NotFound {
                session_id: session_id.to_owned(),
            })
    }

    fn read<T>(&self, session_id: &str, read: impl FnOnce(&Stored) -> T) -> Option<T> {
        self.data.borrow().sessions.get(session_id).map(read)
    }
}

impl SessionStore for MemorySessionStore {
    async fn create_session(&self, new: NewSession) -> Result<SessionInfo, Error> {
        let info = checks::new_session(new, self.env.now(), || self.env.new_id())?;
        let mut data = self.data.borrow_mut();
        if data.sessions.contains_key(&info.id) {
            return Err(Error::AlreadyExists {
                session_id: info.id,
            });
        }
        data.sessions
            .insert(info.id.clone(), Stored::new(info.clone(), Vec::new()));
        Ok(info)
    }

    async fn get_session(&self, id: &str) -> Result<Option<SessionInfo>, Error> {
        Ok(self.read(id, |s| s.info.clone()))
    }

    async fn list_sessions(&self) -> Result<Vec<SessionInfo>, Error> {
        let mut sessions: Vec<SessionInfo> = self
            .data
            .borrow()
            .sessions
            .values()
            .map(|s| s.info.clone())
            .collect();
        sort_sessions(&mut sessions);
        Ok(sessions)
    }

    async fn delete_session(&self, id: &str) -> Result<bool, Error> {
        Ok(self.data.borrow_mut().sessions.remove(id).is_some())
    }

    async fn save_session_state(
        &self,
        session_id: &str,
        key: &str,
        value: Value,
    ) -> Result<(), Error> {
        checks::id_argument("key", key)?;
        checks::state_value(key, &value)?;
        self.write(session_id, |s| {
            s.state.insert(key.to_owned(), value);
            true
        })
        .map(drop)
    }

    async fn load_session_state(
        &self,
        session_id: &str,
        key: &str,
    ) -> Result<Option<Value>, Error> {
        Ok(self
            .read(session_id, |s| s.state.get(key).cloned())
            .flatten())
    }

    async fn list_state_keys(
        &self,
        session_id: &str,
        range: &KeyRange,
    ) -> Result<Vec<String>, Error> {
        let keys = self.read(session_id, |s| s.state.keys().cloned().collect());
        Ok(range.select(keys.unwrap_or_default()))
    }

    async fn load_session_states_json(
        &self,
        session_id: &str,
        keys: &[String],
    ) -> Result<String, Error> {
        let values = self.read(session_id, |s| {
            crate::map_vec(keys, |k| s.state.get(k).cloned().unwrap_or_default())
        });
        Ok(Value::Array(values.unwrap_or_else(|| vec![Value::Null; keys.len()])).to_json())
    }

    async fn delete_session_state(&self, session_id: &str, key: &str) -> Result<bool, Error> {
        match self.write(session_id, |s| s.state.remove(key).is_some()) {
            Err(Error::NotFound { .. }) => Ok(false),
            removed => removed,
        }
    }

    async fn append_activity_frames(
        &self,
        session_id: &str,
        request_id: &str,
        frames: Vec<Value>,
    ) -> Result<(), Error> {
        checks::id_argument("requestId", request_id)?;
        checks::objects("frames", &frames, checks::NOT_FRAME)?;
        let turn = TurnWrite {
            frames: vec![(request_id.to_owned(), frames)],
            ..TurnWrite::default()
        };
        // Checked just above, under this call's own field names: scanning
        // every frame for credentials twice would double its cost.
        self.commit_checked(session_id, turn)
    }

    async fn load_activity_frames(
        &self,
        session_id: &str,
        request_id: Option<&str>,
    ) -> Result<Vec<Value>, Error> {
        Ok(self
            .read(session_id, |s| {
                s.frames
                    .iter()
                    .filter(|(rid, ..)| request_id.is_none_or(|wanted| wanted == rid))
                    .map(|(.., frame)| frame.clone())
                    .collect()
            })
            .unwrap_or_default())
    }

    async fn append_messages(&self, session_id: &str, messages: Vec<Value>) -> Result<(), Error> {
        let turn = TurnWrite {
            messages,
            ..TurnWrite::default()
        };
        self.commit_turn(session_id, turn).await
    }

    async fn load_messages(&self, session_id: &str) -> Result<Vec<Value>, Error> {
        self.load_messages_page(session_id, Page::default()).await
    }

    async fn update_session(&self, id: &str, update: SessionUpdate) -> Result<SessionInfo, Error> {
        let now = self.env.now();
        let mut data = self.data.borrow_mut();
        let info = data
            .sessions
            .get_mut(id)
            .map(|s| &mut s.info)
            .ok_or_else(|| Error::NotFound {
                session_id: id.to_owned(),
            })?;
        let mut updated = info.clone();
        update.apply(&mut updated, now)?;
        *info = updated.clone();
        Ok(updated)
    }

    async fn load_messages_page(&self, session_id: &str, page: Page) -> Result<Vec<Value>, Error> {
        Ok(self
            .read(session_id, |s| {
                s.messages[page.range(s.messages.len())].to_vec()
            })
            .unwrap_or_default())
    }

    async fn pop_message(&self, session_id: &str) -> Result<Option<Value>, Error> {
        let mut popped = None;
        self.write(session_id, |s| {
            popped = s.messages.pop();
            popped.is_some()
        })?;
        Ok(popped)
    }

    async fn clear_messages(&self, session_id: &str) -> Result<(), Error> {
        self.write(session_id, |s| {
            let had = !s.messages.is_empty();
            s.messages.clear();
            had
        })
        .map(drop)
    }

    async fn export_session(&self, id: &str) -> Result<String, Error> {
        let data = self.data.borrow();
        let stored = data.sessions.get(id);
        let stored = stored.ok_or_else(|| Error::NotFound {
            session_id: id.to_owned(),
        })?;
        let frames = stored
            .frames
            .iter()
            .map(|(r, _, frame)| (r.as_str(), frame));
        let limit = crate::text::JS_STRING_MAX;
        export::export_text(
            &stored.info,
            &stored.state.0,
            &stored.messages,
            frames,
            limit,
        )
    }

    async fn import_session(&self, export: SessionExport) -> Result<SessionInfo, Error> {
        export.check()?;
        let now = self.env.now();
        let export = export.not_after(now);
        let mut data = self.data.borrow_mut();
        let info = export.session;
        if data.sessions.contains_key(&info.id) {
            return Err(Error::AlreadyExists {
                session_id: info.id,
            });
        }
        let mut stored = Stored::new(info.clone(), export.messages);
        for (key, value) in export.state {
            stored.state.insert(key, value);
        }
        for (request_id, frames) in export.frames {
            stored
                .frames
                .extend(frames.into_iter().map(|f| (request_id.clone(), now, f)));
        }
        data.sessions.insert(info.id.clone(), stored);
        Ok(info)
    }

    async fn list_requests(&self, session_id: &str) -> Result<Vec<RequestSummary>, Error> {
        let mut list = super::ByRequest::new(|s: &RequestSummary| &s.request_id, false);
        self.read(session_id, |s| {
            for (request_id, at, _) in &s.frames {
                RequestSummary::add(&mut list, request_id, 1, *at);
            }
        });
        Ok(list.items)
    }

    async fn load_frames_by_request(
        &self,
        session_id: &str,
    ) -> Result<Vec<(String, Vec<Value>)>, Error> {
        Ok(self.frame_groups(session_id))
    }

    async fn commit_turn(&self, session_id: &str, mut turn: TurnWrite) -> Result<(), Error> {
        turn.drop_stale_baseline();
        turn.check()?;
        self.commit_checked(session_id, turn)
    }
}

impl MemorySessionStore {
    /// Frames grouped by request, in first-append order.
    fn frame_groups(&self, session_id: &str) -> Vec<(String, Vec<Value>)> {
        let mut grouped = super::ByRequest::new(super::group_id, false);
        self.read(session_id, |s| {
            for (request_id, _, frame) in &s.frames {
                grouped
                    .entry(request_id, || (request_id.clone(), Vec::new()))
                    .1
                    .push(frame.clone());
            }
        });
        grouped.items
    }

    /// A turn whose checks have run.
    fn commit_checked(&self, session_id: &str, turn: TurnWrite) -> Result<(), Error> {
        let now = self.env.now();
        let counts = turn.replace_from.is_some() || turn.expected_count.is_some();
        let count = counts.then(|| self.message_count(session_id)).transpose()?;
        // In IndexedDB's order: the keys that must be absent, then the count.
        let present = self.read(session_id, |s| {
            let held = |k: &&String| s.state.get(k).is_some();
            turn.require_absent.iter().find(held).cloned()
        });
        check_absent(present.flatten().as_deref())?;
        let mut truncates = false;
        if let Some(count) = count {
            let from = check_replace(
                count,
                turn.replace_from,
                turn.expected_count,
                turn.replace_option,
            )?;
            truncates = from < count;
        }
        // As IndexedDB: a replacement that removes nothing is no write.
        let wrote = truncates || turn.adds();
        self.write(session_id, |s| {
            if let Some(from) = turn.replace_from {
                s.messages.truncate(from);
            }
            s.messages.extend(turn.messages);
            for (request_id, frames) in turn.frames {
                s.frames
                    .extend(frames.into_iter().map(|f| (request_id.clone(), now, f)));
            }
            for (key, value) in turn.state {
                s.state.insert(key, value);
            }
            // As IndexedDB: a first write that finds its key taken is no write.
            let mut inserted = false;
            for (key, value) in turn.state_if_absent {
                if s.state.get(&key).is_none() {
                    s.state.insert(key, value);
                    inserted = true;
                }
            }
            wrote || inserted
        })
        .map(drop)
    }
}

/// A map kept as a vector sorted by key, in IndexedDB's order (UTF-16 code
/// units), so keys list and export as they do there: ordered like a
/// `BTreeMap` for a fraction of its code in the wasm.
#[derive(Clone)]
struct Sorted<V>(Vec<(String, V)>);

impl<V> Default for Sorted<V> {
    fn default() -> Self {
        Self(Vec::new())
    }
}

impl<V> Sorted<V> {
    fn find(&self, key: &str) -> Result<usize, usize> {
        self.0
            .binary_search_by(|(k, _)| crate::text::utf16_cmp(k, key))
    }
    fn get(&self, key: &str) -> Option<&V> {
        self.find(key).ok().map(|i| &self.0[i].1)
    }
    fn get_mut(&mut self, key: &str) -> Option<&mut V> {
        self.find(key).ok().map(|i| &mut self.0[i].1)
    }
    fn contains_key(&self, key: &str) -> bool {
        self.find(key).is_ok()
    }
    fn insert(&mut self, key: String, value: V) {
        match self.find(&key) {
            Ok(i) => self.0[i].1 = value,
            Err(i) => self.0.insert(i, (key, value)),
        }
    }
    fn remove(&mut self, key: &str) -> Option<V> {
        self.find(key).ok().map(|i| self.0.remove(i).1)
    }
    fn keys(&self) -> impl Iterator<Item = &String> {
        self.0.iter().map(|(k, _)| k)
    }
    fn values(&self) -> impl Iterator<Item = &V> {
        self.0.iter().map(|(_, v)| v)
    }
}
