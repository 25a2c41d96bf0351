// The boundary's contract as properties, shared by the Node test and the
// browser page (tests/e2e/pages/fuzz.html): any JS value in any id or
// option parameter, or at any position inside a valid input, ends in a
// result or a typed AttacheError; async methods never throw synchronously;
// every method of both classes is called; the instances stay healthy (a
// write and a read after each run) and wasm memory stays flat. Plain JS,
// so it runs in both.

/** A value that throws when read, as a hostile host might pass. */
const throwing = () => new Proxy({}, { get() { throw new Error("boom"); }, ownKeys() { throw new Error("boom"); } });
/** Arrays as hostile: Array.from would call the iterator; isArray throws on a revoked Proxy. */
const badIterator = () => Object.assign(["a"], { [Symbol.iterator]() { throw new Error("boom"); } });
const endless = () => Object.assign(["a"], { *[Symbol.iterator]() { for (;;) yield "a"; } });
const revoked = () => { const { proxy, revoke } = Proxy.revocable([], {}); revoke(); return proxy; };
const throwingArray = () => new Proxy(["a"], { get() { throw new Error("boom"); } });
const cyclic = () => { const o = { a: [1] }; o.a.push(o); return o; };
const accessor = () => Object.defineProperty({ a: 1 }, "b", { enumerable: true, get() { throw new Error("boom"); } });
const protoTrap = () => new Proxy({ a: 1 }, { getPrototypeOf() { throw new Error("boom"); } });
const keysTrap = () => new Proxy({ a: 1 }, { ownKeys() { throw new Error("boom"); } });
export const EMPTY = {};
export const HOSTILE = [undefined, null, 42, -0, NaN, true, 10n, Symbol("s"), () => 1, [], ["a"], EMPTY, { length: 1e9 },
  new Date(0), new Map(), "", "   ", "a\ud800", "\udc00b", "x".repeat(4097), throwing(),
  badIterator(), endless(), revoked(), throwingArray(), cyclic(), accessor(), protoTrap(), keysTrap(),
  { [Symbol("k")]: 1, a: 1 }, Object.assign(Object.create(null), { a: "\ud800" }), { toJSON() { throw new Error("boom"); } },
  { a: { b: [{ c: 1n }] } }, [1, [2, [3, Symbol("deep")]]]];

const plain = (v) => Array.isArray(v) || (v !== null && typeof v === "object" && Object.getPrototypeOf(v) === Object.prototype);
/** Every position in plain data, as key paths: where a fuzzed value goes (not inside a class's object, a store's pointer). */
function positions(value, at = [], out = []) {
  if (at.length) out.push(at);
  if (plain(value)) for (const [k, v] of Object.entries(value)) positions(v, [...at, Array.isArray(value) ? Number(k) : k], out);
  return out;
}
/** `value` itself, with `v` put at its `seed`th position. */
export function swapAt(value, seed, v) {
  const all = positions(value);
  const path = all[seed % all.length];
  let at = value;
  for (const k of path.slice(0, -1)) at = at[k];
  at[path.at(-1)] = v;
  return value;
}
/** A fresh copy of `base` with `v` at its `seed`th position. */
const nested = (base, seed, v) => swapAt(JSON.parse(JSON.stringify(base)), seed, v);
// Valid inputs, each with one position swapped for a fuzzed value: the
// checks past the top level (a part's text, a tool call's arguments, a
// spec's field, a document's message) see hostile values too.
const MESSAGE = { role: "assistant", content: [{ type: "text", text: "hi" }, { type: "tool_call", id: "c1", name: "n", arguments: { q: ["x", 1] } }], meta: { tag: "t" } };
const SPECS = [{ kind: "memory", slug: "m", memory: "kept" }, { kind: "file", path: "a.rs", contents: "fn main() {}", truncate: true },
  { kind: "todo", items: [{ text: "t", completed: false }] }, { kind: "custom", id: "note:a", rank: "file", text: "note" }];
const VALUE = { a: { b: [1, "x", null, true] }, c: "d" };
const REPLIES = {
  fromOpenAI: { choices: [{ message: { role: "assistant", content: "hi", tool_calls: [{ id: "c", type: "function", function: { name: "n", arguments: "{}" } }] } }] },
  fromAnthropic: { role: "assistant", content: [{ type: "text", text: "hi" }, { type: "tool_use", id: "t", name: "n", input: { a: 1 } }] },
  fromAiSdk: [{ role: "assistant", content: [{ type: "text", text: "hi" }, { type: "tool-call", toolCallId: "t", toolName: "n", input: { a: 1 } }] }],
};

