use crate::json;
use crate::json::Value;

use super::ai_sdk::{from_ai_sdk, to_ai_sdk};
use super::anthropic::{from_anthropic, to_anthropic};
use super::openai::{from_openai, to_openai};
use super::*;

fn fixture(name: &str) -> Value {
    let text = match name {
        "openai" => include_str!("../../tests/fixtures/providers/openai.json"),
        "anthropic" => include_str!("../../tests/fixtures/providers/anthropic.json"),
        "ai-sdk" => include_str!("../../tests/fixtures/providers/ai-sdk.json"),
        _ => include_str!("../../tests/fixtures/providers/neutral.json"),
    };
    json::parse(text).expect("fixture")
}

fn neutral() -> Vec<Message> {
    let values = fixture("neutral");
    Message::list(values.as_array().unwrap(), "neutral").unwrap()
}

fn sourced(messages: &[Message]) -> Vec<Sourced> {
    messages
        .iter()
        .cloned()
        .enumerate()
        .map(|(i, m)| (At::Item("messages", i), m))
        .collect()
}

/// An assistant message calling tool `w` as `id`.
fn call(id: &str) -> Message {
    Message::new(
        Role::Assistant,
        vec![Part::ToolCall {
            id: id.into(),
            name: "w".into(),
            arguments: json!({}),
        }],
    )
}

/// A tool message answering call `id`.
fn answer(id: &str, content: Vec<Part>, is_error: bool) -> Message {
    Message::new(
        Role::Tool,
        vec![Part::ToolResult {
            call_id: id.into(),
            content,
            is_error,
        }],
    )
}

fn user() -> Message {
    Message::new(Role::User, vec![Part::Text("go".into())])
}

/// One assistant message calling `w` as `a` and as `b`.
fn both(a: &str, b: &str) -> Message {
    let mut turn = call(a);
    turn.parts.extend(call(b).parts);
    turn
}

/// A question, a call as `id` and its empty answer.
fn round(id: &str) -> Vec<Message> {
    vec![user(), call(id), answer(id, vec![], false)]
}

/// A question, two calls as `x` in one message, answered "first" and "second".
fn twice_x() -> Vec<Message> {
    let said = |text: &str| vec![Part::Text(text.into())];
    vec![
        user(),
        both("x", "x"),
        answer("x", said("first"), false),
        answer("x", said("second"), false),
    ]
}

fn refused<T: std::fmt::Debug>(result: Result<T, Error>) -> (&'static str, String) {
    let error = result.expect_err("refused");
    (error.code(), error.field().unwrap_or_default().to_owned())
}

#[test]
fn a_message_is_role_and_content_and_a_string_is_one_text_part() {
    let short =
        Message::from_value(&json!({"role": "user", "content": "hi"}), At::Name("m")).unwrap();
    let long = json!({"role": "user", "content": [{"type": "text", "text": "hi"}]});
    assert_eq!(short, Message::from_value(&long, At::Name("m")).unwrap());
    assert_eq!(short.to_value(), long, "returned in the long form");
}

#[test]
fn each_role_holds_only_its_parts() {
    let cases = [
        (
            json!({"role": "system", "content": [{"type": "image", "url": "https://x.test/u.png"}]}),
            "m.content[0]",
        ),
        (
            json!({"role": "user", "content": [{"type": "tool_call", "id": "c", "name": "n", "arguments": {}}]}),
            "m.content[0]",
        ),
        (
            json!({"role": "user", "content": [{"type": "tool_result", "callId": "c", "content": "x"}]}),
            "m.content[0]",
        ),
        (json!({"role": "tool", "content": "text"}), "m.content"),
        (
            json!({"role": "assistant", "content": [{"type": "image", "url": "https://x.test/u.png"}]}),
            "m.content[0]",
        ),
        (
            json!({"role": "tool", "content": [{"type": "tool_result", "callId": "c", "content": [{"type": "thinking", "thinking": "t"}]}]}),
            "m.content[0].content[0]",
        ),
        (json!({"role": "robot", "content": "x"}), "m.role"),
        (
            json!({"role": "user", "content": "x", "name": "bob"}),
            "m.name",
        ),
        (
            json!({"role": "user", "content": [{"type": "text", "text": "x", "cache_control": {}}]}),
            "m.content[0].cache_control",
        ),
        (
            json!({"role": "user", "content": [{"type": "image", "url": "https://x.test/u.png", "data": "d"}]}),
            "m.content[0].data",
        ),
        (
            json!({"role": "user", "content": [{"type": "image", "data": "d"}]}),
            "m.content[0].mediaType",
        ),
        // OpenAI and the AI SDK would send a PDF on as an image.
        (
            json!({"role": "user", "content": [{"type": "image", "data": "JVBERi0=", "mediaType": "application/pdf"}]}),
            "m.content[0].mediaType",
        ),
        (
            json!({"role": "user", "content": [{"type": "image", "url": "data:application/pdf;base64,JVBERi0="}]}),
            "m.content[0].url",
        ),
        (
            json!({"role": "tool", "content": [{"type": "tool_result", "callId": "c", "content": [{"type": "image", "data": "d", "mediaType": "text/plain"}]}]}),
            "m.content[0].content[0].mediaType",
        ),
        (json!({"role": "user", "content": 5}), "m.content"),
        (json!("hello"), "m"),
    ];
    for (value, field) in cases {
        assert_eq!(
            refused(Message::from_value(&value, At::Name("m"))),
            ("INVALID_VALUE", field.to_owned()),
            "{value}"
        );
    }
}

#[test]
fn openai_conversations_and_responses_convert_both_ways() {
    let openai = fixture("openai");
    let conversation = &openai["conversation"];
    let messages = from_openai(conversation, At::Name("input")).unwrap();
    let back = to_openai(&sourced(&messages), None, false).unwrap();
    assert_eq!(back, *conversation, "the provider's shape, exactly");
    let reply = from_openai(&openai["response"], At::Name("response")).unwrap();
    assert_eq!(
        to_values(&reply),
        openai["responseMessage"],
        "choices[0].message"
    );
}

/// What Chat Completions cannot carry: thinking, the error flag, and
/// several results in one message.
fn as_openai_keeps_it(messages: &[Message]) -> Vec<Message> {
    let mut kept = Vec::new();
    for message in messages {
        let mut parts = message.parts.clone();
        parts.retain(|p| !matches!(p, Part::Thinking { .. }));
        for part in &mut parts {
            if let Part::ToolResult { is_error, .. } = part {
                *is_error = false;
            }
        }
        match message.role {
            Role::Tool => kept.extend(parts.into_iter().map(|p| Message::new(Role::Tool, vec![p]))),
            role => kept.push(Message::new(role, parts)),
        }
    }
    kept
}

#[test]
fn neutral_messages_survive_openai_except_what_it_has_no_field_for() {
    let messages = neutral();
    let sent = to_openai(&sourced(&messages), None, false).unwrap();
    let back = from_openai(&sent, At::Name("x")).unwrap();
    assert_eq!(back, as_openai_keeps_it(&messages));
}

#[test]
fn anthropic_conversations_and_responses_convert_both_ways() {
    let anthropic = fixture("anthropic");
    let conversation = &anthropic["conversation"];
    let messages = from_anthropic(conversation, At::Name("input")).unwrap();
    assert_eq!(messages[0].role, Role::System);
    assert_eq!(
        messages.iter().filter(|m| m.role == Role::Tool).count(),
        2,
        "each user turn of tool results is a tool message"
    );
    let back = to_anthropic(&sourced(&messages), None, None).unwrap();
    assert_eq!(back, *conversation, "the provider's shape, exactly");
    let reply = from_anthropic(&anthropic["response"], At::Name("response")).unwrap();
    assert_eq!(
        to_values(&reply),
        anthropic["responseMessage"],
        "the response's content"
    );
}

#[test]
fn several_system_texts_reach_anthropic_as_blocks_not_merged() {
    let request = json!({
        "system": [{"type": "text", "text": "Be brief."}, {"type": "text", "text": "Use tools."}],
        "messages": [{"role": "user", "content": [{"type": "text", "text": "hi"}]}]
    });
    let messages = from_anthropic(&request, At::Name("input")).unwrap();
    let back = to_anthropic(&sourced(&messages), None, None).unwrap();
    assert_eq!(back, request, "each text its own block, as given");
    // Two system messages: two blocks, not one text with a separator made up.
    let two = [("system", "A"), ("system", "B"), ("user", "q")].map(|(role, text)| {
        Message::new(Role::parse(role).unwrap(), vec![Part::Text(text.into())])
    });
    let sent = to_anthropic(&sourced(&two), None, None).unwrap();
    assert_eq!(
        sent["system"],
        json!([{"type": "text", "text": "A"}, {"type": "text", "text": "B"}])
    );
    let one = to_anthropic(&sourced(&two[1..]), None, None).unwrap();
    assert_eq!(one["system"], json!("B"), "one text stays a string");
    let mut with_empty = two.clone();
    with_empty[0] = Message::new(Role::System, vec![Part::Text(String::new())]);
    let sent = to_anthropic(&sourced(&with_empty), None, None).unwrap();
    assert_eq!(
        sent["system"],
        json!("B"),
        "no empty block, which Anthropic refuses"
    );
}

#[test]
fn several_system_texts_reach_the_ai_sdk_as_system_messages() {
    let system = Message::new(
        Role::System,
        vec![
            Part::Text("Be brief.".into()),
            Part::Text("Use tools.".into()),
        ],
    );
    let sent = to_ai_sdk(&sourced(&[system]), None, None).unwrap();
    assert_eq!(
        sent,
        json!([{"role": "system", "content": "Be brief."}, {"role": "system", "content": "Use tools."}])
    );
}

