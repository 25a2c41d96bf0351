//! Rendered forms. Every byte here is fixed by the reference: changing one
//! breaks conformance and every host's prompt cache.

use super::{Attachment, FileAttachment};

/// The ceiling on inline file contents in the rendered form, in bytes.
pub const FILE_CONTENTS_LIMIT_BYTES: usize = 8 * 1024;

const PATH_ONLY_NOTE: &str =
    "(path pinned; contents not inlined \u{2014} read the file when its contents matter)";

impl Attachment {
    /// The text this attachment contributes to every request.
    pub fn render(&self) -> String {
        match self {
            Attachment::Memory { slug, memory } => format!("[Pinned memory: {slug}]\n\n{memory}"),
            Attachment::File(file) => render_file(file),
            Attachment::Todo { items } => {
                let mut text = String::from("[Todo list]");
                for item in items {
                    text.push_str(if item.completed {
                        "\n- [x] "
                    } else {
                        "\n- [ ] "
                    });
                    text.push_str(&item.text);
                }
                text
            }
            Attachment::Custom { text, .. } => text.clone(),
        }
    }
}

fn render_file(file: &FileAttachment) -> String {
    let mut text = format!("[Attached file: {}]\n\n", file.path);
    match &file.contents {
        None => text.push_str(PATH_ONLY_NOTE),
        Some(contents) if file.truncate => text.push_str(&truncate_contents(contents)),
        Some(contents) => text.push_str(contents),
    }
    text
}

/// Contents at or under the ceiling come back whole; longer ones are cut to
/// the longest char-boundary prefix of at most the ceiling, followed by a
/// footer naming the full byte length, so the model knows what it misses.
pub fn truncate_contents(contents: &str) -> std::borrow::Cow<'_, str> {
    if contents.len() <= FILE_CONTENTS_LIMIT_BYTES {
        return contents.into();
    }
    let mut cut = FILE_CONTENTS_LIMIT_BYTES;
    while !contents.is_char_boundary(cut) {
        cut -= 1;
    }
    format!(
        "{}\n\n\u{2026} (truncated, {} bytes total)",
        crate::text::head(contents, cut),
        contents.len()
    )
    .into()
}
