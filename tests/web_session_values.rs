//! Values through the JS classes, as a host passes them: anything that is
//! not JSON data is refused with a typed error before anything is written.
#![cfg(target_arch = "wasm32")]

mod browser;

use attache::js::{is_attache_error, IdbSessionStore, MemorySessionStore};
use js_sys::{Promise, Reflect, JSON};
use wasm_bindgen::convert::TryFromJsValue;
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;
use wasm_bindgen_test::*;

async fn settle(promise: Promise) -> Result<JsValue, JsValue> {
    JsFuture::from(promise).await
}

fn js(source: &str) -> JsValue {
    browser::run_js(&format!("return {source};"))
}

fn get(value: &JsValue, name: &str) -> Option<String> {
    Reflect::get(value, &name.into())
        .ok()
        .and_then(|v| v.as_string())
}

/// Each of these frames is refused; the path names what is wrong.
const BAD_FRAMES: &[(&str, &str)] = &[
    ("{ f: () => 1 }", "frames[1].f"),
    ("{ s: Symbol('x') }", "frames[1].s"),
    ("{ n: 10n }", "frames[1].n"),
    (
        "(() => { const o = { a: {} }; o.a.back = o; return o; })()",
        "frames[1].a.back",
    ),
    ("{ n: NaN }", "frames[1].n"),
    ("{ n: -Infinity }", "frames[1].n"),
    ("{ list: [1, undefined] }", "frames[1].list[1]"),
    ("{ at: new Date(0) }", "frames[1].at"),
    ("{ text: 'lone \\uD800 surrogate' }", "frames[1].text"),
    ("[1, 2]", "frames[1]"),
];

macro_rules! value_suite {
    ($store:expr) => {{
        let store = $store;
        let session = settle(store.create_session(JsValue::UNDEFINED)).await.unwrap();
        let id = Reflect::get(&session, &"id".into()).unwrap();
        for (frame, path) in BAD_FRAMES {
            let frames = js(&format!("[{{ ok: 1 }}, {frame}]"));
            let error = settle(store.append_activity_frames(id.clone(), "r".into(), frames)).await.expect_err(frame);
            assert!(is_attache_error(&error), "{frame}: a typed AttacheError");
            assert_eq!(get(&error, "code").as_deref(), Some("INVALID_VALUE"), "{frame}");
            assert_eq!(get(&error, "field").as_deref(), Some(*path), "{frame}");
        }
        let stored = settle(store.load_activity_frames(id.clone(), JsValue::UNDEFINED)).await.unwrap();
        assert_eq!(js_sys::Array::from(&stored).length(), 0, "no refused batch wrote anything");

        let state = js("{ a: 1 }");
        let error = settle(store.save_session_state(JsValue::from(7), "k".into(), state.clone())).await.unwrap_err();
        assert_eq!(get(&error, "code").as_deref(), Some("INVALID_ARGUMENT"), "a number is not a session id");
        let error = settle(store.save_session_state(id.clone(), "k".into(), js("{ f() {} }"))).await.unwrap_err();
        assert_eq!(get(&error, "code").as_deref(), Some("INVALID_VALUE"));
        assert!(settle(store.load_session_state(id.clone(), "k".into())).await.unwrap().is_null(), "nothing saved");

        let frame = js("{ type: 'tool', input: { q: 'é😀', n: -0.5, deep: [null, true, {}] }, skip: undefined }");
        settle(store.append_activity_frames(id.clone(), "r".into(), js_sys::Array::of1(&frame).into())).await.unwrap();
        let loaded = settle(store.load_activity_frames(id.clone(), "r".into())).await.unwrap();
        assert_eq!(
            JSON::stringify(&loaded).unwrap(),
            JSON::stringify(&js_sys::Array::of1(&frame)).unwrap(),
            "a frame comes back exactly as given"
        );
    }};
}

#[wasm_bindgen_test]
async fn the_memory_store_refuses_values_that_are_not_json() {
    value_suite!(MemorySessionStore::new(JsValue::UNDEFINED).unwrap());
}

#[wasm_bindgen_test]
async fn the_idb_store_refuses_values_that_are_not_json() {
    let name = browser::fresh_name("values");
    let options = js(&format!("{{ name: '{name}', durability: 'relaxed' }}"));
    let store: IdbSessionStore = {
        let opened = settle(IdbSessionStore::open(options)).await.unwrap();
        // The promise resolves to the JS wrapper; take the Rust value back out.
        IdbSessionStore::try_from_js_value(opened).expect("an IdbSessionStore")
    };
    value_suite!(&store);
    store.close();
    browser::delete_database(&name).await;
}

#[wasm_bindgen_test]
async fn open_refuses_an_unknown_durability() {
    let error = settle(IdbSessionStore::open(js("{ durability: 'fast' }")))
        .await
        .unwrap_err();
    assert_eq!(get(&error, "code").as_deref(), Some("INVALID_ARGUMENT"));
    assert_eq!(get(&error, "field").as_deref(), Some("durability"));
}

/// Objects made in another realm: an iframe's in a window; in a worker,
/// which has no iframe, objects whose prototype is a foreign-looking root
/// (another Object.prototype, as an iframe's would be).
fn foreign_realm() -> JsValue {
    js("(() => {
        if (typeof document !== 'undefined') {
          const frame = document.createElement('iframe');
          document.body.appendChild(frame);
          const realm = frame.contentWindow;
          return { parse: (t) => realm.JSON.parse(t), date: () => new realm.Date(0), isIframe: realm.Object !== Object };
        }
        const root = Object.create(null);
        const adopt = (v) => {
          if (Array.isArray(v)) return v.map(adopt);
          if (v === null || typeof v !== 'object') return v;
          return Object.assign(Object.create(root), Object.fromEntries(Object.entries(v).map(([k, x]) => [k, adopt(x)])));
        };
        return { parse: (t) => adopt(JSON.parse(t)), date: () => new Date(0), isIframe: false };
      })()")
}

