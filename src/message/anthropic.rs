//! Anthropic Messages. System text goes to the top-level `system`; tool
//! results ride in the user turn, so a tool message and the user message
//! after it become one turn, and are split again on the way back.

use super::{blank, image_url, object, At, Fields, Image, Message, Part, Role, Sourced, NO_OUTPUT};
use crate::json::{Map, Value};
use crate::text::{is_blank, trim_end};
use crate::Error;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Join {
    /// Tool results: more results or the user's next message join.
    Results,
    /// All text: another all-text user message joins.
    Text,
    /// An assistant turn with a tool call: the next assistant message
    /// joins (the Agents adapter stores each parallel call as its own), as
    /// each `tool_use` must be answered in the very next user turn.
    Calls,
    Nothing,
}

fn text_block(text: &str) -> Value {
    object([("type", "text".into()), ("text", text.into())])
}

fn block(part: &Part, at: At) -> Result<Value, Error> {
    Ok(match part {
        Part::Text(text) => text_block(text),
        Part::Image(image) => {
            // Anthropic fetches a `url` source, so a data: URL goes as its
            // base64 data.
            let source = match super::sent_image(image, at, ["mediaType", "data"])? {
                None => object([("type", "url".into()), ("url", image_url(image).into())]),
                Some((media_type, data)) => object([
                    ("type", "base64".into()),
                    ("media_type", media_type.into()),
                    ("data", data.into()),
                ]),
            };
            object([("type", "image".into()), ("source", source)])
        }
        Part::ToolCall {
            id,
            name,
            arguments,
        } => {
            if !arguments.is_object() {
                return Err(at
                    .field("arguments")
                    .wrong("Anthropic takes an object as tool input"));
            }
            object([
                ("type", "tool_use".into()),
                ("id", id.as_str().into()),
                ("name", name.as_str().into()),
                ("input", arguments.clone()),
            ])
        }
        Part::ToolResult {
            call_id,
            content,
            is_error,
        } => {
            let mut result = Map::new();
            result.push_field("type".into(), "tool_result".into());
            result.push_field("tool_use_id".into(), call_id.as_str().into());
            super::error_images(content, *is_error, at.field("isError"))?;
            let content_at = at.field("content");
            let mut blocks = Vec::new();
            for (i, part) in content.iter().enumerate() {
                // Anthropic refuses a blank text, as a block and as the
                // string content alike: a blank success goes with none.
                if blank(part) {
                    continue;
                }
                blocks.push(block(part, content_at.index(i))?);
            }
            match blocks.as_slice() {
                [] if *is_error => result.push_field("content".into(), NO_OUTPUT.into()),
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
            let signature = signature.as_deref().ok_or_else(|| {
                at.field("signature")
                    .wrong("Anthropic needs a thinking part's signature")
            })?;
            object([
                ("type", "thinking".into()),
                ("thinking", thinking.as_str().into()),
                ("signature", signature.into()),
            ])
        }
    })
}

/// `{system?, messages}`. `cache_control`, if given, goes on the last two
/// blocks of message `pinned_at`.
pub fn to_anthropic(
    messages: &[Sourced],
    pinned_at: Option<usize>,
    cache_control: Option<&Value>,
) -> Result<Value, Error> {
    // Every system text, in order, as a block: Anthropic has one
    // top-level system.
    let mut system: Vec<Value> = Vec::new();
    // Each turn: its role, its blocks, and what may still join it.
    let mut turns: Vec<(&str, Vec<Value>, Join)> = Vec::new();
    for (index, (at, message)) in messages.iter().enumerate() {
        if message.role == Role::System {
            for part in &message.parts {
                if let Part::Text(text) = part {
                    if !is_blank(text) {
                        system.push(text_block(text));
                    }
                }
            }
            continue;
        }
        let content_at = at.field("content");
        let mut blocks = Vec::new();
        for (i, part) in message.parts.iter().enumerate() {
            // Anthropic refuses an empty or blank text block, and it
            // carries nothing (an OpenAI reply's "" beside its tool calls,
            // Claude's "\n\n" before one).
            if !blank(part) {
                blocks.push(block(part, content_at.index(i))?);
            }
        }
        // An assistant message with nothing to send (an empty reply; an
        // agent's hosted tool call, which has no neutral form) is left
        // out. A user's is refused: left out, the request could end on an
        // assistant message, which Anthropic reads as a prefill.
        if blocks.is_empty() && message.role == Role::Assistant {
            continue;
        }
        if blocks.is_empty() {
            return Err(content_at.wrong("Anthropic takes no message without content"));
        }
        // The last pinned block and the one before it: a cache entry is
        // written only at a breakpoint, and the last pin (the todo list)
        // changes most, so the pins before it still hit.
        if let Some(marker) = cache_control.filter(|_| pinned_at == Some(index)) {
            for block in blocks.iter_mut().rev().take(2) {
                if let Value::Object(block) = block {
                    block.insert("cache_control".into(), marker.clone());
                }
            }
        }
        let all_text = blocks.iter().all(|b| b["type"] == "text");
        let text = if all_text { Join::Text } else { Join::Nothing };
        let (role, opens) = match message.role {
            Role::Assistant
                if message
                    .parts
                    .iter()
                    .any(|p| matches!(p, Part::ToolCall { .. })) =>
            {
                ("assistant", Join::Calls)
            }
            Role::Assistant => ("assistant", Join::Nothing),
            Role::Tool => ("user", Join::Results),
            _ => ("user", text),
        };
        // Tool results, then what the user says next, are one user turn;
        // so are adjacent all-text user messages (the pinned prefix, then
        // the first user message, say).
        let joins = match turns.last() {
            Some(("user", _, open)) if role == "user" => match (*open, message.role) {
                (Join::Results, Role::Tool) => Some(Join::Results),
                (Join::Results, _) => Some(text),
                (Join::Text, Role::User) if all_text => Some(Join::Text),
                _ => None,
            },
            Some(("assistant", _, Join::Calls)) if role == "assistant" => Some(Join::Calls),
            _ => None,
        };
        match (joins, turns.last_mut()) {
            (Some(next), Some((_, last, open))) => {
                last.append(&mut blocks);
                *open = next;
            }
            _ => turns.push((role, blocks, opens)),
        }
    }
    // A request that ends on an assistant turn continues it (a prefill),
    // and Anthropic refuses one whose text ends in whitespace.
    if let Some(("assistant", blocks, _)) = turns.last_mut() {
        if let Some(Value::Object(last)) = blocks.last_mut() {
            if let Some(Value::String(text)) = last.get_mut("text") {
                trim_end(text);
            }
        }
    }
    let mut request = Map::new();
    // One text stays a string; several are blocks, so none is merged
    // into another and `fromAnthropic` gives each back. Blank ones were
    // left out above: Anthropic refuses them, as a string too.
    if system.len() == 1 {
        let text = system.pop().and_then(|b| b.get("text").cloned());
        request.push_field("system".into(), text.unwrap_or_default());
    } else if !system.is_empty() {
        request.push_field("system".into(), Value::Array(system));
    }
    let mut messages: Vec<Value> = turns
        .into_iter()
        .map(|(role, blocks, _)| object([("role", role.into()), ("content", Value::Array(blocks))]))
        .collect();
    wire_ids(&mut messages, ["tool_use", "id", "tool_use_id", ""], |s| s);
    request.push_field("messages".into(), Value::Array(messages));
    Ok(Value::Object(request))
}

/// Anthropic takes tool-use ids of ASCII letters, digits, `_` and `-`, each
/// once in a request. Other providers' (`functions.get:0`, or `call_0` in
/// every reply) are rewritten: another character becomes `_`, and a repeat
/// as UniqueIds does. Other ids go as they are, or as `fit` makes them.
/// `keys`: a call's type, its id's key, a result's, and the tool name's a
/// result takes from its call (the AI SDK's parts too; `""` for none).
pub(super) fn wire_ids(
    messages: &mut [Value],
    [call_type, call_key, result_key, name_key]: [&str; 4],
    fit: fn(String) -> String,
) {
    let mut ids = UniqueIds::default();
    let valid = |c: char| c.is_ascii_alphanumeric() || c == '_' || c == '-';
    for (turn, message) in messages.iter_mut().enumerate() {
        // Every message here was built with a content.
        let Value::Array(blocks) = &mut message["content"] else {
            continue;
        };
        for block in blocks.iter_mut() {
            let Value::Object(block) = block else {
                continue;
            };
            let call = matches!(block.get("type"), Some(Value::String(t)) if t == call_type);
            let key = if call { call_key } else { result_key };
            // A call's tool name, for the result that answers it.
            let name = call.then(|| block.get(name_key).cloned()).flatten();
            let Some(Value::String(id)) = block.get_mut(key) else {
                continue;
            };
            if !call {
                // The call it answers names it: a reply's repeated id
                // would name the newer call's tool.
                if let Some(name) = ids.result(id) {
                    block.insert(name_key.into(), name);
                }
                continue;
            }
            let base: String = id.chars().map(|c| if valid(c) { c } else { '_' }).collect();
            let wire = fit(if base.is_empty() { "_" } else { &base }.to_owned());
            ids.call(id, &base, wire, (turn, name), fit);
        }
    }
}

/// Ids each sent once in a request: a repeat of a call's id gets `_2`,
/// `_3`…, and each result follows its call. A rename depends only on what
/// came before: the prefix holds.
#[derive(Default)]
pub(super) struct UniqueIds {
    // Sorted, searched by halves (a gateway's `call_0` repeats every
    // turn), each with the next suffix to try after it.
    used: Vec<(String, usize)>,
    // Calls not yet answered: (id, wire id, message, tool name). A result
    // answers the newest message's call of its id, the first of them
    // there: the AI SDK's format lets a result come turns later (toAiSdk
    // checks no pairs), and a reused id's older call may be unanswered.
    open: Vec<(String, String, usize, Option<Value>)>,
}

impl UniqueIds {
    /// A call's id, sent as `wire` or, taken, as `fit("{base}_{n}")`.
    pub(super) fn call(
        &mut self,
        id: &mut String,
        base: &str,
        mut wire: String,
        (turn, name): (usize, Option<Value>),
        fit: fn(String) -> String,
    ) {
        let mut first = None;
        let at = loop {
            match self.used.binary_search_by(|(u, _)| u.as_str().cmp(&wire)) {
                Err(at) => break at,
                Ok(k) => {
                    let k = *first.get_or_insert(k);
                    wire = fit(format!("{base}_{}", self.used[k].1));
                    self.used[k].1 += 1;
                }
            }
        };
        self.used.insert(at, (wire.clone(), 2));
        self.open
            .push((std::mem::replace(id, wire.clone()), wire, turn, name));
    }

    /// A result's id, as its call's went; the call's tool name.
    pub(super) fn result(&mut self, id: &mut String) -> Option<Value> {
        let open = &mut self.open;
        let last = open.iter().rposition(|(from, ..)| from == id)?;
        let newest = open[last].2;
        let k = open
            .iter()
            .position(|(from, _, t, _)| from == id && *t == newest)
            .unwrap_or(last);
        let (_, wire, _, name) = open.remove(k);
        *id = wire;
        name
    }
}

/// Messages, one message, `{system?, messages}` (a request), or a response
/// (`{type: "message", content}`). A user turn holding tool results splits
/// into a tool message and, if more follows, a user message.
pub fn from_anthropic(input: &Value, at: At) -> Result<Vec<Message>, Error> {
    let mut out = Vec::new();
    if let Value::Array(items) = input {
        for (i, item) in items.iter().enumerate() {
            message(item, at.index(i), &mut out)?;
        }
        return Ok(out);
    }
    let object = Fields::of(
        input,
        at,
        "must be messages, a message, a request or a response",
    )?;
    if object.get("type").is_some_and(|t| *t == "message") {
        let content = blocks(object.any("content")?, object.at("content"), "assistant")?;
        out.push(Message::new(Role::Assistant, content));
    } else if object.get("messages").is_some() {
        if let Some(system) = object.get("system") {
            out.push(Message::new(
                Role::System,
                blocks(system, object.at("system"), "system")?,
            ));
        }
        let list = object.at("messages");
        for (i, item) in object.list("messages")?.iter().enumerate() {
            message(item, list.index(i), &mut out)?;
        }
    } else {
        message(input, at, &mut out)?;
    }
    Ok(out)
}

fn message(value: &Value, at: At, out: &mut Vec<Message>) -> Result<(), Error> {
    let message = Fields::of(value, at, "must be an Anthropic message: {role, content}")?;
    message.only(&["role", "content"])?;
    // The role first: its blocks are judged by it.
    let name = message.str("role")?;
    let role = match name {
        "user" => Role::User,
        "assistant" => Role::Assistant,
        "system" => Role::System,
        _ => return Err(message.wrong("role", "must be \"user\", \"assistant\" or \"system\"")),
    };
    let parts = blocks(message.any("content")?, message.at("content"), name)?;
    if role != Role::User {
        out.push(Message::new(role, parts));
        return Ok(());
    }
    // Runs of tool results become tool messages; the rest, user messages.
    let mut run: Vec<Part> = Vec::new();
    let mut results = false;
    for part in parts {
        let is_result = matches!(part, Part::ToolResult { .. });
        if !run.is_empty() && results != is_result {
            out.push(run_message(std::mem::take(&mut run), results));
        }
        results = is_result;
        run.push(part);
    }
    out.push(run_message(run, results));
    Ok(())
}

fn run_message(parts: Vec<Part>, results: bool) -> Message {
    Message::new(if results { Role::Tool } else { Role::User }, parts)
}

/// `content`: a string or an array of blocks.
fn blocks(content: &Value, at: At, role: &str) -> Result<Vec<Part>, Error> {
    let mut parts = Vec::new();
    match content {
        Value::String(text) => parts.push(Part::Text(text.clone())),
        Value::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                parts.push(part(item, at.index(i), role)?);
            }
        }
        _ => return Err(at.wrong("must be a string or an array of blocks")),
    }
    Ok(parts)
}

