//! How the IndexedDB store behaves when IndexedDB does: aborts, upgrades
//! from other connections, lost connections, durability, concurrent
//! writers. Faults are injected by wrapping the real IndexedDB methods.
#![cfg(target_arch = "wasm32")]

mod browser;
mod session_suite;

use std::cell::RefCell;
use std::rc::Rc;

use attache::idb::{schema, Durability, VersionChange, VERSION};
use attache::json;
use attache::session::SessionStore;
use browser::{delete_database, fresh_name, open, run_js};
use session_suite::{frames, new, pinned_mix};
use wasm_bindgen_test::*;

/// Replaces `IDBObjectStore.prototype[method]` with `body`, which may call
/// `original`, until `restore_store_method`.
fn wrap_store_method(method: &str, body: &str) {
    run_js(&format!(
        "const original = IDBObjectStore.prototype.{method};
         globalThis.__attacheRestore = () => {{ IDBObjectStore.prototype.{method} = original; }};
         IDBObjectStore.prototype.{method} = function (value, key) {{ {body} }};"
    ));
}

/// Another connection upgrades `name` past this build's schema, then closes.
async fn upgrade_elsewhere(name: &str) {
    let factory = idb::Factory::new().unwrap();
    let db = factory
        .open(name, Some(VERSION + 1))
        .unwrap()
        .await
        .unwrap();
    db.close();
}

fn restore_store_method() {
    run_js("globalThis.__attacheRestore()");
}

#[wasm_bindgen_test]
async fn a_request_that_throws_mid_transaction_aborts_it_and_nothing_is_stored() {
    let name = fresh_name("throw");
    let store = open(&name, Durability::Default).await;
    let before = store.create_session(new("s")).await.unwrap();
    // The frames are already added when the session's updatedAt put throws.
    wrap_store_method(
        "put",
        "if (this.name === 'sessions') throw new DOMException('injected', 'DataError'); return original.call(this, value, key);",
    );
    let result = store.append_activity_frames("s", "r", frames("x", 5)).await;
    restore_store_method();
    let error = result.expect_err("the append fails");
    assert_eq!(
        (error.code(), error.dom_name()),
        ("ABORTED", Some("DataError"))
    );
    assert!(
        store
            .load_activity_frames("s", None)
            .await
            .unwrap()
            .is_empty(),
        "the frames already added were rolled back"
    );
    assert_eq!(
        store.get_session("s").await.unwrap(),
        Some(before),
        "updatedAt is untouched"
    );
    store.close();
    delete_database(&name).await;
}

#[wasm_bindgen_test]
async fn a_request_that_fails_later_aborts_the_transaction_with_its_dom_name() {
    let name = fresh_name("constraint");
    let store = open(&name, Durability::Default).await;
    store.create_session(new("s")).await.unwrap();
    // Every frames record under one explicit key: the second append's add
    // fails asynchronously, after the request was issued.
    wrap_store_method(
        "add",
        "return original.call(this, value, this.name === 'activity_frames' ? 1 : key);",
    );
    let first = store.append_activity_frames("s", "r", frames("a", 2)).await;
    let after_first = store.get_session("s").await.unwrap();
    let second = store.append_activity_frames("s", "r", frames("b", 3)).await;
    restore_store_method();
    first.expect("the first record takes key 1");
    let error = second.expect_err("the second record collides");
    assert_eq!(
        (error.code(), error.dom_name()),
        ("ABORTED", Some("ConstraintError"))
    );
    assert_eq!(
        store.load_activity_frames("s", None).await.unwrap(),
        frames("a", 2),
        "nothing of the failed append is stored"
    );
    assert_eq!(
        store.get_session("s").await.unwrap(),
        after_first,
        "its updatedAt bump was rolled back"
    );
    store
        .append_activity_frames("s", "r", frames("c", 1))
        .await
        .unwrap();
    assert_eq!(
        store.load_activity_frames("s", None).await.unwrap(),
        [frames("a", 2), frames("c", 1)].concat(),
        "the store stays usable"
    );
    store.close();
    delete_database(&name).await;
}

#[wasm_bindgen_test]
async fn a_read_that_fails_before_the_last_is_named_by_its_own_error() {
    let name = fresh_name("first-read");
    let store = open(&name, Durability::Default).await;
    store.create_session(new("s")).await.unwrap();
    store.save_session_state("s", "k", json!(1)).await.unwrap();
    // deleteSession's first read, the session's get, fails later (a
    // colliding add in its place); the reads after it fail with AbortError.
    wrap_store_method(
        "get",
        "if (this.name === 'sessions') return this.add({ id: value }); return original.call(this, value, key);",
    );
    let result = store.delete_session("s").await;
    restore_store_method();
    let error = result.expect_err("the delete fails");
    assert_eq!(
        (error.code(), error.dom_name()),
        ("ABORTED", Some("ConstraintError"))
    );
    assert_eq!(
        store.load_session_state("s", "k").await.unwrap(),
        Some(json!(1)),
        "nothing was deleted"
    );
    store.close();
    delete_database(&name).await;
}