#[wasm_bindgen_test]
async fn plain_data_from_another_realm_is_accepted_and_other_objects_are_not() {
    let realm = foreign_realm();
    let call = |name: &str, arg: &str| {
        let f: js_sys::Function = Reflect::get(&realm, &name.into()).unwrap().unchecked_into();
        f.call1(&JsValue::UNDEFINED, &arg.into()).unwrap()
    };
    let in_window = option_env!("ATTACHE_TEST_CONTEXT").unwrap_or("Window") == "Window";
    assert_eq!(
        Reflect::get(&realm, &"isIframe".into()).unwrap().as_bool(),
        Some(in_window),
        "a window tests a real iframe"
    );
    let text = r#"{"a":{"b":[1,{"c":"é"}]},"n":null}"#;
    let store = MemorySessionStore::new(JsValue::UNDEFINED).unwrap();
    let session = settle(store.create_session(JsValue::UNDEFINED))
        .await
        .unwrap();
    let id = Reflect::get(&session, &"id".into()).unwrap();
    settle(store.save_session_state(id.clone(), "k".into(), call("parse", text)))
        .await
        .expect("a foreign realm's plain object is plain data");
    let frames = call("parse", &format!("[{text}]"));
    settle(store.append_activity_frames(id.clone(), "r".into(), frames))
        .await
        .expect("and so is its array of plain objects");
    let loaded = settle(store.load_session_state(id.clone(), "k".into()))
        .await
        .unwrap();
    assert_eq!(JSON::stringify(&loaded).unwrap(), text, "stored exactly");

    let dated = call("parse", r#"{"at":null}"#);
    Reflect::set(&dated, &"at".into(), &call("date", "")).unwrap();
    let error = settle(store.save_session_state(id.clone(), "d".into(), dated))
        .await
        .expect_err("a foreign Date is still not plain data");
    assert_eq!(get(&error, "code").as_deref(), Some("INVALID_VALUE"));
    assert_eq!(get(&error, "field").as_deref(), Some("d.at"));

    let mut spec = attache::js::AttachmentStore::new();
    let pinned = call("parse", r#"{"kind":"memory","slug":"m","memory":"x"}"#);
    spec.set_attachment(pinned)
        .expect("an attachment spec from another realm is accepted");
}

/// A fresh IndexedDB store, through the JS class, holding session `s`.
async fn store_with_session(tag: &str) -> (IdbSessionStore, String) {
    let name = browser::fresh_name(tag);
    let options = js(&format!("{{ name: {name:?} }}"));
    let opened = settle(IdbSessionStore::open(options)).await.unwrap();
    let store = IdbSessionStore::try_from_js_value(opened).unwrap();
    settle(store.create_session(js("{ id: 's' }")))
        .await
        .unwrap();
    (store, name)
}

#[wasm_bindgen_test]
async fn a_stored_payload_that_does_not_parse_rejects_with_a_typed_error() {
    let (store, name) = store_with_session("corrupt-js").await;
    // A batch record whose text passes as an array but is not JSON,
    // written through a second connection as another program could.
    let write = js_sys::Function::new_with_args(
        "name",
        "return new Promise((resolve, reject) => {
           const open = indexedDB.open(name);
           open.onsuccess = () => {
             const db = open.result;
             const tx = db.transaction('activity_frames', 'readwrite');
             tx.objectStore('activity_frames').add({ sessionId: 's', requestId: 'r', json: '[1,}]' });
             tx.oncomplete = () => { db.close(); resolve(); };
             tx.onerror = () => reject(tx.error);
           };
           open.onerror = () => reject(open.error);
         });",
    );
    let written: Promise = write
        .call1(&JsValue::NULL, &name.clone().into())
        .unwrap()
        .into();
    JsFuture::from(written).await.unwrap();
    let error = settle(store.load_activity_frames("s".into(), "r".into()))
        .await
        .expect_err("the load is refused");
    assert!(
        is_attache_error(&error),
        "a typed AttacheError, not a SyntaxError"
    );
    assert_eq!(get(&error, "code").as_deref(), Some("INVALID_VALUE"));
    store.close();
    browser::delete_database(&name).await;
}

#[wasm_bindgen_test]
async fn a_storage_error_keeps_the_dom_exception_as_its_cause() {
    let (store, name) = store_with_session("cause").await;
    browser::run_js(
        "const original = IDBObjectStore.prototype.add;
         globalThis.__restoreAdd = () => { IDBObjectStore.prototype.add = original; };
         IDBObjectStore.prototype.add = function () { throw new DOMException('injected', 'DataError'); };",
    );
    let error =
        settle(store.append_activity_frames("s".into(), "r".into(), js("[{ a: 1 }]"))).await;
    browser::run_js("globalThis.__restoreAdd()");
    let error = error.expect_err("the append fails");
    assert_eq!(get(&error, "code").as_deref(), Some("ABORTED"));
    let cause = Reflect::get(&error, &"cause".into()).unwrap();
    assert!(
        cause.is_instance_of::<web_sys::DomException>(),
        "the DOMException itself"
    );
    assert_eq!(get(&cause, "name").as_deref(), Some("DataError"));
    assert_eq!(get(&cause, "message").as_deref(), Some("injected"));
    store.close();
    browser::delete_database(&name).await;
}
