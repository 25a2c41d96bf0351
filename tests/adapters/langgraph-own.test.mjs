// What LangGraph's validation suite does not check, on both stores: the
// list order, the first write of a (task, index) kept, special channels
// replaced, writes replayed in writesSortKey order, each channel value
// stored once per version, a put costing one store call, list loading
// checkpoint records a page per call, a refused
// credential writing nothing, and deleteThread.
import "fake-indexeddb/auto";
import { describe, it, expect, vi } from "vitest";
import { BaseCheckpointSaver, JsonPlusSerializer, emptyCheckpoint, uuid6, ERROR } from "@langchain/langgraph-checkpoint";
import { Annotation, StateGraph, START, END, MemorySaver, interrupt, Command } from "@langchain/langgraph";
import { AIMessage, HumanMessage } from "@langchain/core/messages";
import { MemorySessionStore, IdbSessionStore } from "../../pkg/index.js";
import { AttacheCheckpointSaver } from "../../pkg/langgraph.js";
import { counted } from "./counted.mjs";

let databases = 0;
const stores = {
  MemorySessionStore: async () => new MemorySessionStore(),
  IdbSessionStore: async () => IdbSessionStore.open({ name: `langgraph-own-${databases++}` }),
};

const thread = (id = "t") => ({ configurable: { thread_id: id, checkpoint_ns: "" } });
const metadata = (step) => ({ source: "loop", step, parents: {} });
/** Checkpoint `i` of a thread whose one channel holds `v${i}`. */
const checkpointAt = (i) => ({ ...emptyCheckpoint(), id: uuid6(i), channel_values: { a: `v${i}` }, channel_versions: { a: i } });

/** Puts `n` checkpoints in a chain; returns their configs, oldest first. */
async function chain(saver, n, values = (i) => ({ a: `a${i}`, b: "same" })) {
  const configs = [];
  let parent = thread();
  for (let i = 0; i < n; i++) {
    const v = values(i);
    const versions = Object.fromEntries(Object.keys(v).map((k) => [k, k === "b" ? 1 : i + 1]));
    const checkpoint = { ...emptyCheckpoint(), id: uuid6(i), channel_values: v, channel_versions: versions };
    // Only the channels whose version moved are new.
    const newVersions = i === 0 ? versions : { a: i + 1 };
    parent = await saver.put(parent, checkpoint, metadata(i), newVersions);
    configs.push(parent);
  }
  return configs;
}

/** `store`, whose first `method` call that succeeds waits, once landed, until `release()`; `reached` resolves then. */
function holdFirst(store, method) {
  let landed, release;
  const reached = new Promise((resolve) => (landed = resolve));
  const gate = new Promise((resolve) => (release = resolve));
  let held = false;
  const proxy = new Proxy(store, {
    get(target, key) {
      const value = Reflect.get(target, key);
      if (typeof value !== "function") return value;
      if (key !== method) return value.bind(target);
      return async (...args) => {
        const result = await value.apply(target, args);
        if (!held) {
          held = true;
          landed();
          await gate;
        }
        return result;
      };
    },
  });
  return { held: proxy, reached, release };
}