#[test]
fn an_unknown_anthropic_role_is_named_before_its_blocks() {
    let input = json!([{"role": "tool", "content": [{"type": "tool_result", "tool_use_id": "x", "content": "r"}]}]);
    let error = from_anthropic(&input, At::Name("input")).unwrap_err();
    assert_eq!(error.field(), Some("input[0].role"));
}

#[test]
fn neutral_messages_survive_anthropic_whole() {
    let messages = neutral();
    let sent = to_anthropic(&sourced(&messages), None, None).unwrap();
    assert_eq!(from_anthropic(&sent, At::Name("x")).unwrap(), messages);
}

#[test]
fn ai_sdk_model_messages_convert_both_ways() {
    let conversation = fixture("ai-sdk")["conversation"].clone();
    let messages = from_ai_sdk(&conversation, At::Name("input")).unwrap();
    let back = to_ai_sdk(&sourced(&messages), None, None).unwrap();
    assert_eq!(back, conversation, "the SDK's shape, exactly");
}

#[test]
fn ai_sdk_tool_result_images_come_in_as_any_shape_the_sdk_takes_and_go_back() {
    // Each content item a tool's output may hold, the older shapes (AI SDK
    // 5 and 6 tools give them) too, and what goes back out: a URL as the
    // one shape that takes it as a string.
    let png = |data: &str| json!({"type": "file", "data": {"type": "data", "data": data}, "mediaType": "image/png"});
    let url = |url: &str| json!({"type": "image-url", "url": url});
    let cases = [
        (
            json!({"type": "image-url", "url": "https://x.test/s.png"}),
            url("https://x.test/s.png"),
        ),
        (
            json!({"type": "file-url", "url": "https://x.test/t", "mediaType": "image"}),
            url("https://x.test/t"),
        ),
        (
            json!({"type": "file", "data": {"type": "url", "url": "https://x.test/u.png"}, "mediaType": "image/png"}),
            url("https://x.test/u.png"),
        ),
        (
            json!({"type": "image-data", "data": "iVBO", "mediaType": "image/png"}),
            png("iVBO"),
        ),
        (
            json!({"type": "file-data", "data": "iVBO", "mediaType": "image/PNG", "filename": "s.png"}),
            png("iVBO"),
        ),
        // AI SDK 5's one media item.
        (
            json!({"type": "media", "data": "iVBO", "mediaType": "image/png"}),
            png("iVBO"),
        ),
    ];
    for (item, out) in cases {
        let input = json!([
            {"role": "assistant", "content": [{"type": "tool-call", "toolCallId": "c1", "toolName": "shot", "input": {}}]},
            {"role": "tool", "content": [{"type": "tool-result", "toolCallId": "c1", "toolName": "shot",
                "output": {"type": "content", "value": [{"type": "text", "text": "here"}, item.clone()]}}]}
        ]);
        let messages = from_ai_sdk(&input, At::Name("x")).unwrap_or_else(|e| panic!("{item}: {e}"));
        let sent = to_ai_sdk(&sourced(&messages), None, None).unwrap();
        let value = &sent[1]["content"][0]["output"]["value"];
        assert_eq!(value[1], out, "{item}");
        assert_eq!(
            from_ai_sdk(&sent, At::Name("x")).unwrap(),
            messages,
            "{item} comes back"
        );
    }
    // Only images convert, in the older shapes too.
    let pdf = json!([{"role": "tool", "content": [{"type": "tool-result", "toolCallId": "c1", "toolName": "shot",
        "output": {"type": "content", "value": [{"type": "file-data", "data": "JVBE", "mediaType": "application/pdf"}]}}]}]);
    assert_eq!(refused(from_ai_sdk(&pdf, At::Name("x"))).0, "INVALID_VALUE");
    let stray = json!([{"role": "tool", "content": [{"type": "tool-result", "toolCallId": "c1", "toolName": "shot",
        "output": {"type": "content", "value": [{"type": "image-url", "url": "https://x.test/a.png", "data": "x"}]}}]}]);
    assert_eq!(
        refused(from_ai_sdk(&stray, At::Name("x"))).0,
        "INVALID_VALUE"
    );
}

#[test]
fn ai_sdk_base64_that_is_not_is_refused_coming_in_where_every_format_would_refuse_it() {
    // Read in, every later buildRequest would refuse it at history[i].
    let png = "data:image/png;base64,iVBO";
    let tool = |item: json::Value| {
        json!([{"role": "tool", "content": [{"type": "tool-result", "toolCallId": "c1", "toolName": "shot",
        "output": {"type": "content", "value": [item]}}]}])
    };
    let user = |part: json::Value| json!([{"role": "user", "content": [part]}]);
    let cases = [
        (
            user(
                json!({"type": "file", "mediaType": "image/png", "data": {"type": "data", "data": png}}),
            ),
            "x[0].content[0].data",
        ),
        (
            user(json!({"type": "image", "image": "hello world!", "mediaType": "image/png"})),
            "x[0].content[0].image",
        ),
        (
            tool(json!({"type": "image-data", "data": "hello world!", "mediaType": "image/png"})),
            "x[0].content[0].output.value[0].data",
        ),
        (
            tool(json!({"type": "media", "data": "", "mediaType": "image/png"})),
            "x[0].content[0].output.value[0].data",
        ),
    ];
    for (input, path) in cases {
        let (code, field) = refused(from_ai_sdk(&input, At::Name("x")));
        assert_eq!((code, field.as_str()), ("INVALID_VALUE", path), "{input}");
    }
}

#[test]
fn ai_sdk_images_come_in_as_any_shape_and_go_out_as_file_parts() {
    // The deprecated `image` part, a bare file, and the tagged data
    // `convertToModelMessages` gives (its URL object as JSON writes it).
    let input = json!([{"role": "user", "content": [
        {"type": "image", "image": "https://x.test/a.png", "mediaType": "image/png"},
        {"type": "image", "image": "iVBORw0KGgo=", "mediaType": "image/png"},
        {"type": "file", "data": {"type": "url", "url": "data:image/gif;base64,R0lG"}, "mediaType": "image/gif"},
        {"type": "file", "data": {"type": "data", "data": "/9j/"}, "mediaType": "image/jpeg", "filename": "a.jpg"},
        {"type": "file", "data": "https://x.test/b", "mediaType": "image/*"}
    ]}]);
    let messages = from_ai_sdk(&input, At::Name("x")).unwrap();
    let sent = to_ai_sdk(&sourced(&messages), None, None).unwrap();
    assert_eq!(
        sent[0]["content"],
        json!([
            {"type": "file", "data": "https://x.test/a.png", "mediaType": "image"},
            {"type": "file", "data": "iVBORw0KGgo=", "mediaType": "image/png"},
            {"type": "file", "data": "R0lG", "mediaType": "image/gif"},
            {"type": "file", "data": "/9j/", "mediaType": "image/jpeg"},
            {"type": "file", "data": "https://x.test/b", "mediaType": "image"}
        ])
    );
    // A data: URL given as an attache image goes as its base64 and type,
    // read as Anthropic's and OpenAI's are: `;BASE64`, parameters.
    for url in [
        "data:image/webp;base64,UklG",
        "data:image/webp;BASE64,UklG",
        "data:image/webp;name=a.webp;base64,UklG",
    ] {
        let data_url = Message::new(Role::User, vec![Part::Image(Image::Url(url.into()))]);
        let sent = to_ai_sdk(&sourced(&[data_url]), None, None).unwrap();
        assert_eq!(
            sent[0]["content"][0],
            json!({"type": "file", "data": "UklG", "mediaType": "image/webp"}),
            "{url}"
        );
    }
    // One whose type names none goes as the URL, and comes back as it went.
    let wildcard = Message::new(
        Role::User,
        vec![Part::Image(Image::Url("data:image/*;base64,UklG".into()))],
    );
    let sent = to_ai_sdk(&sourced(&[wildcard.clone()]), None, None).unwrap();
    assert_eq!(
        sent[0]["content"][0],
        json!({"type": "file", "data": "data:image/*;base64,UklG", "mediaType": "image"})
    );
    assert_eq!(from_ai_sdk(&sent, At::Name("x")).unwrap(), [wildcard]);
    // Base64 stored typed `image/*` before types were checked goes as its
    // data: URL, which comes back in, in a tool result too (as `file`
    // data typed `image/*`, fromAiSdk refused it).
    let stored = Image::Base64 {
        media_type: "image/*".into(),
        data: "UklG".into(),
    };
    let user = Message::new(Role::User, vec![Part::Image(stored.clone())]);
    let sent = to_ai_sdk(&sourced(&[user]), None, None).unwrap();
    assert_eq!(
        sent[0]["content"][0],
        json!({"type": "file", "data": "data:image/*;base64,UklG", "mediaType": "image"})
    );
    assert!(from_ai_sdk(&sent, At::Name("x")).is_ok());
    let result = answer("c1", vec![Part::Image(stored)], false);
    let sent = to_ai_sdk(&sourced(&[call("c1"), result]), None, None).unwrap();
    assert_eq!(
        sent[1]["content"][0]["output"]["value"][0],
        json!({"type": "image-url", "url": "data:image/*;base64,UklG"})
    );
    assert!(from_ai_sdk(&sent, At::Name("x")).is_ok());
}

#[test]
fn neutral_messages_survive_the_ai_sdk_whole() {
    let messages = neutral();
    let sent = to_ai_sdk(&sourced(&messages), None, None).unwrap();
    assert_eq!(from_ai_sdk(&sent, At::Name("x")).unwrap(), messages);
}

