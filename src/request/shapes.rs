//! Provider shapes. Parts attache does not know (a provider's own image
//! block, say) pass through unchanged.

use crate::json;
use crate::json::{Map, Value};

fn parts(message: &Value) -> Vec<Value> {
    match &message["content"] {
        Value::String(text) => vec![json!({"type": "text", "text": text})],
        Value::Array(parts) => parts.clone(),
        _ => Vec::new(),
    }
}

fn text_of(parts: &[Value]) -> String {
    parts
        .iter()
        .filter(|p| p["type"] == "text")
        .filter_map(|p| p["text"].as_str())
        .collect()
}

fn result_text(part: &Value) -> Value {
    match part.get("content").or_else(|| part.get("output")) {
        Some(Value::Array(items)) => Value::String(text_of(items)),
        Some(other) => other.clone(),
        None => Value::String(String::new()),
    }
}

fn call_id(part: &Value) -> Value {
    part.get("id")
        .or_else(|| part.get("tool_call_id"))
        .or_else(|| part.get("tool_use_id"))
        .cloned()
        .unwrap_or(Value::Null)
}

/// OpenAI Chat Completions: system text as a string, tool calls in
/// `tool_calls`, tool results as `tool` messages.
pub fn openai(messages: &[Value]) -> Vec<Value> {
    let mut out = Vec::new();
    for message in messages {
        let role = message["role"].as_str().unwrap_or("user");
        let parts = parts(message);
        match role {
            "system" => out.push(json!({"role": "system", "content": text_of(&parts)})),
            "assistant" => {
                let calls: Vec<Value> = parts
                    .iter()
                    .filter(|p| p["type"] == "tool_call" || p["type"] == "tool_use")
                    .map(|p| json!({"id": call_id(p), "type": "function", "function": {
                        "name": p["name"], "arguments": p.get("input").or_else(|| p.get("arguments")).map_or("{}".to_owned(), Value::to_string),
                    }}))
                    .collect();
                let text = text_of(&parts);
                let mut turn = json!({"role": "assistant", "content": if text.is_empty() && !calls.is_empty() { Value::Null } else { Value::String(text) }});
                if !calls.is_empty() {
                    turn["tool_calls"] = Value::Array(calls);
                }
                out.push(turn);
            }
            _ => {
                let (results, content): (Vec<Value>, Vec<Value>) =
                    parts.into_iter().partition(|p| p["type"] == "tool_result");
                for result in &results {
                    out.push(json!({"role": "tool", "tool_call_id": call_id(result), "content": result_text(result)}));
                }
                if !content.is_empty() || results.is_empty() {
                    let content = match &message["content"] {
                        Value::String(text) => Value::String(text.clone()),
                        _ => Value::Array(content),
                    };
                    out.push(json!({"role": role, "content": content}));
                }
            }
        }
    }
    out
}

fn anthropic_block(part: &Value) -> Value {
    match part["type"].as_str() {
        Some("tool_call") => {
            json!({"type": "tool_use", "id": call_id(part), "name": part["name"], "input": part.get("input").cloned().unwrap_or_else(|| json!({}))})
        }
        Some("tool_result") => {
            json!({"type": "tool_result", "tool_use_id": call_id(part), "content": result_text(part)})
        }
        _ => part.clone(),
    }
}

fn all_text(blocks: &[Value]) -> bool {
    blocks.iter().all(|b| b["type"] == "text")
}

/// Anthropic Messages: system text in the top-level `system`, adjacent
/// all-text user messages coalesced (roles must alternate), and an optional
/// `cache_control` on the last block of the pinned prefix.
pub fn anthropic(
    messages: &[Value],
    pinned_at: Option<usize>,
    cache_control: Option<Value>,
) -> Value {
    let mut system = Vec::new();
    let mut out: Vec<(String, Vec<Value>)> = Vec::new();
    for (index, message) in messages.iter().enumerate() {
        let role = message["role"].as_str().unwrap_or("user");
        let mut blocks: Vec<Value> = parts(message).iter().map(anthropic_block).collect();
        if role == "system" {
            system.push(text_of(&blocks));
            continue;
        }
        // Only a block object can carry the marker: a part the host wrote
        // as a bare string is sent as it is, never replaced.
        if let (Some(marker), Some(last @ Value::Object(_))) = (
            cache_control.as_ref().filter(|_| pinned_at == Some(index)),
            blocks.last_mut(),
        ) {
            last["cache_control"] = marker.clone();
        }
        match out.last_mut() {
            Some((last_role, last_blocks))
                if role == "user"
                    && last_role == "user"
                    && all_text(last_blocks)
                    && all_text(&blocks) =>
            {
                last_blocks.extend(blocks);
            }
            _ => out.push((role.to_owned(), blocks)),
        }
    }
    let mut request = Map::new();
    if !system.is_empty() {
        request.insert("system".to_owned(), Value::String(system.join("\n\n")));
    }
    let messages = out
        .into_iter()
        .map(|(role, content)| json!({"role": role, "content": content}))
        .collect();
    request.insert("messages".to_owned(), Value::Array(messages));
    Value::Object(request)
}
