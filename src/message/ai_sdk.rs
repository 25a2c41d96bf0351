//! The Vercel AI SDK's `ModelMessage`. A thinking part's signature rides in
//! `providerOptions.anthropic.signature`, and the cache breakpoint in
//! `providerOptions.anthropic.cacheControl`. A tool result's `json` output
//! is kept as its JSON text. Images go as `file` parts (AI SDK 7 deprecates
//! `image` parts); both come in.

use super::{image_from_url, object, At, Fields, Image, Message, Part, Role, Sourced, NO_OUTPUT};
use crate::json::Value;
use crate::Error;

fn anthropic_option(name: &str, value: Value) -> Value {
    object([("anthropic", object([(name, value)]))])
}

fn output(content: &[Part], is_error: bool, at: At) -> Result<Value, Error> {
    let kind = if is_error { "error-text" } else { "text" };
    // Blank texts are dropped from an error (the SDK's providers send its
    // text as it is, and Anthropic refuses it empty) and beside another
    // part (Anthropic refuses a blank block). A success of nothing else
    // goes as its text: the output needs a value, and the provider is
    // unknown here (see the README).
    let kept: Vec<(usize, &Part)> = content
        .iter()
        .enumerate()
        .filter(|(_, p)| !((is_error || content.len() > 1) && super::blank(p)))
        .collect();
    let text = match kept[..] {
        [] if is_error => Some(NO_OUTPUT),
        [] => Some(""),
        [(_, Part::Text(text))] => Some(text.as_str()),
        _ => None,
    };
    if let Some(text) = text {
        return Ok(object([("type", kind.into()), ("value", text.into())]));
    }
    if is_error {
        super::error_images(content, true, at.field("isError"))?;
        // Joined, the texts' boundaries would be lost unseen.
        return Err(at
            .field("isError")
            .wrong("the AI SDK's error output is one text"));
    }
    let mut value = Vec::new();
    for (j, part) in kept {
        if let Part::Image(image) = part {
            super::url_sent(image, at.field("content").index(j), true)?;
        }
        value.push(match part {
            Part::Text(text) => object([("type", "text".into()), ("text", text.as_str().into())]),
            Part::Image(Image::Base64 { media_type, data }) if super::named_type(media_type) => {
                object([
                    ("type", "file".into()),
                    (
                        "data",
                        object([("type", "data".into()), ("data", data.as_str().into())]),
                    ),
                    ("mediaType", media_type.to_ascii_lowercase().into()),
                ])
            }
            // Its `file` shape wants a URL object, which JSON cannot carry;
            // this older one, which it still takes, a string. Base64 whose
            // type names none (`image`) as its data: URL, as a message's
            // goes: `fromAiSdk` refuses base64 that names no type.
            Part::Image(image) => object([
                ("type", "image-url".into()),
                ("url", super::image_url(image).into()),
            ]),
            // None: a tool result holds text and images only.
            _ => continue,
        });
    }
    Ok(object([
        ("type", "content".into()),
        ("value", Value::Array(value)),
    ]))
}

