use crate::json;

use super::*;

fn pin(store: &mut AttachmentStore, spec: crate::json::Value) -> String {
    let attachment = Attachment::from_spec(&spec).expect("spec is valid");
    store.pin(attachment).to_owned()
}

fn rendered(spec: crate::json::Value) -> String {
    Attachment::from_spec(&spec)
        .expect("spec is valid")
        .render()
}

/// What the tracker names after `change` to a store pinned from `specs`:
/// live, and after the store is saved and loaded and the tracker restored
/// from its baseline.
fn named(specs: &[json::Value], change: impl Fn(&mut AttachmentStore)) -> (String, String) {
    let mut store = AttachmentStore::new();
    for spec in specs {
        pin(&mut store, spec.clone());
    }
    let mut tracker = PrefixTracker::default();
    tracker.check(&store);
    let saved = tracker.baseline().cloned().unwrap();
    change(&mut store);
    let live = tracker.check(&store).change.unwrap().attachment_id;
    let mut tracker = PrefixTracker::default();
    tracker.restore(&saved).unwrap();
    let reloaded = AttachmentStore::from_specs(&store.to_specs()).unwrap();
    (live, tracker.check(&reloaded).change.unwrap().attachment_id)
}

/// `first_change` with nothing rendered since the previous prefix.
fn changed(previous: &[PrefixPart], current: &[PrefixPart]) -> Option<PrefixChange> {
    first_change(previous, current, u64::MAX)
}

#[test]
fn a_memory_renders_its_slug_header_and_text_verbatim() {
    assert_eq!(
        rendered(json!({"kind": "memory", "slug": "auth", "memory": "Use Argon2id."})),
        "[Pinned memory: auth]\n\nUse Argon2id.",
        "the memory rides verbatim under the slug header"
    );
}

#[test]
fn a_path_only_file_renders_the_note_with_an_em_dash() {
    assert_eq!(
        rendered(json!({"kind": "file", "path": "src/main.rs"})),
        "[Attached file: src/main.rs]\n\n(path pinned; contents not inlined \u{2014} read the file when its contents matter)",
        "a missing contents field pins the path only"
    );
}

#[test]
fn null_contents_pin_the_path_only() {
    assert_eq!(
        rendered(json!({"kind": "file", "path": "a", "contents": null})),
        rendered(json!({"kind": "file", "path": "a"})),
        "null and absent contents mean the same"
    );
}

#[test]
fn contents_exactly_at_the_ceiling_render_verbatim() {
    let body = "y".repeat(FILE_CONTENTS_LIMIT_BYTES);
    assert_eq!(
        rendered(json!({"kind": "file", "path": "exact.log", "contents": body})),
        format!("[Attached file: exact.log]\n\n{body}"),
        "8192 bytes is at the ceiling, not over it"
    );
}

#[test]
fn one_byte_over_the_ceiling_truncates_with_the_total_in_the_footer() {
    let body = "y".repeat(FILE_CONTENTS_LIMIT_BYTES + 1);
    assert_eq!(
        rendered(json!({"kind": "file", "path": "big.log", "contents": body})),
        format!(
            "[Attached file: big.log]\n\n{}\n\n\u{2026} (truncated, 8193 bytes total)",
            "y".repeat(FILE_CONTENTS_LIMIT_BYTES)
        ),
        "the cut keeps 8192 bytes and the footer names all 8193"
    );
}

#[test]
fn a_cut_inside_a_multibyte_char_backs_off_to_its_start() {
    let body = format!("x{}", "\u{e9}".repeat(4100));
    let text = truncate_contents(&body);
    let kept = text.split("\n\n\u{2026}").next().unwrap();
    assert_eq!(
        kept.len(),
        8191,
        "byte 8192 falls inside an é, so 8191 bytes are kept"
    );
}

#[test]
fn truncate_false_renders_the_whole_contents() {
    let body = "z".repeat(FILE_CONTENTS_LIMIT_BYTES * 2);
    assert_eq!(
        rendered(json!({"kind": "file", "path": "raw", "contents": body, "truncate": false})),
        format!("[Attached file: raw]\n\n{body}"),
        "truncate: false is the caller's choice to send everything"
    );
}

#[test]
fn todo_items_render_as_an_ordered_checklist() {
    let spec = json!({"kind": "todo", "items": [
        {"text": "read", "completed": true},
        {"text": "write", "completed": false},
    ]});
    assert_eq!(rendered(spec), "[Todo list]\n- [x] read\n- [ ] write");
}