#[test]
fn openai_tool_history_reaches_anthropic_with_its_tool_calls() {
    let openai = fixture("openai");
    let messages = from_openai(&openai["conversation"], At::Name("input")).unwrap();
    let request = to_anthropic(&sourced(&messages), None, None).unwrap();
    assert_eq!(request["system"], "You are a coding agent.");
    let turns = request["messages"].as_array().unwrap();
    assert_eq!(
        turns[1]["content"][0],
        json!({"type": "tool_use", "id": "call_abc123", "name": "read_file", "input": {"path": "src/main.rs"}}),
        "the call and its arguments, as an object"
    );
    assert_eq!(
        turns[2]["content"],
        json!([
            {"type": "tool_result", "tool_use_id": "call_abc123", "content": "fn main() {}"},
            {"type": "tool_result", "tool_use_id": "call_def456", "content": [{"type": "text", "text": "3 matches"}, {"type": "text", "text": " in 2 files"}]},
        ]),
        "both results in the one user turn after the call"
    );
    let roles: Vec<&str> = turns.iter().map(|t| t["role"].as_str().unwrap()).collect();
    assert_eq!(
        roles,
        [
            "user",
            "assistant",
            "user",
            "assistant",
            "user",
            "assistant",
            "user"
        ]
    );
}

#[test]
fn anthropic_history_reaches_openai_as_tool_messages() {
    let anthropic = fixture("anthropic");
    let messages = from_anthropic(&anthropic["conversation"], At::Name("input")).unwrap();
    assert_eq!(
        refused(to_openai(&sourced(&messages), None, false)),
        (
            "INVALID_VALUE",
            "messages[6].content[0].content[1]".to_owned()
        ),
        "a screenshot in a tool result has nowhere to go in Chat Completions"
    );
    let sent = to_openai(&sourced(&messages[..6]), None, false).unwrap();
    let sent = sent.as_array().unwrap();
    let roles: Vec<&str> = sent.iter().map(|m| m["role"].as_str().unwrap()).collect();
    assert_eq!(
        roles,
        ["system", "user", "assistant", "tool", "user", "assistant"]
    );
    assert_eq!(
        sent[2]["content"], "Reading it.",
        "the thinking block is not sent"
    );
    assert_eq!(
        sent[2]["tool_calls"][0]["function"],
        json!({"name": "read_file", "arguments": "{\"path\":\"src/main.rs\"}"})
    );
}

#[test]
fn what_a_provider_shape_holds_that_attache_cannot_keep_is_refused_with_its_path() {
    let openai = [
        (
            json!([{"role": "user", "content": [{"type": "input_audio", "input_audio": {}}]}]),
            "x[0].content[0].type",
        ),
        (
            json!([{"role": "user", "content": [{"type": "image_url", "image_url": {"url": "https://x.test/u.png", "detail": "high"}}]}]),
            "x[0].content[0].image_url.detail",
        ),
        (
            json!([{"role": "assistant", "content": null, "tool_calls": [{"id": "c", "type": "function", "function": {"name": "f", "arguments": "{oops"}}]}]),
            "x[0].tool_calls[0].function.arguments",
        ),
        (
            json!([{"role": "assistant", "content": null, "tool_calls": [{"id": "c", "type": "custom", "custom": {}}]}]),
            "x[0].tool_calls[0].custom",
        ),
        (
            json!([{"role": "assistant", "content": "a", "annotations": [{"type": "url_citation"}]}]),
            "x[0].annotations",
        ),
        (
            json!([{"role": "function", "name": "f", "content": "x"}]),
            "x[0].role",
        ),
        (
            json!([{"role": "user", "content": "hi", "name": "bob"}]),
            "x[0].name",
        ),
        (json!({"choices": []}), "x.choices[0].message"),
    ];
    for (input, field) in openai {
        assert_eq!(
            refused(from_openai(&input, At::Name("x"))),
            ("INVALID_VALUE", field.to_owned()),
            "{input}"
        );
    }
    let anthropic = [
        (
            json!([{"role": "assistant", "content": [{"type": "redacted_thinking", "data": "x"}]}]),
            "x[0].content[0].type",
        ),
        (
            json!([{"role": "user", "content": [{"type": "document", "source": {}}]}]),
            "x[0].content[0].type",
        ),
        (
            json!([{"role": "assistant", "content": [{"type": "text", "text": "t", "citations": [{}]}]}]),
            "x[0].content[0].citations",
        ),
        (
            json!([{"role": "user", "content": [{"type": "tool_use", "id": "i", "name": "n", "input": {}}]}]),
            "x[0].content[0].type",
        ),
        (
            json!([{"role": "user", "content": [{"type": "image", "source": {"type": "file", "file_id": "f"}}]}]),
            "x[0].content[0].source.type",
        ),
    ];
    for (input, field) in anthropic {
        assert_eq!(
            refused(from_anthropic(&input, At::Name("x"))),
            ("INVALID_VALUE", field.to_owned()),
            "{input}"
        );
    }
    let ai_sdk = [
        (
            json!([{"role": "user", "content": [{"type": "file", "data": "x", "mediaType": "application/pdf"}]}]),
            "x[0].content[0].mediaType",
        ),
        (
            // base64 needs its type: "image" alone does not say which.
            json!([{"role": "user", "content": [{"type": "file", "data": "iVBORw0KGgo=", "mediaType": "image"}]}]),
            "x[0].content[0].mediaType",
        ),
        (
            // Nor does "image/*", which the SDK reads as "image".
            json!([{"role": "user", "content": [{"type": "file", "data": "iVBORw0KGgo=", "mediaType": "image/*"}]}]),
            "x[0].content[0].mediaType",
        ),
        (
            // Nor an empty subtype.
            json!([{"role": "user", "content": [{"type": "file", "data": "iVBORw0KGgo=", "mediaType": "image/"}]}]),
            "x[0].content[0].mediaType",
        ),
        (
            // The deprecated image part, the same.
            json!([{"role": "user", "content": [{"type": "image", "image": "iVBORw0KGgo=", "mediaType": "image/*"}]}]),
            "x[0].content[0].mediaType",
        ),
        (
            json!([{"role": "tool", "content": [{"type": "tool-result", "toolCallId": "c", "toolName": "n", "output": {"type": "execution-denied"}}]}]),
            "x[0].content[0].output.type",
        ),
        (
            json!([{"role": "user", "content": [{"type": "image", "image": "iVBORw0KGgo="}]}]),
            "x[0].content[0].mediaType",
        ),
        (
            json!([{"role": "system", "content": [{"type": "text", "text": "s"}]}]),
            "x[0].content",
        ),
        (
            // A file by URL is an image only when its media type says so.
            json!([{"role": "tool", "content": [{"type": "tool-result", "toolCallId": "c", "toolName": "n", "output": {"type": "content", "value": [
                {"type": "file", "mediaType": "application/pdf", "data": {"type": "url", "url": "https://x/r.pdf"}}]}}]}]),
            "x[0].content[0].output.value[0].mediaType",
        ),
    ];
    for (input, field) in ai_sdk {
        assert_eq!(
            refused(from_ai_sdk(&input, At::Name("x"))),
            ("INVALID_VALUE", field.to_owned()),
            "{input}"
        );
    }
}

