// The session calls a loop lives in, through the built package: a
// compaction persisted with replaceMessages, and a turn with commitTurn.
import { test, before } from "node:test";
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";

const root = new URL("../../", import.meta.url);
const attache = await import(new URL("pkg/attache.js", root));
const { AttachmentStore, MemorySessionStore, isAttacheError } = attache;

before(async () => {
  await attache.default({ module_or_path: await readFile(new URL("pkg/attache_bg.wasm", root)) });
});

const say = (text) => ({ role: "user", content: [{ type: "text", text }] });
const code = (c, field) => (e) => isAttacheError(e) && e.code === c && (field === undefined || e.field === field);

test("a turn commits messages, frames, state and pins in one call, and reads back", async () => {
  const store = new MemorySessionStore();
  const { id } = await store.createSession({ title: "t" });
  const pinned = new AttachmentStore();
  pinned.setAttachment({ kind: "todo", items: [{ text: "ship", completed: false }] });
  await store.commitTurn(id, {
    messages: [say("q"), { role: "assistant", content: "a" }],
    frames: [{ requestId: "r1", frames: [{ n: 1 }, { n: 2 }] }],
    state: { snapshot: { accepts: [], children: [] } },
    attachments: pinned,
  });
  assert.deepEqual(await store.loadMessages(id), [say("q"), { role: "assistant", content: "a" }], "as given");
  assert.deepEqual(await store.loadFramesByRequest(id), [{ requestId: "r1", frames: [{ n: 1 }, { n: 2 }] }]);
  const [summary] = await store.listRequests(id);
  assert.equal(summary.frames, 2);
  assert.ok(summary.firstAt > 0 && summary.lastAt >= summary.firstAt);
  const restored = await store.loadAttachments(id);
  assert.deepEqual(restored.getAttachment("todo:session"), { kind: "todo", items: [{ text: "ship", completed: false }] });
  assert.deepEqual(restored.specs(), pinned.specs());
  await assert.rejects(store.commitTurn(id, { messages: [say("x")], attachments: {} }), code("INVALID_ARGUMENT", "attachments"));
  await assert.rejects(store.commitTurn(id, { messages: [say("x")], frames: [{ requestId: "r2" }] }), code("INVALID_VALUE", "frames[0].frames"));
  await assert.rejects(store.commitTurn(id, { mesages: [] }), code("INVALID_ARGUMENT", "options.mesages"));
  // A key the pins write, given by the host too: one would be lost.
  const host = [{ kind: "memory", slug: "h", memory: "H" }];
  await assert.rejects(store.commitTurn(id, { messages: [say("x")], state: { prefix_baseline: host }, attachments: pinned }),
    code("INVALID_VALUE", "state.prefix_baseline"));
  await assert.rejects(store.commitTurn(id, { messages: [say("x")], stateIfAbsent: { attachments: host }, attachments: pinned }),
    code("INVALID_VALUE", "stateIfAbsent.attachments"));
  assert.equal((await store.loadMessages(id)).length, 2, "refused turns wrote nothing");
  store.free();
  pinned.free();
  restored.free();
});

test("compaction: read the tail, then replace the history if nobody wrote meanwhile", async () => {
  const store = new MemorySessionStore();
  const { id } = await store.createSession();
  await store.appendMessages(id, ["a", "b", "c", "d"].map(say));
  const history = await store.loadMessages(id);
  const kept = await store.loadMessages(id, { limit: 2 });
  assert.deepEqual(kept, history.slice(2));
  await store.replaceMessages(id, { from: 0, expectedCount: history.length, messages: [say("summary of a, b"), ...kept] });
  assert.deepEqual((await store.loadMessages(id)).map((m) => m.content[0].text), ["summary of a, b", "c", "d"]);
  await assert.rejects(store.replaceMessages(id, { from: 0, expectedCount: 4, messages: [] }), code("CONFLICT"));
  await assert.rejects(store.replaceMessages(id, { messages: [] }), code("INVALID_ARGUMENT", "from"));
  // 2^32 must not wrap to 0 in wasm32 and replace the whole history.
  await assert.rejects(store.replaceMessages(id, { from: 2 ** 32, messages: [] }), code("INVALID_ARGUMENT", "from"));
  await assert.rejects(store.replaceMessages(id, { from: 0, expectedCount: 2 ** 32 + 3, messages: [] }), code("CONFLICT"));
  // Past the end, each call names its own option.
  await assert.rejects(store.replaceMessages(id, { from: 9, messages: [] }), code("INVALID_ARGUMENT", "from"));
  await assert.rejects(store.commitTurn(id, { replaceFrom: 9 }), code("INVALID_ARGUMENT", "replaceFrom"));
  // null is not "no check": `expectedCount: seen ?? null` must not overwrite unseen.
  await assert.rejects(store.replaceMessages(id, { from: 0, expectedCount: null, messages: [] }), code("INVALID_ARGUMENT", "expectedCount"));
  await assert.rejects(store.commitTurn(id, { expectedCount: null, messages: [say("e")] }), code("INVALID_ARGUMENT", "expectedCount"));
  for (const name of ["limit", "before"]) {
    await assert.rejects(store.loadMessages(id, { [name]: null }), code("INVALID_ARGUMENT", name));
  }
  assert.equal((await store.loadMessages(id)).length, 3, "untouched");
  await assert.rejects(store.loadMessages(id, { limit: -1 }), code("INVALID_ARGUMENT", "limit"));
  assert.deepEqual((await store.popMessage(id)).content[0].text, "d");
  const updated = await store.updateSession(id, { title: "compacted" });
  assert.equal(updated.title, "compacted");
  await store.clearMessages(id);
  assert.equal(await store.popMessage(id), null);
  store.free();
});

