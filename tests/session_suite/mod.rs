//! The session-store conformance suite, written once over the trait and run
//! against every backend: natively on the memory store, and in browsers on
//! both the memory store and IndexedDB.
#![allow(dead_code)]

use attache::attachment::{Attachment, AttachmentStore};
use attache::json;
use attache::json::Value;
use attache::session::export::SessionExport;
use attache::session::{KeyRange, NewSession, Page, SessionStore, SessionUpdate, TurnWrite};

/// Calls `$m!` with every case name, so each backend's file generates one
/// test per case with its own attribute and store.
#[macro_export]
macro_rules! for_each_case {
    ($m:ident) => {
        $m! {
            a_new_session_gets_defaults_and_a_generated_id,
            a_duplicate_session_id_is_already_exists_and_keeps_the_original,
            an_unknown_session_is_none,
            sessions_list_most_recently_updated_first,
            deleting_a_session_removes_its_state_frames_and_messages,
            session_state_round_trips_json_exactly,
            saving_state_again_replaces_it,
            state_keys_list_in_order_and_delete_reports_removal,
            snapshot_and_repl_state_have_typed_helpers,
            a_bad_repl_state_or_snapshot_keeps_the_stored_one,
            frames_load_per_request_and_per_session_in_append_order,
            a_rejected_frame_batch_writes_nothing,
            writes_to_a_missing_session_are_not_found_and_write_nothing,
            messages_append_and_load_in_order,
            empty_ids_are_invalid_arguments,
            sessions_and_requests_with_prefix_ids_stay_apart,
            credentials_are_never_stored,
            pinned_attachments_come_back_byte_identical_in_pin_order,
            an_empty_batch_needs_the_session_but_writes_nothing,
            deleting_state_that_is_not_there_changes_nothing,
            loads_as_json_text_are_the_loaded_values,
            only_messages_are_stored_as_messages,
            a_session_update_changes_title_and_meta_only,
            a_page_of_messages_is_the_tail_before_a_position,
            replacing_messages_persists_a_compaction_or_nothing,
            pop_and_clear_remove_from_the_end,
            requests_list_in_first_append_order_with_their_counts,
            a_turn_commits_all_or_nothing,
            a_session_exports_and_imports_as_one_document,
            the_prefix_baseline_is_saved_and_loaded_with_the_pins,
            every_credential_shape_is_refused_in_every_place,
            state_keys_select_a_prefix_below_a_bound_in_either_order,
            several_states_load_at_once_with_null_where_absent,
            state_if_absent_keeps_the_first_write_in_one_turn,
            a_turn_can_require_a_history_length_and_absent_keys,
            a_message_keeps_its_meta,
            a_value_128_deep_saves_exports_and_imports,
            state_keys_side_by_side_are_not_a_named_pair,
            an_import_dated_after_now_is_dated_now
        }
    };
}

pub async fn an_import_dated_after_now_is_dated_now(store: &impl SessionStore) {
    let made = store.create_session(new("now")).await.unwrap();
    // Exported on a device whose clock ran a day ahead.
    let ahead = made.updated_at + 86_400_000.0;
    let doc = json::parse(&format!(
        r#"{{"format": "attache-session", "version": 1, "session": {{"id": "ahead", "title": "",
            "createdAt": {ahead}, "updatedAt": {ahead}, "meta": {{}}}}, "state": {{}}, "messages": [], "frames": []}}"#
    ))
    .unwrap();
    let imported = store
        .import_session(SessionExport::from_value(&doc).unwrap())
        .await
        .unwrap();
    let later = store.create_session(new("later")).await.unwrap();
    assert!(
        imported.updated_at <= later.updated_at,
        "{imported:?} after {later:?}"
    );
    assert!(imported.created_at <= imported.updated_at);
    assert_eq!(store.get_session("ahead").await.unwrap(), Some(imported));
    // Its next write dates it then, as any session's.
    store
        .append_messages("ahead", said(&["back"]))
        .await
        .unwrap();
    let written = store.get_session("ahead").await.unwrap().unwrap();
    assert!(written.updated_at >= later.updated_at && written.updated_at < ahead);
}

pub fn new(id: &str) -> NewSession {
    NewSession {
        id: Some(id.to_owned()),
        ..NewSession::default()
    }
}

fn code<T: std::fmt::Debug>(result: Result<T, attache::Error>) -> &'static str {
    result.expect_err("the call is refused").code()
}

pub fn frames(tag: &str, n: usize) -> Vec<Value> {
    (0..n).map(|i| json!({"tag": tag, "i": i})).collect()
}

pub async fn a_new_session_gets_defaults_and_a_generated_id(store: &impl SessionStore) {
    let a = store.create_session(NewSession::default()).await.unwrap();
    let b = store.create_session(NewSession::default()).await.unwrap();
    assert!(!a.id.is_empty() && a.id != b.id, "generated ids are unique");
    assert_eq!(
        (a.title.as_str(), a.meta.len()),
        ("", 0),
        "title and meta default to empty"
    );
    assert_eq!(
        a.created_at, a.updated_at,
        "a fresh session was updated when created"
    );
    let titled = NewSession {
        id: Some("t".into()),
        title: Some("Title".into()),
        meta: Some(json!({"model": "m"}).as_object().unwrap().clone()),
    };
    let created = store.create_session(titled).await.unwrap();
    assert_eq!(
        store.get_session("t").await.unwrap(),
        Some(created),
        "what is created is what is read"
    );
}

pub async fn a_duplicate_session_id_is_already_exists_and_keeps_the_original(
    store: &impl SessionStore,
) {
    let first = store
        .create_session(NewSession {
            title: Some("first".into()),
            ..new("dup")
        })
        .await
        .unwrap();
    let again = store
        .create_session(NewSession {
            title: Some("second".into()),
            ..new("dup")
        })
        .await;
    assert_eq!(code(again), "ALREADY_EXISTS");
    assert_eq!(
        store.get_session("dup").await.unwrap(),
        Some(first),
        "the original is untouched"
    );
}

pub async fn an_unknown_session_is_none(store: &impl SessionStore) {
    assert_eq!(store.get_session("nope").await.unwrap(), None);
    assert_eq!(store.load_session_state("nope", "k").await.unwrap(), None);
    assert!(store
        .load_activity_frames("nope", None)
        .await
        .unwrap()
        .is_empty());
    assert!(
        !store.delete_session("nope").await.unwrap(),
        "deleting nothing reports false"
    );
}

pub async fn sessions_list_most_recently_updated_first(store: &impl SessionStore) {
    for id in ["a", "b", "c"] {
        store.create_session(new(id)).await.unwrap();
    }
    store
        .append_messages("a", vec![json!({"role": "user", "content": "hi"})])
        .await
        .unwrap();
    let ids: Vec<String> = store
        .list_sessions()
        .await
        .unwrap()
        .into_iter()
        .map(|s| s.id)
        .collect();
    assert_eq!(ids[0], "a", "the session written last leads: {ids:?}");
    assert_eq!(ids.len(), 3);
    let listed = store.list_sessions().await.unwrap();
    assert!(
        listed
            .windows(2)
            .all(|w| w[0].updated_at >= w[1].updated_at),
        "ordered by updatedAt"
    );
    // Ties go by id, whatever order they were written in.
    for id in ["tie-b", "tie-a"] {
        let doc = json::parse(&format!(
            r#"{{"format": "attache-session", "version": 1, "session": {{"id": "{id}", "title": "",
                "createdAt": 1, "updatedAt": 1, "meta": {{}}}}, "state": {{}}, "messages": [], "frames": []}}"#
        ))
        .unwrap();
        store
            .import_session(SessionExport::from_value(&doc).unwrap())
            .await
            .unwrap();
    }
    let listed = store.list_sessions().await.unwrap();
    let ties: Vec<&str> = listed
        .iter()
        .filter(|s| s.id.starts_with("tie-"))
        .map(|s| s.id.as_str())
        .collect();
    assert_eq!(ties, ["tie-a", "tie-b"]);
}

