//! The session conformance suite in a browser, on both backends. No
//! `wasm_bindgen_test_configure!`: scripts/test.sh runs this file in a
//! window, a dedicated worker and a service worker.
#![cfg(target_arch = "wasm32")]

mod browser;
mod session_suite;

use std::rc::Rc;

use attache::idb::{BrowserEnvironment, Durability};
use attache::session::MemorySessionStore;
use wasm_bindgen_test::*;

macro_rules! both_backends {
    ($($case:ident),*) => {
        mod memory {
            use super::*;
            $(
                #[wasm_bindgen_test]
                async fn $case() {
                    let store = MemorySessionStore::new(Rc::new(BrowserEnvironment));
                    session_suite::$case(&store).await;
                }
            )*
        }
        mod indexed_db {
            use super::*;
            $(
                #[wasm_bindgen_test]
                async fn $case() {
                    let name = browser::fresh_name(stringify!($case));
                    let store = browser::open(&name, Durability::Default).await;
                    session_suite::$case(&store).await;
                    store.close();
                    browser::delete_database(&name).await;
                }
            )*
        }
    };
}

for_each_case!(both_backends);

/// scripts/test.sh sets ATTACHE_TEST_CONTEXT with each worker mode, so a
/// run that silently fell back to a window fails here.
#[wasm_bindgen_test]
fn runs_in_the_context_the_test_script_asked_for() {
    let expected = option_env!("ATTACHE_TEST_CONTEXT").unwrap_or("Window");
    let actual = browser::run_js("return globalThis.constructor.name").as_string();
    assert_eq!(actual.as_deref(), Some(expected));
}
