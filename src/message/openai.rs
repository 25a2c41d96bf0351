//! OpenAI Chat Completions. Thinking parts are not sent (Chat Completions
//! takes none back) unless asked, as DeepSeek's `reasoning_content`; a tool
//! result's `isError` has no field there: its text carries the error.

use super::{image_url, object, At, Fields, Message, Part, Role, Sourced};
use crate::json::{self, Value};
use crate::Error;

/// OpenAI refuses a tool-call id past 40 characters, and gateways and
/// other providers give longer ones: such an id goes as its first 23
/// characters, `_` and 16 hex digits of its FNV-1a hash. It depends on the
/// id alone, so its result and later turns send the same.
pub(super) fn wire_id(id: String) -> String {
    if crate::budget::chars(&id) <= 40 {
        return id;
    }
    let hash = id.bytes().fold(0xcbf2_9ce4_8422_2325_u64, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3)
    });
    let mut wire: String = id.chars().take(23).collect();
    wire.push('_');
    for shift in (0..16).rev() {
        wire.push(char::from(
            b"0123456789abcdef"[(hash >> (shift * 4)) as usize & 15],
        ));
    }
    wire
}

/// OpenAI refuses an id twice in one request ("Duplicate value for
/// 'tool_call_id'"), and servers repeat theirs (Kimi's `functions.read:0`
/// every turn, a gateway's `call_0`): made unique as for Anthropic.
#[derive(Default)]
struct Ids(super::anthropic::UniqueIds);

// Calls are kept by their own ids, not as shortened: a real id that is
// another's short form must not take that one's result.
impl Ids {
    fn call(&mut self, id: &str, turn: usize) -> String {
        let mut id = id.to_owned();
        let sent = wire_id(id.clone());
        self.0
            .call(&mut id, &sent, sent.clone(), (turn, None), wire_id);
        id
    }

    /// Unchanged, it answers no call, or one sent as its own id.
    fn result(&mut self, call_id: &str) -> String {
        let mut id = call_id.to_owned();
        self.0.result(&mut id);
        match id == call_id {
            true => wire_id(id),
            false => id,
        }
    }
}

fn text_part(text: &str) -> Value {
    object([("type", "text".into()), ("text", text.into())])
}

/// A string when it is one text part, else an array of parts.
fn content(parts: Vec<Value>) -> Value {
    match parts.as_slice() {
        [part] if part["type"] == "text" => part["text"].clone(),
        _ => Value::Array(parts),
    }
}

