// A tsconfig that names no lib and reads no exports map (node10): the
// classes' Symbol.dispose still type-checks without the esnext.disposable
// lib, and the slim subpath resolves.
import { AttachmentStore } from "attache";
import init, { MemorySessionStore } from "attache/slim";

export async function start(wasm: URL): Promise<number> {
  await init({ module_or_path: wasm });
  const pinned = new AttachmentStore();
  pinned.setAttachment({ kind: "memory", slug: "style", memory: "terse" });
  const store: MemorySessionStore = new MemorySessionStore();
  const count = (await store.listSessions()).length + pinned.specs().length;
  pinned[Symbol.dispose]();
  return count;
}