#[wasm_bindgen_test]
async fn a_write_counts_only_once_its_transaction_completes() {
    let name = fresh_name("complete");
    let store = open(&name, Durability::Default).await;
    store.create_session(new("s")).await.unwrap();
    store.save_session_state("s", "k", json!(1)).await.unwrap();
    // The last put (the session's updatedAt) succeeds, then its transaction
    // is aborted before it commits: every request succeeded.
    wrap_store_method(
        "put",
        "const request = original.call(this, value, key); if (this.name === 'sessions') request.addEventListener('success', () => request.transaction.abort()); return request;",
    );
    let result = store.save_session_state("s", "k", json!(2)).await;
    restore_store_method();
    assert_eq!(
        result.expect_err("the save fails").code(),
        "ABORTED",
        "a successful request is not a completed write"
    );
    assert_eq!(
        store.load_session_state("s", "k").await.unwrap(),
        Some(json!(1))
    );
    store.close();
    delete_database(&name).await;
}

#[wasm_bindgen_test]
async fn a_database_from_a_newer_version_is_a_version_error() {
    let name = fresh_name("newer");
    upgrade_elsewhere(&name).await;
    let error = attache::idb::IdbSessionStore::open(
        &name,
        Durability::Default,
        std::rc::Rc::new(attache::idb::BrowserEnvironment),
    )
    .await
    .err()
    .expect("a newer database is refused");
    assert_eq!(
        (error.code(), error.dom_name()),
        ("VERSION", Some("VersionError")),
        "{error}"
    );
    delete_database(&name).await;
}

#[wasm_bindgen_test]
async fn a_hosts_own_database_is_refused_at_open_and_left_untouched() {
    let name = fresh_name("hosts");
    let factory = idb::Factory::new().unwrap();
    let mut request = factory.open(&name, Some(VERSION)).unwrap();
    request.on_upgrade_needed(|event| {
        use idb::DatabaseEvent;
        let db = event.database().unwrap();
        db.create_object_store("host_data", idb::ObjectStoreParams::new())
            .unwrap();
    });
    let db = request.await.unwrap();
    let tx = db
        .transaction(&["host_data"], idb::TransactionMode::ReadWrite)
        .unwrap();
    tx.object_store("host_data")
        .unwrap()
        .put(&"kept".into(), Some(&"k".into()))
        .unwrap()
        .await
        .unwrap();
    tx.await.unwrap();
    db.close();
    let error = attache::idb::IdbSessionStore::open(
        &name,
        Durability::Default,
        std::rc::Rc::new(attache::idb::BrowserEnvironment),
    )
    .await
    .err()
    .expect("a database without attache's stores is refused");
    assert_eq!(
        (error.code(), error.dom_name()),
        ("VERSION", None),
        "{error}"
    );
    assert!(error.to_string().contains("no attache stores"), "{error}");
    let db = factory.open(&name, None).unwrap().await.unwrap();
    assert_eq!(
        (db.version().unwrap(), db.store_names()),
        (VERSION, vec!["host_data".to_owned()]),
        "untouched"
    );
    let tx = db
        .transaction(&["host_data"], idb::TransactionMode::ReadOnly)
        .unwrap();
    let kept = tx
        .object_store("host_data")
        .unwrap()
        .get(idb::Query::Key("k".into()))
        .unwrap()
        .await
        .unwrap();
    assert_eq!(kept.and_then(|v| v.as_string()).as_deref(), Some("kept"));
    db.close();
    delete_database(&name).await;
}

#[wasm_bindgen_test]
async fn migrations_keep_stores_they_did_not_name() {
    let name = fresh_name("foreign");
    let factory = idb::Factory::new().unwrap();
    let mut request = factory.open(&name, Some(VERSION)).unwrap();
    request.on_upgrade_needed(|event| {
        use idb::DatabaseEvent;
        let db = event.database().unwrap();
        db.create_object_store("host_data", idb::ObjectStoreParams::new())
            .unwrap();
        schema::migrate(&db, 0).unwrap();
    });
    request.await.unwrap().close();
    let store = open(&name, Durability::Default).await;
    store.create_session(new("s")).await.unwrap();
    let db = store.current_connection().unwrap();
    let names: Vec<String> = (0..db.object_store_names().length())
        .filter_map(|i| db.object_store_names().item(i))
        .collect();
    assert_eq!(
        names,
        [
            "activity_frames",
            "host_data",
            "messages",
            "session_state",
            "sessions"
        ]
    );
    store.close();
    delete_database(&name).await;
}

fn recorder() -> (Rc<RefCell<Vec<VersionChange>>>, attache::idb::Listener) {
    let seen = Rc::new(RefCell::new(Vec::new()));
    let sink = seen.clone();
    (seen, Rc::new(move |change| sink.borrow_mut().push(change)))
}

#[wasm_bindgen_test]
async fn an_upgrade_elsewhere_closes_our_connection_and_tells_the_host() {
    let name = fresh_name("upgrade");
    let store = open(&name, Durability::Default).await;
    let (seen, listener) = recorder();
    store.on_version_change(Some(listener));
    // This open would wait forever if the store kept its connection.
    upgrade_elsewhere(&name).await;
    assert_eq!(
        *seen.borrow(),
        [VersionChange {
            old_version: VERSION,
            new_version: Some(VERSION + 1)
        }]
    );
    assert!(
        store.current_connection().is_none(),
        "the store closed its connection"
    );
    let error = store
        .list_sessions()
        .await
        .expect_err("the database is newer now");
    assert_eq!(
        error.code(),
        "VERSION",
        "the next call reopens and finds a newer schema: {error}"
    );
    delete_database(&name).await;
}

