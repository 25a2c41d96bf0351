// The benchmark's plain-JS renderer (tests/bench/plain.mjs) is only a fair
// yardstick if it does the same job: it must reproduce the reference
// vectors and attache's output on the benchmark workloads.
import { test, before } from "node:test";
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { PlainAttachments, render } from "../bench/plain.mjs";
import { pinned, workloads, tick } from "../bench/workloads.mjs";

const root = new URL("../../", import.meta.url);
const attache = await import(new URL("pkg/attache.js", root));
const vectors = JSON.parse(await readFile(new URL("tests/fixtures/attachment-vectors.json", root), "utf8"));

before(async () => {
  await attache.default({ module_or_path: await readFile(new URL("pkg/attache_bg.wasm", root)) });
});

test("the plain-JS renderer reproduces every reference vector", () => {
  for (const [n, c] of vectors.cases.entries()) {
    const plain = new PlainAttachments();
    for (const op of c.ops) {
      if (op.op === "pin") {
        assert.equal(plain.setAttachment(op.attachment), op.id, `case ${n}`);
        assert.equal(render(op.attachment), op.render, `case ${n}: render ${op.id}`);
      } else {
        assert.equal(plain.detachAttachment(op.id), op.returns, `case ${n}: detach ${op.id}`);
      }
    }
    const parts = plain.consolidatedMessage()?.content.map((p) => p.text) ?? null;
    assert.deepEqual(parts, c.message?.parts ?? null, `case ${n}: message`);
  }
});

test("the plain-JS renderer and attache cut an inline file the same way, a leading BOM included", () => {
  const store = new attache.AttachmentStore();
  for (const contents of ["\uFEFF" + "a".repeat(8191), "\uFEFF" + "é".repeat(5000), "a".repeat(8190) + "😀"]) {
    const spec = { kind: "file", path: "f.txt", contents };
    store.setAttachment(spec);
    assert.equal(render(spec), store.renderAttachment("file:f.txt"), JSON.stringify(contents.slice(0, 3)));
  }
  store.free();
});

test("the plain-JS renderer and attache agree on the benchmark workloads, before and after a change", () => {
  for (const [name, make] of Object.entries(workloads)) {
    const { specs, store, plain } = pinned(attache, make);
    assert.deepEqual(store.consolidatedMessage(), plain.consolidatedMessage(), name);
    const changed = tick(specs, 3);
    store.setAttachment(changed);
    plain.setAttachment(changed);
    assert.deepEqual(store.consolidatedMessage(), plain.consolidatedMessage(), `${name}, after a change`);
    store.free();
  }
});
