// Loads the built package from pkg/ as a Node host would and replays the
// reference vectors through the real JS glue.
import { test, before } from "node:test";
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";

const root = new URL("../../", import.meta.url);
const attache = await import(new URL("pkg/attache.js", root));
const { AttachmentStore, isAttacheError } = attache;
const vectors = JSON.parse(await readFile(new URL("tests/fixtures/attachment-vectors.json", root), "utf8"));

before(async () => {
  await attache.default({ module_or_path: await readFile(new URL("pkg/attache_bg.wasm", root)) });
});

test("every reference vector case matches byte for byte", () => {
  let ops = 0;
  vectors.cases.forEach((c, n) => {
    const store = new AttachmentStore();
    for (const op of c.ops) {
      ops++;
      if (op.op === "pin") {
        assert.equal(store.setAttachment(op.attachment), op.id, `case ${n}: id`);
        assert.equal(store.renderAttachment(op.id), op.render, `case ${n}: render of ${op.id}`);
      } else {
        assert.equal(store.detachAttachment(op.id), op.returns, `case ${n}: detach ${op.id}`);
      }
    }
    assert.deepEqual(store.attachmentIds(), c.ids, `case ${n}: ids`);
    assert.equal(store.size, c.ids.length);
    const expected = c.message && {
      role: "user",
      content: c.message.parts.map((text) => ({ type: "text", text })),
    };
    assert.deepEqual(store.consolidatedMessage(), expected ?? undefined, `case ${n}: message`);
    assert.deepEqual(store.renderAll(), c.message ? c.message.parts : [], `case ${n}: renderAll`);
    store.free();
  });
  assert.equal(ops, 364);
});

test("a bad spec throws a coded AttacheError and changes nothing", () => {
  const store = new AttachmentStore();
  store.setAttachment({ kind: "memory", slug: "keep", memory: "kept" });
  const before = store.consolidatedMessage();
  const cases = [
    [{ kind: "image" }, "UNKNOWN_KIND"],
    [{ kind: "memory", slug: "a" }, "INVALID_SPEC"],
    [{ kind: "memory", slug: "keep", memory: 1 }, "INVALID_SPEC"],
    [{ kind: "file", path: "" }, "INVALID_SPEC"],
    [{ kind: "custom", id: "nope", rank: "memory", text: "t" }, "INVALID_ID"],
    [{ kind: "memory", slug: "s", memory: () => "x" }, "INVALID_SPEC"],
    [Symbol("spec"), "INVALID_SPEC"],
    [(() => { const s = { kind: "memory", slug: "c", memory: "m" }; s.self = s; return s; })(), "INVALID_SPEC"],
    [{ kind: "memory", slug: "lone \uD800", memory: "m" }, "INVALID_SPEC"],
  ];
  for (const [spec, code] of cases) {
    assert.throws(
      () => store.setAttachment(spec),
      (e) => e instanceof Error && e.name === "AttacheError" && e.code === code && isAttacheError(e),
      `${String(spec?.kind ?? "symbol")} -> ${code}`,
    );
  }
  assert.deepEqual(store.consolidatedMessage(), before, "the store is unchanged");
  assert.equal(isAttacheError(new Error("plain")), false, "the guard rejects other errors");
  const named = (code) => Object.assign(new Error("x"), { name: "AttacheError", code });
  assert.equal(isAttacheError(named("NOT_A_CODE")), false, "a code outside AttacheErrorCode is not narrowed to it");
  assert.equal(isAttacheError(named("BUSY")), true, "nor is the name alone what decides");
  // A spec that is no object has no field at fault: none, not "".
  for (const spec of [null, [1], "memory:x"]) {
    assert.throws(() => store.setAttachment(spec), (e) => e.code === "INVALID_SPEC" && !("field" in e), JSON.stringify(spec));
  }
  assert.throws(() => store.setAttachment({ kind: "custom", id: "x: ", rank: "memory", text: "t" }), /a slug that is not blank/);
});

test("an empty store has no consolidated message", () => {
  const store = new AttachmentStore();
  assert.equal(store.consolidatedMessage(), undefined);
  store.setAttachment({ kind: "todo", items: [] });
  assert.equal(store.detachAttachment("todo:session"), true);
  assert.equal(store.consolidatedMessage(), undefined);
});
