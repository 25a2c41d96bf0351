//! OpenAI Chat Completions. Thinking parts are not sent (Chat Completions
//! takes none back), and a tool result's `isError` has no field there: its
//! text carries the error.

use super::{image_from_url, image_url, Fields, Message, Part, Role, Sourced};
use crate::json;
use crate::json::{Map, Value};
use crate::Error;

fn text_part(text: &str) -> Value {
    json!({"type": "text", "text": text})
}

/// A string when it is one text part, else an array of parts.
fn content(parts: Vec<Value>) -> Value {
    match parts.as_slice() {
        [part] if part["type"] == "text" => part["text"].clone(),
        _ => Value::Array(parts),
    }
}

pub fn to_openai(messages: &[Sourced]) -> Result<Vec<Value>, Error> {
    let mut out = Vec::new();
    for (path, message) in messages {
        let role = message.role.as_str();
        match message.role {
            Role::Tool => {
                for (i, part) in message.parts.iter().enumerate() {
                    let Part::ToolResult {
                        call_id,
                        content: parts,
                        ..
                    } = part
                    else {
                        continue;
                    };
                    let mut texts = Vec::new();
                    for (j, part) in parts.iter().enumerate() {
                        match part {
                            Part::Text(text) => texts.push(text_part(text)),
                            _ => {
                                return Err(Error::InvalidValue {
                                    path: format!("{path}.content[{i}].content[{j}]"),
                                    reason: "OpenAI tool results carry text only".to_owned(),
                                })
                            }
                        }
                    }
                    let content = if texts.is_empty() {
                        Value::from("")
                    } else {
                        content(texts)
                    };
                    out.push(json!({"role": "tool", "tool_call_id": call_id, "content": content}));
                }
            }
            Role::Assistant => {
                let text: Vec<Value> = message
                    .parts
                    .iter()
                    .filter_map(|p| match p {
                        Part::Text(text) => Some(text_part(text)),
                        _ => None,
                    })
                    .collect();
                let calls: Vec<Value> = message
                    .parts
                    .iter()
                    .filter_map(|p| match p {
                        Part::ToolCall {
                            id,
                            name,
                            arguments,
                        } => Some(json!({
                            "id": id, "type": "function",
                            "function": {"name": name, "arguments": (arguments.to_json())},
                        })),
                        _ => None,
                    })
                    .collect();
                let mut turn = Map::new();
                turn.push_field("role".into(), role.into());
                let content = match text.is_empty() {
                    true if calls.is_empty() => Value::from(""),
                    true => Value::Null,
                    false => content(text),
                };
                turn.push_field("content".into(), content);
                if !calls.is_empty() {
                    turn.push_field("tool_calls".into(), Value::Array(calls));
                }
                out.push(Value::Object(turn));
            }
            Role::System | Role::User => {
                let parts = message
                    .parts
                    .iter()
                    .filter_map(|part| match part {
                        Part::Text(text) => Some(text_part(text)),
                        Part::Image(image) => Some(json!({
                            "type": "image_url", "image_url": {"url": (image_url(image))},
                        })),
                        _ => None,
                    })
                    .collect();
                out.push(json!({"role": role, "content": (content(parts))}));
            }
        }
    }
    Ok(out)
}

/// Chat Completions messages, one message, or a response (its
/// `choices[0].message`). A refusal is kept as text; `developer` is read
/// as `system`.
pub fn from_openai(input: &Value, path: &str) -> Result<Vec<Message>, Error> {
    if let Value::Array(items) = input {
        return items
            .iter()
            .enumerate()
            .map(|(i, item)| message(item, &format!("{path}[{i}]")))
            .collect();
    }
    let object = Fields::of(input, path, "must be messages, a message or a response")?;
    if object.get("choices").is_some() {
        let at = format!("{path}.choices[0].message");
        let first = object.list("choices")?.first();
        let reply = first.and_then(|choice| choice.get("message"));
        return Ok(vec![message(reply.unwrap_or(&Value::Null), &at)?]);
    }
    Ok(vec![message(input, path)?])
}

