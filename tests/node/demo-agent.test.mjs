// The demo's agent loop, through the built package: its compactor must
// land the history under the budget planTurn gives, however long the last
// messages; a turn never sends a key, nor a request its plan says to
// compact; a tool says what it could not do.
import { test, before } from "node:test";
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";

const root = new URL("../../", import.meta.url);
const attache = await import(new URL("pkg/attache.js", root));
const { compact, runTurn } = await import(new URL("www/agent.js", root));
const { scripted, endpoint } = await import(new URL("www/model.js", root));

before(async () => {
  await attache.default({ module_or_path: await readFile(new URL("pkg/attache_bg.wasm", root)) });
});

const say = (role, words) => ({ role, content: "word ".repeat(words).trim() });
const tokens = (messages) => attache.estimateTokens(messages, "openai");

test("compaction keeps the longest tail that fits the budget, cut at a user message", () => {
  const history = [say("user", 10), say("assistant", 10), say("user", 400), say("assistant", 400), say("user", 10), say("assistant", 10)];
  const next = say("user", 5);
  const budget = 200;
  const kept = compact(history, next, budget);
  assert.ok(tokens([...kept, next]) < budget, `${tokens([...kept, next])} tokens, under ${budget}`);
  assert.match(kept[0].content, /^\[Summary of 4 earlier messages/);
  assert.deepEqual(kept.slice(1), history.slice(4), "the two long messages go, the short tail stays");
  // A looser budget keeps more.
  const roomy = compact(history, next, 10_000);
  assert.deepEqual(roomy.slice(1), history.slice(2));
  // Per-message counts sum below the list's: each is taken one high, else
  // this tail and the next message come to 43 tokens, over 41.
  const five = Array.from({ length: 5 }, (_, i) => say(i % 2 ? "assistant" : "user", 1));
  const short = compact(five, say("user", 1), 41);
  assert.ok(tokens([...short, say("user", 1)]) < 41, `${tokens([...short, say("user", 1)])} tokens, under 41`);
});

test("when no tail fits, only the summary is kept; an empty history has nothing to cut", () => {
  const history = [say("user", 10), say("assistant", 2000)];
  const kept = compact(history, say("user", 1), 100);
  assert.equal(kept.length, 1);
  assert.match(kept[0].content, /^\[Summary of 2 earlier messages/);
  assert.equal(compact([], say("user", 1), 100), null);
});

test("a history the summary would not shrink is left alone, whatever the budget", () => {
  const short = [say("user", 1), say("assistant", 1)];
  assert.equal(compact(short, say("user", 5000), 100), null, "a huge next message does not wipe it");
  assert.equal(compact(short, say("user", 1), -300), null, "nor does a budget below zero");
  assert.equal(compact([say("user", 1)], say("user", 1), 0), null);
  // A long history under an impossible budget is summarised, not kept whole.
  const long = [say("user", 500), say("assistant", 500)];
  assert.equal(compact(long, say("user", 1), -300).length, 1);
});

/** A session with the demo's pins, and a model that counts its calls. */
async function session(model) {
  const store = new attache.MemorySessionStore();
  const { id } = await store.createSession();
  const pinned = new attache.AttachmentStore();
  pinned.setAttachment({ kind: "todo", items: [{ text: "review the auth design", completed: false }] });
  // Stored, as the page's pins are: a turn compares them with the store.
  await store.saveAttachments(id, pinned);
  const calls = [];
  const counted = { name: "counted", tools: model.tools, format: model.format, complete: (messages, signal) => { calls.push(messages); return model.complete(messages, signal); } };
  const turn = (text, contextWindow = 8000, more = {}) =>
    runTurn({ store, sessionId: id, pinned, model: counted, text, contextWindow, snapshot: () => ({}), ...more });
  return { store, id, pinned, calls, turn };
}

test("a key in the user's message, or in stored history, never reaches the model", async () => {
  const { store, id, calls, turn } = await session(scripted);
  const key = "sk-proj-" + "Qv7".repeat(16);
  await assert.rejects(turn(`deploy with ${key}`), (e) => e.credential === "openai_key" && !e.message.includes(key.slice(8, 20)));
  assert.equal(calls.length, 0);
  // Stored before the host registered it: refused once it is.
  const host = "ollama-local-secret-4242";
  await store.appendMessages(id, [{ role: "user", content: `my key is ${host}` }]);
  attache.registerSecret(host);
  try {
    await assert.rejects(turn("hello?"), (e) => e.credential === "host_secret");
    assert.equal(calls.length, 0);
  } finally {
    attache.forgetSecrets();
  }
});

test("the scripted model looks up the word the pins hold, in memories, files and todos", async () => {
  const { store, id, pinned, calls, turn } = await session(scripted);
  pinned.setAttachment({ kind: "file", path: "README.md", contents: "Auth uses Argon2id with RFC 9106 parameters." });
  await store.saveAttachments(id, pinned);
  const lookedUp = async (question) => {
    await turn(question);
    return calls.at(-1).at(-1).content[0].content.map((p) => p.text).join("");
  };
  // "What" and "does" are as long as "auth"; "which" is longer than "hash".
  assert.equal(await lookedUp("What does auth use?"), '"auth" appears in todo:session, file:README.md.');
  assert.equal(await lookedUp("Which hash does auth use?"), '"auth" appears in todo:session, file:README.md.');
  assert.equal(await lookedUp("what should I review?"), '"review" appears in todo:session.');
  assert.equal(await lookedUp("Tell me about kangaroos"), 'Nothing pinned mentions "kangaroos".');
  // A header's word ("Attached file: README.md") is no hit for lookup.
  assert.equal(await lookedUp("The attached auth?"), '"auth" appears in todo:session, file:README.md.');
  // A file's path is searched, as its contents are.
  assert.equal(await lookedUp("Is auth in the README?"), '"readme" appears in file:README.md.');
  // A slug holding "]" is still a header's, so not a word the pins hold.
  pinned.setAttachment({ kind: "memory", slug: "[v2] wombat", memory: "x" });
  await store.saveAttachments(id, pinned);
  assert.equal(await lookedUp("Is wombat auth?"), '"auth" appears in todo:session, file:README.md.');
});

test("tool schemas sent with every request are counted in the plan", async () => {
  const plain = { complete: (messages) => scripted.complete(messages) };
  const schemas = endpoint({ url: "http://127.0.0.1:9/v1", model: "m" }).tools;
  const [without, withTools] = await Promise.all([plain, { ...plain, tools: schemas }].map(async (model) => {
    const { turn } = await session(model);
    return (await turn("What is pinned?")).steps[0].plan.payloadTokens;
  }));
  // The two schemas are about 110 tokens of JSON.
  assert.ok(withTools - without > 100, `${withTools} with the schemas, ${without} without`);
});

test("a reply with no text part is recorded with no text, not as [object Object]", async () => {
  let step = 0;
  const quiet = {
    complete: (messages) => step++ === 0
      ? { role: "assistant", content: [{ type: "tool_call", id: "c1", name: "lookup", arguments: { query: "auth" } }] }
      : { role: "assistant", content: [{ type: "thinking", thinking: "done" }] },
  };
  const { store, id, turn } = await session(quiet);
  const { requestId } = await turn("look it up");
  const replies = (await store.loadActivityFrames(id, requestId)).filter((f) => f.type === "reply");
  assert.deepEqual(replies.map((f) => [f.text, f.toolCalls]), [["", 1], ["", 0]]);
});

test("an endpoint URL without http:// or https:// is refused when set, without quoting it", () => {
  for (const url of ["localhost:11434/v1", "ftp://host/v1", "not a url", "javascript:alert(1)", "http//user:hunter2hunter2@host/v1"]) {
    assert.throws(() => endpoint({ url, model: "m" }), (e) => /must begin with http:\/\/ or https:\/\//.test(e.message) && !e.message.includes("hunter2"), url);
  }
  assert.equal(endpoint({ url: "https://host:8443/v1", model: "m" }).name, "m at host:8443");
  assert.throws(() => endpoint({ url: "https://u:hunter2hunter2@host/v1", model: "m" }),
    (e) => /must not hold a user or password/.test(e.message) && !e.message.includes("hunter2"));
});

test("a done: that matches no todo says so", async () => {
  const { calls, turn } = await session(scripted);
  await turn("done: review auth design");
  const tool = calls.at(-1).at(-1);
  assert.match(JSON.stringify(tool), /No todo reads \\"review auth design\\"/);
});

test("a turn stopped before its compaction writes nothing; stopped after it, says the compaction was stored", async () => {
  const { store, id, calls, turn } = await session(scripted);
  await store.appendMessages(id, [say("user", 300), say("assistant", 300), say("user", 10), say("assistant", 10)]);
  const stopped = new AbortController();
  stopped.abort("any reason, even a string");
  await assert.rejects(turn("more?", 400, { signal: stopped.signal }),
    (e) => e.name === "AbortError" && e.compactionStored === false && e.cause === "any reason, even a string");
  assert.equal((await store.loadMessages(id)).length, 4, "nothing was replaced");
  assert.equal(calls.length, 0);
  // Stopped while the model answers: the compaction before it stays, and says so.
  const stop = new AbortController();
  const slow = { name: "slow", complete: (messages) => { stop.abort(); return scripted.complete(messages); } };
  const { store: store2, id: id2, turn: turn2 } = await session(slow);
  await store2.appendMessages(id2, [say("user", 300), say("assistant", 300), say("user", 10), say("assistant", 10)]);
  await assert.rejects(turn2("more?", 400, { signal: stop.signal }), (e) => e.name === "AbortError" && e.compactionStored === true);
  const kept = await store2.loadMessages(id2);
  assert.match(kept[0].content, /^\[Summary of/);
  assert.ok(!kept.some((m) => m.content === "more?"), "the turn's own message was not stored");
});

test("an endpoint's fetch aborted by its timeout says so, as a plain AbortError too (Chrome before 124)", async () => {
  const real = globalThis.fetch;
  const user = [{ role: "user", content: "hi" }];
  try {
    for (const name of ["TimeoutError", "AbortError"]) {
      globalThis.fetch = async () => { throw new DOMException("aborted", name); };
      await assert.rejects(endpoint({ url: "http://127.0.0.1:9/v1", model: "m" }).complete(user, new AbortController().signal),
        (e) => /did not answer in 120 s/.test(e.message), name);
    }
    // Stopped by the user: passed on as it is, for the turn to say.
    const stop = new AbortController();
    stop.abort();
    globalThis.fetch = async () => { throw new DOMException("aborted", "AbortError"); };
    await assert.rejects(endpoint({ url: "http://127.0.0.1:9/v1", model: "m" }).complete(user, stop.signal), (e) => e.name === "AbortError");
  } finally {
    globalThis.fetch = real;
  }
});

test("an endpoint is sent buildRequest's OpenAI format, and never a tool call without its result", async () => {
  const real = globalThis.fetch;
  const bodies = [];
  globalThis.fetch = async (url, init) => {
    bodies.push(JSON.parse(init.body));
    const message = { role: "assistant", content: "ok" };
    return new Response(JSON.stringify({ id: "c", object: "chat.completion", created: 1, model: "m", choices: [{ index: 0, finish_reason: "stop", message }] }));
  };
  try {
    const { store, id, pinned, turn } = await session(endpoint({ url: "http://127.0.0.1:9/v1", model: "m" }));
    pinned.setAttachment({ kind: "memory", slug: "style", memory: "Short answers." });
    await store.saveAttachments(id, pinned);
    await turn("hello?");
    const [{ messages }] = bodies;
    const { messages: built } = attache.buildRequest({ format: "openai", history: [{ role: "user", content: "hello?" }], attachments: pinned.consolidatedMessage() });
    assert.deepEqual(messages.slice(1), built, "after the system prompt, exactly the OpenAI request");
    assert.deepEqual(messages[1].content.map((p) => p.text), pinned.renderAll(), "the pins as parts, each its own");
    // A call whose result never came (a session imported so): refused here.
    await store.appendMessages(id, [{ role: "assistant", content: [{ type: "tool_call", id: "call_9", name: "lookup", arguments: {} }] }]);
    await assert.rejects(turn("and now?"), (e) => attache.isAttacheError(e) && e.code === "INVALID_VALUE");
    assert.equal(bodies.length, 1, "nothing sent");
  } finally {
    globalThis.fetch = real;
  }
});

test("a first request larger than the window is not sent, however the plan reads", async () => {
  const { store, id, calls, turn } = await session(scripted);
  await assert.rejects(turn("word ".repeat(2000), 400), /Not sent: the request would be \d+ tokens, more than the 400-token window/);
  assert.equal(calls.length, 0);
  assert.deepEqual(await store.loadMessages(id), [], "nothing stored");
  // A long first message that fits still goes.
  await turn("word ".repeat(200), 400);
  assert.equal(calls.length > 0, true);
  // Refused before any compaction: the history stays as it was.
  const before = await store.loadMessages(id);
  await assert.rejects(turn("word ".repeat(2000), 400), /Not sent/);
  assert.deepEqual(await store.loadMessages(id), before, "nothing compacted");
});

test("a message refused as too large never leaves a compaction stored, at any length near the window", async () => {
  let refused = 0;
  for (let words = 250; words <= 400; words++) {
    const { store, id, turn } = await session(scripted);
    await store.appendMessages(id, [say("user", 20), say("assistant", 20)]);
    const before = await store.loadMessages(id);
    const outcome = await turn("word ".repeat(words), 400).then(() => null, (e) => e);
    if (outcome === null) continue;
    assert.match(outcome.message, /^Not sent/, `${words} words`);
    assert.equal(outcome.compactionStored, false, `${words} words`);
    assert.deepEqual(await store.loadMessages(id), before, `${words} words: nothing stored`);
    refused++;
  }
  assert.ok(refused > 0, "some lengths are refused");
});

test("a turn that fails after its compaction says the compaction was stored", async () => {
  // Another tab changes the pins while the model answers: CONFLICT.
  let other;
  const meddling = { name: "meddling", complete: async (messages) => { await other(); return scripted.complete(messages); } };
  const { store, id, turn } = await session(meddling);
  other = async () => {
    const pins = new attache.AttachmentStore();
    pins.setAttachment({ kind: "memory", slug: "other-tab", memory: "x" });
    await store.saveAttachments(id, pins);
    pins.free();
  };
  await store.appendMessages(id, [say("user", 300), say("assistant", 300), say("user", 10), say("assistant", 10)]);
  await assert.rejects(turn("more?", 400), (e) => e.code === "CONFLICT" && e.compactionStored === true && /only the compaction it made first was/.test(e.message));
  assert.match((await store.loadMessages(id))[0].content, /^\[Summary of/);
});

test("once the turn is being written, Stop no longer stops it", async () => {
  const { store, id, turn } = await session(scripted);
  const stop = new AbortController();
  let writes = 0;
  const result = await turn("What is pinned?", 8000, { signal: stop.signal, writing: () => { writes++; stop.abort(); } });
  assert.equal(writes, 1);
  assert.ok(result.answer.length > 0);
  assert.ok((await store.loadMessages(id)).some((m) => m.content === "What is pinned?"), "the turn was stored whole");
});

test("a step whose request would not fit the window is not sent", async () => {
  // A model whose tool output fills the window: the step after it stops.
  const talkative = {
    complete: (messages) => ({ role: "assistant", content: [{ type: "tool_call", id: `c${messages.length}`, name: "lookup", arguments: { query: "x".repeat(4000) } }] }),
  };
  const { calls, turn } = await session(talkative);
  const result = await turn("look it up", 1200);
  assert.equal(calls.length, 1, "one request; the next would not fit");
  assert.equal(result.steps.length, 1);
  assert.deepEqual([result.stopped, result.answer], [true, ""], "no answer: the page says the turn stopped");
});
