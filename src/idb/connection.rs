//! One IndexedDB connection, reopened on demand: closed on `versionchange`
//! (the host is told), dropped when the browser closes it, and retried once
//! when it was lost under an operation.

use std::cell::{Cell, RefCell};
use std::rc::{Rc, Weak};

use idb::Factory;
use js_sys::{Array, Function, Object, Promise, Reflect};
use wasm_bindgen::prelude::wasm_bindgen;
use wasm_bindgen::{closure::Closure, JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;
use web_sys::{
    Event, IdbDatabase, IdbOpenDbRequest, IdbRequest, IdbTransaction, IdbVersionChangeEvent,
};

use super::errors::{from_js, Dom};
use super::schema;
use crate::Error;

/// Applied to write transactions; `Relaxed` trades crash safety for speed.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Durability {
    #[default]
    Default,
    Strict,
    Relaxed,
}

impl Durability {
    pub fn parse(name: &str) -> Option<Self> {
        match name {
            "default" => Some(Self::Default),
            "strict" => Some(Self::Strict),
            "relaxed" => Some(Self::Relaxed),
            _ => None,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Self::Default => "default",
            Self::Strict => "strict",
            Self::Relaxed => "relaxed",
        }
    }
}

/// What another connection asked for: `new_version` is `None` when the
/// database is being deleted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct VersionChange {
    pub old_version: u32,
    pub new_version: Option<u32>,
}

/// A transaction in both forms (the `idb` wrapper for requests, the raw one
/// to abort), and how it settled, watched from the moment it opened.
pub struct Tx {
    pub idb: idb::Transaction,
    pub raw: IdbTransaction,
    /// Write transactions only: a read has nothing to settle.
    settled: Option<Promise>,
}

#[wasm_bindgen(module = "/src/js/snippet.js")]
extern "C" {
    fn settle(tx: &IdbTransaction) -> Promise;
    fn done(request: &IdbRequest) -> Promise;
    fn latch() -> Array;
}

/// A request's result, once it succeeded. Every IndexedDB wait goes
/// through here, one promise each: the `idb` crate's futures cost a
/// channel and a future type per kind of request.
pub async fn outcome(request: &IdbRequest) -> Result<JsValue, Error> {
    JsFuture::from(done(request)).await.map_err(|e| from_js(&e))
}

pub type Listener = Rc<dyn Fn(VersionChange)>;
type Handler = Closure<dyn FnMut(Event)>;

pub struct Connection {
    shared: Rc<Shared>,
}

struct Shared {
    name: String,
    durability: Durability,
    db: RefCell<Option<IdbDatabase>>,
    listener: RefCell<Option<Listener>>,
    handlers: RefCell<Vec<Handler>>,
    /// Calls made and not yet settled, and whether `close()` waits for them.
    holds: Cell<usize>,
    closing: Cell<bool>,
    /// Resolves when the open under way settles: a burst of calls after a
    /// close waits for it rather than open a connection each.
    opening: RefCell<Option<Promise>>,
    /// How the last open failed, for the calls that waited for it.
    failed: RefCell<Option<Error>>,
}

/// A call's hold on the connection, taken when the call is made: a
/// `close()` after it waits for it, as its transaction has not begun yet.
pub struct Hold(Rc<Shared>);

impl Drop for Hold {
    fn drop(&mut self) {
        let shared = &self.0;
        shared.holds.set(shared.holds.get() - 1);
        if shared.holds.get() == 0 && shared.closing.take() {
            shared.close_now();
        }
    }
}

impl Shared {
    fn close_now(&self) {
        if let Some(db) = self.db.borrow_mut().take() {
            release(&db);
        }
    }
}

impl Connection {
    pub async fn open(name: &str, durability: Durability) -> Result<Self, Error> {
        let connection = Connection {
            shared: Rc::new(Shared {
                name: name.to_owned(),
                durability,
                db: RefCell::new(None),
                listener: RefCell::new(None),
                handlers: RefCell::new(Vec::new()),
                holds: Cell::new(0),
                closing: Cell::new(false),
                opening: RefCell::new(None),
                failed: RefCell::new(None),
            }),
        };
        connection.database().await?;
        Ok(connection)
    }

    pub fn name(&self) -> &str {
        &self.shared.name
    }

    pub fn set_listener(&self, listener: Option<Listener>) {
        *self.shared.listener.borrow_mut() = listener;
    }