pub async fn deleting_a_session_removes_its_state_frames_and_messages(store: &impl SessionStore) {
    for id in ["gone", "kept"] {
        store.create_session(new(id)).await.unwrap();
        store.save_session_state(id, "k", json!(1)).await.unwrap();
        store
            .append_activity_frames(id, "r", frames(id, 3))
            .await
            .unwrap();
        store
            .append_messages(id, vec![json!({"role": "user", "content": "hi"})])
            .await
            .unwrap();
    }
    assert!(store.delete_session("gone").await.unwrap());
    assert_eq!(store.get_session("gone").await.unwrap(), None);
    store.create_session(new("gone")).await.unwrap();
    assert_eq!(
        store.list_session_state_keys("gone").await.unwrap(),
        Vec::<String>::new(),
        "no state survives"
    );
    assert!(
        store
            .load_activity_frames("gone", None)
            .await
            .unwrap()
            .is_empty(),
        "no frames survive"
    );
    assert!(
        store.load_messages("gone").await.unwrap().is_empty(),
        "no messages survive"
    );
    assert_eq!(
        store.load_activity_frames("kept", Some("r")).await.unwrap(),
        frames("kept", 3),
        "others keep theirs"
    );
    assert_eq!(store.load_messages("kept").await.unwrap().len(), 1);
}

pub async fn session_state_round_trips_json_exactly(store: &impl SessionStore) {
    store.create_session(new("s")).await.unwrap();
    let value = json::parse(
        r#"{"z": 0, "n": -0.5, "big": 9007199254740991, "s": "é👩‍💻\r\n\ufeff", "a": [null, true, {}],
            "nested": {"deep": [[1], {"x": "y"}]}}"#,
    )
    .unwrap();
    store
        .save_session_state("s", "tree", value.clone())
        .await
        .unwrap();
    let loaded = store
        .load_session_state("s", "tree")
        .await
        .unwrap()
        .unwrap();
    // Map equality ignores key order; the text does not.
    assert_eq!(
        loaded.to_string(),
        value.to_string(),
        "keys keep the order they were given in"
    );
    store
        .save_session_state("s", "scalar", json!("just a string"))
        .await
        .unwrap();
    assert_eq!(
        store.load_session_state("s", "scalar").await.unwrap(),
        Some(json!("just a string"))
    );
}

pub async fn saving_state_again_replaces_it(store: &impl SessionStore) {
    store.create_session(new("s")).await.unwrap();
    store
        .save_session_state("s", "k", json!({"v": 1}))
        .await
        .unwrap();
    store
        .save_session_state("s", "k", json!({"v": 2}))
        .await
        .unwrap();
    assert_eq!(
        store.load_session_state("s", "k").await.unwrap(),
        Some(json!({"v": 2}))
    );
    assert_eq!(store.list_session_state_keys("s").await.unwrap(), ["k"]);
}

pub async fn state_keys_list_in_order_and_delete_reports_removal(store: &impl SessionStore) {
    store.create_session(new("s")).await.unwrap();
    for key in ["zeta", "alpha", "mid"] {
        store
            .save_session_state("s", key, json!(key))
            .await
            .unwrap();
    }
    assert_eq!(
        store.list_session_state_keys("s").await.unwrap(),
        ["alpha", "mid", "zeta"]
    );
    assert!(store.delete_session_state("s", "mid").await.unwrap());
    assert!(
        !store.delete_session_state("s", "mid").await.unwrap(),
        "a second delete finds nothing"
    );
    assert_eq!(store.load_session_state("s", "mid").await.unwrap(), None);
    assert_eq!(
        store.list_session_state_keys("s").await.unwrap(),
        ["alpha", "zeta"]
    );
}

pub async fn snapshot_and_repl_state_have_typed_helpers(store: &impl SessionStore) {
    store.create_session(new("s")).await.unwrap();
    let snapshot =
        json!({"accepts": ["click"], "state": {"open": true}, "children": [{"accepts": []}]});
    store.save_snapshot("s", snapshot.clone()).await.unwrap();
    assert_eq!(
        store.load_snapshot("s").await.unwrap(),
        Some(snapshot.clone())
    );
    assert_eq!(
        store.load_session_state("s", "snapshot").await.unwrap(),
        Some(snapshot),
        "stored under `snapshot`"
    );
    let repl = json!({"env": {"x": 1, "f": {"src": "() => 1"}}, "history": ["x = 1", "x"]});
    store.save_repl_state("s", repl.clone()).await.unwrap();
    assert_eq!(
        store.load_repl_state("s").await.unwrap(),
        Some(repl.clone())
    );
    assert_eq!(
        store.load_session_state("s", "repl_state").await.unwrap(),
        Some(repl),
        "stored under `repl_state`"
    );
}

pub async fn a_bad_repl_state_or_snapshot_keeps_the_stored_one(store: &impl SessionStore) {
    store.create_session(new("s")).await.unwrap();
    store
        .save_repl_state("s", json!({"history": ["ok"]}))
        .await
        .unwrap();
    assert_eq!(
        code(store.save_repl_state("s", json!({"history": [1]})).await),
        "INVALID_VALUE"
    );
    assert_eq!(
        code(store.save_session_state("s", "repl_state", json!([])).await),
        "INVALID_VALUE",
        "the key is checked however it is saved"
    );
    assert_eq!(
        store.load_repl_state("s").await.unwrap(),
        Some(json!({"history": ["ok"]}))
    );
    assert_eq!(
        code(store.save_snapshot("s", json!({"children": 1})).await),
        "INVALID_VALUE"
    );
    assert_eq!(store.load_snapshot("s").await.unwrap(), None);
}

pub async fn frames_load_per_request_and_per_session_in_append_order(store: &impl SessionStore) {
    store.create_session(new("s")).await.unwrap();
    store
        .append_activity_frames("s", "r1", frames("a", 2))
        .await
        .unwrap();
    store
        .append_activity_frames("s", "r2", frames("b", 2))
        .await
        .unwrap();
    store
        .append_activity_frames("s", "r1", frames("c", 1))
        .await
        .unwrap();
    let r1 = store.load_activity_frames("s", Some("r1")).await.unwrap();
    assert_eq!(
        r1,
        [frames("a", 2), frames("c", 1)].concat(),
        "one request, in append order"
    );
    let all = store.load_activity_frames("s", None).await.unwrap();
    assert_eq!(
        all,
        [frames("a", 2), frames("b", 2), frames("c", 1)].concat(),
        "the session, in global append order"
    );
    store
        .append_activity_frames("s", "r3", vec![])
        .await
        .unwrap();
    assert!(
        store
            .load_activity_frames("s", Some("r3"))
            .await
            .unwrap()
            .is_empty(),
        "an empty batch stores nothing"
    );
}

pub async fn a_rejected_frame_batch_writes_nothing(store: &impl SessionStore) {
    store.create_session(new("s")).await.unwrap();
    let mut batch = frames("x", 3);
    batch.push(json!("not an object"));
    assert_eq!(
        code(store.append_activity_frames("s", "r", batch).await),
        "INVALID_VALUE"
    );
    assert!(
        store
            .load_activity_frames("s", None)
            .await
            .unwrap()
            .is_empty(),
        "all or nothing"
    );
}

pub async fn writes_to_a_missing_session_are_not_found_and_write_nothing(
    store: &impl SessionStore,
) {
    assert_eq!(
        code(store.save_session_state("ghost", "k", json!(1)).await),
        "NOT_FOUND"
    );
    assert_eq!(
        code(
            store
                .append_activity_frames("ghost", "r", frames("x", 2))
                .await
        ),
        "NOT_FOUND"
    );
    assert_eq!(
        code(
            store
                .append_messages("ghost", vec![json!({"role": "user", "content": "hi"})])
                .await
        ),
        "NOT_FOUND"
    );
    store.create_session(new("ghost")).await.unwrap();
    assert!(
        store
            .load_activity_frames("ghost", None)
            .await
            .unwrap()
            .is_empty(),
        "nothing was written before"
    );
    assert!(store.load_messages("ghost").await.unwrap().is_empty());
    assert_eq!(store.load_session_state("ghost", "k").await.unwrap(), None);
}