/// `cache_control`, if given, goes on the last two parts of message
/// `pinned_at` that are not blank.
pub fn to_ai_sdk(
    messages: &[Sourced],
    pinned_at: Option<usize>,
    cache_control: Option<&Value>,
) -> Result<Value, Error> {
    let mut names: Vec<(&str, &str)> = Vec::new();
    let mut out = Vec::new();
    for (index, (at, message)) in messages.iter().enumerate() {
        let role = Value::from(message.role.as_str());
        if message.role == Role::System {
            // A system message's content is one string: one message per
            // text, so none is merged into another.
            let before = out.len();
            for part in &message.parts {
                if let Part::Text(text) = part {
                    out.push(object([
                        ("role", role.clone()),
                        ("content", text.as_str().into()),
                    ]));
                }
            }
            if out.len() == before {
                out.push(object([("role", role), ("content", "".into())]));
            }
            continue;
        }
        let content_at = at.field("content");
        let mut parts = Vec::new();
        // Blank text beside other parts carries nothing, and Anthropic
        // refuses it (Claude's `\n\n` before a tool call).
        let all_blank = message.parts.iter().all(super::blank);
        // An assistant message of blank text alone goes too, as the
        // Anthropic format leaves it out: the SDK's Anthropic provider
        // sends adjacent assistant messages as one turn.
        if all_blank && message.role == Role::Assistant {
            continue;
        }
        for (i, part) in message.parts.iter().enumerate() {
            if !all_blank && super::blank(part) {
                continue;
            }
            parts.push(match part {
                Part::Text(text) => {
                    object([("type", "text".into()), ("text", text.as_str().into())])
                }
                Part::Image(image) => {
                    super::url_sent(image, content_at.index(i), true)?;
                    // What the SDK turns an `image` part into: a URL (its
                    // type unknown, so "image") or base64 with its type.
                    let converted;
                    let image = match image {
                        Image::Url(url) if super::data_url(url).is_some() => {
                            converted = image_from_url(url);
                            &converted
                        }
                        // Base64 whose type names none (stored before that
                        // was checked) goes as its data: URL, which comes
                        // back in; the SDK reads `image/*` as `image`.
                        Image::Base64 { media_type, .. } if !super::named_type(media_type) => {
                            converted = Image::Url(super::image_url(image));
                            &converted
                        }
                        other => other,
                    };
                    let (data, media_type) = match image {
                        Image::Url(url) => (url, "image"),
                        Image::Base64 { media_type, data } => (data, media_type.as_str()),
                    };
                    object([
                        ("type", "file".into()),
                        ("data", data.as_str().into()),
                        // Lower case, as a provider lists types.
                        ("mediaType", media_type.to_ascii_lowercase().into()),
                    ])
                }
                Part::Thinking {
                    thinking,
                    signature: None,
                } => object([
                    ("type", "reasoning".into()),
                    ("text", thinking.as_str().into()),
                ]),
                Part::Thinking {
                    thinking,
                    signature: Some(signature),
                } => object([
                    ("type", "reasoning".into()),
                    ("text", thinking.as_str().into()),
                    (
                        "providerOptions",
                        anthropic_option("signature", signature.as_str().into()),
                    ),
                ]),
                Part::ToolCall {
                    id,
                    name,
                    arguments,
                } => {
                    names.push((id, name));
                    object([
                        ("type", "tool-call".into()),
                        ("toolCallId", id.as_str().into()),
                        ("toolName", name.as_str().into()),
                        ("input", arguments.clone()),
                    ])
                }
                Part::ToolResult {
                    call_id,
                    content,
                    is_error,
                } => {
                    let at = content_at.index(i);
                    let name = names
                        .iter()
                        .rev()
                        .find(|(id, _)| id == call_id)
                        .map(|(_, name)| *name);
                    let name = name.ok_or_else(|| {
                        at.field("callId")
                            .wrong("matches no earlier tool call, so its tool name is unknown")
                    })?;
                    object([
                        ("type", "tool-result".into()),
                        ("toolCallId", call_id.as_str().into()),
                        ("toolName", name.into()),
                        ("output", output(content, *is_error, at)?),
                    ])
                }
            });
        }
        // As Anthropic's: the last two pinned parts that are not blank.
        if let Some(marker) = cache_control.filter(|_| pinned_at == Some(index) && !all_blank) {
            for part in parts.iter_mut().rev().take(2) {
                if let Value::Object(part) = part {
                    part.insert(
                        "providerOptions".into(),
                        anthropic_option("cacheControl", marker.clone()),
                    );
                }
            }
        }
        // As to_openai: assistant messages after one with tool calls are
        // its turn, and a Chat Completions provider behind the SDK sends
        // each message as one. System messages between do not count:
        // buildRequest lifts them to `instructions`.
        let last = out.iter_mut().rev().find(|m| m["role"] != "system");
        if let (Role::Assistant, Some(Value::Object(last))) = (message.role, last) {
            if let Some(Value::Array(previous)) = last.get_mut("content") {
                if previous.iter().any(|p| p["type"] == "tool-call") {
                    previous.extend(parts);
                    continue;
                }
            }
        }
        out.push(object([("role", role), ("content", Value::Array(parts))]));
    }
    // Ids as Anthropic and OpenAI both take them, for whichever provider
    // is behind the SDK.
    super::anthropic::wire_ids(
        &mut out,
        ["tool-call", "toolCallId", "toolCallId", "toolName"],
        super::openai::wire_id,
    );
    Ok(Value::Array(out))
}

/// `ModelMessage`s, or one. Images must be strings: a URL, or base64 with
/// `mediaType`.
pub fn from_ai_sdk(input: &Value, at: At) -> Result<Vec<Message>, Error> {
    let mut out = Vec::new();
    match input {
        Value::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                out.push(message(item, at.index(i))?);
            }
        }
        _ => out.push(message(input, at)?),
    }
    Ok(out)
}