const fail = (message) => { throw new Error(message); };
/** A value as text, for a failure's message: String() itself throws on some. */
const shown = (v) => { try { return String(v); } catch { return `a ${typeof v} that String() refuses`; } };

/** Calls `f`, which must return normally or throw an AttacheError. */
export function settlesSync(attache, f, label) {
  try {
    return { value: f() };
  } catch (e) {
    if (!attache.isAttacheError(e)) fail(`${label}: threw an untyped ${e?.name}: ${e?.message}`);
    return { error: e };
  }
}

/** Calls an async method: never a synchronous throw; it resolves or rejects typed. */
export async function settlesAsync(attache, f, label) {
  let promise;
  try {
    promise = f();
  } catch (e) {
    fail(`${label}: threw synchronously: ${e?.message}`);
  }
  if (!(promise instanceof Promise)) fail(`${label}: did not return a promise`);
  try {
    return { value: await promise };
  } catch (e) {
    if (!attache.isAttacheError(e)) fail(`${label}: rejected with an untyped ${e?.name}: ${e?.message}`);
    return { error: e };
  }
}

/** Every id-taking call, on live instances. */
export function idCalls(pinned, sessions, id) {
  return {
    sync: {
      detachAttachment: (v) => pinned.detachAttachment(v),
      hasAttachment: (v) => pinned.hasAttachment(v),
      renderAttachment: (v) => pinned.renderAttachment(v),
      getAttachment: (v) => pinned.getAttachment(v),
    },
    async: {
      getSession: (v) => sessions.getSession(v),
      deleteSession: (v) => sessions.deleteSession(v),
      loadSessionState: (v) => sessions.loadSessionState(id, v),
      saveSessionState: (v) => sessions.saveSessionState(v, "k", { a: 1 }),
      saveSessionStateKey: (v) => sessions.saveSessionState(id, v, { a: 1 }),
      appendActivityFrames: (v) => sessions.appendActivityFrames(id, v, [{ a: 1 }]),
      loadActivityFrames: (v) => sessions.loadActivityFrames(id, v),
      listSessionStateKeys: (v) => sessions.listSessionStateKeys(v),
      loadSessionStatesKey: (v) => sessions.loadSessionStates(id, ["a", v]),
      loadMessages: (v) => sessions.loadMessages(v),
      saveAttachments: (v) => sessions.saveAttachments(id, v),
      loadAttachments: (v) => sessions.loadAttachments(v),
      createSession: (v) => sessions.createSession(v),
      updateSession: (v) => sessions.updateSession(v, { title: "t" }),
      popMessage: (v) => sessions.popMessage(v),
      clearMessages: (v) => sessions.clearMessages(v),
      listRequests: (v) => sessions.listRequests(v),
      loadFramesByRequest: (v) => sessions.loadFramesByRequest(v),
      replaceMessagesId: (v) => sessions.replaceMessages(v, { from: 0, messages: [] }),
      commitTurnId: (v) => sessions.commitTurn(v, {}),
      exportSession: (v) => sessions.exportSession(v),
      // The session id of the calls above that take another id too.
      loadSessionStateSession: (v) => sessions.loadSessionState(v, "k"),
      loadSessionStatesSession: (v) => sessions.loadSessionStates(v, ["k"]),
      deleteSessionStateSession: (v) => sessions.deleteSessionState(v, "k"),
      deleteSessionStateKey: (v) => sessions.deleteSessionState(id, v),
      appendActivityFramesSession: (v) => sessions.appendActivityFrames(v, "r", [{ a: 1 }]),
      loadActivityFramesSession: (v) => sessions.loadActivityFrames(v, "r"),
      appendMessagesSession: (v) => sessions.appendMessages(v, []),
      saveAttachmentsSession: (v) => sessions.saveAttachments(v, pinned),
      saveSnapshotSession: (v) => sessions.saveSnapshot(v, {}),
      loadSnapshotSession: (v) => sessions.loadSnapshot(v),
      saveReplStateSession: (v) => sessions.saveReplState(v, {}),
      loadReplStateSession: (v) => sessions.loadReplState(v),
    },
  };
}

