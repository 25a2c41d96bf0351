// attache/openai-agents on both stores: the Session contract as
// MemorySession keeps it, the history-transaction extension (an append
// one store call), and a real run() with a scripted model that resumes
// after a reload (a new store opened on the same IndexedDB database).
import "fake-indexeddb/auto";
import vm from "node:vm";
import { describe, it, expect, vi } from "vitest";
import { Agent, MemorySession, OutputGuardrailTripwireTriggered, isSessionHistoryRewriteAwareSession, protocol, run, tool, UserError } from "@openai/agents-core";
import { ScriptedModel, assistantMessage, functionCall } from "@openai/agents-core/testing";
import { z } from "zod";
import { MemorySessionStore, IdbSessionStore, forgetSecrets, registerSecret } from "../../pkg/index.js";
import { AttacheSession } from "../../pkg/openai-agents.js";
import { counted } from "./counted.mjs";

let databases = 0;
const backends = {
  MemorySessionStore: () => {
    const store = new MemorySessionStore();
    return { open: async () => store };
  },
  IdbSessionStore: () => {
    const name = `agents-${databases++}`;
    return { open: () => IdbSessionStore.open({ name }) };
  },
};

const items = [
  { role: "user", content: "What is the weather in Oslo?" },
  { type: "reasoning", id: "rs_1", content: [{ type: "input_text", text: "call the tool" }], providerData: { encryptedContent: "opaque" } },
  functionCall("weather", { city: "Oslo" }, { callId: "call_1", id: "fc_1" }),
  { type: "function_call_result", callId: "call_1", name: "weather", status: "completed", output: { type: "text", text: "3°C" } },
  { type: "hosted_tool_call", name: "web_search", status: "completed", id: "ws_1", providerData: { query: "oslo" } },
  assistantMessage("It is 3°C in Oslo.", { id: "msg_1" }),
];

