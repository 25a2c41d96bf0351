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
        code(no_credentials("m", &json!("sk-aB3dE6gHi9jKm2nP5qRs8tV1"))),
        "CREDENTIAL"
    );
    assert_eq!(
        code(no_credentials(
            "m",
            &json!({"h": "Bearer abcdefghijkLmnopq"})
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
    // The path names the value at fault, and the reason its own rule.
    for (value, path, reason) in [
        (
            json!({"history": ["a", 1]}),
            "repl_state.history[1]",
            "must be a string",
        ),
        (
            json!({"history": "a"}),
            "repl_state.history",
            "an array of strings",
        ),
        (json!({"env": 1}), "repl_state.env", "must be an object"),
        (json!({"hist": []}), "repl_state.hist", "is not a field"),
    ] {
        let error = repl_state(&value).unwrap_err();
        assert_eq!(error.field(), Some(path));
        assert!(error.to_string().contains(reason), "{error}");
    }
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
fn a_message_that_is_no_object_is_told_what_a_message_is() {
    // As estimateTokens or buildRequest would tell it, not "a JSON object".
    let error = messages(&[json!("hi")]).unwrap_err();
    assert_eq!(error.field(), Some("messages[0]"));
    assert!(error
        .to_string()
        .contains("must be a message: {role, content}"));
}

#[test]
fn frames_must_be_objects() {
    let error = objects("frames", &[json!({}), json!(1)], NOT_FRAME).unwrap_err();
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

    /// The sorted clash check reports what comparing every pair does: the
    /// least key given twice in state (only the pins' can be), else the
    /// first stateIfAbsent key, in the order given, that is also in state
    /// or given earlier.
    #[test]
    fn state_if_absent_clashes_match_a_pairwise_check(
        state in proptest::collection::vec("[abc]{1,2}", 0..6),
        if_absent in proptest::collection::vec("[abc]{1,2}", 0..8),
    ) {
        let pairs = |keys: &[String]| keys.iter().map(|k| (k.clone(), json!(1))).collect();
        let turn = super::TurnWrite {
            state: pairs(&state),
            state_if_absent: pairs(&if_absent),
            ..super::TurnWrite::default()
        };
        let twice = state.iter().enumerate().filter(|(i, k)| state[..*i].contains(k)).map(|(_, k)| k).min();
        let twice = twice.map(|key| (format!("state.{key}"), "is also written by `attachments`".to_owned()));
        let expected = twice.or_else(|| if_absent.iter().enumerate().find_map(|(i, key)| {
            if state.contains(key) {
                Some((format!("stateIfAbsent.{key}"), "is also in state".to_owned()))
            } else if if_absent[..i].contains(key) {
                Some((format!("stateIfAbsent.{key}"), "is given twice".to_owned()))
            } else {
                None
            }
        }));
        let got = turn.check().err().map(|e| match e {
            Error::InvalidValue { path, reason } => (path, reason),
            other => panic!("{other:?}"),
        });
        proptest::prop_assert_eq!(got, expected);
    }
}

#[cfg(not(target_arch = "wasm32"))]
proptest::proptest! {
    /// Entries found by a binary search are those a scan of every entry
    /// finds: by request, in first-append order, or with `runs` one per run.
    #[test]
    fn entries_by_request_match_a_scan(ids in proptest::collection::vec("[a-e]{0,2}", 0..40), runs: bool) {
        let mut grouped = super::ByRequest::new(super::group_id, runs);
        let mut scanned: Vec<(String, Vec<usize>)> = Vec::new();
        for (i, id) in ids.iter().enumerate() {
            grouped.entry(id, || (id.clone(), Vec::new())).1.push(i);
            let found = if runs {
                scanned.last_mut().filter(|(last, _)| last == id)
            } else {
                scanned.iter_mut().find(|(known, _)| known == id)
            };
            match found {
                Some((_, items)) => items.push(i),
                None => scanned.push((id.clone(), vec![i])),
            }
        }
        proptest::prop_assert_eq!(grouped.items, scanned);
    }
}

/// Pins as a live store hands them, checked at the current generation.
fn handed(
    specs: json::Value,
    baseline: Option<json::Value>,
    specs_checked: bool,
    baseline_is_specs: bool,
) -> super::PinsToSave {
    super::PinsToSave {
        specs,
        baseline,
        specs_checked,
        baseline_is_specs,
        checked_at: crate::credentials::host_secrets_generation(),
    }
}

const KEY_PIN: &str = r#"[{"kind": "memory", "slug": "m", "memory": "sk-proj-Zx9Zx9Zx9Zx9Zx9Zx9Zx9Zx9Zx9Zx9Zx9Zx9"}]"#;

#[test]
fn pins_a_live_store_checked_are_not_checked_again_but_a_hosts_entries_are() {
    // Specs no check would pass show which ran.
    let nope = json!([{"kind": "nope"}]);
    let turn = |pins| super::TurnWrite::default().with_pins(pins).check();
    assert_eq!(
        turn(handed(nope.clone(), None, false, false))
            .unwrap_err()
            .code(),
        "UNKNOWN_KIND"
    );
    turn(handed(nope.clone(), None, true, false)).unwrap();
    // A secret registered between the check and the turn's (an IndexedDB
    // write waits its turn) undoes it.
    let waiting = super::TurnWrite::default().with_pins(handed(nope.clone(), None, true, true));
    crate::credentials::register_host_secret("page-held-key-2718").unwrap();
    let after = waiting.check();
    crate::credentials::clear_host_secrets();
    assert_eq!(after.unwrap_err().code(), "UNKNOWN_KIND");
    // Only the pins' own positions: a host's entry before them, of the
    // same key, is checked, and its credential named.
    let host = super::TurnWrite {
        state: vec![(
            super::ATTACHMENTS_KEY.to_owned(),
            json::parse(KEY_PIN).unwrap(),
        )],
        ..super::TurnWrite::default()
    };
    let error = host.with_pins(handed(json!([]), None, true, true)).check();
    let error = error.unwrap_err();
    assert_eq!(
        (error.code(), error.field()),
        ("CREDENTIAL", Some("state.attachments[0].memory"))
    );
}

#[test]
fn a_baseline_that_is_the_pins_is_checked_once_as_the_pins() {
    let specs = || json!([{"kind": "memory", "slug": "m", "memory": "M"}]);
    // A baseline no check would pass shows which one ran.
    let unchecked = json!([{"kind": "nope"}]);
    let turn = |pins| super::TurnWrite::default().with_pins(pins).check();
    let pins = |is_specs| handed(specs(), Some(unchecked.clone()), false, is_specs);
    assert_eq!(turn(pins(false)).unwrap_err().code(), "UNKNOWN_KIND");
    turn(pins(true)).unwrap();
    // The pins themselves are checked unless they passed.
    let key = json::parse(KEY_PIN).unwrap();
    let held = handed(key.clone(), None, false, true);
    let error = turn(held).unwrap_err();
    // At the path saveSessionState gives: the caller wrote no `state`.
    assert_eq!(
        (error.code(), error.field()),
        ("CREDENTIAL", Some("attachments[0].memory"))
    );
    // So is a host's own entry of the key, wherever it is: its code, not
    // the clash with the pins', whether or not their baseline is current.
    for (state, if_absent) in [(vec![key.clone()], vec![]), (vec![], vec![key])] {
        let entry = |values: Vec<json::Value>| {
            let key = super::PREFIX_BASELINE_KEY.to_owned();
            values.into_iter().map(|v| (key.clone(), v)).collect()
        };
        let host = super::TurnWrite {
            state: entry(state),
            state_if_absent: entry(if_absent),
            ..super::TurnWrite::default()
        };
        let error = host.with_pins(pins(true)).check();
        assert_eq!(error.unwrap_err().code(), "CREDENTIAL");
    }
}

#[test]
fn a_live_stores_pins_say_what_its_checks_found() {
    use crate::attachment::{Attachment, AttachmentStore, PrefixTracker};
    let secret = "page-held-key-1618";
    let mut store = AttachmentStore::new();
    let memory = |text: &str| json!({"kind": "memory", "slug": "m", "memory": text});
    store.pin(Attachment::from_spec(&memory(&format!("note {secret}"))).unwrap());
    let mut tracker = PrefixTracker::default();
    tracker.check(&store);
    let pins = super::PinsToSave::of(&store, &tracker);
    assert!(pins.specs_checked && pins.baseline_is_specs);
    assert_eq!(pins.baseline.as_ref(), Some(&pins.specs));
    // A secret in them registered since: neither passes, and the baseline
    // holding it is not handed.
    crate::credentials::register_host_secret(secret).unwrap();
    let pins = super::PinsToSave::of(&store, &tracker);
    let generation = crate::credentials::host_secrets_generation();
    crate::credentials::clear_host_secrets();
    assert!(!pins.specs_checked && pins.baseline_is_specs && pins.baseline.is_none());
    assert_eq!(pins.checked_at, generation);
    // Pinned again without it: the old baseline still holds it, so it is
    // dropped; the new specs pass.
    let mut store = AttachmentStore::new();
    store.pin(Attachment::from_spec(&memory(&format!("note {secret}"))).unwrap());
    let mut tracker = PrefixTracker::default();
    tracker.check(&store);
    store.pin(Attachment::from_spec(&memory("clean")).unwrap());
    crate::credentials::register_host_secret(secret).unwrap();
    let pins = super::PinsToSave::of(&store, &tracker);
    crate::credentials::clear_host_secrets();
    assert!(pins.specs_checked && !pins.baseline_is_specs && pins.baseline.is_none());
}

#[test]
fn a_baseline_that_is_the_specs_is_not_scanned_for_secrets_again() {
    use crate::attachment::{Attachment, AttachmentStore, PrefixTracker};
    let mut store = AttachmentStore::new();
    let spec = json!({"kind": "memory", "slug": "m", "memory": "a note"});
    store.pin(Attachment::from_spec(&spec).unwrap());
    let mut tracker = PrefixTracker::default();
    tracker.check(&store);
    // Registered, and not in the pins: the store looks for it once.
    crate::credentials::register_host_secret("page-held-key-3141").unwrap();
    let scans = |run: &dyn Fn()| {
        crate::credentials::SECRET_SCANS.with(|n| n.set(0));
        run();
        crate::credentials::SECRET_SCANS.with(std::cell::Cell::get)
    };
    let handing = scans(&|| drop(super::PinsToSave::of(&store, &tracker)));
    let once = scans(&|| {
        let _ = crate::credentials::check_host_secrets_in("", &store.to_specs());
    });
    crate::credentials::clear_host_secrets();
    assert!(once > 0);
    assert_eq!(handing, once, "the specs once, not the baseline again");
}

#[test]
fn a_state_if_absent_key_the_pins_write_says_so() {
    let turn = super::TurnWrite {
        state_if_absent: vec![(super::PREFIX_BASELINE_KEY.to_owned(), json!(null))],
        ..super::TurnWrite::default()
    }
    .with_pins(handed(json!([]), None, false, false));
    assert_eq!(
        turn.check().unwrap_err().to_string(),
        "value at `stateIfAbsent.prefix_baseline`: is also in state, or written by `attachments`"
    );
}

mod key_scan {
    use crate::session::{KeyRange, Scan, Upper};

    fn range(prefix: &str, before: Option<&str>, limit: Option<usize>) -> KeyRange {
        KeyRange {
            prefix: Some(prefix.to_owned()).filter(|p| !p.is_empty()),
            before: before.map(str::to_owned),
            limit,
            reverse: false,
        }
    }

    #[test]
    fn the_tighter_of_prefix_and_before_bounds_the_scan() {
        fn scan(r: &KeyRange) -> Option<(Upper<'_>, Option<usize>)> {
            r.scan().map(|s| (s.upper, s.count))
        }
        let past = range("c/", None, Some(2));
        assert_eq!(scan(&past), Some((Upper::Past("c/"), Some(2))));
        let before = range("c/", Some("c/3"), Some(1));
        assert_eq!(scan(&before), Some((Upper::Before("c/3"), Some(1))));
        // `before` above every key that extends the prefix: the prefix bounds.
        let loose = range("c/", Some("d"), None);
        assert_eq!(scan(&loose), Some((Upper::Past("c/"), None)));
        assert_eq!(scan(&range("", None, Some(3))), Some((Upper::End, Some(3))));
        assert_eq!(
            scan(&range("", Some("b"), None)),
            Some((Upper::Before("b"), None))
        );
    }

    #[test]
    fn nothing_is_scanned_when_before_is_at_or_below_the_prefix() {
        assert_eq!(range("c/", Some("c/"), None).scan(), None);
        assert_eq!(range("c/", Some("c"), None).scan(), None);
        assert_eq!(range("", Some(""), None).scan(), None);
        // IndexedDB reads a count of 0 as no count at all.
        assert_eq!(range("c/", None, Some(0)).scan(), None);
    }

    #[test]
    fn a_prefix_ending_in_u_ffff_scans_on_and_counts_after_reading() {
        let r = range("c/\u{ffff}", None, Some(1));
        assert_eq!(
            r.scan(),
            Some(Scan {
                upper: Upper::End,
                count: None
            })
        );
        let r = range("c/\u{ffff}", Some("d"), Some(1));
        assert_eq!(
            r.scan(),
            Some(Scan {
                upper: Upper::Before("d"),
                count: None
            })
        );
    }

    /// The keys a store reads for a scan, from all of a session's keys.
    #[cfg(not(target_arch = "wasm32"))]
    fn scanned(r: &KeyRange, sorted: &[String]) -> Vec<String> {
        let Some(scan) = r.scan() else {
            return Vec::new();
        };
        let prefix = r.prefix.as_deref().unwrap_or_default();
        let lt = |a: &str, b: &str| a.encode_utf16().lt(b.encode_utf16());
        let mut keys: Vec<String> = sorted
            .iter()
            .filter(|k| !lt(k, prefix))
            .filter(|k| match scan.upper {
                Upper::Before(b) => lt(k, b),
                Upper::Past(p) => {
                    let mut past: Vec<u16> = p.encode_utf16().collect();
                    *past.last_mut().unwrap() += 1;
                    k.encode_utf16().lt(past)
                }
                Upper::End => true,
            })
            .cloned()
            .collect();
        if let Some(count) = scan.count {
            if r.reverse {
                keys.drain(..keys.len().saturating_sub(count));
            } else {
                keys.truncate(count);
            }
        }
        keys
    }

    #[cfg(not(target_arch = "wasm32"))]
    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(4_000))]
        /// Reading only the scan, counted, selects what reading every key does.
        #[test]
        fn a_scan_selects_what_a_full_read_does(
            keys in proptest::collection::vec("[ab\u{ffff}\u{10000}]{1,4}", 0..12),
            prefix in "[a\u{ffff}\u{10000}]{0,2}",
            before in proptest::option::of("[ab\u{ffff}\u{10000}]{0,3}"),
            limit in proptest::option::of(0usize..5),
            reverse in proptest::bool::ANY,
        ) {
            let mut sorted = keys;
            sorted.sort_by(|a, b| a.encode_utf16().cmp(b.encode_utf16()));
            sorted.dedup();
            let r = KeyRange { reverse, ..range(&prefix, before.as_deref(), limit) };
            let everything = r.select(sorted.clone());
            proptest::prop_assert_eq!(r.select(scanned(&r, &sorted)), everything);
        }
    }
}