#[test]
fn what_a_provider_cannot_take_is_refused_before_sending() {
    let message = |value: Value| {
        vec![(
            At::Item("history", 0),
            Message::from_value(&value, At::Name("m")).unwrap(),
        )]
    };
    let image_result = message(
        json!({"role": "tool", "content": [{"type": "tool_result", "callId": "c", "content": [{"type": "image", "url": "https://x.test/u.png"}]}]}),
    );
    assert_eq!(
        refused(to_openai(&image_result, None, false)),
        (
            "INVALID_VALUE",
            "history[0].content[0].content[0]".to_owned()
        )
    );
    let unsigned =
        message(json!({"role": "assistant", "content": [{"type": "thinking", "thinking": "t"}]}));
    assert_eq!(
        refused(to_anthropic(&unsigned, None, None)),
        (
            "INVALID_VALUE",
            "history[0].content[0].signature".to_owned()
        )
    );
    // Neither provider takes another image type: a 400 on every turn.
    for media_type in ["image/bmp", "image/svg+xml", "image/*", "image"] {
        let image = message(
            json!({"role": "user", "content": [{"type": "image", "data": "Qk0=", "mediaType": media_type}]}),
        );
        let at = (
            "INVALID_VALUE",
            "history[0].content[0].mediaType".to_owned(),
        );
        assert_eq!(
            refused(to_anthropic(&image, None, None)),
            at,
            "{media_type}"
        );
        assert_eq!(refused(to_openai(&image, None, false)), at, "{media_type}");
    }
    // A subtype is any case (RFC 2045), and Anthropic gets it in lower case.
    let upper = message(
        json!({"role": "user", "content": [{"type": "image", "data": "iVBORw0KGgo=", "mediaType": "image/PNG"}]}),
    );
    assert_eq!(
        to_anthropic(&upper, None, None).unwrap()["messages"][0]["content"][0]["source"]
            ["media_type"],
        "image/png"
    );
    assert!(to_openai(&upper, None, false).is_ok());
    let two_texts = json!({"role": "tool", "content": [{"type": "tool_result", "callId": "c", "isError": true,
        "content": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}]}]});
    let calls = json!({"role": "assistant", "content": [{"type": "tool_call", "id": "c", "name": "n", "arguments": {}}]});
    let history: Vec<Sourced> = [calls, two_texts]
        .iter()
        .enumerate()
        .map(|(i, m)| {
            (
                At::Item("history", i),
                Message::from_value(m, At::Name("m")).unwrap(),
            )
        })
        .collect();
    let error = to_ai_sdk(&history, None, None).unwrap_err();
    assert!(error.to_string().contains("one text"), "{error}");
    // A blank beside the text is dropped, as Anthropic's format drops it.
    let mut history = history;
    let blank_beside = json!({"role": "tool", "content": [{"type": "tool_result", "callId": "c", "isError": true,
        "content": [{"type": "text", "text": "a"}, {"type": "text", "text": " \n"}]}]});
    history[1].1 = Message::from_value(&blank_beside, At::Name("m")).unwrap();
    let sent = to_ai_sdk(&history, None, None).unwrap();
    assert_eq!(
        sent[1]["content"][0]["output"],
        json!({"type": "error-text", "value": "a"})
    );
    // A data: URL is base64 to Anthropic, with the same media types.
    let data_url =
        |url: &str| message(json!({"role": "user", "content": [{"type": "image", "url": url}]}));
    // The scheme is any case (RFC 2397): Anthropic would fetch `DATA:`.
    // So is `;base64`, and parameters may come before it (RFC 2397).
    for url in [
        "data:image/png;base64,iVBORw0KGgo=",
        "DATA:image/png;base64,iVBORw0KGgo=",
        "data:image/png;BASE64,iVBORw0KGgo=",
        "data:image/PNG;name=a.png;base64,iVBORw0KGgo=",
    ] {
        // OpenAI gets it as Anthropic's format reads it: before, as it was.
        assert_eq!(
            to_openai(&data_url(url), None, false).unwrap()[0]["content"][0]["image_url"]["url"],
            "data:image/png;base64,iVBORw0KGgo=",
            "{url}"
        );
        let sent = to_anthropic(&data_url(url), None, None);
        assert_eq!(
            sent.unwrap()["messages"][0]["content"][0]["source"],
            json!({"type": "base64", "media_type": "image/png", "data": "iVBORw0KGgo="}),
            "{url}"
        );
    }
    for url in [
        "data:image/bmp;base64,Qk0=",
        "data:image/svg+xml,<svg/>",
        "Data:image/svg+xml,<svg/>",
        "data:image/png,iVBORw0KGgo=",
        "data:image/png;base64",
        "data:image/png;base64x,iVBORw0KGgo=",
    ] {
        assert_eq!(
            refused(to_anthropic(&data_url(url), None, None)),
            ("INVALID_VALUE", "history[0].content[0].url".to_owned()),
            "{url}"
        );
        assert_eq!(
            refused(to_openai(&data_url(url), None, false)),
            ("INVALID_VALUE", "history[0].content[0].url".to_owned()),
            "{url}"
        );
    }
    for (url, sent) in [
        ("https://example.com/cat", "https://example.com/cat"),
        ("DATA:image/webp;base64,UklG", "data:image/webp;base64,UklG"),
    ] {
        let sent_as = to_openai(&data_url(url), None, false).unwrap();
        assert_eq!(sent_as[0]["content"][0]["image_url"]["url"], sent);
    }
    let array_input = message(
        json!({"role": "assistant", "content": [{"type": "tool_call", "id": "c", "name": "n", "arguments": [1]}]}),
    );
    assert_eq!(
        refused(to_anthropic(&array_input, None, None)),
        (
            "INVALID_VALUE",
            "history[0].content[0].arguments".to_owned()
        )
    );
    let orphan = message(
        json!({"role": "tool", "content": [{"type": "tool_result", "callId": "nobody", "content": "x"}]}),
    );
    assert_eq!(
        refused(to_ai_sdk(&orphan, None, None)),
        ("INVALID_VALUE", "history[0].content[0].callId".to_owned())
    );
}

#[test]
fn a_data_url_is_a_base64_image_and_any_other_url_stays_a_url() {
    // As `sent_image` reads it: `;base64` in any case, after parameters.
    for url in [
        "data:image/png;base64,AAAA",
        "DaTa:image/png;base64,AAAA",
        "data:image/png;BASE64,AAAA",
        "data:image/png;name=a.png;base64,AAAA",
    ] {
        assert_eq!(
            image_from_url(url),
            Image::Base64 {
                media_type: "image/png".into(),
                data: "AAAA".into()
            },
            "{url}"
        );
    }
    for url in [
        "https://x/a.png",
        "data:,plain",
        "data:;base64,AAAA",
        "data:text/plain,hi",
        // Base64 must name its type: the AI SDK reads `image/*` as `image`.
        "data:image/*;base64,AAAA",
        "data:image/;base64,AAAA",
        "data:image/png;base64x,AAAA",
        "data:image/png;base64;name=a,AAAA",
        "data:image/png,AAAA",
    ] {
        assert_eq!(image_from_url(url), Image::Url(url.into()), "{url}");
        assert_eq!(image_url(&image_from_url(url)), url);
    }
}

#[test]
fn anthropic_gets_no_blank_text_block_nor_blank_system() {
    // Claude sometimes says only "\n\n" before a tool call; sent back as
    // it came, Anthropic refuses the next request (non-whitespace text).
    let reply = json!({"type": "message", "role": "assistant", "content": [
        {"type": "text", "text": "\n\n"},
        {"type": "tool_use", "id": "t1", "name": "w", "input": {}}
    ]});
    let mut history = vec![Message::new(
        Role::User,
        vec![Part::Text("weather?".into())],
    )];
    history.extend(from_anthropic(&reply, At::Name("reply")).unwrap());
    let sent = to_anthropic(&sourced(&history), None, None).unwrap();
    assert_eq!(
        sent["messages"][1]["content"],
        json!([{"type": "tool_use", "id": "t1", "name": "w", "input": {}}])
    );
    let said = |role: Role, text: &str| Message::new(role, vec![Part::Text(text.into())]);
    // A blank system text, alone or beside another, is not sent: Anthropic
    // refuses `system: ""` and a blank block.
    for blank in ["", " \n\t\u{feff}"] {
        let sent = to_anthropic(
            &sourced(&[said(Role::System, blank), said(Role::User, "q")]),
            None,
            None,
        )
        .unwrap();
        assert_eq!(sent.get("system"), None, "{blank:?}");
        let sent = to_anthropic(
            &sourced(&[
                said(Role::System, blank),
                said(Role::System, "B"),
                said(Role::System, blank),
            ]),
            None,
            None,
        )
        .unwrap();
        assert_eq!(sent["system"], json!("B"), "{blank:?}");
    }
    // A user message of only whitespace has nothing to send.
    let (code, field) = refused(to_anthropic(
        &sourced(&[said(Role::User, "  ")]),
        None,
        None,
    ));
    assert_eq!(
        (code, field.as_str()),
        ("INVALID_VALUE", "messages[0].content")
    );
    // Nor inside a tool result beside another block.
    let result = Message::new(
        Role::Tool,
        vec![Part::ToolResult {
            call_id: "t1".into(),
            content: vec![Part::Text("\n".into()), Part::Text("ok".into())],
            is_error: false,
        }],
    );
    let sent = to_anthropic(&sourced(&[result]), None, None).unwrap();
    assert_eq!(sent["messages"][0]["content"][0]["content"], json!("ok"));
}

#[test]
fn no_request_holds_an_empty_block_or_content_a_provider_refuses() {
    // An OpenAI-compatible reply with "" beside its tool calls.
    let reply = json!([
        {"role": "user", "content": "weather?"},
        {"role": "assistant", "content": "", "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "w", "arguments": "{}"}}]},
        {"role": "tool", "tool_call_id": "c1", "content": "3C"}
    ]);
    let messages = from_openai(&reply, At::Name("input")).unwrap();
    let sent = to_anthropic(&sourced(&messages), None, None).unwrap();
    assert_eq!(
        sent["messages"][1]["content"],
        json!([{"type": "tool_use", "id": "c1", "name": "w", "input": {}}]),
        "no empty text block beside the call"
    );
    let empty = |role: Role| Message::new(role, vec![Part::Text(String::new())]);
    let (code, field) = refused(to_anthropic(&sourced(&[empty(Role::User)]), None, None));
    assert_eq!(
        (code, field.as_str()),
        ("INVALID_VALUE", "messages[0].content")
    );
    // An assistant message with nothing to send is left out; the turns
    // around it are one user turn, as Anthropic would merge them.
    let said = |role: Role, text: &str| Message::new(role, vec![Part::Text(text.into())]);
    let history = [
        said(Role::User, "a"),
        empty(Role::Assistant),
        Message::new(Role::Assistant, Vec::new()),
        said(Role::User, "b"),
    ];
    let sent = to_anthropic(&sourced(&history), None, None).unwrap();
    assert_eq!(
        sent["messages"],
        json!([{"role": "user", "content": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}]}])
    );
    // Inside a tool result too: no empty block beside another.
    let result = Message::new(
        Role::Tool,
        vec![Part::ToolResult {
            call_id: "c1".into(),
            content: vec![Part::Text(String::new()), Part::Text("ok".into())],
            is_error: false,
        }],
    );
    let sent = to_anthropic(&sourced(&[result]), None, None).unwrap();
    assert_eq!(sent["messages"][0]["content"][0]["content"], json!("ok"));
    // OpenAI: "" where there are no parts, never []; a tool message with no
    // result would vanish, so it is refused.
    let none = |role: Role| Message::new(role, Vec::new());
    let sent = to_openai(
        &sourced(&[none(Role::User), none(Role::System)]),
        None,
        false,
    )
    .unwrap();
    assert_eq!(
        sent,
        json!([{"role": "user", "content": ""}, {"role": "system", "content": ""}])
    );
    let (code, field) = refused(to_openai(&sourced(&[none(Role::Tool)]), None, false));
    assert_eq!(
        (code, field.as_str()),
        ("INVALID_VALUE", "messages[0].content")
    );
}

