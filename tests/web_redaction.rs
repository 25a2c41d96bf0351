//! The redact mode through the JS classes, on both stores: every
//! credential shape, cycled through every place a value enters, is
//! redacted at the path a refusing store names, and reported once the
//! write completed.
#![cfg(target_arch = "wasm32")]

mod browser;

use attache::credentials::examples::{material, secrets};
use attache::js::{IdbSessionStore, MemorySessionStore};
use js_sys::{Array, Function, Promise, Reflect, JSON};
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;
use wasm_bindgen_test::*;

async fn settle(value: JsValue) -> Result<JsValue, JsValue> {
    JsFuture::from(value.unchecked_into::<Promise>()).await
}

fn get(value: &JsValue, name: &str) -> JsValue {
    Reflect::get(value, &name.into()).unwrap_or_default()
}

fn text(value: &JsValue, name: &str) -> String {
    get(value, name).as_string().unwrap_or_default()
}

/// `(name, path, write, read)`: `write(s, id, x)` puts secret `x` in one
/// place of session `id`; `read(s, id)` loads what was stored there.
const PLACES: &[(&str, &str, &str, &str)] = &[
    (
        "createSession title",
        "options.title",
        "s.createSession({ id: id + '-new', title: x })",
        "s.getSession(id + '-new')",
    ),
    (
        "updateSession meta",
        "options.meta.k[0]",
        "s.updateSession(id, { meta: { k: [x] } })",
        "s.getSession(id)",
    ),
    (
        "session state",
        "plan.step",
        "s.saveSessionState(id, 'plan', { step: x })",
        "s.loadSessionState(id, 'plan')",
    ),
    (
        "snapshot",
        "snapshot.children[0].value",
        "s.saveSnapshot(id, { name: 'root', children: [{ value: x }] })",
        "s.loadSnapshot(id)",
    ),
    (
        "REPL history",
        "repl_state.history[1]",
        "s.saveReplState(id, { env: { n: 1 }, history: ['print(1)', x] })",
        "s.loadReplState(id)",
    ),
    (
        "activity frame",
        "frames[1].input.cmd",
        "s.appendActivityFrames(id, 'r1', [{ ok: 1 }, { input: { cmd: x } }])",
        "s.loadActivityFrames(id, 'r1')",
    ),
    (
        "message",
        "messages[0].content",
        "s.appendMessages(id, [{ role: 'user', content: x }])",
        "s.loadMessages(id)",
    ),
    (
        "replaced messages",
        "messages[0].content",
        "s.replaceMessages(id, { from: 0, messages: [{ role: 'assistant', content: x }] })",
        "s.loadMessages(id)",
    ),
    (
        "turn frames",
        "frames[0].frames[0].t",
        "s.commitTurn(id, { frames: [{ requestId: 'r2', frames: [{ t: x }] }] })",
        "s.loadActivityFrames(id, 'r2')",
    ),
    (
        "turn state",
        "state.notes.text",
        "s.commitTurn(id, { state: { notes: { text: x } } })",
        "s.loadSessionState(id, 'notes')",
    ),
    (
        "import",
        "document.messages[0].content",
        "s.importSession({ format: 'attache-session', version: 1, session: { id: 'i', title: '', createdAt: 1, updatedAt: 1, meta: {} }, state: {}, messages: [{ role: 'user', content: x }], frames: [] }, { id: id + '-imp' })",
        "s.loadMessages(id + '-imp')",
    ),
];

fn function(args: &str, body: &str) -> Function {
    Function::new_with_args(args, &format!("return {body};"))
}

/// A refusing and a redacting store of one backend, and the redacting
/// store's reports.
struct Pair {
    refusing: JsValue,
    redacting: JsValue,
    events: Array,
}

fn redacting_options() -> (JsValue, Array) {
    let events = Array::new();
    let options = function(
        "events",
        "{ credentials: 'redact', onRedact: (e) => events.push(e) }",
    )
    .call1(&JsValue::UNDEFINED, &events)
    .unwrap();
    (options, events)
}

async fn memory_pair() -> Pair {
    let (options, events) = redacting_options();
    Pair {
        refusing: MemorySessionStore::new(JsValue::UNDEFINED).unwrap().into(),
        redacting: MemorySessionStore::new(options).unwrap().into(),
        events,
    }
}