#[test]
fn a_stored_time_is_whole_milliseconds_a_date_can_hold() {
    struct Clock(f64);
    impl super::Environment for Clock {
        fn clock(&self) -> f64 {
            self.0
        }
        fn new_id(&self) -> String {
            String::new()
        }
    }
    use super::Environment;
    let now = |t| Clock(t).now();
    assert_eq!(now(1_700_000_000_000.7), 1_700_000_000_000.0);
    // A fake clock before 1970, or a broken one: IndexedDB would keep a
    // record that no longer reads back as a session.
    assert_eq!(now(-1.0), 0.0);
    assert_eq!(now(f64::NAN), 0.0);
    assert_eq!(now(f64::INFINITY), 8.64e15);
}

#[test]
fn pins_saved_twice_under_one_id_are_refused() {
    let pin = json!({"kind": "memory", "slug": "m", "memory": "M"});
    let other = json!({"kind": "memory", "slug": "n", "memory": "N"});
    assert_eq!(code(state_value("attachments", &json!([pin, other]))), "OK");
    let error = state_value("attachments", &json!([pin, other, pin])).unwrap_err();
    assert_eq!(
        (error.code(), error.field()),
        ("INVALID_VALUE", Some("attachments"))
    );
    assert_eq!(
        code(state_value("prefix_baseline", &json!([pin, pin]))),
        "INVALID_VALUE"
    );
}

