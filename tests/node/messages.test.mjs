// The converters through the built package: provider fixtures cross the
// boundary both ways unchanged, and a store keeps what it was given.
import { test, before } from "node:test";
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";

const root = new URL("../../", import.meta.url);
const attache = await import(new URL("pkg/attache.js", root));
const fixture = async (name) => JSON.parse(await readFile(new URL(`tests/fixtures/providers/${name}.json`, root), "utf8"));

before(async () => {
  await attache.default({ module_or_path: await readFile(new URL("pkg/attache_bg.wasm", root)) });
});

test("each provider's fixture converts to attache's messages and back unchanged", async () => {
  const openai = (await fixture("openai")).conversation;
  assert.deepEqual(attache.toOpenAI(attache.fromOpenAI(openai)), openai);
  const anthropic = (await fixture("anthropic")).conversation;
  assert.deepEqual(attache.toAnthropic(attache.fromAnthropic(anthropic)), anthropic);
  const aiSdk = (await fixture("ai-sdk")).conversation;
  assert.deepEqual(attache.toAiSdk(attache.fromAiSdk(aiSdk)), aiSdk);
});

test("a response is stored as attache's message and sent on to another provider", async () => {
  const { response, responseMessage } = await fixture("openai");
  const store = new attache.MemorySessionStore();
  const { id } = await store.createSession();
  await store.appendMessages(id, [{ role: "user", content: "Weather in Paris?" }]);
  await store.appendMessages(id, attache.fromOpenAI(response));
  await store.appendMessages(id, [{ role: "tool", content: [{ type: "tool_result", callId: "call_1", content: "18°C" }] }]);
  const history = await store.loadMessages(id);
  assert.deepEqual(history[1], responseMessage[0]);
  const request = attache.buildRequest({ format: "anthropic", history });
  assert.deepEqual(request.messages[1].content, [{ type: "tool_use", id: "call_1", name: "get_weather", input: { city: "Paris" } }]);
  assert.deepEqual(request.messages[2].content, [{ type: "tool_result", tool_use_id: "call_1", content: "18°C" }]);
  assert.ok(attache.estimateTokens(history) > 0);
  store.free();
});

test("a raw response is refused by the store with a typed error and its path", async () => {
  const { response } = await fixture("anthropic");
  const store = new attache.MemorySessionStore();
  const { id } = await store.createSession();
  await assert.rejects(store.appendMessages(id, [response]), (e) => attache.isAttacheError(e) && e.code === "INVALID_VALUE" && e.field === "messages[0].id");
  assert.throws(() => attache.toOpenAI([{ role: "tool", content: [{ type: "tool_result", callId: "c", content: [{ type: "image", url: "https://x.test/u.png" }] }] }]),
    (e) => attache.isAttacheError(e) && e.field === "messages[0].content[0].content[0]");
  assert.throws(() => attache.fromOpenAI(new Date(0)), (e) => attache.isAttacheError(e) && e.code === "INVALID_VALUE");
  store.free();
});