#[test]
fn an_anthropic_tool_use_called_directly_converts_and_any_other_caller_is_refused() {
    let response = |caller: Value, toolset: Value| {
        json!({"id": "msg_1", "type": "message", "role": "assistant", "model": "claude-sonnet-4-6",
               "stop_reason": "tool_use", "stop_sequence": null,
               "usage": {"input_tokens": 1, "output_tokens": 1},
               "content": [{"type": "tool_use", "id": "toolu_1", "name": "f", "input": {"a": 1},
                            "caller": caller, "toolset_name": toolset}]})
    };
    let direct = from_anthropic(
        &response(json!({"type": "direct"}), Value::Null),
        At::Name("r"),
    );
    let call = Part::ToolCall {
        id: "toolu_1".into(),
        name: "f".into(),
        arguments: json!({"a": 1}),
    };
    assert_eq!(direct.unwrap()[0].parts, vec![call]);
    for (caller, toolset, field) in [
        (
            json!({"type": "code_execution_20250825", "tool_id": "srvtoolu_1"}),
            Value::Null,
            "caller",
        ),
        (json!({"type": "direct", "extra": 1}), Value::Null, "caller"),
        (json!({"type": "direct"}), json!("browser"), "toolset_name"),
    ] {
        let error = from_anthropic(&response(caller, toolset), At::Name("r")).unwrap_err();
        let path = format!("r.content[0].{field}");
        assert_eq!(
            (error.code(), error.field()),
            ("INVALID_VALUE", Some(path.as_str()))
        );
    }
}

#[test]
fn an_error_result_with_an_image_is_refused_going_out_and_coming_in() {
    let image = Part::Image(Image::Base64 {
        media_type: "image/png".into(),
        data: "iVBORw0KGgo=".into(),
    });
    let content = vec![Part::Text("failed".into()), image];
    let history = sourced(&[call("c"), answer("c", content.clone(), true)]);
    let at = ("INVALID_VALUE", Some("messages[1].content[0].isError"));
    let error = to_anthropic(&history, None, None).unwrap_err();
    assert_eq!((error.code(), error.field()), at);
    let error = to_ai_sdk(&history, None, None).unwrap_err();
    assert_eq!((error.code(), error.field()), at);
    // As a success it goes.
    let ok = sourced(&[call("c"), answer("c", content, false)]);
    assert!(to_anthropic(&ok, None, None).is_ok());
    // In, as Anthropic's own shape, too.
    let sent = json!({"role": "user", "content": [{"type": "tool_result", "tool_use_id": "c", "is_error": true,
        "content": [{"type": "text", "text": "failed"},
                    {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "iVBORw0KGgo="}}]}]});
    let error = from_anthropic(&sent, At::Name("r")).unwrap_err();
    assert_eq!(
        (error.code(), error.field()),
        ("INVALID_VALUE", Some("r.content[0].is_error"))
    );
}

#[test]
fn an_anthropic_tool_input_that_is_no_object_is_refused_as_the_format_would_send_it() {
    for input in [json!(null), json!("{}"), json!([1]), json!(2)] {
        let reply = json!({"role": "assistant", "content": [{"type": "tool_use", "id": "t", "name": "f", "input": input}]});
        let error = from_anthropic(&reply, At::Name("r")).unwrap_err();
        assert_eq!(
            (error.code(), error.field()),
            ("INVALID_VALUE", Some("r.content[0].input"))
        );
    }
}

#[test]
fn ai_sdk_redacted_reasoning_and_provider_run_calls_are_refused_not_emptied() {
    let assistant = |part: Value| json!([{"role": "assistant", "content": [part]}]);
    let redacted = assistant(json!({"type": "reasoning", "text": "",
        "providerOptions": {"anthropic": {"redactedData": "abc"}}}));
    let error = from_ai_sdk(&redacted, At::Name("input")).unwrap_err();
    assert_eq!(error.field(), Some("input[0].content[0].providerOptions"));
    let call = |executed: Value| {
        assistant(
            json!({"type": "tool-call", "toolCallId": "c", "toolName": "f", "input": {},
                         "providerExecuted": executed}),
        )
    };
    assert!(from_ai_sdk(&call(Value::Bool(false)), At::Name("input")).is_ok());
    let error = from_ai_sdk(&call(Value::Bool(true)), At::Name("input")).unwrap_err();
    assert_eq!(error.field(), Some("input[0].content[0].providerExecuted"));
}