#[test]
fn a_key_the_pins_write_is_refused_in_the_hosts_state() {
    // As commitTurn builds it: the host's state, then the pins' keys.
    let turn = |state: &[&str], if_absent: &[&str]| super::TurnWrite {
        state: state.iter().map(|k| (k.to_string(), json!([]))).collect(),
        state_if_absent: if_absent
            .iter()
            .map(|k| (k.to_string(), json!([])))
            .collect(),
        ..super::TurnWrite::default()
    };
    let pins = ["attachments", "prefix_baseline"];
    assert_eq!(
        code(turn(&["notes", pins[0], pins[1]], &["seen"]).check()),
        "OK"
    );
    for (state, if_absent, path) in [
        (
            &["prefix_baseline", pins[0], pins[1]][..],
            &[][..],
            "state.prefix_baseline",
        ),
        (
            &["attachments", pins[0], pins[1]][..],
            &["x"][..],
            "state.attachments",
        ),
        (&pins[..], &["attachments"][..], "stateIfAbsent.attachments"),
    ] {
        let error = turn(state, if_absent).check().unwrap_err();
        assert_eq!((error.code(), error.field()), ("INVALID_VALUE", Some(path)));
    }
}

#[test]
fn a_bad_session_header_names_its_field() {
    use super::export::SessionExport;
    let document = |session: crate::json::Value| {
        json!({"format": "attache-session", "version": 1, "session": session,
               "state": {}, "messages": [], "frames": []})
    };
    let good = json!({"id": "s", "title": "", "createdAt": 5, "updatedAt": 5, "meta": {}});
    assert!(SessionExport::from_value(&document(good.clone())).is_ok());
    for (field, value, path) in [
        ("title", json!(5), "title"),
        ("createdAt", json!("1"), "createdAt"),
        ("updatedAt", json!(-1), "updatedAt"),
        ("updatedAt", crate::json::parse("1.5").unwrap(), "updatedAt"),
        // Past the last Date: checked by the import, not the reader.
        ("createdAt", json!(8_700_000_000_000_000u64), "createdAt"),
        ("updatedAt", json!(8_640_000_000_000_001u64), "updatedAt"),
        ("meta", json!([]), "meta"),
        ("id", json!(null), "id"),
        // Before createdAt: no store writes that (a clock moved back
        // leaves updatedAt as it was).
        ("updatedAt", json!(4), "updatedAt"),
    ] {
        let mut session = good.clone();
        session[field] = value;
        let error = SessionExport::from_value(&document(session)).err().unwrap();
        let path = format!("document.session.{path}");
        assert_eq!(
            (error.code(), error.field()),
            ("INVALID_VALUE", Some(path.as_str()))
        );
    }
    let mut session = good.clone();
    if let crate::json::Value::Object(fields) = &mut session {
        fields.remove("meta");
    }
    let error = SessionExport::from_value(&document(session)).err().unwrap();
    assert_eq!(error.field(), Some("document.session.meta"));
}