async fn idb_pair() -> (Pair, [String; 2]) {
    let names = [browser::fresh_name("refuse"), browser::fresh_name("redact")];
    let (options, events) = redacting_options();
    Reflect::set(&options, &"name".into(), &names[1].as_str().into()).unwrap();
    let refusing = function("name", "{ name }")
        .call1(&JsValue::UNDEFINED, &names[0].as_str().into())
        .unwrap();
    let pair = Pair {
        refusing: settle(IdbSessionStore::open(refusing).into())
            .await
            .unwrap(),
        redacting: settle(IdbSessionStore::open(options).into()).await.unwrap(),
        events,
    };
    (pair, names)
}

async fn every_shape_in_every_place(pair: &Pair) {
    for (i, (secret, kind)) in secrets().into_iter().enumerate() {
        let (place, path, write, read) = PLACES[i % PLACES.len()];
        let what = format!("{kind} in the {place}");
        let pieces = material(&secret);
        let id: JsValue = format!("s{i}").into();
        let write = function("s, id, x", write);
        let read = function("s, id", read);
        for store in [&pair.refusing, &pair.redacting] {
            let create = function("s, id", "s.createSession({ id })");
            settle(create.call2(&JsValue::UNDEFINED, store, &id).unwrap())
                .await
                .unwrap();
            if place == "replaced messages" {
                let seed = function(
                    "s, id",
                    "s.appendMessages(id, [{ role: 'user', content: 'hi' }])",
                );
                settle(seed.call2(&JsValue::UNDEFINED, store, &id).unwrap())
                    .await
                    .unwrap();
            }
        }
        let secret: JsValue = secret.as_str().into();
        let error = settle(
            write
                .call3(&JsValue::UNDEFINED, &pair.refusing, &id, &secret)
                .unwrap(),
        )
        .await
        .expect_err(&what);
        assert_eq!(text(&error, "code"), "CREDENTIAL", "{what}");
        assert_eq!(text(&error, "field"), path, "{what}");
        assert_eq!(text(&error, "kind"), kind, "{what}");

        let before = pair.events.length();
        settle(
            write
                .call3(&JsValue::UNDEFINED, &pair.redacting, &id, &secret)
                .unwrap(),
        )
        .await
        .unwrap_or_else(|e| panic!("{what}: {:?}", JSON::stringify(&e)));
        assert_eq!(pair.events.length(), before + 1, "{what}: one report");
        let event = pair.events.get(before);
        let reported = Array::from(&get(&event, "redactions"));
        assert_eq!(reported.length(), 1, "{what}");
        assert_eq!(text(&reported.get(0), "path"), path, "{what}");
        assert_eq!(text(&reported.get(0), "kind"), kind, "{what}");
        let session = text(&event, "sessionId");
        assert!(session.starts_with(&format!("s{i}")), "{what}: {session}");

        let stored = settle(
            read.call2(&JsValue::UNDEFINED, &pair.redacting, &id)
                .unwrap(),
        )
        .await
        .unwrap();
        let stored = JSON::stringify(&stored).unwrap().as_string().unwrap();
        assert!(
            stored.contains(&format!("[REDACTED:{kind}]")),
            "{what}: {stored}"
        );
        assert!(
            pieces.iter().all(|piece| !stored.contains(piece)),
            "{what}: the secret is gone"
        );
    }
}

