use crate::json;
use crate::json::Value;

use super::*;

fn user(text: &str) -> Value {
    json!({"role": "user", "content": [{"type": "text", "text": text}]})
}

fn assistant(text: &str) -> Value {
    json!({"role": "assistant", "content": [{"type": "text", "text": text}]})
}

fn pinned() -> Value {
    json!({"role": "user", "content": [{"type": "text", "text": "[Pinned memory: m]\n\nM"}, {"type": "text", "text": "[Todo list]"}]})
}

fn turn() -> Turn {
    Turn {
        attachments: Some(pinned()),
        contributors: vec![user("contributor")],
        memories: vec![user("memory")],
        history: vec![user("hi"), assistant("hello"), user("next")],
        ..Turn::default()
    }
}

fn texts(request: &Value) -> Vec<String> {
    request["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["content"].to_string())
        .collect()
}

#[test]
fn attachments_lead_then_contributors_then_memories_then_history() {
    let request = build_request(Format::Generic, turn()).unwrap();
    let messages = request["messages"].as_array().unwrap();
    assert_eq!(messages.len(), 6);
    assert_eq!(messages[0], pinned());
    assert_eq!(
        &messages[1..],
        &[
            user("contributor"),
            user("memory"),
            user("hi"),
            assistant("hello"),
            user("next")
        ]
    );
}

#[test]
fn a_leading_system_message_in_the_history_stays_first() {
    let mut t = turn();
    t.history
        .insert(0, json!({"role": "system", "content": "be good"}));
    let request = build_request(Format::Generic, t).unwrap();
    assert_eq!(request["messages"][0]["role"], "system");
    assert_eq!(
        request["messages"][1],
        pinned(),
        "pinned context follows the system prompt"
    );
}

#[test]
fn with_nothing_pinned_the_request_is_byte_identical_to_the_plain_history_request() {
    for format in [
        Format::Generic,
        Format::OpenAiChat,
        Format::AnthropicMessages,
    ] {
        let history = vec![user("hi"), assistant("hello"), user("next")];
        let plain = build_request(
            format,
            Turn {
                history: history.clone(),
                system: Some("sys".into()),
                ..Turn::default()
            },
        )
        .unwrap();
        let empty = Turn {
            history,
            system: Some("sys".into()),
            attachments: None,
            contributors: vec![],
            memories: vec![],
            cache_control: Some(json!({"type": "ephemeral"})),
            reasoning_content: false,
        };
        assert_eq!(
            build_request(format, empty).unwrap().to_string(),
            plain.to_string(),
            "{format:?}"
        );
    }
}

#[test]
fn openai_gets_system_text_as_a_string_and_tool_calls_in_their_own_fields() {
    let t = Turn {
        system: Some("sys".into()),
        history: vec![
            user("find it"),
            json!({"role": "assistant", "content": [{"type": "tool_call", "id": "c1", "name": "search", "arguments": {"q": "x"}}]}),
            json!({"role": "tool", "content": [{"type": "tool_result", "callId": "c1", "content": [{"type": "text", "text": "found"}]}]}),
        ],
        ..Turn::default()
    };
    let request = build_request(Format::OpenAiChat, t).unwrap();
    assert_eq!(
        request["messages"],
        json!([
            {"role": "system", "content": "sys"},
            {"role": "user", "content": "find it"},
            {"role": "assistant", "content": null, "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "search", "arguments": "{\"q\":\"x\"}"}}]},
            {"role": "tool", "tool_call_id": "c1", "content": "found"},
        ])
    );
}

#[test]
fn openai_keeps_the_consolidated_message_as_one_user_message_of_text_parts() {
    let request = build_request(Format::OpenAiChat, turn()).unwrap();
    assert_eq!(
        request["messages"][0],
        pinned(),
        "already the Chat Completions shape"
    );
    // One pin stays a list of parts, so pinning a second moves no byte of it.
    let mut one = turn();
    one.attachments = Some(user("[Pinned memory: m]\n\nM"));
    let request = build_request(Format::OpenAiChat, one).unwrap();
    assert_eq!(request["messages"][0], user("[Pinned memory: m]\n\nM"));
    let history = &request["messages"][3];
    assert_eq!(
        history["content"], "hi",
        "a history message's one part is a string"
    );
}

