//! Replays the reference token counts (loopctl 0.4.1 compact.rs) exactly.
#![cfg(not(target_arch = "wasm32"))]

use attache::budget::{Counter, TokenCounter};
use attache::json::Value;

#[test]
fn every_counter_reproduces_every_vector_count() {
    let vectors: Value = attache::json::parse(include_str!("fixtures/token-vectors.json")).unwrap();
    let cases = vectors["cases"].as_array().unwrap();
    assert_eq!(cases.len(), 60);
    for (n, case) in cases.iter().enumerate() {
        let messages = case["messages"].as_array().unwrap();
        for name in ["heuristic", "openai", "anthropic", "gemini", "local"] {
            let counted = Counter::named(name).unwrap().count(messages).unwrap();
            assert_eq!(Some(counted), case[name].as_u64(), "case {n}, {name}");
        }
    }
}
