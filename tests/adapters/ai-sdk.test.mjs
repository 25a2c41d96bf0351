// The README's Vercel AI SDK recipe, run as written: its block is taken
// from the README, compiled, and driven with MockLanguageModelV3.
import { describe, it, expect } from "vitest";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { transform } from "esbuild";
import { generateText, jsonSchema, simulateReadableStream, stepCountIs, tool } from "ai";
import { MockLanguageModelV3, MockLanguageModelV4 } from "ai/test";
import { AttachmentStore, MemorySessionStore, fromAiSdk, toAiSdk } from "../../pkg/index.js";

const repo = new URL("../../", import.meta.url);

async function recipe() {
  const readme = await readFile(new URL("README.md", repo), "utf8");
  const block = readme.match(/<!-- recipe: ai-sdk -->\n```ts\n([\s\S]*?)^```$/m);
  if (!block) throw new Error("README.md has no ai-sdk recipe block");
  const { code } = await transform(block[1], { loader: "ts", format: "esm" });
  const out = new URL("target/recipes/", repo);
  await mkdir(out, { recursive: true });
  const file = new URL("ai-sdk.mjs", out);
  await writeFile(file, code.replace(/from "attache"/g, `from ${JSON.stringify(new URL("pkg/index.js", repo).href)}`));
  return import(file.href);
}

const usage = {
  inputTokens: { total: 10, noCache: 10, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 3, text: 3, reasoning: 0 },
};

describe("the README's AI SDK recipe", () => {
  it("leads the request with the pins and their breakpoint, and saves the UI messages on finish", async () => {
    const { chatTurn } = await recipe();
    const model = new MockLanguageModelV3({
      doStream: async () => ({
        stream: simulateReadableStream({
          chunks: [
            { type: "stream-start", warnings: [] },
            { type: "text-start", id: "t" },
            { type: "text-delta", id: "t", delta: "Shipped " },
            { type: "text-delta", id: "t", delta: "v2." },
            { type: "text-end", id: "t" },
            { type: "finish", finishReason: { unified: "stop", raw: "stop" }, usage },
          ],
        }),
      }),
    });
    const pinned = new AttachmentStore();
    pinned.setAttachment({ kind: "memory", slug: "style", memory: "Be brief." });
    pinned.setAttachment({ kind: "todo", items: [{ text: "ship v2", completed: false }] });
    const store = new MemorySessionStore();
    const { id } = await store.createSession();
    // An image, as a chat UI sends it: convertToModelMessages makes it a
    // file part holding a URL object.
    const image = { type: "file", mediaType: "image/png", url: "data:image/png;base64,iVBORw0KGgo=" };
    const messages = [{ id: "u1", role: "user", parts: [{ type: "text", text: "Status?" }, image] }];

    const response = await chatTurn(model, store, id, pinned, messages);
    await response.text(); // the stream runs to its end; onFinish follows

    const [call] = model.doStreamCalls;
    // The system text as instructions: AI SDK 7 refuses it among the messages.
    const [system, lead, asked] = call.prompt;
    expect(system).toEqual({ role: "system", content: "Answer from the pinned context." });
    expect(lead.role).toBe("user");
    expect(lead.content.map((p) => p.text).join("")).toBe(pinned.consolidatedMessage().content.map((p) => p.text).join(""));
    expect(lead.content.at(-1).providerOptions).toEqual({ anthropic: { cacheControl: { type: "ephemeral" } } });
    expect(asked.content).toEqual([
      expect.objectContaining({ type: "text", text: "Status?" }),
      expect.objectContaining({ type: "file", mediaType: "image/png" }),
    ]);

    const saved = await store.loadSessionState(id, "ui_messages");
    expect(saved).toHaveLength(2);
    expect(saved[0]).toEqual(messages[0]);
    expect(saved[1].role).toBe("assistant");
    expect(saved[1].parts.filter((p) => p.type === "text").map((p) => p.text).join("")).toBe("Shipped v2.");
  });
});

describe("fromAiSdk on what a tool-calling run gives back", () => {
  it("keeps the whole tool round from responseMessages, as its doc says", async () => {
    const steps = [
      { content: [{ type: "tool-call", toolCallId: "c1", toolName: "weather", input: '{"city":"Oslo"}' }], finishReason: { unified: "tool-calls", raw: "tool_calls" } },
      { content: [{ type: "text", text: "Sunny, 21." }], finishReason: { unified: "stop", raw: "stop" } },
    ];
    const model = new MockLanguageModelV4({ doGenerate: async () => ({ ...steps.shift(), usage, warnings: [] }) });
    const weather = tool({ inputSchema: jsonSchema({ type: "object", properties: { city: { type: "string" } } }), execute: async () => "sunny" });
    const result = await generateText({ model, prompt: "Weather in Oslo?", tools: { weather }, stopWhen: stepCountIs(2) });
    const stored = fromAiSdk(result.responseMessages);
    expect(stored.map((m) => [m.role, ...(typeof m.content === "string" ? ["text"] : m.content.map((p) => p.type))])).toEqual([
      ["assistant", "tool_call"],
      ["tool", "tool_result"],
      ["assistant", "text"],
    ]);
    expect(stored[0].content[0]).toMatchObject({ id: "c1", name: "weather", arguments: { city: "Oslo" } });
  });
});

describe("toAiSdk's tool results, as the SDK itself reads them", () => {
  it("sends an image URL a tool gave back, which its file shape takes only as a URL object", async () => {
    // The turn as a screenshot tool written for AI SDK 6 gave it.
    const stored = fromAiSdk([
      { role: "user", content: "Show me the page." },
      { role: "assistant", content: [{ type: "tool-call", toolCallId: "c1", toolName: "shot", input: {} }] },
      { role: "tool", content: [{ type: "tool-result", toolCallId: "c1", toolName: "shot",
        output: { type: "content", value: [{ type: "image-url", url: "https://x.test/s.png" }, { type: "image-data", data: "iVBORw0KGgo=", mediaType: "image/png" }] } }] },
    ]);
    // The SDK's own model interface, which takes its current shapes.
    const model = new MockLanguageModelV4({
      // Taken as URLs, so the SDK downloads nothing.
      supportedUrls: { "image/*": [/^https:\/\//] },
      doGenerate: async () => ({ content: [{ type: "text", text: "ok" }], finishReason: { unified: "stop", raw: "stop" }, usage, warnings: [] }),
    });
    await generateText({ model, messages: JSON.parse(JSON.stringify(toAiSdk(stored))) });
    const [{ prompt }] = model.doGenerateCalls;
    const [result] = prompt.at(-1).content;
    expect(result.output.value).toEqual([
      expect.objectContaining({ type: "file", mediaType: "image", data: { type: "url", url: new URL("https://x.test/s.png") } }),
      expect.objectContaining({ type: "file", mediaType: "image/png", data: { type: "data", data: "iVBORw0KGgo=" } }),
    ]);
  });
});
