//! The token counters and planTurn through the JS binding, in a browser.
#![cfg(target_arch = "wasm32")]

use attache::js::{estimate_tokens, plan_turn_js};
use js_sys::{Reflect, JSON};
use serde_json::Value;
use wasm_bindgen::JsValue;
use wasm_bindgen_test::*;

fn js(value: &Value) -> JsValue {
    JSON::parse(&value.to_string()).unwrap()
}

#[wasm_bindgen_test]
fn every_token_vector_is_reproduced_through_the_binding() {
    let vectors: Value = serde_json::from_str(include_str!("fixtures/token-vectors.json")).unwrap();
    for (n, case) in vectors["cases"].as_array().unwrap().iter().enumerate() {
        let messages = js(&case["messages"]);
        for preset in ["heuristic", "openai", "anthropic", "gemini", "local"] {
            let counted = estimate_tokens(messages.clone(), preset.into()).unwrap();
            assert_eq!(
                Some(counted as u64),
                case[preset].as_u64(),
                "case {n}, {preset}"
            );
        }
    }
}

#[wasm_bindgen_test]
fn plan_turn_compacts_at_the_threshold_not_before() {
    let action = |history: u32| {
        let options = js(&serde_json::json!({"contextWindow": 1000, "history": history}));
        let plan = plan_turn_js(options).unwrap();
        Reflect::get(&plan, &"action".into())
            .unwrap()
            .as_string()
            .unwrap()
    };
    assert_eq!(action(799), "send");
    assert_eq!(action(800), "compact");
}
