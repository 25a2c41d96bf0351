//! One provider-neutral message model: what the host stores, counts and
//! sends. Each provider's shape converts to and from it, losslessly or
//! with a typed error; nothing is dropped unseen.

pub mod ai_sdk;
pub mod anthropic;
pub mod openai;
mod read;

pub use read::{object, At, Fields};

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

/// What an error result with no output says: Anthropic refuses it empty,
/// and OpenAI, which has no error flag, would read an empty success.
pub const NO_OUTPUT: &str = "Error: the tool gave no output.";

/// An error result with an image: Anthropic answers 400 ("all content
/// must be type 'text' if 'is_error' is true") and the AI SDK has no such
/// output, so it is refused where it goes out and where it comes in.
#[inline(never)]
pub(crate) fn error_images(content: &[Part], is_error: bool, at: At) -> Result<(), Error> {
    match is_error && content.iter().any(|p| matches!(p, Part::Image(_))) {
        true => Err(at.wrong("must be false: an error result holds text only, no images")),
        false => Ok(()),
    }
}

/// An empty or whitespace-only text part: Anthropic refuses one as a
/// block, and an error result of nothing else says `NO_OUTPUT`.
pub fn blank(part: &Part) -> bool {
    matches!(part, Part::Text(text) if crate::text::is_blank(text))
}

