//! JSON text in and out. The parser is strict (RFC 8259) and never panics:
//! stored text may have been written by anyone. Nesting is capped, as in
//! serde_json, so no input can exhaust the wasm stack.

use super::{Map, Number, Value};

/// How deep a stored value (a frame, a message, a state value, a session's
/// meta) may nest.
pub const MAX_DEPTH: usize = 128;
/// How deep text may nest: what carries a stored value (a turn's frames,
/// an import's document) adds up to 4 levels, and a value refused there
/// could never be imported back. The stores check each value's own depth.
pub const PARSE_DEPTH: usize = MAX_DEPTH + 4;

/// Why text is not JSON; no position, since hosts never see the text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ParseError {
    Syntax,
    TooDeep,
}

impl ParseError {
    pub fn reason(self) -> &'static str {
        match self {
            ParseError::Syntax => "is not valid JSON",
            ParseError::TooDeep => "nests more than 128 levels deep",
        }
    }
}

pub fn parse(text: &str) -> Result<Value, ParseError> {
    let mut parser = Parser {
        bytes: text.as_bytes(),
        at: 0,
    };
    let value = parser.value(0)?;
    parser.space();
    if parser.at == parser.bytes.len() {
        Ok(value)
    } else {
        Err(ParseError::Syntax)
    }
}

