//! Each turn's calls through the JS binding, in a browser: the token
//! counters, planTurn, buildRequest and checkPrefix.
#![cfg(target_arch = "wasm32")]

use attache::js::{build_request_js, estimate_tokens, plan_turn_js, AttachmentStore};
use attache::json::Value;
use js_sys::{Reflect, JSON};
use wasm_bindgen::JsValue;
use wasm_bindgen_test::*;

fn js(value: &Value) -> JsValue {
    JSON::parse(&value.to_string()).unwrap()
}

#[wasm_bindgen_test]
fn every_token_vector_is_reproduced_through_the_binding() {
    let vectors: Value = attache::json::parse(include_str!("fixtures/token-vectors.json")).unwrap();
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
        let options = js(&attache::json!({"contextWindow": 1000, "history": history}));
        let plan = plan_turn_js(options).unwrap();
        Reflect::get(&plan, &"action".into())
            .unwrap()
            .as_string()
            .unwrap()
    };
    assert_eq!(action(799), "send");
    assert_eq!(action(800), "compact");
}

fn field(value: &JsValue, path: &[&str]) -> JsValue {
    path.iter().fold(value.clone(), |v, key| {
        Reflect::get(&v, &(*key).into()).unwrap()
    })
}

#[wasm_bindgen_test]
fn build_request_leads_with_the_pins_and_marks_the_cache_breakpoint() {
    let mut store = AttachmentStore::new();
    store
        .set_attachment(js(
            &attache::json!({"kind": "memory", "slug": "m", "memory": "M"}),
        ))
        .unwrap();
    let options = js(
        &attache::json!({"format": "anthropic", "cacheControl": true,
        "history": [{"role": "user", "content": [{"type": "text", "text": "hi"}]}]}),
    );
    Reflect::set(
        &options,
        &"attachments".into(),
        &store.consolidated_message().unwrap(),
    )
    .unwrap();
    let request = JSON::stringify(&build_request_js(options).unwrap()).unwrap();
    let request = attache::json::parse(&String::from(request)).unwrap();
    assert_eq!(
        request["messages"][0]["content"],
        attache::json!([
            {"type": "text", "text": "[Pinned memory: m]\n\nM", "cache_control": {"type": "ephemeral"}},
            {"type": "text", "text": "hi"},
        ])
    );
}

#[wasm_bindgen_test]
fn check_prefix_names_the_attachment_that_broke_the_prefix() {
    let mut store = AttachmentStore::new();
    store
        .set_attachment(js(
            &attache::json!({"kind": "memory", "slug": "m", "memory": "M"}),
        ))
        .unwrap();
    store
        .set_attachment(js(&attache::json!({"kind": "todo", "items": []})))
        .unwrap();
    assert_eq!(
        field(&store.check_prefix(JsValue::UNDEFINED).unwrap(), &["first"]),
        JsValue::TRUE
    );
    assert_eq!(
        field(
            &store.check_prefix(JsValue::UNDEFINED).unwrap(),
            &["stable"]
        ),
        JsValue::TRUE
    );
    store
        .set_attachment(js(
            &attache::json!({"kind": "memory", "slug": "m", "memory": "N"}),
        ))
        .unwrap();
    let check = store.check_prefix(JsValue::UNDEFINED).unwrap();
    assert_eq!(field(&check, &["stable"]), JsValue::FALSE);
    assert_eq!(
        field(&check, &["change", "attachmentId"])
            .as_string()
            .as_deref(),
        Some("memory:m")
    );
    assert_eq!(
        field(&check, &["change", "offset"]).as_f64(),
        Some(20.0),
        "[Pinned memory: m] then two newlines"
    );
}
