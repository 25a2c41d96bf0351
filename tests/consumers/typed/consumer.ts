// Compiled with `tsc --strict --noEmit`: the package's types must accept
// what a web agent writes and reject what it gets wrong. Every line marked
// to expect an error must fail to compile, or tsc reports the mark unused.
import {
  AttachmentStore,
  IdbSessionStore,
  MemorySessionStore,
  isAttacheError,
  buildRequest,
  estimateTokens,
  planTurn,
  redactCredentials,
  type ActivityFrame,
  type AnthropicRequest,
  type Message,
  type RequestFrames,
  type RequestSummary,
  type PrefixCheck,
  type TurnPlan,
  type AttacheErrorCode,
  type AttachmentSpec,
  type ConsolidatedMessage,
  type Json,
  type SerializedReplState,
  type SessionInfo,
  type SessionStore,
  type SnapshotNode,
} from "attache";
import initSlim, { AttachmentStore as SlimAttachmentStore } from "attache/slim";

const specs: AttachmentSpec[] = [
  { kind: "memory", slug: "auth", memory: "Use Argon2id." },
  { kind: "file", path: "src/main.rs" },
  { kind: "file", path: "NOTES.md", contents: "# notes", truncate: false },
  { kind: "todo", items: [{ text: "ship", completed: false }] },
  { kind: "custom", id: "skill:review", rank: "memory", text: "Review like a maintainer." },
];

const pinned = new AttachmentStore();
const ids: string[] = specs.map((spec) => pinned.setAttachment(spec));
const size: number = pinned.size;
const message: ConsolidatedMessage | undefined = pinned.consolidatedMessage();
if (message) {
  const role: "user" = message.role;
  const first: string = message.content[0].text;
  console.log(role, first, ids, size);
}
const removed: boolean = pinned.detachAttachment("file:src/main.rs");
const rendered: string | undefined = pinned.renderAttachment("todo:session");
console.log(removed, rendered);

// @ts-expect-error a memory spec needs its memory text
pinned.setAttachment({ kind: "memory", slug: "x" });
// @ts-expect-error the kinds are a closed union
pinned.setAttachment({ kind: "image", url: "x.png" });
// @ts-expect-error todo items need a completed flag
pinned.setAttachment({ kind: "todo", items: [{ text: "x" }] });
// @ts-expect-error a custom attachment ranks as memory, file or todo
pinned.setAttachment({ kind: "custom", id: "a:b", rank: "custom", text: "t" });

// Each turn: count, plan, build, check the cached prefix.
const history: Message[] = [
  { role: "user", content: "hi" },
  { role: "assistant", content: [{ type: "tool_call", id: "c1", name: "search", arguments: { q: "x" } }] },
  { role: "tool", content: [{ type: "tool_result", callId: "c1", content: "found" }] },
];
const tokens: number = estimateTokens(history, { ratio: 3.7, perMessage: 4 });
// A readonly history is counted as planTurn and buildRequest take it.
const frozen: readonly Message[] = history;
estimateTokens(frozen);
const plan: TurnPlan = planTurn({ contextWindow: 200_000, history, attachments: pinned.consolidatedMessage(), counter: "anthropic" });
if (plan.action === "compact") console.log(plan.historyBudget, tokens);
const request: AnthropicRequest = buildRequest({ format: "anthropic", history, attachments: pinned.consolidatedMessage(), cacheControl: true });
const check: PrefixCheck = pinned.checkPrefix({ provider: "anthropic" });
console.log(request.messages.length, check.change?.attachmentId);
// @ts-expect-error planTurn's action is a closed union
const wrongAction: TurnPlan["action"] = "defer";
// @ts-expect-error the shared consolidated message is read-only
pinned.consolidatedMessage()!.role = "user";
// @ts-expect-error frozen, parts and all
pinned.consolidatedMessage()!.content[0]!.text = "y";
// Yet it is a message, to count or convert with the rest.
estimateTokens([pinned.consolidatedMessage()!, ...history]);
const asMessage: Message = pinned.consolidatedMessage()!;
console.log(asMessage);
// @ts-expect-error an unknown request format
buildRequest({ format: "gemini", history });
// @ts-expect-error a tool result belongs in a tool message
estimateTokens([{ role: "user", content: [{ type: "tool_result", callId: "c1", content: "x" }] }]);
console.log(wrongAction);