struct Parser<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl Parser<'_> {
    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.at).copied()
    }

    fn space(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            self.at += 1;
        }
    }

    fn eat(&mut self, byte: u8) -> bool {
        self.space();
        let found = self.peek() == Some(byte);
        self.at += usize::from(found);
        found
    }

    fn word(&mut self, word: &[u8], value: Value) -> Result<Value, ParseError> {
        if self.bytes[self.at..].starts_with(word) {
            self.at += word.len();
            Ok(value)
        } else {
            Err(ParseError::Syntax)
        }
    }

    fn value(&mut self, depth: usize) -> Result<Value, ParseError> {
        self.space();
        match self.peek().ok_or(ParseError::Syntax)? {
            b'n' => self.word(b"null", Value::Null),
            b't' => self.word(b"true", Value::Bool(true)),
            b'f' => self.word(b"false", Value::Bool(false)),
            b'"' => self.string().map(Value::String),
            b'[' | b'{' if depth >= PARSE_DEPTH => Err(ParseError::TooDeep),
            b'[' => {
                self.at += 1;
                let mut items = Vec::new();
                if !self.eat(b']') {
                    loop {
                        items.push(self.value(depth + 1)?);
                        if self.eat(b']') {
                            break;
                        }
                        if !self.eat(b',') {
                            return Err(ParseError::Syntax);
                        }
                    }
                }
                Ok(Value::Array(items))
            }
            b'{' => {
                self.at += 1;
                // Pushed, not inserted: JSON.stringify never repeats a key,
                // and checking would make a wide object quadratic.
                let mut fields = Vec::new();
                if !self.eat(b'}') {
                    loop {
                        self.space();
                        if self.peek() != Some(b'"') {
                            return Err(ParseError::Syntax);
                        }
                        let key = self.string()?;
                        if !self.eat(b':') {
                            return Err(ParseError::Syntax);
                        }
                        fields.push((key, self.value(depth + 1)?));
                        if self.eat(b'}') {
                            break;
                        }
                        if !self.eat(b',') {
                            return Err(ParseError::Syntax);
                        }
                    }
                }
                Ok(Value::Object(Map(fields)))
            }
            _ => self.number(),
        }
    }

    fn number(&mut self) -> Result<Value, ParseError> {
        let start = self.at;
        let digits = |p: &mut Self| {
            let from = p.at;
            while p.peek().is_some_and(|b| b.is_ascii_digit()) {
                p.at += 1;
            }
            p.at > from
        };
        self.at += usize::from(self.peek() == Some(b'-'));
        match self.peek() {
            Some(b'0') => self.at += 1,
            Some(b'1'..=b'9') => {
                digits(self);
            }
            _ => return Err(ParseError::Syntax),
        }
        if self.peek() == Some(b'.') {
            self.at += 1;
            if !digits(self) {
                return Err(ParseError::Syntax);
            }
        }
        if matches!(self.peek(), Some(b'e' | b'E')) {
            self.at += 1;
            if matches!(self.peek(), Some(b'+' | b'-')) {
                self.at += 1;
            }
            if !digits(self) {
                return Err(ParseError::Syntax);
            }
        }
        // Only ASCII was consumed, so this slice is on char boundaries.
        let text =
            std::str::from_utf8(&self.bytes[start..self.at]).map_err(|_| ParseError::Syntax)?;
        Ok(Value::Number(Number(text.to_owned())))
    }

    fn string(&mut self) -> Result<String, ParseError> {
        self.at += 1; // the opening quote
        let mut out = Vec::new();
        loop {
            let byte = self.peek().ok_or(ParseError::Syntax)?;
            self.at += 1;
            match byte {
                b'"' => break,
                b'\\' => {
                    let escaped = self.peek().ok_or(ParseError::Syntax)?;
                    self.at += 1;
                    let simple = match escaped {
                        b'"' => b'"',
                        b'\\' => b'\\',
                        b'/' => b'/',
                        b'b' => 8,
                        b'f' => 12,
                        b'n' => b'\n',
                        b'r' => b'\r',
                        b't' => b'\t',
                        b'u' => {
                            let c = self.unicode_escape()?;
                            out.extend_from_slice(c.encode_utf8(&mut [0; 4]).as_bytes());
                            continue;
                        }
                        _ => return Err(ParseError::Syntax),
                    };
                    out.push(simple);
                }
                0..=0x1f => return Err(ParseError::Syntax),
                _ => out.push(byte),
            }
        }
        // The input was a &str and escapes wrote whole chars: still UTF-8.
        String::from_utf8(out).map_err(|_| ParseError::Syntax)
    }

    fn hex4(&mut self) -> Result<u32, ParseError> {
        let digits = self
            .bytes
            .get(self.at..self.at + 4)
            .ok_or(ParseError::Syntax)?;
        self.at += 4;
        digits.iter().try_fold(0, |n, &d| {
            let v = (d as char).to_digit(16).ok_or(ParseError::Syntax)?;
            Ok(n * 16 + v)
        })
    }

    /// `\uXXXX`, joining a surrogate pair; a lone surrogate is refused,
    /// never replaced, as everywhere else in attache.
    fn unicode_escape(&mut self) -> Result<char, ParseError> {
        let first = self.hex4()?;
        let code = if (0xD800..0xDC00).contains(&first) {
            if self.bytes.get(self.at..self.at + 2) != Some(b"\\u") {
                return Err(ParseError::Syntax);
            }
            self.at += 2;
            let second = self.hex4()?;
            if !(0xDC00..0xE000).contains(&second) {
                return Err(ParseError::Syntax);
            }
            0x10000 + ((first - 0xD800) << 10) + (second - 0xDC00)
        } else {
            first
        };
        char::from_u32(code).ok_or(ParseError::Syntax)
    }
}

/// Compact JSON, escaping as `JSON.stringify` and serde_json do.
pub fn write(value: &Value, out: &mut String) {
    match value {
        Value::Null => out.push_str("null"),
        Value::Bool(true) => out.push_str("true"),
        Value::Bool(false) => out.push_str("false"),
        Value::Number(Number(text)) => out.push_str(text),
        Value::String(text) => write_string(text, out),
        Value::Array(items) => write_array(items, out),
        Value::Object(Map(fields)) => {
            out.push('{');
            for (i, (key, item)) in fields.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_string(key, out);
                out.push(':');
                write(item, out);
            }
            out.push('}');
        }
    }
}

pub fn write_array(items: &[Value], out: &mut String) {
    out.push('[');
    for (i, item) in items.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        write(item, out);
    }
    out.push(']');
}

pub fn write_string(text: &str, out: &mut String) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            '\0'..='\u{1f}' => {
                let b = c as usize;
                out.push_str("\\u00");
                out.push(HEX[b >> 4] as char);
                out.push(HEX[b & 15] as char);
            }
            _ => out.push(c),
        }
    }
    out.push('"');
}