#[test]
fn an_empty_todo_list_renders_its_header_alone() {
    assert_eq!(
        rendered(json!({"kind": "todo", "items": []})),
        "[Todo list]"
    );
}

#[test]
fn a_custom_attachment_renders_its_text_verbatim() {
    let spec =
        json!({"kind": "custom", "id": "skill:review", "rank": "memory", "text": "  as is\r\n"});
    assert_eq!(
        rendered(spec),
        "  as is\r\n",
        "the host owns the rendered text"
    );
}

#[test]
fn ids_follow_the_kind_colon_slug_convention() {
    let mut store = AttachmentStore::new();
    assert_eq!(
        pin(&mut store, json!({"kind": "file", "path": "a.rs"})),
        "file:a.rs"
    );
    assert_eq!(
        pin(
            &mut store,
            json!({"kind": "memory", "slug": "m", "memory": ""})
        ),
        "memory:m"
    );
    assert_eq!(
        pin(&mut store, json!({"kind": "todo", "items": []})),
        TODO_ID
    );
    assert_eq!(
        pin(
            &mut store,
            json!({"kind": "custom", "id": "plan:q3", "rank": "todo", "text": "t"})
        ),
        "plan:q3"
    );
}

#[test]
fn a_re_pin_keeps_its_original_position() {
    let mut store = AttachmentStore::new();
    pin(
        &mut store,
        json!({"kind": "memory", "slug": "first", "memory": "one"}),
    );
    pin(
        &mut store,
        json!({"kind": "memory", "slug": "second", "memory": "two"}),
    );
    pin(
        &mut store,
        json!({"kind": "memory", "slug": "first", "memory": "updated"}),
    );
    assert_eq!(store.len(), 2, "a re-pin replaces rather than grows");
    assert_eq!(
        store.ids().collect::<Vec<_>>(),
        ["memory:first", "memory:second"]
    );
    assert_eq!(
        store.rendered("memory:first"),
        Some("[Pinned memory: first]\n\nupdated"),
        "the replacement is what renders"
    );
}

#[test]
fn a_custom_attachment_under_a_builtin_id_replaces_it_in_place() {
    let mut store = AttachmentStore::new();
    pin(&mut store, json!({"kind": "todo", "items": []}));
    pin(
        &mut store,
        json!({"kind": "custom", "id": "todo:session", "rank": "todo", "text": "mine"}),
    );
    assert_eq!(store.len(), 1, "one id, one attachment");
    assert_eq!(store.render_all(), ["mine"]);
}

#[test]
fn detach_reports_whether_anything_was_removed() {
    let mut store = AttachmentStore::new();
    pin(&mut store, json!({"kind": "file", "path": "gone.rs"}));
    assert!(store.detach("file:gone.rs"), "a stored id is removed");
    assert!(!store.contains("file:gone.rs"));
    assert!(
        !store.detach("file:gone.rs"),
        "a second detach finds nothing"
    );
}

#[test]
fn render_all_orders_memories_then_files_then_todos_in_pin_order() {
    let mut store = AttachmentStore::new();
    pin(&mut store, json!({"kind": "todo", "items": []}));
    pin(&mut store, json!({"kind": "file", "path": "b.rs"}));
    pin(
        &mut store,
        json!({"kind": "custom", "id": "note:x", "rank": "memory", "text": "custom memory"}),
    );
    pin(
        &mut store,
        json!({"kind": "memory", "slug": "fact", "memory": "keep"}),
    );
    pin(
        &mut store,
        json!({"kind": "file", "path": "a.rs", "contents": "A"}),
    );
    assert_eq!(
        store.render_all(),
        [
            "custom memory",
            "[Pinned memory: fact]\n\nkeep",
            "[Attached file: b.rs]\n\n(path pinned; contents not inlined \u{2014} read the file when its contents matter)",
            "[Attached file: a.rs]\n\nA",
            "[Todo list]",
        ],
        "kind precedence first, pin order within a kind"
    );
    assert_eq!(
        store.ids().collect::<Vec<_>>(),
        [
            "todo:session",
            "file:b.rs",
            "note:x",
            "memory:fact",
            "file:a.rs"
        ],
        "ids stay in pin order"
    );
}

#[test]
fn an_empty_store_builds_no_message() {
    assert_eq!(AttachmentStore::new().consolidated_message(), None);
}

