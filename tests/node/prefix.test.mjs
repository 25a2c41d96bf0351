// checkPrefix through the built package, as an agent loop calls it after
// building each request.
import { test, before } from "node:test";
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";

const root = new URL("../../", import.meta.url);
const attache = await import(new URL("pkg/attache.js", root));
const { AttachmentStore, estimateTokens, isAttacheError } = attache;
const utf8 = (s) => Buffer.byteLength(s, "utf8");

before(async () => {
  await attache.default({ module_or_path: await readFile(new URL("pkg/attache_bg.wasm", root)) });
});

function pinned() {
  const store = new AttachmentStore();
  store.setAttachment({ kind: "todo", items: [{ text: "é ship", completed: false }] });
  store.setAttachment({ kind: "file", path: "notes.md", contents: "中文 notes" });
  store.setAttachment({ kind: "memory", slug: "style", memory: "be brief" });
  return store;
}

test("the first check has nothing to compare; an unchanged turn is stable", () => {
  const store = pinned();
  const first = store.checkPrefix();
  assert.deepEqual([first.first, first.stable, first.change], [true, false, null]);
  assert.equal(first.prefixBytes, store.renderAll().reduce((n, t) => n + utf8(t), 0));
  const second = store.checkPrefix();
  assert.deepEqual([second.first, second.stable, second.change], [false, true, null]);
  store.setAttachment({ kind: "memory", slug: "style", memory: "be brief" });
  assert.equal(store.checkPrefix().stable, true, "an identical re-pin keeps the prefix");
});

test("a change reports the first differing byte and the attachment it belongs to", () => {
  const store = pinned();
  store.checkPrefix();
  const [memory, file] = store.renderAll();
  store.setAttachment({ kind: "todo", items: [{ text: "é ship", completed: true }] });
  const check = store.checkPrefix();
  const within = utf8("[Todo list]\n- [");
  assert.equal(check.stable, false);
  assert.deepEqual(check.change, { offset: utf8(memory) + utf8(file) + within, attachmentId: "todo:session" });
  assert.equal(store.checkPrefix().stable, true, "and the next unchanged turn is stable again");
  store.detachAttachment("file:notes.md");
  const moved = store.checkPrefix().change;
  assert.deepEqual(moved, { offset: utf8(memory) + 1, attachmentId: "file:notes.md" },
    "the detached file is named, not the todo list that took its place; both begin with \"[\"");
});

test("a prefix under the provider's minimum is flagged", () => {
  const store = pinned();
  const anthropic = store.checkPrefix({ provider: "anthropic" });
  assert.equal(anthropic.prefixTokens, estimateTokens([store.consolidatedMessage()], "anthropic"));
  assert.notEqual(anthropic.prefixTokens, estimateTokens([store.consolidatedMessage()]), "the two counters differ here");
  assert.equal(store.checkPrefix({ provider: "anthropic", counter: null }).prefixTokens, anthropic.prefixTokens,
    "counter: null is absent, so the provider's counter counts, as with provider: null");
  assert.deepEqual([anthropic.minCacheableTokens, anthropic.belowMinimum], [1024, true]);
  assert.match(anthropic.warning, /under the 1024-token minimum anthropic caches/);
  // It counts the pins alone; the system prompt and tools before them count too.
  assert.match(anthropic.warning, /cached only if the system prompt and tools before it make up the rest$/);
  assert.equal(store.checkPrefix({ provider: "anthropic", model: "claude-3-5-haiku-latest" }).minCacheableTokens, 2048);
  const low = store.checkPrefix({ minTokens: 10 });
  assert.deepEqual([low.belowMinimum, low.warning], [false, null]);
  assert.throws(() => store.checkPrefix({ minTokens: -1 }), (e) => isAttacheError(e) && e.code === "INVALID_ARGUMENT");
});

test("a counter that fails leaves the baseline: the next check still reports the change", () => {
  const store = new AttachmentStore();
  store.setAttachment({ kind: "memory", slug: "a", memory: "A" });
  store.checkPrefix();
  store.setAttachment({ kind: "memory", slug: "b", memory: "B" });
  for (const counter of [() => { throw new Error("not ready"); }, () => NaN, () => Promise.resolve(3)]) {
    assert.throws(() => store.checkPrefix({ counter }), (e) => isAttacheError(e) && e.code === "INVALID_ARGUMENT");
  }
  const check = store.checkPrefix();
  assert.equal(check.stable, false);
  assert.equal(check.change?.attachmentId, "memory:b");
  store.detachAttachment("memory:a");
  store.setAttachment({ kind: "memory", slug: "a", memory: "A" });
  assert.equal(store.checkPrefix().change?.attachmentId, "memory:a", "a re-pin moved memory:a after memory:b");
  store.free();
});

test("a counter that checks the prefix itself is BUSY: the outer check still reports the change", () => {
  const store = new AttachmentStore();
  store.setAttachment({ kind: "memory", slug: "a", memory: "A" });
  store.checkPrefix();
  store.setAttachment({ kind: "memory", slug: "b", memory: "B" });
  let inner;
  const check = store.checkPrefix({ counter: () => {
    try { store.checkPrefix(); } catch (e) { inner = e; }
    return 1;
  } });
  assert.ok(isAttacheError(inner) && inner.code === "BUSY", `${inner}`);
  assert.deepEqual([check.stable, check.change?.attachmentId], [false, "memory:b"]);
  assert.equal(store.checkPrefix().stable, true, "and moved the baseline once");
  store.free();
});

test("the host's counter gets the consolidated message itself, once per change of the pins", () => {
  const store = pinned();
  const seen = [];
  const counter = (messages) => { seen.push(messages[0]); return 7 * seen.length; };
  for (let turn = 0; turn < 3; turn++) assert.equal(store.checkPrefix({ counter }).prefixTokens, 7);
  assert.equal(seen.length, 1, "an unchanged turn asks the counter nothing");
  assert.equal(seen[0], store.consolidatedMessage(), "the frozen message, not a copy");
  // Another function is asked, and so is the same one after a change.
  assert.equal(store.checkPrefix({ counter: (m) => (counter(m), 1) }).prefixTokens, 1);
  store.setAttachment({ kind: "memory", slug: "style", memory: "be brief, always" });
  assert.equal(store.checkPrefix({ counter }).prefixTokens, 21);
  assert.equal(seen.length, 3);
  assert.equal(seen[2], store.consolidatedMessage());
  store.free();
});

test("an unknown provider or a non-string model is INVALID_ARGUMENT, not the defaults taken silently", () => {
  const store = new AttachmentStore();
  store.setAttachment({ kind: "memory", slug: "a", memory: "A" });
  for (const [options, field] of [[{ provider: "Anthropic" }, "provider"], [{ provider: 42 }, "provider"], [{ provider: "anthropic", model: 7 }, "model"]]) {
    assert.throws(() => store.checkPrefix(options), (e) => isAttacheError(e) && e.code === "INVALID_ARGUMENT" && e.field === field);
  }
  assert.equal(store.checkPrefix({ provider: null, model: null }).first, true, "a refused call checked nothing; null is absent");
  store.free();
});
