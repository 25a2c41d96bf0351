use super::{Attachment, AttachmentKind, ConsolidatedMessage, PrefixPart, PrefixParts};

/// The pinned attachments of one agent, in pin order, deduplicated by id.
///
/// Each attachment is rendered once, when pinned, so reading the
/// consolidated message every turn never re-renders unchanged content.
#[derive(Debug, Clone, Default)]
pub struct AttachmentStore {
    pinned: Vec<Pinned>,
    /// Moves whenever the consolidated message would change, so callers
    /// can cache what they build from it.
    revision: u64,
    /// Moves on every pin, even one that renders the same (a detach moves
    /// `revision`): what a baseline of specs must follow.
    edits: u64,
    /// The host-secret generation the pins were last checked against.
    checked: std::cell::Cell<u64>,
}

#[derive(Debug, Clone)]
struct Pinned {
    id: String,
    attachment: Attachment,
    text: String,
    /// The store's revision when this text was rendered: unique, and new
    /// whenever the text changes, so a binding can key its copy on it.
    serial: u64,
    /// The kind of credential a loaded spec held: the pin is kept, so the
    /// host can see and detach it, and refused wherever its text would go.
    held: Option<String>,
}

impl AttachmentStore {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn len(&self) -> usize {
        self.pinned.len()
    }

    pub fn is_empty(&self) -> bool {
        self.pinned.is_empty()
    }

    /// Pin an attachment and return its id. An id already stored is
    /// replaced in place, so updating the todo list never moves it. Only
    /// the new attachment is rendered.
    pub fn pin(&mut self, attachment: Attachment) -> &str {
        self.edits += 1;
        let id = attachment.id();
        let text = attachment.render();
        let slot = match self.position(&id) {
            Some(index) => {
                let same = &self.pinned[index];
                let mut serial = same.serial;
                if same.text != text || same.attachment.kind() != attachment.kind() {
                    self.revision += 1;
                    serial = self.revision;
                }
                self.pinned[index] = Pinned {
                    id,
                    attachment,
                    text,
                    serial,
                    held: None,
                };
                index
            }
            None => {
                self.revision += 1;
                self.pinned.push(Pinned {
                    id,
                    attachment,
                    text,
                    serial: self.revision,
                    held: None,
                });
                self.pinned.len() - 1
            }
        };
        &self.pinned[slot].id
    }

    /// Changes exactly when the consolidated message does; a re-pin that
    /// renders the same text in the same place leaves it.
    pub fn revision(&self) -> u64 {
        self.revision
    }

    pub fn edits(&self) -> u64 {
        self.edits
    }

    /// Unpin by id; returns whether anything was removed.
    pub fn detach(&mut self, id: &str) -> bool {
        match self.position(id) {
            Some(index) => {
                self.pinned.remove(index);
                self.revision += 1;
                true
            }
            None => false,
        }
    }

    pub fn contains(&self, id: &str) -> bool {
        self.position(id).is_some()
    }

    /// Ids in pin order.
    pub fn ids(&self) -> impl ExactSizeIterator<Item = &str> {
        self.pinned.iter().map(|pinned| pinned.id.as_str())
    }

    pub fn get(&self, id: &str) -> Option<&Attachment> {
        self.position(id)
            .map(|index| &self.pinned[index].attachment)
    }

    /// One attachment's rendered text.
    pub fn rendered(&self, id: &str) -> Option<&str> {
        self.position(id)
            .map(|index| self.pinned[index].text.as_str())
    }

    /// Refuses when a pin holds a secret the host registered after pinning
    /// it (a key pasted into a memory, then entered as the page's key), or
    /// was loaded holding a credential: pinned text rides every request.
    /// Free when none was registered since the last check.
    pub fn check_host_secrets(&self) -> Result<(), crate::Error> {
        let generation = crate::credentials::host_secrets_generation();
        if self.checked.get() == generation {
            return Ok(());
        }
        for pinned in &self.pinned {
            self.check_pin(&pinned.id)?;
        }
        self.checked.set(generation);
        Ok(())
    }

