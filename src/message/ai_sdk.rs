//! The Vercel AI SDK's `ModelMessage`. A thinking part's signature rides in
//! `providerOptions.anthropic.signature`, and the cache breakpoint in
//! `providerOptions.anthropic.cacheControl`. A tool result's `json` output
//! is kept as its JSON text.

use super::{texts, Fields, Image, Message, Part, Role, Sourced};
use crate::json;
use crate::json::{Map, Value};
use crate::Error;

fn wrong(path: String, reason: &str) -> Error {
    Error::InvalidValue {
        path,
        reason: reason.to_owned(),
    }
}

fn anthropic_option(name: &str, value: Value) -> Value {
    json!({"anthropic": (Value::Object(Map::from_iter([(name.to_owned(), value)])))})
}

/// An image as the AI SDK's `image`: a URL string, or base64 with its type.
fn image_part(image: &Image) -> Value {
    match image {
        Image::Url(url) => json!({"type": "image", "image": url}),
        Image::Base64 { media_type, data } => {
            json!({"type": "image", "image": data, "mediaType": media_type})
        }
    }
}

fn output(content: &[Part], is_error: bool, path: &str) -> Result<Value, Error> {
    if matches!(content, [Part::Text(_)] | []) {
        let value = text_of(content);
        return Ok(json!({"type": (if is_error { "error-text" } else { "text" }), "value": value}));
    }
    if is_error {
        return Err(wrong(
            format!("{path}.isError"),
            "the AI SDK has no error output with images",
        ));
    }
    let value = content
        .iter()
        .enumerate()
        .map(|(i, part)| match part {
            // The SDK wants a URL object there, which JSON cannot carry.
            Part::Image(Image::Url(_)) => Err(wrong(
                format!("{path}.content[{i}]"),
                "the AI SDK takes a tool result's image as data, not a URL",
            )),
            Part::Image(Image::Base64 { media_type, data }) => Ok(
                json!({"type": "file", "data": {"type": "data", "data": data}, "mediaType": media_type}),
            ),
            other => Ok(json!({"type": "text", "text": (texts(std::slice::from_ref(other)))})),
        })
        .collect::<Result<_, _>>()?;
    Ok(json!({"type": "content", "value": (Value::Array(value))}))
}

fn text_of(parts: &[Part]) -> &str {
    match parts {
        [Part::Text(text)] => text,
        _ => "",
    }
}

/// `cache_control`, if given, goes on the last part of message `pinned_at`.
pub fn to_ai_sdk(
    messages: &[Sourced],
    pinned_at: Option<usize>,
    cache_control: Option<&Value>,
) -> Result<Vec<Value>, Error> {
    let mut names: Vec<(&str, &str)> = Vec::new();
    let mut out = Vec::new();
    for (index, (path, message)) in messages.iter().enumerate() {
        let role = message.role.as_str();
        if message.role == Role::System {
            out.push(json!({"role": role, "content": (message.text())}));
            continue;
        }
        let mut parts = Vec::new();
        for (i, part) in message.parts.iter().enumerate() {
            let at = format!("{path}.content[{i}]");
            parts.push(match part {
                Part::Text(text) => json!({"type": "text", "text": text}),
                Part::Image(image) => image_part(image),
                Part::Thinking { thinking, signature } => {
                    let mut reasoning = json!({"type": "reasoning", "text": thinking});
                    if let Some(signature) = signature {
                        reasoning["providerOptions"] = anthropic_option("signature", signature.as_str().into());
                    }
                    reasoning
                }
                Part::ToolCall { id, name, arguments } => {
                    names.push((id, name));
                    json!({"type": "tool-call", "toolCallId": id, "toolName": name, "input": arguments})
                }
                Part::ToolResult { call_id, content, is_error } => {
                    let name = names
                        .iter()
                        .rev()
                        .find(|(id, _)| id == call_id)
                        .map(|(_, name)| *name)
                        .ok_or_else(|| wrong(format!("{at}.callId"), "matches no earlier tool call, so its tool name is unknown"))?;
                    json!({"type": "tool-result", "toolCallId": call_id, "toolName": name,
                        "output": (output(content, *is_error, &at)?)})
                }
            });
        }
        if let (Some(marker), Some(last)) = (
            cache_control.filter(|_| pinned_at == Some(index)),
            parts.last_mut(),
        ) {
            last["providerOptions"] = anthropic_option("cacheControl", marker.clone());
        }
        out.push(json!({"role": role, "content": (Value::Array(parts))}));
    }
    Ok(out)
}

/// `ModelMessage`s, or one. Images must be strings: a URL, or base64 with
/// `mediaType`.
pub fn from_ai_sdk(input: &Value, path: &str) -> Result<Vec<Message>, Error> {
    match input {
        Value::Array(items) => items
            .iter()
            .enumerate()
            .map(|(i, item)| message(item, &format!("{path}[{i}]")))
            .collect(),
        _ => Ok(vec![message(input, path)?]),
    }
}