#[wasm_bindgen_test]
async fn a_write_in_flight_when_another_connection_upgrades_completes_first() {
    let name = fresh_name("upgrade-in-flight");
    let store = open(&name, Durability::Default).await;
    store.create_session(new("s")).await.unwrap();
    let factory = idb::Factory::new().unwrap();
    // The append begins its transaction when first polled, before the
    // upgrade asks; closing on versionchange lets that transaction finish.
    let (appended, upgraded) = futures::future::join(
        store.append_activity_frames("s", "r", frames("x", 3)),
        async { factory.open(&name, Some(VERSION + 1)).unwrap().await },
    )
    .await;
    appended.expect("a write already begun completes");
    let db = upgraded.expect("then the upgrade proceeds");
    let tx = db
        .transaction(&[schema::ACTIVITY_FRAMES], idb::TransactionMode::ReadOnly)
        .unwrap();
    let records = tx
        .object_store(schema::ACTIVITY_FRAMES)
        .unwrap()
        .count(None)
        .unwrap()
        .await
        .unwrap();
    assert_eq!(
        records, 1,
        "the append's record is in the upgraded database"
    );
    db.close();
    let error = store
        .append_activity_frames("s", "r", frames("y", 1))
        .await
        .expect_err("a call after the upgrade");
    assert_eq!(error.code(), "VERSION", "{error}");
    delete_database(&name).await;
}

#[wasm_bindgen_test]
async fn a_delete_elsewhere_closes_our_connection_and_the_next_call_reopens() {
    let name = fresh_name("deleted");
    let store = open(&name, Durability::Default).await;
    store.create_session(new("old")).await.unwrap();
    let (seen, listener) = recorder();
    store.on_version_change(Some(listener));
    delete_database(&name).await;
    assert_eq!(
        *seen.borrow(),
        [VersionChange {
            old_version: VERSION,
            new_version: None
        }]
    );
    store.create_session(new("new")).await.unwrap();
    let ids: Vec<String> = store
        .list_sessions()
        .await
        .unwrap()
        .into_iter()
        .map(|s| s.id)
        .collect();
    assert_eq!(ids, ["new"], "a fresh database was opened");
    store.close();
    delete_database(&name).await;
}

#[wasm_bindgen_test]
async fn close_waits_for_calls_made_before_it_on_the_same_connection() {
    let name = fresh_name("close-held");
    let store = open(&name, Durability::Default).await;
    store.create_session(new("s")).await.unwrap();
    let db = store.current_connection().unwrap();
    // As the binding does: the hold is taken when the call is made, and
    // the call's future first runs after the host's close().
    let hold = store.hold();
    let append = store.append_activity_frames("s", "r", frames("x", 1));
    store.close();
    assert!(store.current_connection().is_some_and(|kept| kept == db));
    append.await.unwrap();
    drop(hold);
    assert!(
        store.current_connection().is_none(),
        "closed once it settled"
    );
    // A call made after close() keeps the connection, as it would reopen it.
    store.get_session("s").await.unwrap();
    let db = store.current_connection().expect("the next call reopened");
    let first = store.hold();
    store.close();
    let second = store.hold();
    drop(first);
    assert!(store.current_connection().is_some_and(|kept| kept == db));
    drop(second);
    assert!(
        store.current_connection().is_some(),
        "open, as after a reopen"
    );
    store.close();
    assert!(store.current_connection().is_none());
    delete_database(&name).await;
}

#[wasm_bindgen_test]
async fn a_connection_closed_behind_the_stores_back_is_reopened() {
    let name = fresh_name("lost");
    let store = open(&name, Durability::Default).await;
    store.create_session(new("s")).await.unwrap();
    store.current_connection().unwrap().close();
    assert!(
        store.get_session("s").await.unwrap().is_some(),
        "a read reopens and retries"
    );
    store.current_connection().unwrap().close();
    store
        .append_activity_frames("s", "r", frames("x", 2))
        .await
        .unwrap();
    assert_eq!(
        store.load_activity_frames("s", Some("r")).await.unwrap(),
        frames("x", 2),
        "an append reopens too"
    );
    store.close();
    delete_database(&name).await;
}

#[wasm_bindgen_test]
async fn a_connection_the_browser_closes_is_let_go_at_its_close_event() {
    let name = fresh_name("close-event");
    let store = open(&name, Durability::Default).await;
    store.create_session(new("s")).await.unwrap();
    let db = store.current_connection().unwrap();
    // As the browser fires it (site data cleared); a script's close() fires none.
    db.dispatch_event(&web_sys::Event::new("close").unwrap())
        .unwrap();
    assert!(store.current_connection().is_none(), "the store let it go");
    assert!(
        store.get_session("s").await.unwrap().is_some(),
        "the next call opens anew"
    );
    assert!(store.current_connection().is_some_and(|again| again != db));
    store.close();
    delete_database(&name).await;
}

