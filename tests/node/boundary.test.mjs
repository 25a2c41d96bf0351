// The JS boundary is total for id and option parameters: any JS value ends
// in a result or a typed AttacheError, async methods never throw
// synchronously, and no value traps the module or grows its memory for
// good. Hand-picked hostile values first, then fast-check's arbitrary ones.
import { test, before } from "node:test";
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import fc from "fast-check";
// IndexedDB for Node, so an IdbSessionStore can be opened and freed.
import "fake-indexeddb/auto";
import * as shared from "../boundary/properties.mjs";

const root = new URL("../../", import.meta.url);
const attache = await import(new URL("pkg/attache.js", root));
const { AttachmentStore, MemorySessionStore, isAttacheError, estimateTokens, planTurn, buildRequest } = attache;
let memory;

before(async () => {
  ({ memory } = await attache.default({ module_or_path: await readFile(new URL("pkg/attache_bg.wasm", root)) }));
});

// More on demand, never fewer: issue 9 asks for 20,000 in every run.
const asked = Number(process.env.ATTACHE_FUZZ_RUNS);
const RUNS = Math.max(20000, Number.isSafeInteger(asked) ? asked : 0);
const { EMPTY, HOSTILE, idCalls } = shared;

function describe(value) {
  if (typeof value === "string") return JSON.stringify(value.slice(0, 20));
  try {
    return String(value);
  } catch {
    return typeof value === "symbol" ? "a symbol" : "a throwing object";
  }
}

const settlesSync = (f, label) => shared.settlesSync(attache, f, label);
const settlesAsync = (f, label) => shared.settlesAsync(attache, f, label);

test("hostile values in id parameters end in INVALID_ARGUMENT, never a trap or a synchronous throw", async () => {
  const pinned = new AttachmentStore();
  pinned.setAttachment({ kind: "memory", slug: "m", memory: "kept" });
  const sessions = new MemorySessionStore();
  const { id } = await sessions.createSession({ id: "s" });
  const calls = idCalls(pinned, sessions, id);
  for (const value of HOSTILE) {
    const label = describe(value);
    for (const [name, call] of Object.entries(calls.sync)) {
      const { error } = settlesSync(() => call(value), `${name}(${label})`);
      assert.equal(error?.code, "INVALID_ARGUMENT", `${name}(${label}) is refused`);
    }
    for (const [name, call] of Object.entries(calls.async)) {
      if (name === "loadActivityFrames" && (value === undefined || value === null)) continue; // absent: all requests
      // No options, or empty ones, make a session with defaults.
      if (name === "createSession" && (value === undefined || value === null || value === EMPTY)) continue;
      const { error } = await settlesAsync(() => call(value), `${name}(${label})`);
      assert.ok(error, `${name}(${label}) is refused`);
    }
  }
  assert.deepEqual(pinned.attachmentIds(), ["memory:m"], "the instance is healthy afterwards");
  assert.deepEqual(await sessions.loadActivityFrames(id), [], "nothing refused was written");
});

test("a lone surrogate is refused, never aliased to U+FFFD", async () => {
  const sessions = new MemorySessionStore();
  await sessions.createSession({ id: "s" });
  await sessions.saveSessionState("s", "a\ufffd", 1);
  const error = await sessions.loadSessionState("s", "a\ud800").catch((e) => e);
  assert.equal(error.code, "INVALID_ARGUMENT");
  assert.equal(error.field, "key");
  assert.match(error.message, /lone surrogate/);
  const pinned = new AttachmentStore();
  pinned.setAttachment({ kind: "memory", slug: "a\ufffd", memory: "x" });
  assert.throws(() => pinned.hasAttachment("memory:a\ud800"), (e) => e.code === "INVALID_ARGUMENT");
  const system = (() => { try { buildRequest({ system: "a\udc00", history: [] }); } catch (e) { return e; } })();
  assert.equal(system?.code, "INVALID_VALUE", "a system prompt with a lone surrogate is refused too");
});

test("empty and blank ids are INVALID_ARGUMENT everywhere", async () => {
  const sessions = new MemorySessionStore();
  // U+FEFF too: JS's trim() removes it, so a host sees it as blank.
  for (const blank of ["", " \t\n", "\ufeff", " \u3000"]) {
    for (const call of [() => sessions.getSession(blank), () => sessions.saveSessionState(blank, "k", 1),
      () => sessions.createSession({ id: blank }), () => sessions.appendActivityFrames("s", blank, [])]) {
      const error = await call().then(() => null, (e) => e);
      assert.equal(error?.code, "INVALID_ARGUMENT", `${call} with ${JSON.stringify(blank)}`);
    }
    // A blank slug or path would make an id no call could name.
    const pinned = new AttachmentStore();
    for (const [spec, code] of [[{ kind: "memory", slug: blank, memory: "x" }, "INVALID_SPEC"], [{ kind: "file", path: blank }, "INVALID_SPEC"],
      [{ kind: "custom", id: `note:${blank}`, rank: "memory", text: "x" }, "INVALID_ID"]]) {
      assert.throws(() => pinned.setAttachment(spec), (e) => isAttacheError(e) && e.code === code, JSON.stringify(spec));
    }
    assert.equal(pinned.size, 0);
    pinned.free();
  }
});

test("unknown option keys are INVALID_ARGUMENT naming the key", async () => {
  const named = (f) => { try { f(); return null; } catch (e) { return e; } };
  // A typo under `options`: `sessionId` there is not the sessionId argument.
  assert.equal(named(() => planTurn({ contextWindow: 100, history: 0, thresholdPrecent: 50 }))?.field, "options.thresholdPrecent");
  assert.equal(named(() => buildRequest({ history: [], fromat: "openai" }))?.field, "options.fromat");
  assert.equal(named(() => new AttachmentStore().checkPrefix({ provder: "openai" }))?.field, "options.provder");
  const misplaced = await new MemorySessionStore().loadMessages("s", { sessionId: "s" }).catch((e) => e);
  assert.equal(misplaced.field, "options.sessionId");
  // A known option, by the name its own checks give it: `limit`, `counter.ratio`.
  assert.equal(named(() => planTurn({ contextWindow: "x", history: 0 }))?.field, "contextWindow");
  const getter = named(() => planTurn({ get contextWindow() { throw new Error("boom"); }, history: 0 }));
  assert.equal(getter?.code, "INVALID_ARGUMENT", "a throwing getter is typed");
  assert.equal(getter?.field, "contextWindow", "named as the option's bad value is");
  const store = new MemorySessionStore();
  const throws = { get() { throw new Error("getter"); } };
  for (const [call, field] of [
    [(o) => store.loadMessages("s", o), "limit"],
    [(o) => store.createSession(o), "options.title"],
  ]) {
    const key = field.split(".").pop();
    const bad = await call({ [key]: -1 }).catch((e) => e);
    const thrown = await call(Object.defineProperty({}, key, { ...throws, enumerable: true })).catch((e) => e);
    assert.deepEqual([bad.field, thrown.field], [field, field], `${field}: a bad value and a getter, one name`);
  }
  // A revoked Proxy (a stale Immer draft) or a throwing trap: what threw is the cause.
  const { proxy: revoked, revoke } = Proxy.revocable({}, {});
  revoke();
  const trapped = new Proxy({}, { ownKeys() { throw new Error("trap"); } });
  for (const [options, message] of [[revoked, /revoked/], [trapped, /^trap$/]]) {
    const refused = named(() => planTurn(options));
    assert.deepEqual([refused?.code, refused?.field], ["INVALID_ARGUMENT", "options"]);
    assert.match(refused?.cause?.message ?? "", message, "the trap's error is the cause");
  }
  // Any key makes a path JS would follow: `a["a.b"]`, never `a.a.b`.
  const fieldOf = async (f) => { try { await f(); return null; } catch (e) { return e.field; } };
  const at = new MemorySessionStore();
  await at.createSession({ id: "s" });
  assert.equal(await fieldOf(() => at.saveSessionState("s", "k", { "a.b": 1n })), 'k["a.b"]');
  assert.equal(await fieldOf(() => at.saveSessionState("s", "k", { "a[0]": { x: 1n } })), 'k["a[0]"].x');
  assert.equal(await fieldOf(() => at.appendActivityFrames("s", "r", [{ "": 1n }])), 'frames[0][""]');
  assert.equal(await fieldOf(() => at.commitTurn("s", { state: { "x-y": { z: 1n } } })), 'state["x-y"].z');
  assert.equal(await fieldOf(() => planTurn({ contextWindow: 1, history: 0, "[": 1 })), 'options["["]');
  const spec = named(() => new AttachmentStore().setAttachment({ kind: "memory", slug: "a", memory: "b", "": 1 }));
  assert.deepEqual([spec?.code, spec?.field], ["INVALID_SPEC", '[""]']);
  assert.match(spec?.message ?? "", /`\[""\]` is not a field/);
  assert.equal(await fieldOf(() => at.commitTurn("s", { state: { "x-y": 1 }, stateIfAbsent: { "x-y": 2 } })), 'stateIfAbsent["x-y"]');
  assert.equal(await fieldOf(() => at.commitTurn("s", { state: { "x-y": { password: "hunter2" } } })), 'state["x-y"].password');
  // Unknown fields the core names: a message's, a document's.
  assert.equal(await fieldOf(() => estimateTokens([{ role: "user", content: "x", "a.b": 1 }])), 'messages[0]["a.b"]');
  const exported = await at.exportSession("s");
  assert.equal(await fieldOf(() => at.importSession({ ...exported, "x-y": 1 }, { id: "s2" })), 'document["x-y"]');
  const keys = new Proxy([], { get(t, k) { if (k === "length") throw new Error("length"); return Reflect.get(t, k); } });
  const sessionsOf = new MemorySessionStore();
  for (const list of [keys, revoked]) {
    const refused = await sessionsOf.loadSessionStates("s", list).catch((e) => e);
    assert.deepEqual([refused?.code, refused?.field], ["INVALID_ARGUMENT", "keys"]);
    assert.ok(refused?.cause instanceof Error, "kept as the cause");
  }
  assert.equal(getter?.cause?.message, "boom", "what it threw is the cause");
  const counted = [{ role: "user", content: "hi" }];
  assert.equal(named(() => estimateTokens(counted, { ratio: 4, perMesage: 1000 }))?.field, "counter.perMesage");
  assert.equal(named(() => planTurn({ contextWindow: 100, history: counted, counter: { ratio: 4, extra: 1 } }))?.field, "counter.extra");
  assert.equal(estimateTokens(counted, { ratio: 4, perMessage: 1000 }), 1000, "the right keys still count");
  // A Map or a Date has no own keys: its entries are no options.
  for (const [call, field] of [[() => new AttachmentStore().checkPrefix(new Map([["provider", "bogus"]])), "options"],
    [() => planTurn({ contextWindow: 100, history: 0, counter: new Map([["ratio", 4]]) }), "counter"]]) {
    assert.deepEqual([named(call)?.code, named(call)?.field], ["INVALID_ARGUMENT", field]);
  }
  const sessions = new MemorySessionStore();
  const { id } = await sessions.createSession();
  await assert.rejects(sessions.loadMessages(id, new Date()), (e) => isAttacheError(e) && e.field === "options");
  assert.deepEqual(await sessions.loadMessages(id, Object.create(null)), []);
  sessions.free();
});