#[test]
fn the_consolidated_message_serializes_as_one_all_text_user_message() {
    let mut store = AttachmentStore::new();
    pin(
        &mut store,
        json!({"kind": "todo", "items": [{"text": "t", "completed": false}]}),
    );
    pin(
        &mut store,
        json!({"kind": "memory", "slug": "m", "memory": "M"}),
    );
    let message = serde_json::to_value(store.consolidated_message().unwrap()).unwrap();
    assert_eq!(
        message,
        serde_json::json!({"role": "user", "content": [
            {"type": "text", "text": "[Pinned memory: m]\n\nM"},
            {"type": "text", "text": "[Todo list]\n- [ ] t"},
        ]})
    );
}

#[test]
fn a_stores_history_does_not_change_its_bytes() {
    // Same final pins, same bytes, however the store got there: the
    // prompt-cache invariant, against the rendered form written out.
    let file = json!({"kind": "file", "path": "f", "contents": "é".repeat(5000)});
    let memory = json!({"kind": "memory", "slug": "m", "memory": "x"});
    let mut fresh = AttachmentStore::new();
    pin(&mut fresh, file.clone());
    pin(&mut fresh, memory.clone());
    let mut edited = AttachmentStore::new();
    pin(
        &mut edited,
        json!({"kind": "file", "path": "f", "contents": "old"}),
    );
    pin(&mut edited, json!({"kind": "todo", "items": []}));
    edited.render_all();
    pin(&mut edited, memory);
    pin(&mut edited, file);
    assert!(edited.detach("todo:session"));
    let expected = vec![
        "[Pinned memory: m]\n\nx".to_owned(),
        format!(
            "[Attached file: f]\n\n{}\n\n\u{2026} (truncated, 10000 bytes total)",
            "é".repeat(4096)
        ),
    ];
    assert_eq!(fresh.render_all(), expected);
    assert_eq!(edited.render_all(), expected);
}

#[test]
fn the_revision_moves_only_when_the_consolidated_message_changes() {
    let mut store = AttachmentStore::new();
    let todo = |done: bool| json!({"kind": "todo", "items": [{"text": "t", "completed": done}]});
    pin(&mut store, todo(false));
    let pinned = store.revision();
    pin(&mut store, todo(false));
    assert_eq!(
        store.revision(),
        pinned,
        "an identical re-pin changes nothing"
    );
    pin(&mut store, todo(true));
    assert_ne!(
        store.revision(),
        pinned,
        "a ticked item changes the message"
    );
    let ticked = store.revision();
    assert!(!store.detach("memory:none"));
    assert_eq!(
        store.revision(),
        ticked,
        "detaching nothing changes nothing"
    );
    assert!(store.detach("todo:session"));
    assert_ne!(store.revision(), ticked);
}

/// Parts of one kind and one serial: ties go to the part that left.
fn parts(list: &[(&str, &str)]) -> PrefixParts {
    list.iter()
        .map(|(id, text)| PrefixPart {
            id: id.to_string(),
            text: text.to_string(),
            kind: AttachmentKind::Memory,
            serial: 0,
        })
        .collect()
}

#[test]
fn identical_prefixes_have_no_change() {
    let a = parts(&[("memory:m", "abc"), ("todo:session", "[Todo list]")]);
    assert_eq!(changed(&a, &a.clone()), None);
}

#[test]
fn a_change_names_the_first_differing_byte_and_its_attachment() {
    let before = parts(&[
        ("memory:m", "abc"),
        ("todo:session", "[Todo list]\n- [ ] x"),
    ]);
    let after = parts(&[
        ("memory:m", "abc"),
        ("todo:session", "[Todo list]\n- [x] x"),
    ]);
    assert_eq!(
        changed(&before, &after),
        Some(PrefixChange {
            offset: 3 + 15,
            attachment_id: "todo:session".into()
        }),
        "3 bytes of memory, then \"[Todo list]\\n- [\" is 15 bytes into the todo list"
    );
}

#[test]
fn offsets_count_utf8_bytes() {
    let before = parts(&[("memory:m", "é中x")]);
    let after = parts(&[("memory:m", "é中y")]);
    assert_eq!(
        changed(&before, &after).unwrap().offset,
        5,
        "é is 2 bytes, 中 is 3"
    );
}

#[test]
fn a_detached_tail_is_blamed_on_what_was_there() {
    let before = parts(&[("memory:m", "abc"), ("file:f", "F")]);
    let after = parts(&[("memory:m", "abc")]);
    assert_eq!(
        changed(&before, &after),
        Some(PrefixChange {
            offset: 3,
            attachment_id: "file:f".into()
        })
    );
    assert_eq!(
        changed(&after, &before),
        Some(PrefixChange {
            offset: 3,
            attachment_id: "file:f".into()
        }),
        "and an appended one on itself"
    );
}