for (const [name, open] of Object.entries(stores)) {
  describe(`AttacheCheckpointSaver on ${name}`, () => {
    it("lists newest first, and `before` and `limit` count from the newest", async () => {
      const saver = new AttacheCheckpointSaver(await open());
      const configs = await chain(saver, 5);
      const ids = async (options) => {
        const out = [];
        for await (const t of saver.list(thread(), options)) out.push(t.config.configurable.checkpoint_id);
        return out;
      };
      const all = configs.map((c) => c.configurable.checkpoint_id);
      expect(await ids()).toEqual([...all].reverse());
      expect(await ids({ limit: 2 })).toEqual([all[4], all[3]]);
      expect(await ids({ before: configs[3], limit: 2 })).toEqual([all[2], all[1]]);
      expect(await ids({ filter: { step: 1 } })).toEqual([all[1]]);
      // Not whole numbers, as list() took them before it paged.
      expect(await ids({ limit: 1.5 })).toEqual([all[4], all[3]]);
      expect(await ids({ limit: 0.5 })).toEqual([all[4]]);
      expect(await ids({ limit: NaN })).toHaveLength(5);
      expect((await saver.getTuple(thread())).config.configurable.checkpoint_id).toBe(all[4]);
    });

    it("keeps the first write of a (task, index), replaces a special channel's, and replays in writesSortKey order", async () => {
      const saver = new AttacheCheckpointSaver(await open());
      const [config] = await chain(saver, 1);
      await saver.putWrites(config, [["a", "first"], ["b", "kept"]], "task-b", "~__pregel_pull, 2");
      await saver.putWrites(config, [["a", "second"]], "task-b", "~__pregel_pull, 2");
      await saver.putWrites(config, [["a", "from a"]], "task-a", "~__pregel_pull, 1");
      await saver.putWrites(config, [[ERROR, "boom 1"]], "task-b");
      await saver.putWrites(config, [[ERROR, "boom 2"]], "task-b");
      const { pendingWrites } = await saver.getTuple(config);
      expect(pendingWrites).toEqual([
        ["task-b", ERROR, "boom 2"],
        ["task-a", "a", "from a"],
        ["task-b", "a", "first"],
        ["task-b", "b", "kept"],
      ]);
    });

    it("stores each channel value once per version, not the whole checkpoint each time", async () => {
      const store = await open();
      const saver = new AttacheCheckpointSaver(store);
      const configs = await chain(saver, 3);
      const blobs = await store.listSessionStateKeys("t", { prefix: "lg/b/" });
      expect(blobs).toEqual(["lg/b//a/1", "lg/b//a/2", "lg/b//a/3", "lg/b//b/1"]);
      const [record] = await store.loadSessionStates("t", [`lg/c//${configs[2].configurable.checkpoint_id}`]);
      expect(record.checkpoint.value.channel_values).toEqual({});
      const latest = await saver.getTuple(configs[2]);
      expect(latest.checkpoint.channel_values).toEqual({ a: "a2", b: "same" });
      // A value stored before values were named ({ t, j }) still reads.
      await store.saveSessionState("t", "lg/b//b/1", { t: "json", j: "older" });
      expect((await saver.getTuple(configs[2])).checkpoint.channel_values.b).toBe("older");
      expect(latest.parentConfig.configurable.checkpoint_id).toBe(configs[1].configurable.checkpoint_id);
    });

    it("a put is one store call once its thread exists; the thread's first creates it", async () => {
      const store = await open();
      const { store: watched, calls } = counted(store);
      const saver = new AttacheCheckpointSaver(watched);
      const [first] = await chain(saver, 1);
      expect(calls).toEqual(["commitTurn", "createSession", "commitTurn"]);
      calls.length = 0;
      await chain(saver, 2);
      await saver.putWrites(first, [["a", "w"]], "task", "");
      expect(calls).toEqual(["commitTurn", "commitTurn", "commitTurn"]);
      expect((await store.listSessionStateKeys("t", { prefix: "lg/c/" })).length).toBe(3);
    });

    it("list loads checkpoint records a page per call, and only as far as the caller reads", async () => {
      const { store: watched, calls } = counted(await open());
      const saver = new AttacheCheckpointSaver(watched);
      await chain(saver, 5);
      calls.length = 0;
      const ids = [];
      for await (const t of saver.list(thread())) ids.push(t.config.configurable.checkpoint_id);
      expect(ids).toHaveLength(5);
      // The keys, the records in one call, then each tuple's writes and values.
      expect(calls).toEqual(["listSessionStateKeys", "loadSessionStates", ...Array(5).fill(["listSessionStateKeys", "loadSessionStates"]).flat()]);
      calls.length = 0;
      let listed = 0;
      for await (const _ of saver.list(thread(), { limit: 2 })) listed += 1;
      expect(listed).toBe(2);
      // Two records in one call, then two tuples' values.
      expect(calls.filter((c) => c === "loadSessionStates")).toHaveLength(3);
      calls.length = 0;
      for await (const _ of saver.list(thread())) break;
      expect(calls).toEqual(["listSessionStateKeys", "loadSessionStates", "listSessionStateKeys", "loadSessionStates"]);
    });

    it("a fork (updateState on an old checkpoint) leaves the other branch's values alone", async () => {
      const saver = new AttacheCheckpointSaver(await open());
      const State = Annotation.Root({ x: Annotation() });
      const graph = new StateGraph(State)
        .addNode("one", () => ({ x: "a" }))
        .addNode("two", () => ({ x: "b" }))
        .addEdge(START, "one").addEdge("one", "two").addEdge("two", END)
        .compile({ checkpointer: saver });
      const config = { configurable: { thread_id: "fork" } };
      await graph.invoke({ x: "start" }, config);
      const history = [];
      for await (const snapshot of graph.getStateHistory(config)) history.push(snapshot);
      const last = history[0];
      const afterOne = history.find((s) => s.values.x === "a");
      expect(last.values.x).toBe("b");
      // A new branch from the checkpoint after "one": x gets a new version there.
      await graph.updateState(afterOne.config, { x: "z" });
      expect((await graph.getState(config)).values.x).toBe("z");
      expect((await graph.getState(last.config)).values.x).toBe("b");
      expect((await graph.getState(afterOne.config)).values.x).toBe("a");
    });

    it("two forks of one checkpoint keep their own values with Math.random mocked", async () => {
      const saver = new AttacheCheckpointSaver(await open());
      const State = Annotation.Root({ x: Annotation() });
      const graph = new StateGraph(State).addNode("one", () => ({ x: "a" })).addEdge(START, "one").addEdge("one", END)
        .compile({ checkpointer: saver });
      const config = { configurable: { thread_id: "forks" } };
      await graph.invoke({ x: "start" }, config);
      const { config: parent } = await graph.getState(config);
      // A test's mock, or a seeded Math.random: versions come from crypto.
      const random = vi.spyOn(Math, "random").mockReturnValue(0.5);
      try {
        const forkA = await graph.updateState(parent, { x: "fork A" });
        const forkB = await graph.updateState(parent, { x: "fork B" });
        expect((await graph.getState(forkA)).values.x).toBe("fork A");
        expect((await graph.getState(forkB)).values.x).toBe("fork B");
      } finally {
        random.mockRestore();
      }
    });

    it("text cut through an emoji is stored with U+FFFD, and the guard still reads every field", async () => {
      const saver = new AttacheCheckpointSaver(await open());
      const cut = "🙂 smile".slice(0, 1);
      const literal = "\\ud800 is text, not a surrogate";
      const checkpoint = { ...emptyCheckpoint(), id: uuid6(1), channel_values: { cut, literal }, channel_versions: { cut: 1, literal: 1 } };
      await saver.put(thread(), checkpoint, metadata(1), { cut: 1, literal: 1 });
      const { checkpoint: back } = await saver.getTuple(thread());
      expect(back.channel_values).toEqual({ cut: "\ufffd", literal });
      // A short password under its field's name is refused, surrogate or not.
      const secret = { ...emptyCheckpoint(), id: uuid6(2), channel_values: { s: { note: cut, password: "hunter2" } }, channel_versions: { s: 2 } };
      await expect(saver.put(thread(), secret, metadata(2), { s: 2 })).rejects.toMatchObject({ code: "CREDENTIAL" });
      // Two keys U+FFFD would make one are refused, not half-stored.
      const twins = { ...emptyCheckpoint(), id: uuid6(3), channel_values: { t: { [cut]: "lone", "\ufffd": "kept" } }, channel_versions: { t: 3 } };
      await expect(saver.put(thread(), twins, metadata(3), { t: 3 })).rejects.toThrow(/channel "t" holds two keys/);
      expect((await saver.getTuple(thread())).checkpoint.id).toBe(checkpoint.id);
    });

    it("a checkpoint with more channel values and writes than one load takes comes back whole", async () => {
      const store = await open();
      const saver = new AttacheCheckpointSaver(store);
      const n = 10050;
      const values = Object.fromEntries(Array.from({ length: n }, (_, i) => [`c${i}`, i]));
      const versions = Object.fromEntries(Object.keys(values).map((k) => [k, 1]));
      const checkpoint = { ...emptyCheckpoint(), id: uuid6(1), channel_values: values, channel_versions: versions };
      await saver.put(thread(), checkpoint, metadata(1), versions);
      const { checkpoint: back } = await saver.getTuple(thread());
      expect(Object.keys(back.channel_values)).toHaveLength(n);
      expect(back.channel_values.c10049).toBe(10049);
    });

    it("an empty thread id is no thread to getTuple and every thread to list, as in MemorySaver", async () => {
      const saver = new AttacheCheckpointSaver(await open());
      await chain(saver, 2);
      expect(await saver.getTuple({ configurable: { thread_id: "" } })).toBeUndefined();
      let listed = 0;
      for await (const _ of saver.list({ configurable: { thread_id: "" } })) listed += 1;
      expect(listed).toBe(2);
    });

    it("a channel named like a credential, or bytes holding a key, are refused; other bytes round-trip", async () => {
      const store = await open();
      const saver = new AttacheCheckpointSaver(store);
      const key = "sk-proj-" + "Zx9".repeat(16);
      const at = { configurable: { thread_id: "t", checkpoint_ns: "", checkpoint_id: uuid6(0) } };
      for (const [channel, value] of [["password", "hunter2hunter2"], ["envFile", new TextEncoder().encode(`OPENAI_API_KEY=${key}\n`)]]) {
        const checkpoint = { ...emptyCheckpoint(), id: uuid6(1), channel_values: { [channel]: value }, channel_versions: { [channel]: 1 } };
        await expect(saver.put(thread(), checkpoint, metadata(1), { [channel]: 1 })).rejects.toMatchObject({ code: "CREDENTIAL" });
        await expect(saver.putWrites(at, [[channel, value]], "task")).rejects.toMatchObject({ code: "CREDENTIAL" });
      }
      const binary = new Uint8Array([0, 255, 254, 1, 0xc3]);
      const text = new TextEncoder().encode("\ufeffplain text é");
      const values = { bin: binary, txt: text };
      const checkpoint = { ...emptyCheckpoint(), id: uuid6(2), channel_values: values, channel_versions: { bin: 1, txt: 1 } };
      await saver.put(thread(), checkpoint, metadata(2), { bin: 1, txt: 1 });
      const back = (await saver.getTuple(thread())).checkpoint.channel_values;
      expect([...back.bin]).toEqual([...binary]);
      expect([...back.txt]).toEqual([...text]);
      const [stored] = await store.loadSessionStates("t", ["lg/b//txt/1"]);
      expect(stored).toMatchObject({ name: "txt", as: "u", value: "\ufeffplain text é" });
      // A channel named like a credential holding bytes is refused too, short or not.
      const short = { ...emptyCheckpoint(), id: uuid6(3), channel_values: { password: new TextEncoder().encode("hunter2") }, channel_versions: { password: 1 } };
      await expect(saver.put(thread(), short, metadata(3), { password: 1 })).rejects.toMatchObject({ code: "CREDENTIAL" });
      // Records from before values were named still read.
      await store.saveSessionState("t", "lg/b//bin/1", { t: "bytes", b: "AP/+AcM=" });
      expect([...(await saver.getTuple(thread())).checkpoint.channel_values.bin]).toEqual([...binary]);
    });

    it("bytes inside a value, or bytes that are not UTF-8, are read by the guard and round-trip", async () => {
      const key = "sk-proj-" + "Zx9".repeat(16);
      const env = new TextEncoder().encode(`OPENAI_API_KEY=${key}\n`);
      // Windows-1252 "Café" before the key: no UTF-8, so once base64.
      const cp1252 = Uint8Array.from([...`# Caf\xe9\nOPENAI_API_KEY=${key}\n`].map((c) => c.charCodeAt(0)));
      const put = (saver, id, values) => {
        const versions = Object.fromEntries(Object.keys(values).map((k) => [k, id]));
        const checkpoint = { ...emptyCheckpoint(), id: uuid6(id), channel_values: values, channel_versions: versions };
        return saver.put(thread(), checkpoint, metadata(id), versions);
      };
      const refusing = new AttacheCheckpointSaver(await open());
      for (const values of [{ files: { ".env": env } }, { file: cp1252 }, { files: [{ name: "a", data: cp1252 }] }]) {
        await expect(put(refusing, 1, values)).rejects.toMatchObject({ code: "CREDENTIAL" });
      }
      // A Node Buffer, as its toJSON writes it.
      await expect(put(refusing, 1, { files: { ".env": Buffer.from(env) } })).rejects.toMatchObject({ code: "CREDENTIAL" });
      const binary = Uint8Array.from({ length: 256 }, (_, i) => i);
      const json = { type: "Buffer", data: [...binary] };
      await put(refusing, 2, { files: { bin: binary, txt: new TextEncoder().encode("héllo"), none: new Uint8Array(0) }, raw: binary, json, nested: { buffer: Buffer.from("hi") } });
      const back = (await refusing.getTuple(thread())).checkpoint.channel_values;
      expect(back.files.bin).toEqual(binary);
      expect(new TextDecoder().decode(back.files.txt)).toBe("héllo");
      expect(back.files.none).toEqual(new Uint8Array(0));
      expect(back.raw).toEqual(binary);
      // Bytes in a Set or as a Map's key, and a string like the stand-in
      // the read uses for them, come back as they went.
      const small = new Uint8Array([1, 2, 250]);
      await put(refusing, 3, { kept: { set: new Set(["s", small]), map: new Map([[small, 1]]), text: "\u0000attache:bytes:0", small } });
      const alike = (await refusing.getTuple(thread())).checkpoint.channel_values.kept;
      expect([...alike.set]).toEqual(["s", small]);
      expect([...alike.map.keys()]).toEqual([small]);
      expect(alike.text).toBe("\u0000attache:bytes:0");
      // LangGraph reads a Buffer back as its toJSON.
      expect(back.json).toEqual(json);
      expect(back.nested.buffer).toEqual({ type: "Buffer", data: [104, 105] });

      // The serializer is not handed a number per byte to read back: its
      // reviver takes a promise per number.
      const serde = new JsonPlusSerializer();
      const read = [];
      const loadsTyped = serde.loadsTyped.bind(serde);
      serde.loadsTyped = (type, data) => (read.push(String(data).length), loadsTyped(type, data));
      const watched = new AttacheCheckpointSaver(await open(), serde);
      const big = new Uint8Array(100_000).fill(7);
      await put(watched, 5, { files: { big } });
      expect((await watched.getTuple(thread())).checkpoint.channel_values.files.big).toEqual(big);
      expect(Math.max(...read)).toBeLessThan(1000);

      const store = name === "MemorySessionStore" ? new MemorySessionStore({ credentials: "redact" }) : await IdbSessionStore.open({ name: `langgraph-own-${databases++}`, credentials: "redact" });
      const redacting = new AttacheCheckpointSaver(store);
      await put(redacting, 3, { files: { ".env": env }, file: cp1252 });
      const kept = (await redacting.getTuple(thread())).checkpoint.channel_values;
      for (const bytes of [kept.files[".env"], kept.file]) {
        const text = new TextDecoder("latin1").decode(bytes);
        expect(text).not.toContain(key);
        expect(text).toMatch(/OPENAI_API_KEY=\[REDACTED:/);
      }
      expect(JSON.stringify(await store.exportSession("t"))).not.toContain(key.slice(8));
    });

    it("hostile names and values are refused as errors, and a checkpoint its own parent ends the walk", async () => {
      const store = await open();
      const saver = new AttacheCheckpointSaver(store);
      const cp = { ...emptyCheckpoint(), id: "X", channel_values: {}, channel_versions: {} };
      // Its own parent: the delta walk comes round again and stops.
      await saver.put({ configurable: { thread_id: "u", checkpoint_ns: "", checkpoint_id: "X" } }, cp, metadata(0), {});
      const history = await saver.getDeltaChannelHistory({ config: { configurable: { thread_id: "u", checkpoint_ns: "" } }, channels: ["zz"] });
      // The walk ends at X: nothing seeds `zz`, and no write to it is found.
      expect(history).toEqual({ zz: { writes: [] } });
      // A channel named like an Object.prototype member is an ordinary one.
      const at = { configurable: { thread_id: "u", checkpoint_ns: "", checkpoint_id: "X" } };
      await saver.putWrites(at, [["toString", 1], ["constructor", 2]], "task");
      await saver.putWrites(at, [["toString", 9]], "task");
      const writes = (await saver.getTuple(at)).pendingWrites.map(([, channel, value]) => [channel, value]);
      expect(writes).toEqual([["toString", 1], ["constructor", 2]]);
      // In a put too: a new version of an empty `toString` channel.
      await saver.put(at, { ...cp, id: "Z", channel_versions: { toString: 1 } }, metadata(2), { toString: 1 });
      expect(Object.hasOwn((await saver.getTuple(thread("u"))).checkpoint.channel_values, "toString")).toBe(false);
      // No JSON form, no URI form: errors, and nothing stored.
      await expect(saver.putWrites(at, [["f", () => 1]], "task2")).rejects.toBeInstanceOf(TypeError);
      await expect(saver.put({ configurable: { thread_id: "u", checkpoint_ns: "\udc00" } }, { ...cp, id: "Y" }, metadata(1), {})).rejects.toBeInstanceOf(TypeError);
      // A write's channel as put's: refused by the saver, not by the store
      // under a key the host never wrote.
      for (const [writes, path] of [[[["c\ud800", 1]], "p"], [[["ok", 1], ["\udc00", 2]], "p"], [[["ok", 1]], "p\ud800"]]) {
        await expect(saver.putWrites(at, writes, "task3", path)).rejects.toThrow(new TypeError("A thread's namespace, checkpoint id, channel, version, task id or task path holds a lone surrogate (text cut through an emoji): it cannot name a key."));
      }
      expect((await saver.getTuple(at)).pendingWrites).toHaveLength(2);
      // A credential in a component would be URI-encoded past the guard:
      // refused before anything is stored.
      const dsn = "postgres://admin:S3cr3tP4ssw0rd@db.example.com/app";
      const credential = new TypeError("A thread's namespace, checkpoint id, channel, version or task id holds what looks like a credential (url_password): it cannot name a key.");
      await expect(saver.put({ configurable: { thread_id: "u", checkpoint_ns: dsn } }, { ...cp, id: "Y" }, metadata(1), {})).rejects.toThrow(credential);
      await expect(saver.put(at, { ...cp, id: "Y", channel_versions: { a: dsn } }, metadata(1), { a: dsn })).rejects.toThrow(credential);
      await expect(saver.putWrites(at, [["a", 1]], dsn)).rejects.toThrow(credential);
      await expect(saver.putWrites({ configurable: { ...at.configurable, checkpoint_id: dsn } }, [["a", 1]], "t")).rejects.toThrow(credential);
      expect(JSON.stringify(await store.exportSession("u"))).not.toContain("S3cr3tP4ssw0rd");
      // A write's channel and path are values, not key parts: a redacting
      // store keeps them redacted, as it keeps any value.
      const redacting = new AttacheCheckpointSaver(new MemorySessionStore({ credentials: "redact" }));
      await redacting.put(at, cp, metadata(0), {});
      await redacting.putWrites(at, [[dsn, 1]], "t", dsn);
      const [[, channel]] = (await redacting.getTuple(at)).pendingWrites;
      expect(channel).not.toContain("S3cr3tP4ssw0rd");
      // Reads store nothing: a namespace that looks like one finds nothing, as in MemorySaver.
      expect(await saver.getTuple({ configurable: { thread_id: "u", checkpoint_ns: dsn } })).toBeUndefined();
      // Too long for a key once encoded: named by what it is.
      await expect(saver.put({ configurable: { thread_id: "u", checkpoint_ns: "é".repeat(700) } }, { ...cp, id: "Y" }, metadata(1), {}))
        .rejects.toThrow(new TypeError("The namespace, checkpoint id, channel, version and task id of checkpoint Y make a key longer than 4096 UTF-16 code units once URI-encoded: it cannot be stored."));
      // A refusal's name is cut, as a log keeps it.
      const long = "c".repeat(3000);
      const refused = await saver.put(at, { ...cp, id: "Z2", channel_values: { [long]: "sk-proj-" + "Zx9".repeat(16) }, channel_versions: { [long]: 1 } }, metadata(1), { [long]: 1 }).catch((e) => e);
      expect(refused.code).toBe("CREDENTIAL");
      expect(refused.message).toMatch(/ \(channel "c{191}…\)$/);
      expect(refused.message.length).toBeLessThan(1500);
    });

    it("an id that is no string, or a value the serializer cannot write, is refused before it is stored", async () => {
      const store = await open();
      const saver = new AttacheCheckpointSaver(store);
      const cp = (id, extra = {}) => ({ ...emptyCheckpoint(), id, channel_values: { a: 1 }, channel_versions: { a: 1 }, ...extra });
      const at = await saver.put(thread(), cp("c1"), metadata(0), { a: 1 });
      const before = await saver.getTuple(thread());
      // Stored, a task id or task path that is no string broke each later read of the thread.
      for (const [task, path] of [[["x"], ""], [42, ""], [Symbol("t"), ""], ["t", 7]]) {
        await expect(saver.putWrites(at, [["a", 2]], task, path)).rejects.toBeInstanceOf(TypeError);
      }
      for (const writes of [null, [null], [[5, 1]]]) {
        await expect(saver.putWrites(at, writes, "t")).rejects.toBeInstanceOf(TypeError);
      }
      // Stored, the serializer's "[unable to serialize…]" read back as the checkpoint.
      await expect(saver.put(thread(), cp("c2", { v: 10n }), metadata(1), {})).rejects.toThrow(/cannot be serialized/);
      await expect(saver.put(thread(), cp("c2", { channel_versions: { a: 2 }, channel_values: { a: 10n } }), metadata(1), { a: 2 })).rejects.toThrow(/channel "a"/);
      // Nested past the serializer's stack: its RangeError, or its fallback
      // string read as a BigInt's.
      const deep = (n) => { let v = 1; for (let i = 0; i < n; i++) v = { v }; return v; };
      await expect(saver.put(thread(), cp("c2", { channel_versions: { a: 2 }, channel_values: { a: deep(5_000) } }), metadata(1), { a: 2 })).rejects.toThrow(/or nesting too deep/);
      await expect(saver.put(thread(), cp("c2", { channel_versions: { a: 2 }, channel_values: { a: deep(50_000) } }), metadata(1), { a: 2 })).rejects.toThrow(/channel "a" nests too deep/);
      await expect(saver.put(thread(), cp(5), metadata(1), {})).rejects.toBeInstanceOf(TypeError);
      // Stored, an empty id was listed but no getTuple found it, and a
      // parent that is no string gave a parentConfig getTuple refuses.
      await expect(saver.put(thread(), cp(""), metadata(1), {})).rejects.toThrow(/must not be empty/);
      await expect(saver.put({ configurable: { ...thread().configurable, checkpoint_id: ["c1"] } }, cp("c3"), metadata(1), {})).rejects.toThrow(/checkpoint_id must be a string/);
      // JSON the serializer's reviver takes for a LangChain object it does
      // not know (a tool's output of that shape) broke each later read.
      const foreign = { lc: 1, type: "constructor", id: ["nope", "X"], kwargs: {} };
      // The reviver's reason is given, not the value it quotes.
      await expect(saver.put(thread(), cp("c2", { channel_versions: { a: 2 }, channel_values: { a: foreign } }), metadata(1), { a: 2 })).rejects.toThrow(/read back by the serializer \(Invalid namespace: \$\)/);
      await expect(saver.putWrites(at, [["a", { deep: [foreign] }]], "lc")).rejects.toThrow(/read back/);
      await expect(saver.putWrites(at, [["a", [new HumanMessage("ok"), foreign]]], "lc")).rejects.toThrow(/read back/);
      await expect(saver.putWrites(at, [["a", "[unable to serialize, circular reference is too complex to analyze]"]], "own")).resolves.toBeUndefined();
      expect((await saver.getTuple(thread())).pendingWrites).toEqual([["own", "a", "[unable to serialize, circular reference is too complex to analyze]"]]);
      expect((await saver.getTuple(thread())).checkpoint).toEqual(before.checkpoint);
      // Read with a namespace or id that is no string, or bad options: a TypeError, not an engine's.
      const ns = (value) => ({ configurable: { thread_id: "t", checkpoint_ns: value } });
      for (const bad of [Object.create(null), [Symbol("s")], 5]) {
        await expect(saver.getTuple(ns(bad))).rejects.toThrow(/checkpoint_ns must be a string/);
        await expect(saver.list(ns(bad)).next()).rejects.toThrow(/checkpoint_ns must be a string/);
      }
      await expect(saver.list(thread(), { before: { configurable: { checkpoint_id: Symbol("b") } } }).next()).rejects.toThrow(/checkpoint_id must be a string/);
      await expect(saver.list(thread(), { limit: Symbol("l") }).next()).rejects.toThrow(/limit must be a number/);
      // As MemorySaver compares a limit: "1" is 1, null is 0 (of two).
      await saver.put(thread(), cp("c5"), metadata(5), {});
      for (const [limit, count] of [["1", 1], [null, 0], [1n, 1]]) {
        const found = [];
        for await (const tuple of saver.list(thread(), { limit })) found.push(tuple);
        expect(found).toHaveLength(count);
      }
      const listed = [];
      for await (const tuple of saver.list(thread(), null)) listed.push(tuple.config.configurable.checkpoint_id);
      expect(listed).toEqual(["c5", "c1"]);
      // An endless iterable of channels hung the walk.
      const endless = { *[Symbol.iterator]() { for (;;) yield "a"; }, length: 1, includes: () => false };
      await expect(saver.getDeltaChannelHistory({ config: thread(), channels: endless })).rejects.toThrow(/array of strings/);
    });

    it("a messages channel's earlier messages are not read back again at each put", async () => {
      const serde = new JsonPlusSerializer();
      // Characters of JSON the serializer is handed to read.
      let reads = 0;
      const loadsTyped = serde.loadsTyped.bind(serde);
      serde.loadsTyped = (type, data) => ((reads += String(data).length), loadsTyped(type, data));
      const one = (message) => JSON.stringify(message).length;
      const saver = new AttacheCheckpointSaver(await open(), serde);
      const messages = Array.from({ length: 50 }, (_, i) => (i % 2 ? new AIMessage(`a${i}`) : new HumanMessage(`h${i}`)));
      const put = async (id, list, version) => {
        const checkpoint = { ...emptyCheckpoint(), id, channel_values: { messages: list }, channel_versions: { messages: version } };
        await saver.put(thread(), checkpoint, metadata(version), { messages: version });
      };
      await put(uuid6(0), messages, 1);
      expect(reads).toBeGreaterThan(50 * one(messages[0]));
      // The graph puts the messages it read with getTuple, and one more.
      const read = (await saver.getTuple(thread())).checkpoint.channel_values.messages;
      reads = 0;
      await put(uuid6(1), [...read, new AIMessage("new")], 2);
      expect(reads).toBeGreaterThan(0);
      expect(reads).toBeLessThan(2 * one(new AIMessage("new")));
      reads = 0;
      await put(uuid6(2), [...messages, new AIMessage("again")], 3);
      expect(reads).toBeLessThan(2 * one(new AIMessage("again")));
      // A message edited in place (updateState after getState) is read
      // again: one the reviver cannot read is refused, the thread kept.
      read[3].additional_kwargs = { found: { lc: 1, type: "constructor", id: ["nope", "X"], kwargs: {} } };
      await expect(put(uuid6(3), read, 4)).rejects.toThrow(/read back/);
      expect((await saver.getTuple(thread())).checkpoint.channel_values.messages).toHaveLength(51);
    });

    it("no writes on a thread not yet stored make no session", async () => {
      const store = await open();
      const saver = new AttacheCheckpointSaver(store);
      const at = { configurable: { thread_id: "none yet", checkpoint_ns: "", checkpoint_id: "X" } };
      await saver.putWrites(at, [], "task");
      expect(await store.getSession("none yet")).toBeNull();
      await saver.putWrites(at, [["a", 1]], "task");
      expect(await store.getSession("none yet")).not.toBeNull();
    });

    it("a checkpoint holding a credential is refused whole, and deleteThread removes the thread", async () => {
      const store = await open();
      const saver = new AttacheCheckpointSaver(store);
      await chain(saver, 1);
      const key = "sk-proj-" + "Zx9".repeat(16);
      const checkpoint = { ...emptyCheckpoint(), id: uuid6(9), channel_values: { a: `use ${key}` }, channel_versions: { a: 9 } };
      await expect(saver.put(thread(), checkpoint, metadata(9), { a: 9 })).rejects.toMatchObject({ code: "CREDENTIAL" });
      expect(await store.listSessionStateKeys("t", { prefix: "lg/c/" })).toHaveLength(1);
      expect(await store.listSessionStateKeys("t", { prefix: "lg/b//a/9" })).toEqual([]);
      await saver.deleteThread("t");
      expect(await saver.getTuple(thread())).toBeUndefined();
      expect(await store.getSession("t")).toBeNull();
    });

    it("subgraphs under nodes named like credentials run, interrupt and resume as on MemorySaver", async () => {
      // LangGraph names a subgraph's namespace `node:taskid`, which whole
      // reads to the guard as an assignment (`check_password: 1ef…`), and
      // its checkpoints' metadata.parents names each parent's checkpoint
      // by namespace (`{client_secret: id}` reads as a credential field).
      const State = Annotation.Root({ x: Annotation() });
      const ask = new StateGraph(State).addNode("ask", (s) => ({ x: s.x + interrupt("ok?") })).addEdge(START, "ask").addEdge("ask", END).compile();
      const within = (node, graph, options) => new StateGraph(State).addNode(node, graph).addEdge(START, node).addEdge(node, END).compile(options);
      const run = async (checkpointer, graph) => {
        const config = { configurable: { thread_id: "t" }, durability: "sync" };
        const asked = await graph.invoke({ x: "a" }, config);
        const done = await graph.invoke(new Command({ resume: "!" }), config);
        const parents = [];
        for await (const { metadata } of checkpointer.list({ configurable: { thread_id: "t" } })) {
          parents.push(JSON.stringify(metadata.parents).replace(/[0-9a-f]{8}(-[0-9a-f]{4}){3}-[0-9a-f]{12}/g, "U"));
        }
        return { asked: asked.__interrupt__.map((i) => i.value), done, parents: parents.sort() };
      };
      // A subgraph in a subgraph; and one compiled with `checkpointer:
      // true`, whose namespace has no task id, holding a subgraph.
      const shapes = [
        [(saver) => within("check_password", within("get_api_key", ask), { checkpointer: saver }), '{"":"U","check_password:U":"U"}'],
        [(saver) => within("client_secret", within("inner", ask, { checkpointer: true }), { checkpointer: saver }), '{"":"U","client_secret":"U"}'],
        // Beside its task id, a list would read as a header.
        [(saver) => within("x-api-key", within("inner", ask), { checkpointer: saver }), '{"":"U","x-api-key:U":"U"}'],
      ];
      for (const [graph, nested] of shapes) {
        const saver = new AttacheCheckpointSaver(await open());
        const ours = await run(saver, graph(saver));
        const memory = new MemorySaver();
        expect(ours).toEqual(await run(memory, graph(memory)));
        expect(ours.done).toEqual({ x: "a!" });
        // The innermost graph's checkpoints name the middle one's.
        expect(ours.parents).toContain(nested);
      }
    });

    it("a checkpoint's parents are kept as given, and a credential among them is refused", async () => {
      const store = await open();
      const saver = new AttacheCheckpointSaver(store);
      const task = "1ef9c2a4-3b7d-5e10-8f21-9a0b1c2d3e4f";
      const ns = `reset_password:${task}`;
      // uuid6(16390)'s variant digit holds the step's high bits: c to f.
      const parents = { "": uuid6(1), client_secret: uuid6(2), [ns]: uuid6(16390), [`${ns}|x-api-key:${task}`]: uuid6(4) };
      // Beside bytes, or nested past the store's depth, the metadata is
      // stored otherwise (packed, or as its JSON text): the parents alike.
      const deep = JSON.parse(`${"[".repeat(150)}${"]".repeat(150)}`);
      for (const extra of [{}, { bytes: new Uint8Array([1, 2]) }, { deep }]) {
        const at = await saver.put(thread(), checkpointAt(4), { source: "loop", step: 4, parents, ...extra }, { a: 4 });
        expect((await saver.getTuple(at)).metadata).toEqual({ source: "loop", step: 4, parents, ...extra });
      }
      // Parents the guard passes are stored as they are.
      const plain = { "": uuid6(1), [`inner:${task}`]: uuid6(2) };
      const at = await saver.put(thread(), checkpointAt(5), { source: "loop", step: 5, parents: plain }, { a: 5 });
      const key = `lg/c//${at.configurable.checkpoint_id}`;
      const record = await store.loadSessionState("t", key);
      expect(record.metadata.value.parents).toEqual(plain);
      // Refused by the store, as before, what the guard finds with
      // LangGraph's ids set aside: a credential as a parent's id, a name
      // and a value side by side, a DSN cut by `|`, a key after a uuid4
      // (no task id of LangGraph's).
      const refused = [
        { [ns]: "hunter2-Secret-99" },
        { name: "password", value: "hunter2xyz", [ns]: uuid6(5) },
        { "postgres://admin:S3cr3t|P4ssw0rd@db.example.com/app": uuid6(5) },
        { [`api_key:${crypto.randomUUID()}`]: uuid6(5) },
        { [`API_KEY:${task.toUpperCase()}`]: uuid6(5) },
      ];
      for (const parents of refused) {
        await expect(saver.put(at, checkpointAt(6), { source: "loop", step: 6, parents }, { a: 6 })).rejects.toMatchObject({ code: "CREDENTIAL" });
      }
      // A namespace would be a key's part, which the store cannot read.
      for (const checkpoint_ns of [`api_key:${crypto.randomUUID()}`, "postgres://admin:S3cr3t|P4ssw0rd@db.example.com/app"]) {
        await expect(saver.put({ configurable: { thread_id: "t", checkpoint_ns } }, checkpointAt(6), metadata(6), {})).rejects.toThrow(/looks like a credential/);
      }
      expect((await saver.getTuple(thread())).checkpoint.id).toBe(at.configurable.checkpoint_id);
      // A damaged record is the adapter's TypeError, not a URIError.
      await saver.put(at, checkpointAt(7), { source: "loop", step: 7, parents }, { a: 7 });
      const damaged = `lg/c//${(await saver.getTuple(thread())).checkpoint.id}`;
      const stored = await store.loadSessionState("t", damaged);
      expect(stored.metadata.ns).toBe(1);
      await store.saveSessionState("t", damaged, { ...stored, metadata: { ...stored.metadata, value: { ...stored.metadata.value, parents: "%E0%A4%A" } } });
      await expect(saver.getTuple(thread())).rejects.toThrow(new TypeError("A checkpoint's stored metadata.parents is not the URI-encoded JSON attache writes: it cannot be read."));
    });

    it("a stopped run's late writes do not bring back a deleted thread; a live run's do", async () => {
      const store = await open();
      const saver = new AttacheCheckpointSaver(store);
      const [first] = await chain(saver, 1);
      const stop = new AbortController();
      stop.abort();
      const { signal } = stop;
      const next = { ...emptyCheckpoint(), id: uuid6(1), channel_values: { a: "late" }, channel_versions: { a: 2 } };
      const sub = { configurable: { thread_id: "t", checkpoint_ns: "child:1" }, signal };
      // Made after the delete, as LangGraph still writes once invoke rejects:
      // the next checkpoint, writes, a subgraph's first, the run's first.
      const deleted = saver.deleteThread("t");
      const late = [
        saver.put({ ...first, signal }, next, metadata(1), { a: 2 }),
        saver.putWrites({ ...first, signal }, [["a", "late"]], "task"),
        saver.put(sub, { ...next, id: uuid6(2) }, metadata(1), { a: 2 }),
        saver.put({ ...thread(), signal }, { ...next, id: uuid6(3) }, metadata(-1), { a: 2 }),
      ];
      await Promise.all([deleted, ...late]);
      expect(await store.getSession("t")).toBeNull();
      expect(await saver.getTuple(thread())).toBeUndefined();
      // A live run's write is kept, even from a checkpoint the delete took
      // (an edit from before a "clear chat"), as MemorySaver keeps it.
      const live = { ...first, signal: new AbortController().signal };
      await saver.put(live, next, metadata(1), { a: 2 });
      expect((await saver.getTuple(thread())).checkpoint.channel_values).toEqual({ a: "late" });
      // Back, it is no longer marked: deleted elsewhere (another tab), a
      // stopped run's first write makes it again, as for any thread.
      await store.deleteSession("t");
      await saver.put({ ...thread(), signal }, { ...next, id: uuid6(4) }, metadata(-1), { a: 2 });
      expect(await store.getSession("t")).not.toBeNull();
    });

    it("list() gives bytes in metadata back as bytes, as getTuple and MemorySaver do", async () => {
      for (const saver of [new AttacheCheckpointSaver(await open()), new MemorySaver()]) {
        const config = await saver.put(thread(), checkpointAt(1), { ...metadata(1), blob: new Uint8Array([1, 2]) }, { a: 1 });
        for (const options of [undefined, { filter: { step: 1 } }]) {
          const listed = [];
          for await (const tuple of saver.list(thread(), options)) listed.push(tuple.metadata.blob);
          expect(listed).toEqual([new Uint8Array([1, 2])]);
        }
        expect((await saver.getTuple(config)).metadata.blob).toEqual(new Uint8Array([1, 2]));
      }
    });

    it("a live run's checkpoint after a delete keeps the channels it did not change, as on MemorySaver", async () => {
      const State = Annotation.Root({ x: Annotation(), y: Annotation() });
      const run = async (checkpointer, nested) => {
        let reached, release;
        const waiting = new Promise((resolve) => (reached = resolve));
        const gate = new Promise((resolve) => (release = resolve));
        const node = async () => {
          reached();
          await gate;
          return { x: "2" };
        };
        const one = (name, action) => new StateGraph(State).addNode(name, action).addEdge(START, name).addEdge(name, END);
        // In a subgraph, whose checkpoint after the delete comes first.
        const graph = (nested ? one("outer", one("a", node).compile()) : one("a", node)).compile({ checkpointer });
        const config = { configurable: { thread_id: "t" }, durability: "sync" };
        const done = graph.invoke({ x: "1", y: "keep" }, config);
        await waiting;
        await checkpointer.deleteThread("t");
        release();
        return { out: await done, state: (await graph.getState(config)).values };
      };
      for (const nested of [false, true]) {
        const ours = await run(new AttacheCheckpointSaver(await open()), nested);
        expect(ours).toEqual(await run(new MemorySaver(), nested));
        expect(ours.state).toEqual({ x: "2", y: "keep" });
      }
    });

    it("remembers its newest 1,000 deleted threads, not every one it ever deleted", { timeout: 60000 }, async () => {
      const store = await open();
      const saver = new AttacheCheckpointSaver(store);
      const late = (id) => saver.put({ ...thread(id), signal: AbortSignal.abort() }, checkpointAt(1), metadata(-1), { a: 1 });
      await saver.deleteThread("again");
      await saver.deleteThread("oldest");
      for (let i = 0; i < 998; i++) await saver.deleteThread(`t${i}`);
      // Deleted again, a thread's mark is the newest: "oldest" goes first.
      await saver.deleteThread("again");
      await saver.deleteThread("newest");
      for (const id of ["again", "newest", "t0"]) {
        await late(id);
        expect(await store.getSession(id)).toBeNull();
      }
      // Forgotten: a stopped run's write makes it, as for any thread.
      await late("oldest");
      expect(await store.getSession("oldest")).not.toBeNull();
    });

    it("a delete made while a live write makes its thread again stays marked", async () => {
      const store = await open();
      // createSession lands, then waits: the delete comes in between.
      const { held, reached: made, release } = holdFirst(store, "createSession");
      const saver = new AttacheCheckpointSaver(held);
      await saver.deleteThread("t");
      const checkpoint = checkpointAt(1);
      const live = saver.put(thread(), checkpoint, metadata(-1), { a: 1 }).catch((e) => e);
      await made;
      await saver.deleteThread("t");
      release();
      // As if it landed before that delete, which took it: no NOT_FOUND
      // for a run MemorySaver would let go on.
      expect((await live).configurable.checkpoint_id).toBe(checkpoint.id);
      expect(await store.getSession("t")).toBeNull();
      await saver.put({ ...thread(), signal: AbortSignal.abort() }, checkpointAt(2), metadata(-1), { a: 2 });
      expect(await store.getSession("t")).toBeNull();
    });

    it("a live run's writes alone bring a deleted thread back: no longer marked for a stopped run", async () => {
      const store = await open();
      const saver = new AttacheCheckpointSaver(store);
      const [first] = await chain(saver, 1);
      await saver.deleteThread("t");
      await saver.putWrites(first, [["a", "live"]], "task");
      expect(await store.getSession("t")).not.toBeNull();
      // Deleted elsewhere, a stopped run's first write makes it again, as for any thread.
      await store.deleteSession("t");
      await saver.put({ ...thread(), signal: AbortSignal.abort() }, checkpointAt(2), metadata(-1), { a: 2 });
      expect(await store.getSession("t")).not.toBeNull();
    });

    it("a delete made after a live write landed, before it cleared the mark, keeps its own mark", async () => {
      const store = await open();
      // The commit after createSession lands (the first, NOT_FOUND, does
      // not), then waits: the delete comes in between.
      const { held, reached: committed, release } = holdFirst(store, "commitTurn");
      const saver = new AttacheCheckpointSaver(held);
      await saver.deleteThread("t");
      const live = saver.put(thread(), checkpointAt(1), metadata(-1), { a: 1 });
      await committed;
      await saver.deleteThread("t");
      release();
      await live;
      await saver.put({ ...thread(), signal: AbortSignal.abort() }, checkpointAt(2), metadata(-1), { a: 2 });
      expect(await store.getSession("t")).toBeNull();
    });

    it("a refusal names the channel and the task, not only the key it would have been stored under", async () => {
      const saver = new AttacheCheckpointSaver(await open());
      const key = "sk-proj-" + "Zx9".repeat(16);
      const checkpoint = { ...emptyCheckpoint(), id: uuid6(1), channel_values: { notes: `use ${key}` }, channel_versions: { notes: 1 } };
      const put = await saver.put(thread(), checkpoint, metadata(1), { notes: 1 }).catch((e) => e);
      expect(put).toMatchObject({ code: "CREDENTIAL", field: expect.stringMatching(/^state\["lg\/b\/\/notes\/1"\]\./) });
      expect(put.message).toMatch(/\(channel "notes"\)$/);
      const at = { configurable: { thread_id: "t", checkpoint_ns: "", checkpoint_id: uuid6(0) } };
      const write = await saver.putWrites(at, [["draft", "ok"], ["notes", `use ${key}`]], "task-7").catch((e) => e);
      expect(write.code).toBe("CREDENTIAL");
      expect(write.message).toMatch(/\(task task-7's write to channel "notes"\)$/);
    });

    it("a value nested past what the store takes is kept as its JSON text, and reads back whole", async () => {
      const store = await open();
      const saver = new AttacheCheckpointSaver(store);
      let tree = "leaf";
      for (let i = 0; i < 200; i++) tree = { c: tree };
      const checkpoint = { ...emptyCheckpoint(), id: uuid6(1), channel_values: { tree, flat: { c: 1 } }, channel_versions: { tree: 1, flat: 1 } };
      await saver.put(thread(), checkpoint, metadata(1), { tree: 1, flat: 1 });
      const at = { configurable: { thread_id: "t", checkpoint_ns: "", checkpoint_id: checkpoint.id } };
      await saver.putWrites(at, [["tree", tree]], "task");
      const tuple = await saver.getTuple(thread());
      expect(tuple.checkpoint.channel_values.tree).toEqual(tree);
      expect(tuple.pendingWrites).toEqual([["task", "tree", tree]]);
      const [deep, flat] = await store.loadSessionStates("t", ["lg/b//tree/1", "lg/b//flat/1"]);
      expect(deep).toMatchObject({ t: "json", name: "tree", as: "s" });
      expect(flat).toEqual({ t: "json", name: "flat", value: { c: 1 } });
      // As text the guard still reads it.
      const secret = { ...emptyCheckpoint(), id: uuid6(2), channel_values: { tree: { c: tree, key: `use sk-proj-${"Zx9".repeat(16)}` } }, channel_versions: { tree: 2 } };
      await expect(saver.put(thread(), secret, metadata(2), { tree: 2 })).rejects.toMatchObject({ code: "CREDENTIAL" });
    });

    it("delta channel history is the default walk's, without loading other channels' values or whole tuples", async () => {
      const { store: watched, calls, args } = counted(await open());
      const saver = new AttacheCheckpointSaver(watched);
      const big = "x".repeat(100_000);
      // "log" holds a value at the first checkpoint only (its seed); later
      // versions are empty, its entries are writes. "big" changes each step.
      let config = thread();
      const n = 8;
      for (let i = 0; i < n; i++) {
        const values = i === 0 ? { log: ["start"], big } : { big: big + i };
        const versions = { log: i + 1, big: i + 1 };
        const checkpoint = { ...emptyCheckpoint(), id: uuid6(i), channel_values: values, channel_versions: versions };
        config = await saver.put(config, checkpoint, metadata(i), versions);
        await saver.putWrites(config, [["log", `entry ${i}b`], ["big", "ignored"]], `task-b${i}`, `~${i}`);
        await saver.putWrites(config, [["log", `entry ${i}a`]], `task-a${i}`, `~${i}`);
      }
      const options = { config, channels: ["log", "missing"] };
      const expected = await BaseCheckpointSaver.prototype.getDeltaChannelHistory.call(saver, options);
      expect(expected.log.seed).toEqual(["start"]);
      expect(expected.log.writes.map((w) => w[2])).toEqual(Array.from({ length: n - 1 }, (_, i) => [`entry ${i}a`, `entry ${i}b`]).flat());
      calls.length = 0;
      args.length = 0;
      expect(await saver.getDeltaChannelHistory(options)).toEqual(expected);
      // The target, then per ancestor its record and "log"'s value; then
      // the write keys and the writes: never "big".
      const keys = calls.flatMap((name, i) => (name === "loadSessionStates" ? args[i][1] : []));
      expect(keys.some((k) => k.includes("/big/"))).toBe(false);
      expect(calls.length).toBeLessThanOrEqual(1 + 2 * (n - 1) + 2);
      expect(await saver.getDeltaChannelHistory({ config: { configurable: { thread_id: "none" } }, channels: ["log"] })).toEqual({ log: { writes: [] } });
    });

    it("a node's error quoting a key is kept with the key redacted, not dropped", async () => {
      const saver = new AttacheCheckpointSaver(await open());
      const key = "sk-proj-" + "Qw7".repeat(16);
      const State = Annotation.Root({ text: Annotation() });
      const graph = new StateGraph(State)
        .addNode("call", () => {
          throw new Error(`401 Incorrect API key provided: ${key}`);
        })
        .addEdge(START, "call")
        .addEdge("call", END)
        .compile({ checkpointer: saver });
      const config = { configurable: { thread_id: "e" } };
      await expect(graph.invoke({ text: "x" }, config)).rejects.toThrow("401");
      const [task] = (await graph.getState(config)).tasks;
      expect(task.name).toBe("call");
      expect(String(task.error?.message)).toMatch(/^401 Incorrect API key provided: \[REDACTED:/);
      expect(JSON.stringify(await saver.getTuple(config))).not.toContain(key);
    });
  });
}
