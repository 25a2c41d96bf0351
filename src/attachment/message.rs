use serde::ser::{Serialize, SerializeMap, SerializeSeq, Serializer};

/// The consolidated attachment message: one all-text user message with one
/// text part per attachment. It serializes as
/// `{"role":"user","content":[{"type":"text","text":...},...]}`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConsolidatedMessage<'a> {
    pub parts: Vec<&'a str>,
}

impl ConsolidatedMessage<'_> {
    pub const ROLE: &'static str = "user";
}

impl Serialize for ConsolidatedMessage<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut message = serializer.serialize_map(Some(2))?;
        message.serialize_entry("role", Self::ROLE)?;
        message.serialize_entry("content", &TextParts(&self.parts))?;
        message.end()
    }
}

struct TextParts<'s, 'a>(&'s [&'a str]);

impl Serialize for TextParts<'_, '_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut parts = serializer.serialize_seq(Some(self.0.len()))?;
        for text in self.0 {
            parts.serialize_element(&TextPart(text))?;
        }
        parts.end()
    }
}

struct TextPart<'a>(&'a str);

impl Serialize for TextPart<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut part = serializer.serialize_map(Some(2))?;
        part.serialize_entry("type", "text")?;
        part.serialize_entry("text", self.0)?;
        part.end()
    }
}
