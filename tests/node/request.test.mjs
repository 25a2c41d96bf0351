// buildRequest through the built package: what a loop sends each turn.
import { test, before } from "node:test";
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";

const root = new URL("../../", import.meta.url);
const attache = await import(new URL("pkg/attache.js", root));
const { AttachmentStore, buildRequest, isAttacheError } = attache;

before(async () => {
  await attache.default({ module_or_path: await readFile(new URL("pkg/attache_bg.wasm", root)) });
});

const history = [
  { role: "user", content: [{ type: "text", text: "hi" }] },
  { role: "assistant", content: [{ type: "text", text: "hello" }] },
  { role: "user", content: [{ type: "text", text: "next" }] },
];

test("the consolidated message leads an Anthropic request with cache breakpoints on its last two blocks", () => {
  const store = new AttachmentStore();
  store.setAttachment({ kind: "memory", slug: "m", memory: "M" });
  store.setAttachment({ kind: "todo", items: [{ text: "t", completed: false }] });
  const request = buildRequest({ format: "anthropic", system: "sys", history, attachments: store.consolidatedMessage(), cacheControl: true });
  assert.equal(request.system, "sys");
  assert.deepEqual(request.messages.map((m) => m.role), ["user", "assistant", "user"]);
  assert.deepEqual(request.messages[0].content, [
    // The todo list changes most: the memory's own breakpoint keeps its cache.
    { type: "text", text: "[Pinned memory: m]\n\nM", cache_control: { type: "ephemeral" } },
    { type: "text", text: "[Todo list]\n- [ ] t", cache_control: { type: "ephemeral" } },
    { type: "text", text: "hi" },
  ]);
  assert.equal(Object.isFrozen(store.consolidatedMessage()), true, "the shared message was not touched");
});

test("with nothing pinned every format is byte-identical to the plain history request", () => {
  const empty = new AttachmentStore();
  for (const format of ["generic", "openai", "anthropic"]) {
    const plain = JSON.stringify(buildRequest({ format, history }));
    assert.equal(JSON.stringify(buildRequest({ format, history, attachments: empty.consolidatedMessage(), cacheControl: true })), plain, format);
  }
});

test("bad options are typed errors", () => {
  for (const bad of [{}, { history: "x" }, { history, format: "gemini" }, { history, system: 1 }, { history: [1] }]) {
    assert.throws(() => buildRequest(bad), (e) => isAttacheError(e) && ["INVALID_ARGUMENT", "INVALID_VALUE"].includes(e.code), JSON.stringify(bad));
  }
});

test("reasoningContent sends an OpenAI assistant message's thinking back, and is a boolean", () => {
  const turn = [
    { role: "user", content: "q" },
    { role: "assistant", content: [{ type: "thinking", thinking: "look it up" }, { type: "tool_call", id: "a", name: "w", arguments: {} }] },
    { role: "tool", content: [{ type: "tool_result", callId: "a", content: "ok" }] },
  ];
  const sent = buildRequest({ format: "openai", history: turn, reasoningContent: true });
  assert.equal(sent.messages[1].reasoning_content, "look it up");
  for (const off of [false, undefined, null]) {
    const plain = buildRequest({ format: "openai", history: turn, reasoningContent: off });
    assert.equal(JSON.stringify(plain).includes("reasoning_content"), false, String(off));
  }
  for (const bad of [1, "true", {}]) {
    assert.throws(() => buildRequest({ format: "openai", history: turn, reasoningContent: bad }), (e) => isAttacheError(e) && e.code === "INVALID_ARGUMENT" && e.field === "reasoningContent");
  }
});