test("a value 128 levels deep is stored by any route, and its export imports back", async () => {
  const nested = (depth) => { let v = []; for (let i = 1; i < depth; i++) v = { a: v }; return v; };
  const store = new MemorySessionStore();
  const { id } = await store.createSession();
  await store.saveSessionState(id, "k", nested(128));
  await store.commitTurn(id, { state: { t: nested(128) }, frames: [{ requestId: "r", frames: [nested(128)] }] });
  const copy = await store.importSession(await store.exportSession(id), { id: "copy" });
  assert.deepEqual(await store.loadActivityFrames(copy.id, "r"), [nested(128)]);
  await assert.rejects(store.saveSessionState(id, "k", nested(129)), code("INVALID_VALUE", "k"));
  await assert.rejects(store.commitTurn(id, { state: { t: nested(129) } }), code("INVALID_VALUE", "state.t"));
  // Past the 132 levels an argument may take, the walk stops where it is.
  await assert.rejects(store.saveSessionState(id, "k", nested(200)), code("INVALID_VALUE", "k.a.a.a.a"));
  store.free();
});

test("a value too deep is named where it is in a batch or a document, however deep", async () => {
  const nested = (depth) => { let v = []; for (let i = 1; i < depth; i++) v = { a: v }; return v; };
  const store = new MemorySessionStore();
  const { id } = await store.createSession();
  await store.commitTurn(id, { messages: [say("q")], frames: [{ requestId: "r", frames: [{ n: 1 }] }] });
  const doc = await store.exportSession(id);
  const tooDeep = (prefix) => (e) =>
    isAttacheError(e) && e.code === "INVALID_VALUE" && e.field.startsWith(prefix) && e.message.includes("nests more than 128 levels deep");
  // Past the argument's own 132 levels the batch or document was named
  // whole; past about 2,000 the walk ran out of stack ("is not JSON data").
  for (const depth of [129, 133, 200, 5_000, 50_000]) {
    const deep = nested(depth);
    await assert.rejects(store.appendActivityFrames(id, "r", [{ n: 2 }, { n: 3 }, deep]), tooDeep("frames[2]"), `${depth}`);
    await assert.rejects(store.appendMessages(id, [say("a"), { ...say("b"), meta: { x: deep } }]), tooDeep("messages[1]"), `${depth}`);
    const frames = [{ requestId: "r", frames: [...doc.frames[0].frames, deep] }];
    await assert.rejects(store.importSession({ ...doc, frames }, { id: "copy" }), tooDeep("document.frames[0].frames[1]"), `${depth}`);
  }
  assert.deepEqual(await store.exportSession(id), doc, "nothing written");
  assert.equal(await store.getSession("copy"), null);
  store.free();
});

