//! Request assembly: the consolidated attachment message, then contributor
//! messages, then memory transients, then the history, in one of three
//! shapes. Attachments never enter the history.

mod shapes;

use crate::json;
use crate::json::Value;

use crate::Error;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// attache's own messages: `{role, content: [parts]}`.
    Generic,
    OpenAiChat,
    AnthropicMessages,
}

impl Format {
    pub fn parse(name: &str) -> Option<Self> {
        match name {
            "generic" => Some(Format::Generic),
            "openai" => Some(Format::OpenAiChat),
            "anthropic" => Some(Format::AnthropicMessages),
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
    /// Anthropic only: the `cache_control` put on the last block of the
    /// pinned prefix.
    pub cache_control: Option<Value>,
}

/// What `cacheControl: true` means: Anthropic's default breakpoint, which
/// lives five minutes.
pub fn default_cache_control() -> Value {
    crate::json!({"type": "ephemeral"})
}

/// `{ messages }`, plus a top-level `system` for Anthropic.
pub fn build_request(format: Format, turn: Turn) -> Result<Value, Error> {
    for (i, message) in turn
        .history
        .iter()
        .chain(&turn.contributors)
        .chain(&turn.memories)
        .enumerate()
    {
        if !message.is_object() {
            return Err(Error::InvalidValue {
                path: format!("messages[{i}]"),
                reason: "must be a message object".to_owned(),
            });
        }
    }
    // A leading system message in the history stays first, as the reference
    // inserts pinned messages after it.
    let leading = turn
        .history
        .iter()
        .take_while(|m| m["role"] == "system")
        .count();
    let mut history = turn.history;
    let rest = history.split_off(leading);
    let mut messages: Vec<Value> = Vec::new();
    if let Some(system) = &turn.system {
        messages.push(json!({"role": "system", "content": [{"type": "text", "text": system}]}));
    }
    messages.extend(history);
    let pinned_at = turn.attachments.as_ref().map(|_| messages.len());
    messages.extend(turn.attachments);
    messages.extend(turn.contributors);
    messages.extend(turn.memories);
    messages.extend(rest);
    match format {
        Format::Generic => Ok(json!({ "messages": messages })),
        Format::OpenAiChat => Ok(json!({ "messages": shapes::openai(&messages) })),
        Format::AnthropicMessages => {
            Ok(shapes::anthropic(&messages, pinned_at, turn.cache_control))
        }
    }
}

#[cfg(test)]
mod tests;