fn message(value: &Value, at: At) -> Result<Message, Error> {
    let message = Fields::of(value, at, "must be a ModelMessage: {role, content}")?;
    message.only(&["role", "content", "providerOptions"])?;
    let role = Role::parse(message.str("role")?).ok_or_else(|| {
        message.wrong(
            "role",
            "must be \"system\", \"user\", \"assistant\" or \"tool\"",
        )
    })?;
    let mut parts = Vec::new();
    match message.any("content")? {
        Value::String(text) if role != Role::Tool => parts.push(Part::Text(text.clone())),
        Value::Array(items) if role != Role::System => {
            let content = message.at("content");
            for (i, item) in items.iter().enumerate() {
                parts.push(part(item, content.index(i), role)?);
            }
        }
        _ => return Err(message.wrong("content", "is not this role's content")),
    }
    Ok(Message::new(role, parts))
}

fn part(value: &Value, at: At, role: Role) -> Result<Part, Error> {
    let part = Fields::of(value, at, "must be a content part")?;
    let kind = part.str("type")?;
    let allowed: &[&str] = match (kind, role) {
        ("text", Role::User | Role::Assistant) => &["type", "text", "providerOptions"],
        ("image", Role::User) => &["type", "image", "mediaType", "providerOptions"],
        ("file", Role::User) => &["type", "data", "mediaType", "filename", "providerOptions"],
        ("reasoning", Role::Assistant) => &["type", "text", "providerOptions"],
        ("tool-call", Role::Assistant) => &[
            "type",
            "toolCallId",
            "toolName",
            "input",
            "providerOptions",
            "providerExecuted",
        ],
        ("tool-result", Role::Tool) => &[
            "type",
            "toolCallId",
            "toolName",
            "output",
            "providerOptions",
        ],
        _ => return Err(part.wrong("type", "is not a part attache converts here")),
    };
    part.only(allowed)?;
    Ok(match kind {
        "text" => Part::Text(part.string("text")?),
        "image" => {
            let image = part.str("image")?;
            if image.contains(':') {
                super::image_in(&part, "image", image)?
            } else {
                let media_type = part
                    .opt_string("mediaType")?
                    .map(|t| t.to_ascii_lowercase());
                let media_type = base64_type(&part, media_type)?;
                Part::Image(Image::Base64 {
                    media_type,
                    data: super::base64_in(&part, "image", image)?.to_owned(),
                })
            }
        }
        "reasoning" => {
            let anthropic = part
                .get("providerOptions")
                .and_then(|options| options.get("anthropic"));
            // Stored as an empty thinking part, it could never go back.
            if anthropic.is_some_and(|a| a.get("redactedData").is_some()) {
                let reason = "holds redacted reasoning, which is not converted";
                return Err(part.wrong("providerOptions", reason));
            }
            let signature = anthropic
                .and_then(|anthropic| anthropic.get("signature"))
                .and_then(Value::as_str);
            Part::Thinking {
                thinking: part.string("text")?,
                signature: signature.map(str::to_owned),
            }
        }
        "file" => image_file(&part, "file")?,
        "tool-call" => Part::ToolCall {
            // Run by the provider, it has no neutral form.
            id: match part.opt_bool("providerExecuted")? {
                Some(true) => return Err(part.wrong("providerExecuted", "is not converted")),
                _ => part.string("toolCallId")?,
            },
            name: part.string("toolName")?,
            arguments: part.any("input")?.clone(),
        },
        _ => {
            part.str("toolName")?;
            let (content, is_error) = tool_output(part.any("output")?, part.at("output"))?;
            Part::ToolResult {
                call_id: part.string("toolCallId")?,
                content,
                is_error,
            }
        }
    })
}

fn tool_output(value: &Value, at: At) -> Result<(Vec<Part>, bool), Error> {
    let output = Fields::of(value, at, "must be a tool result output")?;
    output.only(&["type", "value", "providerOptions"])?;
    let kind = output.str("type")?;
    let is_error = kind.starts_with("error-");
    let mut parts = Vec::new();
    match kind {
        "text" | "error-text" => parts.push(Part::Text(output.string("value")?)),
        "json" | "error-json" => parts.push(Part::Text(output.any("value")?.to_json())),
        "content" => {
            let items = output.at("value");
            for (i, item) in output.list("value")?.iter().enumerate() {
                parts.push(content_item(item, items.index(i))?);
            }
        }
        _ => return Err(output.wrong("type", "is not an output attache converts")),
    }
    Ok((parts, is_error))
}

