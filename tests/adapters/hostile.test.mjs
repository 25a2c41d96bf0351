// Both adapters' methods with any JS value as any argument, or at any
// position inside a valid one, on both stores (fast-check): each call
// returns a promise (or a generator) and settles, rejecting only with an
// error the adapter means (the store's AttacheError, or an Error of its
// own wording, as its framework throws one), never a wasm trap, a thrown
// non-Error or a JS engine's own message about our code; a refused call
// leaves the store as it was; a put that lands reads back every channel
// it gave a value; and the adapter still works afterwards.
import "fake-indexeddb/auto";
import { describe, it, expect } from "vitest";
import fc from "fast-check";
import { emptyCheckpoint, uuid6 } from "@langchain/langgraph-checkpoint";
import { UserError } from "@openai/agents-core";
import { MemorySessionStore, IdbSessionStore, isAttacheError } from "../../pkg/index.js";
import { AttacheCheckpointSaver } from "../../pkg/langgraph.js";
import { AttacheSession } from "../../pkg/openai-agents.js";
import { HOSTILE, swapAt as swapped } from "../boundary/properties.mjs";

const RUNS = Number(process.env.ATTACHE_ADAPTER_FUZZ_RUNS ?? 2000);
let databases = 0;
const stores = {
  MemorySessionStore: async () => new MemorySessionStore(),
  IdbSessionStore: async () => IdbSessionStore.open({ name: `adapters-hostile-${databases++}` }),
};

// V8's words for our own code tripping over a value (a property read on
// undefined, a call of a non-function): a crash, however it is typed. (A
// cyclic value overflows LangGraph's own copyCheckpoint, as on MemorySaver:
// the README's RangeError.)
const ENGINE = new RegExp(["Cannot (read|set) propert", "Cannot destructure", "is not a function", "is not iterable",
  "is not a constructor", "Cannot convert", "Invalid array length", "of undefined", "of null", "Cannot use 'in' operator",
  "Cannot create property", "Reduce of empty array", "Spread syntax requires", "Do not know how to serialize"].join("|"));
// Generous: ATTACHE_ADAPTER_FUZZ_RUNS may ask for many more runs (about 2 ms each).
const TIMEOUT = 30_000 + RUNS * 10;

/** The error a refused call ended in, or a failure naming what is wrong with it. */
function meant(e, label) {
  if (isAttacheError(e) || e instanceof UserError) return;
  if (e instanceof Error && !(e instanceof WebAssembly.RuntimeError) && !ENGINE.test(e.message)) return;
  throw new Error(`${label}: ended in ${e?.name ?? typeof e}: ${e?.message ?? String(e)}`, { cause: e });
}

/** `call()` must give a promise that settles, typed if it rejects: `{ value }` if it resolved. */
async function settles(call, label) {
  let promise;
  try {
    promise = call();
  } catch (e) {
    throw new Error(`${label}: threw synchronously: ${e?.message}`, { cause: e });
  }
  if (!(promise instanceof Promise)) throw new Error(`${label}: did not return a promise`);
  try {
    return { value: await promise };
  } catch (e) {
    meant(e, label);
    return undefined;
  }
}

/** `[channel, value]` for each channel a put gives a value, which a read must find; null where its arguments do not read plainly. */
function putChannels([, given, , newVersions]) {
  try {
    const values = given.channel_values;
    return Object.keys(newVersions).filter((ch) => Object.hasOwn(values, ch) && values[ch] !== undefined).map((ch) => [ch, values[ch]]);
  } catch {
    return null;
  }
}

/** A synchronous `call()` returns, or throws what `meant` allows. */
function returns(call, label) {
  try {
    call();
  } catch (e) {
    meant(e, label);
  }
}

// Boxed: fast-check probes each value it makes for a clone method, which a
// revoked Proxy throws on.
const value = fc.oneof(fc.nat(HOSTILE.length - 1).map((i) => ({ v: HOSTILE[i] })),
  fc.anything({ withBigInt: true, withMap: true, withSet: true, withTypedArray: true }).map((v) => ({ v })));
// Ids no fuzzed value will be: a put that names a stored (channel,
// version) replaces its value, as documented, and deleteThread deletes.
const T = "thread-under-fuzz";
const thread = (id) => ({ configurable: { thread_id: id, checkpoint_ns: "" } });
const checkpoint = (i, v, channel = "a") => ({ ...emptyCheckpoint(), id: uuid6(i), channel_values: { [channel]: v }, channel_versions: { [channel]: i + 1 } });