/// What redaction leaves alone: ids and keys name things, so a secret in
/// one is refused; a listener that throws does not undo the write; a
/// clean write reports nothing.
async fn names_refused_and_listener_isolated(pair: &Pair) {
    let key = "sk-proj-".to_owned() + &"Zx9".repeat(16);
    let run = |body: &str| {
        let f = function("s, x", body);
        settle(
            f.call2(&JsValue::UNDEFINED, &pair.redacting, &key.as_str().into())
                .unwrap(),
        )
    };
    settle(
        function("s", "s.createSession({ id: 'named' })")
            .call1(&JsValue::UNDEFINED, &pair.redacting)
            .unwrap(),
    )
    .await
    .unwrap();
    let before = pair.events.length();
    for (body, field) in [
        ("s.createSession({ id: x })", "options.id"),
        ("s.saveSessionState('named', x, 1)", "key"),
        ("s.appendActivityFrames('named', x, [{}])", "requestId"),
        ("s.saveSessionState('named', 'k', { [x]: 1 })", "k"),
        (
            "s.commitTurn('named', { frames: [{ requestId: x, frames: [] }] })",
            "frames[0].requestId",
        ),
    ] {
        let error = run(body).await.expect_err(body);
        assert_eq!(text(&error, "code"), "CREDENTIAL", "{body}");
        assert_eq!(text(&error, "field"), field, "{body}");
    }
    // Pins are refused, never redacted, whichever call saves them.
    for body in [
        "s.saveSessionState('named', 'attachments', [{ kind: 'memory', slug: 'm', memory: x }])",
        "s.commitTurn('named', { state: { attachments: [{ kind: 'memory', slug: 'm', memory: x }] } })",
    ] {
        let error = run(body).await.expect_err(body);
        assert_eq!(text(&error, "code"), "CREDENTIAL", "{body}");
    }
    run("s.appendMessages('named', [{ role: 'user', content: 'plain words' }])")
        .await
        .unwrap();
    assert_eq!(
        pair.events.length(),
        before,
        "nothing redacted, nothing reported"
    );
    // A name is a path: the same field names deeper down are redacted.
    run("s.commitTurn('named', { messages: [{ role: 'user', content: 'hi', meta: { attachments: x } }], \
         frames: [{ requestId: 'r', frames: [{ requestId: x }] }] })")
    .await
    .unwrap();
    assert_eq!(
        pair.events.length(),
        before + 1,
        "one turn redacted, and reported once"
    );
}

#[wasm_bindgen_test]
async fn the_memory_store_redacts_every_shape_where_a_refusal_would_name_it() {
    let pair = memory_pair().await;
    every_shape_in_every_place(&pair).await;
    names_refused_and_listener_isolated(&pair).await;
}

#[wasm_bindgen_test]
async fn the_indexeddb_store_redacts_every_shape_where_a_refusal_would_name_it() {
    let (pair, names) = idb_pair().await;
    every_shape_in_every_place(&pair).await;
    names_refused_and_listener_isolated(&pair).await;
    for store in [&pair.refusing, &pair.redacting] {
        function("s", "s.close()")
            .call1(&JsValue::UNDEFINED, store)
            .unwrap();
    }
    for name in names {
        browser::delete_database(&name).await;
    }
}

#[wasm_bindgen_test]
async fn a_throwing_listener_cannot_undo_a_redacted_write_and_bad_options_are_typed() {
    let options = function(
        "",
        "{ credentials: 'redact', onRedact() { throw new Error('host bug'); } }",
    )
    .call0(&JsValue::UNDEFINED)
    .unwrap();
    let store: JsValue = MemorySessionStore::new(options).unwrap().into();
    let write = function(
        "s",
        "s.createSession({ id: 'a' }).then(() => s.saveSessionState('a', 'k', { v: 'Bearer ' + 'q7'.repeat(10) })).then(() => s.loadSessionState('a', 'k'))",
    );
    let stored = settle(write.call1(&JsValue::UNDEFINED, &store).unwrap())
        .await
        .unwrap();
    assert_eq!(text(&stored, "v"), "Bearer [REDACTED:bearer_token]");

    for (source, field) in [
        ("{ credentials: 'maybe' }", "credentials"),
        ("{ credentials: 'redact', onRedact: 5 }", "onRedact"),
        ("{ credential: 'redact' }", "options.credential"),
    ] {
        let options = function("", source).call0(&JsValue::UNDEFINED).unwrap();
        let error = MemorySessionStore::new(options.clone())
            .err()
            .expect(source);
        assert_eq!(text(&error, "code"), "INVALID_ARGUMENT", "{source}");
        assert_eq!(text(&error, "field"), field, "{source}");
        let rejected = settle(IdbSessionStore::open(options).into())
            .await
            .expect_err(source);
        assert_eq!(text(&rejected, "field"), field, "{source}");
    }
}