/// A message with where it came from (`history[3]`), for errors found
/// while converting it.
pub type Sourced = (At<'static>, Message);

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

    fn from_value(value: &Value, at: At) -> Result<Part, Error> {
        let part = Fields::of(value, at, "must be a part object with a `type`")?;
        Ok(match part.str("type")? {
            "text" => {
                part.only(&["type", "text"])?;
                Part::Text(part.string("text")?)
            }
            "image" => {
                part.only(&["type", "url", "data", "mediaType"])?;
                let (image, field) = match part.opt_string("url")? {
                    Some(url) => {
                        part.absent(
                            &["data", "mediaType"],
                            "an image has a `url` or `data`, not both",
                        )?;
                        (Image::Url(url), "url")
                    }
                    None => (
                        Image::Base64 {
                            data: part.string("data")?,
                            media_type: part.string("mediaType")?,
                        },
                        "mediaType",
                    ),
                };
                image_checked(&part, field, &image)?;
                Part::Image(image)
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
                let at = part.at("content");
                let content = content_parts(part.any("content")?, at)?;
                for (i, other) in content.iter().enumerate() {
                    if !matches!(other, Part::Text(_) | Part::Image(_)) {
                        return Err(at
                            .index(i)
                            .wrong("a tool result holds text and image parts only"));
                    }
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
fn content_parts(content: &Value, at: At) -> Result<Vec<Part>, Error> {
    match content {
        Value::String(text) => Ok(vec![Part::Text(text.clone())]),
        Value::Array(items) => {
            let mut parts = Vec::with_capacity(items.len());
            for (i, item) in items.iter().enumerate() {
                parts.push(Part::from_value(item, at.index(i))?);
            }
            Ok(parts)
        }
        _ => Err(at.wrong("must be a string or an array of parts")),
    }
}

fn parts_value(parts: &[Part]) -> Value {
    Value::Array(crate::map_vec(parts, Part::to_value))
}

impl Message {
    pub fn new(role: Role, parts: Vec<Part>) -> Self {
        Message { role, parts }
    }

    /// `{role, content}`; anything else is `INVALID_VALUE` with its path.
    pub fn from_value(value: &Value, at: At) -> Result<Message, Error> {
        let message = Fields::of(value, at, NOT_MESSAGE)?;
        message.only(&["role", "content", "meta"])?;
        // The host's own data: stored and returned, never sent or counted.
        if message.get("meta").is_some_and(|meta| !meta.is_object()) {
            return Err(message.wrong("meta", "must be a JSON object"));
        }
        let role = Role::parse(message.str("role")?).ok_or_else(|| {
            message.wrong(
                "role",
                "must be \"system\", \"user\", \"assistant\" or \"tool\"",
            )
        })?;
        let content = message.at("content");
        let parts = content_parts(message.any("content")?, content)?;
        // A string is one text part: its fault is at `content`, not inside it.
        let whole = matches!(message.get("content"), Some(Value::String(_)));
        for (i, part) in parts.iter().enumerate() {
            if !role.allows(part) {
                let reason = match role {
                    Role::Tool => "a tool message holds tool_result parts only",
                    Role::System => "a system message holds text parts only",
                    Role::User => "a user message holds text and image parts only",
                    Role::Assistant => {
                        "an assistant message holds text, thinking and tool_call parts only"
                    }
                };
                return Err(if whole { content } else { content.index(i) }.wrong(reason));
            }
        }
        Ok(Message { role, parts })
    }

    /// Every message of a list, each checked with its path (`history[2]`).
    pub fn list(values: &[Value], name: &str) -> Result<Vec<Message>, Error> {
        let mut messages = Vec::with_capacity(values.len());
        for (i, value) in values.iter().enumerate() {
            messages.push(Message::from_value(value, At::Item(name, i))?);
        }
        Ok(messages)
    }

    /// `{role, content: [parts]}`, as attache stores and returns it.
    pub fn to_value(&self) -> Value {
        object([
            ("role", self.role.as_str().into()),
            ("content", parts_value(&self.parts)),
        ])
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
    Value::Array(crate::map_vec(messages, Message::to_value))
}

/// `image` or `image/…`: what an image part holds, as the AI SDK reads it.
/// Any case, as every type.
pub(crate) fn is_image_type(media_type: &str) -> bool {
    let head = media_type.as_bytes().get(..6);
    media_type.eq_ignore_ascii_case("image")
        || head.is_some_and(|h| h.eq_ignore_ascii_case(b"image/"))
}

/// Whether an image is one by its own say: base64 of an image type, or a
/// URL that is no `data:` URL (a scheme is any case) of another type.
/// OpenAI and the AI SDK would send a PDF on as an image.
pub(crate) fn is_image(image: &Image) -> bool {
    match image {
        Image::Base64 { media_type, .. } => is_image_type(media_type),
        Image::Url(url) => data_url(url).is_none_or(|data| is_image_type(data.media_type)),
    }
}

/// A `data:` URL read once, for every converter alike (RFC 2397).
pub(crate) struct DataUrl<'a> {
    pub media_type: &'a str,
    /// Its last parameter is `base64`, in any case.
    pub base64: bool,
    pub data: &'a str,
}

/// A `data:` URL's parts; the scheme is any case. `text::tail`, as
/// slicing a str would bring in its panic's formatting.
pub(crate) fn data_url(url: &str) -> Option<DataUrl<'_>> {
    let scheme = url.as_bytes().get(..5)?;
    if !scheme.eq_ignore_ascii_case(b"data:") {
        return None;
    }
    let rest = crate::text::tail(url, 5);
    let (header, data) = rest.split_once(',').unwrap_or((rest, ""));
    let mut params = header.split(';');
    let media_type = params.next().unwrap_or_default();
    let base64 = params
        .last()
        .is_some_and(|p| p.eq_ignore_ascii_case("base64"));
    Some(DataUrl {
        media_type,
        base64,
        data,
    })
}

pub const NOT_MESSAGE: &str = "must be a message: {role, content}";

pub(crate) const NOT_IMAGE: &str = "must be of an image type, image/…";

const NOT_FETCHABLE: &str =
    "must be a URL the provider can fetch: http:, https: or base64 data: (gs: and s3: through the AI SDK)";

/// Whether a provider can fetch a URL that is no `data:` one (see
/// `is_base64`): `http:` or `https:`, then `//` and a host; through the
/// AI SDK (`cloud`) also Vertex's `gs:` and Bedrock's `s3:`. Not one only
/// this browser reads (`blob:`, `file:`, an extension's), nor a path that
/// looks like a scheme (`C:\a.png`, `localhost:8080/a.png`), nor one with
/// a space, which the AI SDK fails to parse: each later turn would be a
/// 400. Asked of what a converter reads and of what a provider's format
/// sends, not of the neutral form: a history stored before must still
/// count, compact and import, and a host's backend may resolve a relative
/// URL.
fn fetchable(url: &str, cloud: bool) -> bool {
    let scheme = url.split_once(':').map_or("", |(scheme, _)| scheme);
    ["http", "https", "gs", "s3"]
        .iter()
        .take(if cloud { 4 } else { 2 })
        .any(|sent| scheme.eq_ignore_ascii_case(sent))
        && crate::text::tail(url, scheme.len() + 1)
            .strip_prefix("//")
            .is_some_and(|host| !host.is_empty())
        && url.bytes().all(|b| b > b' ')
}

const NOT_BASE64: &str = "must be base64 image data (a data: URL goes in url)";

/// Of the base64 alphabets, with some data, and padded as `atob` takes
/// it: a whole `data:` URL put in `data` (a common slip), `=` alone or
/// within, is a 400 on every later turn (the AI SDK throws). Line breaks
/// pass: no provider is known to refuse them. 4n + 1 digits, or padding
/// that does not end a group of 4, strict decoders refuse.
fn is_base64(data: &str) -> bool {
    let (mut digits, mut pads) = (0usize, 0usize);
    for b in data.bytes() {
        match b {
            b'\r' | b'\n' => {}
            b'=' => pads += 1,
            // A digit after padding is padding within.
            _ if pads == 0 && (b.is_ascii_alphanumeric() || b"+/-_".contains(&b)) => digits += 1,
            _ => return false,
        }
    }
    digits % 4 != 1 && digits > 0 && pads < 3 && (pads == 0 || (digits + pads) % 4 == 0)
}

/// An image a provider's format sends: a URL it can fetch (the AI SDK
/// throws, naming no message, on a relative or `blob:` one), or base64
/// that is base64 (a `data:` URL's too).
pub(crate) fn url_sent(image: &Image, at: At, cloud: bool) -> Result<(), Error> {
    let (field, sent, reason) = match image {
        Image::Url(url) => match data_url(url) {
            Some(data) if data.base64 => ("url", is_base64(data.data), NOT_BASE64),
            _ => ("url", fetchable(url, cloud), NOT_FETCHABLE),
        },
        Image::Base64 { data, .. } => ("data", is_base64(data), NOT_BASE64),
    };
    match sent {
        true => Ok(()),
        false => Err(at.field(field).wrong(reason)),
    }
}

/// A converter's base64 image data, refused where every format would
/// refuse to send it: in, as the OpenAI and Anthropic readers check it.
#[inline(never)]
pub(crate) fn base64_in<'a>(at: &Fields, field: &str, data: &'a str) -> Result<&'a str, Error> {
    match is_base64(data) {
        true => Ok(data),
        false => Err(at.wrong(field, NOT_BASE64)),
    }
}

/// The AI SDK converter's image URL as a part, checked as `image_checked`
/// does.
pub(crate) fn image_in(at: &Fields, field: &str, url: &str) -> Result<Part, Error> {
    let sent = match data_url(url) {
        Some(data) => data.base64 && is_base64(data.data),
        None => fetchable(url, true),
    };
    if !sent {
        return Err(at.wrong(field, NOT_FETCHABLE));
    }
    let image = image_from_url(url);
    image_checked(at, field, &image)?;
    Ok(Part::Image(image))
}

/// An image refused at `field` where it names another type: what a
/// converter returned, every later call would refuse.
pub(crate) fn image_checked(at: &Fields, field: &str, image: &Image) -> Result<(), Error> {
    match is_image(image) {
        true => Ok(()),
        false => Err(at.wrong(field, NOT_IMAGE)),
    }
}

/// Whether a media type names one: `image/png`, not `image/*` or `image/`.
pub(crate) fn named_type(media_type: &str) -> bool {
    media_type
        .split_once('/')
        .is_some_and(|(_, sub)| !sub.is_empty() && sub != "*")
}

/// A base64 `data:` URL as a base64 image, as `sent_image` reads it
/// (parameters dropped, the type in lower case, which `is_image` asks);
/// any other URL as itself, and one whose type names none (`image/*`):
/// base64 must say what it holds, a URL need not.
pub(crate) fn image_from_url(url: &str) -> Image {
    match data_url(url) {
        Some(data) if data.base64 && named_type(data.media_type) => Image::Base64 {
            media_type: data.media_type.to_ascii_lowercase(),
            data: data.data.to_owned(),
        },
        _ => Image::Url(url.to_owned()),
    }
}

/// What a provider is sent for an image: `None` for a URL it fetches,
/// else its type, in lower case, and base64 (a `data:` URL's, whatever
/// its parameters or the case of `;base64`). Both providers take jpeg,
/// png, gif and webp, and answer a 400 for another (an SVG, a BMP,
/// `image/*`) on every later turn. `fields`: the type's and the data's.
pub(crate) fn sent_image<'a>(
    image: &'a Image,
    at: At,
    fields: [&str; 2],
) -> Result<Option<(&'static str, &'a str)>, Error> {
    let (media_type, data, [type_field, data_field]) = match image {
        Image::Url(url) => {
            let Some(url) = data_url(url) else {
                return url_sent(image, at, false).map(|()| None);
            };
            let media_type = if url.base64 { url.media_type } else { "" };
            (media_type, url.data, ["url"; 2])
        }
        Image::Base64 { media_type, data } => (media_type.as_str(), data.as_str(), fields),
    };
    let Some(sent) = ["image/jpeg", "image/png", "image/gif", "image/webp"]
        .into_iter()
        .find(|sent| sent.eq_ignore_ascii_case(media_type))
    else {
        let reason = "must be base64 of image/jpeg, image/png, image/gif or image/webp";
        return Err(at.field(type_field).wrong(reason));
    };
    if !is_base64(data) {
        return Err(at.field(data_field).wrong(NOT_BASE64));
    }
    Ok(Some((sent, data)))
}

/// An image as a URL; a type goes in lower case, as a provider lists it
/// (`image/PNG` may be stored: a type is any case).
pub(crate) fn image_url(image: &Image) -> String {
    match image {
        Image::Url(url) => url.clone(),
        Image::Base64 { media_type, data } => {
            format!("data:{};base64,{data}", media_type.to_ascii_lowercase())
        }
    }
}

#[cfg(test)]
mod tests;
