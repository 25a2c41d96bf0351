use serde_json::Value;

use crate::Error;

/// Counts the tokens of a list of messages.
pub trait TokenCounter {
    fn count(&self, messages: &[Value]) -> Result<u64, Error>;
}

/// The reference's built-in counters.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Counter {
    /// `floor(Σ(chars + 20) / 4)`.
    Heuristic,
    /// `floor((Σ chars × den + per_message × num × messages) / num)` for a
    /// ratio of exactly `num / den`.
    Ratio {
        num: u64,
        den: u64,
        per_message: u64,
    },
}

const MESSAGE_OVERHEAD_CHARS: u64 = 20;
const CHARS_PER_TOKEN: u64 = 4;
const IMAGE_CHARS: u64 = 256;

impl Counter {
    /// `openai` (4.30, 4), `anthropic` (3.60, 5), `gemini` (4.05, 4),
    /// `local` (3.80, 4), or `heuristic`.
    pub fn named(name: &str) -> Option<Self> {
        let ratio = |num, den, per_message| Counter::Ratio {
            num,
            den,
            per_message,
        };
        match name {
            "heuristic" => Some(Counter::Heuristic),
            "openai" => Some(ratio(43, 10, 4)),
            "anthropic" => Some(ratio(36, 10, 5)),
            "gemini" => Some(ratio(405, 100, 4)),
            "local" => Some(ratio(38, 10, 4)),
            _ => None,
        }
    }

    /// A ratio counter. Like the reference, the ratio is taken at `f32`
    /// precision and read as the decimal it prints as, so `3.7` is exactly
    /// 37/10; unlike it, a ratio that is not positive and finite is an
    /// error rather than a silent 4.0.
    pub fn ratio(ratio: f64, per_message: u64) -> Result<Self, Error> {
        let single = ratio as f32;
        let invalid = || Error::InvalidArgument {
            field: "ratio".to_owned(),
            reason: format!("must be a positive finite number, got {ratio}"),
        };
        if !(single.is_finite() && single > 0.0) {
            return Err(invalid());
        }
        let (num, den) = decimal(&format!("{single}"))
            .filter(|(num, _)| *num > 0)
            .ok_or_else(invalid)?;
        Ok(Counter::Ratio {
            num,
            den,
            per_message,
        })
    }
}

/// `"4.05"` as `(405, 100)`; `None` past u64.
fn decimal(text: &str) -> Option<(u64, u64)> {
    let (whole, fraction) = text.split_once('.').unwrap_or((text, ""));
    let whole: u64 = if whole.is_empty() {
        0
    } else {
        whole.parse().ok()?
    };
    if fraction.is_empty() {
        return Some((whole, 1));
    }
    let den = 10_u64.checked_pow(u32::try_from(fraction.len()).ok()?)?;
    Some((
        whole
            .checked_mul(den)?
            .checked_add(fraction.parse().ok()?)?,
        den,
    ))
}

impl Counter {
    /// The count for messages of these rendered character counts: the
    /// arithmetic alone, for callers that already know the characters.
    pub fn count_chars(&self, per_message: &[u64]) -> u64 {
        match *self {
            Counter::Heuristic => {
                let total = per_message.iter().fold(0_u64, |sum, c| {
                    sum.saturating_add(c.saturating_add(MESSAGE_OVERHEAD_CHARS))
                });
                total / CHARS_PER_TOKEN
            }
            Counter::Ratio {
                num,
                den,
                per_message: overhead,
            } => {
                let scaled = per_message
                    .iter()
                    .fold(0_u64, |sum, c| sum.saturating_add(c.saturating_mul(den)));
                let overhead = overhead
                    .saturating_mul(num)
                    .saturating_mul(per_message.len() as u64);
                scaled.saturating_add(overhead) / num
            }
        }
    }
}

impl TokenCounter for Counter {
    fn count(&self, messages: &[Value]) -> Result<u64, Error> {
        let chars = messages
            .iter()
            .enumerate()
            .map(|(i, m)| rendered_chars(m, &format!("messages[{i}]")))
            .collect::<Result<Vec<u64>, Error>>()?;
        Ok(self.count_chars(&chars))
    }
}

/// A message's rendered characters: Unicode scalar values of text and
/// thinking parts, 256 per image, a tool call's name plus its input's
/// JSON, a tool result's text. `content` may also be a plain string.
pub fn rendered_chars(message: &Value, path: &str) -> Result<u64, Error> {
    match message.get("content") {
        Some(Value::String(text)) => Ok(chars(text)),
        Some(Value::Array(parts)) => parts.iter().enumerate().try_fold(0_u64, |sum, (i, part)| {
            Ok(sum.saturating_add(part_chars(part, &format!("{path}.content[{i}]"))?))
        }),
        _ => Err(Error::InvalidValue {
            path: format!("{path}.content"),
            reason: "must be a string or an array of parts".to_owned(),
        }),
    }
}

fn part_chars(part: &Value, path: &str) -> Result<u64, Error> {
    let text = |field: &str| part.get(field).and_then(Value::as_str).map(chars);
    let counted = match part.get("type").and_then(Value::as_str) {
        Some("text") => text("text"),
        Some("thinking") => text("thinking").or_else(|| text("text")),
        Some("image" | "image_url") => Some(IMAGE_CHARS),
        Some("tool_call" | "tool_use") => {
            let name = text("name");
            let input = part.get("input").or_else(|| part.get("arguments"));
            name.map(|name| name.saturating_add(input.map_or(0, |input| chars(&input.to_string()))))
        }
        Some("tool_result") => match part.get("content").or_else(|| part.get("output")) {
            Some(Value::String(output)) => Some(chars(output)),
            Some(Value::Array(parts)) => Some(
                parts
                    .iter()
                    .map(|p| match p.get("type").and_then(Value::as_str) {
                        Some("image" | "image_url") => IMAGE_CHARS,
                        _ => p.get("text").and_then(Value::as_str).map_or(0, chars),
                    })
                    .fold(0_u64, u64::saturating_add),
            ),
            _ => None,
        },
        _ => None,
    };
    counted.ok_or_else(|| Error::InvalidValue {
        path: path.to_owned(),
        reason: "is not a part attache can count (text, thinking, image, tool_call, tool_result)"
            .to_owned(),
    })
}

fn chars(text: &str) -> u64 {
    text.chars().count() as u64
}