fn part(value: &Value, at: At, role: &str) -> Result<Part, Error> {
    let block = Fields::of(value, at, "must be a content block")?;
    let kind = block.str("type")?;
    // `cache_control` is a request's caching hint, not content.
    let allowed: &[&str] = match (kind, role) {
        ("text", _) => &["type", "text", "cache_control", "citations"],
        ("image", "user" | "tool") => &["type", "source", "cache_control"],
        // `caller` and `toolset_name` are in every response of the current
        // SDK; a direct call and no toolset are what a request without them means.
        ("tool_use", "assistant") => &[
            "type",
            "id",
            "name",
            "input",
            "cache_control",
            "caller",
            "toolset_name",
        ],
        ("thinking", "assistant") => &["type", "thinking", "signature"],
        ("tool_result", "user") => &[
            "type",
            "tool_use_id",
            "content",
            "is_error",
            "cache_control",
        ],
        _ => return Err(block.wrong("type", "is not a block attache converts here")),
    };
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
                block.at("source"),
                "must be an object",
            )?;
            let image = match source.str("type")? {
                "url" => {
                    source.only(&["type", "url"])?;
                    super::image_from_url(source.str("url")?)
                }
                // The type in lower case, as `sent_image` reads it and
                // `is_image` asks, or no later turn would take it.
                "base64" => {
                    source.only(&["type", "media_type", "data"])?;
                    Image::Base64 {
                        media_type: source.str("media_type")?.to_ascii_lowercase(),
                        data: source.string("data")?,
                    }
                }
                _ => return Err(source.wrong("type", "must be \"url\" or \"base64\"")),
            };
            // Only what toAnthropic sends back, or every later turn fails.
            super::sent_image(&image, block.at("source"), ["media_type", "data"])?;
            Part::Image(image)
        }
        "tool_use" => {
            if let Some(caller) = block.get("caller").filter(|c| !c.is_null()) {
                let direct = caller.as_object().is_some_and(|c| c.len() == 1);
                if !direct || caller["type"] != "direct" {
                    // A call from code execution needs its server tool blocks.
                    return Err(block.wrong("caller", "must be {type: \"direct\"}"));
                }
            }
            block.absent(&["toolset_name"], "is not converted")?;
            Part::ToolCall {
                id: block.string("id")?,
                name: block.string("name")?,
                // As toAnthropic sends it back, or every later turn fails.
                arguments: match block.any("input")? {
                    input if input.is_object() => input.clone(),
                    _ => return Err(block.wrong("input", "must be an object")),
                },
            }
        }
        "thinking" => Part::Thinking {
            thinking: block.string("thinking")?,
            signature: Some(block.string("signature")?),
        },
        _ => {
            let content = match block.get("content") {
                None => Vec::new(),
                Some(content) => blocks(content, block.at("content"), "tool")?,
            };
            let is_error = block.opt_bool("is_error")?.unwrap_or(false);
            // As toAnthropic would refuse to send it back.
            super::error_images(&content, is_error, block.at("is_error"))?;
            Part::ToolResult {
                call_id: block.string("tool_use_id")?,
                content,
                is_error,
            }
        }
    })
}