/// `pinned_at`: the consolidated message, sent as parts even when one.
/// `reasoning`: an assistant message's thinking goes as its
/// `reasoning_content`, which DeepSeek's thinking mode needs back after a
/// tool call (a 400 without it) and stricter servers refuse.
pub fn to_openai(
    messages: &[Sourced],
    pinned_at: Option<usize>,
    reasoning: bool,
) -> Result<Value, Error> {
    let mut out = Vec::new();
    let mut ids = Ids::default();
    // Thinking alone in its message (the Agents adapter stores a reasoning
    // item so), held for the next assistant message: DeepSeek wants it on
    // the calls it led to.
    let mut held = String::new();
    // Assistant messages in a row are one turn, as they are sent: a
    // result answers the first call of its id in the newest turn.
    let mut turn = 0;
    for (index, (at, message)) in messages.iter().enumerate() {
        turn += usize::from(message.role != Role::Assistant);
        let role = Value::from(message.role.as_str());
        let mut texts = Vec::new();
        let mut calls = Vec::new();
        let mut thought = String::new();
        let content_at = at.field("content");
        for (i, part) in message.parts.iter().enumerate() {
            match part {
                Part::Text(text) => texts.push(text_part(text)),
                Part::Image(image) => {
                    // A data: URL as the type in lower case, its parameters
                    // dropped, as Anthropic's format sends it.
                    let url =
                        match super::sent_image(image, content_at.index(i), ["mediaType", "data"])?
                        {
                            Some((sent, data)) => format!("data:{sent};base64,{data}"),
                            None => image_url(image),
                        };
                    texts.push(object([
                        ("type", "image_url".into()),
                        ("image_url", object([("url", url.into())])),
                    ]))
                }
                Part::ToolCall {
                    id,
                    name,
                    arguments,
                } => calls.push(object([
                    ("id", ids.call(id, turn).into()),
                    ("type", "function".into()),
                    (
                        "function",
                        object([
                            ("name", name.as_str().into()),
                            ("arguments", arguments.to_json().into()),
                        ]),
                    ),
                ])),
                Part::ToolResult {
                    call_id,
                    content: parts,
                    is_error,
                } => {
                    let part_at = content_at.index(i);
                    let mut result = Vec::new();
                    for (j, part) in parts.iter().enumerate() {
                        match part {
                            Part::Text(text) => result.push(text_part(text)),
                            _ => {
                                let at = part_at.field("content");
                                return Err(at
                                    .index(j)
                                    .wrong("OpenAI tool results carry text only"));
                            }
                        }
                    }
                    let result = if *is_error && parts.iter().all(super::blank) {
                        Value::from(super::NO_OUTPUT)
                    } else if result.is_empty() {
                        Value::from("")
                    } else {
                        content(result)
                    };
                    out.push(object([
                        ("role", role.clone()),
                        ("tool_call_id", ids.result(call_id).into()),
                        ("content", result),
                    ]));
                }
                Part::Thinking { thinking, .. } => {
                    if reasoning {
                        join(&mut thought, thinking);
                    }
                }
            }
        }
        if message.role == Role::Assistant {
            join(&mut held, &thought);
            thought = std::mem::take(&mut held);
            // After calls it joins them, as below, and stays theirs.
            let joins =
                matches!(out.last(), Some(Value::Object(m)) if m.contains_key("tool_calls"));
            if texts.is_empty() && calls.is_empty() && reasoning && !joins {
                held = thought;
                continue;
            }
        } else {
            hold_over(&mut out, &mut held);
        }
        // Assistant messages after one with tool calls are its turn (the
        // Agents adapter stores each parallel call as its own message):
        // OpenAI wants the calls in one message, answered right after it.
        // So are calls after the turn's text, so the turn's thinking goes
        // with them (DeepSeek answers 400 to calls without it).
        if let (Role::Assistant, Some(Value::Object(last))) = (message.role, out.last_mut()) {
            let text_before = matches!(last.get("role"), Some(Value::String(r)) if r == "assistant")
                && !last.contains_key("tool_calls");
            if text_before && !calls.is_empty() {
                last.insert("tool_calls".into(), Value::Array(Vec::new()));
            }
            if let Some(Value::Array(all)) = last.get_mut("tool_calls") {
                all.extend(calls);
                add_reasoning(last, &thought);
                if !texts.is_empty() {
                    let mut parts = match last.insert("content".into(), Value::Null) {
                        // A turn's text may be "" (a thought sent without it).
                        Some(Value::String(text)) if !text.is_empty() => vec![text_part(&text)],
                        Some(Value::Array(parts)) => parts,
                        _ => Vec::new(),
                    };
                    parts.extend(texts);
                    last.insert("content".into(), content(parts));
                }
                continue;
            }
        }
        match message.role {
            // Each result is its own message: with none, the message would
            // vanish unseen.
            Role::Tool
                if !message
                    .parts
                    .iter()
                    .any(|p| matches!(p, Part::ToolResult { .. })) =>
            {
                return Err(content_at.wrong("OpenAI needs a tool message to hold a tool result"));
            }
            Role::Tool => {}
            Role::Assistant if !calls.is_empty() => {
                let text = if texts.is_empty() {
                    Value::Null
                } else {
                    content(texts)
                };
                out.push(object([
                    ("role", role),
                    ("content", text),
                    ("tool_calls", Value::Array(calls)),
                ]));
            }
            _ => {
                // OpenAI refuses an empty array of parts; "" it takes. The
                // pins stay parts, so adding a second one moves no byte of
                // the first.
                let text = if texts.is_empty() {
                    Value::from("")
                } else if pinned_at == Some(index) {
                    Value::Array(texts)
                } else {
                    content(texts)
                };
                out.push(object([("role", role), ("content", text)]));
            }
        }
        if let (Role::Assistant, Some(Value::Object(last))) = (message.role, out.last_mut()) {
            add_reasoning(last, &thought);
        }
    }
    hold_over(&mut out, &mut held);
    Ok(Value::Array(out))
}

/// A turn's thinking, after what a sent message's `reasoning_content`
/// holds already (a joined turn's).
fn add_reasoning(message: &mut crate::json::Map, thought: &str) {
    if thought.is_empty() {
        return;
    }
    let mut all = match message.get("reasoning_content") {
        Some(Value::String(text)) => text.clone(),
        _ => String::new(),
    };
    join(&mut all, thought);
    message.insert("reasoning_content".into(), all.into());
}

/// Thinking held with no assistant message after it goes as its own.
fn hold_over(out: &mut Vec<Value>, held: &mut String) {
    if !held.is_empty() {
        out.push(object([
            ("role", "assistant".into()),
            ("content", "".into()),
            ("reasoning_content", std::mem::take(held).into()),
        ]));
    }
}

/// Thinking texts of one turn, a blank line between.
fn join(all: &mut String, text: &str) {
    if !all.is_empty() && !text.is_empty() {
        all.push_str("\n\n");
    }
    all.push_str(text);
}

/// Chat Completions messages, one message, or a response (its
/// `choices[0].message`). A refusal is kept as text; `developer` is read
/// as `system`.
pub fn from_openai(input: &Value, at: At) -> Result<Vec<Message>, Error> {
    let mut out = Vec::new();
    if let Value::Array(items) = input {
        for (i, item) in items.iter().enumerate() {
            out.push(message(item, at.index(i))?);
        }
        return Ok(out);
    }
    let object = Fields::of(input, at, "must be messages, a message or a response")?;
    if object.get("choices").is_some() {
        let choices = object.at("choices");
        let choice = choices.index(0);
        let reply = object
            .list("choices")?
            .first()
            .and_then(|c| c.get("message"));
        out.push(message(
            reply.unwrap_or(&Value::Null),
            choice.field("message"),
        )?);
    } else {
        out.push(message(input, at)?);
    }
    Ok(out)
}