fn content_item(value: &Value, at: At) -> Result<Part, Error> {
    let item = Fields::of(value, at, "must be a content item")?;
    match item.str("type")? {
        "text" => {
            item.only(&["type", "text", "providerOptions"])?;
            Ok(Part::Text(item.string("text")?))
        }
        // The older shapes AI SDK 7 still takes (AI SDK 6 tools give
        // them), and AI SDK 5's `media`: images, as a `file`.
        kind @ ("file" | "file-data" | "image-data" | "file-url" | "image-url" | "media") => {
            let keys: &[&str] = match kind {
                "image-url" => &["type", "url", "providerOptions"],
                "file-url" => &["type", "url", "mediaType", "providerOptions"],
                "media" => &["type", "data", "mediaType"],
                _ => &["type", "data", "mediaType", "filename", "providerOptions"],
            };
            item.only(keys)?;
            image_file(&item, kind)
        }
        _ => Err(item.wrong("type", "must be \"text\", \"file\" or an older image item")),
    }
}

/// A `file` part that is an image: `data` a URL or base64 string, or
/// tagged, `{ type: "url", url }` (as `convertToModelMessages` gives it)
/// or `{ type: "data", data }`.
fn image_file(item: &Fields, kind: &str) -> Result<Part, Error> {
    // In lower case, as the other converters take a type in.
    let media_type = match kind {
        "image-url" => "image".to_owned(),
        _ => item.string("mediaType")?.to_ascii_lowercase(),
    };
    if !super::is_image_type(&media_type) {
        return Err(item.wrong("mediaType", "only images convert"));
    }
    let (data, url) = match kind {
        "image-url" | "file-url" => return super::image_in(item, "url", item.str("url")?),
        "image-data" | "file-data" | "media" => (item.str("data")?, false),
        _ => match item.any("data")? {
            Value::String(data) => (data.as_str(), data.contains(':')),
            other => {
                let data = Fields::of(other, item.at("data"), "must be a string or tagged data")?;
                match data.str("type")? {
                    "url" => (data.str("url")?, true),
                    "data" => (data.str("data")?, false),
                    _ => return Err(data.wrong("type", "must be \"url\" or \"data\"")),
                }
            }
        },
    };
    if url {
        return super::image_in(item, "data", data);
    }
    Ok(Part::Image(Image::Base64 {
        media_type: base64_type(item, Some(media_type))?,
        data: super::base64_in(item, "data", data)?.to_owned(),
    }))
}

/// Base64 image data's type, which must name one: the SDK reads `image/*`
/// as `image`, and neither says which.
fn base64_type(item: &Fields, media_type: Option<String>) -> Result<String, Error> {
    match media_type {
        Some(t) if super::is_image_type(&t) && super::named_type(&t) => Ok(t),
        _ => Err(item.wrong("mediaType", "must name the image type for base64 data")),
    }
}

/// `{instructions?, messages}`: AI SDK 7 refuses system messages among
/// the messages, so they go first as `instructions`, one text as a string,
/// wherever they were (as Anthropic's top-level `system`).
pub fn to_ai_sdk_request(
    messages: &[Sourced],
    pinned_at: Option<usize>,
    cache_control: Option<&Value>,
) -> Result<Value, Error> {
    let Value::Array(all) = to_ai_sdk(messages, pinned_at, cache_control)? else {
        unreachable!("to_ai_sdk gives a list")
    };
    let (mut system, rest): (Vec<Value>, Vec<Value>) =
        all.into_iter().partition(|m| m["role"] == "system");
    // Blank instructions carry nothing, and Anthropic refuses them.
    system.retain(|m| !m["content"].as_str().is_some_and(crate::text::is_blank));
    let mut request = crate::json::Map::new();
    match system.len() {
        0 => {}
        1 => {
            let text = system.pop().and_then(|m| m.get("content").cloned());
            request.push_field("instructions".into(), text.unwrap_or_default());
        }
        _ => request.push_field("instructions".into(), Value::Array(system)),
    }
    request.push_field("messages".into(), Value::Array(rest));
    Ok(Value::Object(request))
}
