// Node or a worker with no DOM lib: the default entry's types name no DOM
// type (init's do, and the default entry leaves init out).
import { AttachmentStore, MemorySessionStore, type SessionDocumentInput } from "attache";

export async function copy(store: MemorySessionStore): Promise<string> {
  const pinned = new AttachmentStore();
  pinned.setAttachment({ kind: "todo", items: [{ text: "ship", completed: false }] as const });
  const { id } = await store.createSession({ meta: { model: undefined, tags: ["a"] as const } });
  await store.updateSession(id, { meta: { model: process_env("MODEL") } });
  const doc = await store.exportSession(id);
  // What specs() gives is the host's to change.
  for (const spec of pinned.specs()) if (spec.kind === "todo") spec.items.push({ text: "more", completed: false });
  // Pins put back into a document, as specs() gives them, with no cast.
  const edited: SessionDocumentInput = { ...doc, state: { ...doc.state, attachments: pinned.specs() } };
  pinned.free();
  return (await store.importSession(edited, { id: `${id}-copy` })).id;
}

declare function process_env(name: string): string | undefined;