fn message(value: &Value, at: At) -> Result<Message, Error> {
    let message = Fields::of(value, at, "must be a Chat Completions message")?;
    let role = message.str("role")?;
    let parts = |name: &str| -> Result<Vec<Part>, Error> {
        let mut parts = Vec::new();
        match message.get(name) {
            None | Some(Value::Null) => {}
            Some(Value::String(text)) => parts.push(Part::Text(text.clone())),
            Some(Value::Array(items)) => {
                let at = message.at(name);
                for (i, item) in items.iter().enumerate() {
                    parts.push(part(item, at.index(i), role)?);
                }
            }
            Some(_) => return Err(message.wrong(name, "must be a string or an array of parts")),
        }
        Ok(parts)
    };
    Ok(match role {
        "system" | "developer" | "user" => {
            message.only(&["role", "content"])?;
            let role = if role == "user" {
                Role::User
            } else {
                Role::System
            };
            Message::new(role, parts("content")?)
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
                "reasoning_content",
                "reasoning",
                // The SDK's stream helpers add it: `content` parsed.
                "parsed",
            ])?;
            message.absent(&["audio", "function_call"], "is not converted")?;
            if !message.list("annotations")?.is_empty() {
                return Err(message.wrong("annotations", "is not converted"));
            }
            // Compatible servers' thinking (DeepSeek's `reasoning_content`,
            // Ollama's `reasoning`), a part Chat Completions never sends back.
            // Some send both, the same text: the first not empty is read.
            let mut content = Vec::new();
            let first = message.opt_string("reasoning_content")?;
            let second = message.opt_string("reasoning")?;
            if let Some(thinking) = first.into_iter().chain(second).find(|t| !t.is_empty()) {
                content.push(Part::Thinking {
                    thinking,
                    signature: None,
                });
            }
            content.extend(parts("content")?);
            if let Some(refusal) = message.opt_string("refusal")? {
                content.push(Part::Text(refusal));
            }
            let calls = message.at("tool_calls");
            for (i, call) in message.list("tool_calls")?.iter().enumerate() {
                content.push(tool_call(call, calls.index(i))?);
            }
            Message::new(Role::Assistant, content)
        }
        "tool" => {
            message.only(&["role", "content", "tool_call_id"])?;
            let result = Part::ToolResult {
                call_id: message.string("tool_call_id")?,
                content: parts("content")?,
                is_error: false,
            };
            Message::new(Role::Tool, vec![result])
        }
        _ => {
            return Err(message.wrong(
                "role",
                "must be \"system\", \"developer\", \"user\", \"assistant\" or \"tool\"",
            ))
        }
    })
}

fn part(value: &Value, at: At, role: &str) -> Result<Part, Error> {
    let part = Fields::of(value, at, "must be a content part")?;
    match (part.str("type")?, role) {
        ("text", _) => {
            part.only(&["type", "text"])?;
            Ok(Part::Text(part.string("text")?))
        }
        ("refusal", "assistant") => {
            part.only(&["type", "refusal"])?;
            Ok(Part::Text(part.string("refusal")?))
        }
        ("image_url", "user") => {
            part.only(&["type", "image_url"])?;
            let image = Fields::of(
                part.any("image_url")?,
                part.at("image_url"),
                "must be an object",
            )?;
            image.only(&["url", "detail"])?;
            if image.get("detail").is_some_and(|d| *d != "auto") {
                return Err(image.wrong("detail", "only \"auto\" converts"));
            }
            // Only what toOpenAI sends back: a history read in must not
            // fail every later turn (an SVG, a data: URL not base64).
            let read = super::image_from_url(image.str("url")?);
            super::sent_image(&read, part.at("image_url"), ["url"; 2])?;
            Ok(Part::Image(read))
        }
        _ => Err(part.wrong("type", "is not a part attache converts")),
    }
}

fn tool_call(value: &Value, at: At) -> Result<Part, Error> {
    let call = Fields::of(value, at, "must be a tool call")?;
    // `index`: Ollama writes each call's, as a stream's delta has it.
    call.only(&["id", "type", "function", "index"])?;
    if call.str("type")? != "function" {
        return Err(call.wrong("type", "only function tool calls convert"));
    }
    let function = Fields::of(
        call.any("function")?,
        call.at("function"),
        "must be an object",
    )?;
    // `parsed_arguments`: the SDK's, `arguments` parsed.
    function.only(&["name", "arguments", "parsed_arguments"])?;
    let arguments = json::parse(function.str("arguments")?)
        .map_err(|_| function.wrong("arguments", "is not JSON"))?;
    Ok(Part::ToolCall {
        id: call.string("id")?,
        name: function.string("name")?,
        arguments,
    })
}