pub async fn messages_append_and_load_in_order(store: &impl SessionStore) {
    store.create_session(new("s")).await.unwrap();
    let first = vec![json!({"role": "user", "content": [{"type": "text", "text": "hi"}]})];
    let second = vec![
        json!({"role": "assistant", "content": []}),
        json!({"role": "user", "content": []}),
    ];
    store.append_messages("s", first.clone()).await.unwrap();
    store.append_messages("s", second.clone()).await.unwrap();
    assert_eq!(
        store.load_messages("s").await.unwrap(),
        [first, second].concat()
    );
}

pub async fn empty_ids_are_invalid_arguments(store: &impl SessionStore) {
    assert_eq!(
        code(store.create_session(new("")).await),
        "INVALID_ARGUMENT"
    );
    store.create_session(new("s")).await.unwrap();
    assert_eq!(
        code(store.save_session_state("s", "", json!(1)).await),
        "INVALID_ARGUMENT"
    );
    assert_eq!(
        code(store.append_activity_frames("s", "", frames("x", 1)).await),
        "INVALID_ARGUMENT"
    );
}

pub async fn sessions_and_requests_with_prefix_ids_stay_apart(store: &impl SessionStore) {
    for id in ["s", "s2", "s\u{0}"] {
        store.create_session(new(id)).await.unwrap();
        store.save_session_state(id, "k", json!(id)).await.unwrap();
    }
    store
        .append_activity_frames("s", "r", frames("r", 1))
        .await
        .unwrap();
    store
        .append_activity_frames("s", "r2", frames("r2", 1))
        .await
        .unwrap();
    assert_eq!(
        store.list_session_state_keys("s").await.unwrap(),
        ["k"],
        "a prefix id has only its own keys"
    );
    assert_eq!(
        store.load_session_state("s2", "k").await.unwrap(),
        Some(json!("s2"))
    );
    assert_eq!(
        store.load_activity_frames("s", Some("r")).await.unwrap(),
        frames("r", 1)
    );
    assert!(store
        .load_activity_frames("s2", None)
        .await
        .unwrap()
        .is_empty());
}

pub async fn credentials_are_never_stored(store: &impl SessionStore) {
    let with_key = NewSession {
        meta: Some(json!({"apiKey": "k"}).as_object().unwrap().clone()),
        ..new("c")
    };
    assert_eq!(code(store.create_session(with_key).await), "CREDENTIAL");
    assert_eq!(
        store.get_session("c").await.unwrap(),
        None,
        "the refused session was not created"
    );
    store.create_session(new("c")).await.unwrap();
    assert_eq!(
        code(
            store
                .save_session_state("c", "auth", json!({"Authorization": "Bearer x"}))
                .await
        ),
        "CREDENTIAL"
    );
    // A key names its value as a field name does: an export holds the
    // state as fields, and its import would refuse what was stored.
    let named = store.save_session_state("c", "password", json!("hunter2 horse"));
    let named = named.await.unwrap_err();
    assert_eq!(
        (named.code(), named.field()),
        ("CREDENTIAL", Some("password"))
    );
    let turn = TurnWrite {
        state: vec![("session_token".into(), json!("abc12345"))],
        ..TurnWrite::default()
    };
    let named = store.commit_turn("c", turn).await.unwrap_err();
    assert_eq!(
        (named.code(), named.field()),
        ("CREDENTIAL", Some("state.session_token"))
    );
    let frame = json!({"request": {"headers": {"x-api-key": "secret"}}});
    assert_eq!(
        code(store.append_activity_frames("c", "r", vec![frame]).await),
        "CREDENTIAL"
    );
    let message = json!({"role": "user", "content": [{"type": "text", "text": "sk-proj-aB3dE6gHi9jKm2nP5qRs8tV1wX"}]});
    assert_eq!(
        code(store.append_messages("c", vec![message]).await),
        "CREDENTIAL"
    );
    assert!(store.list_session_state_keys("c").await.unwrap().is_empty());
    assert!(store
        .load_activity_frames("c", None)
        .await
        .unwrap()
        .is_empty());
    assert!(store.load_messages("c").await.unwrap().is_empty());
}

/// A mix of every kind, pinned out of consolidated order, with a file past
/// the 8 KiB cut and one that opts out of it.
pub fn pinned_mix() -> AttachmentStore {
    let mut pinned = AttachmentStore::new();
    for spec in [
        json!({"kind": "todo", "items": [{"text": "ship", "completed": false}, {"text": "test", "completed": true}]}),
        json!({"kind": "file", "path": "big.log", "contents": "é".repeat(5000)}),
        json!({"kind": "memory", "slug": "style", "memory": "be brief\r\n"}),
        json!({"kind": "file", "path": "raw.txt", "contents": "x".repeat(9000), "truncate": false}),
        json!({"kind": "custom", "id": "skill:review", "rank": "memory", "text": "Review."}),
        json!({"kind": "file", "path": "src/lib.rs"}),
    ] {
        pinned.pin(Attachment::from_spec(&spec).unwrap());
    }
    pinned
}

pub async fn pinned_attachments_come_back_byte_identical_in_pin_order(store: &impl SessionStore) {
    store.create_session(new("s")).await.unwrap();
    assert!(
        store.load_attachments("s").await.unwrap().is_none(),
        "nothing saved yet"
    );
    let before = pinned_mix();
    store.save_attachments("s", &before).await.unwrap();
    let after = store.load_attachments("s").await.unwrap().expect("saved");
    assert_eq!(
        after.ids().collect::<Vec<_>>(),
        before.ids().collect::<Vec<_>>(),
        "pin order survives"
    );
    assert_eq!(
        after.consolidated_message(),
        before.consolidated_message(),
        "the consolidated message is byte-identical"
    );
    let bad = json!([{"kind": "memory", "slug": "ok", "memory": "m"}, {"kind": "memory", "slug": "", "memory": "m"}]);
    let error = store
        .save_session_state("s", "attachments", bad)
        .await
        .unwrap_err();
    assert_eq!(
        (error.code(), error.field()),
        ("INVALID_SPEC", Some("attachments[1].slug")),
        "the code setAttachment gives, at the spec's path"
    );
    let unknown = store
        .save_session_state("s", "attachments", json!([{"kind": "image"}]))
        .await
        .unwrap_err();
    assert_eq!(
        (unknown.code(), unknown.field()),
        ("UNKNOWN_KIND", Some("attachments[0].kind"))
    );
    assert_eq!(
        store
            .load_attachments("s")
            .await
            .unwrap()
            .unwrap()
            .ids()
            .count(),
        6,
        "the saved pins are untouched"
    );
}

pub async fn an_empty_batch_needs_the_session_but_writes_nothing(store: &impl SessionStore) {
    assert_eq!(
        code(store.append_activity_frames("ghost", "r", vec![]).await),
        "NOT_FOUND"
    );
    assert_eq!(
        code(store.append_messages("ghost", vec![]).await),
        "NOT_FOUND"
    );
    let created = store.create_session(new("s")).await.unwrap();
    store
        .append_activity_frames("s", "r", vec![])
        .await
        .unwrap();
    store.append_messages("s", vec![]).await.unwrap();
    assert_eq!(
        store.get_session("s").await.unwrap(),
        Some(created),
        "nothing written, nothing bumped"
    );
}

pub async fn deleting_state_that_is_not_there_changes_nothing(store: &impl SessionStore) {
    assert!(
        !store.delete_session_state("ghost", "k").await.unwrap(),
        "no session: nothing to delete"
    );
    let created = store.create_session(new("s")).await.unwrap();
    assert!(!store.delete_session_state("s", "k").await.unwrap());
    assert_eq!(
        store.get_session("s").await.unwrap(),
        Some(created),
        "updatedAt is not bumped by a no-op"
    );
}