test("an option inherited from Object.prototype (another library's pollution) is no option", async () => {
  const polluted = async (key, value, f) => {
    Object.prototype[key] = value;
    try { return await f(); } finally { delete Object.prototype[key]; }
  };
  const sessions = new MemorySessionStore();
  const { id } = await sessions.createSession({ meta: { owner: "me" } });
  await sessions.appendMessages(id, [{ role: "user", content: "a" }, { role: "assistant", content: "b" }]);
  // An append stays an append, not a replace from 0.
  await polluted("replaceFrom", 0, () => sessions.commitTurn(id, { messages: [{ role: "user", content: "c" }] }));
  assert.deepEqual((await sessions.loadMessages(id)).map((m) => m.content), ["a", "b", "c"]);
  const info = await polluted("meta", {}, () => sessions.updateSession(id, { title: "renamed" }));
  assert.deepEqual(info.meta, { owner: "me" });
  assert.equal((await polluted("limit", 1, () => sessions.loadMessages(id, {}))).length, 3);
  const plan = await polluted("thresholdPercent", 10, () => planTurn({ contextWindow: 1000, history: 200 }));
  assert.equal(plan.action, "send");
  // The credential policy stays the default: refuse.
  const other = await polluted("credentials", "redact", () => new MemorySessionStore({}));
  const { id: sid } = await other.createSession();
  await assert.rejects(other.saveSessionState(sid, "log", "Authorization: Bearer abcdefgh12345678"), (e) => e.code === "CREDENTIAL");
  // An own option is still read, a getter once.
  let reads = 0;
  const own = { get limit() { reads += 1; return 1; } };
  assert.equal((await polluted("limit", 2, () => sessions.loadMessages(id, own))).length, 1);
  assert.equal(reads, 1);
  sessions.free();
  other.free();
  // Nor one IndexedDB reads from attache's own options to it: a polluted
  // `durability` ("fast" is no value) failed every read.
  const idb = await attache.IdbSessionStore.open({ name: `polluted-${Date.now()}` });
  const { id: stored } = await idb.createSession({ id: "kept" });
  const afterPollution = await polluted("durability", "fast", async () => {
    await idb.saveSessionState(stored, "k", 1);
    return [(await idb.getSession(stored))?.id, await idb.loadSessionState(stored, "k")];
  });
  assert.deepEqual(afterPollution, ["kept", 1]);
  // A read-only `json` refused a record's own payload: the write resolved,
  // and the session was gone. (A read-only `durability` breaks
  // fake-indexeddb's own transactions, so only browsers can show that one.)
  Object.defineProperty(Object.prototype, "json", { value: "x", writable: false, configurable: true });
  try {
    await idb.updateSession(stored, { title: "kept whole" });
    await idb.saveSessionState(stored, "k", 2);
  } finally {
    delete Object.prototype.json;
  }
  assert.equal((await idb.getSession(stored)).title, "kept whole");
  assert.equal(await idb.loadSessionState(stored, "k"), 2);
  idb.close();
  // Nor when the schema is made: a `unique` there made every session's
  // second frame batch and message a ConstraintError, for good.
  const created = { unique: true, multiEntry: true, autoIncrement: true, keyPath: "x" };
  for (const key of Object.keys(created)) Object.prototype[key] = created[key];
  let fresh;
  try {
    fresh = await attache.IdbSessionStore.open({ name: `polluted-schema-${Date.now()}` });
  } finally {
    for (const key of Object.keys(created)) delete Object.prototype[key];
  }
  const { id: made } = await fresh.createSession();
  for (const n of [1, 2]) {
    await fresh.appendActivityFrames(made, "r", [{ n }]);
    await fresh.appendMessages(made, [{ role: "user", content: `m${n}` }]);
  }
  assert.deepEqual((await fresh.loadActivityFrames(made, "r")).map((f) => f.n), [1, 2]);
  assert.equal((await fresh.loadMessages(made)).length, 2);
  fresh.close();
});

test("an accessor or read-only key on Object.prototype breaks no store or error", async () => {
  // defineProperty reads a descriptor's inherited `get`: every error and
  // every new store threw a TypeError, and async calls never settled. A
  // read-only `code` refused a set: the error was no AttacheError. Only
  // synchronous calls run polluted, and the results are checked after:
  // node's own internals (its module loader, assert) break under it too.
  const polluted = { get: function get(key) { return this[key]; }, set: function set() {} };
  const seen = {};
  let pending;
  // Null-prototype descriptors here too, or the second define would throw.
  for (const key of Object.keys(polluted)) Object.defineProperty(Object.prototype, key, { __proto__: null, value: polluted[key], configurable: true, writable: true });
  Object.defineProperty(Object.prototype, "code", { __proto__: null, value: "x", configurable: true, writable: false });
  try {
    const pins = new AttachmentStore();
    const refused = (() => { try { pins.setAttachment(3); } catch (e) { return e; } })();
    seen.refused = [isAttacheError(refused), Object.hasOwn(refused, "code") && refused.code];
    const sessions = new MemorySessionStore();
    pending = sessions.getSession("").catch((e) => e);
    pins.free();
    const freed = (() => { try { return pins.size; } catch (e) { return e; } })();
    seen.freed = [isAttacheError(freed), Object.hasOwn(freed, "code") && freed.code];
    sessions.free();
  } catch (e) {
    seen.threw = String(e?.message);
  } finally {
    for (const key of [...Object.keys(polluted), "code"]) delete Object.prototype[key];
  }
  const rejected = await Promise.race([pending, new Promise((r) => setTimeout(() => r({}), 1000))]);
  seen.rejected = [isAttacheError(rejected), Object.hasOwn(rejected, "code") && rejected.code];
  assert.deepEqual(seen, { refused: [true, "INVALID_SPEC"], freed: [true, "FREED"], rejected: [true, "INVALID_ARGUMENT"] });
});

test("cacheControl is read as an options object: own keys, a typo named, INVALID_ARGUMENT", () => {
  const history = [{ role: "user", content: "hi" }];
  const refused = (cacheControl) => {
    try {
      buildRequest({ format: "anthropic", history, cacheControl });
    } catch (e) {
      assert.ok(isAttacheError(e), String(e));
      return [e.code, e.field];
    }
    return "built";
  };
  // Present but undefined, or not enumerable, a typo is still a typo.
  assert.deepEqual(refused({ type: "ephemeral", tll: undefined }), ["INVALID_ARGUMENT", "cacheControl.tll"]);
  assert.deepEqual(refused(Object.defineProperty({ type: "ephemeral" }, "tll", { value: "1h" })), ["INVALID_ARGUMENT", "cacheControl.tll"]);
  assert.deepEqual(refused(new Map([["type", "ephemeral"]])), ["INVALID_ARGUMENT", "cacheControl"]);
  assert.deepEqual(refused({ get type() { throw new Error("getter"); } }), ["INVALID_ARGUMENT", "cacheControl.type"]);
  assert.deepEqual(refused({ type: "ephemeral", ttl: "2h" }), ["INVALID_ARGUMENT", "cacheControl"]);
  // Values JSON cannot hold, as it or inside it, are the same mistake.
  for (const wrong of [() => 1, 5n, NaN, "1h", "\ud800"]) assert.deepEqual(refused(wrong), ["INVALID_ARGUMENT", "cacheControl"], String(wrong));
  for (const [wrong, at] of [[{ type: "ephemeral", ttl: 5n }, "ttl"], [{ type: new String("ephemeral") }, "type"], [{ type: "ephemeral", ttl: NaN }, "ttl"]]) {
    assert.deepEqual(refused(wrong), ["INVALID_ARGUMENT", `cacheControl.${at}`], at);
  }
  // What a toJSON in it threw is the cause.
  const down = new Error("toJSON down");
  try {
    buildRequest({ format: "anthropic", history, cacheControl: { type: "ephemeral", ttl: { toJSON() { throw down; } } } });
    assert.fail("built");
  } catch (e) {
    assert.deepEqual([e.code, e.field, e.cause], ["INVALID_ARGUMENT", "cacheControl.ttl", down]);
  }
  // A getter runs once, and what it gave is what is sent.
  const pins = new AttachmentStore();
  pins.setAttachment({ kind: "memory", slug: "m", memory: "kept" });
  let reads = 0;
  const request = buildRequest({ format: "anthropic", history, attachments: pins.consolidatedMessage(),
    cacheControl: { type: "ephemeral", get ttl() { reads += 1; return "1h"; } } });
  assert.equal(reads, 1);
  assert.deepEqual(request.messages[0].content[0].cache_control, { type: "ephemeral", ttl: "1h" });
  // A read-only `ttl` on a polluted Object.prototype does not take the value.
  Object.defineProperty(Object.prototype, "ttl", { value: "5m", writable: false, configurable: true });
  try {
    const polluted = buildRequest({ format: "anthropic", history, attachments: pins.consolidatedMessage(), cacheControl: { type: "ephemeral", ttl: "1h" } });
    assert.deepEqual(polluted.messages[0].content[0].cache_control, { type: "ephemeral", ttl: "1h" });
  } finally {
    delete Object.prototype.ttl;
  }
  pins.free();
});