/** Every id parameter, each with the field its refusal names. */
function idParams(attache, pinned, sessions, id) {
  const doc = { format: "attache-session", version: 1, session: { title: null, meta: null, createdAt: 1, updatedAt: 1 } };
  return [
    ...["detachAttachment", "hasAttachment", "renderAttachment", "getAttachment"].map((m) => [m, "id", (v) => pinned[m](v)]),
    ...["getSession", "deleteSession", "exportSession", "loadMessages", "popMessage", "clearMessages", "listSessionStateKeys",
      "loadSnapshot", "loadReplState", "loadAttachments", "listRequests", "loadFramesByRequest"].map((m) => [m, "sessionId", (v) => sessions[m](v)]),
    ["updateSession", "sessionId", (v) => sessions.updateSession(v, { title: "t" })],
    ["appendMessages", "sessionId", (v) => sessions.appendMessages(v, [])],
    ["replaceMessages", "sessionId", (v) => sessions.replaceMessages(v, { from: 0, messages: [] })],
    ["commitTurn", "sessionId", (v) => sessions.commitTurn(v, {})],
    ["saveSnapshot", "sessionId", (v) => sessions.saveSnapshot(v, {})],
    ["saveReplState", "sessionId", (v) => sessions.saveReplState(v, {})],
    ["saveAttachments", "sessionId", (v) => sessions.saveAttachments(v, pinned)],
    ["createSession", "options.id", (v) => sessions.createSession({ id: v })],
    ["importSession", "id", (v) => sessions.importSession(doc, { id: v })],
    ...["saveSessionState", "loadSessionState", "deleteSessionState"].flatMap((m) => [
      [m, "sessionId", (v) => (m === "saveSessionState" ? sessions[m](v, "k", 1) : sessions[m](v, "k"))],
      [`${m} key`, "key", (v) => (m === "saveSessionState" ? sessions[m](id, v, 1) : sessions[m](id, v))],
    ]),
    ["loadSessionStates", "sessionId", (v) => sessions.loadSessionStates(v, ["k"])],
    ["loadSessionStates keys", "keys[1]", (v) => sessions.loadSessionStates(id, ["k", v])],
    ["appendActivityFrames", "sessionId", (v) => sessions.appendActivityFrames(v, "r", [{}])],
    ["appendActivityFrames requestId", "requestId", (v) => sessions.appendActivityFrames(id, v, [{}])],
    ["loadActivityFrames", "sessionId", (v) => sessions.loadActivityFrames(v, "r")],
    ["loadActivityFrames requestId", "requestId", (v) => sessions.loadActivityFrames(id, v)],
    ["commitTurn requireAbsent", "requireAbsent[0]", (v) => sessions.commitTurn(id, { requireAbsent: [v] })],
    ["commitTurn frames", "frames[0].requestId", (v) => sessions.commitTurn(id, { frames: [{ requestId: v, frames: [{}] }] })],
    // A state key is named by the object that holds it: a bad key makes no path.
    ["commitTurn state", "state", (v) => sessions.commitTurn(id, { state: { [v]: 1 } })],
    ["commitTurn stateIfAbsent", "stateIfAbsent", (v) => sessions.commitTurn(id, { stateIfAbsent: { [v]: 1 } })],
    ["IdbSessionStore.open", "name", (v) => attache.IdbSessionStore.open({ name: v })],
  ];
}