#[test]
fn a_new_memory_ahead_of_the_files_is_blamed_at_its_own_start() {
    let mut store = AttachmentStore::new();
    pin(
        &mut store,
        json!({"kind": "file", "path": "f", "contents": "F"}),
    );
    let before = store.prefix_parts();
    pin(
        &mut store,
        json!({"kind": "memory", "slug": "m", "memory": "M"}),
    );
    let change = changed(&before, &store.prefix_parts()).unwrap();
    assert_eq!(
        (change.offset, change.attachment_id.as_str()),
        (1, "memory:m"),
        "\"[\" is shared, then the memory header differs"
    );
}

#[test]
fn text_moving_between_parts_is_a_change_though_the_bytes_run_the_same() {
    let before = parts(&[("memory:a", "ab"), ("memory:b", "c")]);
    let after = parts(&[("memory:a", "a"), ("memory:b", "bc")]);
    assert_eq!(
        changed(&before, &after),
        Some(PrefixChange {
            offset: 1,
            attachment_id: "memory:a".into()
        }),
        "the blocks sent differ, so the provider's cache misses"
    );
}

#[test]
fn a_detach_in_the_middle_names_the_detached_attachment() {
    let before = parts(&[("memory:a", "A"), ("memory:b", "B"), ("file:f", "F")]);
    let after = parts(&[("memory:a", "A"), ("file:f", "F")]);
    assert_eq!(
        changed(&before, &after),
        Some(PrefixChange {
            offset: 1,
            attachment_id: "memory:b".into()
        }),
        "not file:f, which only moved up"
    );
}

#[test]
fn the_tracker_reports_first_then_stable_then_the_change() {
    let mut store = AttachmentStore::new();
    pin(
        &mut store,
        json!({"kind": "memory", "slug": "m", "memory": "M"}),
    );
    let mut tracker = PrefixTracker::default();
    let first = tracker.check(&store);
    assert!(first.first && !first.stable(), "nothing to compare yet");
    assert!(
        tracker.check(&store).stable(),
        "an unchanged store is stable"
    );
    pin(
        &mut store,
        json!({"kind": "memory", "slug": "m", "memory": "N"}),
    );
    let changed = tracker.check(&store);
    assert_eq!(
        changed.change.map(|c| c.attachment_id),
        Some("memory:m".into())
    );
    assert!(
        tracker.check(&store).stable(),
        "the change is the new baseline"
    );
}

#[test]
fn providers_cache_from_their_minimums_per_model() {
    let anthropic = |model| minimum_cacheable_tokens(Some("anthropic"), Some(model));
    assert_eq!(
        minimum_cacheable_tokens(Some("openai"), Some("gpt-5-haiku")),
        1024
    );
    assert_eq!(anthropic("claude-3-5-haiku-20241022"), 2048);
    assert_eq!(anthropic("Claude-3-Haiku"), 2048, "whatever the case");
    assert_eq!(anthropic("claude-haiku-4-5-20251001"), 4096);
    assert_eq!(anthropic("claude-opus-4-5"), 4096);
    assert_eq!(anthropic("claude-opus-4-6"), 4096);
    assert_eq!(anthropic("claude-opus-4-7"), 4096);
    assert_eq!(anthropic("claude-mythos-preview"), 4096);
    // Lowered from 2048 in 2026.
    assert_eq!(anthropic("claude-sonnet-4-6"), 1024);
    assert_eq!(anthropic("claude-opus-4-8"), 1024);
    // Only Haiku 3 and 3.5 are 2048: a newer Haiku is not guessed at.
    assert_eq!(anthropic("claude-haiku-5"), 1024);
    assert_eq!(anthropic("claude-sonnet-4-5"), 1024);
    assert_eq!(anthropic("claude-sonnet-4"), 1024);
    assert_eq!(
        anthropic("anthropic/claude-opus-4.5"),
        4096,
        "a gateway's name"
    );
    assert_eq!(minimum_cacheable_tokens(None, None), 1024);
}

#[test]
fn a_spec_whose_id_no_call_could_take_is_refused() {
    let long = Attachment::from_spec(&json!({"kind": "file", "path": "p".repeat(4096)}))
        .expect_err("file: plus 4096 units is over the limit");
    assert_eq!((long.code(), long.field()), ("INVALID_SPEC", Some("path")));
    assert!(Attachment::from_spec(&json!({"kind": "file", "path": "p".repeat(4091)})).is_ok());
}

