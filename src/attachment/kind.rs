/// What an attachment ranks as. The declaration order is the consolidated
/// order: the most durable context leads, the live todo list trails.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum AttachmentKind {
    Memory,
    File,
    Todo,
}

impl AttachmentKind {
    /// Every kind, in consolidated order.
    pub const ALL: [Self; 3] = [Self::Memory, Self::File, Self::Todo];

    pub fn as_str(self) -> &'static str {
        match self {
            AttachmentKind::Memory => "memory",
            AttachmentKind::File => "file",
            AttachmentKind::Todo => "todo",
        }
    }

    pub fn parse(name: &str) -> Option<Self> {
        match name {
            "memory" => Some(AttachmentKind::Memory),
            "file" => Some(AttachmentKind::File),
            "todo" => Some(AttachmentKind::Todo),
            _ => None,
        }
    }
}