async function persist(sessions: SessionStore): Promise<SessionInfo> {
  const session = await sessions.createSession({ title: "typed", meta: { model: "local" } });
  const frames: ActivityFrame[] = [{ type: "tool", input: { q: "x" } }];
  await sessions.appendActivityFrames(session.id, "r1", frames);
  const kept: readonly ActivityFrame[] = frames;
  await sessions.appendActivityFrames(session.id, "r1", kept);
  const back: ActivityFrame[] = await sessions.loadActivityFrames(session.id);
  // null is every request, as absent is.
  await sessions.loadActivityFrames(session.id, null);
  // What a host builds: optional fields left undefined, readonly lists.
  type Step = { type: string; input?: Json; tags: readonly string[] };
  const step: Step = { type: "tool", input: undefined, tags: ["a"] };
  await sessions.appendActivityFrames(session.id, "r1", [step]);
  await sessions.saveSessionState(session.id, "plan", { step: 2, note: undefined as string | undefined });
  await sessions.commitTurn(session.id, { state: { plan: { done: ["a"] as const } }, frames: [{ requestId: "r1", frames: [step] }] });
  // A history built as a host builds it: read-only (`as const`), optional fields undefined.
  const unit: string | undefined = undefined;
  const turn = [
    { role: "user", content: [{ type: "text", text: "weather?" }] },
    { role: "assistant", content: [{ type: "tool_call", id: "c1", name: "weather", arguments: { city: "Oslo", unit } }], meta: { trace: unit } },
    { role: "tool", content: [{ type: "tool_result", callId: "c1", content: [{ type: "text", text: "3°C" }] }] },
  ] as const;
  await sessions.appendMessages(session.id, turn);
  buildRequest({ format: "openai", history: turn });
  estimateTokens(turn);
  // @ts-expect-error a tool call's arguments are JSON
  await sessions.appendMessages(session.id, [{ role: "assistant", content: [{ type: "tool_call", id: "c2", name: "f", arguments: () => 1 }] }]);
  const document = await sessions.exportSession(session.id);
  await sessions.importSession({ ...document, state: { ...document.state, plan: { step: 3 } } }, { id: "copy" });
  // @ts-expect-error an imported document's state keys keep their checked shapes
  await sessions.importSession({ ...document, state: { snapshot: "not a tree" } }, { id: "copy-2" });
  const repl: SerializedReplState = { env: { x: 1 }, history: ["x = 1"] };
  await sessions.saveReplState(session.id, repl);
  const snapshot: SnapshotNode = { accepts: ["click"], state: { open: true }, children: [{ accepts: [] }] };
  await sessions.saveSnapshot(session.id, snapshot);
  const state: Json | null = await sessions.loadSessionState(session.id, "snapshot");
  // @ts-expect-error stored values are JSON, not functions
  await sessions.saveSessionState(session.id, "k", () => 1);
  // @ts-expect-error the snapshot key holds the introspection tree
  await sessions.saveSessionState(session.id, "snapshot", 42);
  // @ts-expect-error repl_state's env is an object of names
  await sessions.saveSessionState(session.id, "repl_state", { env: 1 });
  // @ts-expect-error the pins' key holds attachment specs
  await sessions.saveSessionState(session.id, "attachments", [{ kind: "bogus" }]);
  await sessions.saveSessionState(session.id, "snapshot", snapshot);
  const key: string = "snapshot";
  await sessions.saveSessionState(session.id, key, { any: "json" });
  // @ts-expect-error history is a list of strings
  await sessions.saveReplState(session.id, { history: [1] });
  await sessions.saveAttachments(session.id, pinned);
  const restored: AttachmentStore | null = await sessions.loadAttachments(session.id);
  const renamed: SessionInfo = await sessions.updateSession(session.id, { title: "renamed" });
  const tail: Message[] = await sessions.loadMessages(session.id, { limit: 20 });
  await sessions.replaceMessages(session.id, { from: 0, expectedCount: tail.length, messages: tail });
  const popped: Message | null = await sessions.popMessage(session.id);
  // What attache gives back goes back in as it is, with no cast or spread:
  // its shapes are types, which have the index signature JSON wants.
  await sessions.saveSessionState(session.id, "kept", tail);
  await sessions.saveSessionState(session.id, "requests", await sessions.listRequests(session.id));
  await sessions.appendActivityFrames(session.id, "r1", [{ plan: planTurn({ contextWindow: 8000, history: tail }) }]);
  redactCredentials(buildRequest({ format: "openai", history: tail }));
  redactCredentials(tail);
  // A host's own data with `unknown` in it (an Agents SDK input item) is checked at run time.
  const hostItem: { type: "custom"; arguments: unknown } = { type: "custom", arguments: 1 };
  redactCredentials([hostItem]);
  // A stored part's flags may be null, as a host gave them.
  for (const m of tail) {
    if (m.role !== "assistant" || typeof m.content === "string") continue;
    for (const part of m.content) {
      // @ts-expect-error a stored signature may be null
      if (part.type === "thinking" && part.signature !== undefined) console.log(part.signature.length);
    }
  }
  const requests: RequestSummary[] = await sessions.listRequests(session.id);
  const grouped: RequestFrames[] = await sessions.loadFramesByRequest(session.id);
  await sessions.commitTurn(session.id, { messages: tail, frames: [{ requestId: "r2", frames }], state: { snapshot }, attachments: pinned });
  await sessions.commitTurn(session.id, { state: { attachments: pinned.specs(), prefix_baseline: null } });
  await sessions.commitTurn(session.id, { stateIfAbsent: { attachments: pinned.specs() } });
  await sessions.saveSessionState(session.id, "attachments", pinned.specs());
  // @ts-expect-error the pins' key holds attachment specs
  await sessions.commitTurn(session.id, { state: { attachments: [1, 2] } });
  await sessions.clearMessages(session.id);
  // @ts-expect-error replaceMessages needs `from`
  await sessions.replaceMessages(session.id, { messages: [] });
  const spec: AttachmentSpec | undefined = pinned.getAttachment("todo:session");
  const all: AttachmentSpec[] = pinned.specs();
  // A file spec read back has both its optional fields.
  const file = pinned.getAttachment("file:NOTES.md");
  if (file?.kind === "file") {
    const contents: string | null = file.contents;
    const truncate: boolean = file.truncate;
    console.log(contents, truncate);
  }
  console.log(renamed, popped, requests, grouped, spec, all);
  console.log(back, state, restored?.size);
  return session;
}

