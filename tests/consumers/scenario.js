// What every consumer does with the installed package, as a user would:
// pin attachments, read the consolidated message, round-trip a session
// through a store. Copied into each consumer by consumers.test.mjs.
export const expectedText = "[Pinned memory: style]\n\nbe brief\n---\n[Attached file: notes.md]\n\n# notes\n---\n[Todo list]\n- [x] install\n- [ ] ship";

export async function scenario(attache, { persistent }) {
  const { AttachmentStore, IdbSessionStore, MemorySessionStore, isAttacheError } = attache;
  const pinned = new AttachmentStore();
  pinned.setAttachment({ kind: "todo", items: [{ text: "install", completed: true }, { text: "ship", completed: false }] });
  pinned.setAttachment({ kind: "file", path: "notes.md", contents: "# notes" });
  pinned.setAttachment({ kind: "memory", slug: "style", memory: "be brief" });
  const message = pinned.consolidatedMessage();

  let errorCode = "none";
  try {
    pinned.setAttachment({ kind: "image", url: "x" });
  } catch (e) {
    errorCode = isAttacheError(e) ? e.code : `untyped ${e}`;
  }

  const sessions = persistent
    ? await IdbSessionStore.open({ name: `consumer-${crypto.randomUUID()}` })
    : new MemorySessionStore();
  const session = await sessions.createSession({ title: "consumer" });
  await sessions.saveAttachments(session.id, pinned);
  await sessions.appendActivityFrames(session.id, "r1", [{ type: "start" }, { type: "end", ms: 3 }]);
  const restored = await sessions.loadAttachments(session.id);
  const frames = await sessions.loadActivityFrames(session.id, "r1");
  const listed = (await sessions.listSessions()).map((s) => s.title);

  const result = {
    context: globalThis.constructor.name,
    // By instance, not constructor.name: a minifier may rename the class.
    store: sessions instanceof IdbSessionStore ? "IdbSessionStore" : sessions instanceof MemorySessionStore ? "MemorySessionStore" : "neither",
    text: message.content.map((part) => part.text).join("\n---\n"),
    roundTrip: JSON.stringify(restored.consolidatedMessage()) === JSON.stringify(message),
    frames,
    listed,
    errorCode,
  };
  pinned.free();
  restored.free();
  return result;
}