#[test]
fn parallel_calls_stored_one_per_message_reach_anthropic_as_one_turn() {
    let result = |id: &str| answer(id, vec![Part::Text("ok".into())], false);
    let said = |role: Role, text: &str| Message::new(role, vec![Part::Text(text.into())]);
    let history = [
        said(Role::User, "q"),
        call("a"),
        call("b"),
        result("a"),
        result("b"),
        said(Role::Assistant, "one"),
        said(Role::Assistant, "two"),
    ];
    let sent = to_anthropic(&sourced(&history), None, None).unwrap();
    let kinds = |turn: &Value| -> Vec<String> {
        let blocks = turn["content"].as_array().unwrap();
        blocks
            .iter()
            .map(|b| {
                format!(
                    "{}:{}",
                    turn["role"].as_str().unwrap(),
                    b["type"].as_str().unwrap()
                )
            })
            .collect()
    };
    let turns: Vec<Vec<String>> = sent["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(kinds)
        .collect();
    assert_eq!(
        turns,
        [
            vec!["user:text"],
            vec!["assistant:tool_use", "assistant:tool_use"],
            vec!["user:tool_result", "user:tool_result"],
            // Only a turn with a call takes the next assistant message.
            vec!["assistant:text"],
            vec!["assistant:text"],
        ]
    );
}

#[test]
fn an_error_result_with_no_output_says_so_in_every_format() {
    for content in [
        vec![],
        vec![Part::Text("".into())],
        vec![Part::Text("\r\n".into())],
        vec![Part::Text(" \n".into()), Part::Text("".into())],
    ] {
        for is_error in [true, false] {
            let result = answer("t1", content.clone(), is_error);
            let anthropic = to_anthropic(&sourced(&[result.clone()]), None, None).unwrap();
            let block = &anthropic["messages"][0]["content"][0];
            let openai = to_openai(&sourced(&[result.clone()]), None, false).unwrap();
            let ai_sdk = to_ai_sdk(&sourced(&[call("t1"), result]), None, None).unwrap();
            let output = &ai_sdk[1]["content"][0]["output"];
            if is_error {
                // Anthropic refuses an empty error result with a 400, and
                // the AI SDK's providers send an `error-text` as it is.
                assert_eq!(block["content"], json!(NO_OUTPUT), "{content:?}");
                assert_eq!(block["is_error"], json!(true));
                assert_eq!(openai[0]["content"], json!(NO_OUTPUT), "{content:?}");
                let error_text = json!({"type": "error-text", "value": NO_OUTPUT});
                assert_eq!(*output, error_text, "{content:?}");
            } else {
                // `content: ""` or `"\n"` is a 400 ("content field is
                // empty"); a result may leave it out.
                assert_eq!(block.get("content"), None, "{content:?}");
                assert_ne!(block["content"], json!(NO_OUTPUT), "{content:?}");
                assert_ne!(openai[0]["content"], json!(NO_OUTPUT), "{content:?}");
                assert_ne!(output["value"], json!(NO_OUTPUT), "{content:?}");
            }
        }
    }
}

#[test]
fn a_request_ending_on_assistant_text_is_sent_without_its_trailing_whitespace() {
    let said = |role: Role, text: &str| Message::new(role, vec![Part::Text(text.into())]);
    let history = [
        said(Role::User, "a haiku?"),
        said(Role::Assistant, "Autumn moonlight \n"),
    ];
    let sent = to_anthropic(&sourced(&history), None, None).unwrap();
    assert_eq!(
        sent["messages"][1]["content"][0]["text"],
        json!("Autumn moonlight")
    );
    // Earlier turns are sent as they are.
    let history = [
        said(Role::User, "a haiku?"),
        said(Role::Assistant, "Autumn moonlight \n"),
        said(Role::User, "more"),
    ];
    let sent = to_anthropic(&sourced(&history), None, None).unwrap();
    assert_eq!(
        sent["messages"][1]["content"][0]["text"],
        json!("Autumn moonlight \n")
    );
}

/// The `tool_use` ids and `tool_result` ids of an Anthropic request, in order.
fn anthropic_ids(request: &Value) -> Vec<String> {
    let mut ids = Vec::new();
    for turn in request["messages"].as_array().unwrap() {
        for block in turn["content"].as_array().unwrap() {
            for key in ["id", "tool_use_id"] {
                if let Some(id) = block[key].as_str() {
                    ids.push(id.to_owned());
                }
            }
        }
    }
    ids
}

/// The tool-call ids of AI SDK messages, calls and results, in order.
fn ai_sdk_ids(messages: &Value) -> Vec<String> {
    let parts = messages.as_array().unwrap().iter();
    let parts = parts.flat_map(|m| m["content"].as_array().into_iter().flatten());
    parts
        .filter_map(|p| p["toolCallId"].as_str().map(str::to_owned))
        .collect()
}

#[test]
fn anthropic_gets_tool_ids_it_takes_each_once_with_results_following() {
    let messages = [
        round("functions.get:0"),
        round("call_0"),
        round("call_0"),
        twice_x(),
        round(""),
        round("x_2"),
    ]
    .concat();
    let request = to_anthropic(&sourced(&messages), None, None).unwrap();
    assert_eq!(
        anthropic_ids(&request),
        [
            "functions_get_0",
            "functions_get_0",
            "call_0",
            "call_0",
            "call_0_2",
            "call_0_2",
            "x",
            "x_2",
            "x",
            "x_2",
            "_",
            "_",
            "x_2_2",
            "x_2_2",
        ]
    );
    let turns = request["messages"].as_array().unwrap();
    assert_eq!(
        turns[8]["content"][1]["content"], "second",
        "the second result answers the second call"
    );
    // Earlier turns are sent the same whatever follows: the cached prefix holds.
    let shorter = to_anthropic(&sourced(&messages[..10]), None, None).unwrap();
    let shorter = shorter["messages"].as_array().unwrap();
    assert_eq!(shorter[..], turns[..shorter.len()]);
    // The AI SDK's parts the same: a provider behind it may be Anthropic.
    let sent = to_ai_sdk(&sourced(&messages), None, None).unwrap();
    assert_eq!(ai_sdk_ids(&sent), anthropic_ids(&request));
    // toAiSdk checks no pairs: a result turns after its call still gets
    // the call's id, not another call's of the same id.
    let late = [
        user(),
        call("functions.get:0"),
        call("call_0"),
        answer("call_0", vec![], false),
        user(),
        call("call_0"),
        Message::new(Role::Assistant, vec![Part::Text("waiting".into())]),
        user(),
        answer("functions.get:0", vec![], false),
        answer("call_0", vec![], false),
    ];
    let sent = to_ai_sdk(&sourced(&late), None, None).unwrap();
    assert_eq!(
        ai_sdk_ids(&sent),
        [
            "functions_get_0",
            "call_0",
            "call_0",
            "call_0_2",
            "functions_get_0",
            "call_0_2"
        ]
    );
}

#[test]
fn openai_gets_each_tool_call_id_once_with_results_following() {
    let forty = "a".repeat(40);
    let messages = [
        round("functions.get:0"),
        round("functions.get:0"),
        twice_x(),
        round(""),
        vec![call(""), answer("", vec![], false)],
        round("x_2"),
        round(&forty),
        round(&forty),
    ]
    .concat();
    // Parallel calls stored one per message (the Agents adapter) are one
    // turn: the first result answers the first call.
    let split = [
        user(),
        call("p"),
        call("p"),
        answer("p", vec![Part::Text("1".into())], false),
        answer("p", vec![], false),
    ];
    // A real id equal to another's short form keeps its own result.
    let long = format!("L{}", "x".repeat(52));
    let short =
        ai_sdk_ids(&to_ai_sdk(&sourced(&[user(), call(&long)]), None, None).unwrap())[0].clone();
    let pair = [
        user(),
        both(&long, &short),
        answer(&short, vec![Part::Text("short".into())], false),
        answer(&long, vec![Part::Text("long".into())], false),
    ];
    let sent = to_openai(&sourced(&pair), None, false).unwrap();
    let calls = &sent[1]["tool_calls"];
    assert_ne!(calls[0]["id"], calls[1]["id"]);
    let answered = |i: usize| (&sent[i]["tool_call_id"], &sent[i]["content"]);
    assert_eq!(answered(2), (&calls[1]["id"], &json!("short")));
    assert_eq!(answered(3), (&calls[0]["id"], &json!("long")));
    let sent = to_openai(&sourced(&split), None, false).unwrap();
    let calls = &sent[1]["tool_calls"];
    assert_eq!(
        (&calls[0]["id"], &calls[1]["id"]),
        (&json!("p"), &json!("p_2"))
    );
    assert_eq!(
        (&sent[2]["tool_call_id"], &sent[2]["content"]),
        (&json!("p"), &json!("1"))
    );
    let sent = to_openai(&sourced(&messages), None, false).unwrap();
    let turns = sent.as_array().unwrap();
    let ids: Vec<&str> = turns
        .iter()
        .flat_map(|m| {
            let calls = m["tool_calls"].as_array().into_iter().flatten();
            calls.map(|c| &c["id"]).chain([&m["tool_call_id"]])
        })
        .filter_map(Value::as_str)
        .collect();
    let (last, rest) = ids.split_last().unwrap();
    assert_eq!(
        rest,
        [
            "functions.get:0",
            "functions.get:0",
            "functions.get:0_2",
            "functions.get:0_2",
            "x",
            "x_2",
            "x",
            "x_2",
            "",
            "",
            "_2",
            "_2",
            "x_2_2",
            "x_2_2",
            &forty,
            &forty,
            last,
        ]
    );
    assert!(last.len() == 40 && *last != forty, "{last}");
    assert_eq!(
        (&turns[9]["content"], &turns[9]["tool_call_id"]),
        (&json!("second"), &json!("x_2")),
        "the second result answers the second call"
    );
    // Earlier turns are sent the same whatever follows: the cached prefix holds.
    let shorter = to_openai(&sourced(&messages[..10]), None, false).unwrap();
    let shorter = shorter.as_array().unwrap();
    assert_eq!(shorter[..], turns[..shorter.len()]);
}

#[test]
fn the_ai_sdk_gets_no_blank_text_beside_other_parts() {
    // Claude's `\n\n` before a tool call: `@ai-sdk/anthropic` sends it
    // as a block, and Anthropic refuses a blank one.
    let mut turn = call("c1");
    turn.parts.insert(0, Part::Text("\n\n".into()));
    let spaced = Message::new(
        Role::User,
        vec![Part::Text("a".into()), Part::Text(" ".into())],
    );
    let blank = Message::new(Role::User, vec![Part::Text("  ".into())]);
    let messages = [turn, answer("c1", vec![], false), spaced, blank.clone()];
    let sent = to_ai_sdk(
        &sourced(&messages),
        Some(2),
        Some(&json!({"type": "ephemeral"})),
    )
    .unwrap();
    let types = |i: usize| -> Vec<String> {
        let parts = sent[i]["content"].as_array().unwrap();
        parts
            .iter()
            .map(|p| p["type"].as_str().unwrap().to_owned())
            .collect()
    };
    assert_eq!(types(0), ["tool-call"]);
    assert_eq!(
        sent[2]["content"],
        json!([{"type": "text", "text": "a", "providerOptions": {"anthropic": {"cacheControl": {"type": "ephemeral"}}}}])
    );
    // A message of blank text alone stays: nothing would be left of it.
    assert_eq!(sent[3]["content"], json!([{"type": "text", "text": "  "}]));
    // But an assistant's goes, as the Anthropic format leaves it out:
    // joined to a call, or beside one in the turn the SDK's Anthropic
    // provider makes of adjacent assistant messages.
    let said = Message::new(Role::Assistant, vec![Part::Text("\n\n".into())]);
    let user = Message::new(Role::User, vec![Part::Text("go".into())]);
    for messages in [
        vec![
            user.clone(),
            call("c1"),
            said.clone(),
            answer("c1", vec![], false),
        ],
        vec![user, said, call("c1"), answer("c1", vec![], false)],
    ] {
        let sent = to_ai_sdk(&sourced(&messages), None, None).unwrap();
        assert!(!sent.to_json().contains("\\n\\n"), "{sent}");
        assert_eq!(sent.as_array().unwrap().len(), 3, "{sent}");
    }
}

#[test]
fn the_ai_sdk_gets_what_its_providers_take() {
    let png = Part::Image(Image::Base64 {
        media_type: "image/png".into(),
        data: "iVBO".into(),
    });
    let results = [
        (
            vec![Part::Text(String::new()), png],
            json!([{"type": "file", "data": {"type": "data", "data": "iVBO"}, "mediaType": "image/png"}]),
        ),
        (
            vec![Part::Text("page".into()), Part::Text("\n".into())],
            json!("page"),
        ),
    ];
    for (content, value) in results {
        let turn = [user(), call("c1"), answer("c1", content, false)];
        let sent = to_ai_sdk(&sourced(&turn), None, None).unwrap();
        // A blank text beside another part, which Anthropic refuses.
        assert_eq!(sent[2]["content"][0]["output"]["value"], value, "{sent}");
    }
    // Data that is not base64, which a provider behind the SDK refuses.
    let slip = Part::Image(Image::Base64 {
        media_type: "image/png".into(),
        data: "data:image/png;base64,iVBO".into(),
    });
    let spaced = Part::Image(Image::Url("data:image/png;base64,iV BO".into()));
    let in_result = [user(), call("c1"), answer("c1", vec![slip.clone()], false)];
    for (messages, at) in [
        (
            vec![Message::new(Role::User, vec![slip])],
            "messages[0].content[0].data",
        ),
        (
            vec![Message::new(Role::User, vec![spaced])],
            "messages[0].content[0].url",
        ),
        (in_result.to_vec(), "messages[2].content[0].content[0].data"),
    ] {
        let error = to_ai_sdk(&sourced(&messages), None, None).unwrap_err();
        assert_eq!(error.field(), Some(at));
        assert!(
            error.to_string().contains("a data: URL goes in url"),
            "{error}"
        );
    }
    // Ids as OpenAI takes them too: at most 40 characters.
    let long = format!("gw_{}", "0123456789abcdef".repeat(3));
    let turn = [user(), call(&long), answer(&long, vec![], false)];
    let ids = ai_sdk_ids(&to_ai_sdk(&sourced(&turn), None, None).unwrap());
    assert_eq!(ids.len(), 2);
    assert!(
        ids[0] == ids[1] && ids[0].len() == 40 && ids[0] != long,
        "{ids:?}"
    );
}

#[test]
fn a_compatible_servers_reasoning_reads_as_thinking_and_is_not_sent_back() {
    for key in ["reasoning_content", "reasoning"] {
        let reply = json::parse(&format!(
            r#"{{"role": "assistant", "content": "4", "{key}": "2 + 2", "tool_calls": null}}"#
        ))
        .unwrap();
        let messages = from_openai(&reply, At::Name("reply")).unwrap();
        assert_eq!(
            messages[0].parts,
            [
                Part::Thinking {
                    thinking: "2 + 2".into(),
                    signature: None
                },
                Part::Text("4".into()),
            ],
            "{key}"
        );
        let sent = to_openai(&sourced(&messages), None, false).unwrap();
        assert_eq!(
            sent,
            json!([{"role": "assistant", "content": "4"}]),
            "{key}"
        );
        let empty = json::parse(&format!(
            r#"{{"role": "assistant", "content": "4", "{key}": ""}}"#
        ))
        .unwrap();
        assert_eq!(
            from_openai(&empty, At::Name("reply")).unwrap()[0].parts,
            [Part::Text("4".into())]
        );
    }
    // The SDK's stream helpers add what they parsed: kept as the text.
    let parsed = json!({"role": "assistant", "content": "{\"a\":1}", "parsed": {"a": 1},
        "tool_calls": [{"id": "c", "type": "function",
            "function": {"name": "f", "arguments": "{\"b\":2}", "parsed_arguments": {"b": 2}}}]});
    let plain = json!({"role": "assistant", "content": "{\"a\":1}",
        "tool_calls": [{"id": "c", "type": "function", "function": {"name": "f", "arguments": "{\"b\":2}"}}]});
    let mut none = plain.clone();
    none["parsed"] = Value::Null;
    let read = |reply: &Value| from_openai(reply, At::Name("reply")).unwrap();
    assert_eq!(read(&parsed), read(&plain));
    assert_eq!(read(&none), read(&plain));
    // vLLM sends both, the same text: one thinking part.
    let both = json!({"role": "assistant", "content": "4", "reasoning_content": "2 + 2", "reasoning": "2 + 2"});
    let parts = &from_openai(&both, At::Name("reply")).unwrap()[0].parts;
    assert_eq!(parts.len(), 2, "{parts:?}");
    let mistyped = json!({"role": "assistant", "content": "4", "reasoning": {"text": "x"}});
    assert_eq!(
        refused(from_openai(&mistyped, At::Name("reply"))).1,
        "reply.reasoning"
    );
}

#[test]
fn fromanthropic_takes_in_only_images_toanthropic_sends_back() {
    for (source, field) in [
        (
            json!({"type": "base64", "media_type": "image/bmp", "data": "Qk0="}),
            "media_type",
        ),
        (
            json!({"type": "url", "url": "data:image/svg+xml,<svg/>"}),
            "url",
        ),
        (
            json!({"type": "base64", "media_type": "image/png", "data": ""}),
            "data",
        ),
        (
            json!({"type": "base64", "media_type": "image/png", "data": "data:image/png;base64,iVBO"}),
            "data",
        ),
        (
            json!({"type": "base64", "media_type": "image/png", "data": "[image blob missing]"}),
            "data",
        ),
    ] {
        let input = json!({"role": "user", "content": [{"type": "image", "source": source}]});
        assert_eq!(
            refused(from_anthropic(&input, At::Name("x"))),
            ("INVALID_VALUE", format!("x.content[0].source.{field}")),
            "{source}"
        );
    }
}

#[test]
fn fromopenai_takes_in_only_images_toopenai_sends_back() {
    for url in ["data:image/svg+xml;base64,AAAA", "data:image/png,AAAA"] {
        let input =
            json!({"role": "user", "content": [{"type": "image_url", "image_url": {"url": url}}]});
        assert_eq!(
            refused(from_openai(&input, At::Name("x"))),
            ("INVALID_VALUE", "x.content[0].image_url.url".to_owned()),
            "{url}"
        );
    }
    for url in [
        "https://example.com/cat.svg",
        "data:image/png;name=a;BASE64,iVBORw0KGgo=",
    ] {
        let input =
            json!({"role": "user", "content": [{"type": "image_url", "image_url": {"url": url}}]});
        let read = from_openai(&input, At::Name("x")).unwrap();
        assert!(to_openai(&sourced(&read), None, false).is_ok(), "{url}");
    }
    // Stored as the base64 it is, so every provider gets its type.
    let url = "data:image/png;name=a;BASE64,iVBORw0KGgo=";
    let input =
        json!({"role": "user", "content": [{"type": "image_url", "image_url": {"url": url}}]});
    assert_eq!(
        from_openai(&input, At::Name("x")).unwrap()[0].parts,
        [Part::Image(Image::Base64 {
            media_type: "image/png".into(),
            data: "iVBORw0KGgo=".into()
        })]
    );
}

#[test]
fn openai_gets_tool_call_ids_of_at_most_40_characters_and_ollamas_calls_convert() {
    // Ollama writes each call's `index`, as a stream's delta does.
    let reply = json!({"choices": [{"message": {"role": "assistant", "content": "",
        "tool_calls": [{"id": "call_x", "index": 0, "type": "function", "function": {"name": "f", "arguments": "{}"}}]}}]});
    let parts = &from_openai(&reply, At::Name("reply")).unwrap()[0].parts;
    assert!(
        matches!(&parts[..], [Part::Text(t), Part::ToolCall { id, .. }] if t.is_empty() && id == "call_x"),
        "{parts:?}"
    );
    let long = format!("toolu_vrtx_{}", "x".repeat(30));
    let other = format!("toolu_vrtx_{}y", "x".repeat(29));
    let history = sourced(&[call(&long), call(&other), call(&"a".repeat(40))]);
    let sent = to_openai(&history, None, false).unwrap();
    let ids: Vec<&str> = sent
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|m| m["tool_calls"].as_array())
        .flatten()
        .map(|c| c["id"].as_str().unwrap())
        .collect();
    assert_eq!(ids.len(), 3);
    assert!(ids.iter().all(|id| id.chars().count() <= 40), "{ids:?}");
    assert!(
        ids[0].starts_with("toolu_vrtx_xxx") && ids[0] != ids[1],
        "{ids:?}"
    );
    assert_eq!(ids[2], "a".repeat(40), "40 characters go as they are");
    // The result names its call's id as sent, and so does every later turn.
    let answered = sourced(&[
        call(&long),
        answer(&long, vec![Part::Text("ok".into())], false),
    ]);
    let sent = to_openai(&answered, None, false).unwrap();
    assert_eq!(sent[1]["tool_call_id"], sent[0]["tool_calls"][0]["id"]);
    assert_eq!(sent[0]["tool_calls"][0]["id"].as_str(), Some(ids[0]));
}