async function main(): Promise<void> {
  const stores: SessionStore[] = [
    new MemorySessionStore(),
    await IdbSessionStore.open({ name: "typed", durability: "relaxed", onVersionChange: (e) => console.log(e.newVersion) }),
  ];
  // @ts-expect-error durability is a closed union
  await IdbSessionStore.open({ durability: "fast" });
  // @ts-expect-error a class's own saveSessionState types the value by its key too
  await new MemorySessionStore().saveSessionState("s", "snapshot", 42);
  for (const store of stores) await persist(store);
  try {
    pinned.setAttachment({ kind: "file", path: "" });
  } catch (e) {
    if (isAttacheError(e)) {
      const code: AttacheErrorCode = e.code;
      const field: string | undefined = e.field;
      console.log(code, field, e.domName);
    }
  }
  // @ts-expect-error error codes are a closed union
  const wrong: AttacheErrorCode = "OOPS";
  console.log(wrong);

  // Objects holding wasm memory are disposable.
  {
    using scoped = new AttachmentStore();
    scoped.setAttachment({ kind: "todo", items: [] });
  }

  // The slim entry leaves loading the wasm to the host.
  await initSlim({ module_or_path: new URL("attache/attache_bg.wasm", import.meta.url) });
  new SlimAttachmentStore().free();
}

void main();