// Each method's valid arguments, made fresh for every run (the swap edits them).
const saverCalls = {
  put: () => [thread(T), checkpoint(2, "x"), { source: "loop", step: 2, parents: {} }, { a: 3 }],
  putWrites: (base) => [base, [["a", "w"], ["b", { n: 1 }]], "task-1", "path"],
  getTuple: (base) => [base],
  get: (base) => [base],
  list: () => [thread(T), { limit: 2, filter: { source: "loop" } }],
  deleteThread: () => ["other"],
  getDeltaChannelHistory: (base) => [{ config: base, channels: ["a"] }],
};
const item = (text) => ({ role: "user", content: text });
const sessionCalls = {
  getItems: () => [2],
  addItems: () => [[item("hi"), { type: "function_call", callId: "c1", name: "f", arguments: "{}" }]],
  popItem: () => [],
  getSessionId: () => [],
  clearSession: () => [],
  replaceHistoryWithCompaction: () => [[item("summary")]],
  applyHistoryTransaction: () => [{ operationId: "op", transaction: { type: "append_items", items: [item("more")] } }],
  applyHistoryMutations: () => [{ mutations: [{ type: "replace_function_call", callId: "c1", replacement: { type: "function_call", callId: "c1", name: "f", arguments: "{\"a\":1}" } }] }],
};

/** The whole store as text: what a refused call must leave as it was. */
async function everything(store) {
  const sessions = await store.listSessions();
  return JSON.stringify(await Promise.all(sessions.map((s) => store.exportSession(s.id))));
}

