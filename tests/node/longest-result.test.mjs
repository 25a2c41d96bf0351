// A result past the longest string an engine makes (V8's 2^29 − 24) is a
// typed error, and costs nothing once refused: the glue decodes a result
// before any JS `try` runs, so decoding it would throw through wasm, leak
// the text, and once memory ran out, trap the store for good. Its own file:
// it takes about 3 GB, which the test runner gives back with the process.
// Beside it, pins past what one value from JS may hold.
import "fake-indexeddb/auto";
import { test, before } from "node:test";
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";

const root = new URL("../../", import.meta.url);
const attache = await import(new URL("pkg/attache.js", root));
let memory;

before(async () => {
  ({ memory } = await attache.default({ module_or_path: await readFile(new URL("pkg/attache_bg.wasm", root)) }));
});

test("an export longer than one JS string is INVALID_VALUE, leaks nothing, and the store goes on", async () => {
  const store = new attache.MemorySessionStore();
  const { id } = await store.createSession();
  // Each under the 64 Mi characters one value may hold; together 540 MB of
  // UTF-8 (3 bytes a character), past the 536,870,888 one string takes.
  const value = "中".repeat(60_000_000);
  for (const key of ["a", "b", "c"]) await store.saveSessionState(id, key, value);
  const refused = (e) => attache.isAttacheError(e) && e.code === "INVALID_VALUE" && e.field === "result" && /536,870,888 bytes/.test(e.message);
  await assert.rejects(store.exportSession(id), refused);
  const after = memory.buffer.byteLength;
  await assert.rejects(store.exportSession(id), refused);
  assert.equal(memory.buffer.byteLength, after, "a second refusal grows nothing");
  // Healthy: each part still reads, and the store still writes.
  assert.equal((await store.loadSessionState(id, "a")).length, value.length);
  await store.saveSessionState(id, "a", "small");
  await store.deleteSessionState(id, "b");
  await store.deleteSessionState(id, "c");
  assert.equal((await store.exportSession(id)).state.a, "small");
});

test("a prefix baseline past what one value from JS may hold is saved whole: pins never cross to JS", async () => {
  const store = new attache.MemorySessionStore();
  const { id } = await store.createSession();
  const pins = new attache.AttachmentStore();
  // Each file under the 64 Mi characters one value may hold; their specs,
  // which the baseline keeps after the big one is detached, are not.
  pins.setAttachment({ kind: "file", path: "big.log", contents: "x".repeat(40_000_000) });
  pins.setAttachment({ kind: "file", path: "other.log", contents: "y".repeat(30_000_000) });
  pins.checkPrefix();
  pins.detachAttachment("file:big.log");
  await store.saveAttachments(id, pins);
  const loaded = await store.loadAttachments(id);
  assert.deepEqual(loaded.attachmentIds(), ["file:other.log"]);
  const check = loaded.checkPrefix();
  assert.equal(check.first, false, "the baseline was kept");
  assert.equal(check.change?.attachmentId, "file:big.log", "the detach is seen across the reload");
});

test("IndexedDB refuses pins whose JSON text is longer than one JS string, writes nothing, and goes on", async () => {
  const store = await attache.IdbSessionStore.open({ name: "longest-pins" });
  const { id } = await store.createSession();
  const pins = new attache.AttachmentStore();
  // A control character is 6 bytes of JSON (\u0001): nine files of 10M
  // make 540 MB of it from 90 MB of pins, each under what one value from
  // JS may hold. The memory store keeps them; IndexedDB stores text.
  for (let i = 0; i < 9; i++) pins.setAttachment({ kind: "file", path: `${i}.bin`, contents: "\u0001".repeat(10_000_000) });
  // Named by the state key either way: the JSON is the record's.
  for (const save of [() => store.commitTurn(id, { attachments: pins, messages: [{ role: "user", content: "hi" }] }),
    () => store.saveAttachments(id, pins)]) {
    const refused = await save().catch((e) => e);
    assert.ok(attache.isAttacheError(refused), String(refused));
    assert.deepEqual([refused.code, refused.field], ["INVALID_VALUE", "attachments"]);
    assert.match(refused.message, /536,870,888 bytes/);
  }
  assert.equal(await store.loadAttachments(id), null, "nothing was written");
  assert.deepEqual(await store.loadMessages(id), [], "nor the turn's message");
  pins.free();
  const small = new attache.AttachmentStore();
  small.setAttachment({ kind: "memory", slug: "m", memory: "M" });
  await store.saveAttachments(id, small);
  assert.deepEqual((await store.loadAttachments(id)).attachmentIds(), ["memory:m"]);
  store.free();
});
