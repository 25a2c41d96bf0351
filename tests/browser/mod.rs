//! Helpers for the browser suites.
#![allow(dead_code)]

use std::rc::Rc;

use attache::idb::{BrowserEnvironment, Durability, IdbSessionStore};
use attache::session::Environment;
use js_sys::Function;
use wasm_bindgen::JsValue;

/// A database name no other test uses.
pub fn fresh_name(tag: &str) -> String {
    format!("attache-test-{tag}-{}", BrowserEnvironment.new_id())
}

pub async fn open(name: &str, durability: Durability) -> IdbSessionStore {
    IdbSessionStore::open(name, durability, Rc::new(BrowserEnvironment))
        .await
        .expect("IndexedDB opens")
}

pub async fn delete_database(name: &str) {
    let factory = idb::Factory::new().unwrap();
    factory.delete(name).unwrap().await.unwrap();
}

/// Runs JS source in this context: fault injection and observation.
pub fn run_js(source: &str) -> JsValue {
    Function::new_no_args(source)
        .call0(&JsValue::UNDEFINED)
        .expect("the JS snippet runs")
}