#[test]
fn a_part_keeps_its_serial_until_its_text_changes() {
    let mut store = AttachmentStore::new();
    pin(
        &mut store,
        json!({"kind": "memory", "slug": "a", "memory": "A"}),
    );
    pin(&mut store, json!({"kind": "todo", "items": []}));
    pin(&mut store, json!({"kind": "file", "path": "f"}));
    let serials = |store: &AttachmentStore| store.parts().map(|(s, _)| s).collect::<Vec<_>>();
    let before = serials(&store);
    assert_eq!(before.len(), 3);
    assert!(
        before
            .iter()
            .all(|s| before.iter().filter(|t| *t == s).count() == 1),
        "unique"
    );

    pin(
        &mut store,
        json!({"kind": "memory", "slug": "a", "memory": "A"}),
    );
    assert_eq!(serials(&store), before, "the same text keeps its serial");

    pin(
        &mut store,
        json!({"kind": "todo", "items": [{"text": "t", "completed": false}]}),
    );
    let after = serials(&store);
    assert_eq!(
        (after[0], after[1]),
        (before[0], before[1]),
        "memory and file keep theirs"
    );
    assert!(
        !before.contains(&after[2]),
        "the changed todo gets a new serial"
    );

    store.detach("memory:a");
    assert_eq!(
        serials(&store),
        after[1..],
        "a detach moves no other serial"
    );
}

#[test]
fn a_restored_baseline_compares_the_first_check_after_a_reload() {
    let mut before = AttachmentStore::new();
    pin(
        &mut before,
        json!({"kind": "memory", "slug": "m", "memory": "M"}),
    );
    pin(
        &mut before,
        json!({"kind": "todo", "items": [{"text": "t", "completed": false}]}),
    );
    let mut tracker = PrefixTracker::default();
    assert!(tracker.check(&before).first);
    let saved = tracker
        .baseline()
        .cloned()
        .expect("a check leaves a baseline");

    // A reload: the same pins, a fresh tracker given the saved baseline.
    let reloaded = AttachmentStore::from_specs(&before.to_specs()).unwrap();
    let mut tracker = PrefixTracker::default();
    tracker.restore(&saved).unwrap();
    let status = tracker.check(&reloaded);
    assert!(status.stable(), "{status:?}");

    let mut ticked = AttachmentStore::from_specs(&before.to_specs()).unwrap();
    pin(
        &mut ticked,
        json!({"kind": "todo", "items": [{"text": "t", "completed": true}]}),
    );
    let mut tracker = PrefixTracker::default();
    tracker.restore(&saved).unwrap();
    let change = tracker.check(&ticked).change.expect("the tick is a change");
    assert_eq!(change.attachment_id, "todo:session");
    assert!(tracker.restore(&json!([{"kind": "nope"}])).is_err());
    // A baseline holding a credential is refused, so it is dropped: no
    // host could detach it, and saving it would be refused.
    let held = json!([{"kind": "memory", "slug": "a", "memory": "sk-proj-Zx9Zx9Zx9Zx9Zx9Zx9Zx9Zx9Zx9Zx9Zx9Zx9"}]);
    let mut tracker = PrefixTracker::default();
    assert_eq!(tracker.restore(&held).unwrap_err().code(), "CREDENTIAL");
    assert!(tracker.baseline().is_none());
    // Refused over a baseline it had, it keeps that one, unchanged.
    let mut tracker = PrefixTracker::default();
    tracker.restore(&saved).unwrap();
    let before = tracker.baseline().cloned();
    assert_eq!(tracker.restore(&held).unwrap_err().code(), "CREDENTIAL");
    assert!(before.is_some() && tracker.baseline().cloned() == before);
}

#[test]
fn a_baseline_is_current_exactly_while_it_is_the_stores_specs() {
    let mut store = AttachmentStore::new();
    let mut tracker = PrefixTracker::default();
    let file = |contents: &str| json!({"kind": "file", "path": "a.log", "contents": contents});
    // Each step, then whether the baseline is then the store's specs.
    let steps: [(&str, &dyn Fn(&mut AttachmentStore, &mut PrefixTracker)); 8] = [
        ("none yet", &|_, _| {}),
        ("a check", &|s, t| {
            t.check(s);
        }),
        ("a pin", &|s, _| {
            pin(s, json!({"kind": "memory", "slug": "m", "memory": "M"}));
        }),
        ("a check", &|s, t| {
            t.check(s);
        }),
        // Past the cut, the same render: the message stands, the spec not.
        ("a re-pin past the cut", &|s, _| {
            pin(s, file(&format!("{}{}", "x".repeat(9000), "a")));
        }),
        ("a check", &|s, t| {
            t.check(s);
        }),
        ("a detach", &|s, _| {
            s.detach("memory:m");
        }),
        ("a reload", &|s, t| {
            t.check(s);
            let saved = t.baseline().cloned().unwrap();
            *t = PrefixTracker::default();
            t.restore(&saved).unwrap();
        }),
    ];
    pin(&mut store, file(&format!("{}{}", "x".repeat(9000), "b")));
    for (step, run) in steps {
        run(&mut store, &mut tracker);
        let is_specs = tracker.baseline() == Some(&store.to_specs());
        // Current only after a check; a restored baseline matches no
        // revision, though here it is the same specs.
        let expected = step == "a check";
        assert_eq!(tracker.is_current(&store), expected, "after {step}");
        assert!(
            !expected || is_specs,
            "current, so the store's specs, after {step}"
        );
    }
}