#[wasm_bindgen_test]
async fn the_durability_option_is_applied_to_write_transactions() {
    for durability in [Durability::Relaxed, Durability::Strict] {
        let name = fresh_name("durability");
        let store = open(&name, durability).await;
        run_js(
            "const original = IDBDatabase.prototype.transaction;
             globalThis.__attacheTx = [];
             globalThis.__attacheRestoreTx = () => { IDBDatabase.prototype.transaction = original; };
             IDBDatabase.prototype.transaction = function (...args) {
               const tx = original.apply(this, args);
               globalThis.__attacheTx.push(tx.mode + ':' + tx.durability);
               return tx;
             };",
        );
        store.create_session(new("s")).await.unwrap();
        store.load_messages("s").await.unwrap();
        let seen = run_js("const seen = globalThis.__attacheTx; globalThis.__attacheRestoreTx(); return seen.join(',');");
        // Written out: the store's own name for the option would agree
        // with itself.
        let expected = match durability {
            Durability::Relaxed => "readwrite:relaxed,readonly:default",
            Durability::Strict => "readwrite:strict,readonly:default",
            Durability::Default => unreachable!("not among those tried"),
        };
        assert_eq!(
            seen.as_string().unwrap(),
            expected,
            "writes carry the option, reads do not need it"
        );
        store.close();
        delete_database(&name).await;
    }
}

/// Counts `indexedDB.open` calls until `opens_counted` returns the count.
fn count_opens() {
    run_js(
        "const open = IDBFactory.prototype.open;
         globalThis.__attacheOpens = 0;
         globalThis.__attacheRestoreOpen = () => { IDBFactory.prototype.open = open; };
         IDBFactory.prototype.open = function (...args) {
           globalThis.__attacheOpens++;
           return open.apply(this, args);
         };",
    );
}

fn opens_counted() -> Option<f64> {
    run_js("globalThis.__attacheRestoreOpen(); return globalThis.__attacheOpens;").as_f64()
}

#[wasm_bindgen_test]
async fn a_burst_of_calls_after_a_close_opens_one_connection() {
    let name = fresh_name("burst");
    let store = open(&name, Durability::Default).await;
    store.create_session(new("s")).await.unwrap();
    store.close();
    count_opens();
    let calls = (0..20).map(|i| store.append_activity_frames("s", "r", vec![json!({ "i": i })]));
    let results = futures::future::join_all(calls).await;
    let opens = opens_counted();
    assert!(results.iter().all(Result::is_ok), "{results:?}");
    assert_eq!(opens, Some(1.0), "the calls waited for one open");
    let order: Vec<u64> = (store.load_activity_frames("s", Some("r")).await.unwrap())
        .iter()
        .map(|f| f["i"].as_u64().unwrap())
        .collect();
    assert_eq!(order, (0..20).collect::<Vec<_>>(), "in the order made");
    store.close();
    delete_database(&name).await;
}

#[wasm_bindgen_test]
async fn a_burst_of_calls_shares_the_failure_of_the_one_open() {
    let name = fresh_name("burst-fails");
    let store = open(&name, Durability::Default).await;
    store.close();
    upgrade_elsewhere(&name).await;
    count_opens();
    let calls = (0..20).map(|_| store.list_sessions());
    let results = futures::future::join_all(calls).await;
    let opens = opens_counted();
    let codes: Vec<_> = results
        .iter()
        .map(|r| r.as_ref().map_err(|e| e.code()))
        .collect();
    assert!(codes.iter().all(|c| *c == Err("VERSION")), "{codes:?}");
    assert_eq!(
        opens,
        Some(1.0),
        "the calls waited for one open, and its error"
    );
    count_opens();
    assert!(store.list_sessions().await.is_err());
    assert_eq!(opens_counted(), Some(1.0), "a later call opens again");
    store.close();
    delete_database(&name).await;
}

#[wasm_bindgen_test]
async fn a_reopen_the_browser_aborts_is_a_lost_connection_and_the_next_call_opens_anew() {
    let name = fresh_name("open-aborted");
    let store = open(&name, Durability::Default).await;
    store.create_session(new("s")).await.unwrap();
    store.current_connection().unwrap().close();
    // As Firefox does when site data is cleared again under the reopen:
    // the open fails with AbortError, after the store's upgrade ran (on a
    // throwaway database, so the upgrade has something to do).
    run_js(&format!(
        "const open = IDBFactory.prototype.open;
         IDBFactory.prototype.open = function () {{
           IDBFactory.prototype.open = open;
           const request = open.call(this, {throwaway:?}, 1);
           // Added once the store set its onupgradeneeded, so it runs after.
           queueMicrotask(() => request.addEventListener('upgradeneeded', () => request.transaction.abort()));
           return request;
         }};",
        throwaway = format!("{name}-throwaway")
    ));
    let error = store
        .get_session("s")
        .await
        .expect_err("the open was aborted");
    assert_eq!(error.code(), "CONNECTION_LOST", "{error:?}");
    assert_eq!(error.dom_name(), Some("AbortError"));
    assert!(
        store.get_session("s").await.unwrap().is_some(),
        "the next call opens anew"
    );
    store.close();
    delete_database(&name).await;
    delete_database(&format!("{name}-throwaway")).await;
}

