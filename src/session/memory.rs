use std::cell::RefCell;
use std::rc::Rc;

use crate::json::Value;

use super::{checks, sort_sessions, Environment, NewSession, SessionInfo, SessionStore};
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

#[derive(Default)]
struct Stored {
    info: Option<SessionInfo>,
    state: Sorted<Value>,
    /// `(request id, frame)` in global append order.
    frames: Vec<(String, Value)>,
    messages: Vec<Value>,
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
            .filter(|s| s.info.is_some())
            .ok_or_else(|| Error::NotFound {
                session_id: session_id.to_owned(),
            })?;
        let wrote = write(stored);
        if let Some(info) = stored.info.as_mut().filter(|_| wrote) {
            info.updated_at = info.updated_at.max(now);
        }
        Ok(wrote)
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
        data.sessions.insert(
            info.id.clone(),
            Stored {
                info: Some(info.clone()),
                ..Stored::default()
            },
        );
        Ok(info)
    }

    async fn get_session(&self, id: &str) -> Result<Option<SessionInfo>, Error> {
        Ok(self.read(id, |s| s.info.clone()).flatten())
    }

    async fn list_sessions(&self) -> Result<Vec<SessionInfo>, Error> {
        let mut sessions: Vec<SessionInfo> = self
            .data
            .borrow()
            .sessions
            .values()
            .filter_map(|s| s.info.clone())
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

    async fn list_session_state_keys(&self, session_id: &str) -> Result<Vec<String>, Error> {
        Ok(self
            .read(session_id, |s| s.state.keys().cloned().collect())
            .unwrap_or_default())
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
        checks::objects("frames", &frames)?;
        let wrote = !frames.is_empty();
        self.write(session_id, |s| {
            s.frames.extend(
                frames
                    .into_iter()
                    .map(|frame| (request_id.to_owned(), frame)),
            );
            wrote
        })
        .map(drop)
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
                    .filter(|(rid, _)| request_id.is_none_or(|wanted| wanted == rid))
                    .map(|(_, frame)| frame.clone())
                    .collect()
            })
            .unwrap_or_default())
    }

    async fn append_messages(&self, session_id: &str, messages: Vec<Value>) -> Result<(), Error> {
        checks::messages(&messages)?;
        let wrote = !messages.is_empty();
        self.write(session_id, |s| {
            s.messages.extend(messages);
            wrote
        })
        .map(drop)
    }

    async fn load_messages(&self, session_id: &str) -> Result<Vec<Value>, Error> {
        Ok(self
            .read(session_id, |s| s.messages.clone())
            .unwrap_or_default())
    }
}

/// A map kept as a vector sorted by key: ordered like a `BTreeMap` for a
/// fraction of its code in the wasm.
struct Sorted<V>(Vec<(String, V)>);

impl<V> Default for Sorted<V> {
    fn default() -> Self {
        Self(Vec::new())
    }
}

impl<V> Sorted<V> {
    fn find(&self, key: &str) -> Result<usize, usize> {
        self.0.binary_search_by(|(k, _)| k.as_str().cmp(key))
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