#[test]
fn a_part_that_moved_is_named_not_the_one_that_shifted_into_its_place() {
    let name = |before: &[(&str, &str)], after: &[(&str, &str)]| {
        changed(&parts(before), &parts(after)).map(|c| c.attachment_id)
    };
    // memory:a detached and pinned again goes after memory:b.
    let (a, b, c) = (("memory:a", "A"), ("memory:b", "B"), ("memory:c", "C"));
    assert_eq!(name(&[a, b], &[b, a]).as_deref(), Some("memory:a"));
    assert_eq!(name(&[a, b, c], &[b, c, a]).as_deref(), Some("memory:a"));
    // A custom part whose rank moved it ahead of two others.
    let x = ("custom:x", "X");
    assert_eq!(name(&[a, b, x], &[x, a, b]).as_deref(), Some("custom:x"));
    // Ahead of one only: both moved one place, so the tracker names the
    // one re-pinned, after a reload too, where the store knows its pins'
    // order but not their times: c:1 now ranks as another kind.
    let custom = |id: &str, rank: &str, text: &str| json!({"kind": "custom", "id": id, "rank": rank, "text": text});
    let memory = |slug: &str| json!({"kind": "memory", "slug": slug, "memory": slug});
    let repin = |store: &mut AttachmentStore, spec: json::Value| {
        let id = pin(store, spec.clone());
        store.detach(&id);
        pin(store, spec);
    };
    let both = |id: &str| (id.to_owned(), id.to_owned());
    let file = json!({"kind": "file", "path": "f1"});
    let c1 = |rank| custom("c:1", rank, "C");
    assert_eq!(
        named(&[file.clone(), c1("todo")], |s| drop(pin(s, c1("memory")))),
        both("c:1")
    );
    // A custom whose id reads as a memory's, replaced in place by that
    // memory: another kind, so it moved.
    let x = custom("memory:x", "file", "X");
    let into_memory = |s: &mut AttachmentStore| {
        drop(pin(
            s,
            json!({"kind": "memory", "slug": "x", "memory": "X"}),
        ))
    };
    assert_eq!(named(&[x, memory("m")], into_memory), both("memory:x"));
    // Two ranks changed in place: one of them, not the file they passed.
    let ranks = |s: &mut AttachmentStore| {
        for id in ["n:1", "n:2"] {
            pin(s, custom(id, "memory", id));
        }
    };
    let todos = [
        file.clone(),
        custom("n:1", "todo", "n:1"),
        custom("n:2", "todo", "n:2"),
    ];
    assert_eq!(named(&todos, ranks), both("n:1"));
    // A memory detached and pinned again behind another: itself.
    let again = |s: &mut AttachmentStore| repin(s, memory("a"));
    assert_eq!(named(&[memory("a"), memory("b")], again), both("memory:a"));
    // Two re-pins between checks shift a third part two places: live, one
    // of the two is named, not the part they shifted (after a reload the
    // README says it may be).
    let two = |s: &mut AttachmentStore| {
        repin(s, memory("a"));
        repin(s, memory("b"));
    };
    assert_eq!(
        named(&[memory("a"), memory("b"), memory("c")], two).0,
        "memory:a"
    );
    // A file's spec changed in place (its cut turned off on short text)
    // moved nothing: the re-pinned part is still named.
    let short = |path: &str| json!({"kind": "file", "path": path, "contents": "short"});
    let toggle = |s: &mut AttachmentStore| {
        pin(
            s,
            json!({"kind": "file", "path": "f2", "contents": "short", "truncate": false}),
        );
        repin(s, short("f1"));
    };
    assert_eq!(named(&[short("f1"), short("f2")], toggle), both("file:f1"));
    // A baseline saved with its keys in another order is the same specs.
    let mut store = AttachmentStore::new();
    for slug in ["b", "a"] {
        pin(&mut store, memory(slug));
    }
    let reordered = json!([{"memory": "a", "slug": "a", "kind": "memory"},
                           {"memory": "b", "kind": "memory", "slug": "b"}]);
    let mut tracker = PrefixTracker::default();
    tracker.restore(&reordered).unwrap();
    assert_eq!(
        tracker.check(&store).change.unwrap().attachment_id,
        "memory:a"
    );
    // Two parts of one text that trade places send the same blocks; a
    // detach among such parts is still the detached one.
    let (s1, s2, x) = (("n:a", "SAME"), ("n:b", "SAME"), ("n:x", "X"));
    assert_eq!(name(&[s1, s2], &[s2, s1]), None);
    assert_eq!(name(&[s1, s2, x], &[s2, x]).as_deref(), Some("n:a"));
    assert_eq!(name(&[s1, s2, x], &[s2, x, s1]).as_deref(), Some("n:a"));
    // Such a swap beside a real change: the change, where the blocks differ.
    let z = ("n:z", "Z");
    let change = changed(&parts(&[s1, s2]), &parts(&[s2, s1, z])).unwrap();
    assert_eq!((change.offset, change.attachment_id.as_str()), (8, "n:z"));
    let x2 = ("n:x", "X2");
    let change = changed(&parts(&[s1, s2, x]), &parts(&[s2, s1, x2])).unwrap();
    assert_eq!((change.offset, change.attachment_id.as_str()), (9, "n:x"));
    // Newly pinned in the middle: itself; detached from the middle: itself.
    assert_eq!(name(&[a, c], &[a, b, c]).as_deref(), Some("memory:b"));
    assert_eq!(name(&[a, b, c], &[a, c]).as_deref(), Some("memory:b"));
}