test("a session exports as one JSON document and imports back identical", async () => {
  const store = new MemorySessionStore();
  const { id } = await store.createSession({ title: "portable", meta: { tag: "x" } });
  const pinned = new AttachmentStore();
  pinned.setAttachment({ kind: "memory", slug: "m", memory: "M" });
  await store.commitTurn(id, { messages: [say("q")], frames: [{ requestId: "r", frames: [{ n: 1 }] }], attachments: pinned });
  const doc = await store.exportSession(id);
  const file = JSON.stringify(doc);
  await store.deleteSession(id);
  const imported = await store.importSession(JSON.parse(file));
  assert.equal(imported.id, id);
  assert.deepEqual(await store.exportSession(id), doc, "export, import, export: identical");
  const copy = await store.importSession(doc, { id: "copy" });
  assert.equal(copy.title, "portable");
  assert.deepEqual((await store.loadAttachments("copy")).specs(), pinned.specs());
  await assert.rejects(store.importSession({ ...doc, version: 2 }, { id: "newer" }), code("VERSION"));
  await assert.rejects(store.importSession({ ...doc, messages: [{ role: "user" }] }, { id: "bad" }), code("INVALID_VALUE", "document.messages[0].content"));
  await assert.rejects(store.importSession(doc), code("ALREADY_EXISTS"));
  assert.equal(await store.getSession("bad"), null, "nothing written");
  store.free();
  pinned.free();
});

test("a session grown past one value's bounds, turn by turn, exports and imports back", async () => {
  const store = new MemorySessionStore();
  const { id } = await store.createSession();
  // Nine 8 MB texts (a few screenshots' worth) pass 64 MiB of JSON text,
  // and two 2,050,000-item frames pass 4,000,000 items: more than one value
  // may hold, but each call was within it.
  for (let i = 0; i < 9; i++) await store.appendMessages(id, [say(String(i).repeat(8_000_000))]);
  for (let i = 0; i < 2; i++) await store.appendActivityFrames(id, "r", [{ a: new Array(2_050_000).fill(i) }]);
  const doc = await store.exportSession(id);
  const size = JSON.stringify(doc).length;
  assert.ok(size > 64 * 1024 * 1024, `${size} characters`);
  // A state key named as importSession's path still holds one value.
  await assert.rejects(store.saveSessionState(id, "document", doc), code("INVALID_VALUE"), "too much for one value");
  await store.importSession(doc, { id: "restored" });
  const again = await store.exportSession("restored");
  assert.deepEqual(again.messages, doc.messages);
  assert.deepEqual(again.frames, doc.frames);
  store.free();
});

test("checkPrefix remembers across a reload: its baseline is saved with the pins", async () => {
  const store = new MemorySessionStore();
  const { id } = await store.createSession();
  const pinned = new AttachmentStore();
  pinned.setAttachment({ kind: "memory", slug: "m", memory: "M" });
  pinned.setAttachment({ kind: "todo", items: [{ text: "t", completed: false }] });
  assert.equal(pinned.checkPrefix().first, true);
  await store.saveAttachments(id, pinned);

  const reloaded = await store.loadAttachments(id);
  const check = reloaded.checkPrefix();
  assert.deepEqual([check.first, check.stable], [false, true], "compared with the check before the reload");

  // Tick the todo after the reload: read the spec back, change it, pin it.
  const todo = reloaded.getAttachment("todo:session");
  reloaded.setAttachment({ ...todo, items: todo.items.map((i) => ({ ...i, completed: true })) });
  assert.equal(reloaded.checkPrefix().change?.attachmentId, "todo:session");
  await store.commitTurn(id, { attachments: reloaded });
  const again = await store.loadAttachments(id);
  assert.equal(again.checkPrefix().stable, true, "commitTurn saves the baseline too");
  for (const s of [store, pinned, reloaded, again]) s.free();
});

test("a session's options are named options.* whichever check refuses them, and an id is an argument", async () => {
  const store = new MemorySessionStore();
  const { id } = await store.createSession();
  await assert.rejects(store.createSession({ id: 5 }), code("INVALID_ARGUMENT", "options.id"));
  await assert.rejects(store.createSession({ id: " " }), code("INVALID_ARGUMENT", "options.id"));
  await assert.rejects(store.updateSession(id), code("INVALID_ARGUMENT", "options"));
  await assert.rejects(store.updateSession(id, null), code("INVALID_ARGUMENT", "options"));
  await assert.rejects(store.updateSession(id, { id: "other" }), code("INVALID_ARGUMENT", "options.id"));
  const doc = await store.exportSession(id);
  // importSession's options are read as every other method's: by name.
  await assert.rejects(store.importSession(doc, { id: " " }), code("INVALID_ARGUMENT", "id"));
  assert.equal((await store.listSessions()).length, 1, "nothing refused was created");
  store.free();
});
