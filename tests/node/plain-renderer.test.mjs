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

// The spec written twice, independently: any sequence of pins and detaches
// gives the same ids, renders and message. The vectors fix chosen cases;
// this reaches text near the 8192-byte cut, graphemes, CRLF and re-pins.
test("the plain-JS renderer and attache agree on arbitrary pins and detaches", async () => {
  const { default: fc } = await import("fast-check");
  const bytes = (c) => new TextEncoder().encode(c).length;
  const nearCut = fc.tuple(fc.integer({ min: 8180, max: 8200 }), fc.constantFrom("a", "é", "😀", "中"), fc.nat(3))
    .map(([n, c, pad]) => "x".repeat(pad) + c.repeat(Math.ceil(n / bytes(c))));
  const text = fc.oneof(fc.string({ unit: "binary", maxLength: 40 }), fc.string({ unit: "grapheme", maxLength: 20 }),
    fc.constantFrom("", " ", "\n", "\r\n", "\uFEFF", "a\u0000b"), nearCut);
  const name = fc.constantFrom("a", "b", "src/a.rs", "É", " a");
  const rank = fc.constantFrom("memory", "file", "todo");
  const spec = fc.oneof(
    fc.record({ kind: fc.constant("memory"), slug: name, memory: text }),
    fc.record({ kind: fc.constant("file"), path: name, contents: fc.option(text, { nil: undefined }) }),
    fc.record({ kind: fc.constant("file"), path: name, contents: text, truncate: fc.boolean() }),
    fc.record({ kind: fc.constant("todo"), items: fc.array(fc.record({ text, completed: fc.boolean() }), { maxLength: 4 }) }),
    // A blank custom text is refused (README), so none is made.
    fc.record({ kind: fc.constant("custom"), id: fc.oneof(name.map((n) => `note:${n}`), fc.constantFrom("todo:session", "memory:a")), rank, text: text.filter((t) => t.trim() !== "") }),
  );
  const id = fc.oneof(name.map((n) => `memory:${n}`), name.map((n) => `file:${n}`), name.map((n) => `note:${n}`), fc.constant("todo:session"));
  const op = fc.oneof({ weight: 4, arbitrary: spec.map((pin) => ({ pin })) }, { weight: 1, arbitrary: id.map((detach) => ({ detach })) });
  fc.assert(fc.property(fc.array(op, { maxLength: 12 }), (ops) => {
    const store = new attache.AttachmentStore();
    const plain = new PlainAttachments();
    try {
      for (const { pin, detach } of ops) {
        if (pin) {
          const pinned = store.setAttachment(pin);
          assert.equal(pinned, plain.setAttachment(pin));
          assert.equal(store.renderAttachment(pinned), render(pin));
        } else {
          assert.equal(store.detachAttachment(detach), plain.detachAttachment(detach));
        }
        assert.deepEqual(store.consolidatedMessage(), plain.consolidatedMessage());
      }
    } finally {
      store.free();
    }
  }), { numRuns: 2000 });
});