    /// The open connection, for tests that close it behind the store's back.
    pub fn current(&self) -> Option<IdbDatabase> {
        self.shared.db.borrow().clone()
    }

    /// Closes now, or when the last call made before it settles. A call
    /// made after it keeps the connection open, as it would reopen it.
    pub fn close(&self) {
        let shared = &self.shared;
        shared.closing.set(shared.holds.get() > 0);
        if !shared.closing.get() {
            shared.close_now();
        }
    }

    /// Taken when a call is made, before its future first runs.
    pub fn hold(&self) -> Hold {
        let shared = &self.shared;
        shared.holds.set(shared.holds.get() + 1);
        shared.closing.set(false);
        Hold(shared.clone())
    }

    pub(super) fn drop_if_current(&self, db: &IdbDatabase) {
        if self.current().as_ref() == Some(db) {
            self.shared.close_now();
        }
    }

    pub(super) async fn database(&self) -> Result<IdbDatabase, Error> {
        let shared = &self.shared;
        let mut waited = false;
        loop {
            if let Some(db) = self.current() {
                return Ok(db);
            }
            // The open waited for failed: so does each call that waited.
            // Wakes run in microtasks, before any later open can settle.
            if waited {
                if let Some(e) = shared.failed.borrow().clone() {
                    return Err(e);
                }
            }
            let Some(wake) = shared.opening.borrow().clone() else {
                break;
            };
            let _ = JsFuture::from(wake).await;
            waited = true;
        }
        let pair = latch();
        *shared.opening.borrow_mut() = Some(pair.get(0).unchecked_into());
        let result = open_database(&shared.name).await;
        if let Ok(db) = &result {
            self.watch(db);
            *shared.db.borrow_mut() = Some(db.clone());
        }
        *shared.failed.borrow_mut() = result.as_ref().err().cloned();
        shared.opening.take();
        let _ = pair
            .get(1)
            .unchecked_into::<Function>()
            .call0(&JsValue::NULL);
        result
    }

    fn watch(&self, db: &IdbDatabase) {
        let weak = Rc::downgrade(&self.shared);
        let on_version_change = Handler::new(move |event: Event| {
            let Some(shared) = Weak::upgrade(&weak) else {
                return;
            };
            // Close at once so the other connection's upgrade is not blocked.
            shared.close_now();
            let event: IdbVersionChangeEvent = event.unchecked_into();
            let change = VersionChange {
                old_version: event.old_version() as u32,
                new_version: event.new_version().map(|v| v as u32),
            };
            // Cloned out so a listener may replace itself without a borrow panic.
            let listener = shared.listener.borrow().clone();
            if let Some(listener) = listener {
                listener(change);
            }
        });
        let weak = Rc::downgrade(&self.shared);
        let watched = db.clone();
        let on_close = Handler::new(move |_: Event| {
            // The browser closed it (storage cleared, disk error): reopen next call.
            if let Some(shared) = Weak::upgrade(&weak) {
                let mut db = shared.db.borrow_mut();
                if db.as_ref() == Some(&watched) {
                    db.take();
                }
                // Its handlers go with it, as on every other close.
                release(&watched);
            }
        });
        db.set_onversionchange(Some(on_version_change.as_ref().unchecked_ref()));
        db.set_onclose(Some(on_close.as_ref().unchecked_ref()));
        let mut handlers = self.shared.handlers.borrow_mut();
        handlers.clear();
        handlers.extend([on_version_change, on_close]);
    }

    /// Opens a transaction; write transactions carry the durability hint,
    /// which the `idb` crate cannot set.
    pub(super) fn begin(
        &self,
        db: &IdbDatabase,
        stores: &[&str],
        write: bool,
    ) -> Result<Tx, Error> {
        let names: Array = stores.iter().map(|s| JsValue::from_str(s)).collect();
        let mode = JsValue::from_str(if write { "readwrite" } else { "readonly" });
        // No prototype: IndexedDB reads inherited members, so a
        // `durability` on a polluted Object.prototype failed every read (a
        // read-only one, every write: it refused the write's own).
        let options: Object = super::bare();
        if write {
            let _ = Reflect::set(
                &options,
                &"durability".into(),
                &self.shared.durability.as_str().into(),
            );
        }
        let open: Function = Reflect::get(db, &"transaction".into())
            .map_err(|e| from_js(&e))?
            .unchecked_into();
        let raw: IdbTransaction = open
            .call3(db, &names, &mode, &options)
            .map_err(|e| {
                // The spec's only InvalidStateError here is a closing
                // connection, however an engine words it.
                let e = from_js(&e);
                if e.dom_name() == Some("InvalidStateError") {
                    e.lost()
                } else {
                    e
                }
            })?
            .unchecked_into();
        Ok(Tx {
            idb: raw.clone().into(),
            settled: write.then(|| settle(&raw)),
            raw,
        })
    }
}