#[wasm_bindgen_test]
async fn two_connections_appending_concurrently_keep_every_frame_in_each_writers_order() {
    let name = fresh_name("concurrent");
    let (a, b) = (
        open(&name, Durability::Relaxed).await,
        open(&name, Durability::Relaxed).await,
    );
    a.create_session(new("s")).await.unwrap();
    let writer = |store: &attache::idb::IdbSessionStore, tag: &'static str| {
        let store = store as *const attache::idb::IdbSessionStore;
        async move {
            // SAFETY: both stores outlive the join below.
            let store = unsafe { &*store };
            for i in 0..500 {
                store
                    .append_activity_frames("s", "r", vec![json!({"tag": tag, "i": i})])
                    .await
                    .unwrap();
            }
        }
    };
    futures::future::join(writer(&a, "a"), writer(&b, "b")).await;
    let stored = a.load_activity_frames("s", Some("r")).await.unwrap();
    assert_eq!(stored.len(), 1000, "no frame was lost");
    for tag in ["a", "b"] {
        let order: Vec<u64> = stored
            .iter()
            .filter(|f| f["tag"] == tag)
            .map(|f| f["i"].as_u64().unwrap())
            .collect();
        assert_eq!(
            order,
            (0..500).collect::<Vec<_>>(),
            "writer {tag}'s frames keep its order"
        );
    }
    let interleaved = stored.windows(2).any(|w| w[0]["tag"] != w[1]["tag"]);
    assert!(interleaved, "the writers really ran concurrently");
    a.close();
    b.close();
    delete_database(&name).await;
}

#[wasm_bindgen_test]
async fn each_call_is_one_transaction_with_every_request_issued_inside_it() {
    let name = fresh_name("scope");
    let store = open(&name, Durability::Default).await;
    store.create_session(new("s")).await.unwrap();
    // Counts transactions per call and checks every request belongs to the
    // call's one transaction while it is still active (IndexedDB throws
    // TransactionInactiveError otherwise, which would fail the call).
    run_js(
        "const open = IDBDatabase.prototype.transaction;
         const methods = ['add', 'put', 'get', 'delete', 'getAll', 'getAllKeys', 'getKey'];
         const originals = methods.map((m) => IDBObjectStore.prototype[m]);
         const log = globalThis.__attacheScope = { transactions: [], strays: 0 };
         IDBDatabase.prototype.transaction = function (...args) {
           const tx = open.apply(this, args);
           log.transactions.push(tx);
           return tx;
         };
         methods.forEach((m, i) => {
           IDBObjectStore.prototype[m] = function (...args) {
             if (this.transaction !== log.transactions.at(-1)) log.strays += 1;
             return originals[i].apply(this, args);
           };
         });
         globalThis.__attacheRestoreScope = () => {
           IDBDatabase.prototype.transaction = open;
           methods.forEach((m, i) => { IDBObjectStore.prototype[m] = originals[i]; });
         };",
    );
    let count = || {
        run_js("return globalThis.__attacheScope.transactions.length")
            .as_f64()
            .unwrap()
    };
    let mut per_call = Vec::new();
    let before = count();
    store
        .append_activity_frames("s", "r", frames("x", 200))
        .await
        .unwrap();
    per_call.push(count() - before);
    let before = count();
    store
        .save_session_state("s", "k", json!({"v": 1}))
        .await
        .unwrap();
    per_call.push(count() - before);
    let before = count();
    store
        .append_messages(
            "s",
            vec![
                json!({"role": "user", "content": "hi"}),
                json!({"role": "assistant", "content": "hello"}),
            ],
        )
        .await
        .unwrap();
    per_call.push(count() - before);
    let before = count();
    assert!(store.delete_session("s").await.unwrap());
    per_call.push(count() - before);
    let strays = run_js(
        "const s = globalThis.__attacheScope.strays; globalThis.__attacheRestoreScope(); return s;",
    );
    assert_eq!(
        per_call,
        [1.0, 1.0, 1.0, 1.0],
        "a batch, a save, messages and a cascade delete are one transaction each"
    );
    assert_eq!(
        strays.as_f64(),
        Some(0.0),
        "every request went to its call's own transaction"
    );
    store.close();
    delete_database(&name).await;
}

/// How a connection is lost under a call: WebKit's "connection lost"
/// thrown by a request; as Chromium does when site data is cleared, the
/// transaction aborted with a plain AbortError while its connection
/// closes; or, as Firefox does then, the transaction never settles (none
/// of its events reach the store) and the connection fires `close`.
const WEBKIT_LOST: &str = "throw new DOMException('Connection to Indexed Database server lost. Refresh the page to try again', 'UnknownError');";
const CHROMIUM_CLOSED: &str =
    "const request = original.apply(this, args); this.transaction.db.close(); this.transaction.abort(); return request;";