test("free() with a wrong `this` is INVALID_THIS, not a silent no-op", () => {
  const sessions = new MemorySessionStore();
  for (const [free, self] of [[AttachmentStore.prototype.free, sessions], [MemorySessionStore.prototype.free, {}],
    [MemorySessionStore.prototype[Symbol.dispose], null]]) {
    assert.throws(() => free.call(self), (e) => isAttacheError(e) && e.code === "INVALID_THIS");
  }
  sessions.free();
  sessions.free();
});

test("saveAttachments takes a live AttachmentStore; anything else rejects typed, not synchronously", async () => {
  const sessions = new MemorySessionStore();
  await sessions.createSession({ id: "s" });
  for (const wrong of [{}, [], "pins", null, { toJSON: () => 1 }]) {
    const { error } = await settlesAsync(() => sessions.saveAttachments("s", wrong), `saveAttachments(${JSON.stringify(wrong)})`);
    assert.ok(error, `${JSON.stringify(wrong)} is refused`);
  }
  const freed = new AttachmentStore();
  freed.free();
  const { error } = await settlesAsync(() => sessions.saveAttachments("s", freed), "a freed store");
  assert.equal(error.code, "FREED", error.message);
  const forged = Object.assign(Object.create(AttachmentStore.prototype), { __wbg_ptr: 8 });
  const refused = await sessions.saveAttachments("s", forged).catch((e) => e);
  assert.deepEqual([refused.code, refused.field], ["INVALID_ARGUMENT", "pinned"], "a forged pointer is no store");
  const lookalike = { toJSON: () => pinnedSpecs };
  const pinnedSpecs = [{ kind: "memory", slug: "x", memory: "y" }];
  assert.equal((await sessions.saveAttachments("s", lookalike).catch((e) => e)).code, "INVALID_ARGUMENT",
    "a look-alike with valid specs is not an AttachmentStore");
  const pinned = new AttachmentStore();
  pinned.setAttachment({ kind: "todo", items: [{ text: "ship", completed: false }] });
  pinned.setAttachment({ kind: "memory", slug: "m", memory: "M" });
  await sessions.saveAttachments("s", pinned);
  const loaded = await sessions.loadAttachments("s");
  assert.deepEqual(loaded.attachmentIds(), pinned.attachmentIds());
  const specs = '[{"kind":"todo","items":[{"text":"ship","completed":false}]},{"kind":"memory","slug":"m","memory":"M"}]';
  assert.equal(JSON.stringify(pinned), specs, "toJSON gives the specs in pin order");
  assert.equal(JSON.stringify(loaded), specs, "and so does the loaded store");
  // The pins are handed over inside wasm by the prototype's own method: a
  // shadowing one is not called, and one a host put in its place hands
  // nothing, nor do pins a failed call left behind.
  pinned.__pins = () => { throw new Error("not called"); };
  await sessions.saveAttachments("s", pinned);
  const own = Object.getOwnPropertyDescriptor(AttachmentStore.prototype, "__pins");
  const other = new AttachmentStore();
  other.setAttachment({ kind: "memory", slug: "other", memory: "left behind" });
  try {
    AttachmentStore.prototype.__pins = () => {};
    for (const [save, field] of [[() => sessions.saveAttachments("s", pinned), "pinned"],
      [() => sessions.commitTurn("s", { attachments: pinned }), "attachments"]]) {
      const replaced = await save().catch((e) => e);
      assert.deepEqual([replaced.code, replaced.field], ["INVALID_ARGUMENT", field]);
      assert.match(replaced.message, /must be a live AttachmentStore/);
    }
    // One that throws, even after the real one handed another store's
    // pins, is no live store's method either: not a freed store.
    AttachmentStore.prototype.__pins = function () { own.value.call(other); throw new Error("after handing"); };
    const thrown = await sessions.saveAttachments("s", pinned).catch((e) => e);
    assert.deepEqual([thrown.code, thrown.field], ["INVALID_ARGUMENT", "pinned"]);
    // Pins a host's own call of the method left in the cell are no one's.
    own.value.call(other);
    AttachmentStore.prototype.__pins = () => {};
    const stale = await sessions.saveAttachments("s", pinned).catch((e) => e);
    assert.deepEqual([stale.code, stale.field], ["INVALID_ARGUMENT", "pinned"]);
  } finally {
    Object.defineProperty(AttachmentStore.prototype, "__pins", own);
    other.free();
  }
  assert.deepEqual((await sessions.loadAttachments("s")).attachmentIds(), pinned.attachmentIds(), "nothing else was saved");
});

test("a fake length does not grow wasm memory", () => {
  const pinned = new AttachmentStore();
  const before = memory.buffer.byteLength;
  for (let i = 0; i < 100; i++) settlesSync(() => pinned.hasAttachment({ length: 1e9 }), "fake length");
  assert.equal(memory.buffer.byteLength, before, "memory stayed flat");
});

test(`arbitrary values in every id and option parameter (${RUNS} runs, ATTACHE_FUZZ_RUNS for more)`, async () => {
  const { grown, jumps } = await shared.fuzz({ attache, fc, memory, runs: RUNS });
  // Growth comes in 64 KiB pages: one page of slack beyond the largest
  // single jump, so over 20,000 runs a leak of about 10 bytes a run (three
  // pages) fails.
  assert.ok(grown <= 64 * 1024, `wasm memory stayed flat: grew ${grown} bytes over ${RUNS} runs, beyond its largest single jump (growth as [run, bytes]: ${JSON.stringify(jumps)})`);
});

// Issue 9's id and option rules, each run at one parameter: a fraction of
// the arbitrary values' runs, as each checks one rule, not every call.
const CONTRACT_RUNS = Math.ceil(RUNS / 10);
test(`a blank or lone-surrogate id at any id parameter, an unknown key in any options object (${CONTRACT_RUNS} runs each, memory and IndexedDB)`, async () => {
  await shared.contract({ attache, fc, runs: CONTRACT_RUNS });
  const sessions = await attache.IdbSessionStore.open({ name: "contract" });
  try {
    await shared.contract({ attache, fc, runs: Math.ceil(CONTRACT_RUNS / 4), sessions });
  } finally {
    sessions.close();
  }
});