/// Closes `db` with its handlers unset first: an event already queued for
/// it (fake-indexeddb delivers one after close) must not reach a handler
/// dropped with the store or replaced by the next connection's.
fn release(db: &IdbDatabase) {
    db.set_onversionchange(None);
    db.set_onclose(None);
    db.close();
}

impl Drop for Connection {
    fn drop(&mut self) {
        self.close();
    }
}

/// Resolves once the transaction has completed with every request
/// successful. Never calls `commit()`: Firefox then completes a transaction
/// around a request that fails later, a half write. Auto-commit aborts on
/// it in every engine, and the rejection names the first failing request.
pub async fn completed(tx: Tx) -> Result<(), Error> {
    let settled = tx.settled.expect("completed() is for write transactions");
    // settle() never rejects: it resolves with the error, or null.
    let error = JsFuture::from(settled).await.unwrap_or(JsValue::NULL);
    if error.is_null() {
        Ok(())
    } else {
        Err(from_js(&error))
    }
}

async fn open_database(name: &str) -> Result<IdbDatabase, Error> {
    let factory = Factory::new().map_err(|_| Error::Unavailable {
        dom_name: "NotSupportedError".to_owned(),
        message: "indexedDB is not defined in this context".to_owned(),
        cause: crate::error::Cause::NONE,
    })?;
    let request: IdbOpenDbRequest = factory.open(name, Some(schema::VERSION)).dom()?.into();
    let upgrading = request.clone();
    let upgrade = Handler::new(move |event: Event| {
        let old_version = event
            .unchecked_into::<IdbVersionChangeEvent>()
            .old_version();
        let migrated = upgrading
            .result()
            .map(|db| idb::Database::from(db.unchecked_into::<IdbDatabase>()))
            .map_err(|_| ())
            .and_then(|db| schema::migrate(&db, old_version as u32).map_err(|_| ()));
        if migrated.is_err() {
            // Aborting the upgrade fails the open with AbortError.
            if let Some(tx) = upgrading.transaction() {
                let _ = tx.abort();
            }
        }
    });
    request.set_onupgradeneeded(Some(upgrade.as_ref().unchecked_ref()));
    let opened = outcome(&request).await;
    request.set_onupgradeneeded(None);
    drop(upgrade);
    match opened.map(|db| idb::Database::from(db.unchecked_into::<IdbDatabase>())) {
        // Another's database at our version: its stores are not ours, and
        // every call would abort. Refused at open, and left untouched.
        Ok(db)
            if !schema::STORES
                .iter()
                .all(|s| db.store_names().iter().any(|n| n == s)) =>
        {
            db.close();
            Err(Error::Version {
                reason: format!(
                    "database {} has no attache stores; give attache a database of its own",
                    crate::json::quote(name)
                ),
                cause: crate::error::Cause::NONE,
            })
        }
        Ok(db) => Ok(db.into()),
        Err(e) => Err(match e {
            Error::Version { reason, cause } => Error::Version {
                cause,
                reason: format!(
                    "{reason} (this build writes schema version {})",
                    schema::VERSION
                ),
            },
            // Firefox's private mode without IndexedDB: "A mutation
            // operation was attempted on a database that did not allow
            // mutations." Refused outright, so no reload mends it. (Not in
            // from_dom: older Firefox words transaction() on a closed
            // connection so.)
            Error::Aborted {
                dom_name,
                message,
                cause,
            } if dom_name == "InvalidStateError"
                && crate::text::contains(&message, "not allow") =>
            {
                Error::Unavailable {
                    dom_name,
                    message,
                    cause,
                }
            }
            // An open that fails otherwise (Firefox clearing site data
            // again under the reopen aborts it, or fails it UnknownError)
            // gave no connection at all. Our own abort of a failed
            // migration lands here too: v1 cannot fail on a fresh
            // database, but a later version's must be told apart.
            other => other.lost(),
        }),
    }
}