const FIREFOX_UNSETTLED: &str = "const request = original.apply(this, args);
     const tx = this.transaction;
     for (const type of ['success', 'error', 'complete', 'abort']) {
       tx.db.addEventListener(type, (event) => event.stopImmediatePropagation(), true);
     }
     // Once the call's requests of this turn are made: nothing is stored.
     queueMicrotask(() => tx.abort());
     setTimeout(() => tx.db.dispatchEvent(new Event('close')));
     return request;";

/// Makes the next call of `IDBObjectStore.prototype[method]` run `fault`;
/// `fired()` then says whether one did.
fn fault_once_in(fault: &str, method: &str) {
    run_js(&format!(
        "globalThis.__attacheFired = false;
         const original = IDBObjectStore.prototype.{method};
         IDBObjectStore.prototype.{method} = function (...args) {{
           IDBObjectStore.prototype.{method} = original;
           globalThis.__attacheFired = true;
           {fault}
         }};"
    ));
}

/// Whether the fault `fault_once_in` set up ran: else a call that never
/// used its method would pass as retried.
fn fired() -> bool {
    run_js("return globalThis.__attacheFired === true;").as_bool() == Some(true)
}

#[wasm_bindgen_test]
async fn a_connection_lost_midway_is_retried_once_for_idempotent_calls_only() {
    for fault in [WEBKIT_LOST, CHROMIUM_CLOSED, FIREFOX_UNSETTLED] {
        let name = fresh_name("lost-midway");
        let store = open(&name, Durability::Default).await;
        store.create_session(new("s")).await.unwrap();
        store.save_session_state("s", "k", json!(1)).await.unwrap();

        fault_once_in(fault, "get");
        assert_eq!(
            store.load_session_state("s", "k").await.unwrap(),
            Some(json!(1)),
            "a read is retried"
        );
        assert!(fired(), "the read met the fault");

        fault_once_in(fault, "put");
        store.save_session_state("s", "k", json!(2)).await.unwrap();
        assert!(fired(), "the save met the fault");
        assert_eq!(
            store.load_session_state("s", "k").await.unwrap(),
            Some(json!(2)),
            "a save (a put) is retried"
        );

        fault_once_in(fault, "put");
        store.save_attachments("s", &pinned_mix()).await.unwrap();
        assert!(fired(), "saving the pins met the fault");
        let saved = store.load_attachments("s").await.unwrap().expect("saved");
        assert_eq!(
            saved.consolidated_message(),
            pinned_mix().consolidated_message(),
            "saving the pins, puts alone, is retried"
        );

        fault_once_in(fault, "add");
        let error = store
            .append_activity_frames("s", "r", frames("x", 2))
            .await
            .expect_err("an append is not retried");
        assert!(fired(), "the append met the fault");
        assert_eq!(error.code(), "CONNECTION_LOST", "{error:?}");
        if fault == WEBKIT_LOST {
            assert_eq!(error.dom_name(), Some("UnknownError"));
        }
        assert!(
            store
                .load_activity_frames("s", None)
                .await
                .unwrap()
                .is_empty(),
            "and it stored nothing"
        );
        store
            .append_activity_frames("s", "r", frames("x", 2))
            .await
            .unwrap();
        assert_eq!(
            store.load_activity_frames("s", None).await.unwrap(),
            frames("x", 2),
            "the host may append again"
        );
        store.close();
        delete_database(&name).await;
    }
}

#[wasm_bindgen_test]
async fn a_connection_lost_for_good_is_dropped_so_the_next_call_opens_anew() {
    let name = fresh_name("lost-for-good");
    let store = open(&name, Durability::Default).await;
    store.create_session(new("s")).await.unwrap();
    // WebKit's lost connection still begins transactions, and every
    // request on it fails; an append is not retried.
    run_js("globalThis.__attacheDead = undefined;");
    wrap_store_method(
        "add",
        &format!(
            "globalThis.__attacheDead ??= this.transaction.db;
             if (this.transaction.db === globalThis.__attacheDead) {{ {WEBKIT_LOST} }}
             return original.call(this, value, key);"
        ),
    );
    let lost = store.append_activity_frames("s", "r", frames("x", 1)).await;
    let next = store.append_activity_frames("s", "r", frames("y", 2)).await;
    restore_store_method();
    assert_eq!(lost.expect_err("lost").code(), "CONNECTION_LOST");
    next.expect("the next append opens a new connection");
    assert_eq!(
        store.load_activity_frames("s", None).await.unwrap(),
        frames("y", 2)
    );
    store.close();
    delete_database(&name).await;
}

#[wasm_bindgen_test]
async fn pinned_attachments_survive_a_new_connection_byte_identical() {
    let name = fresh_name("reload");
    let before = {
        let store = open(&name, Durability::Default).await;
        store.create_session(new("s")).await.unwrap();
        let pinned = pinned_mix();
        store.save_attachments("s", &pinned).await.unwrap();
        store.close();
        pinned
    };
    // A reload: a fresh store on the same database.
    let store = open(&name, Durability::Default).await;
    let after = store
        .load_attachments("s")
        .await
        .unwrap()
        .expect("saved before the reload");
    assert_eq!(
        after.ids().collect::<Vec<_>>(),
        before.ids().collect::<Vec<_>>()
    );
    assert_eq!(after.consolidated_message(), before.consolidated_message());
    store.close();
    delete_database(&name).await;
}

