// The JS boundary is total for id and option parameters: any JS value ends
// in a result or a typed AttacheError, async methods never throw
// synchronously, and no value traps the module or grows its memory for
// good. Hand-picked hostile values first, then fast-check's arbitrary ones.
import { test, before } from "node:test";
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import fc from "fast-check";

const root = new URL("../../", import.meta.url);
const attache = await import(new URL("pkg/attache.js", root));
const { AttachmentStore, MemorySessionStore, isAttacheError, estimateTokens, planTurn, buildRequest } = attache;
let memory;

before(async () => {
  ({ memory } = await attache.default({ module_or_path: await readFile(new URL("pkg/attache_bg.wasm", root)) }));
});

const RUNS = Number(process.env.ATTACHE_FUZZ_RUNS ?? 20000);

/** A value that throws when read, as a hostile host might pass. */
const throwing = () => new Proxy({}, { get() { throw new Error("boom"); }, ownKeys() { throw new Error("boom"); } });
const EMPTY = {};
const HOSTILE = [undefined, null, 42, -0, NaN, true, 10n, Symbol("s"), () => 1, [], ["a"], EMPTY, { length: 1e9 },
  new Date(0), new Map(), "", "   ", "a\ud800", "\udc00b", "x".repeat(4097), throwing()];

function describe(value) {
  if (typeof value === "string") return JSON.stringify(value.slice(0, 20));
  try {
    return String(value);
  } catch {
    return typeof value === "symbol" ? "a symbol" : "a throwing object";
  }
}

/** Calls `f`, which must return normally or throw an AttacheError. */
function settlesSync(f, label) {
  try {
    return { value: f() };
  } catch (e) {
    assert.ok(isAttacheError(e), `${label}: threw an untyped ${e?.name}: ${e?.message}`);
    return { error: e };
  }
}

/** Calls an async method: never a synchronous throw; it resolves or rejects typed. */
async function settlesAsync(f, label) {
  let promise;
  try {
    promise = f();
  } catch (e) {
    assert.fail(`${label}: threw synchronously: ${e?.message}`);
  }
  assert.ok(promise instanceof Promise, `${label}: returns a promise`);
  try {
    return { value: await promise };
  } catch (e) {
    assert.ok(isAttacheError(e), `${label}: rejected with an untyped ${e?.name}: ${e?.message}`);
    return { error: e };
  }
}

/** Every id-taking call, on live instances. */
function idCalls(pinned, sessions, id) {
  return {
    sync: {
      detachAttachment: (v) => pinned.detachAttachment(v),
      hasAttachment: (v) => pinned.hasAttachment(v),
      renderAttachment: (v) => pinned.renderAttachment(v),
    },
    async: {
      getSession: (v) => sessions.getSession(v),
      deleteSession: (v) => sessions.deleteSession(v),
      loadSessionState: (v) => sessions.loadSessionState(id, v),
      saveSessionState: (v) => sessions.saveSessionState(v, "k", { a: 1 }),
      saveSessionStateKey: (v) => sessions.saveSessionState(id, v, { a: 1 }),
      appendActivityFrames: (v) => sessions.appendActivityFrames(id, v, [{ a: 1 }]),
      loadActivityFrames: (v) => sessions.loadActivityFrames(id, v),
      loadMessages: (v) => sessions.loadMessages(v),
      saveAttachments: (v) => sessions.saveAttachments(id, v),
      loadAttachments: (v) => sessions.loadAttachments(v),
      createSession: (v) => sessions.createSession(v),
    },
  };
}

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
      if (name === "loadActivityFrames" && value === undefined) continue; // an absent request id means all
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
  for (const blank of ["", " \t\n"]) {
    for (const call of [() => sessions.getSession(blank), () => sessions.saveSessionState(blank, "k", 1),
      () => sessions.createSession({ id: blank }), () => sessions.appendActivityFrames("s", blank, [])]) {
      const error = await call().then(() => null, (e) => e);
      assert.equal(error?.code, "INVALID_ARGUMENT", `${call} with ${JSON.stringify(blank)}`);
    }
  }
});

test("unknown option keys are INVALID_ARGUMENT naming the key", async () => {
  const named = (f) => { try { f(); return null; } catch (e) { return e; } };
  assert.equal(named(() => planTurn({ contextWindow: 100, history: 0, thresholdPrecent: 50 }))?.field, "options.thresholdPrecent");
  assert.equal(named(() => buildRequest({ history: [], fromat: "openai" }))?.field, "options.fromat");
  assert.equal(named(() => new AttachmentStore().checkPrefix({ provder: "openai" }))?.field, "options.provder");
  const getter = named(() => planTurn({ contextWindow: 100, get history() { throw new Error("boom"); } }));
  assert.equal(getter?.code, "INVALID_ARGUMENT", "a throwing getter is typed");
  assert.equal(getter?.field, "options.history");
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
  assert.match(error.message, /freed/);
  const pinned = new AttachmentStore();
  pinned.setAttachment({ kind: "todo", items: [{ text: "ship", completed: false }] });
  pinned.setAttachment({ kind: "memory", slug: "m", memory: "M" });
  await sessions.saveAttachments("s", pinned);
  const loaded = await sessions.loadAttachments("s");
  assert.deepEqual(loaded.attachmentIds(), pinned.attachmentIds());
  assert.equal(JSON.stringify(loaded), JSON.stringify(pinned), "toJSON gives the specs in pin order");
});