    /// The same check for one pin, by id; none pinned passes. The error
    /// names the pin, unless its id is what holds the credential.
    pub fn check_pin(&self, id: &str) -> Result<(), crate::Error> {
        let Some(pinned) = self.position(id).map(|index| &self.pinned[index]) else {
            return Ok(());
        };
        // Every pin passed at this generation (a held one keeps it at MAX).
        if self.checked.get() == crate::credentials::host_secrets_generation() {
            return Ok(());
        }
        let held = match &pinned.held {
            Some(kind) => Err(crate::Error::Credential {
                path: String::new(),
                kind: kind.clone(),
            }),
            // The spec, not only the text sent: a secret past a file's cut
            // or in a custom id would still be saved, and shown by getAttachment.
            None if crate::credentials::any_host_secrets() => {
                crate::credentials::check_host_secrets_in("", &pinned.attachment.to_spec())
            }
            None => Ok(()),
        };
        held.map_err(|e| match e {
            crate::Error::Credential { kind, .. } => crate::Error::Credential {
                path: match crate::credentials::check_text("", &pinned.id) {
                    Ok(()) => pinned.id.clone(),
                    Err(_) => "(an attachment id)".to_owned(),
                },
                kind,
            },
            other => other,
        })
    }

    /// Every rendered text in consolidated order: memories, then files,
    /// then todos, keeping pin order within each kind.
    pub fn render_all(&self) -> Vec<&str> {
        self.ordered().map(|pinned| pinned.text.as_str()).collect()
    }

    /// Each rendered text in consolidated order, with its serial: the
    /// store's revision when that text was rendered, which changes exactly
    /// when the text does. Bindings key their per-part copies on it.
    pub fn parts(&self) -> impl Iterator<Item = (u64, &str)> {
        self.ordered().map(|p| (p.serial, p.text.as_str()))
    }

    /// The one user message every request carries ahead of the history, or
    /// `None` when nothing is pinned, so an empty store changes no request.
    pub fn consolidated_message(&self) -> Option<ConsolidatedMessage<'_>> {
        if self.is_empty() {
            return None;
        }
        Some(ConsolidatedMessage {
            parts: self.render_all(),
        })
    }

    /// The pinned prefix: each rendered text with its id, kind and serial, in consolidated
    /// order.
    pub fn prefix_parts(&self) -> PrefixParts {
        self.ordered()
            .map(|p| PrefixPart {
                id: p.id.clone(),
                text: p.text.clone(),
                kind: p.attachment.kind(),
                serial: p.serial,
            })
            .collect()
    }

    /// Every attachment's spec, in pin order: what persists a store.
    pub fn to_specs(&self) -> crate::json::Value {
        crate::json::Value::Array(crate::map_vec(&self.pinned, |pinned| {
            pinned.attachment.to_spec()
        }))
    }

    /// A store pinned from saved `specs` in order; one malformed spec
    /// refuses them all, its error naming the spec's index. One holding a
    /// credential is pinned held (see `check_pin`).
    pub fn from_specs(specs: &crate::json::Value) -> Result<Self, crate::Error> {
        Self::pinned_from(specs, true)
    }

    /// As `from_specs`, with the same errors, for a caller that scans the
    /// whole value for credentials itself: none is looked for here.
    pub fn from_specs_unscanned(specs: &crate::json::Value) -> Result<Self, crate::Error> {
        Self::pinned_from(specs, false)
    }

    fn pinned_from(specs: &crate::json::Value, scan: bool) -> Result<Self, crate::Error> {
        let specs = specs
            .as_array()
            .ok_or_else(|| crate::Error::invalid("", "attachments must be an array of specs"))?;
        let mut store = Self::new();
        // Each spec is checked here, against the secrets registered now;
        // unscanned, no generation is one it was checked at.
        let generation = crate::credentials::host_secrets_generation();
        store.checked.set(if scan { generation } else { u64::MAX });
        for (index, spec) in specs.iter().enumerate() {
            let (attachment, held) =
                Attachment::from_saved(spec, scan).map_err(|e| e.within(&format!("[{index}]")))?;
            let id = store.pin(attachment).to_owned();
            if let (Some(crate::Error::Credential { kind, .. }), Some(slot)) =
                (held, store.position(&id))
            {
                store.pinned[slot].held = Some(kind);
                // Never the generation: every check looks until it goes.
                store.checked.set(u64::MAX);
            }
        }
        Ok(store)
    }

    /// The pinned attachments in consolidated order: one pass per kind
    /// keeps pin order within a kind without a sort's code.
    fn ordered(&self) -> impl Iterator<Item = &Pinned> {
        AttachmentKind::ALL.into_iter().flat_map(move |kind| {
            self.pinned
                .iter()
                .filter(move |pinned| pinned.attachment.kind() == kind)
        })
    }

    fn position(&self, id: &str) -> Option<usize> {
        self.pinned.iter().position(|pinned| pinned.id == id)
    }
}
