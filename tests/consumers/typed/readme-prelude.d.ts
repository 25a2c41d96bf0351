// What the README's snippets take as given: the host's own values. Each
// snippet is compiled as its own module against these (consumers.test.mjs).
import type Anthropic from "@anthropic-ai/sdk";
import type { ActivityFrame, AttachmentStore, Message, SessionStore } from "attache";

declare global {
  const source: string;
  const userSuppliedKey: string;
  const turnFrames: ActivityFrame[];
  const requestId: string;
  const sessions: SessionStore;
  const sessionId: string;
  const pinned: AttachmentStore;
  const toolSchemaTokens: number;
  const contributors: Message[];
  const memories: Message[];
  const system: string;
  const model: string;
  const anthropic: Anthropic;
  function compact(history: Message[], budget: number): Promise<Message[]>;
}
