// MemorySessionStore from the built package, as a Node host uses it for
// server-side tests.
import { test, before } from "node:test";
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";

const root = new URL("../../", import.meta.url);
const attache = await import(new URL("pkg/attache.js", root));
const { MemorySessionStore, isAttacheError } = attache;

before(async () => {
  await attache.default({ module_or_path: await readFile(new URL("pkg/attache_bg.wasm", root)) });
});

test("a session round-trips through MemorySessionStore", async () => {
  const store = new MemorySessionStore();
  const session = await store.createSession({ title: "node", meta: { model: "m" } });
  assert.match(session.id, /^[0-9a-f-]{36}$/, "a generated UUID");
  await store.saveReplState(session.id, { env: { x: 1 }, history: ["x = 1"] });
  await store.appendActivityFrames(session.id, "r1", [{ type: "start" }, { type: "end", ms: 12 }]);
  await store.appendMessages(session.id, [{ role: "user", content: [{ type: "text", text: "hi" }] }]);
  assert.deepEqual(await store.loadReplState(session.id), { env: { x: 1 }, history: ["x = 1"] });
  assert.deepEqual(await store.loadActivityFrames(session.id, "r1"), [{ type: "start" }, { type: "end", ms: 12 }]);
  assert.deepEqual((await store.listSessions()).map((s) => s.id), [session.id]);
  assert.equal(await store.deleteSession(session.id), true);
  assert.deepEqual(await store.loadMessages(session.id), []);
  store.free();
});

test("a missing session rejects with a typed NOT_FOUND", async () => {
  const store = new MemorySessionStore();
  await assert.rejects(store.appendMessages("ghost", [{ role: "user", content: "hi" }]), (e) => isAttacheError(e) && e.code === "NOT_FOUND");
  await assert.rejects(store.saveSessionState("ghost", "k", 1n), (e) => isAttacheError(e) && e.code === "INVALID_VALUE");
});