test("errors say what the host passed, keep their code on every route, and show no parser internals", async () => {
  const thrown = (f) => { try { f(); return null; } catch (e) { return e; } };
  assert.match(thrown(() => planTurn({ contextWindow: 100, history: 0, thresholdPercent: 300 }))?.message, /got 300/);
  const down = new Error("tokenizer down");
  const counter = thrown(() => estimateTokens([], () => { throw down; }));
  assert.equal(counter?.code, "INVALID_ARGUMENT");
  assert.match(counter.message, /threw: tokenizer down/, "the host's own message, not {}");
  assert.equal(counter.cause, down, "the host's error is kept as the cause");
  const planned = thrown(() => planTurn({ contextWindow: 100, history: [], counter: () => { throw "no tokens"; } }));
  assert.equal(planned?.cause, "no tokens", "whatever the host threw");
  assert.equal(thrown(() => estimateTokens(5))?.cause, undefined, "an error of ours has no cause");

  const sessions = new MemorySessionStore();
  await sessions.createSession({ id: "s" });
  const shape = await sessions.createSession({ title: 5 }).catch((e) => e);
  assert.equal(shape.code, "INVALID_VALUE");
  // An unknown key is the caller's mistake, as in every other options object.
  for (const titel of ["x", undefined, () => 1]) {
    for (const call of [() => sessions.createSession({ titel }), () => sessions.updateSession("s", { titel })]) {
      const typo = await call().catch((e) => e);
      assert.deepEqual([typo.code, typo.field], ["INVALID_ARGUMENT", "options.titel"], `titel: ${String(titel)}`);
    }
  }
  const getter = Object.defineProperty({}, "title", { enumerable: true, get() { throw new Error("no"); } });
  assert.equal((await sessions.createSession(getter).catch((e) => e)).code, "INVALID_ARGUMENT", "a throwing getter");
  const notOptions = await sessions.createSession(5).catch((e) => e);
  assert.deepEqual([notOptions.code, notOptions.field], ["INVALID_ARGUMENT", "options"]);
  assert.doesNotMatch(shape.message, /line \d+ column \d+/, shape.message);

  const viaPin = thrown(() => new AttachmentStore().setAttachment({ kind: "image" }));
  const viaState = await sessions.saveSessionState("s", "attachments", [{ kind: "image" }]).catch((e) => e);
  assert.deepEqual([viaState.code, viaState.field], [viaPin.code, `attachments[0].${viaPin.field}`],
    "a bad spec is UNKNOWN_KIND whichever route reports it");
  const nested = await sessions.appendActivityFrames("s", "r", [{ a: { b: ["ok", "x\ud800"] } }]).catch((e) => e);
  assert.equal(nested.field, "frames[0].a.b[1]", "a lone surrogate is named by its path");

  // A hole, which JSON.stringify would write as null unseen, is refused.
  const hole = await sessions.appendActivityFrames("s", "r", [{ a: [, 1] }]).catch((e) => e);
  assert.deepEqual([hole.code, hole.field], ["INVALID_VALUE", "frames[0].a[0]"]);
  // A toJSON method (hidden, or a MobX array's) gives what is stored, as
  // in JSON.stringify, and its result is what is checked.
  const hidden = Object.defineProperty([1], "toJSON", { value: () => "swapped" });
  const observable = new Proxy([1, 2], { get: (t, k) => (k === "toJSON" ? () => t.slice() : t[k]) });
  const frame = { a: hidden, b: observable, c: { toJSON: (key) => `at ${key}` } };
  await sessions.appendActivityFrames("s", "r", [frame]);
  assert.deepEqual(await sessions.loadActivityFrames("s", "r"), [{ a: "swapped", b: [1, 2], c: "at c" }]);
  for (const [returned, field] of [[NaN, "frames[0].a"], ["x\ud800", "frames[0].a"], [{ n: undefined, m: [undefined] }, "frames[0].a.m[0]"]]) {
    const refused = await sessions.appendActivityFrames("s", "r", [{ a: { toJSON: () => returned } }]).catch((e) => e);
    assert.deepEqual([refused.code, refused.field], ["INVALID_VALUE", field], `toJSON giving ${String(returned)}`);
  }
  // Each toJSON runs once: what was checked is what is stored.
  let calls = 0;
  const once = { a: { toJSON: () => (calls++ ? NaN : 1) }, b: [{ toJSON: () => JSON.parse('{"__proto__":"kept","n":[1]}') }] };
  await sessions.saveSessionState("s", "once", once);
  assert.equal(calls, 1, "toJSON ran once");
  assert.deepEqual(await sessions.loadSessionState("s", "once"), JSON.parse('{"a":1,"b":[{"__proto__":"kept","n":[1]}]}'));
  const selfish = { toJSON() { return { me: selfish }; } };
  assert.equal((await sessions.saveSessionState("s", "k", selfish).catch((e) => e)).code, "INVALID_VALUE", "a cycle through toJSON");
  const inherited = Object.create({ toJSON: () => "swapped" });
  const viaProto = await sessions.saveSessionState("s", "k", { a: inherited }).catch((e) => e);
  assert.equal(viaProto.code, "INVALID_VALUE", "a non-plain object is refused before its toJSON");
  assert.equal((await sessions.loadActivityFrames("s", "r")).length, 1, "nothing refused was stored");
});

test("every method on a freed instance is FREED, on a wrong `this` INVALID_THIS; async ones reject", async () => {
  const classes = { AttachmentStore, MemorySessionStore, IdbSessionStore: attache.IdbSessionStore };
  const others = [{}, null, new AttachmentStore(), new MemorySessionStore()];
  let checked = 0;
  for (const [name, Class] of Object.entries(classes)) {
    const methods = Object.getOwnPropertyNames(Class.prototype)
      .filter((m) => !["constructor", "free", "__destroy_into_raw"].includes(m));
    const open = () => (name === "IdbSessionStore" ? Class.open({ name: "boundary-freed" }) : new Class());
    const freed = await open();
    freed.free();
    freed.free(); // a second free() does nothing
    // A pointer set by hand names memory wasm would read: not a live instance.
    const forged = Object.assign(Object.create(Class.prototype), { __wbg_ptr: 8 });
    for (const method of methods) {
      const descriptor = Object.getOwnPropertyDescriptor(Class.prototype, method);
      const call = (self) => (descriptor.get ? descriptor.get.call(self) : descriptor.value.call(self, "s", "k", []));
      const wrong = [...others.filter((o) => !(o instanceof Class)), forged].map((o) => [o, "INVALID_THIS"]);
      for (const [self, code] of [[freed, "FREED"], ...wrong]) {
        let outcome;
        try {
          outcome = call(self);
        } catch (e) {
          outcome = { thrown: e };
        }
        const async = name !== "AttachmentStore" && !["close", "name"].includes(method);
        assert.equal(outcome instanceof Promise, async, `${name}.${method} ${async ? "rejects" : "throws"}`);
        const error = async ? await outcome.then(() => null, (e) => e) : outcome?.thrown;
        assert.ok(isAttacheError(error), `${name}.${method} on ${code}: ${error?.message ?? "no error"}`);
        assert.equal(error.code, code, `${name}.${method}`);
        checked++;
      }
    }
    // Internal to the glue: a host's call would forge an instance or leak one.
    const live = await open();
    const internals = [() => live.__destroy_into_raw()];
    if (Class.__wrap) internals.push(() => Class.__wrap(live.__wbg_ptr), () => Class.__wrap(0xfffffff0));
    for (const call of internals) {
      assert.throws(call, (e) => isAttacheError(e) && e.code === "INVALID_THIS", `${name} internals`);
    }
    if (name === "IdbSessionStore") live.close();
    live.free();
  }
  assert.ok(checked > 100, `${checked} calls checked`);
});

test("a Proxy over a live instance (Vue's reactive) works; a freed pointer put back does not", async () => {
  // As Vue's reactive(): what a get returns is wrapped too, if extensible.
  const reactive = (target) => new Proxy(target, {
    get(t, key, receiver) {
      const value = Reflect.get(t, key, receiver);
      return value !== null && typeof value === "object" && Object.isExtensible(value) ? reactive(value) : value;
    },
  });
  const pinned = reactive(new AttachmentStore());
  pinned.setAttachment({ kind: "memory", slug: "m", memory: "M" });
  assert.equal(pinned.size, 1);
  const sessions = reactive(new MemorySessionStore());
  const { id } = await sessions.createSession();
  await sessions.saveAttachments(id, pinned);
  assert.deepEqual((await sessions.loadAttachments(id)).attachmentIds(), ["memory:m"]);
  pinned.free();
  assert.throws(() => pinned.size, (e) => isAttacheError(e) && e.code === "FREED");
  // The pointer of a freed instance, put back by hand, names freed memory.
  const stale = new AttachmentStore();
  const pointer = stale.__wbg_ptr;
  stale.free();
  stale.__wbg_ptr = pointer;
  const reused = new AttachmentStore();
  reused.setAttachment({ kind: "memory", slug: "r", memory: "R" });
  assert.throws(() => stale.size, (e) => isAttacheError(e) && e.code === "FREED");
  assert.equal(reused.size, 1, "the instance that may hold that memory now is untouched");
  reused.free();
  sessions.free();
});

test("wasm gets the pointer the glue gave out, whatever __wbg_ptr, a Proxy or a prototype says", () => {
  const store = new AttachmentStore();
  store.setAttachment({ kind: "memory", slug: "mine", memory: "M" });
  const genuine = store.__wbg_ptr;
  let reads = 0;
  const flipping = Object.create(store, { __wbg_ptr: { get: () => (reads++ % 2 ? 0xfffffff0 : genuine) } });
  assert.deepEqual(flipping.attachmentIds(), ["memory:mine"]);
  assert.equal(reads, 0, "the property is never what wasm gets");
  store.__wbg_ptr = genuine + 8;
  assert.equal(store.size, 1);
  // A prototype's accessor cannot choose the pointer a new instance records.
  const sessions = new MemorySessionStore();
  const foreign = sessions.__wbg_ptr;
  Object.defineProperty(AttachmentStore.prototype, "__wbg_ptr", { get: () => foreign, set() {}, configurable: true });
  try {
    const made = new AttachmentStore();
    assert.equal(made.size, 0);
    made.setAttachment({ kind: "memory", slug: "m", memory: "x" });
    assert.deepEqual(made.attachmentIds(), ["memory:m"]);
    made.free();
  } finally {
    delete AttachmentStore.prototype.__wbg_ptr;
  }
  // A stale Proxy (over a frozen instance, or one whose writes are ignored,
  // as Vue's readonly) is FREED, never the instance that took its memory.
  for (const wrap of [(s) => new Proxy(Object.freeze(s), {}), (s) => new Proxy(s, { set: () => true })]) {
    const old = new AttachmentStore();
    const proxy = wrap(old);
    proxy.free();
    const next = new AttachmentStore();
    next.setAttachment({ kind: "memory", slug: "next", memory: "N" });
    assert.throws(() => proxy.attachmentIds(), (e) => isAttacheError(e) && e.code === "FREED");
    proxy.free();
    assert.deepEqual(next.attachmentIds(), ["memory:next"], "a second free() through it did nothing");
    next.free();
  }
  // A Proxy that frees its target while the guard reads it: FREED, and the
  // store that may now hold that memory keeps its pin.
  const target = new AttachmentStore();
  let victim;
  const sly = new Proxy(target, {
    get(t, key, receiver) {
      if (typeof key === "symbol" && victim === undefined) {
        const token = Reflect.get(t, key, receiver);
        t.free();
        victim = new AttachmentStore();
        victim.setAttachment({ kind: "memory", slug: "victim", memory: "v" });
        return token;
      }
      return Reflect.get(t, key, receiver);
    },
  });
  assert.throws(() => sly.detachAttachment("memory:victim"), (e) => isAttacheError(e) && e.code === "FREED");
  assert.ok(victim.hasAttachment("memory:victim"), "another store's pin is never removed through it");
  victim.free();
  sessions.free();
  store.free();
});