#[test]
fn a_request_spans_its_batches_times_in_whatever_order_they_were_stored() {
    // A batch stamped earlier may be stored later (its connection reopened).
    let mut list = super::ByRequest::new(|s: &super::RequestSummary| &s.request_id, false);
    super::RequestSummary::add(&mut list, "r", 2, 2000.0);
    super::RequestSummary::add(&mut list, "r", 1, 1000.0);
    super::RequestSummary::add(&mut list, "r", 1, 1500.0);
    let r = &list.items[0];
    assert_eq!((r.frames, r.first_at, r.last_at), (4, 1000.0, 2000.0));
}

#[test]
fn a_secret_used_as_a_key_in_a_typed_state_value_is_a_credential() {
    // Shape checks came first: INVALID_VALUE or INVALID_SPEC, at a path
    // where the key had been replaced by a marker.
    let key = format!("sk-proj-{}mRmmMpcwR", "L9YYy38iU4xjsATaY2TZ".repeat(2));
    let mut env = json::Map::new();
    env.insert(key.clone(), json!(1));
    let env = json::Value::Object(env);
    let pin = json!([env]);
    let spec_code = crate::attachment::AttachmentStore::from_specs(&pin)
        .unwrap_err()
        .code();
    let cases = [
        (super::REPL_STATE_KEY, env.clone(), "CREDENTIAL"),
        (super::SNAPSHOT_KEY, json!({"children": env}), "CREDENTIAL"),
        // Pins as setAttachment reports them: a route does not change a code.
        (super::ATTACHMENTS_KEY, pin, spec_code),
    ];
    for (name, value, code) in cases {
        let error = state_value(name, &value).unwrap_err();
        assert_eq!(error.code(), code, "{name}");
        let shown = crate::credentials::scrub(&format!("{error}"));
        assert!(!shown.contains(&key[8..]), "{name}");
    }
    // Pins may not be null (every later load would refuse them); a
    // baseline may (none yet).
    assert_eq!(
        code(state_value(super::ATTACHMENTS_KEY, &json::Value::Null)),
        "INVALID_SPEC"
    );
    assert_eq!(
        code(state_value(super::PREFIX_BASELINE_KEY, &json::Value::Null)),
        "OK"
    );
    // A shape error without a secret keeps its own code.
    assert_eq!(
        code(state_value(super::REPL_STATE_KEY, &json!({"x": 1}))),
        "INVALID_VALUE"
    );
    // A key that is no identifier is bracketed, as everywhere.
    let odd = state_value(super::REPL_STATE_KEY, &json!({"a.b": 1})).unwrap_err();
    assert_eq!(odd.field(), Some(r#"repl_state["a.b"]"#));
}

/// The memory store's export writes the text the stores' shared
/// `document_text` joins, and stops at its limit before building more.
#[test]
fn an_export_is_the_shared_document_and_stops_at_its_limit() {
    use super::export::{document_text, export_text};
    let session = super::SessionInfo {
        id: "s".into(),
        title: "t".into(),
        created_at: 1.0,
        updated_at: 2.0,
        meta: json::Map::new(),
    };
    let state = vec![("a".into(), json!({"x": 1})), ("b\"".into(), json!(null))];
    let messages = vec![
        json!({"role": "user", "content": "hi"}),
        json!({"role": "assistant"}),
    ];
    let frames = [
        ("r1", json!({"i": 0})),
        ("r1", json!({"i": 1})),
        ("r2", json!({})),
        ("r1", json!({"i": 2})),
    ];
    let frames = || frames.iter().map(|(r, f)| (*r, f));
    let text = export_text(&session, &state, &messages, frames(), usize::MAX).unwrap();
    let joined = document_text(
        &session.to_value().to_json(),
        &crate::map_vec(&state, |(k, v)| (k.clone(), v.to_json())),
        &json::array_text(&messages),
        r#"[{"requestId":"r1","frames":[{"i":0},{"i":1}]},{"requestId":"r2","frames":[{}]},{"requestId":"r1","frames":[{"i":2}]}]"#,
    );
    assert_eq!(text, joined);
    let none = export_text(&session, &[], &[], frames().take(0), usize::MAX).unwrap();
    assert!(
        none.ends_with(r#""state":{},"messages":[],"frames":[]}"#),
        "{none}"
    );
    assert!(export_text(&session, &state, &messages, frames(), text.len()).is_ok());
    let error = export_text(&session, &state, &messages, frames(), text.len() - 1).unwrap_err();
    assert_eq!(
        (error.code(), error.field()),
        ("INVALID_VALUE", Some("result"))
    );
}

#[test]
fn a_session_record_with_float_times_from_late_november_builds_still_reads() {
    let record = |at: &str| {
        let text = format!(
            r#"{{"id":"old","title":"chat","createdAt":{at},"updatedAt":{at},"meta":{{}}}}"#
        );
        super::SessionInfo::from_value(&json::parse(&text).unwrap())
    };
    let old = record("1764442727000.0").unwrap();
    assert_eq!(
        (old.created_at, old.updated_at),
        (1_764_442_727_000.0, 1_764_442_727_000.0)
    );
    assert!(record("1764442727000").is_ok());
    // Whole numbers only, as before.
    for bad in ["1764442727000.5", "1.5", "-1", "1e3", "\"1\""] {
        assert_eq!(record(bad).unwrap_err().0, "createdAt", "{bad}");
    }
}

#[test]
fn a_baseline_holding_a_secret_registered_after_the_call_is_dropped_not_refused() {
    // IndexedDB checks a call a moment after it is made: a secret
    // registered between leaves the baseline no host can detach, which
    // is dropped as at the call, and the pins are saved.
    let secret = "page-held-key-3141";
    let baseline = json!([{"kind": "memory", "slug": "old", "memory": (format!("was {secret}"))}]);
    let specs = json!([{"kind": "memory", "slug": "m", "memory": "M"}]);
    let mut turn = super::TurnWrite::default().with_pins(handed(
        specs.clone(),
        Some(baseline.clone()),
        true,
        false,
    ));
    crate::credentials::register_host_secret(secret).unwrap();
    let refused_before = turn.check().map_err(|e| e.code());
    turn.drop_stale_baseline();
    let after = turn.check();
    crate::credentials::clear_host_secrets();
    assert_eq!(refused_before, Err("CREDENTIAL"));
    after.unwrap();
    assert_eq!(
        turn.state[1],
        (super::PREFIX_BASELINE_KEY.to_owned(), json::Value::Null)
    );
    assert_eq!(turn.state[0].1, specs);
    // Pins that hold the secret themselves are still refused.
    let held = json!([{"kind": "memory", "slug": "m", "memory": (format!("is {secret}"))}]);
    let mut turn =
        super::TurnWrite::default().with_pins(handed(held.clone(), Some(held), true, true));
    crate::credentials::register_host_secret(secret).unwrap();
    turn.drop_stale_baseline();
    let after = turn.check();
    crate::credentials::clear_host_secrets();
    assert_eq!(after.unwrap_err().code(), "CREDENTIAL");
    // Nothing registered since: the baseline is left as handed.
    let mut turn = super::TurnWrite::default().with_pins(handed(
        specs.clone(),
        Some(baseline.clone()),
        true,
        false,
    ));
    turn.drop_stale_baseline();
    assert_eq!(turn.state[1].1, baseline);
}
