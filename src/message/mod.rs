//! One provider-neutral message model: what the host stores, counts and
//! sends. Each provider's shape converts to and from it, losslessly or
//! with a typed error; nothing is dropped unseen.

pub mod ai_sdk;
pub mod anthropic;
pub mod openai;
mod read;

pub use read::Fields;

use crate::json::{Map, Value};
use crate::Error;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    System,
    User,
    Assistant,
    Tool,
}

#[derive(Debug, Clone, PartialEq)]
pub enum Image {
    Url(String),
    Base64 { media_type: String, data: String },
}

#[derive(Debug, Clone, PartialEq)]
pub enum Part {
    Text(String),
    Image(Image),
    ToolCall {
        id: String,
        name: String,
        arguments: Value,
    },
    /// `content` holds text and image parts only.
    ToolResult {
        call_id: String,
        content: Vec<Part>,
        is_error: bool,
    },
    Thinking {
        thinking: String,
        signature: Option<String>,
    },
}

#[derive(Debug, Clone, PartialEq)]
pub struct Message {
    pub role: Role,
    pub parts: Vec<Part>,
}

/// A message with where it came from (`history[3]`), for errors found
/// while converting it.
pub type Sourced = (String, Message);

impl Role {
    pub fn parse(name: &str) -> Option<Role> {
        Some(match name {
            "system" => Role::System,
            "user" => Role::User,
            "assistant" => Role::Assistant,
            "tool" => Role::Tool,
            _ => return None,
        })
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Role::System => "system",
            Role::User => "user",
            Role::Assistant => "assistant",
            Role::Tool => "tool",
        }
    }

    /// Which parts a message of this role may hold.
    fn allows(self, part: &Part) -> bool {
        match (self, part) {
            (Role::Tool, part) => matches!(part, Part::ToolResult { .. }),
            (_, Part::Text(_)) => true,
            (Role::User, Part::Image(_)) => true,
            (Role::Assistant, Part::ToolCall { .. } | Part::Thinking { .. }) => true,
            _ => false,
        }
    }
}

impl Part {
    pub fn kind(&self) -> &'static str {
        match self {
            Part::Text(_) => "text",
            Part::Image(_) => "image",
            Part::ToolCall { .. } => "tool_call",
            Part::ToolResult { .. } => "tool_result",
            Part::Thinking { .. } => "thinking",
        }
    }

    /// `{type, ...}` as attache stores it.
    pub fn to_value(&self) -> Value {
        let mut part = Map::new();
        part.push_field("type".into(), self.kind().into());
        let mut field = |name: &str, value: Value| part.push_field(name.into(), value);
        match self {
            Part::Text(text) => field("text", text.as_str().into()),
            Part::Image(Image::Url(url)) => field("url", url.as_str().into()),
            Part::Image(Image::Base64 { media_type, data }) => {
                field("data", data.as_str().into());
                field("mediaType", media_type.as_str().into());
            }
            Part::ToolCall {
                id,
                name,
                arguments,
            } => {
                field("id", id.as_str().into());
                field("name", name.as_str().into());
                field("arguments", arguments.clone());
            }
            Part::ToolResult {
                call_id,
                content,
                is_error,
            } => {
                field("callId", call_id.as_str().into());
                field("content", parts_value(content));
                if *is_error {
                    field("isError", Value::Bool(true));
                }
            }
            Part::Thinking {
                thinking,
                signature,
            } => {
                field("thinking", thinking.as_str().into());
                if let Some(signature) = signature {
                    field("signature", signature.as_str().into());
                }
            }
        }
        Value::Object(part)
    }

    fn from_value(value: &Value, path: &str) -> Result<Part, Error> {
        let part = Fields::of(value, path, "must be a part object with a `type`")?;
        Ok(match part.str("type")? {
            "text" => {
                part.only(&["type", "text"])?;
                Part::Text(part.string("text")?)
            }
            "image" => {
                part.only(&["type", "url", "data", "mediaType"])?;
                Part::Image(match part.opt_string("url")? {
                    Some(url) => {
                        part.absent(
                            &["data", "mediaType"],
                            "an image has a `url` or `data`, not both",
                        )?;
                        Image::Url(url)
                    }
                    None => Image::Base64 {
                        data: part.string("data")?,
                        media_type: part.string("mediaType")?,
                    },
                })
            }
            "tool_call" => {
                part.only(&["type", "id", "name", "arguments"])?;
                Part::ToolCall {
                    id: part.string("id")?,
                    name: part.string("name")?,
                    arguments: part.any("arguments")?.clone(),
                }
            }
            "tool_result" => {
                part.only(&["type", "callId", "content", "isError"])?;
                let content = content_parts(part.any("content")?, &part.path("content"))?;
                if let Some((i, other)) = content
                    .iter()
                    .enumerate()
                    .find(|(_, p)| !matches!(p, Part::Text(_) | Part::Image(_)))
                {
                    return Err(part.wrong(
                        &format!("content[{i}]"),
                        &format!(
                            "a tool result holds text and image parts, not {}",
                            other.kind()
                        ),
                    ));
                }
                Part::ToolResult {
                    call_id: part.string("callId")?,
                    content,
                    is_error: part.opt_bool("isError")?.unwrap_or(false),
                }
            }
            "thinking" => {
                part.only(&["type", "thinking", "signature"])?;
                Part::Thinking {
                    thinking: part.string("thinking")?,
                    signature: part.opt_string("signature")?,
                }
            }
            _ => {
                return Err(part.wrong(
                    "type",
                    "must be \"text\", \"image\", \"tool_call\", \"tool_result\" or \"thinking\"",
                ))
            }
        })
    }
}

