//! Prefix stability: whether this turn's pinned prefix is byte-identical to
//! the last one checked, and if not, where it first differs and whose
//! attachment that byte belongs to.

/// The pinned prefix as checked: each part's id and text, in consolidated
/// order. Its bytes are the texts' UTF-8, back to back.
pub type PrefixParts = Vec<(String, String)>;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PrefixChange {
    /// The first byte offset at which the two prefixes differ.
    pub offset: usize,
    /// The attachment holding that byte in the current prefix, or, when
    /// the current prefix ends there, in the previous one.
    pub attachment_id: String,
}

/// `None` when both prefixes are byte-identical.
pub fn first_change(
    previous: &[(String, String)],
    current: &[(String, String)],
) -> Option<PrefixChange> {
    let (mut old, mut new) = (bytes(previous), bytes(current));
    let mut offset = 0;
    loop {
        match (old.next(), new.next()) {
            (None, None) => return None,
            (Some((a, _)), Some((b, id))) if a != b => return Some(change(offset, id)),
            (Some(_), Some(_)) => offset += 1,
            (_, Some((_, id))) | (Some((_, id)), None) => return Some(change(offset, id)),
        }
    }
}

/// Each byte of the prefix with the id of the attachment it belongs to.
fn bytes(parts: &[(String, String)]) -> impl Iterator<Item = (u8, &str)> {
    parts
        .iter()
        .flat_map(|(id, text)| text.bytes().map(move |b| (b, id.as_str())))
}

fn change(offset: usize, id: &str) -> PrefixChange {
    PrefixChange {
        offset,
        attachment_id: id.to_owned(),
    }
}
