//! A real quota: the origin's storage fills up. Runs only with the feature
//! `quota-tests`, in a browser whose quota the test command made small
//! (Firefox: `tests/quota/firefox.json`), since filling a real disk quota
//! would take minutes and gigabytes.
#![cfg(all(target_arch = "wasm32", feature = "quota-tests"))]

mod browser;
mod session_suite;

use attache::idb::{Durability, IdbSessionStore};
use attache::json;
use attache::json::Value;
use attache::session::SessionStore;
use browser::{delete_database, fresh_name, open, run_js};
use session_suite::new;
use wasm_bindgen_test::*;

/// Two frames of 128 KiB of random hex (256 KiB a call): IndexedDB
/// compresses values in some engines, so repeated text would fill nothing.
fn incompressible_frames() -> Vec<Value> {
    let text = run_js(
        "const bytes = crypto.getRandomValues(new Uint8Array(64 * 1024));
         return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');",
    )
    .as_string()
    .unwrap();
    vec![
        json!({ "text": text }),
        json!({ "text": text.chars().rev().collect::<String>() }),
    ]
}

/// Appends until the store refuses; returns the refusal.
async fn fill(store: &IdbSessionStore, session: &str) -> attache::Error {
    for _ in 0..400 {
        if let Err(error) = store
            .append_activity_frames(session, "fill", incompressible_frames())
            .await
        {
            return error;
        }
    }
    panic!("100 MiB fit: the quota was not made small for this run");
}

#[wasm_bindgen_test]
async fn every_write_refused_for_lack_of_space_is_quota_and_writes_resume_once_space_is_freed() {
    let (main_name, filler_name) = (fresh_name("quota-main"), fresh_name("quota-filler"));
    let main = open(&main_name, Durability::Default).await;
    main.create_session(new("s")).await.unwrap();
    main.append_activity_frames("s", "before", vec![json!({"kept": true})])
        .await
        .unwrap();

    let filler = open(&filler_name, Durability::Default).await;
    filler.create_session(new("f")).await.unwrap();
    let refused = fill(&filler, "f").await;
    assert_eq!(
        (refused.code(), refused.dom_name()),
        ("QUOTA", Some("QuotaExceededError")),
        "the write that meets the quota: {refused}"
    );

    // While the origin is full, every write is QUOTA, not ABORTED: the
    // store reopens whatever connection the browser dropped.
    for attempt in 0..3 {
        let error = main
            .append_activity_frames("s", "big", incompressible_frames())
            .await
            .expect_err("an append past the quota is refused");
        assert_eq!(error.code(), "QUOTA", "attempt {attempt}: {error}");
        let error = main
            .save_session_state("s", "big", json!(incompressible_frames()))
            .await
            .expect_err("a save past the quota is refused");
        assert_eq!(error.code(), "QUOTA", "attempt {attempt}: {error}");
    }
    assert_eq!(
        main.load_activity_frames("s", None).await.unwrap(),
        [json!({"kept": true})],
        "reads still work and nothing refused was half-written"
    );
    assert_eq!(main.load_session_state("s", "big").await.unwrap(), None);

    filler.close();
    delete_database(&filler_name).await;
    main.append_activity_frames("s", "after", vec![json!({"fine": true})])
        .await
        .expect("the store writes again once space is freed");
    assert_eq!(
        main.load_activity_frames("s", None).await.unwrap(),
        [json!({"kept": true}), json!({"fine": true})]
    );
    main.close();
    delete_database(&main_name).await;
}