fn message(value: &Value, path: &str) -> Result<Message, Error> {
    let message = Fields::of(value, path, "must be a ModelMessage: {role, content}")?;
    message.only(&["role", "content", "providerOptions"])?;
    let role = message.str("role")?;
    let role = Role::parse(role).ok_or_else(|| {
        message.wrong(
            "role",
            "must be \"system\", \"user\", \"assistant\" or \"tool\"",
        )
    })?;
    let parts = match message.any("content")? {
        Value::String(text) if role != Role::Tool => vec![Part::Text(text.clone())],
        Value::Array(items) if role != Role::System => items
            .iter()
            .enumerate()
            .map(|(i, item)| part(item, &message.path(&format!("content[{i}]")), role))
            .collect::<Result<_, _>>()?,
        _ => return Err(message.wrong("content", "is not this role's content")),
    };
    Ok(Message::new(role, parts))
}

fn part(value: &Value, path: &str, role: Role) -> Result<Part, Error> {
    let part = Fields::of(value, path, "must be a content part")?;
    let kind = part.str("type")?;
    let allowed: Option<&[&str]> = match (kind, role) {
        ("text", Role::User | Role::Assistant) => Some(&["type", "text", "providerOptions"]),
        ("image", Role::User) => Some(&["type", "image", "mediaType", "providerOptions"]),
        ("reasoning", Role::Assistant) => Some(&["type", "text", "providerOptions"]),
        ("tool-call", Role::Assistant) => {
            Some(&["type", "toolCallId", "toolName", "input", "providerOptions"])
        }
        ("tool-result", Role::Tool) => Some(&[
            "type",
            "toolCallId",
            "toolName",
            "output",
            "providerOptions",
        ]),
        _ => None,
    };
    let allowed =
        allowed.ok_or_else(|| part.wrong("type", "is not a part attache converts here"))?;
    part.only(allowed)?;
    Ok(match kind {
        "text" => Part::Text(part.string("text")?),
        "image" => {
            let image = part.str("image")?;
            Part::Image(match part.opt_string("mediaType")? {
                Some(media_type) if !image.contains(':') => Image::Base64 {
                    media_type,
                    data: image.to_owned(),
                },
                _ if image.contains(':') => super::image_from_url(image),
                _ => return Err(part.wrong("mediaType", "is needed for base64 image data")),
            })
        }
        "reasoning" => {
            let signature = part
                .get("providerOptions")
                .and_then(|options| options.get("anthropic"))
                .and_then(|anthropic| anthropic.get("signature"))
                .and_then(Value::as_str);
            Part::Thinking {
                thinking: part.string("text")?,
                signature: signature.map(str::to_owned),
            }
        }
        "tool-call" => Part::ToolCall {
            id: part.string("toolCallId")?,
            name: part.string("toolName")?,
            arguments: part.any("input")?.clone(),
        },
        _ => {
            part.str("toolName")?;
            let (content, is_error) = tool_output(part.any("output")?, &part.path("output"))?;
            Part::ToolResult {
                call_id: part.string("toolCallId")?,
                content,
                is_error,
            }
        }
    })
}

fn tool_output(value: &Value, path: &str) -> Result<(Vec<Part>, bool), Error> {
    let output = Fields::of(value, path, "must be a tool result output")?;
    output.only(&["type", "value", "providerOptions"])?;
    let kind = output.str("type")?;
    let is_error = kind.starts_with("error-");
    Ok(match kind {
        "text" | "error-text" => (vec![Part::Text(output.string("value")?)], is_error),
        "json" | "error-json" => (vec![Part::Text(output.any("value")?.to_json())], is_error),
        "content" => {
            let items = output.list("value")?;
            let parts = items
                .iter()
                .enumerate()
                .map(|(i, item)| content_item(item, &format!("{path}.value[{i}]")))
                .collect::<Result<_, _>>()?;
            (parts, false)
        }
        _ => return Err(output.wrong("type", "is not an output attache converts")),
    })
}

fn content_item(value: &Value, path: &str) -> Result<Part, Error> {
    let item = Fields::of(value, path, "must be a content item")?;
    match item.str("type")? {
        "text" => {
            item.only(&["type", "text", "providerOptions"])?;
            Ok(Part::Text(item.string("text")?))
        }
        "file" => {
            item.only(&["type", "data", "mediaType", "providerOptions"])?;
            let media_type = item.string("mediaType")?;
            let at = item.path("data");
            let data = Fields::of(item.any("data")?, &at, "must be an object")?;
            match data.str("type")? {
                "url" => Ok(Part::Image(Image::Url(data.string("url")?))),
                "data" if media_type.starts_with("image/") => Ok(Part::Image(Image::Base64 {
                    media_type,
                    data: data.string("data")?,
                })),
                _ => Err(data.wrong("type", "only images, as a URL or base64 data, convert")),
            }
        }
        _ => Err(item.wrong("type", "must be \"text\" or \"file\"")),
    }
}
