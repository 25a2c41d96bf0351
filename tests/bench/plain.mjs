// The attachment spec in plain JS, as a host would write it without
// attache: the yardstick for the render benchmark. Checked against the
// reference vectors and attache by tests/node/plain-renderer.test.mjs.
// Every call renders every attachment again: a full re-render.
const LIMIT = 8 * 1024;
const PATH_ONLY = "(path pinned; contents not inlined \u2014 read the file when its contents matter)";
const RANK = { memory: 0, file: 1, todo: 2 };
const encoder = new TextEncoder();

export function idOf(spec) {
  switch (spec.kind) {
    case "memory": return `memory:${spec.slug}`;
    case "file": return `file:${spec.path}`;
    case "todo": return "todo:session";
    default: return spec.id;
  }
}

// ignoreBOM: a file's leading U+FEFF is content, and stays.
const decoder = new TextDecoder("utf-8", { ignoreBOM: true });
// Reused, as a careful host would: no new megabyte per render of a 1 MB file.
let scratch = new Uint8Array(0);

function truncate(contents) {
  // At most 3 UTF-8 bytes per UTF-16 code unit: short text fits.
  if (contents.length * 3 <= LIMIT) return contents;
  if (scratch.length < contents.length * 3) scratch = new Uint8Array(contents.length * 3);
  const { written } = encoder.encodeInto(contents, scratch);
  if (written <= LIMIT) return contents;
  let cut = LIMIT;
  while ((scratch[cut] & 0xc0) === 0x80) cut--; // back to a char boundary
  return `${decoder.decode(scratch.subarray(0, cut))}\n\n\u2026 (truncated, ${written} bytes total)`;
}

export function render(spec) {
  switch (spec.kind) {
    case "memory": return `[Pinned memory: ${spec.slug}]\n\n${spec.memory}`;
    case "file": {
      const head = `[Attached file: ${spec.path}]\n\n`;
      if (spec.contents == null) return head + PATH_ONLY;
      return head + (spec.truncate === false ? spec.contents : truncate(spec.contents));
    }
    case "todo": {
      let text = "[Todo list]";
      for (const item of spec.items) text += (item.completed ? "\n- [x] " : "\n- [ ] ") + item.text;
      return text;
    }
    default: return spec.text;
  }
}

export class PlainAttachments {
  #pinned = new Map(); // id -> spec, in pin order; a re-pin keeps its place

  setAttachment(spec) {
    const id = idOf(spec);
    this.#pinned.set(id, spec);
    return id;
  }

  detachAttachment(id) {
    return this.#pinned.delete(id);
  }

  consolidatedMessage() {
    if (this.#pinned.size === 0) return undefined;
    const ranked = [[], [], []];
    for (const spec of this.#pinned.values()) ranked[RANK[spec.kind] ?? RANK[spec.rank]].push(spec);
    const content = [];
    for (const specs of ranked) for (const spec of specs) content.push({ type: "text", text: render(spec) });
    return { role: "user", content };
  }
}