#[test]
fn a_secret_registered_after_pinning_is_refused_until_its_pin_goes() {
    let mut store = AttachmentStore::new();
    let key = "Zq81xYv3Lm0Nt5Kw";
    store.pin(Attachment::memory("notes", format!("my key is {key}")).unwrap());
    store.pin(Attachment::memory("other", "nothing here").unwrap());
    assert_eq!(store.check_host_secrets(), Ok(()));
    crate::credentials::register_host_secret(key).unwrap();
    let error = store.check_host_secrets().unwrap_err();
    assert_eq!(
        (error.code(), error.field()),
        ("CREDENTIAL", Some("memory:notes"))
    );
    // A failed check is not remembered as passed: asked again with the
    // generation unchanged, it still refuses.
    assert!(store.check_host_secrets().is_err());
    assert!(store.detach("memory:notes"));
    assert_eq!(store.check_host_secrets(), Ok(()));
    crate::credentials::clear_host_secrets();
}

#[test]
fn a_secret_past_the_cut_or_in_a_custom_id_is_found_in_the_spec() {
    let key = "Hm4rT8vQ2zW6nJ1c";
    let mut store = AttachmentStore::new();
    pin(
        &mut store,
        json!({"kind": "file", "path": "big.txt", "contents": format!("{}{key}", "a".repeat(9000))}),
    );
    pin(
        &mut store,
        json!({"kind": "custom", "id": format!("note:{key}"), "rank": "memory", "text": "hi"}),
    );
    assert!(
        !store.render_all().concat().contains(key),
        "neither is sent"
    );
    crate::credentials::register_host_secret(key).unwrap();
    // Saved, either would be refused: both are refused where shown.
    assert_eq!(
        store.check_pin("file:big.txt").unwrap_err().field(),
        Some("file:big.txt")
    );
    let custom = format!("note:{key}");
    let error = store.check_pin(&custom).unwrap_err();
    assert_eq!(
        (error.code(), error.field()),
        ("CREDENTIAL", Some("(an attachment id)")),
        "never the key"
    );
    assert!(!error.to_string().contains(key), "{error}");
    assert!(store.check_host_secrets().is_err());
    crate::credentials::clear_host_secrets();
    assert_eq!(store.check_pin("file:big.txt"), Ok(()));
}