describe.each(Object.entries(stores))("hostile values into the adapters on %s", (_, open) => {
  // What the fuzzing and its reviews found, kept as plain cases.
  it("a channel version that is neither a finite number nor a string, or not the checkpoint's, is a TypeError, and nothing is stored", async () => {
    const store = await open();
    const saver = new AttacheCheckpointSaver(store);
    for (const bad of [[Symbol("v")], null, { v: 1 }, true, NaN, -Infinity]) {
      for (const [newVersions, versions] of [[{ a: bad }, { a: 1 }], [{ a: 1 }, { a: bad }]]) {
        const put = saver.put(thread(T), { ...checkpoint(0, "x"), channel_versions: versions }, { source: "loop", step: 0, parents: {} }, newVersions);
        await expect(put).rejects.toThrow(/^A channel's version must be a finite number or a string \(got /);
      }
    }
    // By another version than the checkpoint's, a value would be stored where no read finds it.
    for (const versions of [{ a: 2 }, { a: "1" }, {}, undefined]) {
      const put = saver.put(thread(T), { ...checkpoint(0, "x"), channel_versions: versions }, { source: "loop", step: 0, parents: {} }, { a: 1 });
      await expect(put).rejects.toThrow(`The checkpoint's channel_versions must give channel "a" the version newVersions gives it.`);
    }
    expect(await store.listSessions()).toEqual([]);
    store.free();
  });

  it("put reads each id and version once: a getter that changes its answer cannot part the key from what was checked", async () => {
    const store = await open();
    const saver = new AttacheCheckpointSaver(store);
    const counter = (...answers) => { let n = 0; return () => answers[Math.min(n++, answers.length - 1)]; };
    // Past the first checks, then another answer: where an earlier put read
    // again, the key took the later one.
    const version = counter(1, 1, 2);
    const id = counter(uuid6(0), uuid6(0), uuid6(1));
    const given = Object.defineProperty({ ...checkpoint(0, "x") }, "id", { get: id, enumerable: true });
    const at = await saver.put(thread(T), given, { source: "loop", step: 0, parents: {} }, Object.defineProperty({}, "a", { get: version, enumerable: true }));
    const tuple = await saver.getTuple(at);
    expect(tuple?.checkpoint.id).toBe(at.configurable.checkpoint_id);
    expect(tuple?.checkpoint.channel_values).toEqual({ a: "x" });
    store.free();
  });

  it("getDeltaChannelHistory reads its channels by index: an array whose iterator never ends settles", async () => {
    const store = await open();
    const saver = new AttacheCheckpointSaver(store);
    const base = await saver.put(thread(T), checkpoint(0, "v0"), { source: "input", step: 0, parents: {} }, { a: 1 });
    const endless = Object.assign(["a"], { *[Symbol.iterator]() { for (;;) yield "a"; } });
    expect(await saver.getDeltaChannelHistory({ config: base, channels: endless })).toEqual({ a: { writes: [] } });
    const holed = ["a", , "b"]; // eslint-disable-line no-sparse-arrays
    await expect(saver.getDeltaChannelHistory({ config: base, channels: holed })).rejects.toThrow(TypeError);
    store.free();
  });

  it(`the constructors and synchronous methods: ${RUNS} runs`, async () => {
    const store = await open();
    const saver = new AttacheCheckpointSaver(store);
    const session = new AttacheSession(store, { sessionId: "s" });
    await fc.assert(fc.asyncProperty(fc.nat(), value, async (seed, { v }) => {
      const label = `${typeof v} at ${seed}`;
      returns(() => new AttacheCheckpointSaver(...swapped([store, undefined], seed, v)), `new AttacheCheckpointSaver: ${label}`);
      returns(() => new AttacheSession(...swapped([store, { sessionId: "s" }], seed, v)), `new AttacheSession: ${label}`);
      returns(() => saver.getNextVersion(v), `getNextVersion: ${label}`);
      returns(() => session.prepareHistoryItemsForPersistenceComparison(...swapped([[item("a")]], seed, v)),
        `prepareHistoryItemsForPersistenceComparison: ${label}`);
    }), { numRuns: RUNS });
    store.free();
  }, TIMEOUT);

  // A fresh store each run: one that grew run by run would make each
  // later run slower than the last.
  it(`AttacheCheckpointSaver: ${RUNS} runs, any value anywhere`, async () => {
    await fc.assert(fc.asyncProperty(fc.constantFrom(...Object.keys(saverCalls)), fc.nat(), value, async (method, seed, { v }) => {
      const store = await open();
      const saver = new AttacheCheckpointSaver(store);
      // A thread of two checkpoints, writes on the first, so reads walk
      // and page; the first's value on a channel no fuzzed put writes.
      const first = await saver.put(thread(T), checkpoint(0, "v0", "b"), { source: "input", step: 0, parents: {} }, { b: 1 });
      await saver.putWrites(first, [["a", "w0"]], "task-0", "");
      const base = await saver.put(first, checkpoint(1, "v1"), { source: "loop", step: 1, parents: {} }, { a: 2 });
      const label = `${method} with ${typeof v} at position ${seed}`;
      const args = swapped(saverCalls[method](structuredClone(base)), seed, v);
      const before = await everything(store);
      const expected = method === "put" ? putChannels(args) : null;
      const ran = await (method === "list"
        ? settles(async () => { for await (const _ of saver.list(...args)); }, label)
        : settles(() => saver[method](...args), label));
      if (!ran) expect(await everything(store), `${label}: refused, yet the store changed`).toBe(before);
      if (ran && expected) {
        const values = (await saver.getTuple(ran.value))?.checkpoint.channel_values ?? {};
        for (const [ch, put] of expected) {
          expect(Object.hasOwn(values, ch), `${label}: put a value in channel "${ch}", and a read finds none`).toBe(true);
          // Text reads back as itself, a lone surrogate as U+FFFD (as the
          // README says); another value as the serializer writes it.
          if (typeof put === "string") expect(values[ch], `${label}: channel "${ch}" reads back another value`).toBe(put.toWellFormed());
        }
      }
      // Still working: the first checkpoint reads back, and a write lands.
      const tuple = await saver.getTuple(first);
      expect(tuple?.checkpoint.channel_values.b, label).toBe("v0");
      await saver.putWrites(base, [["a", "ok"]], "health", "");
      store.free();
    }), { numRuns: RUNS });
  }, TIMEOUT);

  it(`AttacheSession: ${RUNS} runs, any value anywhere`, async () => {
    await fc.assert(fc.asyncProperty(fc.constantFrom(...Object.keys(sessionCalls)), fc.nat(), value, async (method, seed, { v }) => {
      const store = await open();
      const session = new AttacheSession(store, { sessionId: "s" });
      await session.addItems([item("first")]);
      const label = `${method} with ${typeof v} at position ${seed}`;
      const args = sessionCalls[method]();
      const fuzzed = args.length === 0 ? [v] : swapped(args, seed, v);
      const before = await everything(store);
      if (!(await settles(() => session[method](...fuzzed), label))) {
        expect(await everything(store), `${label}: refused, yet the store changed`).toBe(before);
      }
      // Still working: an item added comes back last.
      await session.addItems([item("health")]);
      expect((await session.getItems(1))[0], label).toMatchObject({ role: "user", content: "health" });
      store.free();
    }), { numRuns: RUNS });
  }, TIMEOUT);
});