test("a fake length does not grow wasm memory", () => {
  const pinned = new AttachmentStore();
  const before = memory.buffer.byteLength;
  for (let i = 0; i < 100; i++) settlesSync(() => pinned.hasAttachment({ length: 1e9 }), "fake length");
  assert.equal(memory.buffer.byteLength, before, "memory stayed flat");
});

test(`arbitrary values in every id and option parameter (${RUNS} runs each, ATTACHE_FUZZ_RUNS for more)`, async () => {
  const pinned = new AttachmentStore();
  pinned.setAttachment({ kind: "memory", slug: "m", memory: "kept" });
  const options = {
    planTurn: (v) => planTurn(v),
    buildRequest: (v) => buildRequest(v),
    checkPrefix: (v) => pinned.checkPrefix(v),
    estimateTokens: (v) => estimateTokens([], v),
  };
  const value = fc.oneof(fc.anything({ withBigInt: true, withDate: true, withMap: true, withSet: true,
    withTypedArray: true, withSparseArray: true, withNullPrototype: true, withBoxedValues: true }),
  fc.string({ unit: "binary" }), fc.constantFrom(...HOSTILE));
  // Valid values really write, so each run gets a store of its own, freed
  // after; memory is measured after a warm-up, so only growth that every
  // run leaves behind shows.
  const run = async (v) => {
    const sessions = new MemorySessionStore();
    const { id } = await sessions.createSession({ id: "s" });
    const calls = idCalls(pinned, sessions, id);
    for (const [name, call] of Object.entries(calls.sync)) settlesSync(() => call(v), name);
    for (const [name, call] of Object.entries(options)) settlesSync(() => call(v), name);
    for (const [name, call] of Object.entries(calls.async)) await settlesAsync(() => call(v), name);
    sessions.free();
  };
  await fc.assert(fc.asyncProperty(value, run), { numRuns: 200 });
  const before = memory.buffer.byteLength;
  await fc.assert(fc.asyncProperty(value, run), { numRuns: RUNS });
  assert.deepEqual(pinned.attachmentIds(), ["memory:m"], "the instance is healthy afterwards");
  // Allocator fragmentation may take a page or two; a leak of even 13 bytes
  // a run would pass 256 KiB over 20,000 runs.
  const grown = memory.buffer.byteLength - before;
  assert.ok(grown <= 256 * 1024, `wasm memory stayed flat: grew ${grown} bytes over ${RUNS} runs`);
});

test("errors say what the host passed, keep their code on every route, and show no parser internals", async () => {
  const thrown = (f) => { try { f(); return null; } catch (e) { return e; } };
  assert.match(thrown(() => planTurn({ contextWindow: 100, history: 0, thresholdPercent: 300 }))?.message, /got 300/);
  const counter = thrown(() => estimateTokens([], () => { throw new Error("tokenizer down"); }));
  assert.equal(counter?.code, "INVALID_ARGUMENT");
  assert.match(counter.message, /threw: tokenizer down/, "the host's own message, not {}");

  const sessions = new MemorySessionStore();
  await sessions.createSession({ id: "s" });
  const shape = await sessions.createSession({ title: 5 }).catch((e) => e);
  assert.equal(shape.code, "INVALID_VALUE");
  assert.doesNotMatch(shape.message, /line \d+ column \d+/, shape.message);

  const viaPin = thrown(() => new AttachmentStore().setAttachment({ kind: "image" }));
  const viaState = await sessions.saveSessionState("s", "attachments", [{ kind: "image" }]).catch((e) => e);
  assert.deepEqual([viaState.code, viaState.field], [viaPin.code, `attachments[0].${viaPin.field}`],
    "a bad spec is UNKNOWN_KIND whichever route reports it");
  const nested = await sessions.appendActivityFrames("s", "r", [{ a: { b: ["ok", "x\ud800"] } }]).catch((e) => e);
  assert.equal(nested.field, "frames[0].a.b[1]", "a lone surrogate is named by its path");
});

test("every method on a freed instance is FREED, on a wrong `this` INVALID_THIS; async ones reject", async () => {
  const classes = { AttachmentStore, MemorySessionStore, IdbSessionStore: attache.IdbSessionStore };
  const others = [{}, null, new AttachmentStore(), new MemorySessionStore()];
  let checked = 0;
  for (const [name, Class] of Object.entries(classes)) {
    const methods = Object.getOwnPropertyNames(Class.prototype)
      .filter((m) => !["constructor", "free", "__destroy_into_raw"].includes(m));
    // IndexedDB is not in Node: a freed IdbSessionStore is made from a live wrapper's shape.
    const freed = name === "IdbSessionStore" ? Object.assign(Object.create(Class.prototype), { __wbg_ptr: 0 }) : new Class();
    if (name !== "IdbSessionStore") {
      freed.free();
      freed.free(); // a second free() does nothing
    }
    for (const method of methods) {
      const descriptor = Object.getOwnPropertyDescriptor(Class.prototype, method);
      const call = (self) => (descriptor.get ? descriptor.get.call(self) : descriptor.value.call(self, "s", "k", []));
      for (const [self, code] of [[freed, "FREED"], ...others.filter((o) => !(o instanceof Class)).map((o) => [o, "INVALID_THIS"])]) {
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
  }
  assert.ok(checked > 100, `${checked} calls checked`);
});