/// The bindings load through the `_json` variants; a backend may pass its
/// stored text through, so they must say exactly what the value loads say.
pub async fn loads_as_json_text_are_the_loaded_values(store: &impl SessionStore) {
    store.create_session(new("s")).await.unwrap();
    let text = |v: &[Value]| Value::Array(v.to_vec()).to_json();
    assert_eq!(
        store.load_activity_frames_json("s", None).await.unwrap(),
        "[]"
    );
    assert_eq!(store.load_messages_json("s").await.unwrap(), "[]");
    assert_eq!(store.load_session_state_json("s", "k").await.unwrap(), None);
    store
        .append_activity_frames("s", "r1", frames("a", 2))
        .await
        .unwrap();
    store
        .append_activity_frames("s", "r2", Vec::new())
        .await
        .unwrap();
    store
        .append_activity_frames("s", "r2", frames("b", 1))
        .await
        .unwrap();
    store
        .append_activity_frames("s", "r1", frames("c", 3))
        .await
        .unwrap();
    store
        .append_messages("s", vec![json!({"role": "user", "content": "é \"q\""})])
        .await
        .unwrap();
    store
        .save_session_state("s", "k", json!({"n": [1, {"m": null}]}))
        .await
        .unwrap();
    for request in [None, Some("r1"), Some("r2"), Some("none")] {
        let values = store.load_activity_frames("s", request).await.unwrap();
        let json = store.load_activity_frames_json("s", request).await.unwrap();
        assert_eq!(json, text(&values), "frames of {request:?}");
        assert_eq!(json::parse(&json).unwrap(), Value::Array(values));
    }
    let messages = store.load_messages("s").await.unwrap();
    assert_eq!(
        store.load_messages_json("s").await.unwrap(),
        text(&messages)
    );
    let state = store.load_session_state("s", "k").await.unwrap().unwrap();
    assert_eq!(
        store.load_session_state_json("s", "k").await.unwrap(),
        Some(state.to_json())
    );
}

pub async fn only_messages_are_stored_as_messages(store: &impl SessionStore) {
    store.create_session(new("m")).await.unwrap();
    let good = json!({"role": "assistant", "content": [
        {"type": "thinking", "thinking": "plan", "signature": "sig"},
        {"type": "text", "text": "calling"},
        {"type": "tool_call", "id": "c1", "name": "search", "arguments": {"q": "x"}},
    ]});
    // A provider's raw response, and a tool result in a user message.
    let raw = json!({"id": "chatcmpl-1", "object": "chat.completion", "choices": []});
    let misplaced = json!({"role": "user", "content": [{"type": "tool_result", "callId": "c1", "content": "ok"}]});
    for (bad, field) in [
        (raw, "messages[1].id"),
        (misplaced, "messages[1].content[0]"),
    ] {
        let error = store
            .append_messages("m", vec![good.clone(), bad])
            .await
            .expect_err("refused");
        assert_eq!(
            (error.code(), error.field()),
            ("INVALID_VALUE", Some(field))
        );
    }
    assert!(
        store.load_messages("m").await.unwrap().is_empty(),
        "the batch wrote nothing"
    );
    store
        .append_messages("m", vec![good.clone()])
        .await
        .unwrap();
    assert_eq!(
        store.load_messages("m").await.unwrap(),
        [good],
        "stored as given"
    );
}

fn say(text: &str) -> Value {
    json!({"role": "user", "content": [{"type": "text", "text": text}]})
}

fn said(texts: &[&str]) -> Vec<Value> {
    texts.iter().map(|t| say(t)).collect()
}

pub async fn a_session_update_changes_title_and_meta_only(store: &impl SessionStore) {
    let before = store
        .create_session(NewSession {
            id: Some("u".into()),
            title: Some("old".into()),
            ..NewSession::default()
        })
        .await
        .unwrap();
    let meta = json!({"model": "local"}).as_object().unwrap().clone();
    let update = SessionUpdate {
        title: None,
        meta: Some(meta.clone()),
    };
    let after = store.update_session("u", update).await.unwrap();
    assert_eq!(
        (after.title.as_str(), &after.meta),
        ("old", &meta),
        "an absent title is kept"
    );
    assert!(after.updated_at >= before.updated_at);
    assert_eq!(after.created_at, before.created_at);
    assert_eq!(
        store.get_session("u").await.unwrap(),
        Some(after.clone()),
        "stored as returned"
    );
    let renamed = SessionUpdate {
        title: Some("new".into()),
        meta: None,
    };
    assert_eq!(
        store.update_session("u", renamed).await.unwrap().title,
        "new"
    );
    let secret = json!({"apiKey": "sk-proj-aB3dE6gHi9jKm2nP5qRs8tV1wX"})
        .as_object()
        .unwrap()
        .clone();
    let leak = SessionUpdate {
        title: None,
        meta: Some(secret),
    };
    assert_eq!(code(store.update_session("u", leak).await), "CREDENTIAL");
    assert_eq!(
        store.get_session("u").await.unwrap().unwrap().meta,
        meta,
        "refused, nothing written"
    );
    assert_eq!(
        code(
            store
                .update_session("ghost", SessionUpdate::default())
                .await
        ),
        "NOT_FOUND"
    );
}

pub async fn a_page_of_messages_is_the_tail_before_a_position(store: &impl SessionStore) {
    store.create_session(new("p")).await.unwrap();
    // Another session's messages between and after: a page is one
    // session's, whichever way a backend finds its last keys.
    store.create_session(new("p2")).await.unwrap();
    store
        .append_messages("p", said(&["0", "1", "2"]))
        .await
        .unwrap();
    store.append_messages("p2", said(&["x"])).await.unwrap();
    store.append_messages("p", said(&["3", "4"])).await.unwrap();
    store
        .append_messages("p2", said(&["y", "z"]))
        .await
        .unwrap();
    let page = |limit, before| Page { limit, before };
    let cases = [
        (page(Some(2), None), vec!["3", "4"]),
        (page(Some(2), Some(3)), vec!["1", "2"]),
        (page(None, Some(2)), vec!["0", "1"]),
        (page(Some(10), None), vec!["0", "1", "2", "3", "4"]),
        (page(Some(1000), None), vec!["0", "1", "2", "3", "4"]),
        (page(Some(3), Some(99)), vec!["2", "3", "4"]),
        (page(Some(0), None), vec![]),
        (page(Some(2), Some(0)), vec![]),
    ];
    for (page, expected) in cases {
        assert_eq!(
            store.load_messages_page("p", page).await.unwrap(),
            said(&expected),
            "{page:?}"
        );
    }
    assert!(store
        .load_messages_page("ghost", page(Some(1), None))
        .await
        .unwrap()
        .is_empty());
}

