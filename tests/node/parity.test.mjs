// The memory store and the IndexedDB store (fake-indexeddb in Node) give
// the same answers where a host could tell them apart.
import { test, before } from "node:test";
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import "fake-indexeddb/auto";

const root = new URL("../../", import.meta.url);
const attache = await import(new URL("pkg/attache.js", root));

before(async () => {
  await attache.default({ module_or_path: await readFile(new URL("pkg/attache_bg.wasm", root)) });
});

test("a clock with fractions of a millisecond lists sessions alike on both stores", async () => {
  const realNow = Date.now;
  const orders = [];
  try {
    for (const open of [() => new attache.MemorySessionStore(), () => attache.IdbSessionStore.open({ name: "parity-clock" })]) {
      const store = await open();
      const at = (t) => { Date.now = () => t; };
      at(1_700_000_000_000.2);
      await store.createSession({ id: "b" });
      at(1_700_000_000_000.7);
      await store.createSession({ id: "a" });
      at(1_700_000_000_000.9);
      await store.saveSessionState("b", "k", 1);
      const listed = await store.listSessions();
      orders.push(listed.map((s) => `${s.id}@${s.updatedAt}`));
      for (const { id } of listed) await store.deleteSession(id);
      if (store.close) store.close();
      store.free();
    }
  } finally {
    Date.now = realNow;
  }
  assert.deepEqual(orders[0], orders[1]);
});