test("a call back into a busy object is BUSY, and the outer call goes on", async () => {
  const store = new AttachmentStore();
  let inner;
  const spec = { kind: "memory", slug: "m", get memory() {
    try { store.hasAttachment("memory:m"); } catch (e) { inner = e; }
    return "x";
  } };
  assert.equal(store.setAttachment(spec), "memory:m");
  assert.ok(isAttacheError(inner) && inner.code === "BUSY", `${inner}`);
  // free() inside its own call: the object goes once that call returns.
  const doomed = new AttachmentStore();
  doomed.setAttachment({ kind: "memory", slug: "d", memory: "D" });
  const counted = doomed.checkPrefix({ counter: () => { doomed.free(); return 1; } });
  assert.equal(counted.prefixTokens, 1);
  assert.throws(() => doomed.size, (e) => isAttacheError(e) && e.code === "FREED");
  const after = [new AttachmentStore(), new AttachmentStore()];
  after.forEach((s, i) => s.setAttachment({ kind: "memory", slug: `s${i}`, memory: "S" }));
  assert.deepEqual(after.map((s) => s.attachmentIds()), [["memory:s0"], ["memory:s1"]]);
  after.forEach((s) => s.free());
  const sessions = new MemorySessionStore();
  const { id } = await sessions.createSession();
  // Saved from inside its own spec, the store is held while the spec is
  // read: BUSY, as for any call back into it, by either route.
  let saving;
  store.setAttachment({ kind: "memory", slug: "n", get memory() {
    saving = [sessions.saveAttachments(id, store), sessions.commitTurn(id, { attachments: store })];
    return "y";
  } });
  for (const save of saving) await assert.rejects(save, (e) => isAttacheError(e) && e.code === "BUSY");
  store.free();
  sessions.free();
});

test("BUSY in a loop inside one call leaves the module whole", () => {
  // Each BUSY is thrown from inside the wasm, past frames whose stack the
  // glue must give back: 10,000 of them once ran its 1 MiB out.
  const store = new AttachmentStore();
  store.setAttachment({ kind: "memory", slug: "m", memory: "M" });
  let busy = 0;
  store.checkPrefix({ counter: () => {
    for (let i = 0; i < 10000; i++) {
      try { store.setAttachment({ kind: "memory", slug: "y", memory: "Y" }); } catch (e) { if (e.code === "BUSY") busy++; }
    }
    return 1;
  } });
  assert.equal(busy, 10000);
  store.setAttachment({ kind: "memory", slug: "z", memory: "Z" });
  assert.deepEqual(store.attachmentIds(), ["memory:m", "memory:z"]);
  store.free();
});

test("calls nested deep inside callbacks are BUSY, and the module stays whole", async () => {
  // In a worker, whose JS stack outlasts the wasm's 1 MiB: without a limit
  // the wasm ran out first and trapped, and every later call threw.
  const { Worker } = await import("node:worker_threads");
  const code = `
    const { parentPort, workerData } = require("node:worker_threads");
    import(workerData).then(({ AttachmentStore, MemorySessionStore, estimateTokens, isAttacheError }) => {
      const one = [{ role: "user", content: "x" }];
      const sessions = new MemorySessionStore();
      let depth = 0, deepest = 0, outer, pinned;
      const sync = [], stuck = [];
      const counter = () => {
        deepest = Math.max(deepest, ++depth);
        // At every depth, the limit's included: async calls reject.
        try { sessions.getSession("s").catch(() => {}); } catch (e) { sync.push(e.code); }
        try { estimateTokens(one, counter); } finally { depth--; }
        return 1;
      };
      try { estimateTokens(one, counter); } catch (e) { outer = e; }
      // Through a new store at each level, so no object is busy. Each is
      // whole once its call is over, the deepest let in included.
      const nest = () => {
        const store = new AttachmentStore();
        try {
          store.setAttachment({ kind: "memory", slug: "m", memory: "M" });
          return store.checkPrefix({ counter: () => { nest(); return 1; } });
        } catch (e) {
          if (!isAttacheError(e)) stuck.push(String(e));
          throw e;
        } finally {
          try { store.attachmentIds(); } catch (e) { stuck.push(e.code); }
          store.free();
        }
      };
      try { nest(); } catch (e) { pinned = e; }
      // isAttacheError is let past the limit, for catch blocks, but not
      // without end: through a getter it reads, it once trapped at 1,025.
      let reads = 0, deepestRead = 0, freeing;
      const errors = new Set();
      // free() too, and past that it leaves its object live, not half gone.
      const victim = new AttachmentStore();
      const gone = new AttachmentStore();
      gone.free();
      const codes = [];
      victim.setAttachment({ kind: "memory", slug: "v", memory: "V" });
      const looped = new Proxy(new Error("x"), { get(target, key) {
        if (key !== "name") return Reflect.get(target, key);
        deepestRead = Math.max(deepestRead, ++reads);
        if (reads === 256) {
          try { victim.free(); freeing = "freed"; } catch (e) { freeing = e.code + " " + /256 deep/.test(e.message); }
          // The depth is no reason to call a freed object or a wrong this BUSY.
          for (const call of [() => gone.size, () => AttachmentStore.prototype.attachmentIds.call({})]) {
            try { call(); } catch (e) { codes.push(e.code); }
          }
        }
        try { isAttacheError(looped); } catch (e) { errors.add(e?.code ?? String(e)); throw e; } finally { reads--; }
        return "AttacheError";
      } });
      const recognised = isAttacheError(looped);
      const fresh = new AttachmentStore();
      fresh.setAttachment({ kind: "memory", slug: "f", memory: "F" });
      new MemorySessionStore().createSession().then((info) => parentPort.postMessage({
        deepest, sync, stuck, recognised, deepestRead, errors: [...errors], victim: [freeing, victim.attachmentIds(), codes], outer: [outer?.name, outer?.code], pinned: [pinned?.name, pinned?.code],
        after: [fresh.attachmentIds(), typeof info.id, estimateTokens(one)],
      }), (e) => parentPort.postMessage({ failed: String(e) }));
    }, (e) => parentPort.postMessage({ failed: String(e) }));`;
  const worker = new Worker(code, { eval: true, workerData: new URL("pkg/index.js", root).href });
  const result = await new Promise((resolve, reject) => {
    worker.once("message", resolve);
    worker.once("error", reject);
    // A hang fails the test rather than the whole run.
    setTimeout(() => reject(new Error("the worker did not answer in 60 s")), 60_000).unref();
  });
  await worker.terminate();
  assert.equal(result.failed, undefined, result.failed);
  assert.ok(result.deepest >= 8 && result.deepest <= 16, `nested ${result.deepest} deep`);
  assert.deepEqual([result.sync, result.stuck], [[], []], "no async call threw, and no store was left busy");
  assert.deepEqual([result.recognised, result.deepestRead, result.errors], [false, 256, ["BUSY"]]);
  assert.deepEqual(result.victim, ["BUSY true", ["memory:v"], ["FREED", "INVALID_THIS"]]);
  assert.deepEqual(result.outer, ["AttacheError", "INVALID_ARGUMENT"], "the outermost counter threw: typed");
  assert.deepEqual(result.pinned, ["AttacheError", "INVALID_ARGUMENT"]);
  assert.deepEqual(result.after, [["memory:f"], "string", estimateTokens([{ role: "user", content: "x" }])]);
});

test("text a host's code made is cut, and a name checked, before either is copied in", async () => {
  // Once, a counter's thrown message went in whole, and 100 MB of it grew
  // wasm memory for good; a 10 MB kind was a 10 MB message.
  const big = "q".repeat(100_000_000);
  const before = memory.buffer.byteLength;
  const store = new AttachmentStore();
  store.setAttachment({ kind: "memory", slug: "m", memory: "M" });
  const one = [{ role: "user", content: "x" }];
  const refused = [
    () => estimateTokens(one, () => { throw new Error(big); }),
    () => estimateTokens(one, () => { throw big; }),
    () => estimateTokens(one, big),
    () => store.checkPrefix({ provider: big }),
    () => buildRequest({ history: one, format: big }),
    () => new MemorySessionStore({ credentials: big }),
  ];
  for (const call of refused) {
    assert.throws(call, (e) => isAttacheError(e) && e.code === "INVALID_ARGUMENT" && e.message.length < 1100, `${call}`);
  }
  await assert.rejects(attache.IdbSessionStore.open({ name: "cut", durability: big }),
    (e) => isAttacheError(e) && e.field === "durability");
  assert.equal(isAttacheError(Object.assign(new Error("x"), { name: big, code: big })), false);
  // A wrapped indexedDB's DOMException, and a replaced __pins' code.
  const idb = await attache.IdbSessionStore.open({ name: "cut-dom" });
  const transaction = IDBDatabase.prototype.transaction;
  const pins = AttachmentStore.prototype.__pins;
  try {
    IDBDatabase.prototype.transaction = () => { throw new DOMException(big, big); };
    await assert.rejects(idb.listSessions(), (e) => isAttacheError(e) && e.message.length < 2200 && e.domName.length === 1001);
    AttachmentStore.prototype.__pins = () => { throw { code: big }; };
    await assert.rejects(new MemorySessionStore().saveAttachments("s", store), (e) => e.field === "pinned");
  } finally {
    IDBDatabase.prototype.transaction = transaction;
    AttachmentStore.prototype.__pins = pins;
  }
  idb.free();
  assert.ok(memory.buffer.byteLength - before < 1024 * 1024, `wasm memory grew by ${memory.buffer.byteLength - before}`);
  const said = estimateTokens.bind(null, one, () => { throw new Error(`${"q".repeat(2000)}`); });
  assert.throws(said, (e) => e.message === `\`counter\`: threw: ${"q".repeat(1000)}…`);
  for (const spec of [{ kind: "k".repeat(1e6) }, { kind: "custom", id: "i".repeat(4000), rank: "memory", text: "t" },
    { kind: "custom", id: "a:b", rank: "r".repeat(1e6), text: "t" }]) {
    assert.throws(() => store.setAttachment(spec), (e) => isAttacheError(e) && e.message.length < 1200 && /…/.test(e.message));
  }
  store.free();
});

