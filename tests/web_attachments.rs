//! The attachment API as JS sees it, in a real browser: every reference
//! vector replayed through the binding, and every bad spec rejected with a
//! coded `Error` that leaves the store unchanged. Run in a window and in
//! workers by scripts/test.sh.
#![cfg(target_arch = "wasm32")]

use attache::js::{is_attache_error, AttachmentStore};
use attache::json;
use attache::json::Value;
use js_sys::{Reflect, JSON};
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_test::*;

/// A spec as a host writes it: a plain object parsed from JSON text.
fn js(value: &Value) -> JsValue {
    JSON::parse(&value.to_string()).expect("JSON text parses")
}

fn to_json(value: JsValue) -> Value {
    json::parse(&String::from(JSON::stringify(&value).expect("plain data"))).unwrap()
}

#[wasm_bindgen_test]
fn every_vector_case_matches_the_reference_through_the_binding() {
    let vectors: Value =
        attache::json::parse(include_str!("fixtures/attachment-vectors.json")).unwrap();
    let mut ops = 0;
    for (n, case) in vectors["cases"].as_array().unwrap().iter().enumerate() {
        let mut store = AttachmentStore::new();
        for op in case["ops"].as_array().unwrap() {
            ops += 1;
            let id = op["id"].as_str().unwrap();
            if op["op"] == "pin" {
                let pinned = store.set_attachment(js(&op["attachment"])).unwrap();
                assert_eq!(pinned, id, "case {n}: pinned id");
                assert_eq!(
                    store.render_attachment(id.into()).unwrap().as_deref(),
                    op["render"].as_str(),
                    "case {n}: render of {id}"
                );
            } else {
                assert_eq!(
                    Some(store.detach_attachment(id.into()).unwrap()),
                    op["returns"].as_bool(),
                    "case {n}: detach {id}"
                );
            }
        }
        let ids: Vec<String> = case["ids"]
            .as_array()
            .unwrap()
            .iter()
            .map(|id| id.as_str().unwrap().to_owned())
            .collect();
        assert_eq!(store.attachment_ids(), ids, "case {n}: ids in pin order");
        assert_eq!(store.size(), ids.len(), "case {n}: size");
        let expected = match &case["message"] {
            Value::Null => Value::Null,
            message => json!({
                "role": "user",
                "content": message["parts"].as_array().unwrap().iter()
                    .map(|text| json!({"type": "text", "text": text})).collect::<Vec<_>>(),
            }),
        };
        let message = store.consolidated_message().unwrap();
        if expected.is_null() {
            assert!(
                message.is_undefined(),
                "case {n}: an empty store builds no message"
            );
        } else {
            assert_eq!(to_json(message), expected, "case {n}: consolidated message");
        }
    }
    assert_eq!(ops, 364, "every op was replayed");
}

fn seeded_store() -> AttachmentStore {
    let mut store = AttachmentStore::new();
    store
        .set_attachment(js(
            &json!({"kind": "todo", "items": [{"text": "t", "completed": false}]}),
        ))
        .unwrap();
    store
        .set_attachment(js(&json!({"kind": "memory", "slug": "m", "memory": "M"})))
        .unwrap();
    store
}

/// Rejects `spec` with `code` and proves nothing stored changed.
fn assert_rejected(spec: JsValue, code: &str, field: Option<&str>) {
    let mut store = seeded_store();
    let before = (store.attachment_ids(), store.render_all().unwrap());
    let error = store
        .set_attachment(spec)
        .expect_err("a bad spec is rejected");
    assert!(
        error.is_instance_of::<js_sys::Error>(),
        "errors are real Error objects"
    );
    assert!(is_attache_error(&error), "the type guard recognises it");
    let error: js_sys::Error = error.unchecked_into();
    assert_eq!(error.name(), "AttacheError");
    assert_eq!(
        Reflect::get(&error, &"code".into())
            .unwrap()
            .as_string()
            .as_deref(),
        Some(code)
    );
    let message = error.message().as_string().unwrap();
    assert!(!message.is_empty(), "the message explains the rejection");
    if let Some(field) = field {
        assert_eq!(
            Reflect::get(&error, &"field".into())
                .unwrap()
                .as_string()
                .as_deref(),
            Some(field),
            "{message}"
        );
    }
    assert_eq!(
        (store.attachment_ids(), store.render_all().unwrap()),
        before,
        "the store is unchanged after: {message}"
    );
}

#[wasm_bindgen_test]
fn an_unknown_kind_is_rejected() {
    assert_rejected(
        js(&json!({"kind": "image", "url": "u"})),
        "UNKNOWN_KIND",
        Some("kind"),
    );
}

#[wasm_bindgen_test]
fn missing_and_mistyped_fields_are_rejected() {
    assert_rejected(
        js(&json!({"kind": "memory", "slug": "m"})),
        "INVALID_SPEC",
        Some("memory"),
    );
    assert_rejected(
        js(&json!({"kind": "file", "path": "a", "truncate": 1})),
        "INVALID_SPEC",
        Some("truncate"),
    );
    assert_rejected(
        js(&json!({"kind": "todo", "items": [{"text": "a"}]})),
        "INVALID_SPEC",
        Some("items[0].completed"),
    );
    assert_rejected(
        js(&json!({"kind": "file", "path": "a", "content": "typo"})),
        "INVALID_SPEC",
        Some("content"),
    );
}

