// The boundary's contract as properties, shared by the Node test and the
// browser page (tests/e2e/pages/fuzz.html): any JS value in any id or
// option parameter ends in a result or a typed AttacheError, async methods
// never throw synchronously, the instances stay healthy and wasm memory
// stays flat. Plain JS, so it runs in both.

/** A value that throws when read, as a hostile host might pass. */
const throwing = () => new Proxy({}, { get() { throw new Error("boom"); }, ownKeys() { throw new Error("boom"); } });
/** Arrays as hostile: Array.from would call the iterator; isArray throws on a revoked Proxy. */
const badIterator = () => Object.assign(["a"], { [Symbol.iterator]() { throw new Error("boom"); } });
const endless = () => Object.assign(["a"], { *[Symbol.iterator]() { for (;;) yield "a"; } });
const revoked = () => { const { proxy, revoke } = Proxy.revocable([], {}); revoke(); return proxy; };
const throwingArray = () => new Proxy(["a"], { get() { throw new Error("boom"); } });
export const EMPTY = {};
export const HOSTILE = [undefined, null, 42, -0, NaN, true, 10n, Symbol("s"), () => 1, [], ["a"], EMPTY, { length: 1e9 },
  new Date(0), new Map(), "", "   ", "a\ud800", "\udc00b", "x".repeat(4097), throwing(),
  badIterator(), endless(), revoked(), throwingArray()];

const fail = (message) => { throw new Error(message); };

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
    },
  };
}

/**
 * Runs the property `runs` times. Valid values really write, so each run
 * gets a fresh MemorySessionStore, freed after, or a new session in
 * `sessions` (an IdbSessionStore, say), deleted after. Resolves with how
 * many bytes wasm memory grew after a warm-up of up to 200 runs.
 */
export async function fuzz({ attache, fc, memory, runs, sessions: shared }) {
  const { AttachmentStore, planTurn, buildRequest, estimateTokens } = attache;
  const pinned = new AttachmentStore();
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
  const run = async (make) => {
    const v = make();
    const sessions = shared ?? new attache.MemorySessionStore({ credentials: count++ % 2 ? "redact" : "refuse" });
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
    if (shared) await sessions.deleteSession(id);
    else sessions.free();
  };
  await fc.assert(fc.asyncProperty(fc.oneof(value, hostile), run), { numRuns: Math.min(200, runs) });
  const before = memory.buffer.byteLength;
  await fc.assert(fc.asyncProperty(fc.oneof(value, hostile), run), { numRuns: runs });
  const ids = pinned.attachmentIds();
  if (ids.length !== 1 || ids[0] !== "memory:m") fail(`the pinned store is not healthy afterwards: ${ids}`);
  pinned.free();
  return memory.buffer.byteLength - before;
}