pub async fn replacing_messages_persists_a_compaction_or_nothing(store: &impl SessionStore) {
    store.create_session(new("c")).await.unwrap();
    store
        .append_messages("c", said(&["a", "b", "c", "d", "e"]))
        .await
        .unwrap();
    // Compaction: a summary, then the kept tail.
    let compacted = said(&["summary of a-c", "d", "e"]);
    store
        .replace_messages("c", 0, Some(5), compacted.clone())
        .await
        .unwrap();
    assert_eq!(store.load_messages("c").await.unwrap(), compacted);
    let stale = store.replace_messages("c", 0, Some(5), said(&["x"])).await;
    assert_eq!(
        code(stale),
        "CONFLICT",
        "the history no longer has 5 messages"
    );
    // Past the end: the error names the option as each call calls it.
    let past = store.replace_messages("c", 4, None, said(&["x"])).await;
    let past = past.unwrap_err();
    assert_eq!(
        (past.code(), past.field()),
        ("INVALID_ARGUMENT", Some("from"))
    );
    let turn = TurnWrite {
        replace_from: Some(4),
        ..TurnWrite::default()
    };
    let past = store.commit_turn("c", turn).await.unwrap_err();
    assert_eq!(
        (past.code(), past.field()),
        ("INVALID_ARGUMENT", Some("replaceFrom"))
    );
    let bad = vec![say("fine"), json!({"role": "user"})];
    assert_eq!(
        code(store.replace_messages("c", 1, None, bad).await),
        "INVALID_VALUE"
    );
    assert_eq!(
        store.load_messages("c").await.unwrap(),
        compacted,
        "every refusal wrote nothing"
    );
    store
        .replace_messages("c", 3, Some(3), said(&["f"]))
        .await
        .unwrap();
    assert_eq!(
        store.load_messages("c").await.unwrap(),
        said(&["summary of a-c", "d", "e", "f"]),
        "from the end appends"
    );
    store
        .replace_messages("c", 1, None, Vec::new())
        .await
        .unwrap();
    assert_eq!(
        store.load_messages("c").await.unwrap(),
        said(&["summary of a-c"]),
        "nothing after `from` truncates"
    );
    assert_eq!(
        code(store.replace_messages("ghost", 0, None, Vec::new()).await),
        "NOT_FOUND"
    );
    // A missing session is NOT_FOUND before its history is judged.
    let stale = store
        .replace_messages("ghost", 3, Some(9), Vec::new())
        .await;
    assert_eq!(code(stale), "NOT_FOUND");
    let replacing = TurnWrite {
        replace_from: Some(2),
        ..TurnWrite::default()
    };
    assert_eq!(
        code(store.commit_turn("ghost", replacing).await),
        "NOT_FOUND"
    );
}

pub async fn pop_and_clear_remove_from_the_end(store: &impl SessionStore) {
    store.create_session(new("q")).await.unwrap();
    store.create_session(new("q2")).await.unwrap();
    store.append_messages("q", said(&["a", "b"])).await.unwrap();
    // The last message stored is another session's.
    store.append_messages("q2", said(&["other"])).await.unwrap();
    assert_eq!(store.pop_message("q").await.unwrap(), Some(say("b")));
    assert_eq!(store.load_messages("q").await.unwrap(), said(&["a"]));
    store.append_messages("q", said(&["c"])).await.unwrap();
    assert_eq!(
        store.load_messages("q").await.unwrap(),
        said(&["a", "c"]),
        "positions close up"
    );
    store.clear_messages("q").await.unwrap();
    assert!(store.load_messages("q").await.unwrap().is_empty());
    assert_eq!(
        store.pop_message("q").await.unwrap(),
        None,
        "nothing to pop"
    );
    assert_eq!(code(store.pop_message("ghost").await), "NOT_FOUND");
    assert_eq!(code(store.clear_messages("ghost").await), "NOT_FOUND");
    assert_eq!(
        store.load_messages("q2").await.unwrap(),
        said(&["other"]),
        "another session's history is untouched"
    );
}

pub async fn requests_list_in_first_append_order_with_their_counts(store: &impl SessionStore) {
    store.create_session(new("r")).await.unwrap();
    store
        .append_activity_frames("r", "second", frames("a", 2))
        .await
        .unwrap();
    store
        .append_activity_frames("r", "first", frames("b", 1))
        .await
        .unwrap();
    store
        .append_activity_frames("r", "second", frames("c", 3))
        .await
        .unwrap();
    let list = store.list_requests("r").await.unwrap();
    let counts: Vec<(&str, u64)> = list
        .iter()
        .map(|r| (r.request_id.as_str(), r.frames))
        .collect();
    assert_eq!(counts, [("second", 5), ("first", 1)]);
    assert!(list
        .iter()
        .all(|r| r.first_at <= r.last_at && r.first_at > 0.0));
    let grouped = store.load_frames_by_request("r").await.unwrap();
    assert_eq!(
        grouped,
        [
            (
                "second".to_owned(),
                [frames("a", 2), frames("c", 3)].concat()
            ),
            ("first".to_owned(), frames("b", 1)),
        ]
    );
    assert!(store.list_requests("ghost").await.unwrap().is_empty());
}

pub async fn a_turn_commits_all_or_nothing(store: &impl SessionStore) {
    store.create_session(new("t")).await.unwrap();
    store.append_messages("t", said(&["old"])).await.unwrap();
    let pinned =
        AttachmentStore::from_specs(&json!([{"kind": "memory", "slug": "m", "memory": "M"}]))
            .unwrap();
    let turn = TurnWrite {
        messages: said(&["q", "a"]),
        replace_from: None,
        frames: vec![("req".to_owned(), frames("f", 2))],
        state: vec![
            (
                "snapshot".to_owned(),
                json!({"accepts": [], "children": []}),
            ),
            ("attachments".to_owned(), pinned.to_specs()),
        ],
        ..TurnWrite::default()
    };
    store.commit_turn("t", turn.clone()).await.unwrap();
    assert_eq!(
        store.load_messages("t").await.unwrap(),
        said(&["old", "q", "a"])
    );
    assert_eq!(
        store.load_activity_frames("t", Some("req")).await.unwrap(),
        frames("f", 2)
    );
    assert!(store.load_snapshot("t").await.unwrap().is_some());
    assert_eq!(
        store
            .load_attachments("t")
            .await
            .unwrap()
            .unwrap()
            .to_specs(),
        pinned.to_specs()
    );
    // One bad value anywhere, and nothing of the turn lands.
    let mut bad = turn.clone();
    bad.state
        .push(("repl_state".to_owned(), json!({"history": [1]})));
    assert_eq!(code(store.commit_turn("t", bad).await), "INVALID_VALUE");
    let mut bad = turn.clone();
    bad.frames.push(("".to_owned(), frames("g", 1)));
    assert_eq!(code(store.commit_turn("t", bad).await), "INVALID_ARGUMENT");
    let mut bad = turn.clone();
    bad.replace_from = Some(99);
    assert_eq!(code(store.commit_turn("t", bad).await), "INVALID_ARGUMENT");
    assert_eq!(
        store.load_messages("t").await.unwrap().len(),
        3,
        "nothing written"
    );
    assert_eq!(
        store.load_activity_frames("t", None).await.unwrap().len(),
        2
    );
    // A compacting turn: the history replaced from 0 in the same transaction.
    let compacting = TurnWrite {
        messages: said(&["summary"]),
        replace_from: Some(0),
        ..TurnWrite::default()
    };
    store.commit_turn("t", compacting).await.unwrap();
    assert_eq!(store.load_messages("t").await.unwrap(), said(&["summary"]));
    assert_eq!(
        code(store.commit_turn("ghost", TurnWrite::default()).await),
        "NOT_FOUND"
    );
}