test("a session store's write from inside another call's arguments is BUSY, on both stores", async () => {
  const { IdbSessionStore } = attache;
  const stores = [new MemorySessionStore(), await IdbSessionStore.open({ name: `busy-${Date.now()}` })];
  for (const store of stores) {
    const { id } = await store.createSession();
    const inner = [];
    let read;
    // Settled at once: they reject before the outer call is awaited.
    const settled = (p) => p.then(() => "resolved", (e) => e);
    const hook = { toJSON() {
      inner.push(settled(store.appendMessages(id, [{ role: "user", content: "inner" }])), settled(store.deleteSession(id)));
      read = store.loadMessages(id);
      return "outer";
    } };
    await store.appendMessages(id, [{ role: "user", content: hook }]);
    for (const e of await Promise.all(inner)) {
      assert.ok(isAttacheError(e) && e.code === "BUSY" && e.field === undefined, `${store.constructor.name}: ${e}`);
    }
    // saveAttachments reads its store through a Proxy's traps too.
    const pinned = new AttachmentStore();
    const trap = new Proxy(pinned, { getPrototypeOf(target) {
      if (inner.length === 2) inner.push(settled(store.appendMessages(id, [{ role: "user", content: "trap" }])));
      return Reflect.getPrototypeOf(target);
    } });
    await store.saveAttachments(id, trap);
    pinned.free();
    assert.equal(inner.length, 3, "the trap ran");
    const trapped = await inner[2];
    assert.ok(isAttacheError(trapped) && trapped.code === "BUSY", `${store.constructor.name}: ${trapped}`);
    assert.deepEqual(await read, [], "a read inside is no change");
    assert.deepEqual((await store.loadMessages(id)).map((m) => m.content), ["outer"], "the outer call went on, alone");
    // Once the outer call has read its arguments, the store takes writes.
    await store.appendMessages(id, [{ role: "user", content: "after" }]);
    assert.equal((await store.loadMessages(id)).length, 2);
    if (store.close) store.close();
    store.free();
  }
});

test("a store freed or closed just before another connection's upgrade is told leaves nothing to throw", async () => {
  const { IdbSessionStore } = attache;
  const thrown = [];
  const record = (e) => thrown.push(e);
  process.on("uncaughtException", record);
  try {
    for (const end of ["free", "close"]) {
      const name = `upgrade-${end}-${Date.now()}`;
      const store = await IdbSessionStore.open({ name });
      await store.createSession({ id: "x" });
      const upgrade = new Promise((resolve, reject) => {
        const request = indexedDB.open(name, 2);
        request.onsuccess = () => { request.result.close(); resolve(request.result.version); };
        request.onerror = () => reject(request.error);
      });
      // The versionchange event is queued, then the store lets go.
      await new Promise((resolve) => setImmediate(resolve));
      if (end === "free") store.free();
      else store.close();
      assert.equal(await upgrade, 2);
      await new Promise((resolve) => setTimeout(resolve, 20));
      if (end === "close") store.free();
    }
  } finally {
    process.off("uncaughtException", record);
  }
  assert.deepEqual(thrown.map(String), []);
});