fn message(value: &Value, path: &str) -> Result<Message, Error> {
    let message = Fields::of(value, path, "must be a Chat Completions message")?;
    let role = message.str("role")?;
    let text_parts = |name: &str| -> Result<Vec<Part>, Error> {
        match message.get(name) {
            None | Some(Value::Null) => Ok(Vec::new()),
            Some(Value::String(text)) => Ok(vec![Part::Text(text.clone())]),
            Some(Value::Array(items)) => items
                .iter()
                .enumerate()
                .map(|(i, item)| part(item, &message.path(&format!("{name}[{i}]")), role))
                .collect(),
            Some(_) => Err(message.wrong(name, "must be a string or an array of parts")),
        }
    };
    Ok(match role {
        "system" | "developer" => {
            message.only(&["role", "content"])?;
            Message::new(Role::System, text_parts("content")?)
        }
        "user" => {
            message.only(&["role", "content"])?;
            Message::new(Role::User, text_parts("content")?)
        }
        "assistant" => {
            message.only(&[
                "role",
                "content",
                "refusal",
                "tool_calls",
                "annotations",
                "audio",
                "function_call",
            ])?;
            message.absent(&["audio", "function_call"], "is not converted")?;
            if !message.list("annotations")?.is_empty() {
                return Err(message.wrong("annotations", "is not converted"));
            }
            let mut parts = text_parts("content")?;
            if let Some(refusal) = message.opt_string("refusal")? {
                parts.push(Part::Text(refusal));
            }
            for (i, call) in message.list("tool_calls")?.iter().enumerate() {
                parts.push(tool_call(call, &message.path(&format!("tool_calls[{i}]")))?);
            }
            Message::new(Role::Assistant, parts)
        }
        "tool" => {
            message.only(&["role", "content", "tool_call_id"])?;
            Message::new(
                Role::Tool,
                vec![Part::ToolResult {
                    call_id: message.string("tool_call_id")?,
                    content: text_parts("content")?,
                    is_error: false,
                }],
            )
        }
        _ => {
            return Err(message.wrong(
                "role",
                "must be \"system\", \"developer\", \"user\", \"assistant\" or \"tool\"",
            ))
        }
    })
}

fn part(value: &Value, path: &str, role: &str) -> Result<Part, Error> {
    let part = Fields::of(value, path, "must be a content part")?;
    match part.str("type")? {
        "text" => {
            part.only(&["type", "text"])?;
            Ok(Part::Text(part.string("text")?))
        }
        "refusal" if role == "assistant" => {
            part.only(&["type", "refusal"])?;
            Ok(Part::Text(part.string("refusal")?))
        }
        "image_url" if role == "user" => {
            part.only(&["type", "image_url"])?;
            let image = Fields::of(
                part.any("image_url")?,
                &part.path("image_url"),
                "must be an object",
            )?;
            image.only(&["url", "detail"])?;
            if image.get("detail").is_some_and(|d| *d != "auto") {
                return Err(image.wrong("detail", "only \"auto\" converts"));
            }
            Ok(Part::Image(image_from_url(image.str("url")?)))
        }
        _ => Err(part.wrong("type", "is not a part attache converts")),
    }
}

fn tool_call(value: &Value, path: &str) -> Result<Part, Error> {
    let call = Fields::of(value, path, "must be a tool call")?;
    call.only(&["id", "type", "function"])?;
    if call.str("type")? != "function" {
        return Err(call.wrong("type", "only function tool calls convert"));
    }
    let function = Fields::of(
        call.any("function")?,
        &call.path("function"),
        "must be an object",
    )?;
    function.only(&["name", "arguments"])?;
    let arguments = json::parse(function.str("arguments")?)
        .map_err(|_| function.wrong("arguments", "is not JSON"))?;
    Ok(Part::ToolCall {
        id: call.string("id")?,
        name: function.string("name")?,
        arguments,
    })
}
