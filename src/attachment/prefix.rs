//! Prefix stability: whether this turn's pinned prefix is the same as the
//! last one checked, part for part, and if not, where it first differs and
//! which attachment changed. Providers cache the blocks sent, so text that
//! moves between parts breaks the cache even when the bytes run the same.

use super::{Attachment, AttachmentStore};

/// The pinned prefix as checked: each part's id and text, in consolidated
/// order. Its bytes are the texts' UTF-8, back to back.
pub type PrefixParts = Vec<(String, String)>;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PrefixChange {
    /// The byte offset, into the concatenated texts, where the first
    /// differing part starts to differ.
    pub offset: usize,
    /// The attachment that changed: the one detached, the one newly
    /// pinned, or the one whose text differs.
    pub attachment_id: String,
}

/// `None` when both prefixes have the same texts, part by part.
/// `newer(a, b)` says `a` was re-pinned after `b`, which decides between
/// two parts that moved as far: a re-pin by one place.
pub fn first_change(
    previous: &[(String, String)],
    current: &[(String, String)],
    newer: &dyn Fn(&str, &str) -> bool,
) -> Option<PrefixChange> {
    // The blocks sent are the texts: parts of one text that trade places
    // send the same request. Any other change is named below, by id.
    if previous.len() == current.len() && previous.iter().zip(current).all(|(a, b)| a.1 == b.1) {
        return None;
    }
    let mut offset = 0;
    for index in 0..previous.len().max(current.len()) {
        let (old, new) = (previous.get(index), current.get(index));
        let id = match (old, new) {
            (Some(old), Some(new)) if old == new => {
                offset += new.1.len();
                continue;
            }
            (Some(old), Some(new)) => {
                offset += common_prefix(&old.1, &new.1);
                let at =
                    |parts: &[(String, String)], id: &str| parts.iter().position(|p| p.0 == id);
                match (old.0 != new.0).then(|| (at(current, &old.0), at(previous, &new.0))) {
                    // A detach shifts the next part into this place.
                    Some((None, _)) => &old.0,
                    // Both are in both: one moved. A re-pin goes to the end
                    // of its kind, a rank change jumps: name the part that
                    // moved further (both lie past `index`); as far, the
                    // one pinned later, else the one that left this place.
                    Some((Some(to), Some(from))) if to - index > from - index => &old.0,
                    Some((Some(to), Some(from))) if to - index == from - index => {
                        match newer(&new.0, &old.0) {
                            true => &new.0,
                            false => &old.0,
                        }
                    }
                    _ => &new.0,
                }
            }
            (Some((id, _)), None) | (None, Some((id, _))) => id,
            (None, None) => unreachable!("index is below the longer length"),
        };
        return Some(PrefixChange {
            offset,
            attachment_id: id.clone(),
        });
    }
    None
}

fn common_prefix(a: &str, b: &str) -> usize {
    a.bytes().zip(b.bytes()).take_while(|(x, y)| x == y).count()
}

/// Providers' minimum cacheable prefix, in tokens: OpenAI caches from
/// 1024; Anthropic from 1024, 2048 on Haiku 3 and 3.5, 4096 on Opus 4.5
/// to 4.7, Haiku 4.5 and Mythos (its prompt caching page, 2026-11).
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
    if has("opus-4-5") || has("opus-4-6") || has("opus-4-7") || has("haiku-4-5") || has("mythos") {
        4096
    } else if has("haiku") {
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
        // As this build writes them: a host's or an import's key order
        // must not read as a changed spec.
        self.specs = Some(store.to_specs());
        Ok(())
    }

    pub fn check(&mut self, store: &AttachmentStore) -> PrefixStatus {
        let revision = store.revision();
        let first = self.checked.is_none();
        let change = match &self.checked {
            Some((seen, _)) if *seen == revision => None,
            previous => {
                let current = store.prefix_parts();
                let change = previous.as_ref().and_then(|(_, parts)| {
                    // A custom whose spec the baseline does not hold had its
                    // rank changed in place (the one move that is not a
                    // re-pin at the end); else the later pin. A store loaded
                    // from saved specs knows its pins' order, not their times.
                    let specs = self.specs.as_ref().and_then(|s| s.as_array());
                    let kept = |id: &str| match (specs, store.get(id)) {
                        // As JSON text, both canonical (see `restore`).
                        (Some(specs), Some(pin @ Attachment::Custom { .. })) => {
                            let spec = pin.to_spec().to_json();
                            specs.iter().any(|s| s.to_json() == spec)
                        }
                        _ => true,
                    };
                    let newer = |a: &str, b: &str| match (kept(a), kept(b)) {
                        (false, true) => true,
                        (true, false) => false,
                        _ => store.serial(a) > store.serial(b),
                    };
                    first_change(parts, &current, &newer)
                });
                self.checked = Some((revision, current));
                self.specs = Some(store.to_specs());
                change
            }
        };
        PrefixStatus { first, change }
    }
}
