use super::*;

#[test]
fn text_round_trips_exactly() {
    for text in [
        r#"{"a":[1,-2.5e+3,0.1,true,false,null],"b":{"c":"d"},"":""}"#,
        r#""esc \" \\ \n \r \t \b \f \u0001 é 😀""#,
        "[]",
        "{}",
        "-0",
        "12345678901234567890123",
    ] {
        let value = parse(text).unwrap_or_else(|e| panic!("{text}: {e:?}"));
        let again = parse(&value.to_json()).unwrap();
        assert_eq!(value, again, "{text}");
    }
    assert_eq!(
        parse("1e400").unwrap().to_json(),
        "1e400",
        "numbers keep their text"
    );
}

#[test]
fn escapes_are_read_and_written_as_json_stringify_does() {
    let value = parse(r#""\u00e9\/\ud83d\ude00\u001f""#).unwrap();
    assert_eq!(value, Value::String("é/😀\u{1f}".to_owned()));
    assert_eq!(value.to_json(), r#""é/😀\u001f""#);
}

#[test]
fn what_is_not_json_is_refused() {
    for text in [
        "",
        " ",
        "nul",
        "tru",
        "[1,]",
        "{\"a\":1,}",
        "{a:1}",
        "01",
        "1.",
        ".5",
        "-",
        "1e",
        "\"open",
        "\"\\x\"",
        "\"\u{1}\"",
        "[1 2]",
        "{\"a\" 1}",
        "1 2",
        "\"\\ud800\"",
        "\"\\ud800\\u0041\"",
        "\"\\udc00\"",
        "\"\\u12\"",
        "NaN",
        "Infinity",
        "[",
    ] {
        assert_eq!(parse(text), Err(ParseError::Syntax), "{text:?}");
    }
}

#[test]
fn nesting_is_capped_so_no_input_exhausts_the_stack() {
    let deep = |n: usize| format!("{}{}", "[".repeat(n), "]".repeat(n));
    assert!(parse(&deep(text::PARSE_DEPTH)).is_ok());
    assert_eq!(
        parse(&deep(text::PARSE_DEPTH + 1)),
        Err(ParseError::TooDeep)
    );
    assert_eq!(
        parse(&deep(text::MAX_DEPTH)).unwrap().depth(),
        text::MAX_DEPTH
    );
    assert_eq!(parse("[1, {\"a\": []}, 2]").unwrap().depth(), 3);
    assert_eq!(parse("\"text\"").unwrap().depth(), 0);
    assert_eq!(parse(&"{\"a\":".repeat(100_000)), Err(ParseError::TooDeep));
}

#[test]
fn the_macro_builds_what_it_spells() {
    let name = "n";
    let parts = vec![json!({"type": "text", "text": name})];
    let value =
        json!({"role": "user", "content": parts, "n": 3, "none": null, "list": [1, {"a": [true]}]});
    assert_eq!(
        value.to_json(),
        r#"{"role":"user","content":[{"type":"text","text":"n"}],"n":3,"none":null,"list":[1,{"a":[true]}]}"#
    );
    assert_eq!(value["role"], "user");
    assert!(value["missing"].is_null());
}

#[test]
fn index_assignment_never_panics() {
    let mut value = json!("text");
    value["k"] = json!(1);
    assert_eq!(value.to_json(), r#"{"k":1}"#);
    value["k"] = json!(2);
    assert_eq!(value.to_json(), r#"{"k":2}"#, "replaced in place");
}

#[cfg(not(target_arch = "wasm32"))]
mod against_serde_json {
    use proptest::prelude::*;

    fn any_json() -> impl Strategy<Value = serde_json::Value> {
        let leaf = prop_oneof![
            Just(serde_json::Value::Null),
            any::<bool>().prop_map(serde_json::Value::Bool),
            any::<i64>().prop_map(serde_json::Value::from),
            any::<String>().prop_map(serde_json::Value::String),
        ];
        leaf.prop_recursive(6, 64, 8, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..8).prop_map(serde_json::Value::Array),
                prop::collection::vec((any::<String>(), inner), 0..8)
                    .prop_map(|fields| serde_json::Value::Object(fields.into_iter().collect())),
            ]
        })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2_000))]
        /// serde_json is what the core used before; the text must not change.
        #[test]
        fn parse_and_write_agree_with_serde_json(value in any_json()) {
            let text = serde_json::to_string(&value).unwrap();
            let ours = super::parse(&text).unwrap();
            prop_assert_eq!(ours.to_json(), text);
            let pretty = serde_json::to_string_pretty(&value).unwrap();
            prop_assert_eq!(super::parse(&pretty).unwrap(), ours);
        }
    }
}
