//! Anthropic Messages. System text goes to the top-level `system`; tool
//! results ride in the user turn, so a tool message and the user message
//! after it become one turn, and are split again on the way back.

use super::{Fields, Image, Message, Part, Role, Sourced};
use crate::json;
use crate::json::{Map, Value};
use crate::Error;

const MEDIA_TYPES: [&str; 4] = ["image/jpeg", "image/png", "image/gif", "image/webp"];

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Join {
    /// Tool results: more results or the user's next message join.
    Results,
    /// All text: another all-text user message joins.
    Text,
    Nothing,
}

fn wrong(path: String, reason: &str) -> Error {
    Error::InvalidValue {
        path,
        reason: reason.to_owned(),
    }
}

fn block(part: &Part, path: &str) -> Result<Value, Error> {
    Ok(match part {
        Part::Text(text) => json!({"type": "text", "text": text}),
        Part::Image(Image::Url(url)) => {
            json!({"type": "image", "source": {"type": "url", "url": url}})
        }
        Part::Image(Image::Base64 { media_type, data }) => {
            if !MEDIA_TYPES.contains(&media_type.as_str()) {
                return Err(wrong(
                    format!("{path}.mediaType"),
                    "Anthropic takes image/jpeg, image/png, image/gif or image/webp",
                ));
            }
            json!({"type": "image", "source": {"type": "base64", "media_type": media_type, "data": data}})
        }
        Part::ToolCall {
            id,
            name,
            arguments,
        } => {
            if !arguments.is_object() {
                return Err(wrong(
                    format!("{path}.arguments"),
                    "Anthropic takes an object as tool input",
                ));
            }
            json!({"type": "tool_use", "id": id, "name": name, "input": arguments})
        }
        Part::ToolResult {
            call_id,
            content,
            is_error,
        } => {
            let mut result = Map::new();
            result.push_field("type".into(), "tool_result".into());
            result.push_field("tool_use_id".into(), call_id.as_str().into());
            let blocks = content
                .iter()
                .enumerate()
                .map(|(i, part)| block(part, &format!("{path}.content[{i}]")))
                .collect::<Result<Vec<_>, _>>()?;
            match blocks.as_slice() {
                [] => {}
                [only] if only["type"] == "text" => {
                    result.push_field("content".into(), only["text"].clone())
                }
                _ => result.push_field("content".into(), Value::Array(blocks)),
            }
            if *is_error {
                result.push_field("is_error".into(), Value::Bool(true));
            }
            Value::Object(result)
        }
        Part::Thinking {
            thinking,
            signature,
        } => {
            let signature = signature.as_ref().ok_or_else(|| {
                wrong(
                    format!("{path}.signature"),
                    "Anthropic needs a thinking part's signature",
                )
            })?;
            json!({"type": "thinking", "thinking": thinking, "signature": signature})
        }
    })
}

/// `{system?, messages}`. `cache_control`, if given, goes on the last block
/// of message `pinned_at`.
pub fn to_anthropic(
    messages: &[Sourced],
    pinned_at: Option<usize>,
    cache_control: Option<&Value>,
) -> Result<Value, Error> {
    let mut system = Vec::new();
    // Each turn: its role, its blocks, and what may still join it.
    let mut turns: Vec<(&str, Vec<Value>, Join)> = Vec::new();
    for (index, (path, message)) in messages.iter().enumerate() {
        if message.role == Role::System {
            system.push(message.text());
            continue;
        }
        let mut blocks = message
            .parts
            .iter()
            .enumerate()
            .map(|(i, part)| block(part, &format!("{path}.content[{i}]")))
            .collect::<Result<Vec<_>, _>>()?;
        if let (Some(marker), Some(Value::Object(last))) = (
            cache_control.filter(|_| pinned_at == Some(index)),
            blocks.last_mut(),
        ) {
            last.insert("cache_control".into(), marker.clone());
        }
        let all_text = blocks.iter().all(|b| b["type"] == "text");
        let text = if all_text { Join::Text } else { Join::Nothing };
        let (role, opens) = match message.role {
            Role::Assistant => ("assistant", Join::Nothing),
            Role::Tool => ("user", Join::Results),
            _ => ("user", text),
        };
        // Tool results, then what the user says next, are one user turn;
        // so are adjacent all-text user messages (the pinned prefix, then
        // the first user message, say).
        let joined = match turns.last_mut() {
            Some(("user", last, open)) if role == "user" => match (*open, message.role) {
                (Join::Results, Role::Tool) => Some((last, Join::Results)),
                (Join::Results, _) => Some((last, text)),
                (Join::Text, Role::User) if all_text => Some((last, Join::Text)),
                _ => None,
            }
            .map(|(last, next)| {
                last.extend(std::mem::take(&mut blocks));
                *open = next;
            }),
            _ => None,
        };
        if joined.is_none() {
            turns.push((role, blocks, opens));
        }
    }
    let mut request = Map::new();
    if !system.is_empty() {
        request.push_field("system".into(), system.join("\n\n").into());
    }
    let messages = turns
        .into_iter()
        .map(|(role, blocks, _)| json!({"role": role, "content": (Value::Array(blocks))}))
        .collect();
    request.push_field("messages".into(), Value::Array(messages));
    Ok(Value::Object(request))
}