#[test]
fn anthropic_puts_the_system_prompt_at_the_top_level() {
    let mut t = turn();
    t.system = Some("sys".into());
    let request = build_request(Format::AnthropicMessages, t).unwrap();
    assert_eq!(request["system"], "sys");
    assert!(request["messages"]
        .as_array()
        .unwrap()
        .iter()
        .all(|m| m["role"] != "system"));
}

#[test]
fn anthropic_coalesces_adjacent_user_text_so_roles_alternate() {
    let request = build_request(Format::AnthropicMessages, turn()).unwrap();
    let roles: Vec<&str> = request["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["role"].as_str().unwrap())
        .collect();
    assert_eq!(
        roles,
        ["user", "assistant", "user"],
        "pinned, contributor, memory and the first user turn fold into one"
    );
    let first: Vec<&str> = request["messages"][0]["content"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b["text"].as_str().unwrap())
        .collect();
    assert_eq!(
        first,
        [
            "[Pinned memory: m]\n\nM",
            "[Todo list]",
            "contributor",
            "memory",
            "hi"
        ],
        "in order, block by block"
    );
}

/// A memory, a file and the todo list, with `blank` as a part between.
fn three_pins(blank: bool) -> Turn {
    let mut parts = vec![json!({"type": "text", "text": "[Pinned memory: m]\n\nM"})];
    parts.push(json!({"type": "text", "text": "[Attached file: f]"}));
    if blank {
        parts.push(json!({"type": "text", "text": "  "}));
    }
    parts.push(json!({"type": "text", "text": "[Todo list]"}));
    Turn {
        attachments: Some(json!({"role": "user", "content": (Value::Array(parts))})),
        cache_control: Some(json!({"type": "ephemeral"})),
        ..turn()
    }
}

/// The indexes of the parts of `message` that carry `key`.
fn marked(message: &Value, key: &str) -> Vec<usize> {
    let parts = message["content"].as_array().unwrap();
    (0..parts.len())
        .filter(|&i| parts[i].get(key).is_some())
        .collect()
}

#[test]
fn anthropic_puts_cache_breakpoints_on_the_last_two_pinned_blocks() {
    let request = build_request(Format::AnthropicMessages, three_pins(false)).unwrap();
    let messages = request["messages"].as_array().unwrap();
    // A ticked todo must not cost the memories' and files' cache: a cache
    // entry is written only at a breakpoint.
    assert_eq!(marked(&messages[0], "cache_control"), [1, 2]);
    assert_eq!(
        messages[0]["content"][1]["cache_control"],
        json!({"type": "ephemeral"})
    );
    let after = messages[1..]
        .iter()
        .filter(|m| m.to_json().contains("cache_control"));
    assert_eq!(
        after.count(),
        0,
        "nothing after the pinned prefix is marked"
    );
    // One pin, one breakpoint; a blank part is dropped, not marked.
    let mut one = turn();
    one.attachments = Some(user("[Todo list]"));
    one.cache_control = Some(json!({"type": "ephemeral"}));
    let request = build_request(Format::AnthropicMessages, one).unwrap();
    assert_eq!(marked(&request["messages"][0], "cache_control"), [0]);
    let request = build_request(Format::AnthropicMessages, three_pins(true)).unwrap();
    assert_eq!(marked(&request["messages"][0], "cache_control"), [1, 2]);
}

#[test]
fn anthropic_tool_calls_become_tool_use_and_tool_result_blocks() {
    let t = Turn {
        history: vec![
            json!({"role": "assistant", "content": [{"type": "tool_call", "id": "c1", "name": "search", "arguments": {"q": "x"}}]}),
            json!({"role": "tool", "content": [{"type": "tool_result", "callId": "c1", "content": "found"}]}),
        ],
        ..Turn::default()
    };
    let request = build_request(Format::AnthropicMessages, t).unwrap();
    assert_eq!(
        request["messages"][0]["content"][0],
        json!({"type": "tool_use", "id": "c1", "name": "search", "input": {"q": "x"}})
    );
    assert_eq!(
        request["messages"][1]["content"][0],
        json!({"type": "tool_result", "tool_use_id": "c1", "content": "found"})
    );
}

#[test]
fn attachments_never_enter_the_history() {
    let t = turn();
    let history = t.history.clone();
    let request = build_request(Format::Generic, t).unwrap();
    assert_eq!(
        &request["messages"].as_array().unwrap()[3..],
        history.as_slice(),
        "the history is carried as given"
    );
    assert_eq!(
        texts(&request)
            .iter()
            .filter(|t| t.contains("Pinned memory"))
            .count(),
        1,
        "the pins ride once, ahead of it"
    );
}

#[test]
fn a_message_that_is_not_attaches_is_refused_with_its_list_and_index() {
    let t = Turn {
        history: vec![
            user("hi"),
            json!({"role": "user", "content": ["bare text"]}),
        ],
        ..Turn::default()
    };
    let error = build_request(Format::OpenAiChat, t).unwrap_err();
    assert_eq!(
        (error.code(), error.field()),
        ("INVALID_VALUE", Some("history[1].content[0]"))
    );
    let t = Turn {
        memories: vec![json!({"id": "chatcmpl-1", "choices": []})],
        history: vec![user("hi")],
        ..Turn::default()
    };
    let error = build_request(Format::Generic, t).unwrap_err();
    assert_eq!(
        error.field(),
        Some("memories[0].id"),
        "a raw response is not a message"
    );
}

#[test]
fn the_ai_sdk_gets_cache_breakpoints_in_provider_options_on_the_last_two_pinned_parts() {
    let request = build_request(Format::AiSdk, three_pins(false)).unwrap();
    let pinned = &request["messages"][0];
    assert_eq!(pinned["role"], "user");
    assert_eq!(
        pinned["content"][2]["providerOptions"],
        json!({"anthropic": {"cacheControl": {"type": "ephemeral"}}})
    );
    assert_eq!(marked(pinned, "providerOptions"), [1, 2]);
    // A blank part is not sent (Anthropic refuses it), nor marked.
    let request = build_request(Format::AiSdk, three_pins(true)).unwrap();
    assert_eq!(request["messages"][0]["content"], pinned["content"]);
    let marked = request["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m.to_json().contains("providerOptions"))
        .count();
    assert_eq!(marked, 1, "nothing after the pinned prefix is marked");
}

#[test]
fn the_ai_sdk_gets_system_text_as_instructions_not_among_the_messages() {
    // AI SDK 7 refuses a system message in `messages` by default.
    let system =
        |text: &str| json!({"role": "system", "content": [{"type": "text", "text": text}]});
    let one = Turn {
        system: Some("Be brief.".into()),
        ..turn()
    };
    let request = build_request(Format::AiSdk, one).unwrap();
    assert_eq!(request["instructions"], "Be brief.");
    let roles = |request: &Value| -> Vec<String> {
        request["messages"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| m["role"].as_str().unwrap().to_owned())
            .collect()
    };
    assert!(!roles(&request).contains(&"system".to_owned()));
    assert_eq!(
        request["messages"][0]["content"][0]["text"],
        "[Pinned memory: m]\n\nM"
    );
    // A system contributor and one in the history join it, in order.
    let several = Turn {
        system: Some("A".into()),
        contributors: vec![system("B")],
        history: vec![user("hi"), system("C")],
        ..turn()
    };
    let request = build_request(Format::AiSdk, several).unwrap();
    assert_eq!(
        request["instructions"],
        json!([{"role": "system", "content": "A"}, {"role": "system", "content": "B"}, {"role": "system", "content": "C"}])
    );
    assert_eq!(roles(&request), ["user", "user", "user"]);
    let none = build_request(Format::AiSdk, turn()).unwrap();
    assert_eq!(none.get("instructions"), None);
    let blank = Turn {
        system: Some(" \n".into()),
        ..turn()
    };
    let blank = build_request(Format::AiSdk, blank).unwrap();
    assert_eq!(blank.get("instructions"), None, "nothing to say");
}

#[test]
fn a_breakpoint_is_anthropic_shaped_and_lands_on_the_consolidated_message() {
    let with = |attachments: Value, marker: Value| {
        let turn = Turn {
            attachments: Some(attachments),
            cache_control: Some(marker),
            ..turn()
        };
        build_request(Format::AnthropicMessages, turn)
    };
    let ok = json!({"type": "ephemeral", "ttl": "1h"});
    assert!(with(pinned(), ok.clone()).is_ok());
    for marker in [
        json!("1h"),
        json!({}),
        json!({"type": "ephemeral", "ttl": "2h"}),
        json!({"type": "persistent"}),
    ] {
        let error = with(pinned(), marker.clone()).unwrap_err();
        assert_eq!(
            (error.code(), error.field()),
            ("INVALID_ARGUMENT", Some("cacheControl")),
            "{marker}"
        );
    }
    // A misspelt option is named, as any options object's is.
    let typo = with(pinned(), json!({"type": "ephemeral", "tll": "5m"})).unwrap_err();
    assert_eq!(
        (typo.code(), typo.field()),
        ("INVALID_ARGUMENT", Some("cacheControl.tll"))
    );
    // Where a breakpoint would move or vanish unseen.
    let system = json!({"role": "system", "content": [{"type": "text", "text": "s"}]});
    let empty = json!({"role": "user", "content": []});
    for attachments in [system, empty] {
        let error = with(attachments.clone(), ok.clone()).unwrap_err();
        assert_eq!(
            (error.code(), error.field()),
            ("INVALID_VALUE", Some("attachments")),
            "{attachments}"
        );
    }
}

#[test]
fn attachments_must_be_the_consolidated_message_for_a_plan_too() {
    let system = json!({"role": "system", "content": "x"});
    let empty = json!({"role": "user", "content": []});
    for bad in [system, empty] {
        let error = super::consolidated(&bad).unwrap_err();
        assert_eq!(
            (error.code(), error.field()),
            ("INVALID_VALUE", Some("attachments"))
        );
    }
    let pinned =
        json!({"role": "user", "content": [{"type": "text", "text": "[Pinned memory: m]\n\nM"}]});
    assert!(super::consolidated(&pinned).is_ok());
}

fn call(ids: &[&str]) -> Value {
    let parts: Vec<Value> = ids
        .iter()
        .map(|id| json!({"type": "tool_call", "id": (*id), "name": "f", "arguments": {}}))
        .collect();
    json!({"role": "assistant", "content": (Value::Array(parts))})
}

fn result(id: &str) -> Value {
    json!({"role": "tool", "content": [{"type": "tool_result", "callId": id, "content": "ok"}]})
}

#[test]
fn every_tool_call_is_answered_right_after_it_and_every_result_answers_one() {
    let paired = vec![
        user("q"),
        call(&["a", "b"]),
        result("b"),
        result("a"),
        assistant("done"),
        user("next"),
    ];
    // Parallel calls stored one per message (the Agents adapter), and a
    // blank assistant message between (a hosted tool's), are one turn.
    let split = vec![
        user("q"),
        call(&["a"]),
        call(&["b"]),
        assistant(""),
        result("a"),
        result("b"),
        call(&["c"]),
        result("c"),
        user("next"),
    ];
    let cases: [(Vec<Value>, &str); 7] = [
        // The tail of a longer history: its call was cut off.
        (
            vec![result("a"), user("next")],
            "history[0].content[0].callId",
        ),
        // A crash between the call and its result.
        (
            vec![user("q"), call(&["a"]), user("next")],
            "history[1].content[0].id",
        ),
        (
            vec![user("q"), call(&["a", "b"]), result("a"), user("next")],
            "history[1].content[1].id",
        ),
        (vec![user("q"), call(&["a"])], "history[1].content[0].id"),
        (
            vec![user("q"), call(&["a"]), user("hurry"), result("a")],
            "history[1].content[0].id",
        ),
        (
            vec![user("q"), call(&["a"]), result("a"), result("a")],
            "history[3].content[0].callId",
        ),
        // An assistant message after a result starts the next turn.
        (
            vec![
                user("q"),
                call(&["a", "b"]),
                result("a"),
                assistant("x"),
                result("b"),
            ],
            "history[1].content[1].id",
        ),
    ];
    let turn = |history: Vec<Value>| Turn {
        history,
        ..Turn::default()
    };
    // attache's own shape is not a provider's request.
    let generic = build_request(Format::Generic, turn(cases[0].0.clone()));
    assert!(generic.is_ok());
    for format in [Format::OpenAiChat, Format::AnthropicMessages, Format::AiSdk] {
        assert!(build_request(format, turn(paired.clone())).is_ok());
        assert!(
            build_request(format, turn(split.clone())).is_ok(),
            "{format:?}"
        );
        // A system message between a call and its result: only Anthropic
        // and the AI SDK lift it out.
        let system = json!({"role": "system", "content": "s"});
        let between = vec![user("q"), call(&["a"]), system, result("a")];
        let lifted = build_request(format, turn(between)).is_ok();
        assert_eq!(lifted, format != Format::OpenAiChat, "{format:?}");
        for (history, path) in &cases {
            let error = build_request(format, turn(history.clone())).unwrap_err();
            assert_eq!(
                (error.code(), error.field()),
                ("INVALID_VALUE", Some(*path))
            );
            // It says what to do, as a compactor's author meets it first.
            let hint = if path.ends_with("callId") {
                "cut a history where"
            } else {
                "answer it, or cut"
            };
            assert!(error.to_string().contains(hint), "{error}");
        }
    }
}

#[test]
fn openai_gets_parallel_calls_stored_one_per_message_as_one_assistant_message() {
    let history = vec![
        user("q"),
        call(&["a"]),
        assistant("checking"),
        call(&["b"]),
        result("a"),
        result("b"),
        user("next"),
    ];
    let turn = Turn {
        history,
        ..Turn::default()
    };
    let request = build_request(Format::OpenAiChat, turn).unwrap();
    let messages = request["messages"].as_array().unwrap();
    // One field of each item of a list.
    let each = |list: &Value, field: &str| -> Vec<String> {
        let items = list.as_array().unwrap().iter();
        items
            .map(|item| item[field].as_str().unwrap().to_owned())
            .collect()
    };
    let roles = each(&request["messages"], "role");
    assert_eq!(roles, ["user", "assistant", "tool", "tool", "user"]);
    assert_eq!(each(&messages[1]["tool_calls"], "id"), ["a", "b"]);
    assert_eq!(messages[1]["content"], "checking");
    let turn = Turn {
        history: vec![
            user("q"),
            call(&["a"]),
            json!({"role": "system", "content": "lifted to instructions"}),
            call(&["b"]),
            result("a"),
            result("b"),
        ],
        ..Turn::default()
    };
    let request = build_request(Format::AiSdk, turn).unwrap();
    assert_eq!(request["instructions"], "lifted to instructions");
    let messages = request["messages"].as_array().unwrap();
    let kinds = each(&messages[1]["content"], "type");
    assert_eq!(
        (messages.len(), kinds),
        (4, vec!["tool-call".to_owned(), "tool-call".to_owned()])
    );
}

#[test]
fn deepseek_gets_its_reasoning_back_when_asked_and_no_one_else_does() {
    // DeepSeek's thinking mode answers 400 when a tool call's reasoning
    // is not sent back; Cerebras refuses the field: so only when asked.
    let call = |id: &str, thought: &str| {
        json!({"role": "assistant", "content": [
            {"type": "thinking", "thinking": thought},
            {"type": "tool_call", "id": id, "name": "w", "arguments": {}}]})
    };
    let result = |id: &str| json!({"role": "tool", "content": [{"type": "tool_result", "callId": id, "content": "ok"}]});
    let history = vec![
        user("q"),
        call("a", "look it up"),
        call("b", "and this"),
        result("a"),
        result("b"),
        json!({"role": "assistant", "content": [
            {"type": "thinking", "thinking": "so"}, {"type": "text", "text": "done"}]}),
    ];
    let request = |reasoning_content| {
        let turn = Turn {
            history: history.clone(),
            reasoning_content,
            ..Turn::default()
        };
        build_request(Format::OpenAiChat, turn).unwrap()
    };
    let sent = request(true);
    let messages = sent["messages"].as_array().unwrap();
    let reasoning: Vec<&Value> = messages.iter().map(|m| &m["reasoning_content"]).collect();
    // The two calls are one message, their thoughts joined.
    assert_eq!(
        reasoning,
        [
            &Value::Null,
            &json!("look it up\n\nand this"),
            &Value::Null,
            &Value::Null,
            &json!("so")
        ]
    );
    assert_eq!(messages[1]["tool_calls"].as_array().unwrap().len(), 2);
    let plain = request(false);
    assert!(!plain.to_json().contains("reasoning_content"), "{plain}");
    // The rest is as without it.
    let mut stripped = sent.clone();
    if let Value::Array(messages) = &mut stripped["messages"] {
        for m in messages {
            if let Value::Object(m) = m {
                m.remove("reasoning_content");
            }
        }
    }
    assert_eq!(stripped, plain);
}

#[test]
fn thinking_stored_alone_goes_back_with_the_calls_it_led_to() {
    // The Agents adapter stores a reasoning item as its own message: sent
    // alone, the message holding the calls had none, and DeepSeek 400s.
    let thinking = |text: &str| json!({"role": "assistant", "content": [{"type": "thinking", "thinking": text}]});
    let call = json!({"role": "assistant", "content": [{"type": "tool_call", "id": "a", "name": "w", "arguments": {}}]});
    let result = json!({"role": "tool", "content": [{"type": "tool_result", "callId": "a", "content": "ok"}]});
    let sent = |history: Vec<Value>| {
        let turn = Turn {
            history,
            reasoning_content: true,
            ..Turn::default()
        };
        let request = build_request(Format::OpenAiChat, turn).unwrap();
        let messages = request["messages"].as_array().unwrap().clone();
        let shape: Vec<String> = messages
            .iter()
            .map(|m| {
                let calls = m
                    .get("tool_calls")
                    .map_or(0, |c| c.as_array().unwrap().len());
                format!(
                    "{} {} {}",
                    m["role"].as_str().unwrap(),
                    calls,
                    m["reasoning_content"].as_str().unwrap_or("-")
                )
            })
            .collect();
        shape
    };
    assert_eq!(
        sent(vec![
            user("q"),
            thinking("A"),
            call.clone(),
            result.clone(),
            thinking("B"),
            assistant("done")
        ]),
        ["user 0 -", "assistant 1 A", "tool 0 -", "assistant 0 B"]
    );
    // After the calls, it joins them: their results still follow them.
    assert_eq!(
        sent(vec![user("q"), call.clone(), thinking("X"), result.clone()]),
        ["user 0 -", "assistant 1 X", "tool 0 -"]
    );
    // With no assistant message after it, it goes alone, where it was.
    assert_eq!(
        sent(vec![user("q"), thinking("T"), user("r")]),
        ["user 0 -", "assistant 0 T", "user 0 -"]
    );
    // Text, then the calls, each its own message (the Agents adapter's
    // message item and function call): one message, the thinking theirs.
    let turn = vec![
        user("q"),
        thinking("A"),
        assistant("Let me check."),
        call.clone(),
        result.clone(),
    ];
    assert_eq!(
        sent(turn.clone()),
        ["user 0 -", "assistant 1 A", "tool 0 -"]
    );
    let history = Turn {
        history: turn,
        reasoning_content: true,
        ..Turn::default()
    };
    let request = build_request(Format::OpenAiChat, history).unwrap();
    assert_eq!(request["messages"][1]["content"], "Let me check.");
    // Text after text stays its own message: no calls follow it.
    assert_eq!(
        sent(vec![user("q"), assistant("a"), assistant("b")]),
        ["user 0 -", "assistant 0 -", "assistant 0 -"]
    );
}

/// Blank replies dropped and system text lifted out may leave no message,
/// which every provider refuses: refused here, naming the history.
#[test]
fn a_request_with_no_message_left_is_refused() {
    let blank = Turn {
        system: Some("Be brief.".into()),
        history: vec![assistant("")],
        ..Turn::default()
    };
    let error = build_request(Format::AnthropicMessages, blank.clone()).unwrap_err();
    assert_eq!(
        (error.code(), error.field()),
        ("INVALID_VALUE", Some("history"))
    );
    let none = Turn::default();
    for format in [Format::OpenAiChat, Format::AnthropicMessages] {
        assert!(build_request(format, none.clone()).is_err());
    }
    // The neutral list may be empty, and the AI SDK's (its `prompt` takes
    // the place of `messages`); OpenAI keeps a system message.
    for format in [Format::Generic, Format::AiSdk] {
        assert!(build_request(format, none.clone()).is_ok());
    }
    assert!(build_request(Format::AiSdk, blank.clone()).is_ok());
    assert!(build_request(Format::OpenAiChat, blank).is_ok());
}
