// attache's requests and messages go straight into the official SDKs under
// --strict, with no casts: if a type of ours drifts from an SDK's, this
// stops compiling. The SDKs are devDependencies of this test only.
import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import type { ModelMessage } from "ai";
import {
  AttachmentStore,
  MemorySessionStore,
  buildRequest,
  estimateTokens,
  fromAiSdk,
  fromAnthropic,
  fromOpenAI,
  planTurn,
  toAiSdk,
  toAnthropic,
  toOpenAI,
  type Message,
} from "attache";

export async function turn(openai: OpenAI, anthropic: Anthropic, store: MemorySessionStore, pinned: AttachmentStore, id: string) {
  // What the store returns is what every per-turn call takes.
  const history = await store.loadMessages(id);
  const tokens: number = estimateTokens(history, "openai");
  const plan = planTurn({ contextWindow: 128_000, history, attachments: pinned.consolidatedMessage() });
  const attachments = pinned.consolidatedMessage();

  const completion = await openai.chat.completions.create({
    model: "gpt-4.1",
    ...buildRequest({ format: "openai", system: "Be brief.", history, attachments }),
  });
  await store.appendMessages(id, fromOpenAI(completion));

  const reply = await anthropic.messages.create({
    model: "claude-sonnet-4-5",
    max_tokens: 1024,
    ...buildRequest({ format: "anthropic", system: "Be brief.", history, attachments, cacheControl: { type: "ephemeral", ttl: "1h" } }),
  });
  await store.appendMessages(id, fromAnthropic(reply));

  // The converters on their own.
  await openai.chat.completions.create({ model: "gpt-4.1", messages: toOpenAI(history) });
  await anthropic.messages.create({ model: "claude-sonnet-4-5", max_tokens: 1024, ...toAnthropic(history) });
  const modelMessages: ModelMessage[] = toAiSdk(history);
  const built: { messages: ModelMessage[] } = buildRequest({ format: "ai-sdk", history, attachments, cacheControl: true });
  const back: Message[] = fromAiSdk([...modelMessages, ...built.messages]);
  // A tool result's image URL comes back as an image-url item (its type
  // must hold it, or this comparison would not compile).
  const urls: string[] = [];
  for (const message of toAiSdk(history)) {
    if (message.role !== "tool") continue;
    for (const part of message.content) {
      if (part.type === "tool-result" && part.output.type === "content") {
        for (const item of part.output.value) if (item.type === "image-url") urls.push(item.url);
      }
    }
  }

  // @ts-expect-error Chat Completions messages are not Anthropic's
  await anthropic.messages.create({ model: "claude-sonnet-4-5", max_tokens: 1, ...buildRequest({ format: "openai", history }) });
  // @ts-expect-error a provider's raw response is not a message
  await store.appendMessages(id, [completion]);
  return { tokens, plan, back };
}
