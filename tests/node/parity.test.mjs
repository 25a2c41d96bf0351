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

test("a clock before 1970, or NaN, stores a time both stores read back", async () => {
  const realNow = Date.now;
  const seen = [];
  try {
    for (const open of [() => new attache.MemorySessionStore(), () => attache.IdbSessionStore.open({ name: "parity-bad-clock" })]) {
      const store = await open();
      await store.createSession({ id: "good" });
      for (const [id, t] of [["before", -1000], ["nan", NaN], ["far", 1e300]]) {
        Date.now = () => t;
        await store.createSession({ id });
        Date.now = realNow;
      }
      const listed = await store.listSessions();
      seen.push(listed.filter((s) => s.id !== "good").map((s) => `${s.id}@${s.createdAt}`).sort());
      assert.equal((await store.getSession("before")).createdAt, 0);
      for (const { id } of listed) await store.deleteSession(id);
      if (store.close) store.close();
      store.free();
    }
  } finally {
    Date.now = realNow;
  }
  assert.deepEqual(seen[0], ["before@0", "far@8640000000000000", "nan@0"]);
  assert.deepEqual(seen[1], seen[0]);
});

test("IndexedDB denied (a sandboxed frame's SecurityError) is UNAVAILABLE, the code a host falls back on", async () => {
  const open = IDBFactory.prototype.open;
  IDBFactory.prototype.open = () => {
    throw new DOMException("denied", "SecurityError");
  };
  try {
    await assert.rejects(attache.IdbSessionStore.open({ name: "parity-denied" }), (e) => e.code === "UNAVAILABLE" && e.domName === "SecurityError");
  } finally {
    IDBFactory.prototype.open = open;
  }
});

test("a database a newer schema upgraded is VERSION, with the browser's VersionError as domName and cause", async () => {
  await new Promise((done, fail) => {
    const request = indexedDB.open("parity-newer", 1_000);
    request.onsuccess = () => { request.result.close(); done(); };
    request.onerror = () => fail(request.error);
  });
  await assert.rejects(
    attache.IdbSessionStore.open({ name: "parity-newer" }),
    (e) => e.code === "VERSION" && e.domName === "VersionError" && e.cause?.name === "VersionError",
  );
});

test("a call made just before close() runs on the open connection, in call order, and close() then releases it", async () => {
  let changes = 0;
  const a = await attache.IdbSessionStore.open({ name: "parity-close", onVersionChange: () => changes++ });
  const b = await attache.IdbSessionStore.open({ name: "parity-close" });
  await a.createSession({ id: "s" });
  const text = (content) => [{ role: "user", content }];
  await Promise.all([a.appendMessages("s", text("first")), a.close(), b.appendMessages("s", text("second"))]);
  assert.deepEqual((await b.loadMessages("s")).map((m) => m.content), ["first", "second"]);
  b.close();
  await new Promise((done, fail) => {
    const request = indexedDB.deleteDatabase("parity-close");
    request.onsuccess = done;
    request.onerror = () => fail(request.error);
  });
  assert.equal(changes, 0, "a closed store's connection hears no versionchange");
});

test("an import whose message add fails is ABORTED, not ALREADY_EXISTS, and writes nothing", async () => {
  const store = await attache.IdbSessionStore.open({ name: "parity-import-abort" });
  await store.createSession({ id: "s" });
  await store.appendMessages("s", [{ role: "user", content: "first" }]);
  const doc = await store.exportSession("s");
  doc.messages.push({ role: "user", content: "FAIL ME" });
  const add = IDBObjectStore.prototype.add;
  // The message record's key taken: a ConstraintError that is not the session's.
  IDBObjectStore.prototype.add = function (value, key) {
    return add.call(this, value, this.name === "messages" && value?.json?.includes("FAIL ME") ? 1 : key);
  };
  try {
    await assert.rejects(store.importSession(doc, { id: "new" }), (e) => e.code === "ABORTED" && e.domName === "ConstraintError");
  } finally {
    IDBObjectStore.prototype.add = add;
  }
  assert.equal(await store.getSession("new"), null);
  await assert.rejects(store.importSession(doc, { id: "s" }), (e) => e.code === "ALREADY_EXISTS");
  await assert.rejects(store.createSession({ id: "s" }), (e) => e.code === "ALREADY_EXISTS");
  await store.importSession(doc, { id: "new" });
  assert.equal((await store.loadMessages("new")).length, 2);
  store.close();
  store.free();
});

test("onRedact is told after the call returns and before it resolves, on both stores", async () => {
  const logs = [];
  for (const [name, open] of [
    ["memory", (options) => new attache.MemorySessionStore(options)],
    ["idb", (options) => attache.IdbSessionStore.open({ name: "parity-redact", ...options })],
  ]) {
    const log = [];
    let audit;
    // The listener writes back, as an audit trail would.
    const store = await open({ credentials: "redact", onRedact: (e) => {
      log.push(`told ${e.redactions[0].path}`);
      audit = store.appendMessages("s", [{ role: "user", content: "audit" }]);
    } });
    await store.createSession({ id: "s" });
    const saved = store.saveSessionState("s", "k", { password: "hunter2x9" }).then(() => log.push("save resolved"));
    log.push("save returned");
    const turn = store.commitTurn("s", { expectedCount: 0, messages: [{ role: "user", content: "turn" }] })
      .then(() => log.push("turn committed"), (e) => log.push(`turn ${e.code}`));
    await Promise.all([saved, turn]);
    assert.ok(audit, `${name}: the listener was told`);
    await audit;
    const history = (await store.loadMessages("s")).map((m) => m.content);
    logs.push({ name, log: log.filter((l) => l !== "turn committed"), history });
    await store.deleteSession("s");
    if (store.close) store.close();
    store.free();
  }
  assert.deepEqual(logs[0].log, ["save returned", "told k.password", "save resolved"], "memory");
  assert.deepEqual(logs[0].history, ["turn", "audit"], "memory: the host's next call came first");
  assert.deepEqual({ ...logs[1], name: "memory" }, logs[0], "the IndexedDB store alike");
});