/// Records written behind the store's back, in one transaction over every
/// store, as another program could: `body` uses `tx`.
async fn write_behind(store: &attache::idb::IdbSessionStore, body: &str) {
    let db: wasm_bindgen::JsValue = store.current_connection().unwrap().into();
    let write = js_sys::Function::new_with_args(
        "db",
        &format!(
            "return new Promise((resolve, reject) => {{
               const tx = db.transaction(['activity_frames', 'session_state', 'messages', 'sessions'], 'readwrite');
               {body}
               tx.oncomplete = resolve;
               tx.onerror = () => reject(tx.error);
             }});"
        ),
    );
    let written: js_sys::Promise = write
        .call1(&wasm_bindgen::JsValue::NULL, &db)
        .unwrap()
        .into();
    wasm_bindgen_futures::JsFuture::from(written).await.unwrap();
}

#[wasm_bindgen_test]
async fn an_export_refuses_damaged_records_that_would_paste_as_valid_json() {
    let name = fresh_name("export-damaged");
    let store = open(&name, Durability::Default).await;
    for id in [
        "title", "two", "key", "wizard", "pair", "lead", "good", "frames", "frames2", "numbers",
        "noid", "blank", "spaced",
    ] {
        store.create_session(new(id)).await.unwrap();
    }
    // Each would join into a document that parses, holding what no one
    // saved: a key `injected`, a key "", a message dropped or split.
    write_behind(
        &store,
        "tx.objectStore('sessions').put({ id: 'title', json: '{\"id\":\"title\",\"title\":5,\"createdAt\":1,\"updatedAt\":1,\"meta\":{}}' });
        tx.objectStore('session_state').put({ sessionId: 'two', key: 'k', json: '1,\"injected\":{\"a\":1}' });
        tx.objectStore('session_state').put({ sessionId: 'key', key: 7, json: '1' });
        tx.objectStore('messages').add({ sessionId: 'wizard', json: '{\"role\":\"wizard\",\"content\":\"b\"}' });
        tx.objectStore('messages').add({ sessionId: 'pair', json: '{\"role\":\"user\",\"content\":\"a\"},{\"role\":\"user\",\"content\":\"b\"}' });
        tx.objectStore('messages').add({ sessionId: 'lead', json: '' });
        tx.objectStore('messages').add({ sessionId: 'lead', json: '{\"role\":\"user\",\"content\":\"a\"}' });
        tx.objectStore('session_state').put({ sessionId: 'good', key: 'k', json: '{\"a\":1}' });
        tx.objectStore('activity_frames').add({ sessionId: 'frames', requestId: 'r', json: '[{\"t\":1}]},{\"requestId\":\"never\",\"frames\":[{\"t\":2}]' });
        tx.objectStore('activity_frames').add({ sessionId: 'frames2', requestId: 'r', json: '[{\"t\":\"]\\\\\"}\"}],\"injected\":[{\"t\":2}]' });
        tx.objectStore('activity_frames').add({ sessionId: 'numbers', requestId: 'r', json: '[1,{\"t\":1}]' });
        tx.objectStore('activity_frames').add({ sessionId: 'noid', json: '[{\"t\":1}]' });
        tx.objectStore('activity_frames').add({ sessionId: 'blank', requestId: '', json: '[{\"t\":1}]' });
        tx.objectStore('activity_frames').add({ sessionId: 'spaced', requestId: ' ', json: '[{\"t\":1}]' });",
    )
    .await;
    // A frame batch that closes early pasted a request no one stored; one
    // holding a frame that is no object, or with no request id, exported
    // a document its import refuses.
    for id in ["frames", "frames2", "numbers", "noid", "blank"] {
        let error = store.load_frames_by_request(id).await.unwrap_err();
        assert_eq!(error.field(), Some("stored"), "{id}: {error}");
    }
    for id in ["noid", "blank"] {
        let error = store.list_requests(id).await.unwrap_err();
        assert_eq!(error.field(), Some("stored"), "{id}: {error}");
    }
    // A blank id, which builds before 1 December wrote, still loads.
    let spaced = store.load_frames_by_request("spaced").await.unwrap();
    assert_eq!(spaced, vec![(" ".to_owned(), vec![json!({"t": 1})])]);
    let error = store
        .load_activity_frames("numbers", Some("r"))
        .await
        .unwrap_err();
    assert_eq!(error.field(), Some("stored"), "{error}");
    for id in [
        "title", "two", "key", "pair", "lead", "frames", "frames2", "numbers", "noid", "blank",
    ] {
        let error = store.export_session(id).await.unwrap_err();
        assert_eq!(
            (error.code(), error.field()),
            ("INVALID_VALUE", Some("stored")),
            "{id}: {error}"
        );
    }
    // An empty record first joined into `[]` and vanished from a load.
    let error = store.load_messages("lead").await.unwrap_err();
    assert_eq!(error.field(), Some("stored"), "{error}");
    // One record, one value: a message an older version stored exports as
    // it loads, and its import then says what is wrong with it.
    let wizard = store.export_session("wizard").await.unwrap();
    assert!(wizard.contains(r#""role":"wizard""#), "{wizard}");
    // Brackets and escaped quotes inside a frame's strings are its own.
    let tricky = vec![json!({"t": "]}\"],[{"}), json!({"u": "\\"})];
    store
        .append_activity_frames("good", "r", tricky.clone())
        .await
        .unwrap();
    let grouped = store.load_frames_by_request("good").await.unwrap();
    assert_eq!(grouped, vec![("r".to_owned(), tricky)]);
    let good = store.export_session("good").await.unwrap();
    assert!(good.contains(r#""state":{"k":{"a":1}}"#), "{good}");
    store.close();
    delete_database(&name).await;
}

#[wasm_bindgen_test]
async fn a_stored_payload_that_is_not_json_is_a_typed_error_not_a_crash() {
    let name = fresh_name("corrupt");
    let store = open(&name, Durability::Default).await;
    store.create_session(new("s")).await.unwrap();
    store
        .append_activity_frames("s", "ok", frames("x", 2))
        .await
        .unwrap();
    // Records written behind the store's back, as another program could.
    write_behind(
        &store,
        "tx.objectStore('activity_frames').add({ sessionId: 's', requestId: 'bad', json: '{\"not\": \"a batch\"}' });
        tx.objectStore('activity_frames').add({ sessionId: 's', requestId: 'cut', json: '[1,' });
        tx.objectStore('activity_frames').add({ sessionId: 's', requestId: 'syntax', json: '[1,}]' });
        tx.objectStore('session_state').put({ sessionId: 's', key: 'k', json: '{\"open\": ' });
        tx.objectStore('messages').add({ sessionId: 's', json: '{\"role\": ' });
        // Imported before imports capped times: still a session to list.
        tx.objectStore('sessions').put({ id: 'far', json: '{\"id\":\"far\",\"title\":\"\",\"createdAt\":9000000000000000,\"updatedAt\":9000000000000000,\"meta\":{}}' });
        tx.objectStore('sessions').put({ id: 'broken', json: '{\"id\":\"broken\",\"title\":7}' });",
    )
    .await;

    for request in ["bad", "cut", "syntax"] {
        let error = store
            .load_activity_frames("s", Some(request))
            .await
            .unwrap_err();
        assert_eq!(error.code(), "INVALID_VALUE", "{request}: {error}");
    }
    let error = store
        .load_activity_frames_json("s", Some("bad"))
        .await
        .unwrap_err();
    assert_eq!(error.code(), "INVALID_VALUE");
    let error = store.load_session_state("s", "k").await.unwrap_err();
    assert_eq!(error.code(), "INVALID_VALUE");
    let listed = store.list_sessions().await.unwrap();
    assert_eq!(
        listed.iter().map(|s| s.id.as_str()).collect::<Vec<_>>(),
        ["far", "s"],
        "a stored session with a far time still lists; a damaged one fails no other"
    );
    let error = store.get_session("broken").await.unwrap_err();
    assert_eq!(
        (error.code(), error.field()),
        ("INVALID_VALUE", Some("stored"))
    );
    assert!(store.delete_session("broken").await.unwrap());
    // A pop that cannot return the message does not delete it either.
    for _ in 0..2 {
        let error = store.pop_message("s").await.unwrap_err();
        assert_eq!(error.code(), "INVALID_VALUE", "{error}");
    }
    assert_eq!(
        store.load_activity_frames("s", Some("ok")).await.unwrap(),
        frames("x", 2),
        "good records still load"
    );
    store.close();
    delete_database(&name).await;
}

/// IndexedDB reads the schema's and a transaction's parameters, and keys
/// its records, with inherited members: read-only ones on a polluted
/// Object.prototype made unique indexes, failed every call, or dropped a
/// record's payload.
#[wasm_bindgen_test]
async fn a_polluted_object_prototype_changes_no_schema_transaction_or_record() {
    let name = fresh_name("polluted");
    let keys = "['durability', 'fast'], ['unique', true], ['multiEntry', true], ['autoIncrement', true], ['keyPath', 'x'], ['json', 'x']";
    run_js(&format!(
        "for (const [k, v] of [{keys}]) Object.defineProperty(Object.prototype, k, {{ value: v, writable: false, configurable: true }});"
    ));
    let result = async {
        // Not the helper: a failed open must still undo the pollution.
        let store = attache::idb::IdbSessionStore::open(
            &name,
            Durability::Relaxed,
            Rc::new(attache::idb::BrowserEnvironment),
        )
        .await?;
        store.create_session(new("s")).await?;
        store
            .append_activity_frames("s", "r", frames("a", 1))
            .await?;
        store
            .append_activity_frames("s", "r", frames("b", 1))
            .await?;
        store.save_session_state("s", "k", json!(1)).await?;
        let frames = store.load_activity_frames("s", Some("r")).await?;
        let state = store.load_session_state("s", "k").await?;
        Ok::<_, attache::Error>((frames.len(), state))
    }
    .await;
    run_js(&format!(
        "for (const [k] of [{keys}]) delete Object.prototype[k];"
    ));
    assert_eq!(result.unwrap(), (2, Some(json!(1))));
    delete_database(&name).await;
}