test("an instance freed through a Proxy is not freed again when collected", async () => {
  const { setFlagsFromString } = await import("node:v8");
  const { runInNewContext } = await import("node:vm");
  setFlagsFromString("--expose-gc");
  const gc = runInNewContext("gc");
  let collected = false;
  const watch = new FinalizationRegistry(() => { collected = true; });
  let freedAt;
  (() => {
    const target = new AttachmentStore();
    freedAt = target.__wbg_ptr;
    watch.register(target, "target");
    new Proxy(target, {}).free();
  })();
  // The allocator hands the freed memory to the next store...
  const reuser = new AttachmentStore();
  reuser.setAttachment({ kind: "memory", slug: "r", memory: "R" });
  assert.equal(reuser.__wbg_ptr, freedAt, "the memory is reused, so a second free would show");
  for (let i = 0; i < 50 && !collected; i++) {
    gc();
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  assert.ok(collected, "the target was collected");
  // The glue's registry is another: give its callback the same turns.
  for (let i = 0; i < 5; i++) {
    gc();
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  // ...which a second free by the target's finalizer would hand out again.
  const other = new AttachmentStore();
  other.setAttachment({ kind: "memory", slug: "o", memory: "O" });
  assert.notEqual(other.__wbg_ptr, reuser.__wbg_ptr);
  assert.deepEqual([reuser.attachmentIds(), other.attachmentIds()], [["memory:r"], ["memory:o"]]);
  reuser.free();
  other.free();
});

test("an instance hardened as SES does it frees, once, and no token can be forged", async () => {
  const { setFlagsFromString } = await import("node:v8");
  const { runInNewContext } = await import("node:vm");
  setFlagsFromString("--expose-gc");
  const gc = runInNewContext("gc");
  // SES's harden(): the object and all it holds, symbol-keyed too, frozen.
  const harden = (o) => {
    if (Object(o) !== o || Object.isFrozen(o)) return o;
    Object.freeze(o);
    for (const key of Reflect.ownKeys(o)) harden(o[key]);
    return o;
  };
  const thrown = [];
  const record = (e) => thrown.push(e);
  process.on("uncaughtException", record);
  try {
    const victim = new AttachmentStore();
    victim.setAttachment({ kind: "memory", slug: "v", memory: "V" });
    const hardened = new AttachmentStore();
    hardened.setAttachment({ kind: "memory", slug: "h", memory: "H" });
    harden(hardened);
    hardened.free();
    assert.throws(() => hardened.size, (e) => isAttacheError(e) && e.code === "FREED");
    hardened.free();
    // A token read off an instance cannot be pointed at another's memory,
    // which its finalizer would then free.
    let collected = 0;
    const watch = new FinalizationRegistry(() => collected++);
    let droppedAt;
    await (async () => {
      const forger = new AttachmentStore();
      const symbol = Object.getOwnPropertySymbols(forger)[0];
      const token = forger[symbol];
      // Whether or not the token takes them, they point nothing anywhere.
      Reflect.set(token, "ptr", victim.__wbg_ptr);
      Reflect.defineProperty(token, "__private_0_ptr", { value: victim.__wbg_ptr });
      // Nor does an object that is no token make a read throw untyped.
      for (const fake of [new Proxy(token, {}), Object.create(token), { ptr: victim.__wbg_ptr }]) {
        // A copy over the instance, as valtio's proxy() makes, holding a fake.
        const lying = Object.create(forger, { [symbol]: { value: fake } });
        assert.throws(() => lying.attachmentIds(), (e) => isAttacheError(e) && e.code === "INVALID_THIS");
        const sessions = new MemorySessionStore();
        const sessionSymbol = Object.getOwnPropertySymbols(sessions)[0];
        const liar = Object.create(sessions, { [sessionSymbol]: { value: fake } });
        let rejected;
        assert.doesNotThrow(() => { rejected = liar.listSessions(); });
        await assert.rejects(rejected, (e) => isAttacheError(e) && e.code === "INVALID_THIS");
        sessions.free();
      }
      watch.register(forger, "forger");
      // One hardened and dropped unfreed: its finalizer frees it.
      const dropped = harden(new AttachmentStore());
      droppedAt = dropped.__wbg_ptr;
      watch.register(dropped, "dropped");
    })();
    for (let i = 0; i < 50 && collected < 2; i++) {
      gc();
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    assert.equal(collected, 2, "both were collected");
    for (let i = 0; i < 5; i++) {
      gc();
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    // Its finalizer freed its memory: the allocator hands it out again.
    const next = new AttachmentStore();
    const after = new AttachmentStore();
    assert.ok([next.__wbg_ptr, after.__wbg_ptr].includes(droppedAt), "the dropped instance was freed");
    after.free();
    assert.deepEqual(victim.attachmentIds(), ["memory:v"]);
    next.setAttachment({ kind: "memory", slug: "n", memory: "N" });
    assert.deepEqual([victim.attachmentIds(), next.attachmentIds()], [["memory:v"], ["memory:n"]]);
    victim.free();
    next.free();
  } finally {
    process.off("uncaughtException", record);
  }
  assert.deepEqual(thrown.map(String), [], "no finalizer threw");
});

test("an IndexedDB store writes under a Promise polyfill installed after load", async () => {
  const { IdbSessionStore } = attache;
  const store = await IdbSessionStore.open({ name: `late-promise-${Date.now()}` });
  const Native = Promise;
  // Settles on a macrotask, as es6-promise's setTimeout fallback does: an
  // IndexedDB transaction has committed by then.
  function Late(executor) {
    const inner = new Native(executor);
    const later = (f, resolve, reject) => (v) => setTimeout(() => {
      try {
        resolve(f(v));
      } catch (e) {
        reject(e);
      }
    });
    return {
      then: (ok, fail) => new Late((resolve, reject) => inner.then(
        later(typeof ok === "function" ? ok : (v) => v, resolve, reject),
        later(typeof fail === "function" ? fail : (e) => { throw e; }, resolve, reject))),
      catch(fail) {
        return this.then(undefined, fail);
      },
    };
  }
  Late.resolve = (v) => new Late((resolve) => resolve(v));
  Late.reject = (e) => new Late((_, reject) => reject(e));
  const outcome = [];
  globalThis.Promise = Late;
  try {
    const settled = (p) => p.then((v) => outcome.push(["ok", v]), (e) => outcome.push(["error", e.code, e.message]));
    await settled(store.createSession({ id: "s" }));
    await settled(store.appendMessages("s", [{ role: "user", content: "hi" }]));
    await settled(store.loadMessages("s"));
  } finally {
    globalThis.Promise = Native;
  }
  assert.deepEqual(outcome.map((o) => o[0]), ["ok", "ok", "ok"], JSON.stringify(outcome));
  assert.deepEqual(outcome[2][1].map((m) => m.content), ["hi"]);
  store.close();
  store.free();
});

test("what is stored is what was checked: each getter runs once", async () => {
  const store = new MemorySessionStore();
  const { id } = await store.createSession();
  let reads = 0;
  const message = { role: "user", get content() {
    reads++;
    return reads > 1 ? { toJSON: () => [{ type: "text", text: "smuggled" }] } : "hi";
  } };
  await store.appendMessages(id, [message]);
  assert.equal(reads, 1);
  assert.deepEqual((await store.loadMessages(id)).map((m) => m.content), ["hi"]);
  // A session's options, checked for unknown keys and then copied whole.
  let titles = 0;
  const created = await store.createSession({ get title() { return `t${++titles}`; } });
  assert.deepEqual([titles, created.title], [1, "t1"]);
  let metas = 0;
  const updated = await store.updateSession(id, { get meta() { return { reads: ++metas }; } });
  assert.deepEqual([metas, updated.meta], [1, { reads: 1 }]);
  store.free();
});

test("a URL is stored as its href; a look-alike tagged URL is still not a plain object", async () => {
  const store = new MemorySessionStore();
  const { id } = await store.createSession();
  class Shown extends URL { toJSON() { return "not the URL"; } }
  await store.saveSessionState(id, "k", { a: [new URL("https://x.test/a?b=1")], b: new Shown("https://y.test/") });
  assert.deepEqual(await store.loadSessionState(id, "k"), { a: ["https://x.test/a?b=1"], b: "https://y.test/" });
  const tagged = new Map([["k", "v"]]);
  Object.defineProperty(tagged, Symbol.toStringTag, { value: "URL" });
  const fake = { [Symbol.toStringTag]: "URL", href: "https://z.test/" };
  Object.setPrototypeOf(fake, { toJSON: () => "https://z.test/" });
  for (const v of [tagged, fake, new Proxy(new URL("https://p.test/"), {})]) {
    await assert.rejects(store.saveSessionState(id, "k", v), (e) => e.code === "INVALID_VALUE" && /not a plain object/.test(e.message));
  }
  store.free();
});

test("a getter, toJSON or trap that throws deep inside a value is named at its own path, what it threw the cause", async () => {
  const store = new MemorySessionStore();
  const { id } = await store.createSession();
  const boom = new Error("x");
  await assert.rejects(store.appendActivityFrames(id, "r", [{ ok: 1 }, { a: { get b() { throw boom; } } }]),
    (e) => e.code === "INVALID_VALUE" && e.field === "frames[1].a.b" && /getter that threw/.test(e.message) && e.cause === boom);
  const items = new Proxy([1, 2], { get: (t, k) => { if (k === "1") throw new Error("trap"); return Reflect.get(t, k); } });
  await assert.rejects(store.saveSessionState(id, "k", { list: items }), (e) => e.field === "k.list[1]");
  const toJSON = { toJSON() { throw boom; } };
  await assert.rejects(store.saveSessionState(id, "k", { a: { b: [0, toJSON] } }),
    (e) => e.code === "INVALID_VALUE" && e.field === "k.a.b[1]" && /toJSON that threw/.test(e.message) && e.cause === boom);
  const keys = new Proxy({}, { ownKeys() { throw boom; } });
  await assert.rejects(store.saveSessionState(id, "k", { a: keys }), (e) => e.field === "k.a" && e.cause === boom);
  const length = new Proxy([1, 2], { get: (t, k) => { if (k === "length") throw boom; return Reflect.get(t, k); } });
  await assert.rejects(store.saveSessionState(id, "k", { a: length }), (e) => e.field === "k.a" && e.cause === boom);
  let reads = 0;
  const counted = new Proxy([1, 2], { get: (t, k) => (k === "length" ? { valueOf: () => (reads++, 2) } : Reflect.get(t, k)) });
  await store.saveSessionState(id, "n", { a: counted });
  assert.equal(reads, 1, "a Proxy's length is read as a number once");
  await store.deleteSessionState(id, "n");
  const prototype = new Proxy({}, { getPrototypeOf() { throw boom; } });
  await assert.rejects(store.saveSessionState(id, "k", [prototype]), (e) => e.field === "k[0]" && e.cause === boom);
  await assert.rejects(store.saveSessionState(id, "k", { a: { toJSON: () => undefined } }),
    (e) => e.field === "k.a" && /is undefined/.test(e.message) && e.cause === undefined);
  assert.deepEqual(await store.listSessionStateKeys(id), [], "nothing written");
  assert.deepEqual(await store.loadActivityFrames(id), [], "nothing written");
  store.free();
});

test("a value too large for one call is INVALID_VALUE before it is copied in", async () => {
  const store = new MemorySessionStore();
  const { id } = await store.createSession();
  const before = memory.buffer.byteLength;
  const huge = [
    ["k", new Array(4_000_001).fill(0), "k"],
    ["k", { text: "x".repeat(64 * 1024 * 1024 + 1) }, "k"],
  ];
  for (const [key, value, field] of huge) {
    await assert.rejects(store.saveSessionState(id, key, value),
      (e) => isAttacheError(e) && e.code === "INVALID_VALUE" && e.field.startsWith(field), "refused");
  }
  // Refused for what it holds under a huge key: the path names the key cut
  // short, so the key is not copied in to say so.
  const key = "x".repeat(16 * 1024 * 1024);
  for (const value of [{ [key]: NaN }, { [key]: { [key]: 1n } }]) {
    await assert.rejects(store.saveSessionState(id, "k", value),
      (e) => e.code === "INVALID_VALUE" && e.field === `k.${"x".repeat(998)}…` && e.message.length < 2000, "cut");
  }
  // The same field whichever check refuses it: the JS walk (NaN), or the
  // core's credential walk, under commitTurn's state or as the root.
  const bearer = "Authorization: Bearer abcdefgh12345678";
  const long = `config.db${"x".repeat(1200)}`;
  const fields = [];
  for (const value of [{ a: NaN }, { a: bearer }]) {
    await store.commitTurn(id, { state: { [long]: value } }).catch((e) => fields.push(e.field));
  }
  for (const value of [NaN, bearer]) {
    await store.saveSessionState(id, "y".repeat(1500), value).catch((e) => fields.push(e.field));
  }
  const cut = (path) => `${path.slice(0, 1000)}…`;
  assert.deepEqual(fields, [cut(`state["${long}"].a`), cut(`state["${long}"].a`), cut("y".repeat(1500)), cut("y".repeat(1500))]);
  // Never half a character: after `k["`, the 1,000th unit starts a pair.
  // The message names the same cut path, never a half character.
  await assert.rejects(store.saveSessionState(id, "k", { ["😀".repeat(8e6)]: NaN }),
    (e) => e.field === `k["${"😀".repeat(498)}…` && e.message.includes(`\`${e.field}\``) && !e.message.includes("\uFFFD"), "cut before the pair");
  // A redaction's path is cut as a field is.
  const { redactions } = attache.redactCredentials({ [long]: bearer });
  assert.deepEqual(redactions.map((r) => r.path), [cut(`["${long}"]`)]);
  assert.ok(memory.buffer.byteLength - before < 1024 * 1024, `wasm memory grew by ${memory.buffer.byteLength - before}`);
  assert.equal(await store.loadSessionState(id, "k"), null);
  // At the limits: 4,000,000 items, the array itself one of them.
  await assert.rejects(store.saveSessionState(id, "k", new Array(4_000_000).fill(0)), (e) => e.code === "INVALID_VALUE");
  await store.saveSessionState(id, "k", new Array(3_999_999).fill(0));
  assert.equal((await store.loadSessionState(id, "k")).length, 3_999_999);
  // 10,000 state keys in one load, and no more.
  const keys = Array.from({ length: 10_000 }, (_, i) => `k${i}`);
  assert.equal((await store.loadSessionStates(id, keys)).length, 10_000);
  await assert.rejects(store.loadSessionStates(id, [...keys, "one more"]), (e) => e.code === "INVALID_ARGUMENT" && e.field === "keys");
  store.free();
});

test("an id inside options or a document is checked as an id is, before anything is copied in", async () => {
  const store = new MemorySessionStore();
  const { id } = await store.createSession();
  const doc = await store.exportSession(id);
  const long = "x".repeat(20_000_000);
  const before = memory.buffer.byteLength;
  // Blank, too long or ill-formed: one code wherever the id is. A
  // document's ids are part of the value, so INVALID_VALUE, as for the
  // rest of a malformed document.
  for (const bad of [" ", long, "a\ud800"]) {
    const calls = [
      [() => store.createSession({ id: bad }), "options.id", "INVALID_ARGUMENT"],
      [() => store.commitTurn(id, { state: { [bad]: 1 } }), "state", "INVALID_ARGUMENT"],
      [() => store.commitTurn(id, { stateIfAbsent: { [bad]: 1 } }), "stateIfAbsent", "INVALID_ARGUMENT"],
      [() => store.commitTurn(id, { frames: [{ requestId: "ok", frames: [] }, { requestId: bad, frames: [] }] }), "frames[1].requestId", "INVALID_ARGUMENT"],
      [() => store.importSession({ ...doc, session: { ...doc.session, id: bad } }), "document.session.id", "INVALID_VALUE"],
      [() => store.importSession({ ...doc, frames: [{ requestId: bad, frames: [{}] }] }, { id: "other" }), "document.frames[0].requestId", "INVALID_VALUE"],
      [() => store.importSession({ ...doc, state: { [bad]: 1 } }, { id: "other" }), "document.state", "INVALID_VALUE"],
    ];
    for (const [call, field, code] of calls) {
      const error = await call().then(() => null, (e) => e);
      assert.equal(error?.code, code, `${field} ${JSON.stringify(bad.slice(0, 3))}: ${error?.code} ${error?.message}`);
      assert.equal(error.field, field);
      // Named at the object, the message says a key is at fault.
      if (field.endsWith("state") || field.endsWith("IfAbsent")) assert.match(error.message, /has a key that/, field);
    }
  }
  // A request id that is no string is the same fault as a blank one, with the same code.
  for (const [call, field, code] of [
    [() => store.commitTurn(id, { frames: [{ requestId: 5, frames: [] }] }), "frames[0].requestId", "INVALID_ARGUMENT"],
    [() => store.importSession({ ...doc, frames: [{ requestId: 5, frames: [{}] }] }, { id: "other" }), "document.frames[0].requestId", "INVALID_VALUE"],
  ]) {
    const error = await call().then(() => null, (e) => e);
    assert.deepEqual([error?.code, error?.field], [code, field], String(error));
    assert.match(error.message, /: must be a string$/);
  }
  // A 20-million-character id copied in would have grown it by 80 MB.
  assert.ok(memory.buffer.byteLength - before < 1024 * 1024, `wasm memory grew by ${memory.buffer.byteLength - before}`);
  assert.deepEqual((await store.listSessions()).map((s) => s.id), [id], "nothing was written");
  // A field of the same name elsewhere in a value is data, not an id: no
  // 4096-unit limit there.
  // Nor is a key that spells an id's path, or a state key named "*".
  const data = "y".repeat(5000);
  await store.commitTurn(id, { state: { k: { id: data }, "*": data, "frames[0].requestId": data }, frames: [{ requestId: "r", frames: [{ requestId: data }] }] });
  assert.equal((await store.loadSessionState(id, "k")).id, data);
  assert.equal(await store.loadSessionState(id, "*"), data);
  const imported = await store.importSession({ ...doc, "session.id": data }, { id: "copy" }).then(() => null, (e) => e);
  assert.match(imported?.message ?? "", /is not a field of a session document/, "an unknown key, refused as one, not as an id");
  // A key named "[]" is no array's item: `frames` is not an array, whatever it holds.
  const notArray = await store.commitTurn(id, { frames: { "[]": { requestId: long } } }).then(() => null, (e) => e);
  assert.deepEqual([notArray?.code, notArray?.field], ["INVALID_VALUE", "frames"]);
  // A value with no ids in it has none checked: a spec's root or "" key.
  const pinned = new AttachmentStore();
  assert.throws(() => pinned.setAttachment({ kind: "memory", slug: "s", memory: "m", "": data }), (e) => e.code === "INVALID_SPEC");
  pinned.free();
  store.free();
});

test("a host counter gets the messages that were checked, read once", () => {
  let reads = 0;
  const history = [{ role: "user", get content() { return reads++ ? "swapped" : "hi"; } }];
  let seen;
  estimateTokens(history, (messages) => { seen = messages[0].content; return 1; });
  assert.deepEqual([seen, reads], ["hi", 1]);
  // An array claiming 2^32 - 1 items whose toJSON gives none: nothing reads that length.
  const fake = [];
  fake.length = 2 ** 32 - 1;
  fake.toJSON = () => [];
  const plan = planTurn({ contextWindow: 1000, history: 0, contributors: fake, counter: (messages) => messages.length });
  assert.equal(plan.transientTokens, 0);
});

test("a throw caught from a getter, a trap or a callback leaves wasm memory as it was", async () => {
  const pinned = new AttachmentStore();
  const sessions = new MemorySessionStore({ credentials: "redact", onRedact: () => { throw new Error("listener"); } });
  const { id } = await sessions.createSession();
  const trap = new Proxy({}, { getPrototypeOf() { throw new Error("trap"); }, ownKeys() { throw new Error("keys"); } });
  const calls = [
    () => planTurn({ contextWindow: 10, get history() { throw new Error("getter"); } }),
    () => pinned.checkPrefix(trap),
    () => estimateTokens([], () => { throw new Error("counter"); }),
    () => isAttacheError({ get name() { throw new Error("name"); } }),
  ];
  const round = async (n) => {
    for (let i = 0; i < n; i++) {
      for (const call of calls) { try { call(); } catch { /* typed, checked elsewhere */ } }
      await sessions.saveSessionState(id, "k", { password: "hunter2" });
    }
  };
  await round(300);
  const before = memory.buffer.byteLength;
  await round(20000);
  // Each leaked slot took about 11 bytes: 100,000 throws would be 1 MiB.
  assert.ok(memory.buffer.byteLength - before <= 64 * 1024, `grew ${memory.buffer.byteLength - before} bytes`);
  pinned.free();
  sessions.free();
});

test("a Date.now mock that throws or gives no number reads as 0 on both stores, and nothing hangs", async () => {
  const { IdbSessionStore } = attache;
  const stores = [new MemorySessionStore(), await IdbSessionStore.open({ name: "boundary-clock" })];
  const real = Date.now;
  // Broken for attache's calls only (from wasm): fake-indexeddb reads the clock too.
  const fromWasm = () => /wasm-function/.test(new Error().stack);
  const throws = () => { if (fromWasm()) throw new Error("mock clock broke"); return real(); };
  const bigint = () => (fromWasm() ? 10n : real());
  for (const broken of [throws, bigint]) {
    for (const store of stores) {
      let info;
      Date.now = broken;
      try {
        const created = store.createSession();
        assert.ok(created instanceof Promise, "no synchronous throw");
        info = await created;
      } finally {
        Date.now = real;
      }
      assert.equal(info.createdAt, 0);
      await store.deleteSession(info.id);
    }
  }
  for (const store of stores) store.free();
});

test("globals a page alters after load change no value and throw nothing through wasm", async () => {
  const store = new MemorySessionStore();
  const { id } = await store.createSession();
  const pinned = new AttachmentStore();
  // A date-reviving JSON.parse, as json.date-extensions installs.
  const parse = JSON.parse;
  JSON.parse = (text, reviver) => parse(text, (k, v) => (typeof v === "string" && /^\d{4}-\d\d-\d\dT/.test(v) ? new Date(v) : reviver ? reviver(k, v) : v));
  try {
    pinned.setAttachment({ kind: "memory", slug: "when", memory: "2026-12-02T10:00:00Z" });
    assert.equal(typeof pinned.getAttachment("memory:when").memory, "string");
    await store.saveAttachments(id, pinned);
    await store.saveSessionState(id, "at", "2026-12-02T10:00:00Z");
    assert.equal(await store.loadSessionState(id, "at"), "2026-12-02T10:00:00Z");
  } finally {
    JSON.parse = parse;
  }
  // A JSON.stringify that masks e-mail addresses, as a logging helper might.
  const stringify = JSON.stringify;
  JSON.stringify = (...args) => stringify(...args)?.replace(/[\w.]+@[\w.]+/g, "***");
  try {
    await store.saveSessionState(id, "to", { to: "ada@example.com" });
  } finally {
    JSON.stringify = stringify;
  }
  assert.deepEqual(await store.loadSessionState(id, "to"), { to: "ada@example.com" });
  // String.prototype.isWellFormed pruned after load.
  const isWellFormed = Object.getOwnPropertyDescriptor(String.prototype, "isWellFormed");
  delete String.prototype.isWellFormed;
  try {
    const refused = store.saveSessionState(id, "key\ud800", 1);
    assert.ok(refused instanceof Promise, "no synchronous throw");
    await assert.rejects(refused, (e) => e.code === "INVALID_ARGUMENT" && e.field === "key");
  } finally {
    Object.defineProperty(String.prototype, "isWellFormed", isWellFormed);
  }
  pinned.free();
  store.free();
});

test("with Error.prototype frozen, a refusal is still an AttacheError and the object stays usable", async () => {
  // Its own process: freezing Error.prototype here would reach the runner.
  const script = `
    import { readFile } from "node:fs/promises";
    const attache = await import(${JSON.stringify(new URL("pkg/attache.js", root).href)});
    await attache.default({ module_or_path: await readFile(new URL(${JSON.stringify(new URL("pkg/attache_bg.wasm", root).href)})) });
    Object.freeze(Error.prototype);
    const pinned = new attache.AttachmentStore();
    pinned.setAttachment({ kind: "memory", slug: "m", memory: "M" });
    let code;
    try { pinned.setAttachment({ kind: "memory", slug: "m", content: "x" }); } catch (e) { code = e.name + " " + e.code; }
    const store = new attache.MemorySessionStore();
    const rejected = await store.saveSessionState("nope", "k", 1).then(() => "resolved", (e) => e.name + " " + e.code);
    const freed = new attache.AttachmentStore(); freed.free();
    let guard; try { freed.specs(); } catch (e) { guard = e.name + " " + e.code; }
    console.log(JSON.stringify([code, pinned.consolidatedMessage().content.length, rejected, guard]));
  `;
  const { stdout } = await promisify(execFile)(process.execPath, ["--input-type=module", "-e", script]);
  assert.deepEqual(JSON.parse(stdout), ["AttacheError INVALID_SPEC", 1, "AttacheError NOT_FOUND", "AttacheError FREED"]);
});