#[test]
fn the_converters_take_in_no_image_part_of_another_type() {
    // What each would return, every later call refuses: so they refuse it.
    let pdf = "data:application/pdf;base64,JVBERi0=";
    let openai =
        json!([{"role": "user", "content": [{"type": "image_url", "image_url": {"url": pdf}}]}]);
    let ai_image = json!([{"role": "user", "content": [{"type": "image", "image": pdf}]}]);
    let ai_file = json!([{"role": "user", "content": [{"type": "file", "data": pdf, "mediaType": "image/png"}]}]);
    assert_eq!(
        refused(from_openai(&openai, At::Name("x"))),
        ("INVALID_VALUE", "x[0].content[0].image_url.url".to_owned())
    );
    assert_eq!(
        refused(from_ai_sdk(&ai_image, At::Name("x"))),
        ("INVALID_VALUE", "x[0].content[0].image".to_owned())
    );
    assert_eq!(
        refused(from_ai_sdk(&ai_file, At::Name("x"))),
        ("INVALID_VALUE", "x[0].content[0].data".to_owned())
    );
    let anthropic = json!({"role": "user", "content": [{"type": "image", "source": {"type": "base64", "media_type": "application/pdf", "data": "JVBERi0="}}]});
    assert_eq!(
        refused(from_anthropic(&anthropic, At::Name("x"))),
        ("INVALID_VALUE", "x.content[0].source.media_type".to_owned())
    );
    // A scheme in any case is a data: URL; an untyped one is text, no image.
    for url in [
        "DATA:application/pdf;base64,JVBERi0=",
        "data:text/plain,image",
        "data:,abc",
    ] {
        let part = json!({"role": "user", "content": [{"type": "image", "url": url}]});
        assert_eq!(
            refused(Message::from_value(&part, At::Name("m"))).1,
            "m.content[0].url",
            "{url}"
        );
    }
    for media_type in ["image,png", "image;x"] {
        let part = json!({"role": "user", "content": [{"type": "image", "data": "d", "mediaType": media_type}]});
        assert!(
            Message::from_value(&part, At::Name("m")).is_err(),
            "{media_type}"
        );
    }
    // A type is any case, and goes in lower case.
    for media_type in ["IMAGE/PNG", "Image/png", "IMAGE"] {
        let part = json!({"role": "user", "content": [{"type": "image", "data": "iVBO", "mediaType": media_type}]});
        let stored = Message::from_value(&part, At::Name("m")).unwrap();
        let sent = to_openai(&sourced(&[stored]), None, false);
        if media_type == "IMAGE" {
            assert_eq!(refused(sent).1, "messages[0].content[0].mediaType");
            continue;
        }
        assert_eq!(
            sent.unwrap()[0]["content"][0]["image_url"]["url"],
            "data:image/png;base64,iVBO"
        );
    }
    // Data that is not base64 (a whole data: URL) would be a 400 each turn.
    let part = json!({"role": "user", "content": [{"type": "image", "data": "data:image/png;base64,iVBO", "mediaType": "image/png"}]});
    let stored = sourced(&[Message::from_value(&part, At::Name("m")).unwrap()]);
    let at = "messages[0].content[0].data";
    assert_eq!(refused(to_openai(&stored, None, false)).1, at);
    assert_eq!(refused(to_anthropic(&stored, None, None)).1, at);
    let lines = json!({"role": "user", "content": [{"type": "image", "data": "iVBO\r\nRw0K-_==", "mediaType": "image/png"}]});
    let lines = sourced(&[Message::from_value(&lines, At::Name("m")).unwrap()]);
    assert!(to_anthropic(&lines, None, None).is_ok());
    // Padding or line breaks alone, or 4n + 1 digits, decode to no image:
    // a 400 each turn too, so refused coming in as well.
    // So does padding `atob` refuses: within, or not ending a group of 4.
    for data in [
        "=",
        "====",
        "\n",
        "\r\n\r\n",
        "iVBORw0KG",
        "AA==AA==",
        "AAAA=",
        "AA=",
        "A=AA",
        "====AAAA",
        "AA===",
    ] {
        let part = json!({"role": "user", "content": [{"type": "image", "data": data, "mediaType": "image/png"}]});
        let stored = sourced(&[Message::from_value(&part, At::Name("m")).unwrap()]);
        assert_eq!(refused(to_openai(&stored, None, false)).1, at, "{data:?}");
        assert_eq!(refused(to_anthropic(&stored, None, None)).1, at, "{data:?}");
        let url = format!("data:image/png;base64,{data}");
        let read = json!([{"role": "user", "content": [{"type": "image_url", "image_url": {"url": url}}]}]);
        assert_eq!(
            refused(from_openai(&read, At::Name("x"))).0,
            "INVALID_VALUE"
        );
    }
    let ok = json!({"role": "user", "content": [{"type": "image", "url": "data:image;base64,iVBORw0KGgo="}]});
    assert!(Message::from_value(&ok, At::Name("m")).is_ok());
}

