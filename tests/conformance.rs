//! Replays the reference vectors (loopctl 0.4.1) natively, byte for byte.
#![cfg(not(target_arch = "wasm32"))]

use attache::attachment::{Attachment, AttachmentStore};
use attache::json::Value;

#[test]
fn every_vector_case_matches_the_reference_byte_for_byte() {
    let vectors: Value = attache::json::parse(include_str!("fixtures/attachment-vectors.json"))
        .expect("fixture parses");
    let cases = vectors["cases"].as_array().expect("cases");
    assert_eq!(cases.len(), 60, "the fixture is the full generated set");
    let mut ops = 0;
    for (n, case) in cases.iter().enumerate() {
        let mut store = AttachmentStore::new();
        for op in case["ops"].as_array().unwrap() {
            ops += 1;
            match op["op"].as_str().unwrap() {
                "pin" => {
                    let attachment = Attachment::from_spec(&op["attachment"])
                        .unwrap_or_else(|e| panic!("case {n}: reference spec rejected: {e}"));
                    let id = store.pin(attachment).to_owned();
                    assert_eq!(id, op["id"].as_str().unwrap(), "case {n}: pinned id");
                    assert_eq!(
                        store.rendered(&id),
                        op["render"].as_str(),
                        "case {n}: render of {id}"
                    );
                }
                "detach" => {
                    let id = op["id"].as_str().unwrap();
                    assert_eq!(
                        Some(store.detach(id)),
                        op["returns"].as_bool(),
                        "case {n}: detach {id}"
                    );
                }
                other => panic!("case {n}: unknown op {other}"),
            }
        }
        let ids: Vec<&str> = case["ids"]
            .as_array()
            .unwrap()
            .iter()
            .map(|id| id.as_str().unwrap())
            .collect();
        assert_eq!(
            store.ids().collect::<Vec<_>>(),
            ids,
            "case {n}: final ids in pin order"
        );
        match &case["message"] {
            Value::Null => assert!(
                store.consolidated_message().is_none(),
                "case {n}: no message"
            ),
            message => {
                let parts: Vec<&str> = message["parts"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|p| p.as_str().unwrap())
                    .collect();
                assert_eq!(message["role"], "user");
                assert_eq!(
                    store.consolidated_message().unwrap().parts,
                    parts,
                    "case {n}: parts"
                );
            }
        }
    }
    assert_eq!(ops, 364, "every op in the fixture was replayed");
}
