//! Request assembly: the consolidated attachment message, then contributor
//! messages, then memory transients, then the history, in one of four
//! shapes. Attachments never enter the history.

use crate::json;
use crate::json::Value;
use crate::message::{ai_sdk, anthropic, openai, to_values, At, Message, Part, Role, Sourced};

use crate::Error;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// attache's own messages: `{role, content: [parts]}`.
    Generic,
    OpenAiChat,
    AnthropicMessages,
    /// The Vercel AI SDK's `ModelMessage`.
    AiSdk,
}

impl Format {
    pub fn parse(name: &str) -> Option<Self> {
        match name {
            "generic" => Some(Format::Generic),
            "openai" => Some(Format::OpenAiChat),
            "anthropic" => Some(Format::AnthropicMessages),
            "ai-sdk" => Some(Format::AiSdk),
            _ => None,
        }
    }
}

#[derive(Debug, Clone, Default, PartialEq)]
pub struct Turn {
    pub system: Option<String>,
    /// The consolidated attachment message, if anything is pinned.
    pub attachments: Option<Value>,
    pub contributors: Vec<Value>,
    pub memories: Vec<Value>,
    pub history: Vec<Value>,
    /// Anthropic and the AI SDK: the cache breakpoint put on the last two
    /// parts of the pinned prefix.
    pub cache_control: Option<Value>,
    /// OpenAI: thinking goes back as `reasoning_content` (DeepSeek's).
    pub reasoning_content: bool,
}

/// What `cacheControl: true` means: Anthropic's default breakpoint, which
/// lives five minutes.
pub fn default_cache_control() -> Value {
    crate::json!({"type": "ephemeral"})
}

/// Anthropic's breakpoint: `{type: "ephemeral", ttl?: "5m" | "1h"}`.
fn check_cache_control(marker: &Value) -> Result<(), Error> {
    let fields = marker.as_object();
    // A misspelt option is named, as any options object's is.
    if let Some(key) = fields.and_then(|f| f.keys().find(|k| *k != "type" && *k != "ttl")) {
        // A secret as a key is refused without echoing it.
        crate::credentials::check_text("cacheControl", key)?;
        return Err(Error::argument(
            &crate::error::key_path("cacheControl", key),
            "is not a known option",
        ));
    }
    let ok = fields.is_some_and(|fields| {
        fields.get("type").is_some_and(|t| *t == "ephemeral")
            && fields
                .get("ttl")
                .is_none_or(|ttl| *ttl == "5m" || *ttl == "1h")
    });
    if ok {
        return Ok(());
    }
    Err(Error::argument(
        "cacheControl",
        "must be true, false or {type: \"ephemeral\", ttl?: \"5m\" | \"1h\"}",
    ))
}

/// `attachments`, as `buildRequest` and `planTurn` take it: the consolidated
/// message. A cache breakpoint on anything else would move (a system
/// message) or vanish (no parts) unseen, and a plan should count what the
/// request will carry.
pub fn consolidated(value: &Value) -> Result<Message, Error> {
    let at = At::Name("attachments");
    let message = Message::from_value(value, at)?;
    if message.role != Role::User || message.parts.is_empty() {
        return Err(at.wrong("must be the consolidated message: a user message with parts"));
    }
    Ok(message)
}