#[test]
fn an_image_type_in_any_case_comes_in_lower_case_so_later_turns_take_it() {
    let openai = json!({"role": "user", "content": [{"type": "image_url",
        "image_url": {"url": "data:IMAGE/PNG;base64,iVBORw0KGgo="}}]});
    let anthropic = json!({"role": "user", "content": [
        {"type": "image", "source": {"type": "base64", "media_type": "IMAGE/PNG", "data": "iVBORw0KGgo="}},
        {"type": "image", "source": {"type": "url", "url": "data:Image/png;base64,iVBORw0KGgo="}}]});
    let ai_sdk = json!({"role": "user", "content": [
        {"type": "file", "data": "iVBORw0KGgo=", "mediaType": "IMAGE/PNG"},
        {"type": "image", "image": "iVBORw0KGgo=", "mediaType": "Image/Png"}]});
    let mut read = from_openai(&openai, At::Name("x")).unwrap();
    read.extend(from_anthropic(&anthropic, At::Name("x")).unwrap());
    read.extend(from_ai_sdk(&ai_sdk, At::Name("x")).unwrap());
    let png = Part::Image(Image::Base64 {
        media_type: "image/png".into(),
        data: "iVBORw0KGgo=".into(),
    });
    assert_eq!(read.iter().map(|m| m.parts.len()).sum::<usize>(), 5);
    for message in &read {
        assert!(message.parts.iter().all(|part| *part == png), "{message:?}");
        // As appendMessages takes it back: before, refused there.
        let back = Message::from_value(&message.to_value(), At::Name("m")).unwrap();
        assert_eq!(back, *message);
    }
}

#[test]
fn a_stored_image_type_in_any_case_goes_out_in_lower_case() {
    let png = Part::Image(Image::Base64 {
        media_type: "image/PNG".into(),
        data: "iVBORw0KGgo=".into(),
    });
    let user = Message::new(Role::User, vec![png.clone()]);
    let sent = to_openai(&sourced(&[user.clone()]), None, false).unwrap();
    assert_eq!(
        sent[0]["content"][0]["image_url"]["url"],
        "data:image/png;base64,iVBORw0KGgo="
    );
    let history = [user, call("c1"), answer("c1", vec![png], false)];
    let sent = to_ai_sdk(&sourced(&history), None, None).unwrap();
    assert_eq!(sent[0]["content"][0]["mediaType"], "image/png");
    assert_eq!(
        sent[2]["content"][0]["output"]["value"][0]["mediaType"],
        "image/png"
    );
}

#[test]
fn an_ai_sdk_result_is_named_after_the_call_its_id_answers() {
    // One reply's two calls share `call_0`: the first result answered the
    // first call by id but was named after the second's tool.
    let named = |name: &str| Part::ToolCall {
        id: "call_0".into(),
        name: name.into(),
        arguments: json!({}),
    };
    let messages = [
        Message::new(Role::User, vec![Part::Text("go".into())]),
        Message::new(
            Role::Assistant,
            vec![named("get_weather"), named("get_time")],
        ),
        answer("call_0", vec![Part::Text("5C rain".into())], false),
        answer("call_0", vec![Part::Text("14:02".into())], false),
    ];
    let sent = to_ai_sdk(&sourced(&messages), None, None).unwrap();
    let pairs: Vec<String> = sent
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|m| m["content"].as_array().into_iter().flatten())
        .filter_map(|p| {
            Some(format!(
                "{} {}",
                p["toolCallId"].as_str()?,
                p["toolName"].as_str()?
            ))
        })
        .collect();
    assert_eq!(
        pairs,
        [
            "call_0 get_weather",
            "call_0_2 get_time",
            "call_0 get_weather",
            "call_0_2 get_time"
        ]
    );
}

/// A URL no provider can fetch (none, no scheme, a page's own `blob:`)
/// is refused by the converters coming in and by the providers' formats
/// going out: sent, it is a 400 on every later turn (the AI SDK throws).
/// In a tool result too. The neutral
/// form keeps it, as earlier versions stored it: a history still counts,
/// compacts and imports, and a host's backend may resolve it.
#[test]
fn an_image_url_no_provider_can_fetch_is_refused_by_the_converters() {
    let converters = |url: &str| {
        [
            from_openai(
                &json!([{"role": "user", "content": [{"type": "image_url", "image_url": {"url": url}}]}]),
                At::Name("m"),
            )
            .map(drop),
            from_anthropic(
                &json!([{"role": "user", "content": [{"type": "image", "source": {"type": "url", "url": url}}]}]),
                At::Name("m"),
            )
            .map(drop),
            from_ai_sdk(
                &json!([{"role": "user", "content": [{"type": "image", "image": url}]}]),
                At::Name("m"),
            )
            .map(drop),
        ]
    };
    let unfetchable = [
        "",
        "not a url",
        "blob:https://app.example/1f0c",
        "BLOB:x",
        "https:",
        "1x:y",
        "/uploads/a.png",
        "chrome-extension://abcdefghijklmnop/shot.png",
        "Moz-Extension://uuid/shot.png",
        "safari-web-extension://uuid/a.png",
        "file:///home/me/shot.png",
        "filesystem:https://app.example/temporary/a.png",
        "about:blank",
        // A path or host that reads as a scheme; schemes no provider reads.
        "C:\\Users\\me\\a.png",
        "localhost:8080/a.png",
        "s3:",
        "javascript:alert(1)",
        "ftp://x.test/a.png",
        // Not base64: the AI SDK reads what follows the comma as base64.
        "data:image/svg+xml,%3Csvg%3E",
        "data:image/png,AAAA",
        "data:image/png;base64,AA==AA==",
        // No host, or a space: the AI SDK's URL parser throws.
        "http://",
        "https:/a.png",
        "https://exa mple.com/a.png",
    ];
    let fetched = [
        "https://x.test/a.png",
        "HTTP://x.test/a",
        "data:image/png;base64,iVBO",
    ];
    // Vertex's and Bedrock's buckets: only through the AI SDK, whose
    // providers read them; OpenAI and Anthropic cannot.
    let buckets = ["gs://bucket/a.png", "S3://bucket/a.png"];
    let cases = unfetchable
        .map(|u| (u, [false; 2]))
        .into_iter()
        .chain(fetched.map(|u| (u, [true; 2])))
        .chain(buckets.map(|u| (u, [false, true])));
    for (url, [web, cloud]) in cases {
        let neutral = json!({"role": "user", "content": [{"type": "image", "url": url}]});
        let stored = Message::from_value(&neutral, At::Name("m")).unwrap();
        let history = vec![(At::Item("history", 0), stored)];
        let in_result = json!({"role": "tool", "content": [{"type": "tool_result", "callId": "c", "content": [{"type": "image", "url": url}]}]});
        let call = json!({"role": "assistant", "content": [{"type": "tool_call", "id": "c", "name": "f", "arguments": {}}]});
        let results = vec![
            (
                At::Item("history", 0),
                Message::from_value(&call, At::Name("m")).unwrap(),
            ),
            (
                At::Item("history", 1),
                Message::from_value(&in_result, At::Name("m")).unwrap(),
            ),
        ];
        let sent = [
            to_openai(&history, None, false).map(drop),
            to_anthropic(&history, None, None).map(drop),
            to_ai_sdk(&history, None, None).map(drop),
            to_anthropic(&results, None, None).map(drop),
            to_ai_sdk(&results, None, None).map(drop),
        ];
        let fetched = [web, web, cloud, web, web, cloud, web, cloud];
        let results = converters(url).into_iter().chain(sent).zip(fetched);
        for (i, (result, fetchable)) in results.enumerate() {
            let code = result.map_or_else(|e| e.code(), |()| "OK");
            assert_eq!(
                code,
                if fetchable { "OK" } else { "INVALID_VALUE" },
                "{url:?} in call {i}"
            );
        }
    }
}