#[test]
fn saved_pins_holding_a_credential_load_held_and_the_others_still_load() {
    let key = "Zq81xYv3Lm0Nt5Kw";
    let saved = json!([
        {"kind": "memory", "slug": "keep", "memory": "fine"},
        {"kind": "memory", "slug": "m", "memory": format!("token {key}")},
        {"kind": "memory", "slug": "env", "memory": "OPENAI_API_KEY=sk-proj-Zx9Zx9Zx9Zx9Zx9Zx9Zx9Zx9Zx9Zx9Zx9Zx9"}
    ]);
    // Saved before the secret was registered, and before a rule (say) that
    // now finds the key: neither loses the clean pin.
    crate::credentials::register_host_secret(key).unwrap();
    let mut store = AttachmentStore::from_specs(&saved).unwrap();
    assert_eq!(
        store.ids().collect::<Vec<_>>(),
        ["memory:keep", "memory:m", "memory:env"]
    );
    assert_eq!(
        store.to_specs(),
        saved,
        "listed as saved, to show and detach"
    );
    let error = store.check_host_secrets().unwrap_err();
    assert_eq!(
        (error.code(), error.field()),
        ("CREDENTIAL", Some("memory:m"))
    );
    assert_eq!(store.check_pin("memory:keep"), Ok(()));
    assert_eq!(
        store.check_pin("memory:env").unwrap_err().field(),
        Some("memory:env")
    );
    assert!(store.detach("memory:m"));
    assert_eq!(
        store.check_host_secrets().unwrap_err().field(),
        Some("memory:env")
    );
    assert!(store.detach("memory:env"));
    assert_eq!(store.check_host_secrets(), Ok(()));
    // Pinning is still refused.
    assert_eq!(
        Attachment::from_spec(&saved[1]).unwrap_err().code(),
        "CREDENTIAL"
    );
    // A malformed spec still refuses the load, naming its index.
    let error = AttachmentStore::from_specs(&json!([saved[0], {"kind": "memory"}])).unwrap_err();
    assert_eq!(error.field(), Some("[1].slug"));
    crate::credentials::clear_host_secrets();
}

#[test]
fn a_blank_slug_or_path_is_refused_as_no_call_could_name_its_id() {
    for blank in ["", " ", "\t\n", "\u{feff}", "\u{3000}"] {
        assert!(Attachment::memory(blank, "x").is_err(), "{blank:?}");
        assert!(Attachment::file(blank, None, true).is_err(), "{blank:?}");
        assert!(!is_valid_id(&format!("note:{blank}")), "{blank:?}");
    }
    assert!(Attachment::memory(" padded ", "x").is_ok());
}

#[test]
fn a_blank_custom_text_is_refused_as_providers_would_drop_its_part() {
    for blank in ["", " ", "\t\n", "\u{3000}"] {
        let spec = json!({"kind": "custom", "id": "note:a", "rank": "memory", "text": blank});
        let error = Attachment::from_spec(&spec).unwrap_err();
        assert_eq!(
            (error.code(), error.field()),
            ("INVALID_SPEC", Some("text")),
            "{blank:?}"
        );
    }
    let padded = json!({"kind": "custom", "id": "note:a", "rank": "memory", "text": " x "});
    assert!(Attachment::from_spec(&padded).is_ok());
    // Saved by an older version, which took it: the session's pins load.
    let saved = json!([{"kind": "custom", "id": "note:a", "rank": "memory", "text": ""}]);
    assert_eq!(AttachmentStore::from_specs(&saved).unwrap().len(), 1);
}

#[test]
fn a_re_pin_that_renders_the_same_leaves_no_old_contents_in_the_baseline() {
    // A change past the cut renders the same: stable, and yet the saved
    // baseline must hold what is pinned now, not what the host replaced.
    let file =
        |last: &str| json!({"kind": "file", "path": "f", "contents": "a".repeat(8999) + last});
    let mut store = AttachmentStore::new();
    pin(&mut store, file("a"));
    let mut tracker = PrefixTracker::default();
    tracker.check(&store);
    pin(&mut store, file("b"));
    assert!(tracker.check(&store).stable());
    assert_eq!(tracker.baseline(), Some(&store.to_specs()));
    // Until the next check, a later pin leaves the checked specs.
    let checked = store.to_specs();
    pin(
        &mut store,
        json!({"kind": "memory", "slug": "m", "memory": "M"}),
    );
    assert_eq!(tracker.baseline(), Some(&checked));
}

#[test]
fn ids_are_compared_as_written_so_nfc_and_nfd_are_two_pins() {
    let mut store = AttachmentStore::new();
    let nfc = pin(&mut store, json!({"kind": "file", "path": "caf\u{e9}"}));
    let nfd = pin(&mut store, json!({"kind": "file", "path": "cafe\u{301}"}));
    assert_ne!(nfc, nfd);
    assert_eq!(
        store.ids().collect::<Vec<_>>(),
        [nfc.as_str(), nfd.as_str()]
    );
}