/** Every options object, with known options that make the call valid and where its keys are named. */
function optionCalls(attache, pinned, sessions, id, doc) {
  const { planTurn, buildRequest, estimateTokens } = attache;
  return [
    ["planTurn", "options", (o) => planTurn({ contextWindow: 1000, history: 0, ...o })],
    ["planTurn counter", "counter", (o) => planTurn({ contextWindow: 1000, history: 0, counter: { ratio: 0.25, ...o } })],
    ["buildRequest", "options", (o) => buildRequest({ history: [], ...o })],
    ["buildRequest cacheControl", "cacheControl", (o) => buildRequest({ history: [], cacheControl: { type: "ephemeral", ...o } })],
    ["checkPrefix", "options", (o) => pinned.checkPrefix(o)],
    ["checkPrefix counter", "counter", (o) => pinned.checkPrefix({ counter: { ratio: 0.25, ...o } })],
    ["estimateTokens", "counter", (o) => estimateTokens([], o)],
    ["MemorySessionStore", "options", (o) => new attache.MemorySessionStore(o).free()],
    ["IdbSessionStore.open", "options", (o) => attache.IdbSessionStore.open({ name: "contract-options", ...o })],
    ["createSession", "options", (o) => sessions.createSession(o)],
    ["updateSession", "options", (o) => sessions.updateSession(id, o)],
    ["loadMessages", "options", (o) => sessions.loadMessages(id, o)],
    ["replaceMessages", "options", (o) => sessions.replaceMessages(id, { from: 0, messages: [], ...o })],
    ["commitTurn", "options", (o) => sessions.commitTurn(id, o)],
    ["importSession", "options", (o) => sessions.importSession(doc, { id: "contract-import", ...o })],
    ["listSessionStateKeys", "options", (o) => sessions.listSessionStateKeys(id, o)],
  ];
}

/** Calls `f`, sync or async, for the AttacheError it must end in. */
async function refusal(attache, f, label) {
  const { value, error } = await settlesAsync(attache, async () => f(), label);
  if (!error) {
    value?.close?.();
    fail(`${label}: was not refused (gave ${shown(value)})`);
  }
  return error;
}

/**
 * Issue 9's id and option rules as properties, on `sessions` (a fresh
 * MemorySessionStore by default): a blank id, or one holding a lone
 * surrogate, at any id parameter is INVALID_ARGUMENT naming it, and
 * nothing is stored, under its U+FFFD twin or at all; an unknown key in
 * any options object is INVALID_ARGUMENT naming the key.
 */
export async function contract({ attache, fc, runs, sessions: shared }) {
  const sessions = shared ?? new attache.MemorySessionStore();
  const pinned = new attache.AttachmentStore();
  pinned.setAttachment({ kind: "memory", slug: "m", memory: "kept" });
  const { id } = await sessions.createSession();
  const doc = await sessions.exportSession(id);
  const ids = idParams(attache, pinned, sessions, id);
  const options = optionCalls(attache, pinned, sessions, id, doc);
  // What JS's trim() removes, as the README defines blank.
  const space = fc.constantFrom(" ", "\t", "\n", "\r", "\v", "\f", "\u00a0", "\u1680", "\u2000", "\u200a", "\u2028",
    "\u2029", "\u202f", "\u205f", "\u3000", "\ufeff");
  const blank = fc.array(space, { maxLength: 6 }).map((s) => s.join(""));
  // ASCII around it, so the surrogate stays lone.
  const lone = fc.tuple(fc.string({ maxLength: 6 }), fc.integer({ min: 0xd800, max: 0xdfff }), fc.string({ maxLength: 6 }))
    .map(([a, s, b]) => `${a}${String.fromCharCode(s)}${b}`);
  const sessionsBefore = (await sessions.listSessions()).map((s) => s.id).sort().join();
  await fc.assert(fc.asyncProperty(fc.oneof(blank, lone), fc.nat(ids.length - 1), async (bad, at) => {
    const [label, field, call] = ids[at];
    const error = await refusal(attache, () => call(bad), `${label}(${JSON.stringify(bad)})`);
    if (error.code !== "INVALID_ARGUMENT" || error.field !== field) {
      fail(`${label}(${JSON.stringify(bad)}): ${error.code} at ${error.field}, not INVALID_ARGUMENT at ${field}`);
    }
  }), { numRuns: runs });
  // Nothing was stored: no session, state key, request or pin, under a
  // U+FFFD twin or otherwise.
  const after = (await sessions.listSessions()).map((s) => s.id).sort().join();
  const stored = [await sessions.listSessionStateKeys(id), await sessions.listRequests(id), await sessions.loadMessages(id)];
  if (after !== sessionsBefore || stored.some((list) => list.length) || pinned.attachmentIds().join() !== "memory:m") {
    fail(`a refused id stored something: sessions ${after}, ${JSON.stringify(stored)}, pins ${pinned.attachmentIds()}`);
  }
  // Nor a database, under a U+FFFD twin or a blank name.
  const databases = typeof indexedDB === "object" && typeof indexedDB.databases === "function" ? await indexedDB.databases() : [];
  const twin = databases.find(({ name }) => name.includes("\ufffd") || name.trim() === "");
  if (twin) fail(`a refused name made database ${JSON.stringify(twin.name)}`);
  // A start no option has (consonants alone made `ttl`), and no word a
  // credential check could take.
  const key = fc.stringMatching(/^[bcdfghjklmnpqrstvwxz0-9]{0,8}$/).map((k) => `zq${k}`);
  await fc.assert(fc.asyncProperty(key, fc.nat(options.length - 1), fc.constantFrom(1, undefined, null), async (k, at, v) => {
    const [label, where, call] = options[at];
    const error = await refusal(attache, () => call({ [k]: v }), `${label} with {${k}: ${v}}`);
    if (error.code !== "INVALID_ARGUMENT" || error.field !== `${where}.${k}`) {
      fail(`${label} with {${k}: ${v}}: ${error.code} at ${error.field}, not INVALID_ARGUMENT at ${where}.${k}`);
    }
  }), { numRuns: runs });
  pinned.free();
  if (shared) await sessions.deleteSession(id);
  else sessions.free();
}