/// `content`: a string (one text part) or an array of parts.
fn content_parts(content: &Value, path: &str) -> Result<Vec<Part>, Error> {
    match content {
        Value::String(text) => Ok(vec![Part::Text(text.clone())]),
        Value::Array(items) => items
            .iter()
            .enumerate()
            .map(|(i, item)| Part::from_value(item, &format!("{path}[{i}]")))
            .collect(),
        _ => Err(Error::InvalidValue {
            path: path.to_owned(),
            reason: "must be a string or an array of parts".to_owned(),
        }),
    }
}

fn parts_value(parts: &[Part]) -> Value {
    Value::Array(parts.iter().map(Part::to_value).collect())
}

impl Message {
    pub fn new(role: Role, parts: Vec<Part>) -> Self {
        Message { role, parts }
    }

    /// `{role, content}`; anything else is `INVALID_VALUE` with its path.
    pub fn from_value(value: &Value, path: &str) -> Result<Message, Error> {
        let message = Fields::of(value, path, "must be a message: {role, content}")?;
        message.only(&["role", "content"])?;
        let role = Role::parse(message.str("role")?).ok_or_else(|| {
            message.wrong(
                "role",
                "must be \"system\", \"user\", \"assistant\" or \"tool\"",
            )
        })?;
        let parts = content_parts(message.any("content")?, &message.path("content"))?;
        if let Some((i, part)) = parts.iter().enumerate().find(|(_, p)| !role.allows(p)) {
            let (role, kind) = (role.as_str(), part.kind());
            let reason = if role == "tool" {
                "a tool message holds tool_result parts only".to_owned()
            } else {
                format!("a {role} message cannot hold a {kind} part")
            };
            return Err(message.wrong(&format!("content[{i}]"), &reason));
        }
        Ok(Message { role, parts })
    }

    /// Every message of a list, each checked with its path (`history[2]`).
    pub fn list(values: &[Value], name: &str) -> Result<Vec<Message>, Error> {
        values
            .iter()
            .enumerate()
            .map(|(i, value)| Message::from_value(value, &format!("{name}[{i}]")))
            .collect()
    }

    /// `{role, content: [parts]}`, as attache stores and returns it.
    pub fn to_value(&self) -> Value {
        let mut message = Map::new();
        message.push_field("role".into(), self.role.as_str().into());
        message.push_field("content".into(), parts_value(&self.parts));
        Value::Object(message)
    }

    /// The text of its text parts, joined.
    pub fn text(&self) -> String {
        texts(&self.parts)
    }
}

pub(crate) fn texts(parts: &[Part]) -> String {
    parts
        .iter()
        .filter_map(|part| match part {
            Part::Text(text) => Some(text.as_str()),
            _ => None,
        })
        .collect()
}

/// Messages as attache returns them.
pub fn to_values(messages: &[Message]) -> Value {
    Value::Array(messages.iter().map(Message::to_value).collect())
}

/// A `data:{mediaType};base64,{data}` URL as a base64 image; any other URL
/// as itself.
pub(crate) fn image_from_url(url: &str) -> Image {
    let base64 = url
        .strip_prefix("data:")
        .and_then(|rest| rest.split_once(";base64,"))
        .filter(|(media_type, _)| !media_type.is_empty() && !media_type.contains([',', ';']));
    match base64 {
        Some((media_type, data)) => Image::Base64 {
            media_type: media_type.to_owned(),
            data: data.to_owned(),
        },
        None => Image::Url(url.to_owned()),
    }
}

pub(crate) fn image_url(image: &Image) -> String {
    match image {
        Image::Url(url) => url.clone(),
        Image::Base64 { media_type, data } => format!("data:{media_type};base64,{data}"),
    }
}

#[cfg(test)]
mod tests;