#[wasm_bindgen_test]
fn a_non_string_text_is_rejected() {
    assert_rejected(
        js(&json!({"kind": "memory", "slug": "m", "memory": 42})),
        "INVALID_SPEC",
        Some("memory"),
    );
    assert_rejected(
        js(&json!({"kind": "todo", "items": [{"text": ["x"], "completed": true}]})),
        "INVALID_SPEC",
        Some("items[0].text"),
    );
    assert_rejected(
        js(&json!({"kind": "custom", "id": "a:b", "rank": "todo", "text": false})),
        "INVALID_SPEC",
        Some("text"),
    );
}

#[wasm_bindgen_test]
fn an_empty_slug_or_path_is_rejected() {
    assert_rejected(
        js(&json!({"kind": "memory", "slug": "", "memory": "m"})),
        "INVALID_SPEC",
        Some("slug"),
    );
    assert_rejected(
        js(&json!({"kind": "file", "path": ""})),
        "INVALID_SPEC",
        Some("path"),
    );
}

#[wasm_bindgen_test]
fn a_malformed_custom_id_is_rejected() {
    assert_rejected(
        js(&json!({"kind": "custom", "id": "no-colon", "rank": "memory", "text": "t"})),
        "INVALID_ID",
        Some("id"),
    );
}

#[wasm_bindgen_test]
fn values_that_are_not_plain_objects_are_rejected() {
    assert_rejected(JsValue::UNDEFINED, "INVALID_SPEC", None);
    assert_rejected(JsValue::from_str("memory:m"), "INVALID_SPEC", None);
    assert_rejected(
        js_sys::Function::new_no_args("return 1").into(),
        "INVALID_SPEC",
        None,
    );
    let with_bigint = js(&json!({"kind": "memory", "slug": "m"}));
    Reflect::set(
        &with_bigint,
        &"memory".into(),
        &js_sys::BigInt::from(1u32).into(),
    )
    .unwrap();
    assert_rejected(with_bigint, "INVALID_SPEC", Some("memory"));
}

#[wasm_bindgen_test]
fn an_undefined_optional_field_means_absent() {
    let mut store = AttachmentStore::new();
    let spec = js(&json!({"kind": "file", "path": "a"}));
    Reflect::set(&spec, &"contents".into(), &JsValue::UNDEFINED).unwrap();
    store.set_attachment(spec).unwrap();
    assert!(
        store
            .render_attachment("file:a".into())
            .unwrap()
            .unwrap()
            .contains("path pinned"),
        "undefined contents pin the path only"
    );
}

#[wasm_bindgen_test]
fn detach_of_an_unknown_id_returns_false_and_keeps_the_store() {
    let mut store = seeded_store();
    assert!(!store.detach_attachment("memory:never".into()).unwrap());
    assert_eq!(store.size(), 2);
    assert!(store.detach_attachment("memory:m".into()).unwrap());
    assert!(!store.has_attachment("memory:m".into()).unwrap());
}

#[wasm_bindgen_test]
fn a_cyclic_spec_is_rejected_and_the_store_keeps_working() {
    let spec = js(&json!({"kind": "memory", "slug": "m", "memory": "M"}));
    Reflect::set(&spec, &"self".into(), &spec).unwrap();
    assert_rejected(spec, "INVALID_SPEC", Some("self"));
    let mut store = seeded_store();
    store
        .set_attachment(js(
            &json!({"kind": "memory", "slug": "after", "memory": "ok"}),
        ))
        .unwrap();
    assert_eq!(store.size(), 3, "the wasm instance is intact");
}

#[wasm_bindgen_test]
fn a_lone_surrogate_is_rejected_rather_than_replaced() {
    // JSON text cannot carry a lone surrogate, so the spec is built in JS.
    let spec =
        js_sys::Function::new_no_args("return { kind: 'memory', slug: 'x\\uD800', memory: 'm' }")
            .call0(&JsValue::UNDEFINED)
            .unwrap();
    assert_rejected(spec, "INVALID_SPEC", None);
}

#[wasm_bindgen_test]
fn an_unchanged_store_hands_back_the_same_frozen_message() {
    let mut store = seeded_store();
    let first = store.consolidated_message().unwrap();
    assert!(
        js_sys::Object::is(&first, &store.consolidated_message().unwrap()),
        "nothing is rebuilt on an unchanged turn"
    );
    let frozen = |v: &JsValue| js_sys::Object::is_frozen(v.unchecked_ref::<js_sys::Object>());
    let content = Reflect::get(&first, &"content".into()).unwrap();
    assert!(
        frozen(&first) && frozen(&content) && frozen(&js_sys::Array::from(&content).get(0)),
        "shared, so frozen all the way down"
    );

    store
        .set_attachment(js(
            &json!({"kind": "todo", "items": [{"text": "t", "completed": false}]}),
        ))
        .unwrap();
    assert!(
        js_sys::Object::is(&first, &store.consolidated_message().unwrap()),
        "an identical re-pin changes nothing"
    );

    store
        .set_attachment(js(
            &json!({"kind": "todo", "items": [{"text": "t", "completed": true}]}),
        ))
        .unwrap();
    let ticked = store.consolidated_message().unwrap();
    assert!(
        !js_sys::Object::is(&first, &ticked),
        "a changed todo builds a new message"
    );
    assert!(to_json(ticked.clone())["content"][1]["text"]
        .as_str()
        .unwrap()
        .ends_with("- [x] t"));

    store.detach_attachment("memory:m".into()).unwrap();
    assert!(
        !js_sys::Object::is(&ticked, &store.consolidated_message().unwrap()),
        "a detach builds a new message"
    );
}
