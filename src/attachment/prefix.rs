//! Prefix stability: whether this turn's pinned prefix is the same as the
//! last one checked, part for part, and if not, where it first differs and
//! which attachment changed. Providers cache the blocks sent, so text that
//! moves between parts breaks the cache even when the bytes run the same.

use super::{AttachmentKind, AttachmentStore};

/// One part of the pinned prefix as checked. The prefix's bytes are the
/// texts' UTF-8, back to back, in consolidated order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PrefixPart {
    pub id: String,
    pub text: String,
    /// What it ranks as: a part whose kind changed was re-pinned in place.
    pub kind: AttachmentKind,
    /// The store's revision when it was rendered (see `AttachmentStore::parts`).
    pub serial: u64,
}

pub type PrefixParts = Vec<PrefixPart>;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PrefixChange {
    /// The byte offset, into the concatenated texts, where the first
    /// differing part starts to differ.
    pub offset: usize,
    /// The attachment that changed: one detached, newly pinned, whose text
    /// differs, or that moved (see `first_change`).
    pub attachment_id: String,
}

/// `None` when both prefixes have the same texts, part by part: the blocks
/// sent. Else where the first differing part starts to differ, and which
/// attachment did it: one detached or newly pinned there or before it
/// (parts of one text may have shifted over it), else the part there
/// whose text changed, else one that moved: first one rendered after
/// revision `seen` or now of another kind (a part two re-pins shifted is
/// neither), then the one that moved furthest, then the one rendered last.
pub fn first_change<'a>(
    previous: &'a [PrefixPart],
    current: &'a [PrefixPart],
    seen: u64,
) -> Option<PrefixChange> {
    // Parts before `lead` are the same parts in the same places: none is
    // gone, new or moved. Only those from there to the first differing
    // place are looked up (usually one each), so a check stays linear.
    let lead = previous
        .iter()
        .zip(current)
        .take_while(|(a, b)| a.id == b.id && a.text == b.text)
        .count();
    let same = lead
        + previous[lead..]
            .iter()
            .zip(&current[lead..])
            .take_while(|(a, b)| a.text == b.text)
            .count();
    if same == previous.len() && same == current.len() {
        return None;
    }
    let mut offset: usize = previous[..same].iter().map(|p| p.text.len()).sum();
    let (old, new) = (previous.get(same), current.get(same));
    if let (Some(old), Some(new)) = (old, new) {
        offset += common_prefix(&old.text, &new.text);
    }
    let at = |parts: &[PrefixPart], id: &str| parts.iter().position(|p| p.id == id);
    let window = |parts: &'a [PrefixPart]| parts.iter().take(same + 1).skip(lead);
    let gone = window(previous).find(|p| at(current, &p.id).is_none());
    let added = window(current).find(|p| at(previous, &p.id).is_none());
    let id = match (gone.or(added), old, new) {
        (Some(part), ..) => &part.id,
        (None, Some(old), Some(new)) if old.id == new.id => &old.id,
        _ => {
            // Every part here is in both lists. On equal keys the first
            // wins: the one that left this place.
            let key = |id: &str| {
                let (from, to) = (at(previous, id)?, at(current, id)?);
                let now = &current[to];
                let touched = now.serial > seen || now.kind != previous[from].kind;
                Some((touched, from.abs_diff(to), now.serial))
            };
            let mut best = (None, &old.or(new)?.id);
            for part in window(previous).chain(window(current)) {
                let this = key(&part.id);
                if this > best.0 {
                    best = (this, &part.id);
                }
            }
            best.1
        }
    };
    Some(PrefixChange {
        offset,
        attachment_id: id.clone(),
    })
}

fn common_prefix(a: &str, b: &str) -> usize {
    a.bytes().zip(b.bytes()).take_while(|(x, y)| x == y).count()
}

/// Providers' minimum cacheable prefix, in tokens: OpenAI caches from
/// 1024; Anthropic from 1024, 2048 on Haiku 3 and 3.5, 4096 on Opus 4.5
/// to 4.7, Haiku 4.5 and Mythos Preview (its prompt caching page, 2026-11).
pub fn minimum_cacheable_tokens(provider: Option<&str>, model: Option<&str>) -> u64 {
    let (Some("anthropic"), Some(model)) = (provider, model) else {
        return 1024;
    };
    // Gateways write `claude-opus-4.5` too.
    let model: String = model
        .chars()
        .map(|c| {
            if c == '.' {
                '-'
            } else {
                c.to_ascii_lowercase()
            }
        })
        .collect();
    let has = |name: &str| crate::text::contains(&model, name);
    if has("opus-4-5")
        || has("opus-4-6")
        || has("opus-4-7")
        || has("haiku-4-5")
        || has("mythos-preview")
    {
        4096
    } else if has("3-haiku") || has("3-5-haiku") || has("haiku-3") {
        2048
    } else {
        1024
    }
}

/// What `checkPrefix` compares against: the parts at the last check. A
/// revision already checked costs nothing.
#[derive(Debug, Default)]
pub struct PrefixTracker {
    checked: Option<(u64, PrefixParts)>,
    /// The specs behind `checked`: what persists the baseline with the pins.
    specs: Option<crate::json::Value>,
    /// The store's edits when `specs` were taken.
    edits: u64,
}

/// One check's outcome: `first` when there was nothing to compare.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PrefixStatus {
    pub first: bool,
    pub change: Option<PrefixChange>,
}

impl PrefixStatus {
    pub fn stable(&self) -> bool {
        !self.first && self.change.is_none()
    }
}

impl PrefixTracker {
    /// The specs of the prefix last checked, if any.
    pub fn baseline(&self) -> Option<&crate::json::Value> {
        self.specs.as_ref()
    }

    /// Takes up a baseline saved before (a reload, say): the next check
    /// compares against the prefix those specs render.
    /// A baseline holding a credential (a secret registered since it was
    /// saved) is refused, so the caller drops it: unlike a pin, no host
    /// can see or detach it, and every save would be refused for it.
    pub fn restore(&mut self, specs: &crate::json::Value) -> Result<(), crate::Error> {
        let store = AttachmentStore::from_specs(specs)?;
        store.check_host_secrets()?;
        let parts = store.prefix_parts();
        // No revision of the store matches: the next check compares.
        self.checked = Some((u64::MAX, parts));
        self.specs = Some(specs.clone());
        Ok(())
    }

    /// Whether the baseline is `store`'s specs as they are: nothing pinned
    /// or detached since the last check. Never after `restore`.
    pub fn is_current(&self, store: &AttachmentStore) -> bool {
        let seen = self.checked.as_ref().map(|(seen, _)| *seen);
        seen == Some(store.revision()) && self.edits == store.edits()
    }

    pub fn check(&mut self, store: &AttachmentStore) -> PrefixStatus {
        let revision = store.revision();
        let first = self.checked.is_none();
        let change = match &self.checked {
            Some((seen, _)) if *seen == revision => {
                // A re-pin that renders the same (a change past a file's
                // cut): the same prefix, but the baseline must not keep
                // what the host replaced.
                if self.edits != store.edits() {
                    self.specs = Some(store.to_specs());
                    self.edits = store.edits();
                }
                None
            }
            previous => {
                let current = store.prefix_parts();
                // No revision reaches `seen` after a reload: a store loaded
                // from saved specs knows its pins' order and kinds, not
                // their times.
                let change = previous
                    .as_ref()
                    .and_then(|(seen, parts)| first_change(parts, &current, *seen));
                self.checked = Some((revision, current));
                self.specs = Some(store.to_specs());
                self.edits = store.edits();
                change
            }
        };
        PrefixStatus { first, change }
    }
}