/**
 * Runs the property `runs` times, after a warm-up of up to 500. Valid
 * values really write, so each run gets a fresh MemorySessionStore, freed
 * after, or a new session in `sessions` (an IdbSessionStore, say), deleted
 * after. Resolves with how many bytes wasm memory grew over the runs, less
 * the largest growth of any one run (what a leak would grow it by), and
 * each growth as [run, bytes], for a failure's message.
 */
export async function fuzz({ attache, fc, memory, runs, sessions: shared }) {
  const { AttachmentStore, planTurn, buildRequest, estimateTokens } = attache;
  // Each method called through these is recorded: every method of both
  // classes must be, so a new one is not left out unseen.
  const used = new Set();
  const recorded = (target) => new Proxy(target, {
    get(t, k) {
      const f = t[k];
      if (typeof f !== "function") return f;
      used.add(`${t.constructor.name}.${String(k)}`);
      return f.bind(t);
    },
  });
  const pinned = recorded(new AttachmentStore());
  pinned.setAttachment({ kind: "memory", slug: "m", memory: "kept" });
  const options = {
    planTurn: (v) => planTurn(v),
    buildRequest: (v) => buildRequest(v),
    checkPrefix: (v) => pinned.checkPrefix(v),
    estimateTokens: (v) => estimateTokens([], v),
    countMessages: (v) => estimateTokens(v),
  };
  // Registered only for the call: a fuzzed secret must not refuse later runs.
  options.registerSecret = (v) => { try { return attache.registerSecret(v); } finally { attache.forgetSecrets(); } };
  options.forgetSecrets = (v) => attache.forgetSecrets(v);
  options.redactCredentials = (v) => attache.redactCredentials(v);
  options.MemorySessionStore = (v) => new attache.MemorySessionStore(v).free();
  for (const name of ["toOpenAI", "fromOpenAI", "toAnthropic", "fromAnthropic", "toAiSdk", "fromAiSdk"]) {
    options[name] = (v) => attache[name](v);
  }
  for (const name of Object.keys(attache)) {
    const covered = options[name] ?? ["AttachmentStore", "IdbSessionStore", "isAttacheError", "default", "initSync"].includes(name);
    if (!covered) fail(`export ${name} is not fuzzed`);
  }
  // Each value comes as a thunk: fast-check probes the values it holds,
  // which a revoked Proxy refuses. toString keeps counterexamples readable.
  const thunk = (v, shown) => Object.assign(() => v, { toString: () => shown });
  const value = fc.oneof(fc.anything({ withBigInt: true, withDate: true, withMap: true, withSet: true,
    withTypedArray: true, withSparseArray: true, withNullPrototype: true, withBoxedValues: true }),
  fc.string({ unit: "binary" })).map((v) => thunk(v, fc.stringify(v)));
  const hostile = fc.nat(HOSTILE.length - 1).map((i) => thunk(HOSTILE[i], `HOSTILE[${i}]`));
  // Every other memory store redacts: the same calls, the other policy.
  let count = 0;
  const run = async (make, seed) => {
    const v = make();
    const sessions = recorded(shared ?? new attache.MemorySessionStore({ credentials: count++ % 2 ? "redact" : "refuse" }));
    const { id } = await sessions.createSession();
    const calls = idCalls(pinned, sessions, id);
    for (const [name, call] of Object.entries(calls.sync)) settlesSync(attache, () => call(v), name);
    for (const [name, call] of Object.entries(options)) settlesSync(attache, () => call(v), name);
    for (const [name, call] of Object.entries(calls.async)) await settlesAsync(attache, () => call(v), name);
    await settlesAsync(attache, () => sessions.appendMessages(id, v), "appendMessages");
    // Option and value parameters of the newer calls.
    await settlesAsync(attache, () => sessions.loadMessages(id, v), "loadMessages options");
    await settlesAsync(attache, () => sessions.updateSession(id, v), "updateSession options");
    await settlesAsync(attache, () => sessions.replaceMessages(id, v), "replaceMessages options");
    await settlesAsync(attache, () => sessions.commitTurn(id, v), "commitTurn");
    await settlesAsync(attache, () => sessions.importSession(v), "importSession");
    await settlesAsync(attache, () => sessions.importSession({ format: "attache-session", version: 1, session: v }, { id: "imported" }), "importSession session");
    await settlesAsync(attache, () => sessions.commitTurn(id, { frames: v, state: v }), "commitTurn fields");
    await settlesAsync(attache, () => sessions.commitTurn(id, { stateIfAbsent: v }), "commitTurn stateIfAbsent");
    await settlesAsync(attache, () => sessions.listSessionStateKeys(id, v), "listSessionStateKeys options");
    await settlesAsync(attache, () => sessions.listSessionStateKeys(id, { prefix: v, before: v, limit: v, reverse: v }), "listSessionStateKeys fields");
    await settlesAsync(attache, () => sessions.loadSessionStates(id, v), "loadSessionStates keys");
    await settlesAsync(attache, () => sessions.commitTurn(id, { requireAbsent: v }), "commitTurn requireAbsent");
    settlesSync(attache, () => planTurn({ contextWindow: 1000, history: 0, contributors: v }), "planTurn contributors");
    await settlesAsync(attache, () => sessions.deleteSessionState(id, "k"), "deleteSessionState");
    await settlesAsync(attache, () => sessions.saveSnapshot(id, v), "saveSnapshot");
    await settlesAsync(attache, () => sessions.loadSnapshot(id), "loadSnapshot");
    await settlesAsync(attache, () => sessions.saveReplState(id, v), "saveReplState");
    await settlesAsync(attache, () => sessions.loadReplState(id), "loadReplState");
    await settlesAsync(attache, () => sessions.importSession(v, v), "importSession options");
    await settlesAsync(attache, () => sessions.saveSessionState(id, "k", v), "saveSessionState value");
    await settlesAsync(attache, () => sessions.appendActivityFrames(id, "r", v), "appendActivityFrames frames");

    // The same value one level or more inside a valid input.
    const message = nested(MESSAGE, seed, v);
    const at = (name) => `${name} (nested at ${seed})`;
    for (const name of ["toOpenAI", "toAnthropic", "toAiSdk", "estimateTokens"]) settlesSync(attache, () => attache[name]([message]), at(name));
    settlesSync(attache, () => buildRequest({ format: ["openai", "anthropic", "ai-sdk", "generic"][seed % 4], history: [message] }), at("buildRequest"));
    settlesSync(attache, () => planTurn({ contextWindow: 1000, history: [message] }), at("planTurn"));
    await settlesAsync(attache, () => sessions.appendMessages(id, [message]), at("appendMessages"));
    await settlesAsync(attache, () => sessions.commitTurn(id, { messages: [message], state: { k: nested(VALUE, seed, v) } }), at("commitTurn"));
    await settlesAsync(attache, () => sessions.replaceMessages(id, { from: 0, messages: [message] }), at("replaceMessages"));
    const spec = nested(SPECS[seed % SPECS.length], seed >> 2, v);
    const scratch = recorded(new AttachmentStore());
    settlesSync(attache, () => scratch.setAttachment(spec), at("setAttachment"));
    settlesSync(attache, () => scratch.consolidatedMessage(), at("consolidatedMessage"));
    settlesSync(attache, () => scratch.renderAll(), at("renderAll"));
    settlesSync(attache, () => scratch.specs(), at("specs"));
    settlesSync(attache, () => scratch.size, at("size"));
    await settlesAsync(attache, () => sessions.saveAttachments(id, scratch), at("saveAttachments"));
    scratch.free();
    await settlesAsync(attache, () => sessions.saveSessionState(id, "attachments", [spec]), at("saveSessionState attachments"));
    const value = nested(VALUE, seed, v);
    settlesSync(attache, () => attache.redactCredentials(value), at("redactCredentials"));
    await settlesAsync(attache, () => sessions.saveSessionState(id, "k", value), at("saveSessionState"));
    await settlesAsync(attache, () => sessions.appendActivityFrames(id, "r", [value]), at("appendActivityFrames"));
    await settlesAsync(attache, () => sessions.saveSnapshot(id, { state: value }), at("saveSnapshot"));
    await settlesAsync(attache, () => sessions.saveReplState(id, { env: { x: value } }), at("saveReplState"));
    await settlesAsync(attache, () => sessions.updateSession(id, { meta: value }), at("updateSession"));
    for (const [name, reply] of Object.entries(REPLIES)) settlesSync(attache, () => attache[name](nested(reply, seed, v)), at(name));
    // A real document, with the value at one of its positions.
    const exported = await sessions.exportSession(id);
    const doc = nested(exported, seed, v);
    await settlesAsync(attache, () => sessions.importSession(doc, { id: `imported-${seed}` }), at("importSession"));
    await settlesAsync(attache, () => sessions.listSessions(), "listSessions");

    // Healthy afterwards: the run's store and the shared pins still work.
    const check = await sessions.createSession();
    await sessions.appendMessages(check.id, [{ role: "user", content: "still here" }]);
    const back = await sessions.loadMessages(check.id);
    if (back.length !== 1 || back[0].content !== "still here") fail(`the store is not healthy after ${shown(v)}`);
    pinned.setAttachment({ kind: "todo", items: [{ text: "check", completed: true }] });
    const text = pinned.consolidatedMessage()?.content.map((p) => p.text).join("|");
    if (text !== "[Pinned memory: m]\n\nkept|[Todo list]\n- [x] check" || !pinned.detachAttachment("todo:session")) {
      fail(`the pinned store is not healthy after ${shown(v)}: ${text}`);
    }
    if (shared) {
      for (const made of [id, check.id, `imported-${seed}`]) await sessions.deleteSession(made);
    } else sessions.free();
  };
  const input = fc.tuple(fc.oneof(value, hostile), fc.nat(1000));
  // Memory growth run by run: a leak grows it a page at a time, again and
  // again; a rare large input raises the allocator's high-water mark once,
  // in one run, by as many pages as it needed.
  const jumps = []; // [run, bytes] for each measured run that grew memory
  let measuredRuns = 0;
  const measured = async (make, seed) => {
    const before = memory.buffer.byteLength;
    await run(make, seed);
    measuredRuns++;
    if (memory.buffer.byteLength > before) jumps.push([measuredRuns, memory.buffer.byteLength - before]);
  };
  await fc.assert(fc.asyncProperty(input, ([make, seed]) => run(make, seed)), { numRuns: Math.min(500, runs) });
  const before = memory.buffer.byteLength;
  await fc.assert(fc.asyncProperty(input, ([make, seed]) => measured(make, seed)), { numRuns: runs });
  const grown = memory.buffer.byteLength - before;
  const ids = pinned.attachmentIds();
  if (ids.length !== 1 || ids[0] !== "memory:m") fail(`the pinned store is not healthy afterwards: ${ids}`);
  pinned.free();
  // Every method of both classes was called (the store's own, IdbSessionStore's close and name aside).
  for (const C of [AttachmentStore, shared ? shared.constructor : attache.MemorySessionStore]) {
    for (const name of Object.getOwnPropertyNames(C.prototype)) {
      if (["constructor", "__destroy_into_raw", "__pins", "toJSON", "close", "name", "size"].includes(name)) continue;
      if (shared && name === "free") continue; // the caller's to free
      if (!used.has(`${C.name}.${name}`)) fail(`${C.name}.${name} is not fuzzed`);
    }
  }
  const largest = Math.max(0, ...jumps.map(([, bytes]) => bytes));
  return { grown: grown - largest, jumps };
}
