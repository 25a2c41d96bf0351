use crate::json::Value;
use crate::message::{Message, Part};

use crate::Error;

/// Counts the tokens of a list of messages, each checked as a message.
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
    /// 37/10; unlike it, a ratio out of range is an error rather than a
    /// silent 4.0. The range keeps the decimal exact and its arithmetic
    /// in u64 for histories up to about 180 MB.
    pub fn ratio(ratio: f64, per_message: u64) -> Result<Self, Error> {
        let single = ratio as f32;
        let invalid = || {
            Error::argument(
                "counter.ratio",
                "must be a number of characters per token from 0.01 to 10000",
            )
        };
        if !(0.01..=10_000.0).contains(&single) {
            return Err(invalid());
        }
        let (num, den) = shortest_decimal(single)
            .filter(|(num, _)| *num > 0)
            .ok_or_else(invalid)?;
        Ok(Counter::Ratio {
            num,
            den,
            per_message,
        })
    }
}

/// `x` as the shortest decimal that reads back as `x`, which is what
/// Rust's `Display` prints, as `(num, den)` with `den` a power of ten;
/// `None` from 9e15 up. Written out because float formatting costs the
/// wasm about 15 KB.
pub(crate) fn shortest_decimal(x: f32) -> Option<(u64, u64)> {
    let wide = f64::from(x);
    if !(0.0..9.0e15).contains(&wide) {
        return None;
    }
    // Coarsest step first: 10^15, ..., 10, 1, 1/10, ..., 1/10^19.
    for places in -15_i32..=19 {
        let (scale, step) = if places < 0 {
            (1.0, 10_f64.powi(-places))
        } else {
            (10_f64.powi(places), 1.0)
        };
        let scaled = wide * scale / step;
        // The two decimals of this step next to x: if any does, one of them
        // reads back as x; the nearer wins, a tie going up, as in Display.
        let (low, high) = (scaled.floor(), scaled.ceil());
        let reads_back = |n: f64| (n * step / scale) as f32 == x;
        let best = match (reads_back(low), reads_back(high)) {
            (true, true) if scaled - low < high - scaled => low,
            (true, true) | (false, true) => high,
            (true, false) => low,
            (false, false) => continue,
        };
        return Some(((best * step) as u64, scale as u64));
    }
    None
}

impl Counter {
    /// The count for messages of these rendered character counts: the
    /// arithmetic alone, for callers that already know the characters.
    /// At most 2^53 - 1, as a host's counter may return: JS reads it exactly.
    pub fn count_chars(&self, per_message: &[u64]) -> u64 {
        let count = match *self {
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
                // (scaled + overhead × num × n) / num, with the overhead
                // added whole: scaled by num first, it saturated, and a
                // larger overhead counted less.
                (scaled / num).saturating_add(overhead.saturating_mul(per_message.len() as u64))
            }
        };
        count.min(super::MAX_SAFE)
    }
}

impl TokenCounter for Counter {
    fn count(&self, messages: &[Value]) -> Result<u64, Error> {
        Ok(self.count_messages(&Message::list(messages, "messages")?))
    }
}

impl Counter {
    pub fn count_messages(&self, messages: &[Message]) -> u64 {
        let chars: Vec<u64> = crate::map_vec(messages, rendered_chars);
        self.count_chars(&chars)
    }
}

/// A message's rendered characters: Unicode scalar values of text and
/// thinking parts, 256 per image, a tool call's name plus its arguments'
/// JSON, a tool result's parts.
pub fn rendered_chars(message: &Message) -> u64 {
    parts_chars(&message.parts)
}

fn parts_chars(parts: &[Part]) -> u64 {
    parts.iter().fold(0_u64, |sum, part| {
        sum.saturating_add(match part {
            Part::Text(text) => chars(text),
            Part::Thinking { thinking, .. } => chars(thinking),
            Part::Image(_) => IMAGE_CHARS,
            Part::ToolCall {
                name, arguments, ..
            } => chars(name).saturating_add(chars(&arguments.to_json())),
            Part::ToolResult { content, .. } => parts_chars(content),
        })
    })
}

/// Code points: the bytes that start one. core's `chars().count()` is
/// 0.8 KB of unrolled wasm for the same answer.
pub(crate) fn chars(text: &str) -> u64 {
    text.bytes().filter(|b| b & 0xC0 != 0x80).count() as u64
}