for (const [name, backend] of Object.entries(backends)) {
  describe(`AttacheSession on ${name}`, () => {
    it("keeps items exactly, as MemorySession does, and stores their neutral form", async () => {
      const store = await backend().open();
      const session = new AttacheSession(store, { sessionId: "chat" });
      const reference = new MemorySession();
      for (const s of [session, reference]) {
        await s.addItems(items.slice(0, 4));
        await s.addItems([]);
        await s.addItems(items.slice(4));
      }
      expect(await session.getSessionId()).toBe("chat");
      expect(await session.getItems()).toEqual(await reference.getItems());
      expect(await session.getItems(2)).toEqual(await reference.getItems(2));
      expect(await session.getItems(0)).toEqual([]);
      expect(await session.popItem()).toEqual(await reference.popItem());

      const stored = await store.loadMessages("chat");
      expect(stored.map((m) => m.role)).toEqual(["user", "assistant", "assistant", "tool", "assistant"]);
      expect(stored[2].content).toEqual([{ type: "tool_call", id: "call_1", name: "weather", arguments: { city: "Oslo" } }]);
      expect(stored[3].content).toEqual([{ type: "tool_result", callId: "call_1", content: "3°C" }]);

      await session.clearSession();
      expect(await session.getItems()).toEqual([]);
      expect(await session.popItem()).toBeUndefined();
    });

    it("addItems and a compaction keep the items as they were when called, as MemorySession does", async () => {
      const store = await backend().open();
      const session = new AttacheSession(store, { sessionId: "copied" });
      const reference = new MemorySession();
      for (const s of [session, reference]) {
        const item = { role: "user", content: "original" };
        const added = s.addItems([item]);
        item.content = "changed";
        await added;
      }
      expect(await session.getItems()).toEqual(await reference.getItems());
      expect((await session.getItems())[0].content).toBe("original");
      const summary = { role: "user", content: "summary" };
      const compacted = session.replaceHistoryWithCompaction([summary]);
      summary.content = "changed";
      await compacted;
      // The item and its neutral form agree.
      expect((await session.getItems())[0].content).toBe("summary");
      expect((await store.loadMessages("copied"))[0].content).toBe("summary");
    });

    it("a session deleted through the store comes back under its id at the next write, as with a new object", async () => {
      const store = await backend().open();
      for (const options of [{ sessionId: "chat" }, {}]) {
        const session = new AttacheSession(store, options);
        await session.addItems(items.slice(0, 1));
        const id = await session.getSessionId();
        expect(await store.deleteSession(id)).toBe(true);
        await session.clearSession();
        expect(await store.getSession(id)).toBeNull();
        await session.addItems(items.slice(1, 2));
        expect(await session.getSessionId()).toBe(id);
        expect(await session.getItems()).toEqual(items.slice(1, 2));
        for (const write of [
          () => session.applyHistoryTransaction({ operationId: "op", transaction: { type: "append_items", items: items.slice(2, 3) } }),
          () => session.replaceHistoryWithCompaction(items.slice(0, 1)),
        ]) {
          await store.deleteSession(id);
          await write();
          expect((await store.getSession(id))?.id).toBe(id);
        }
        expect(await session.getItems()).toEqual(items.slice(0, 1));
      }
    });

    it("rejects, never throws, on a wrong this or a wrong argument; null options are none", async () => {
      const store = await backend().open();
      let pending;
      expect(() => { pending = AttacheSession.prototype.getSessionId.call({}); }).not.toThrow();
      await expect(pending).rejects.toThrow(TypeError);
      const session = new AttacheSession(store, null);
      await expect(session.addItems(null)).rejects.toThrow(UserError);
      const untouched = new AttacheSession(store, { sessionId: "untouched" });
      for (const bad of [5, null, { length: 1 }]) {
        await expect(untouched.replaceHistoryWithCompaction(bad)).rejects.toThrow(UserError);
        await expect(untouched.addItems(bad)).rejects.toThrow(UserError);
        expect(() => untouched.prepareHistoryItemsForPersistenceComparison(bad)).toThrow(UserError);
      }
      // A revoked Proxy, or arguments whose reading throws: a UserError too.
      const { proxy: revoked, revoke } = Proxy.revocable([], {});
      revoke();
      await expect(untouched.addItems(revoked)).rejects.toThrow(new UserError("Session items must be an array."));
      // A list whose reading throws (an index's getter): a UserError, its cause kept.
      const list = Object.defineProperty([], 0, { get() { throw new Error("an index's own"); }, enumerable: true });
      const unread = await untouched.addItems(list).catch((e) => e);
      expect([unread instanceof UserError, unread.cause?.message]).toEqual([true, "an index's own"]);
      await expect(untouched.replaceHistoryWithCompaction(revoked)).rejects.toThrow(UserError);
      expect(() => untouched.prepareHistoryItemsForPersistenceComparison(revoked)).toThrow(UserError);
      const boom = new Error("boom");
      const throwing = new Proxy({}, { get() { throw boom; } });
      for (const args of [revoked, throwing, { operationId: "op", get transaction() { throw boom; } }]) {
        for (const s of [untouched, new MemorySession()]) {
          await expect(s.applyHistoryTransaction(args)).rejects.toThrow(new UserError("Session history transaction arguments are invalid."));
        }
      }
      // Items that are no messages create no session, in a transaction too.
      for (const transaction of [{ type: "append_items", items: [42] }, { type: "replace_suffix", expectedSuffix: [], replacement: [null] }]) {
        await expect(untouched.applyHistoryTransaction({ operationId: "op", transaction })).rejects.toThrow(UserError);
      }
      expect(await store.getSession("untouched")).toBeNull();
      for (const limit of [Symbol("l"), Object.create(null)]) await expect(untouched.getItems(limit)).rejects.toThrow(UserError);
      // Still a UserError with its cause under a polluted Object.prototype.get
      // (defineProperty reads it from a descriptor): made polluted, checked after.
      Object.defineProperty(Object.prototype, "get", { __proto__: null, value: function get() {}, configurable: true, writable: true });
      let polluted;
      try {
        polluted = untouched.getItems({ valueOf() { throw boom; } }).catch((e) => e);
      } finally {
        delete Object.prototype.get;
      }
      const refused = await polluted;
      expect([refused instanceof UserError, refused.cause]).toEqual([true, boom]);
      // Compared as JSON.stringify writes them: an undefined item is null.
      expect(untouched.prepareHistoryItemsForPersistenceComparison([undefined, { role: "user", content: "x" }])).toEqual([null, { role: "user", content: "x" }]);
      // A role is named in the error, as a log keeps it: no key, no TypeError.
      const key = `sk-proj-${"L9YYy38iU4xjsATaY2TZ".repeat(2)}mRmmMpcwR`;
      for (const role of [key, Symbol("r")]) {
        const error = await untouched.addItems([{ role, content: "x" }]).catch((e) => e);
        expect(error).toBeInstanceOf(UserError);
        expect(error.message).not.toContain(key.slice(8));
      }
      expect(typeof (await session.getSessionId())).toBe("string");
    });

    it("stores text cut through an emoji with U+FFFD, deep tool arguments, and slices limits as MemorySession", async () => {
      const store = await backend().open();
      const session = new AttacheSession(store, { sessionId: "odd" });
      const reference = new MemorySession();
      let deep = "leaf";
      for (let i = 0; i < 140; i++) deep = { d: deep };
      const cut = (s) => `cut ${s} here, and \\ud800 as text`;
      const odd = [
        { role: "user", content: cut("🙂".slice(0, 1)) },
        functionCall("nest", deep, { callId: "call_9", id: "fc_9" }),
        assistantMessage("done", { id: "msg_9" }),
      ];
      for (const s of [session, reference]) await s.addItems(odd);
      const expected = await reference.getItems();
      expected[0] = { role: "user", content: cut("\ufffd") };
      expect(await session.getItems()).toEqual(expected);
      // MemorySession's slice, on what was stored.
      const last = (limit) => expected.slice(Math.max(expected.length - limit, 0));
      expect(await reference.getItems(1.5)).toHaveLength(2);
      for (const limit of [1.5, Infinity, NaN, 2]) expect(await session.getItems(limit)).toEqual(last(limit));
      const [first, call] = await store.loadMessages("odd");
      expect(first.content).toBe(cut("\ufffd"));
      // Arguments too deep for the store stay the call's, as their text.
      expect(call.content[0]).toMatchObject({ type: "tool_call", name: "nest", arguments: { text: odd[1].arguments } });
      // Escaped pairs in a model's tool arguments (Python's ensure_ascii) are emoji, kept.
      await session.addItems([functionCall("say", "{}", { callId: "call_e", id: "fc_e" })]);
      const pair = { ...functionCall("say", {}, { callId: "call_p", id: "fc_p" }), arguments: '{"t":"\\ud83d\\ude00"}' };
      await session.addItems([pair]);
      const stored = await store.loadMessages("odd");
      expect(stored.at(-1).content[0].arguments).toEqual({ t: "😀" });
      // A number JSON.parse makes Infinity (MemorySession stores the item): as text.
      const huge = { ...functionCall("calc", {}, { callId: "call_h", id: "fc_h" }), arguments: '{"base":10,"result":[-1E999]}' };
      await session.addItems([huge]);
      expect((await store.loadMessages("odd")).at(-1).content[0].arguments).toEqual({ text: huge.arguments });
      expect((await session.getItems()).at(-1)).toEqual(huge);
      await session.popItem();
      await session.popItem();
      await session.popItem();
      // The suffix the runner holds still has the surrogate; it matches.
      await session.applyHistoryTransaction({ operationId: "op-cut", transaction: { type: "replace_suffix", expectedSuffix: odd, replacement: [odd[2]] } });
      expect(await session.getItems()).toEqual([odd[2]]);
      // Two keys U+FFFD would make one: refused, as MemorySession keeps both.
      const twins = { role: "user", content: "x", providerData: { ["\ud800"]: "lone", "\ufffd": "kept" } };
      await expect(session.addItems([twins])).rejects.toThrow(UserError);
      const replace = { operationId: "op-twins", transaction: { type: "replace_suffix", expectedSuffix: [odd[2]], replacement: [twins] } };
      await expect(session.applyHistoryTransaction(replace)).rejects.toThrow(UserError);
      expect(await session.getItems()).toEqual([odd[2]]);
      // In a model's tool arguments, such keys stay the arguments' text.
      const args = '{"\\ud800":1,"\\ufffd":2}';
      await session.addItems([{ ...functionCall("twin", {}, { callId: "call_t", id: "fc_t" }), arguments: args }]);
      expect((await store.loadMessages("odd")).at(-1).content[0].arguments).toEqual({ text: args });
    });

    it("on a redacting store, a replace_suffix still matches the items the runner holds, secrets and all", async () => {
      const store = new MemorySessionStore({ credentials: "redact" });
      const session = new AttacheSession(store, { sessionId: "c" });
      const key = "sk-proj-" + "Zx9".repeat(16);
      const said = [{ role: "user", content: `deploy with ${key} then ${key} again` }, { role: "user", content: "password=hunter22 ok", providerData: { token: "abc", password: "hunter2" } }];
      await session.addItems(said);
      expect(JSON.stringify(await session.getItems())).not.toMatch(/Zx9Zx9|hunter2/);
      const other = [{ role: "user", content: `deploy WITH ${key} then ${key} again` }, said[1]];
      await expect(session.applyHistoryTransaction({ operationId: "no", transaction: { type: "replace_suffix", expectedSuffix: other, replacement: [] } }))
        .rejects.toThrow(/no longer matches/);
      await session.applyHistoryTransaction({ operationId: "yes", transaction: { type: "replace_suffix", expectedSuffix: said, replacement: [{ role: "user", content: "summary" }] } });
      expect(await session.getItems()).toEqual([{ role: "user", content: "summary" }]);
      store.free();
    });

    it("two replace_suffix on one suffix at once: one applies, the other is rejected", async () => {
      const opened = backend();
      const [s1, s2] = [new AttacheSession(await opened.open(), { sessionId: "race" }), new AttacheSession(await opened.open(), { sessionId: "race" })];
      const u = (text) => ({ role: "user", content: text });
      await s1.addItems([u("a"), u("b")]);
      const tx = (s, op, to) => s.applyHistoryTransaction({ operationId: op, transaction: { type: "replace_suffix", expectedSuffix: [u("b")], replacement: [u(to)] } });
      const results = await Promise.allSettled([tx(s1, "run-1", "X"), tx(s2, "run-2", "Y")]);
      expect(results.map((r) => r.status)).toEqual(["fulfilled", "rejected"]);
      expect(results[1].reason.message).toMatch(/no longer matches/);
      expect(await s2.getItems()).toEqual([u("a"), u("X")]);
    });

    it("on a redacting store, a credential field holding a list still matches its original", async () => {
      const store = new MemorySessionStore({ credentials: "redact" });
      const session = new AttacheSession(store, { sessionId: "list" });
      const item = { role: "user", content: "hi", providerData: { api_key: ["abc", "def"] } };
      await session.addItems([item]);
      await session.applyHistoryTransaction({ operationId: "op", transaction: { type: "replace_suffix", expectedSuffix: [item], replacement: [{ role: "user", content: "summary" }] } });
      expect(await session.getItems()).toEqual([{ role: "user", content: "summary" }]);
      store.free();
    });

    it("a number under a credential name stays a number, and the arguments stay JSON", async () => {
      const store = new MemorySessionStore({ credentials: "redact" });
      const session = new AttacheSession(store, { sessionId: "num" });
      await session.addItems([functionCall("login", { user: "ann", password: 12345678 }, { callId: "call_1" })]);
      const [stored] = await session.getItems();
      expect(JSON.parse(stored.arguments)).toEqual({ user: "ann", password: 12345678 });
      store.free();
    });

    it("a run stopped by an output guardrail resumes though the store changed what it kept", async () => {
      for (const [output, credentials] of [["cut \ud800 here", "refuse"], [`OPENAI_API_KEY=sk-proj-${"Zx9".repeat(16)}`, "redact"]]) {
        const store = new MemorySessionStore({ credentials });
        const session = new AttacheSession(store, { sessionId: "guard" });
        const t = tool({ name: "t", description: "t", parameters: z.object({}), execute: async () => output });
        let trip = true;
        const agent = new Agent({
          name: "a",
          tools: [t],
          model: new ScriptedModel([[functionCall("t", {}, { callId: "call_1" })], [assistantMessage("stopped")], [assistantMessage("unused")]]),
          outputGuardrails: [{ name: "g", execute: async () => ({ tripwireTriggered: trip, outputInfo: {} }) }],
        });
        const stopped = await run(agent, "do it", { session }).catch((e) => e);
        expect(stopped, credentials).toBeInstanceOf(OutputGuardrailTripwireTriggered);
        expect(stopped.state, credentials).toBeDefined();
        trip = false;
        const resumed = await run(agent, stopped.state, { session });
        expect(resumed.finalOutput, credentials).toBe("stopped");
        expect((await session.getItems()).map((i) => i.role ?? i.type), credentials).toEqual(["user", "function_call", "function_call_result", "assistant"]);
        store.free();
      }
    });

    it("the operation digest is taken as a redacting store keeps the transaction: no secret's bits", async () => {
      const store = new MemorySessionStore({ credentials: "redact" });
      const session = new AttacheSession(store, { sessionId: "d" });
      const said = (secret, text = "deploy") => ({ type: "append_items", items: [{ role: "user", content: `${text} with ${secret}` }] });
      await session.applyHistoryTransaction({ operationId: "op", transaction: said("sk-proj-" + "Zx9".repeat(16)) });
      // Another key in the same place: the same transaction as stored, so
      // the record cannot tell a guess at the key from the key.
      await session.applyHistoryTransaction({ operationId: "op", transaction: said("sk-proj-" + "Qv7".repeat(16)) });
      await expect(session.applyHistoryTransaction({ operationId: "op", transaction: said("sk-proj-" + "Qv7".repeat(16), "delete") }))
        .rejects.toThrow(/different transaction/);
      const record = await store.loadSessionState("d", "agents/op/op");
      expect(record.digest).toMatch(/^r1\./);
      expect(await session.getItems()).toHaveLength(1);
      store.free();
    });

    it("JSON text in a call's arguments or a tool's output is read by the guard, in both modes", async () => {
      const call = { type: "function_call", callId: "c1", name: "login", arguments: '{"user":"ann","password":"hunter2"}', status: "completed" };
      const output = { type: "function_call_result", callId: "c1", name: "env", status: "completed",
        output: { type: "text", text: JSON.stringify([{ name: "DB_PASSWORD", value: "Tr0ub4dor&3xx" }]) } };
      const refusing = new AttacheSession(await backend().open(), { sessionId: "f" });
      for (const item of [call, output]) {
        await expect(refusing.addItems([item])).rejects.toMatchObject({ code: "CREDENTIAL" });
      }
      const store = new MemorySessionStore({ credentials: "redact" });
      const redacting = new AttacheSession(store, { sessionId: "g" });
      await redacting.addItems([call, output]);
      const stored = await redacting.getItems();
      expect(JSON.stringify(stored)).not.toMatch(/hunter2|Tr0ub4dor/);
      expect(JSON.parse(stored[0].arguments)).toEqual({ user: "ann", password: "[REDACTED:credential_field]" });
      expect(JSON.parse(stored[1].output.text)[0].name).toBe("DB_PASSWORD");
      store.free();
    });

    it("a key split across text parts, or that only parsed arguments show, is refused, or redacted in what getItems gives back", async () => {
      const key = "sk-proj-" + "Zx9".repeat(16);
      const [head, tail] = [key.slice(0, 12), key.slice(12)];
      // A non-ASCII password as Python's json.dumps writes it by default.
      const secret = "Grüße-Passwort-Zq81Lm";
      const escaped = JSON.stringify({ pw: secret }).replace(/[^\x00-\x7f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
      const parts = (type) => [{ type, text: `Your key: ${head}` }, { type, text: tail }];
      const result = (output) => ({ type: "function_call_result", callId: "c1", name: "login", status: "completed", output });
      // As PHP writes a URL: every / escaped.
      const hook = JSON.stringify({ url: "https://hooks.slack.com/services/T0123ABCD/B0123ABCD/abcdefghijklmnopqrstuvwx" }).replaceAll("/", "\\/");
      const b64 = (text) => `data:text/plain;base64,${Buffer.from(text).toString("base64")}`;
      const call = (args) => ({ type: "function_call", callId: "c2", name: "f", arguments: args, status: "completed" });
      const leaky = [
        { type: "message", role: "assistant", status: "completed", id: "m1", content: parts("output_text") },
        { role: "user", content: [{ type: "input_text", text: "my password=" }, { type: "input_text", text: "hunter22xyz" }] },
        { type: "reasoning", content: parts("input_text") },
        result(parts("input_text")),
        { type: "function_call", callId: "c1", name: "login", arguments: escaped, status: "completed" },
        call(hook),
        { role: "user", content: [{ type: "input_text", text: `key: ${head}` }, { type: "input_text", text: b64(tail) }] },
        // Cut where the first piece is a key on its own: the rest must not stay.
        { role: "user", content: [{ type: "input_text", text: `Key: ${key.slice(0, 36)}` }, { type: "input_text", text: key.slice(36) }] },
        call(JSON.stringify({ v: key }).replace("Zx9Zx9Zx9Zx9Zx9Zx9Zx9Zx9Zx9Zx", (s) => `${s.slice(0, -1)}\\u0078`)),
        // A name and its value side by side, which only the parsed arguments show.
        call(JSON.stringify({ value: "hunter22xyz", name: "DB_PASSWORD" })),
        // A tool's output, read as text: escapes hide a secret, a hook, a key's tail.
        result(escaped),
        result({ type: "text", text: escaped }),
        result([{ type: "input_text", text: `result: ${escaped}` }]),
        result(hook),
        // JSON inside JSON (a body a tool passed on); a line a lone \r ends.
        result(JSON.stringify({ status: 200, body: hook })),
        result(`Fetching "config.json\r${hook}`),
        result(JSON.stringify({ v: key }).replace("Zx9Zx9Zx9Zx9Zx9Zx9Zx9Zx9Zx9Zx", (s) => `${s.slice(0, -1)}\\u0078`)),
        // Arguments nested past 100 levels, kept as text.
        call(`${"[".repeat(101)}"Gr\\u00fc\\u00dfe-Passwort-Zq81Lm"${"]".repeat(101)}`),
      ];
      registerSecret(secret);
      try {
        const refusing = new AttacheSession(await backend().open(), { sessionId: "split" });
        for (const item of leaky) await expect(refusing.addItems([item]), JSON.stringify(item)).rejects.toMatchObject({ code: "CREDENTIAL" });
        const store = new MemorySessionStore({ credentials: "redact" });
        const redacting = new AttacheSession(store, { sessionId: "split" });
        await redacting.addItems(leaky);
        await redacting.applyHistoryTransaction({ operationId: "op", transaction: { type: "append_items", items: leaky } });
        const kept = JSON.stringify([await redacting.getItems(), await store.exportSession("split")]);
        expect(kept).not.toMatch(/x9Zx9|hunter22|Passwort|abcdefghijklmnop/);
        const items = await redacting.getItems();
        expect(items.map((i) => i.type ?? i.role)).toEqual([...leaky, ...leaky].map((i) => i.type ?? i.role));
        expect(items[0].content.map((p) => p.text)).toEqual(["Your key: [REDACTED:openai_key]", ""]);
        expect(JSON.parse(items[4].arguments)).toEqual({ pw: "[REDACTED:host_secret]" });
        // A replace_suffix of the items as the runner holds them still matches.
        await redacting.applyHistoryTransaction({ operationId: "op2", transaction: { type: "replace_suffix", expectedSuffix: leaky, replacement: [] } });
        expect(await redacting.getItems()).toHaveLength(leaky.length);
        store.free();
      } finally {
        forgetSecrets();
      }
    });

    it("an item JSON cannot write, with lone surrogates in two parts, gets the store's typed error", async () => {
      const session = new AttacheSession(await backend().open(), { sessionId: "odd" });
      const item = { role: "user", content: [{ type: "input_text", text: "a\ud800" }, { type: "input_text", text: "b\ud800" }], providerData: { n: 1n } };
      await expect(session.addItems([item])).rejects.toMatchObject({ code: "INVALID_VALUE" });
    });

    it("an item whose credential the store sees as given keeps every other byte, escapes and all", async () => {
      const key = "sk-proj-" + "Zx9".repeat(16);
      const args = `{ "v": "${key}", "id": 12345678901234567890, "price": 1.50, "note": "caf\\u00e9", "2": "b", "1": "a" }`;
      const keyed = `{"${key}": true, "note": "caf\\u00e9"}`;
      const given = [
        { type: "function_call", callId: "c1", name: "f", arguments: args, status: "completed" },
        { type: "message", role: "assistant", status: "completed", id: "m1", content: [{ type: "output_text", text: `Key: ${key} ` }, { type: "output_text", text: "Next, restart the server." }] },
        { type: "function_call_result", callId: "c1", name: "f", status: "completed", output: keyed },
      ];
      const refusing = new AttacheSession(await backend().open(), { sessionId: "seen" });
      for (const item of given) await expect(refusing.addItems([item])).rejects.toMatchObject({ code: "CREDENTIAL" });
      const store = new MemorySessionStore({ credentials: "redact" });
      const redacting = new AttacheSession(store, { sessionId: "seen" });
      await redacting.addItems(given);
      const marked = (text) => text.replace(/\[REDACTED:[a-z_]+\]/g, "K");
      const [call, said, output] = await redacting.getItems();
      expect(marked(call.arguments)).toBe(args.replace(key, "K"));
      expect(said.content.map((p) => marked(p.text))).toEqual(["Key: K ", "Next, restart the server."]);
      expect(marked(output.output)).toBe(keyed.replace(key, "K"));
      store.free();
    });

    it("a text file sent as base64 is read by the guard, in both modes, and any other comes back exactly", async () => {
      const key = "sk-proj-" + "Zx9".repeat(16);
      const b64 = (text) => Buffer.from(text).toString("base64");
      const decoded = (url) => Buffer.from(url.slice(url.indexOf(",") + 1), "base64").toString();
      const env = `OPENAI_API_KEY=${key}\n`;
      // As the runner stores a user's .env and a tool's file bytes.
      const said = { role: "user", content: [{ type: "input_text", text: "check" }, { type: "input_file", file: `data:text/plain;base64,${b64(env)}`, filename: ".env" }] };
      const result = { type: "function_call_result", callId: "c1", name: "read", status: "completed",
        output: [{ type: "input_file", file: `data:application/octet-stream;base64,${b64(env)}`, filename: ".env" }] };
      // A tool's output that is the URL itself: its neutral form is the text.
      const bare = { type: "function_call_result", callId: "c2", name: "read", status: "completed", output: `data:text/plain;base64,${b64(env)}` };
      const refusing = new AttacheSession(await backend().open(), { sessionId: "b" });
      for (const item of [said, result, bare]) await expect(refusing.addItems([item])).rejects.toMatchObject({ code: "CREDENTIAL" });
      // Text longer as JSON than as base64, as such files are: short quoted
      // fields, tabs, CRLF, a log's colours.
      for (const [type, lines] of [["text/csv", '"a","b","c","d"\n'], ["text/tab-separated-values", "a\tb\tc\td\n"],
        ["text/plain", "A=1\r\n"], ["text/plain", "\x1b[32mok\x1b[0m\n"]]) {
        const text = lines.repeat(200) + `key ${key}\n`;
        expect(JSON.stringify(text).length).toBeGreaterThan(b64(text).length);
        const file = { role: "user", content: [{ type: "input_file", file: `data:${type};base64,${b64(text)}` }] };
        await expect(refusing.addItems([file])).rejects.toMatchObject({ code: "CREDENTIAL" });
      }
      // A URL's scheme and `base64` in any case, an SVG, a host's `role`.
      for (const url of [`DATA:text/plain;BASE64,${b64(env)}`, `data:image/svg+xml;base64,${b64(`<svg><!-- ${env} --></svg>`)}`]) {
        await expect(refusing.addItems([{ role: "user", content: [{ type: "input_file", file: url }] }])).rejects.toMatchObject({ code: "CREDENTIAL" });
      }
      await expect(refusing.addItems([{ role: "user", content: "hi", providerData: { role: `data:text/plain;base64,${b64(env)}` } }])).rejects.toMatchObject({ code: "CREDENTIAL" });
      // What JSON leaves out or reads once is not walked: a file beside it is read.
      const envFile = () => [{ type: "input_file", file: `data:text/plain;base64,${b64(env)}` }];
      const extra = envFile();
      Object.defineProperty(extra, "x", { enumerable: true, get() { throw new RangeError("host"); } });
      const deepExtra = envFile();
      deepExtra.x = { deep: {} };
      for (let i = 0, at = deepExtra.x.deep; i < 20000; i++, at = at.deep) at.deep = {};
      let reads = 0;
      for (const item of [{ role: "user", content: extra }, { role: "user", content: deepExtra },
        { role: "user", content: envFile(), providerData: { toJSON: () => ({}), get boom() { throw new RangeError("host"); } } },
        { role: "user", get content() { if (reads++) throw new RangeError("read twice"); return envFile(); } }]) {
        await expect(refusing.addItems([item])).rejects.toMatchObject({ code: "CREDENTIAL" });
      }
      // Beside a file, what the store refuses is refused as without one,
      // not changed by JSON; a URL object is its href, and the file read.
      const clean = [{ type: "input_file", file: `data:text/plain;base64,${b64("hello\n")}` }];
      for (const v of [new Date(0), Infinity, [1, , 3], [1, undefined], new Map(), new Uint8Array([1]), new String("s"), new (class Point { x = 1; })(), () => 1,
        { toJSON: () => new Date(0) }, { toJSON: () => () => 1 }]) {
        const alone = await refusing.addItems([{ role: "user", content: "hi", providerData: { v } }]).then(() => "stored", (error) => error.code);
        expect(alone).toMatch(/^[A-Z_]+$/);
        await expect(refusing.addItems([{ role: "user", content: clean, providerData: { v } }])).rejects.toMatchObject({ code: alone });
      }
      // A URL is its href whatever its toJSON, and a toJSON's URL too.
      const odd = new URL("https://example.com/");
      odd.toJSON = () => undefined;
      for (const at of [new URL("https://example.com/"), odd]) {
        await expect(refusing.addItems([{ role: "user", content: envFile(), providerData: { at } }])).rejects.toMatchObject({ code: "CREDENTIAL" });
      }
      const viaToJson = { toJSON: () => new URL(envFile()[0].file) };
      await expect(refusing.addItems([{ role: "user", content: "hi", providerData: viaToJson }])).rejects.toMatchObject({ code: "CREDENTIAL" });
      // What no walk can read is the store's typed error, as without files.
      const cyclic = { role: "user", content: "x" };
      cyclic.self = cyclic;
      let deep = "x";
      for (let i = 0; i < 20000; i++) deep = { deep };
      const throwing = { role: "user", content: "x", get providerData() { throw new RangeError("host"); } };
      for (const item of [cyclic, { role: "user", content: "x", providerData: deep }, throwing]) {
        const refused = await refusing.addItems([item]).then(() => undefined, (error) => error);
        expect(refused?.code, String(refused)).toMatch(/^[A-Z_]+$/);
      }
      // What the neutral form reads, throwing: a UserError, the host's error its cause.
      const host = new RangeError("host");
      for (const method of ["addItems", "replaceHistoryWithCompaction"]) {
        const refused = await refusing[method]([{ role: "user", get content() { throw host; } }]).then(() => undefined, (error) => error);
        expect(refused).toBeInstanceOf(UserError);
        expect(refused.cause).toBe(host);
      }
      expect(await refusing.getItems()).toEqual([]);
      const store = new MemorySessionStore({ credentials: "redact" });
      const redacting = new AttacheSession(store, { sessionId: "b" });
      await redacting.addItems([said, result, bare]);
      const [user, tool, text] = await redacting.getItems();
      expect(decoded(user.content[1].file)).toMatch(/^OPENAI_API_KEY=\[REDACTED:\w+\]\n$/);
      expect(decoded(tool.output[0].file)).toBe(decoded(user.content[1].file));
      expect(decoded(text.output)).toBe(decoded(user.content[1].file));
      expect((await store.loadMessages("b"))[2].content[0].content).toBe(decoded(user.content[1].file));
      const exported = JSON.stringify(await store.exportSession("b"));
      expect(exported).not.toContain(b64(key).slice(0, 20));
      expect(exported).not.toContain(key);
      // The runner's comparison matches what was kept.
      expect(redacting.prepareHistoryItemsForPersistenceComparison([said, result, bare])).toEqual(redacting.prepareHistoryItemsForPersistenceComparison([user, tool, text]));
      await redacting.applyHistoryTransaction({ operationId: "op", transaction: { type: "replace_suffix", expectedSuffix: [said, result, bare], replacement: [] } });
      expect(await redacting.getItems()).toEqual([]);
      store.free();
      // Without a credential, every file comes back as given: text (with a
      // BOM, a __proto__ key beside it), base64 this would not write
      // (unpadded), bytes that are not UTF-8, UTF-8 longer as JSON than as
      // base64 (a tar's NUL padding), an image.
      const kept = { role: "user", content: [
        { type: "input_file", file: `data:text/markdown;charset=utf-8;base64,${b64("\ufeff# notes ✓")}`, filename: "a.md" },
        { type: "input_file", file: `data:text/plain;base64,${b64("ab").replace(/=+$/, "")}` },
        { type: "input_file", file: `data:application/pdf;base64,${Buffer.from([0x25, 0xff, 0xfe, 0x00]).toString("base64")}` },
        { type: "input_file", file: `data:application/x-tar;base64,${b64("notes.md" + "\0".repeat(100))}` },
        { type: "input_image", image: `data:image/png;base64,${b64("not checked")}` },
      ], providerData: JSON.parse(`{"__proto__": "data:;base64,${b64("x=1")}"}`) };
      // A type is read as given, not as a file's text.
      const typed = { type: `data:text/plain;base64,${b64("message")}`, id: "t" };
      // A large file longer as JSON than as base64 grows no item: as given.
      const log = { role: "user", content: [{ type: "input_file", file: `data:text/plain;base64,${b64("\x1b[32mok\x1b[0m\n".repeat(400000))}` }] };
      const plain = await backend().open();
      const session = new AttacheSession(plain, { sessionId: "k" });
      await session.addItems([kept, typed, log]);
      expect(JSON.stringify(await session.getItems())).toBe(JSON.stringify([kept, typed, log]));
      expect((await plain.loadMessages("k"))[2].meta.files).toBeUndefined();
      expect((await plain.loadMessages("k"))[0].meta.files.map((f) => f.at)).toEqual([["content", 0, "file"], ["providerData", "__proto__"]]);
    });

    it("a redacting store keeps a cut item readable and its secret out", async () => {
      const store = new MemorySessionStore({ credentials: "redact" });
      const session = new AttacheSession(store, { sessionId: "r" });
      await session.addItems([{ role: "user", content: `run "password=hunter22" ${"🙂".slice(0, 1)}`, providerData: { password: "hunter2" } }]);
      const [item] = await session.getItems();
      expect(JSON.stringify(item)).not.toMatch(/hunter2/);
      expect(item.content).toMatch(/\[REDACTED:/);
      store.free();
    });

    it("a message stored without its item comes back as a well-formed message item", async () => {
      const store = await backend().open();
      const { id } = await store.createSession();
      await store.appendMessages(id, [
        { role: "system", content: "be brief" },
        { role: "user", content: "hi" },
        { role: "assistant", content: [{ type: "text", text: "hello" }] },
      ]);
      const got = await new AttacheSession(store, { sessionId: id }).getItems();
      expect(got).toEqual([
        { type: "message", role: "system", content: "be brief" },
        { type: "message", role: "user", content: "hi" },
        { type: "message", role: "assistant", status: "completed", content: [{ type: "output_text", text: "hello" }] },
      ]);
    });

    it("a host's own meta.item is not taken for an agent item", async () => {
      const store = await backend().open();
      const { id } = await store.createSession();
      await store.appendMessages(id, [
        { role: "user", content: "host note", meta: { item: "sku-42" } },
        { role: "assistant", content: "priced", meta: { item: { sku: 42, price: 3 } } },
        { role: "user", content: "ok", meta: { item: { type: "message", role: "assistant", content: "x" } } },
        { role: "user", content: "which lamp?", meta: { item: { role: "user", name: "Ada" } } },
        { role: "assistant", content: "this one", meta: { item: { type: "product", sku: 42 } } },
        { role: "tool", content: [{ type: "tool_result", callId: "c", content: "r" }], meta: { item: { type: "function_call_result" } } },
      ]);
      const session = new AttacheSession(store, { sessionId: id });
      expect(await session.getItems()).toEqual([
        { type: "message", role: "user", content: "host note" },
        { type: "message", role: "assistant", status: "completed", content: [{ type: "output_text", text: "priced" }] },
        { type: "message", role: "user", content: "ok" },
        { type: "message", role: "user", content: "which lamp?" },
        { type: "message", role: "assistant", status: "completed", content: [{ type: "output_text", text: "this one" }] },
        { type: "message", role: "user", content: "r" },
      ]);
      await session.popItem();
      await session.popItem();
      await session.popItem();
      // A sessionId on Object.prototype (another library's) is no option;
      // one from a class is.
      Object.prototype.sessionId = id;
      try {
        expect(await new AttacheSession(store, {}).getSessionId()).not.toBe(id);
      } finally {
        delete Object.prototype.sessionId;
      }
      class Options { get sessionId() { return id; } }
      expect(await new AttacheSession(store, new Options()).getSessionId()).toBe(id);
      // Nor from another realm's Object.prototype; and a Proxy whose
      // prototype loops, or whose trap throws, is no sessionId.
      const realm = vm.createContext();
      vm.runInContext(`Object.prototype.sessionId = ${JSON.stringify(id)}`, realm);
      expect(await new AttacheSession(store, vm.runInContext("({})", realm)).getSessionId()).not.toBe(id);
      const loop = new Proxy({}, { getPrototypeOf: () => loop });
      const trap = new Proxy({}, { getPrototypeOf() { throw new Error("trap"); } });
      for (const options of [loop, trap]) expect(await new AttacheSession(store, options).getSessionId()).not.toBe(id);
      // A typo, MemorySession's initialItems or a bare id would start a new,
      // empty session at each load: refused, naming what was wrong.
      expect(() => new AttacheSession(store, { sessionID: id })).toThrow(/no option "sessionID"/);
      expect(() => new AttacheSession(store, { sessionId: id, initialItems: [] })).toThrow(/"initialItems".*addItems/);
      for (const options of [id, [id], 7]) expect(() => new AttacheSession(store, options)).toThrow(TypeError);
      for (const none of [undefined, null]) expect(await new AttacheSession(store, none).getSessionId()).not.toBe(id);
      // An item the adapter stored still comes back exactly.
      const item = { type: "message", role: "user", content: "asked", providerData: { k: 1 } };
      await session.addItems([item]);
      expect((await session.getItems()).at(-1)).toEqual(item);
      expect(await session.popItem()).toEqual(item);
      expect(await session.popItem()).toEqual({ type: "message", role: "user", content: "ok" });
    });

    // What commitTurn stores from fromOpenAI's or fromAnthropic's output:
    // calls, results, reasoning and images, with no item in meta.
    const neutral = [
      { role: "user", content: [{ type: "text", text: "look" }, { type: "image", url: "https://x.test/a.png" }] },
      { role: "assistant", content: [
        { type: "thinking", thinking: "two tools", signature: "SIG" },
        { type: "text", text: "checking" },
        { type: "tool_call", id: "c1", name: "weather", arguments: { city: "Oslo" } },
        { type: "tool_call", id: "c2", name: "clock", arguments: {} },
      ] },
      { role: "tool", content: [{ type: "tool_result", callId: "c1", content: "3°C" }] },
      { role: "tool", content: [{ type: "tool_result", callId: "c2", content: [{ type: "text", text: "noon" }, { type: "image", data: "R0lG", mediaType: "image/gif" }] }] },
      { role: "tool", content: [{ type: "tool_result", callId: "gone", content: "orphan" }] },
    ];
    const neutralItems = [
      { type: "message", role: "user", content: [{ type: "input_text", text: "look" }, { type: "input_image", image: "https://x.test/a.png" }] },
      { type: "message", role: "assistant", status: "completed", content: [{ type: "output_text", text: "checking" }] },
      { type: "function_call", callId: "c1", name: "weather", status: "completed", arguments: '{"city":"Oslo"}' },
      { type: "function_call", callId: "c2", name: "clock", status: "completed", arguments: "{}" },
      { type: "function_call_result", callId: "c1", name: "weather", status: "completed", output: "3°C" },
      { type: "function_call_result", callId: "c2", name: "clock", status: "completed", output: [{ type: "input_text", text: "noon" }, { type: "input_image", image: "data:image/gif;base64,R0lG" }] },
      // A result whose call the history lacks has no item: user text.
      { type: "message", role: "user", content: "orphan" },
    ];

    it("a message stored without its item gives its calls, results and images as items, and keeps the rest on a pop", async () => {
      const store = await backend().open();
      const { id } = await store.createSession();
      await store.appendMessages(id, neutral);
      const session = new AttacheSession(store, { sessionId: id });
      const got = await session.getItems();
      expect(got).toEqual(neutralItems);
      for (const item of got) protocol.ModelItem.parse(item);
      // `limit` counts items; a result reads its tool's name from a call before the window.
      expect(await session.getItems(3)).toEqual(neutralItems.slice(-3));
      expect(await session.getItems(5)).toEqual(neutralItems.slice(-5));

      // A pop takes one item; the earlier parts of its message stay as they
      // were (thinking, with its signature, goes with the item after it).
      await store.popMessage(id);
      await store.popMessage(id);
      await store.popMessage(id);
      expect(await session.popItem()).toEqual(neutralItems[3]);
      expect(await session.getItems()).toEqual(neutralItems.slice(0, 3));
      expect(await store.loadMessages(id)).toEqual([neutral[0], { ...neutral[1], content: neutral[1].content.slice(0, 3) }]);
      expect(await session.popItem()).toEqual(neutralItems[2]);
      expect(await session.popItem()).toEqual(neutralItems[1]);
      expect(await store.loadMessages(id)).toEqual([neutral[0]]);
      expect(await session.popItem()).toEqual(neutralItems[0]);
      expect(await session.popItem()).toBeUndefined();
      store.free();
    });

    it("getItems(limit) reads the whole history again only for a result it returns with no call", async () => {
      const store = await backend().open();
      const { id } = await store.createSession();
      await store.appendMessages(id, [
        { role: "user", content: "first" },
        neutral[4],
        { role: "assistant", content: [{ type: "text", text: "checking" }, { type: "tool_call", id: "c1", name: "weather", arguments: { city: "Oslo" } }] },
      ]);
      const { store: watched, calls } = counted(store);
      const session = new AttacheSession(watched, { sessionId: id });
      await session.getSessionId();
      calls.length = 0;
      // The last two messages hold three items; the orphan is not among the last two.
      expect(await session.getItems(2)).toEqual(neutralItems.slice(1, 3));
      expect(calls).toEqual(["loadMessages"]);
      calls.length = 0;
      // Three messages are all there is, but the store cannot say so: read again.
      expect((await session.getItems(3))[0]).toEqual(neutralItems[6]);
      expect(calls).toEqual(["loadMessages", "loadMessages"]);
      store.free();
    });

    it("thinking between two texts stays with them when the call after them is popped", async () => {
      const store = await backend().open();
      const { id } = await store.createSession();
      const message = { role: "assistant", content: [
        { type: "text", text: "A" },
        { type: "thinking", thinking: "t", signature: "S" },
        { type: "text", text: "B" },
        { type: "tool_call", id: "c1", name: "n", arguments: {} },
      ] };
      await store.appendMessages(id, [message]);
      const session = new AttacheSession(store, { sessionId: id });
      expect((await session.popItem()).type).toBe("function_call");
      expect(await store.loadMessages(id)).toEqual([{ ...message, content: message.content.slice(0, 3) }]);
      expect(await session.getItems()).toEqual([
        { type: "message", role: "assistant", status: "completed", content: [{ type: "output_text", text: "A" }, { type: "output_text", text: "B" }] },
      ]);
      store.free();
    });

    it("a result is named by the nearest call before it, and one before any call is user text", async () => {
      const store = await backend().open();
      const { id } = await store.createSession();
      const call = (name) => ({ role: "assistant", content: [{ type: "tool_call", id: "call_0", name, arguments: {} }] });
      const result = (text) => ({ role: "tool", content: [{ type: "tool_result", callId: "call_0", content: text }] });
      await store.appendMessages(id, [result("early"), call("weather"), result("3°C"), call("clock"), result("noon")]);
      const session = new AttacheSession(store, { sessionId: id });
      const named = (name, output) => ({ type: "function_call_result", callId: "call_0", name, status: "completed", output });
      const fc = (name) => ({ type: "function_call", callId: "call_0", name, status: "completed", arguments: "{}" });
      const all = [{ type: "message", role: "user", content: "early" }, fc("weather"), named("weather", "3°C"), fc("clock"), named("clock", "noon")];
      expect(await session.getItems()).toEqual(all);
      for (let n = 1; n <= all.length; n++) expect(await session.getItems(n)).toEqual(all.slice(-n));
      store.free();
    });

    it("a run() sends a history stored without items as the calls and results it holds", async () => {
      const store = await backend().open();
      const { id } = await store.createSession();
      await store.appendMessages(id, [
        { role: "user", content: "Weather in Oslo?" },
        { role: "assistant", content: [{ type: "tool_call", id: "c1", name: "weather", arguments: { city: "Oslo" } }] },
        { role: "tool", content: [{ type: "tool_result", callId: "c1", content: "3°C" }] },
        { role: "assistant", content: "It is 3°C." },
      ]);
      const model = new ScriptedModel([[assistantMessage("Oslo.")]]);
      const agent = new Agent({ name: "a", model });
      const answer = await run(agent, "Which city?", { session: new AttacheSession(store, { sessionId: id }) });
      expect(answer.finalOutput).toBe("Oslo.");
      const input = model.lastCall.request.input;
      expect(input.find((i) => i.type === "function_call")).toMatchObject({ callId: "c1", name: "weather", arguments: '{"city":"Oslo"}' });
      expect(input.find((i) => i.type === "function_call_result")).toMatchObject({ callId: "c1", name: "weather", output: "3°C" });
      store.free();
    });

    it("an append replayed after its session moved from a redacting store into a refusing one does nothing", async () => {
      const key = "sk-proj-" + "Ab3dE5gH7jK9mN1pQ3sT5vX7zB9cD1fG";
      const redacting = new MemorySessionStore({ credentials: "redact" });
      const source = new AttacheSession(redacting, { sessionId: "moved" });
      const append = { operationId: "op-1", transaction: { type: "append_items", items: [{ role: "user", content: `my key is ${key}` }] } };
      await source.applyHistoryTransaction(append);
      const refusing = await backend().open();
      await refusing.importSession(JSON.parse(JSON.stringify(await redacting.exportSession("moved"))));
      const moved = new AttacheSession(refusing, { sessionId: "moved" });
      const before = await moved.getItems();
      await moved.applyHistoryTransaction(append);
      expect(await moved.getItems()).toEqual(before);
      // A new operation holding the key is still refused.
      await expect(moved.applyHistoryTransaction({ ...append, operationId: "op-2" })).rejects.toMatchObject({ code: "CREDENTIAL" });
      redacting.free();
      refusing.free();
    });

    it("an operation id holding a lone surrogate is a UserError, and nothing is stored", async () => {
      const store = await backend().open();
      const session = new AttacheSession(store);
      const append = { operationId: "a\ud800", transaction: { type: "append_items", items: [{ role: "user", content: "x" }] } };
      await expect(session.applyHistoryTransaction(append)).rejects.toBeInstanceOf(UserError);
      // Nor one holding a credential (URI-encoded in its key, the guard
      // would not see it), or too long for a key.
      const dsn = "postgres://admin:S3cr3tP4ssw0rd@db.example.com/app";
      await expect(session.applyHistoryTransaction({ ...append, operationId: dsn })).rejects.toThrow(new UserError("Session history transaction operationId holds what looks like a credential (url_password): it cannot name a key."));
      await expect(session.applyHistoryTransaction({ ...append, operationId: "é".repeat(1400) })).rejects.toThrow(/longer than 4086/);
      // Items nested past what the guard reads: refused before the session is made.
      let deep = "x";
      for (let i = 0; i < 140; i++) deep = { a: deep };
      const nested = { type: "append_items", items: [{ role: "user", content: "x", providerData: deep }] };
      await expect(session.applyHistoryTransaction({ operationId: "deep", transaction: nested })).rejects.toThrow(/^Session history transaction items cannot be stored/);
      expect(await store.listSessions()).toEqual([]);
    });

    it("a suffix may start inside a message stored without its item", async () => {
      const store = await backend().open();
      const { id } = await store.createSession();
      await store.appendMessages(id, neutral.slice(0, 2));
      const session = new AttacheSession(store, { sessionId: id });
      const replacement = [assistantMessage("asked nothing", { id: "m2" })];
      await session.applyHistoryTransaction({
        operationId: "mid",
        transaction: { type: "replace_suffix", expectedSuffix: neutralItems.slice(2, 4), replacement },
      });
      expect(await session.getItems()).toEqual([...neutralItems.slice(0, 2), ...replacement]);
      // What stays of the message is its parts before the suffix, as stored.
      expect((await store.loadMessages(id))[1]).toEqual({ ...neutral[1], content: neutral[1].content.slice(0, 2) });
      store.free();
    });

    it("applies a history transaction once per operation id, and a stale suffix not at all", async () => {
      const store = await backend().open();
      const session = new AttacheSession(store);
      const id = await session.getSessionId();
      const append = { operationId: "op-1", transaction: { type: "append_items", items: items.slice(0, 2) } };
      await session.applyHistoryTransaction(append);
      await session.applyHistoryTransaction(append);
      expect(await session.getItems()).toEqual(items.slice(0, 2));

      const other = { operationId: "op-1", transaction: { type: "append_items", items: items.slice(2, 3) } };
      await expect(session.applyHistoryTransaction(other)).rejects.toThrow(/different transaction/);
      const stale = { operationId: "op-2", transaction: { type: "replace_suffix", expectedSuffix: items.slice(2, 3), replacement: [] } };
      await expect(session.applyHistoryTransaction(stale)).rejects.toThrow(/no longer matches/);
      expect(await session.getItems()).toEqual(items.slice(0, 2));

      const replace = { operationId: "op-3", transaction: { type: "replace_suffix", expectedSuffix: items.slice(1, 2), replacement: items.slice(4, 6) } };
      await session.applyHistoryTransaction(replace);
      // A second session on the same store (a reloaded page) sees op-3 applied.
      await new AttacheSession(store, { sessionId: id }).applyHistoryTransaction(replace);
      expect(await session.getItems()).toEqual([items[0], items[4], items[5]]);
      await expect(session.applyHistoryTransaction({ operationId: " ", transaction: append.transaction })).rejects.toThrow(/operationId/);
    });

    it("clearSession forgets the applied operation ids, as MemorySession does, and no other state", async () => {
      const store = await backend().open();
      const session = new AttacheSession(store, { sessionId: "cleared" });
      const reference = new MemorySession();
      const append = { operationId: "op-1", transaction: { type: "append_items", items: items.slice(0, 1) } };
      await store.createSession({ id: "cleared" });
      await store.saveSessionState("cleared", "plan", { step: 1 });
      for (const s of [session, reference]) {
        await s.applyHistoryTransaction(append);
        await s.applyHistoryTransaction({ operationId: "op-2", transaction: { type: "append_items", items: items.slice(1, 2) } });
        await s.clearSession();
        await s.applyHistoryTransaction(append);
      }
      expect(await session.getItems()).toEqual(items.slice(0, 1));
      expect(await session.getItems()).toEqual(await reference.getItems());
      expect(await store.listSessionStateKeys("cleared")).toEqual(["agents/op/op-1", "plan"]);
    });

    it("clearSession keeps an operation another tab applies while it clears, with its history", async () => {
      const store = await backend().open();
      // Another tab, with no Web Lock to wait for, appends as the clear lands.
      const racing = new Proxy(store, {
        get(target, name) {
          if (name !== "clearMessages") return Reflect.get(target, name).bind(target);
          return async (id) => {
            await target.clearMessages(id);
            await target.commitTurn(id, { messages: [{ role: "user", content: "late" }], state: { "agents/op/late": { type: "append_items", digest: "d" } } });
          };
        },
      });
      const session = new AttacheSession(racing, { sessionId: "raced" });
      await session.applyHistoryTransaction({ operationId: "early", transaction: { type: "append_items", items: items.slice(0, 1) } });
      await session.clearSession();
      expect(await store.listSessionStateKeys("raced")).toEqual(["agents/op/late"]);
      expect((await store.loadMessages("raced")).map((m) => m.content)).toEqual(["late"]);
    });

    it("keeps the newest 1,000 operation ids: one a turn would otherwise pile up for the session's life", async () => {
      const store = await backend().open();
      const { id } = await store.createSession({ id: "ops" });
      const seeded = Object.fromEntries(Array.from({ length: 1050 }, (_, i) => [`agents/op/seed-${i}`, { type: "append_items", digest: "d", at: 1000 + i }]));
      // Stamped by a clock a day ahead (another device's, imported): older
      // than what is written now, whatever they say.
      for (let i = 0; i < 60; i++) seeded[`agents/op/ahead-${i}`] = { type: "append_items", digest: "d", at: Date.now() + 86400000 };
      seeded["agents/op/legacy"] = { transaction: { type: "append_items", items: [] } };
      await store.commitTurn(id, { state: seeded });
      const session = new AttacheSession(store, { sessionId: id });
      const transaction = { type: "append_items", items: items.slice(0, 1) };
      await session.applyHistoryTransaction({ operationId: "new", transaction });
      const keys = await store.listSessionStateKeys(id, { prefix: "agents/op/" });
      expect(keys).toHaveLength(1000);
      // The oldest went: those with no time or one ahead of now first, then by time.
      expect(keys.filter((key) => /^agents\/op\/(legacy|ahead-.*|seed-([0-9]|[1-4][0-9]|50))$/.test(key))).toEqual([]);
      expect(keys).toEqual(expect.arrayContaining(["agents/op/seed-51", "agents/op/new"]));
      // An id applied while the clock ran an hour ahead, then set right: it
      // looks the oldest, but this instance applied it, and keeps it.
      const now = Date.now;
      const ahead = vi.spyOn(Date, "now").mockImplementation(() => now() + 3600000);
      try {
        await session.applyHistoryTransaction({ operationId: "stepped", transaction: { type: "append_items", items: [] } });
      } finally {
        ahead.mockRestore();
      }
      await store.commitTurn(id, { state: Object.fromEntries(Array.from({ length: 150 }, (_, i) => [`agents/op/more-${i}`, { type: "append_items", digest: "d", at: 500 + i }])) });
      // The 16th transaction after the first checks again.
      for (let i = 0; i < 15; i++) await session.applyHistoryTransaction({ operationId: `then-${i}`, transaction: { type: "append_items", items: [] } });
      const after = await store.listSessionStateKeys(id, { prefix: "agents/op/" });
      expect(after).toHaveLength(1000);
      expect(after).toEqual(expect.arrayContaining(["agents/op/stepped", "agents/op/new", "agents/op/then-14"]));
      expect(after.filter((key) => key.startsWith("agents/op/more-"))).toEqual([]);
      // A repeat of a kept id still does nothing.
      await session.applyHistoryTransaction({ operationId: "new", transaction });
      expect(await session.getItems()).toEqual(items.slice(0, 1));
    });

    it("a broken clock (NaN, a throw) stamps an operation id 0, as the stores take one", async () => {
      const store = await backend().open();
      const session = new AttacheSession(store, { sessionId: "clock" });
      // fake-indexeddb itself fails when Date.now throws.
      const broken = name === "MemorySessionStore" ? [() => NaN, () => { throw new Error("clock"); }] : [() => NaN];
      for (const [n, now] of broken.entries()) {
        const spy = vi.spyOn(Date, "now").mockImplementation(now);
        try {
          await session.applyHistoryTransaction({ operationId: `op-${n}`, transaction: { type: "append_items", items: items.slice(0, 1) } });
        } finally {
          spy.mockRestore();
        }
        expect((await store.loadSessionState("clock", `agents/op/op-${n}`)).at).toBe(0);
      }
      expect(await session.getItems()).toEqual(broken.map(() => items[0]));
      // Nor does it prune: every stamp would look ahead of it, and the
      // newest ids could go first.
      await store.commitTurn("clock", { state: Object.fromEntries(Array.from({ length: 1200 }, (_, i) => [`agents/op/s-${i}`, { type: "append_items", digest: "d", at: i + 1 }])) });
      const fresh = new AttacheSession(store, { sessionId: "clock" });
      const spy = vi.spyOn(Date, "now").mockImplementation(() => NaN);
      try {
        await fresh.applyHistoryTransaction({ operationId: "op-late", transaction: { type: "append_items", items: [] } });
      } finally {
        spy.mockRestore();
      }
      expect(await store.listSessionStateKeys("clock", { prefix: "agents/op/" })).toHaveLength(1200 + broken.length + 1);
    });

    it("an operation id keeps a digest, not a copy, and still tells transactions apart in any key order", async () => {
      const store = await backend().open();
      const session = new AttacheSession(store);
      const id = await session.getSessionId();
      await session.addItems(items);
      // A compaction: the whole history is its expectedSuffix.
      const compact = { operationId: "op-c", transaction: { type: "replace_suffix", expectedSuffix: items, replacement: items.slice(5) } };
      await session.applyHistoryTransaction(compact);
      const record = await store.loadSessionState(id, "agents/op/op-c");
      expect(Object.keys(record).sort()).toEqual(["at", "digest", "type"]);
      expect(JSON.stringify(record).length).toBeLessThan(100);

      // The same items with their keys in another order are the same transaction.
      const reordered = (item) => Object.fromEntries(Object.entries(item).reverse());
      await session.applyHistoryTransaction({ operationId: "op-c", transaction: { ...compact.transaction, expectedSuffix: items.map(reordered) } });
      const changed = { ...compact.transaction, replacement: [assistantMessage("It is 4°C in Oslo.", { id: "msg_1" })] };
      await expect(session.applyHistoryTransaction({ operationId: "op-c", transaction: changed })).rejects.toThrow(/different transaction/);
      expect(await session.getItems()).toEqual(items.slice(5));

      // A record from before digests, holding the transaction itself.
      const legacy = { type: "append_items", items: items.slice(0, 1) };
      await store.saveSessionState(id, "agents/op/old", { transaction: legacy });
      await session.applyHistoryTransaction({ operationId: "old", transaction: legacy });
      await expect(session.applyHistoryTransaction({ operationId: "old", transaction: { type: "append_items", items: [] } })).rejects.toThrow(/different transaction/);
      expect(await session.getItems()).toEqual(items.slice(5));
    });

    it("an append is one store call, whatever the history holds; a repeat reads the operation", async () => {
      const store = await backend().open();
      const { store: watched, calls } = counted(store);
      const session = new AttacheSession(watched);
      await session.addItems(items.slice(0, 2));
      calls.length = 0;
      // An instance's first transaction, and every 16th, also counts the
      // operation ids kept.
      await session.applyHistoryTransaction({ operationId: "op-0", transaction: { type: "append_items", items: items.slice(2, 3) } });
      expect(calls).toEqual(["commitTurn", "listSessionStateKeys"]);
      calls.length = 0;
      const append = { operationId: "op-a", transaction: { type: "append_items", items: items.slice(3, 4) } };
      await session.applyHistoryTransaction(append);
      expect(calls).toEqual(["commitTurn"]);
      calls.length = 0;
      await session.applyHistoryTransaction(append);
      expect(calls).toEqual(["commitTurn", "loadSessionState"]);
      expect(await session.getItems()).toEqual(items.slice(0, 4));
      // The 16th transaction after the first counts them again; a repeat
      // is no transaction.
      calls.length = 0;
      const empty = (operationId) => ({ operationId, transaction: { type: "append_items", items: [] } });
      for (let i = 2; i < 16; i++) await session.applyHistoryTransaction(empty(`op-${i}`));
      expect(calls.filter((call) => call !== "commitTurn")).toEqual([]);
      await session.applyHistoryTransaction(empty("op-16"));
      expect(calls.at(-1)).toBe("listSessionStateKeys");
    });

    it("rewrites a call as MemorySession does, in one store call from the first change, and keeps the operation ids", async () => {
      const store = await backend().open();
      const { store: watched, calls } = counted(store);
      const session = new AttacheSession(watched, { sessionId: "rewrite" });
      const reference = new MemorySession();
      expect(isSessionHistoryRewriteAwareSession(session)).toBe(true);
      const call = (id, args) => functionCall("lookup", args, { callId: "call-1", id });
      const result = { type: "function_call_result", callId: "call-1", name: "lookup", status: "completed", output: { type: "text", text: "done" } };
      const history = [{ role: "user", content: "start" }, call("fc_1", { ok: false }), call("fc_2", { duplicate: true }), result, assistantMessage("ok", { id: "m" })];
      const once = { operationId: "once", transaction: { type: "append_items", items: history } };
      const rewrite = { mutations: [{ type: "replace_function_call", callId: "call-1", replacement: call("fc_new", { ok: true }) }] };
      for (const s of [session, reference]) {
        await s.applyHistoryTransaction(once);
        await s.applyHistoryMutations(rewrite);
      }
      expect(await session.getItems()).toEqual(await reference.getItems());
      expect((await session.getItems()).map((item) => item.id ?? item.role ?? item.type)).toEqual(["user", "fc_new", "function_call_result", "m"]);
      // One store call, and the items before the first change stay as stored.
      calls.length = 0;
      const before = await store.loadMessages("rewrite");
      await session.applyHistoryMutations({ mutations: [{ type: "replace_function_call", callId: "call-1", replacement: call("fc_newer", { ok: 1 }) }] });
      expect(calls.filter((name) => name !== "loadMessages" && name !== "getSession")).toEqual(["replaceMessages"]);
      expect((await store.loadMessages("rewrite"))[0]).toEqual(before[0]);
      // The operation id stays: a retried transaction is not applied again.
      await session.applyHistoryTransaction(once);
      expect(await session.getItems()).toHaveLength(4);
      // No call of that id, an unknown kind, none: nothing is written.
      calls.length = 0;
      await session.applyHistoryMutations({ mutations: [{ type: "replace_function_call", callId: "other", replacement: call("x", {}) }, { type: "future_kind" }] });
      await session.applyHistoryMutations({ mutations: [] });
      expect(calls.filter((name) => name !== "loadMessages" && name !== "getSession")).toEqual([]);
    });

    it("a rewrite leaves a host's results as MemorySession does, and keeps the thinking before the call", async () => {
      const store = await backend().open();
      const host = [
        { role: "assistant", content: [{ type: "text", text: "first" }, { type: "thinking", thinking: "why", signature: "sig" }, { type: "tool_call", id: "call_0", name: "f", arguments: {} }] },
        { role: "tool", content: [{ type: "tool_result", callId: "call_0", content: "r1" }, { type: "tool_result", callId: "x", content: "unanswered" }] },
        { role: "assistant", content: [{ type: "tool_call", id: "call_0", name: "g", arguments: {} }] },
        { role: "tool", content: [{ type: "tool_result", callId: "call_0", content: "r2" }], meta: { host: 1 } },
      ];
      // Same id, new arguments; a new name; a new id, which a result
      // answered by no call had.
      const replacements = [
        functionCall("f", { edited: true }, { callId: "call_0" }),
        functionCall("h", {}, { callId: "call_0" }),
        functionCall("f", {}, { callId: "x" }),
      ];
      for (const [i, replacement] of replacements.entries()) {
        const id = `host-results-${i}`;
        await store.createSession({ id });
        await store.appendMessages(id, host);
        const session = new AttacheSession(store, { sessionId: id });
        const reference = new MemorySession({ initialItems: await session.getItems() });
        const mutation = { mutations: [{ type: "replace_function_call", callId: "call_0", replacement }] };
        await session.applyHistoryMutations(mutation);
        await reference.applyHistoryMutations(mutation);
        expect(await session.getItems()).toEqual(await reference.getItems());
        // The signed thinking before the call stays, with the text before it
        // and with the call it came before.
        const stored = await store.loadMessages(id);
        expect(stored[0].content).toEqual(host[0].content.slice(0, 1));
        expect(stored[1].content.slice(0, 1)).toEqual(host[0].content.slice(1, 2));
      }
      // Thinking alone before the call (Claude's shape) gives no item of its own.
      await store.createSession({ id: "thinking-first" });
      await store.appendMessages("thinking-first", [{ role: "assistant", content: host[0].content.slice(1) }]);
      const session = new AttacheSession(store, { sessionId: "thinking-first" });
      const reference = new MemorySession({ initialItems: await session.getItems() });
      const mutation = { mutations: [{ type: "replace_function_call", callId: "call_0", replacement: replacements[0] }] };
      await session.applyHistoryMutations(mutation);
      await reference.applyHistoryMutations(mutation);
      expect(await session.getItems()).toEqual(await reference.getItems());
      expect((await store.loadMessages("thinking-first"))[0].content[0]).toEqual(host[0].content[1]);
      // Again: the thinking stays with the call.
      await session.applyHistoryMutations({ mutations: [{ type: "replace_function_call", callId: "call_0", replacement: replacements[1] }] });
      expect((await store.loadMessages("thinking-first"))[0].content[0]).toEqual(host[0].content[1]);
    });

    it("a rewrite keeps each thinking part, and a call replaced by itself keeps its message as stored", async () => {
      const store = await backend().open();
      const { store: watched, calls } = counted(store);
      const signed = (text) => ({ type: "thinking", thinking: text, signature: `sig-${text}` });
      const host = [
        { role: "assistant", content: [{ type: "tool_call", id: "a", name: "f", arguments: {} }] },
        // A duplicate call, dropped, between thinking parts; one before later text.
        { role: "assistant", content: [{ type: "text", text: "x" }, signed("1"), { type: "tool_call", id: "a", name: "f", arguments: {} }, signed("2"), { type: "tool_call", id: "b", name: "g", arguments: {} }, signed("3"), { type: "text", text: "y" }], meta: { model: "m" } },
      ];
      await store.createSession({ id: "thinking" });
      await store.appendMessages("thinking", host);
      const session = new AttacheSession(watched, { sessionId: "thinking" });
      const reference = new MemorySession({ initialItems: await session.getItems() });
      // The call as getItems gives it: nothing changes, nothing is written.
      const same = (await session.getItems())[0];
      calls.length = 0;
      await session.applyHistoryMutations({ mutations: [{ type: "replace_function_call", callId: "b", replacement: (await session.getItems()).find((item) => item.callId === "b") }] });
      expect(calls.filter((name) => name !== "loadMessages")).toEqual([]);
      expect(await store.loadMessages("thinking")).toEqual(host);
      const mutation = { mutations: [{ type: "replace_function_call", callId: "a", replacement: { ...same, arguments: "{\"n\":1}" } }] };
      await session.applyHistoryMutations(mutation);
      await reference.applyHistoryMutations(mutation);
      expect(await session.getItems()).toEqual(await reference.getItems());
      const thinkingOf = async (id) => (await store.loadMessages(id)).flatMap((message) => (Array.isArray(message.content) ? message.content : [])).filter((part) => part.type === "thinking");
      expect(await thinkingOf("thinking")).toEqual([signed("1"), signed("2"), signed("3")]);
      // A message of thinking and a duplicate call goes whole: its thinking
      // goes to an assistant message after it, or else, in order, after the
      // leading thinking of the one before (unchanged itself, say).
      const call = (args) => ({ type: "tool_call", id: "a", name: "f", arguments: args });
      const cases = [
        ["dropped-whole", [{ role: "assistant", content: [call({})] }], [signed("4")]],
        ["dropped-before-text", [{ role: "assistant", content: [call({})] }], [signed("4")], [{ role: "assistant", content: [{ type: "text", text: "z" }] }]],
        ["dropped-in-order", [{ role: "assistant", content: [signed("3"), call({})] }], [signed("3"), signed("4")]],
        ["dropped-after-same", [{ role: "assistant", content: [call({ n: 1 })] }], [signed("4")]],
      ];
      for (const [id, head, expected, tail = []] of cases) {
        await store.createSession({ id });
        await store.appendMessages(id, [...head, { role: "assistant", content: [signed("4"), call({})] }, ...tail]);
        const dropping = new AttacheSession(store, { sessionId: id });
        const memory = new MemorySession({ initialItems: await dropping.getItems() });
        for (const s of [dropping, memory]) await s.applyHistoryMutations(mutation);
        expect(await dropping.getItems()).toEqual(await memory.getItems());
        expect(await thinkingOf(id)).toEqual(expected);
      }
    });

    it("history mutations that cannot be stored are a UserError or the store's error, and change nothing", async () => {
      const store = await backend().open();
      const session = new AttacheSession(store, { sessionId: "bad-rewrite" });
      await session.addItems(items);
      const replacement = functionCall("weather", { city: "Bergen" }, { callId: "call_1", id: "fc_2" });
      const cyclic = { type: "replace_function_call", callId: "call_1", replacement: { ...replacement } };
      cyclic.replacement.self = cyclic;
      for (const args of [null, 5, {}, { mutations: "x" }, { get mutations() { throw new Error("getter"); } }, { mutations: [cyclic] },
        { mutations: [{ type: "replace_function_call", callId: 1, replacement }] },
        { mutations: [{ type: "replace_function_call", callId: "call_1", replacement: { role: "user", content: "not a call" } }] },
        // Not a function_call item by the protocol's schema.
        { mutations: [{ type: "replace_function_call", callId: "call_1", replacement: { type: "function_call", callId: "call_1", arguments: "{}" } }] },
        { mutations: [{ type: "replace_function_call", callId: "call_1", replacement: { ...replacement, arguments: 5 } }] }]) {
        const applied = session.applyHistoryMutations(args);
        await expect(applied).rejects.toBeInstanceOf(UserError);
        // Refused before a session is made.
        await expect(new AttacheSession(store, { sessionId: "never" }).applyHistoryMutations(args)).rejects.toBeInstanceOf(UserError);
      }
      expect(await store.getSession("never")).toBeNull();
      // Bytes, which JSON would make an object of indexes, and a key the
      // refusing store refuses, leave the history whole.
      const bytes = { ...replacement, providerData: { raw: new Uint8Array([1]) } };
      await expect(session.applyHistoryMutations({ mutations: [{ type: "replace_function_call", callId: "call_1", replacement: bytes }] })).rejects.toBeInstanceOf(UserError);
      const keyed = functionCall("weather", { apiKey: "sk-proj-" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6" }, { callId: "call_1", id: "fc_3" });
      await expect(session.applyHistoryMutations({ mutations: [{ type: "replace_function_call", callId: "call_1", replacement: keyed }] })).rejects.toMatchObject({ code: "CREDENTIAL" });
      expect(await session.getItems()).toEqual(items);
      // A call stored inside a host's message keeps that message's other parts.
      await store.appendMessages("bad-rewrite", [{ role: "assistant", content: [{ type: "text", text: "checking" }, { type: "tool_call", id: "host-1", name: "f", arguments: {} }] }]);
      const host = functionCall("f", { edited: true }, { callId: "host-1" });
      await session.applyHistoryMutations({ mutations: [{ type: "replace_function_call", callId: "host-1", replacement: host }] });
      const stored = await store.loadMessages("bad-rewrite");
      expect(stored.at(-2).content).toEqual([{ type: "text", text: "checking" }]);
      expect((await session.getItems()).at(-1)).toEqual(host);
      // A host's message after the change, with thinking and meta, stays as stored.
      const signed = { role: "assistant", content: [{ type: "thinking", thinking: "signed", signature: "sig" }, { type: "text", text: "answer" }], meta: { model: "claude" } };
      await store.appendMessages("bad-rewrite", [signed]);
      const before = await store.loadMessages("bad-rewrite");
      await session.applyHistoryMutations({ mutations: [{ type: "replace_function_call", callId: "host-1", replacement: { ...host, arguments: "{}" } }] });
      const after = await store.loadMessages("bad-rewrite");
      expect(after.at(-1)).toEqual(before.at(-1));
      expect(after.slice(0, -2)).toEqual(before.slice(0, -2));
      expect((await session.getItems()).at(-2)).toEqual({ ...host, arguments: "{}" });
    });

    it("a compaction replaces the whole history in one store call, or changes nothing", async () => {
      const store = await backend().open();
      const { store: watched, calls } = counted(store);
      const session = new AttacheSession(watched);
      await session.addItems(items);
      const compaction = { type: "compaction", encrypted_content: "opaque-summary", id: "cmp_1" };
      // A replacement the store refuses (bytes are not JSON) leaves the history whole.
      const bytes = { ...items[3], output: { type: "image", image: { data: new Uint8Array([137, 80]) } } };
      await expect(session.replaceHistoryWithCompaction([compaction, bytes])).rejects.toMatchObject({ code: "INVALID_VALUE" });
      expect(await session.getItems()).toEqual(items);
      calls.length = 0;
      await session.replaceHistoryWithCompaction([compaction, items[5]]);
      expect(calls).toEqual(["replaceMessages"]);
      expect(await session.getItems()).toEqual([compaction, items[5]]);
    });

    it("transaction items the store would refuse are a UserError, as MemorySession's, and change nothing", async () => {
      const store = await backend().open();
      const session = new AttacheSession(store);
      await session.addItems(items.slice(0, 1));
      const cyclic = { role: "user", content: "loop" };
      cyclic.self = cyclic;
      const bad = [
        { role: "user", content: [{ type: "input_image", image: new Uint8Array([1, 2]) }] },
        cyclic,
        { role: "user", content: "big", n: 1n },
        { role: "user", get content() { throw new Error("a getter's own"); } },
      ];
      for (const item of bad) {
        for (const transaction of [
          { type: "append_items", items: [item] },
          { type: "replace_suffix", expectedSuffix: items.slice(0, 1), replacement: [item] },
        ]) {
          const applied = session.applyHistoryTransaction({ operationId: "op-bad", transaction });
          await expect(applied).rejects.toThrow(UserError);
          await expect(applied).rejects.toThrow(/invalid or unsupported data/);
          // What went wrong is kept, as the host's getter threw it or JSON said.
          const { cause } = await applied.catch((e) => e);
          expect(cause).toBeInstanceOf(Error);
        }
      }
      const thrown = await session.applyHistoryTransaction({ operationId: "op-bad", transaction: { type: "append_items", items: [bad[3]] } }).catch((e) => e);
      expect(thrown.cause.message).toBe("a getter's own");
      expect(Object.keys(thrown)).not.toContain("cause");
      const limit = await session.getItems(Symbol("n")).catch((e) => e);
      expect(limit).toBeInstanceOf(UserError);
      expect(limit.cause).toBeInstanceOf(TypeError);
      // A runaway role is quoted in part, as a log would keep it.
      const role = await session.addItems([{ role: "r".repeat(5000), content: "x" }]).catch((e) => e);
      expect(role).toBeInstanceOf(UserError);
      expect(role.message).toBe(`Unknown message role: "${"r".repeat(200)}…"`);
      expect(await session.getItems()).toEqual(items.slice(0, 1));
      expect(await store.loadSessionState(await session.getSessionId(), "agents/op/op-bad")).toBeNull();
    });

    it("transaction items MemorySession refuses are refused alike, and numbers JSON has not, before a session is made", async () => {
      const store = await backend().open();
      // MemorySession keeps these; JSON would make them null, which addItems refuses.
      for (const n of [NaN, -Infinity]) {
        const transaction = { type: "append_items", items: [{ role: "user", content: "x", providerData: { n } }] };
        await expect(new AttacheSession(store).applyHistoryTransaction({ operationId: "op", transaction })).rejects.toThrow(UserError);
        await expect(new AttacheSession(store).addItems(transaction.items)).rejects.toMatchObject({ code: "INVALID_VALUE" });
        await store.deleteSession((await store.listSessions())[0].id);
      }
      const refused = [
        { type: "append_items", items: [{ role: "user", content: "x", providerData: { at: new Date(0) } }] },
        // No callId: not a ModelItem.
        { type: "append_items", items: [{ type: "function_call", name: "f", arguments: "{}" }] },
        { type: "replace_suffix", expectedSuffix: [], replacement: [{ role: "nobody", content: "x" }] },
        { type: "append_items", items: [], note: "a field it does not name" },
        // What JSON would change unseen.
        ...[
          new Map([["a", 1]]),
          () => 1,
          [1, , 3],
          Object(Symbol("s")),
          new String("boxed"),
          new (class Part { a = 1; })(),
          { get a() { return 1; } },
          { [Symbol("k")]: 1 },
          Object.defineProperty({}, "hidden", { value: 1 }),
          Object.create(Object.assign(Object.create(null), { inherited: 1 })),
        ].map((odd) => ({ type: "append_items", items: [{ role: "user", content: "x", providerData: { odd } }] })),
        // The schema reads a callId JSON drops: refused, not stored without it.
        { type: "append_items", items: [Object.defineProperty({ type: "function_call", name: "f", arguments: "{}" }, "callId", { value: "c" })] },
        { type: "replace_suffix", expectedSuffix: [], replacement: [], extra: 1 },
        // The transaction itself: a getter, a class's object, an inherited
        // or hidden field, an array with a field JSON drops.
        { get type() { return "append_items"; }, items: [] },
        Object.assign(new (class Transaction {})(), { type: "append_items", items: [] }),
        Object.assign(Object.create({ items: [] }), { type: "append_items", other: 1 }),
        { type: "append_items", items: [], [Symbol("k")]: 1 },
        Object.defineProperty({ type: "append_items", items: [] }, "note", { value: 1 }),
        { type: "append_items", items: Object.assign([], { note: 1 }) },
      ];
      for (const transaction of refused) {
        const session = new AttacheSession(store);
        for (const s of [session, new MemorySession()]) {
          await expect(s.applyHistoryTransaction({ operationId: "op", transaction })).rejects.toThrow(UserError);
        }
      }
      expect(await store.listSessions()).toEqual([]);
      // Valid as given: JSON then drops the key, which the schema requires.
      const transaction = { type: "append_items", items: [{ type: "tool_search_call", status: "completed", arguments: undefined }] };
      const session = new AttacheSession(store);
      for (const s of [session, new MemorySession()]) await s.applyHistoryTransaction({ operationId: "op", transaction });
      expect(await session.getItems()).toEqual([{ type: "tool_search_call", status: "completed" }]);
    });

    it("getItems comes after a write that made its session again", async () => {
      const store = await backend().open();
      const session = new AttacheSession(store, { sessionId: "chat" });
      await session.addItems(items.slice(0, 1));
      await store.deleteSession("chat");
      const added = session.addItems(items.slice(1, 2));
      expect(await session.getItems()).toEqual(items.slice(1, 2));
      await added;
    });

    it("calls before a generated session id is made keep their place, on that object and another", async () => {
      const store = await backend().open();
      const session = new AttacheSession(store);
      const made = session.getSessionId();
      const added = session.addItems(items.slice(0, 1));
      await made;
      expect(await session.getItems()).toEqual(items.slice(0, 1));
      await added;
      const other = new AttacheSession(store, { sessionId: await session.getSessionId() });
      const more = session.addItems(items.slice(1, 2));
      expect(await other.getItems()).toEqual(items.slice(0, 2));
      await more;
    });

    it("a new object's first call keeps its place among another object's calls on that session", async () => {
      const store = await backend().open();
      const first = new AttacheSession(store, { sessionId: "shared" });
      await first.addItems(items.slice(0, 1));
      const second = new AttacheSession(store, { sessionId: "shared" });
      const added = second.addItems(items.slice(1, 2));
      expect(await first.getItems()).toEqual(items.slice(0, 2));
      await added;
      const later = new AttacheSession(store, { sessionId: "shared" });
      const read = later.getItems();
      await first.addItems(items.slice(2, 3));
      expect(await read).toEqual(items.slice(0, 2));
    });

    it("getItems comes after this session's writes called before it, as MemorySession's", async () => {
      const store = await backend().open();
      const session = new AttacheSession(store, { sessionId: "chat" });
      const reference = new MemorySession();
      const seen = [];
      for (const s of [session, reference]) {
        const writes = [s.addItems(items.slice(0, 1))];
        const read = [s.getItems()];
        writes.push(s.addItems(items.slice(1, 3)), s.popItem());
        read.push(s.getItems());
        writes.push(s.applyHistoryTransaction({ operationId: "op", transaction: { type: "append_items", items: items.slice(5) } }));
        read.push(s.getItems(1));
        await Promise.all(writes);
        seen.push(await Promise.all(read));
      }
      expect(seen[0]).toEqual(seen[1]);
      expect(seen[0].map((r) => r.length)).toEqual([1, 2, 1]);
    });

    it("a run() with a scripted model resumes its conversation after a reload", async () => {
      const opened = backend();
      const weather = tool({
        name: "weather",
        description: "The weather in a city",
        parameters: z.object({ city: z.string() }),
        execute: async ({ city }) => `3°C in ${city}`,
      });
      const model = new ScriptedModel([
        [functionCall("weather", { city: "Oslo" }, { callId: "call_1" })],
        [assistantMessage("It is 3°C in Oslo.")],
        [assistantMessage("You asked about Oslo.")],
      ]);
      const agent = new Agent({ name: "forecaster", model, tools: [weather] });

      const first = new AttacheSession(await opened.open(), { sessionId: "run" });
      const answer = await run(agent, "Weather in Oslo?", { session: first });
      expect(answer.finalOutput).toBe("It is 3°C in Oslo.");

      // Reload: a new store on the same database, a new session object.
      const again = new AttacheSession(await opened.open(), { sessionId: "run" });
      const followUp = await run(agent, "Which city did I ask about?", { session: again });
      expect(followUp.finalOutput).toBe("You asked about Oslo.");
      model.assertComplete();
      const sent = JSON.stringify(model.lastCall.request.input);
      expect(sent).toContain("Weather in Oslo?");
      expect(sent).toContain("3°C in Oslo");
      const history = await again.getItems();
      expect(history.map((i) => i.role ?? i.type)).toEqual(["user", "function_call", "function_call_result", "assistant", "user", "assistant"]);
    });
  });
}

describe("AttacheSession's write lock", () => {
  // Last in this file: a refused request makes the module use its queue from then on.
  it("takes a Web Lock where there is one; where it is refused, writes still go one at a time", async () => {
    const had = Object.getOwnPropertyDescriptor(globalThis, "navigator");
    const u = (text) => ({ role: "user", content: text });
    const names = [];
    try {
      Object.defineProperty(globalThis, "navigator", { configurable: true, value: { locks: { request: async (name, work) => { names.push(name); return work(); } } } });
      const session = new AttacheSession(new MemorySessionStore(), { sessionId: "locked" });
      await session.addItems([u("a")]);
      expect(names).toEqual(["attache/openai-agents/locked"]);
      // An opaque origin refuses the request: writes go on, within the realm.
      Object.defineProperty(globalThis, "navigator", { configurable: true, value: { locks: { request: async () => { throw new DOMException("denied", "SecurityError"); } } } });
      await session.addItems([u("b")]);
      const tx = (op, to) => session.applyHistoryTransaction({ operationId: op, transaction: { type: "replace_suffix", expectedSuffix: [u("b")], replacement: [u(to)] } });
      const results = await Promise.allSettled([tx("run-1", "X"), tx("run-2", "Y")]);
      expect(results.map((r) => r.status)).toEqual(["fulfilled", "rejected"]);
      expect(await session.getItems()).toEqual([u("a"), u("X")]);
    } finally {
      if (had) Object.defineProperty(globalThis, "navigator", had);
      else delete globalThis.navigator;
    }
  });
});
