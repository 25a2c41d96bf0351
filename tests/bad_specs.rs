//! Every malformed spec gets a coded error naming the field at fault.
#![cfg(not(target_arch = "wasm32"))]

use attache::attachment::Attachment;
use attache::json;
use attache::json::Value;

fn rejection(spec: Value) -> (&'static str, String) {
    let error = Attachment::from_spec(&spec).expect_err("the spec is malformed");
    (error.code(), error.field().unwrap_or_default().to_owned())
}

#[test]
fn an_unknown_kind_is_unknown_kind() {
    assert_eq!(
        rejection(json!({"kind": "image", "url": "x"})),
        ("UNKNOWN_KIND", "kind".into())
    );
}

#[test]
fn a_missing_kind_is_invalid_spec() {
    assert_eq!(
        rejection(json!({"slug": "a", "memory": "b"})),
        ("INVALID_SPEC", "kind".into())
    );
}

#[test]
fn a_non_string_kind_is_invalid_spec() {
    assert_eq!(
        rejection(json!({"kind": 1})),
        ("INVALID_SPEC", "kind".into())
    );
}

#[test]
fn a_spec_that_is_not_an_object_is_invalid_spec() {
    for spec in [json!(null), json!("memory:x"), json!([1]), json!(3)] {
        assert_eq!(
            rejection(spec.clone()),
            ("INVALID_SPEC", String::new()),
            "{spec}"
        );
    }
}

#[test]
fn missing_fields_are_named() {
    assert_eq!(
        rejection(json!({"kind": "memory", "slug": "a"})),
        ("INVALID_SPEC", "memory".into())
    );
    assert_eq!(
        rejection(json!({"kind": "memory", "memory": "a"})),
        ("INVALID_SPEC", "slug".into())
    );
    assert_eq!(
        rejection(json!({"kind": "file"})),
        ("INVALID_SPEC", "path".into())
    );
    assert_eq!(
        rejection(json!({"kind": "todo"})),
        ("INVALID_SPEC", "items".into())
    );
    assert_eq!(
        rejection(json!({"kind": "todo", "items": [{"text": "a"}]})),
        ("INVALID_SPEC", "items[0].completed".into())
    );
    assert_eq!(
        rejection(json!({"kind": "custom", "id": "a:b", "rank": "file"})),
        ("INVALID_SPEC", "text".into())
    );
}

#[test]
fn non_string_texts_are_invalid_spec() {
    assert_eq!(
        rejection(json!({"kind": "memory", "slug": "a", "memory": 5})),
        ("INVALID_SPEC", "memory".into())
    );
    assert_eq!(
        rejection(json!({"kind": "file", "path": "a", "contents": ["x"]})),
        ("INVALID_SPEC", "contents".into())
    );
    assert_eq!(
        rejection(
            json!({"kind": "todo", "items": [{"text": "ok", "completed": true}, {"text": {}, "completed": false}]})
        ),
        ("INVALID_SPEC", "items[1].text".into())
    );
    assert_eq!(
        rejection(json!({"kind": "custom", "id": "a:b", "rank": "file", "text": null})),
        ("INVALID_SPEC", "text".into())
    );
}

#[test]
fn mistyped_flags_and_containers_are_invalid_spec() {
    assert_eq!(
        rejection(json!({"kind": "file", "path": "a", "contents": "x", "truncate": "no"})),
        ("INVALID_SPEC", "truncate".into())
    );
    assert_eq!(
        rejection(json!({"kind": "todo", "items": {}})),
        ("INVALID_SPEC", "items".into())
    );
    assert_eq!(
        rejection(json!({"kind": "todo", "items": ["a"]})),
        ("INVALID_SPEC", "items[0]".into())
    );
    assert_eq!(
        rejection(json!({"kind": "todo", "items": [{"text": "a", "completed": 1}]})),
        ("INVALID_SPEC", "items[0].completed".into())
    );
}

#[test]
fn empty_slugs_and_paths_are_invalid_spec() {
    assert_eq!(
        rejection(json!({"kind": "memory", "slug": "", "memory": "m"})),
        ("INVALID_SPEC", "slug".into())
    );
    assert_eq!(
        rejection(json!({"kind": "file", "path": ""})),
        ("INVALID_SPEC", "path".into())
    );
}

#[test]
fn an_unexpected_field_is_invalid_spec_so_typos_are_caught() {
    assert_eq!(
        rejection(json!({"kind": "file", "path": "a", "content": "typo"})),
        ("INVALID_SPEC", "content".into()),
        "`content` for `contents` would otherwise pin the path only"
    );
    assert_eq!(
        rejection(
            json!({"kind": "todo", "items": [{"text": "a", "completed": true, "done": true}]})
        ),
        ("INVALID_SPEC", "items[0].done".into())
    );
}

#[test]
fn a_custom_rank_outside_the_three_kinds_is_invalid_spec() {
    assert_eq!(
        rejection(json!({"kind": "custom", "id": "a:b", "rank": "custom", "text": "t"})),
        ("INVALID_SPEC", "rank".into())
    );
}

#[test]
fn a_custom_id_not_of_kind_colon_slug_form_is_invalid_id() {
    for id in [
        "noslug",
        "kind:",
        ":slug",
        "",
        "Kind:slug",
        "my kind:slug",
        "a/b:c",
    ] {
        assert_eq!(
            rejection(json!({"kind": "custom", "id": id, "rank": "memory", "text": "t"})),
            ("INVALID_ID", "id".into()),
            "{id:?} is not {{kind}}:{{slug}}"
        );
    }
}

#[test]
fn a_custom_slug_may_hold_colons_and_any_text() {
    let spec = json!({"kind": "custom", "id": "url:https://x/y z", "rank": "file", "text": "t"});
    assert!(
        Attachment::from_spec(&spec).is_ok(),
        "only the kind part is restricted"
    );
}

#[test]
fn messages_name_the_field_and_what_was_expected() {
    let error =
        Attachment::from_spec(&json!({"kind": "memory", "slug": "a", "memory": 5})).unwrap_err();
    assert_eq!(
        error.to_string(),
        "invalid attachment spec: `memory` must be a string, got a number"
    );
}