pub async fn a_session_exports_and_imports_as_one_document(store: &impl SessionStore) {
    let meta = json!({"model": "local"}).as_object().unwrap().clone();
    store
        .create_session(NewSession {
            id: Some("x".into()),
            title: Some("export me".into()),
            meta: Some(meta),
        })
        .await
        .unwrap();
    let pinned = AttachmentStore::from_specs(
        &json!([{"kind": "todo", "items": [{"text": "t", "completed": true}]}]),
    )
    .unwrap();
    let turn = TurnWrite {
        messages: said(&["q", "é 文 👩‍💻"]),
        frames: vec![("r1".into(), frames("a", 2)), ("r2".into(), frames("b", 1))],
        state: vec![
            ("attachments".into(), pinned.to_specs()),
            (
                "plan".into(),
                json::parse(r#"{"step": 2, "ratio": 0.5}"#).unwrap(),
            ),
        ],
        ..TurnWrite::default()
    };
    store.commit_turn("x", turn).await.unwrap();
    store
        .append_activity_frames("x", "r1", frames("c", 1))
        .await
        .unwrap();
    // Keys in UTF-16 order, as IndexedDB keeps them: U+10000 (a surrogate
    // pair, 0xD800 0xDC00) before U+FF5E, unlike their UTF-8 bytes.
    for key in ["\u{ff5e}", "\u{10000}"] {
        let state = store.save_session_state("x", key, json!(1));
        state.await.unwrap();
    }
    let keys = store.list_state_keys("x", &KeyRange::default()).await;
    let keys = keys.unwrap();
    assert_eq!(keys, ["attachments", "plan", "\u{10000}", "\u{ff5e}"]);
    let text = store.export_session("x").await.unwrap();
    let doc = json::parse(&text).unwrap();
    let exported: Vec<&String> = doc["state"].as_object().unwrap().keys().collect();
    assert_eq!(
        exported,
        keys.iter().collect::<Vec<_>>(),
        "exported in the same order"
    );
    assert_eq!(
        (doc["format"].as_str(), doc["version"].as_u64()),
        (Some("attache-session"), Some(1))
    );
    assert_eq!(doc["session"]["title"], "export me");
    assert_eq!(doc["messages"], Value::Array(said(&["q", "é 文 👩‍💻"])));
    // Runs in append order, so an import keeps the order across requests.
    assert_eq!(
        doc["frames"],
        json!([{"requestId": "r1", "frames": (Value::Array(frames("a", 2)))},
               {"requestId": "r2", "frames": (Value::Array(frames("b", 1)))},
               {"requestId": "r1", "frames": (Value::Array(frames("c", 1)))}])
    );
    assert_eq!(
        doc["state"]["plan"],
        json::parse(r#"{"step": 2, "ratio": 0.5}"#).unwrap()
    );
    assert_eq!(
        doc["state"]["attachments"],
        pinned.to_specs(),
        "the pins ride in the state"
    );

    // Import, export again: the identical document.
    store.delete_session("x").await.unwrap();
    let info = store
        .import_session(SessionExport::from_value(&doc).unwrap())
        .await
        .unwrap();
    assert_eq!(info.title, "export me");
    assert_eq!(store.export_session("x").await.unwrap(), text);
    // Under another id, beside the original.
    let copy = SessionExport::from_value(&doc)
        .unwrap()
        .with_id(Some("y".into()))
        .unwrap();
    store.import_session(copy).await.unwrap();
    assert_eq!(
        store.load_messages("y").await.unwrap(),
        said(&["q", "é 文 👩‍💻"])
    );
    assert_eq!(
        store.load_activity_frames("y", None).await.unwrap(),
        store.load_activity_frames("x", None).await.unwrap(),
        "the copy's frames in the original's append order"
    );
    let again = SessionExport::from_value(&doc).unwrap();
    assert_eq!(code(store.import_session(again).await), "ALREADY_EXISTS");

    // Malformed or newer documents: typed, and nothing written.
    let with = |path: &str, value: Value| {
        let mut bad = doc.clone();
        let (outer, inner) = path.split_once('.').unwrap_or((path, ""));
        if inner.is_empty() {
            bad[outer] = value;
        } else {
            bad[outer][inner] = value;
        }
        SessionExport::from_value(&bad).map(|e| e.with_id(Some("z".into())).unwrap())
    };
    assert_eq!(code(with("version", json!(2))), "VERSION");
    // An id inside the document makes it malformed, as the README says.
    assert_eq!(code(with("session.id", json!(" "))), "INVALID_VALUE");
    let blank_request = json!([{"requestId": "", "frames": [{"n": 1}]}]);
    assert_eq!(code(with("frames", blank_request)), "INVALID_VALUE");
    assert_eq!(code(with("state", json!({" ": 1}))), "INVALID_VALUE");
    assert_eq!(code(with("format", json!("other"))), "INVALID_VALUE");
    assert_eq!(
        code(with("messages", json!([{"role": "user"}]))),
        "INVALID_VALUE"
    );
    assert_eq!(
        code(with("state.repl_state", json!({"history": [1]}))),
        "INVALID_VALUE"
    );
    assert_eq!(code(with("session", json!({"id": "z"}))), "INVALID_VALUE");
    // A field more, or a time no JS Date holds, would change unseen.
    let session = |extra: (&str, Value)| {
        let mut s = json!({"id": "z", "title": "", "createdAt": 1, "updatedAt": 1, "meta": {}});
        if let Value::Object(fields) = &mut s {
            fields.insert(extra.0.into(), extra.1);
        }
        s
    };
    assert!(with("session", session(("id", json!("z")))).is_ok());
    assert_eq!(
        code(with("session", session(("pinned", json!(true))))),
        "INVALID_VALUE"
    );
    let far = json!(9_000_000_000_000_000u64);
    assert_eq!(
        code(with("session", session(("createdAt", far)))),
        "INVALID_VALUE"
    );
    assert_eq!(code(SessionExport::from_value(&json!([]))), "INVALID_VALUE");
    assert_eq!(store.get_session("z").await.unwrap(), None);
    assert_eq!(code(store.export_session("ghost").await), "NOT_FOUND");
}

pub async fn the_prefix_baseline_is_saved_and_loaded_with_the_pins(store: &impl SessionStore) {
    store.create_session(new("b")).await.unwrap();
    let pinned =
        AttachmentStore::from_specs(&json!([{"kind": "memory", "slug": "m", "memory": "M"}]))
            .unwrap();
    let baseline = json!([{"kind": "memory", "slug": "m", "memory": "before"}]);
    store
        .save_pins("b", &pinned, Some(baseline.clone()))
        .await
        .unwrap();
    let (loaded, saved) = store.load_pins("b").await.unwrap().unwrap();
    assert_eq!(
        (loaded.to_specs(), saved),
        (pinned.to_specs(), Some(baseline.clone()))
    );
    store.save_attachments("b", &pinned).await.unwrap();
    assert_eq!(
        store.load_pins("b").await.unwrap().unwrap().1,
        None,
        "saved without one, none"
    );
    let bad = json!([{"kind": "nope"}]);
    assert_eq!(
        code(store.save_pins("b", &pinned, Some(bad)).await),
        "UNKNOWN_KIND"
    );
    assert_eq!(store.load_pins("ghost").await.unwrap().map(|p| p.1), None);
}

/// Every credential shape (`attache::credentials::examples`) in every place
/// a value enters: refused with CREDENTIAL, and nothing written.
pub async fn every_credential_shape_is_refused_in_every_place(store: &impl SessionStore) {
    store.create_session(new("cred")).await.unwrap();
    let object = |key: &str, value: Value| {
        Value::Object(attache::json::Map::from_iter([(key.to_owned(), value)]))
    };
    let mut refusals = 0;
    for (secret, kind) in attache::credentials::examples::secrets() {
        let s = || Value::String(secret.clone());
        let text_message =
            |text: Value| json!({"role": "user", "content": [{"type": "text", "text": text}]});
        let meta = object("note", s()).as_object().unwrap().clone();
        let places: Vec<(&str, Result<(), attache::Error>)> = vec![
            (
                "session id",
                store.create_session(new(&secret)).await.map(drop),
            ),
            (
                "title",
                store
                    .create_session(NewSession {
                        title: Some(secret.clone()),
                        ..new("t")
                    })
                    .await
                    .map(drop),
            ),
            (
                "meta",
                store
                    .create_session(NewSession {
                        meta: Some(meta.clone()),
                        ..new("m")
                    })
                    .await
                    .map(drop),
            ),
            (
                "new title",
                store
                    .update_session(
                        "cred",
                        SessionUpdate {
                            title: Some(secret.clone()),
                            meta: None,
                        },
                    )
                    .await
                    .map(drop),
            ),
            (
                "new meta",
                store
                    .update_session(
                        "cred",
                        SessionUpdate {
                            title: None,
                            meta: Some(meta),
                        },
                    )
                    .await
                    .map(drop),
            ),
            (
                "state key",
                store.save_session_state("cred", &secret, json!(1)).await,
            ),
            (
                "state value",
                store
                    .save_session_state("cred", "k", object("a", s()))
                    .await,
            ),
            (
                "object key",
                store
                    .save_session_state("cred", "k", object(&secret, json!(1)))
                    .await,
            ),
            (
                "snapshot",
                store
                    .save_snapshot("cred", json!({"state": (object("v", s()))}))
                    .await,
            ),
            (
                "repl env",
                store
                    .save_repl_state("cred", json!({"env": (object("x", s()))}))
                    .await,
            ),
            (
                "repl history",
                store
                    .save_repl_state("cred", json!({"history": [(s())]}))
                    .await,
            ),
            (
                "frame",
                store
                    .append_activity_frames("cred", "r", vec![object("text", s())])
                    .await,
            ),
            (
                "request id",
                store
                    .append_activity_frames("cred", &secret, frames("f", 1))
                    .await,
            ),
            (
                "message",
                store.append_messages("cred", vec![text_message(s())]).await,
            ),
            (
                "turn",
                store
                    .commit_turn(
                        "cred",
                        TurnWrite {
                            frames: vec![("r".into(), vec![object("t", s())])],
                            ..TurnWrite::default()
                        },
                    )
                    .await,
            ),
            (
                "pin",
                Attachment::from_spec(&json!({"kind": "memory", "slug": "m", "memory": (s())}))
                    .map(drop),
            ),
            ("import", {
                let doc = json!({"format": "attache-session", "version": 1,
                    "session": {"id": "imp", "title": "", "createdAt": 1, "updatedAt": 1, "meta": {}},
                    "state": {}, "messages": [(text_message(s()))], "frames": []});
                SessionExport::from_value(&doc).map(drop)
            }),
        ];
        for (place, result) in places {
            let error = result.expect_err(&format!("{kind} in the {place} is refused"));
            assert_eq!(error.code(), "CREDENTIAL", "{kind} in the {place}: {error}");
            refusals += 1;
        }
    }
    assert!(refusals >= 40 * 17, "{refusals} refusals");
    let sessions: Vec<String> = store
        .list_sessions()
        .await
        .unwrap()
        .into_iter()
        .map(|s| s.id)
        .collect();
    assert_eq!(sessions, ["cred"], "no refused session was created");
    let cred = store.get_session("cred").await.unwrap().unwrap();
    assert_eq!(
        (cred.title.as_str(), cred.meta.len()),
        ("", 0),
        "no refused update landed"
    );
    assert!(store
        .list_session_state_keys("cred")
        .await
        .unwrap()
        .is_empty());
    assert!(store
        .load_activity_frames("cred", None)
        .await
        .unwrap()
        .is_empty());
    assert!(store.load_messages("cred").await.unwrap().is_empty());
}

pub async fn state_keys_select_a_prefix_below_a_bound_in_either_order(store: &impl SessionStore) {
    store.create_session(new("s")).await.unwrap();
    // U+FF5E sorts after U+10000 by UTF-16 code units, before it by UTF-8.
    let keys = [
        "c/1",
        "c/3",
        "c/2",
        "d/1",
        "c",
        "b/9",
        "c/\u{ff5e}",
        "c/\u{10000}",
        "c/\u{ffff}x",
        "c0",
    ];
    for key in keys {
        store.save_session_state("s", key, json!(1)).await.unwrap();
    }
    let list = |prefix: Option<&str>, before: Option<&str>, limit, reverse| KeyRange {
        prefix: prefix.map(str::to_owned),
        before: before.map(str::to_owned),
        limit,
        reverse,
    };
    // Every key in UTF-16 order, as IndexedDB compares them.
    let utf16 = [
        "b/9",
        "c",
        "c/1",
        "c/2",
        "c/3",
        "c/\u{10000}",
        "c/\u{ff5e}",
        "c/\u{ffff}x",
        "c0",
        "d/1",
    ];
    let under_c: Vec<&str> = utf16[2..8].to_vec();
    let under_c_down: Vec<&str> = under_c.iter().rev().copied().collect();
    let cases: [(KeyRange, &[&str]); 15] = [
        (list(Some("c/"), None, None, false), &under_c),
        (
            list(Some("c/"), None, Some(2), true),
            &["c/\u{ffff}x", "c/\u{ff5e}"],
        ),
        (list(Some("c/"), Some("c/3"), None, true), &["c/2", "c/1"]),
        (list(Some("c/"), Some("c/3"), Some(1), true), &["c/2"]),
        (list(None, Some("c/"), None, false), &["b/9", "c"]),
        (list(Some("x/"), None, None, false), &[]),
        (list(Some("c/"), None, Some(2), false), &["c/1", "c/2"]),
        (list(None, None, Some(1), true), &["d/1"]),
        (list(None, Some("c/2"), Some(2), true), &["c/1", "c"]),
        // A prefix ending in U+FFFF: keys past it that do not extend it
        // ("c0", "d/1") must not take the limit's places.
        (
            list(Some("c/\u{ffff}"), None, Some(1), true),
            &["c/\u{ffff}x"],
        ),
        (list(Some("c/"), Some("c/"), None, false), &[]),
        (list(Some("c/"), None, Some(0), true), &[]),
        (list(Some("c/3"), Some("c/4"), Some(5), true), &["c/3"]),
        // More than IndexedDB walks a cursor for, backwards.
        (list(Some("c/"), None, Some(100), true), &under_c_down),
        // An astral last char: the bound raises its low surrogate.
        (
            list(Some("c/\u{10000}"), None, Some(3), true),
            &["c/\u{10000}"],
        ),
    ];
    for (range, expected) in cases {
        assert_eq!(
            store.list_state_keys("s", &range).await.unwrap(),
            expected,
            "{range:?}"
        );
    }
    let all = store.list_session_state_keys("s").await.unwrap();
    assert_eq!(all, utf16, "UTF-16 order, as IndexedDB");
    assert!(store
        .list_state_keys("ghost", &KeyRange::default())
        .await
        .unwrap()
        .is_empty());
}

pub async fn several_states_load_at_once_with_null_where_absent(store: &impl SessionStore) {
    store.create_session(new("s")).await.unwrap();
    store
        .save_session_state("s", "a", json!({"x": [1, "é"]}))
        .await
        .unwrap();
    store
        .save_session_state("s", "b", json!(null))
        .await
        .unwrap();
    let keys = ["a", "missing", "b", "a"].map(str::to_owned);
    let text = store.load_session_states_json("s", &keys).await.unwrap();
    assert_eq!(
        attache::json::parse(&text).unwrap(),
        json!([{"x": [1, "é"]}, null, null, {"x": [1, "é"]}])
    );
    assert_eq!(
        store.load_session_states_json("s", &[]).await.unwrap(),
        "[]"
    );
    let ghost = store
        .load_session_states_json("ghost", &keys[..2])
        .await
        .unwrap();
    assert_eq!(ghost, "[null,null]", "a missing session holds nothing");
}

pub async fn state_if_absent_keeps_the_first_write_in_one_turn(store: &impl SessionStore) {
    store.create_session(new("s")).await.unwrap();
    store
        .save_session_state("s", "w/1", json!("first"))
        .await
        .unwrap();
    let turn = TurnWrite {
        state: vec![("over".to_owned(), json!("written"))],
        state_if_absent: vec![
            ("w/1".to_owned(), json!("second")),
            ("w/2".to_owned(), json!("new")),
        ],
        ..TurnWrite::default()
    };
    store.commit_turn("s", turn.clone()).await.unwrap();
    let keys = ["w/1", "w/2", "over"].map(str::to_owned);
    let text = store.load_session_states_json("s", &keys).await.unwrap();
    assert_eq!(text, r#"["first","new","written"]"#);

    // Checked as state is, and a key may not be in both: each refusal
    // writes nothing of the turn.
    let turn_of = |state: (&str, Value), if_absent: (&str, Value)| TurnWrite {
        state: vec![(state.0.to_owned(), state.1)],
        state_if_absent: vec![(if_absent.0.to_owned(), if_absent.1)],
        ..TurnWrite::default()
    };
    for (bad, field) in [
        (
            turn_of(("fine", json!(1)), ("snapshot", json!(3))),
            "stateIfAbsent.snapshot",
        ),
        (
            turn_of(("fine", json!(1)), ("fine", json!(2))),
            "stateIfAbsent.fine",
        ),
        (
            TurnWrite {
                state_if_absent: vec![("dup".into(), json!(1)), ("dup".into(), json!(2))],
                ..TurnWrite::default()
            },
            "stateIfAbsent.dup",
        ),
    ] {
        let error = store.commit_turn("s", bad).await.unwrap_err();
        assert_eq!(
            (error.code(), error.field()),
            ("INVALID_VALUE", Some(field))
        );
    }
    assert_eq!(store.load_session_state("s", "fine").await.unwrap(), None);
    assert_eq!(store.load_session_state("s", "dup").await.unwrap(), None);
    assert_eq!(code(store.commit_turn("ghost", turn).await), "NOT_FOUND");
}

pub async fn a_turn_can_require_a_history_length_and_absent_keys(store: &impl SessionStore) {
    store.create_session(new("s")).await.unwrap();
    let said = |text: &str| json!({"role": "user", "content": text});
    store
        .append_messages("s", vec![said("a"), said("b")])
        .await
        .unwrap();
    let op = |expected, text: &str| TurnWrite {
        messages: vec![said(text)],
        expected_count: Some(expected),
        state: vec![("op/1".to_owned(), json!({"applied": text}))],
        require_absent: vec!["op/1".to_owned()],
        ..TurnWrite::default()
    };
    let stale = store.commit_turn("s", op(1, "late")).await.unwrap_err();
    assert_eq!(stale.code(), "CONFLICT", "the history has 2, not 1");
    store.commit_turn("s", op(2, "c")).await.unwrap();
    let again = store.commit_turn("s", op(3, "c")).await.unwrap_err();
    assert_eq!(again.code(), "CONFLICT", "op/1 is recorded");
    let texts: Vec<Value> = store.load_messages("s").await.unwrap();
    assert_eq!(
        texts,
        vec![said("a"), said("b"), said("c")],
        "each refusal wrote nothing"
    );
    // With replaceFrom, the count is checked before the replacement.
    let replace = TurnWrite {
        messages: vec![said("summary")],
        replace_from: Some(0),
        expected_count: Some(3),
        ..TurnWrite::default()
    };
    store.commit_turn("s", replace).await.unwrap();
    assert_eq!(
        store.load_messages("s").await.unwrap(),
        vec![said("summary")]
    );
    let bad = TurnWrite {
        require_absent: vec![" ".to_owned()],
        ..TurnWrite::default()
    };
    assert_eq!(code(store.commit_turn("s", bad).await), "INVALID_ARGUMENT");
}

pub async fn a_message_keeps_its_meta(store: &impl SessionStore) {
    store.create_session(new("s")).await.unwrap();
    let message = json!({"role": "assistant", "content": "hi", "meta": {"item": {"id": "msg_1", "status": "completed"}}});
    store
        .append_messages("s", vec![message.clone()])
        .await
        .unwrap();
    assert_eq!(store.load_messages("s").await.unwrap(), vec![message]);
    let bad = json!({"role": "user", "content": "x", "meta": "not an object"});
    let error = store.append_messages("s", vec![bad]).await.unwrap_err();
    assert_eq!(
        (error.code(), error.field()),
        ("INVALID_VALUE", Some("messages[0].meta"))
    );
}

/// `{"a": ... }` wrapping `[]`: `depth` levels in all.
fn nested(depth: usize) -> Value {
    let mut value = json!([]);
    for _ in 1..depth {
        value = json!({ "a": value });
    }
    value
}

pub async fn state_keys_side_by_side_are_not_a_named_pair(store: &impl SessionStore) {
    // Each is stored on its own; together they look like
    // `{ type: "password", value }`, which they are not.
    store.create_session(new("pair")).await.unwrap();
    for (key, value) in [
        ("type", "password"),
        ("value", "shown to the user"),
        ("key", "Authorization"),
    ] {
        store
            .save_session_state("pair", key, json!(value))
            .await
            .unwrap();
    }
    let text = store.export_session("pair").await.unwrap();
    let doc = SessionExport::from_value(&json::parse(&text).unwrap()).unwrap();
    store
        .import_session(doc.with_id(Some("copy".into())).unwrap())
        .await
        .unwrap();
    let copied = store.export_session("copy").await.unwrap();
    let state = |text: &str| json::parse(text).unwrap()["state"].clone();
    assert_eq!(state(&copied), state(&text), "imported as exported");
    // A newer document that adds a field is VERSION, not malformed.
    let mut newer = json::parse(&text).unwrap();
    if let Value::Object(fields) = &mut newer {
        fields.insert("version".into(), json!(2));
        fields.insert("blobs".into(), json!([]));
    }
    assert_eq!(code(SessionExport::from_value(&newer).map(drop)), "VERSION");
    // A key holding a secret is CREDENTIAL at the document, as a
    // redacting store has it; the error never echoes it.
    let mut odd = json::parse(&text).unwrap();
    let key = "sk-proj-Zx9Zx9Zx9Zx9Zx9Zx9Zx9Zx9Zx9Zx9Zx9Zx9";
    if let Value::Object(fields) = &mut odd {
        fields.insert(key.into(), json!(1));
    }
    let error = SessionExport::from_value(&odd).unwrap_err();
    assert_eq!(
        (error.code(), error.field()),
        ("CREDENTIAL", Some("document"))
    );
    assert!(!error.to_string().contains("Zx9Zx9"), "{error}");
}

pub async fn a_value_128_deep_saves_exports_and_imports(store: &impl SessionStore) {
    assert_eq!(nested(128).depth(), 128);
    let meta = nested(128).as_object().unwrap().clone();
    let session = NewSession {
        meta: Some(meta),
        ..new("deep")
    };
    store.create_session(session).await.unwrap();
    store
        .save_session_state("deep", "k", nested(128))
        .await
        .unwrap();
    let turn = TurnWrite {
        frames: vec![("r".into(), vec![nested(128)])],
        state: vec![("t".into(), nested(128))],
        ..TurnWrite::default()
    };
    store.commit_turn("deep", turn).await.unwrap();
    // Carried 4 levels down in the document, each still imports.
    let text = store.export_session("deep").await.unwrap();
    let doc = json::parse(&text).unwrap();
    let copy = SessionExport::from_value(&doc).unwrap();
    let copy = copy.with_id(Some("copy".into())).unwrap();
    store.import_session(copy).await.unwrap();
    let copied = store.load_activity_frames("copy", Some("r")).await;
    assert_eq!(copied.unwrap(), vec![nested(128)]);

    // One level more is refused wherever it is stored, at its path.
    let too_deep = store.save_session_state("deep", "k", nested(129)).await;
    let too_deep = too_deep.unwrap_err();
    assert_eq!(
        (too_deep.code(), too_deep.field()),
        ("INVALID_VALUE", Some("k"))
    );
    let frames = store.append_activity_frames("deep", "r", vec![nested(129)]);
    let frames = frames.await.unwrap_err();
    assert_eq!(frames.field(), Some("frames[0]"));
    let meta = nested(129).as_object().unwrap().clone();
    let update = SessionUpdate {
        meta: Some(meta),
        ..SessionUpdate::default()
    };
    let update = store.update_session("deep", update).await.unwrap_err();
    assert_eq!(
        (update.code(), update.field()),
        ("INVALID_VALUE", Some("options.meta"))
    );
    // A document's session meta is meta too, wherever the parser allowed it.
    let mut doc = json::parse(&text).unwrap();
    if let Value::Object(fields) = &mut doc {
        if let Some(Value::Object(session)) = fields.get_mut("session") {
            session.insert("meta".into(), nested(129));
        }
    }
    let import = SessionExport::from_value(&doc).map(|_| ()).unwrap_err();
    assert_eq!(
        (import.code(), import.field()),
        ("INVALID_VALUE", Some("document.session.meta"))
    );
    let stored = store.load_session_state("deep", "k").await.unwrap();
    assert_eq!(stored, Some(nested(128)), "nothing refused was written");
}
