use crate::json;

use super::checks::*;
use crate::Error;

fn code(result: Result<(), Error>) -> &'static str {
    result.map_or_else(|e| e.code(), |()| "OK")
}

#[test]
fn credential_fields_are_refused_wherever_they_nest() {
    assert_eq!(
        code(no_credentials(
            "frame",
            &json!({"headers": {"Authorization": "x"}})
        )),
        "CREDENTIAL"
    );
    assert_eq!(
        code(no_credentials("frame", &json!([{"api_key": "k"}]))),
        "CREDENTIAL"
    );
    assert_eq!(
        code(no_credentials("frame", &json!({"X-Api-Key": "k"}))),
        "CREDENTIAL"
    );
    let error = no_credentials("frame", &json!({"a": [{"password": "p"}]})).unwrap_err();
    assert_eq!(
        error.field(),
        Some("frame.a[0].password"),
        "the path leads to the secret"
    );
}

#[test]
fn secret_shaped_strings_are_refused() {
    assert_eq!(
        code(no_credentials("m", &json!("sk-abcdefghijklmnopqrstuvwx"))),
        "CREDENTIAL"
    );
    assert_eq!(
        code(no_credentials(
            "m",
            &json!({"h": "Bearer abcdefghijklmnopq"})
        )),
        "CREDENTIAL"
    );
}

#[test]
fn ordinary_data_passes_the_credential_check() {
    let frame = json!({"type": "tool", "tokens": 12, "token": "the", "text": "sk-short", "password": null,
                       "note": "Bearer of bad news is here"});
    assert_eq!(
        code(no_credentials("frame", &frame)),
        "OK",
        "near misses are not credentials"
    );
}

#[test]
fn repl_state_takes_env_and_history_only() {
    assert_eq!(code(repl_state(&json!({}))), "OK");
    assert_eq!(
        code(repl_state(&json!({"env": {"x": 1}, "history": ["a"]}))),
        "OK"
    );
    assert_eq!(code(repl_state(&json!({"history": [1]}))), "INVALID_VALUE");
    assert_eq!(code(repl_state(&json!({"env": []}))), "INVALID_VALUE");
    assert_eq!(code(repl_state(&json!({"other": 1}))), "INVALID_VALUE");
    assert_eq!(code(repl_state(&json!([]))), "INVALID_VALUE");
}

#[test]
fn a_snapshot_is_a_tree_of_objects() {
    assert_eq!(
        code(snapshot(
            &json!({"accepts": ["x"], "children": [{"children": []}]})
        )),
        "OK"
    );
    let error = snapshot(&json!({"children": [{"children": [3]}]})).unwrap_err();
    assert_eq!(error.field(), Some("snapshot.children[0].children[0]"));
    assert_eq!(code(snapshot(&json!({"children": {}}))), "INVALID_VALUE");
}

#[test]
fn frames_must_be_objects() {
    let error = objects("frames", &[json!({}), json!(1)]).unwrap_err();
    assert_eq!(
        (error.code(), error.field()),
        ("INVALID_VALUE", Some("frames[1]"))
    );
}

#[test]
fn ids_are_non_blank_and_at_most_4096_utf16_units() {
    assert_eq!(code(id_argument("key", " \t")), "INVALID_ARGUMENT");
    assert_eq!(code(id_argument("key", &"x".repeat(4096))), "OK");
    assert_eq!(
        code(id_argument("key", &"x".repeat(4097))),
        "INVALID_ARGUMENT"
    );
    assert_eq!(
        code(id_argument("key", &"😀".repeat(2049))),
        "INVALID_ARGUMENT",
        "an astral character is two units, as JS counts"
    );
}

#[cfg(not(target_arch = "wasm32"))]
proptest::proptest! {
    #[test]
    fn sessions_sort_newest_first_then_by_id(times in proptest::collection::vec((0u8..4, 0u8..6), 0..40)) {
        let mut sessions: Vec<super::SessionInfo> = times
            .iter()
            .map(|&(t, id)| super::SessionInfo {
                id: format!("s{id}"),
                title: String::new(),
                created_at: 0.0,
                updated_at: f64::from(t),
                meta: json::Map::new(),
            })
            .collect();
        let mut expected = sessions.clone();
        expected.sort_by(|a, b| b.updated_at.total_cmp(&a.updated_at).then_with(|| a.id.cmp(&b.id)));
        super::sort_sessions(&mut sessions);
        let key = |s: &[super::SessionInfo]| s.iter().map(|s| (s.updated_at, s.id.clone())).collect::<Vec<_>>();
        proptest::prop_assert_eq!(key(&sessions), key(&expected));
    }
}