/// `{ messages }`, plus a top-level `system` for Anthropic. Every message
/// is checked first, and a refusal names its list and index.
pub fn build_request(format: Format, turn: Turn) -> Result<Value, Error> {
    let named = |list: &[Value], name: &'static str| -> Result<Vec<Sourced>, Error> {
        let messages = Message::list(list, name)?;
        Ok(messages
            .into_iter()
            .enumerate()
            .map(|(i, m)| (At::Item(name, i), m))
            .collect())
    };
    let mut history = named(&turn.history, "history")?;
    let contributors = named(&turn.contributors, "contributors")?;
    let memories = named(&turn.memories, "memories")?;
    let attachments = match &turn.attachments {
        Some(value) => Some((At::Name("attachments"), consolidated(value)?)),
        None => None,
    };
    if let Some(marker) = &turn.cache_control {
        check_cache_control(marker)?;
    }
    // A leading system message in the history stays first, as the reference
    // inserts pinned messages after it.
    let leading = history
        .iter()
        .take_while(|(_, m)| m.role == Role::System)
        .count();
    let rest = history.split_off(leading);
    let mut messages: Vec<Sourced> = Vec::new();
    if let Some(system) = turn.system {
        messages.push((
            At::Name("system"),
            Message::new(Role::System, vec![Part::Text(system)]),
        ));
    }
    messages.extend(history);
    let pinned_at = attachments.as_ref().map(|_| messages.len());
    messages.extend(attachments);
    messages.extend(contributors);
    messages.extend(memories);
    messages.extend(rest);
    if format != Format::Generic {
        // Anthropic and the AI SDK lift system text out of the messages.
        check_tool_pairs(&messages, format != Format::OpenAiChat)?;
    }
    let marker = turn.cache_control.as_ref();
    let request = match format {
        Format::Generic => {
            let plain: Vec<Message> = messages.into_iter().map(|(_, m)| m).collect();
            json!({ "messages": (to_values(&plain)) })
        }
        Format::OpenAiChat => {
            json!({ "messages": (openai::to_openai(&messages, pinned_at, turn.reasoning_content)?) })
        }
        Format::AnthropicMessages => anthropic::to_anthropic(&messages, pinned_at, marker)?,
        Format::AiSdk => ai_sdk::to_ai_sdk_request(&messages, pinned_at, marker)?,
    };
    // Blank replies dropped and system text lifted out may leave none,
    // which OpenAI and Anthropic refuse. Not the AI SDK's: its `prompt`,
    // given beside, takes the place of `messages`.
    let none = request.get("messages").and_then(Value::as_array);
    let sent = matches!(format, Format::OpenAiChat | Format::AnthropicMessages);
    if sent && none.is_some_and(Vec::is_empty) {
        return Err(Error::value("history", "leaves no message to send"));
    }
    Ok(request)
}

/// Each tool call answered by the tool messages right after its message,
/// and each result answering one: OpenAI and Anthropic refuse a request
/// otherwise, on every later turn. A crash between a call and its result,
/// or a history cut between them, leaves such a history. Assistant
/// messages in a row are one turn (the OpenAI Agents adapter stores each
/// parallel call as its own), as the providers read them.
fn check_tool_pairs(messages: &[Sourced], lifts_system: bool) -> Result<(), Error> {
    // (message, part) of each call still unanswered.
    let mut pending: Vec<(usize, usize)> = Vec::new();
    // Whether a tool message came since the last assistant message.
    let mut answering = false;
    let unanswered = |(m, p): (usize, usize)| {
        let content = messages[m].0.field("content");
        let reason = "has no tool result right after it (answer it, or cut the history before it)";
        content.index(p).field("id").wrong(reason)
    };
    for (i, (at, message)) in messages.iter().enumerate() {
        match message.role {
            Role::Tool => answering = true,
            Role::System if lifts_system => continue,
            Role::Assistant if !answering => {}
            _ => {
                if let Some(&call) = pending.first() {
                    return Err(unanswered(call));
                }
                answering = false;
            }
        }
        for (j, part) in message.parts.iter().enumerate() {
            match part {
                Part::ToolCall { .. } => pending.push((i, j)),
                Part::ToolResult { call_id, .. } => {
                    let answers = |&(m, p): &(usize, usize)| matches!(&messages[m].1.parts[p], Part::ToolCall { id, .. } if id == call_id);
                    match pending.iter().position(answers) {
                        Some(k) => {
                            pending.remove(k);
                        }
                        None => {
                            let content = at.field("content");
                            let reason = "answers no tool call just before it (cut a history where a user message starts)";
                            return Err(content.index(j).field("callId").wrong(reason));
                        }
                    }
                }
                _ => {}
            }
        }
    }
    pending
        .first()
        .map_or(Ok(()), |&call| Err(unanswered(call)))
}

#[cfg(test)]
mod tests;
