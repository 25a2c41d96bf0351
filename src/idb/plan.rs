//! Every store operation as one plan: its reads, issued together, then a
//! decision made from their results with no await, then its writes. An
//! operation is built by plain functions (no `async`); one executor runs
//! every plan, so the wasm holds one transaction state machine rather than
//! one per operation, and nothing but IndexedDB is awaited inside a
//! transaction.

use idb::Query;
use wasm_bindgen::{JsCast, JsValue};
use web_sys::IdbRequest;

use super::connection::{completed, outcome, Connection};
use super::errors::{from_js, Dom};
use crate::Error;

/// A read; its result is the request's `result`: the record or
/// `undefined` for `Get`, the key or `undefined` for `GetKey`, an array for
/// the others.
pub enum Read {
    Get(&'static str, Query),
    GetKey(&'static str, Query),
    All(&'static str, Option<&'static str>, Option<Query>),
    AllKeys(&'static str, Option<&'static str>, Option<Query>),
    /// At most this many primary keys in ascending order: the first, or
    /// with `true` the last, by a cursor walked backwards; by the store's
    /// keys, or with an index its.
    Keys(&'static str, Option<&'static str>, Query, u32, bool),
}

pub enum Write {
    Put(&'static str, JsValue),
    Add(&'static str, JsValue),
    Delete(&'static str, Query),
}

/// Chooses the writes from the reads' results.
pub type Decide = Box<dyn Fn(&[JsValue]) -> Result<Vec<Write>, Error>>;
/// Chooses further reads, in the same transaction, from the first ones'
/// results (the last message, found from the session's keys, say).
pub type More = Box<dyn Fn(&[JsValue]) -> Result<Vec<Read>, Error>>;

pub struct Plan {
    pub stores: &'static [&'static str],
    pub write: bool,
    /// Safe to run again after the connection was lost mid-way.
    pub idempotent: bool,
    pub reads: Vec<Read>,
    /// Reads after the first, appended to their results.
    pub more: Option<More>,
    /// The writes, from the reads' results. Runs once per attempt.
    pub decide: Decide,
}

/// What the executor's outcome means to the caller.
pub type Finish<T> = Box<dyn FnOnce(Result<Vec<JsValue>, Error>) -> Result<T, Error>>;

/// A store operation: its plan, and what its results mean.
pub struct Op<T> {
    pub plan: Plan,
    pub finish: Finish<T>,
}

impl<T: 'static> Op<T> {
    pub fn new(
        plan: Plan,
        finish: impl FnOnce(Vec<JsValue>) -> Result<T, Error> + 'static,
    ) -> Self {
        Op {
            plan,
            finish: Box::new(move |results| results.and_then(finish)),
        }
    }

    pub fn map<U>(self, f: impl FnOnce(T) -> U + 'static) -> Op<U> {
        let finish = self.finish;
        Op {
            plan: self.plan,
            finish: Box::new(move |results| finish(results).map(f)),
        }
    }

    pub fn and_then<U>(self, f: impl FnOnce(T) -> Result<U, Error> + 'static) -> Op<U> {
        let finish = self.finish;
        Op {
            plan: self.plan,
            finish: Box::new(move |results| finish(results).and_then(f)),
        }
    }

    pub async fn run(self, connection: &Connection) -> Result<T, Error> {
        (self.finish)(connection.execute(&self.plan).await)
    }
}

impl Connection {
    /// Runs a plan in one transaction and returns its reads' results. A
    /// connection found closed is reopened and the plan runs once more;
    /// one lost mid-way is retried only when the plan is idempotent.
    pub async fn execute(&self, plan: &Plan) -> Result<Vec<JsValue>, Error> {
        let mut retried = false;
        loop {
            let db = self.database().await?;
            let outcome = match self.begin(&db, plan.stores, plan.write) {
                Ok(tx) => {
                    let raw = tx.raw.clone();
                    let result = attempt(tx, plan).await;
                    if result.is_err() && plan.write {
                        // Requests already issued must not auto-commit a half write.
                        let _ = raw.abort();
                    }
                    result.map_err(|e| match e {
                        // Chromium aborts a transaction whose connection it
                        // closes (site data cleared) with a plain AbortError:
                        // a connection that can begin no other was lost.
                        e @ Error::Aborted { .. }
                            if self.begin(&db, plan.stores, false).is_err() =>
                        {
                            (e.lost(), plan.idempotent)
                        }
                        e => (e, plan.idempotent),
                    })
                }
                Err(e) => Err((e, true)),
            };
            match outcome {
                Err((Error::ConnectionLost { .. }, true)) if !retried => {
                    retried = true;
                    self.drop_if_current(&db);
                }
                Err((error @ (Error::Quota { .. } | Error::ConnectionLost { .. }), _)) => {
                    // A lost connection not retried is dropped too, so the
                    // next call opens anew. Firefox leaves a connection that
                    // met the quota unable to write again, even once space
                    // is freed: start anew.
                    self.drop_if_current(&db);
                    return Err(error);
                }
                result => return result.map_err(|(e, _)| e),
            }
        }
    }
}

async fn attempt(tx: super::connection::Tx, plan: &Plan) -> Result<Vec<JsValue>, Error> {
    let mut results = read(&tx.idb, &plan.reads).await?;
    if let Some(more) = &plan.more {
        let reads = more(&results)?;
        results.extend(read(&tx.idb, &reads).await?);
    }
    let writes = (plan.decide)(&results)?;
    if writes.is_empty() {
        // Nothing issued: a write transaction completes empty.
        return Ok(results);
    }
    for write in writes {
        let store = tx.idb.object_store(write.store()).dom()?;
        match write {
            Write::Put(_, value) => drop(store.put(&value, None).dom()?),
            Write::Add(_, value) => drop(store.add(&value, None).dom()?),
            Write::Delete(_, query) => drop(store.delete(query).dom()?),
        }
    }
    completed(tx).await?;
    Ok(results)
}

/// Issues the reads together and waits for them: a transaction's requests
/// complete in the order they were made, and a failed one aborts the rest,
/// so awaiting the last awaits them all.
async fn read(tx: &idb::Transaction, reads: &[Read]) -> Result<Vec<JsValue>, Error> {
    let requests = reads
        .iter()
        .map(|read| issue(tx, read))
        .collect::<Result<Vec<_>, _>>()?;
    if let Some(last) = requests.last() {
        if let Err(e) = outcome(last).await {
            // Those after a failed read fail with AbortError: the first
            // request holding an error is the one that failed.
            let first = requests.iter().find_map(|r| r.error().ok().flatten());
            return Err(first.map_or(e, |dom| from_js(&dom.into())));
        }
    }
    let mut results = Vec::with_capacity(requests.len());
    for (read, request) in reads.iter().zip(&requests) {
        let result = request.result().map_err(|e| from_js(&e))?;
        results.push(match read {
            Read::Keys(.., count, true) => last_keys(request, result, *count).await?,
            _ => result,
        });
    }
    Ok(results)
}

/// Up to `count` keys from a key cursor opened backwards, ascending:
/// pushed, then reversed once, as an unshift per key moves them all.
async fn last_keys(request: &IdbRequest, first: JsValue, count: u32) -> Result<JsValue, Error> {
    let keys = js_sys::Array::new();
    let mut cursor = first;
    while !cursor.is_null() {
        let at: &web_sys::IdbCursor = cursor.unchecked_ref();
        keys.push(&at.primary_key().map_err(|e| from_js(&e))?);
        if keys.length() >= count {
            break;
        }
        at.continue_().map_err(|e| from_js(&e))?;
        cursor = outcome(request).await?;
    }
    Ok(keys.reverse().into())
}

impl Read {
    /// The object store it reads.
    pub fn store(&self) -> &'static str {
        match self {
            Read::Get(name, _) | Read::GetKey(name, _) => name,
            Read::All(name, ..) | Read::AllKeys(name, ..) | Read::Keys(name, ..) => name,
        }
    }
}

fn issue(tx: &idb::Transaction, read: &Read) -> Result<IdbRequest, Error> {
    let index = match read {
        Read::All(_, index, _) | Read::AllKeys(_, index, _) | Read::Keys(_, index, ..) => *index,
        _ => None,
    };
    let store = tx.object_store(read.store()).dom()?;
    Ok(match (read, index) {
        (Read::Get(_, query), _) => store.get(query.clone()).dom()?.into(),
        (Read::GetKey(_, query), _) => store.get_key(query.clone()).dom()?.into(),
        (Read::All(_, _, query), None) => store.get_all(query.clone(), None).dom()?.into(),
        (Read::AllKeys(_, _, query), None) => store.get_all_keys(query.clone(), None).dom()?.into(),
        (Read::All(_, _, query), Some(index)) => {
            let index = store.index(index).dom()?;
            index.get_all(query.clone(), None).dom()?.into()
        }
        (Read::Keys(_, _, query, count, false), index) => {
            let (query, count) = (Some(query.clone()), Some(*count));
            match index {
                None => store.get_all_keys(query, count),
                Some(index) => store.index(index).dom()?.get_all_keys(query, count),
            }
            .dom()?
            .into()
        }
        (Read::Keys(_, _, query, _, true), index) => {
            let (query, backwards) = (Some(query.clone()), Some(idb::CursorDirection::Prev));
            match index {
                None => store.open_key_cursor(query, backwards),
                Some(index) => store.index(index).dom()?.open_key_cursor(query, backwards),
            }
            .dom()?
            .into()
        }
        (Read::AllKeys(_, _, query), Some(index)) => {
            let index = store.index(index).dom()?;
            index.get_all_keys(query.clone(), None).dom()?.into()
        }
    })
}

impl Write {
    fn store(&self) -> &'static str {
        match self {
            Write::Put(name, _) | Write::Add(name, _) | Write::Delete(name, _) => name,
        }
    }
}