/// Messages, one message, `{system?, messages}` (a request), or a response
/// (`{type: "message", content}`). A user turn holding tool results splits
/// into a tool message and, if more follows, a user message.
pub fn from_anthropic(input: &Value, path: &str) -> Result<Vec<Message>, Error> {
    let mut out = Vec::new();
    match input {
        Value::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                message(item, &format!("{path}[{i}]"), &mut out)?;
            }
        }
        _ => {
            let object = Fields::of(
                input,
                path,
                "must be messages, a message, a request or a response",
            )?;
            if object.get("type").is_some_and(|t| *t == "message") {
                let content = blocks(object.any("content")?, &object.path("content"), "assistant")?;
                out.push(Message::new(Role::Assistant, content));
            } else if object.get("messages").is_some() {
                if let Some(system) = object.get("system") {
                    let parts = blocks(system, &object.path("system"), "system")?;
                    out.push(Message::new(Role::System, parts));
                }
                let at = object.path("messages");
                for (i, item) in object.list("messages")?.iter().enumerate() {
                    message(item, &format!("{at}[{i}]"), &mut out)?;
                }
            } else {
                message(input, path, &mut out)?;
            }
        }
    }
    Ok(out)
}

fn message(value: &Value, path: &str, out: &mut Vec<Message>) -> Result<(), Error> {
    let message = Fields::of(value, path, "must be an Anthropic message: {role, content}")?;
    message.only(&["role", "content"])?;
    let role = message.str("role")?;
    let parts = blocks(message.any("content")?, &message.path("content"), role)?;
    let role = match role {
        "user" => Role::User,
        "assistant" => Role::Assistant,
        "system" => Role::System,
        _ => return Err(message.wrong("role", "must be \"user\", \"assistant\" or \"system\"")),
    };
    if role != Role::User {
        out.push(Message::new(role, parts));
        return Ok(());
    }
    // Runs of tool results become tool messages; the rest, user messages.
    let mut run: Vec<Part> = Vec::new();
    for part in parts {
        let is_result = matches!(part, Part::ToolResult { .. });
        if run
            .first()
            .is_some_and(|first| matches!(first, Part::ToolResult { .. }) != is_result)
        {
            out.push(run_message(std::mem::take(&mut run)));
        }
        run.push(part);
    }
    if !run.is_empty() || out.is_empty() {
        out.push(run_message(run));
    }
    Ok(())
}

fn run_message(parts: Vec<Part>) -> Message {
    let role = match parts.first() {
        Some(Part::ToolResult { .. }) => Role::Tool,
        _ => Role::User,
    };
    Message::new(role, parts)
}

/// `content`: a string or an array of blocks.
fn blocks(content: &Value, path: &str, role: &str) -> Result<Vec<Part>, Error> {
    match content {
        Value::String(text) => Ok(vec![Part::Text(text.clone())]),
        Value::Array(items) => items
            .iter()
            .enumerate()
            .map(|(i, item)| part(item, &format!("{path}[{i}]"), role))
            .collect(),
        _ => Err(wrong(
            path.to_owned(),
            "must be a string or an array of blocks",
        )),
    }
}

fn part(value: &Value, path: &str, role: &str) -> Result<Part, Error> {
    let block = Fields::of(value, path, "must be a content block")?;
    let kind = block.str("type")?;
    // `cache_control` is a request's caching hint, not content.
    let allowed: Option<&[&str]> = match (kind, role) {
        ("text", _) => Some(&["type", "text", "cache_control", "citations"]),
        ("image", "user" | "tool") => Some(&["type", "source", "cache_control"]),
        ("tool_use", "assistant") => Some(&["type", "id", "name", "input", "cache_control"]),
        ("thinking", "assistant") => Some(&["type", "thinking", "signature"]),
        ("tool_result", "user") => Some(&[
            "type",
            "tool_use_id",
            "content",
            "is_error",
            "cache_control",
        ]),
        _ => None,
    };
    let allowed =
        allowed.ok_or_else(|| block.wrong("type", "is not a block attache converts here"))?;
    block.only(allowed)?;
    Ok(match kind {
        "text" => {
            if !block.list("citations")?.is_empty() {
                return Err(block.wrong("citations", "is not converted"));
            }
            Part::Text(block.string("text")?)
        }
        "image" => {
            let source = Fields::of(
                block.any("source")?,
                &block.path("source"),
                "must be an object",
            )?;
            Part::Image(match source.str("type")? {
                "url" => {
                    source.only(&["type", "url"])?;
                    Image::Url(source.string("url")?)
                }
                "base64" => {
                    source.only(&["type", "media_type", "data"])?;
                    Image::Base64 {
                        media_type: source.string("media_type")?,
                        data: source.string("data")?,
                    }
                }
                _ => return Err(source.wrong("type", "must be \"url\" or \"base64\"")),
            })
        }
        "tool_use" => Part::ToolCall {
            id: block.string("id")?,
            name: block.string("name")?,
            arguments: block.any("input")?.clone(),
        },
        "thinking" => Part::Thinking {
            thinking: block.string("thinking")?,
            signature: Some(block.string("signature")?),
        },
        _ => Part::ToolResult {
            call_id: block.string("tool_use_id")?,
            content: match block.get("content") {
                None => Vec::new(),
                Some(content) => blocks(content, &block.path("content"), "tool")?,
            },
            is_error: block.opt_bool("is_error")?.unwrap_or(false),
        },
    })
}
