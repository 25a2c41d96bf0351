use wasm_bindgen::prelude::*;

// Precise types for the values that cross the boundary as JsValue.
#[wasm_bindgen(typescript_custom_section)]
const TYPES: &'static str = r#"
/** `memory:{slug}`: a fact that must stay visible. */
export type MemorySpec = { kind: "memory"; slug: string; memory: string }
/** `file:{path}`: path only when `contents` is absent or null. Inline contents
 * past 8192 UTF-8 bytes are cut unless `truncate` is false. */
export type FileSpec = { kind: "file"; path: string; contents?: string | null | undefined; truncate?: boolean | undefined }
export type TodoItem = { text: string; completed: boolean }
/** `todo:session`: the live task list. */
export type TodoSpec = { kind: "todo"; items: TodoItem[] }
/** Host-rendered: `text` is sent verbatim, ranked with `rank`'s kind. */
export type CustomSpec = { kind: "custom"; id: `${string}:${string}`; rank: AttachmentKind; text: string }
export type AttachmentKind = "memory" | "file" | "todo";
export type AttachmentSpec = MemorySpec | FileSpec | TodoSpec | CustomSpec;
/** A file spec as attache gives it back: both fields are always set. */
export type PinnedFileSpec = FileSpec & { contents: string | null; truncate: boolean }
/** A spec as attache gives it back; it is an `AttachmentSpec` too. */
export type PinnedSpec = MemorySpec | PinnedFileSpec | TodoSpec | CustomSpec;
/** A spec as attache takes it: a todo list may be read-only (`as const`). */
export type AttachmentSpecInput = MemorySpec | FileSpec | { kind: "todo"; items: readonly TodoItem[] } | CustomSpec;

export type TextPart = { type: "text"; text: string }
/** One all-text user message carrying every pinned attachment. As
 * `consolidatedMessage()` gives it, it is frozen, parts and all: its
 * parts are typed read-only, its list not, so it still passes as a
 * `Message`, but `push` or `sort` on it throws. */
export type ConsolidatedMessage = { role: "user"; content: Readonly<TextPart>[] }

export type AttacheErrorCode =
  | "UNKNOWN_KIND" | "INVALID_SPEC" | "INVALID_ID"
  | "INVALID_ARGUMENT" | "INVALID_VALUE" | "CREDENTIAL"
  | "NOT_FOUND" | "ALREADY_EXISTS" | "CONFLICT"
  | "VERSION" | "QUOTA" | "ABORTED" | "CONNECTION_LOST" | "UNAVAILABLE"
  | "FREED" | "INVALID_THIS" | "BUSY";
export interface AttacheError extends Error {
  name: "AttacheError";
  code: AttacheErrorCode;
  /** The field at fault, such as `items[2].text` or `frames[3].input`. */
  field?: string;
  /** What a `CREDENTIAL` refusal found, such as `openai_key` or `credential_field`; never the secret. */
  kind?: string;
  /** The DOMException name behind a storage error, such as `QuotaExceededError`. */
  domName?: string;
  /** What caused it: the DOMException itself, or what the host's code threw (a counter, a getter, a toJSON, a Proxy's trap). */
  cause?: unknown;
}

/** attache's one message model: what the host stores, counts and sends. */
export type Role = "system" | "user" | "assistant" | "tool";
/** An image by URL, or as base64 with its media type. */
export type ImagePart = { type: "image"; url: string } | { type: "image"; data: string; mediaType: string };
/** A tool call; `arguments` is JSON, not JSON text. */
export type ToolCallPart = { type: "tool_call"; id: string; name: string; arguments: Json }
/** `isError` may be `null`, read as absent: the stores give a message back as it was given. */
export type ToolResultPart = { type: "tool_result"; callId: string; content: string | Array<TextPart | ImagePart>; isError?: boolean | null | undefined }
/** Model reasoning; Anthropic needs the `signature` to take it back (`null`, as a host may store it, is absent). */
export type ThinkingPart = { type: "thinking"; thinking: string; signature?: string | null | undefined }
export type Part = TextPart | ImagePart | ToolCallPart | ToolResultPart | ThinkingPart;
export type SystemMessage = { role: "system"; content: string | TextPart[]; meta?: JsonObject | undefined }
export type UserMessage = { role: "user"; content: string | Array<TextPart | ImagePart>; meta?: JsonObject | undefined }
export type AssistantMessage = { role: "assistant"; content: string | Array<TextPart | ThinkingPart | ToolCallPart>; meta?: JsonObject | undefined }
export type ToolMessage = { role: "tool"; content: ToolResultPart[]; meta?: JsonObject | undefined }
/** A string `content` is one text part. Stores give messages back as given; `from…` converters give arrays.
 * `meta` is the host's own data: stored and returned, never sent or counted. */
export type Message = SystemMessage | UserMessage | AssistantMessage | ToolMessage;
/** A message as attache takes it: read-only (`as const`) data, with JSON as a host builds it
 * (an `undefined` field is dropped) in `arguments` and `meta`. A `Message` is one. */
export type MessageInput =
  | { readonly role: "system"; readonly content: string | readonly Readonly<TextPart>[]; readonly meta?: JsonObjectInput | undefined }
  | { readonly role: "user"; readonly content: string | ReadonlyArray<Readonly<TextPart> | Readonly<ImagePart>>; readonly meta?: JsonObjectInput | undefined }
  | { readonly role: "assistant"; readonly content: string | ReadonlyArray<Readonly<TextPart> | Readonly<ThinkingPart> | ToolCallPartInput>; readonly meta?: JsonObjectInput | undefined }
  | { readonly role: "tool"; readonly content: readonly ToolResultPartInput[]; readonly meta?: JsonObjectInput | undefined };
export type ToolCallPartInput = { readonly type: "tool_call"; readonly id: string; readonly name: string; readonly arguments: JsonInput }
export type ToolResultPartInput = { readonly type: "tool_result"; readonly callId: string; readonly content: string | ReadonlyArray<Readonly<TextPart> | Readonly<ImagePart>>; readonly isError?: boolean | null | undefined }

/** What `toOpenAI` and `buildRequest({ format: "openai" })` give: Chat Completions messages. */
export type OpenAITextPart = { type: "text"; text: string }
export type OpenAIImagePart = { type: "image_url"; image_url: { url: string } }
export type OpenAIToolCall = { id: string; type: "function"; function: { name: string; arguments: string } }
export type OpenAIChatMessage =
  | { role: "system"; content: string | OpenAITextPart[] }
  | { role: "user"; content: string | Array<OpenAITextPart | OpenAIImagePart> }
  | { role: "assistant"; content: string | OpenAITextPart[] | null; tool_calls?: OpenAIToolCall[]; reasoning_content?: string }
  | { role: "tool"; tool_call_id: string; content: string | OpenAITextPart[] };
export type OpenAIRequest = { messages: OpenAIChatMessage[] }

/** What `toAnthropic` and `buildRequest({ format: "anthropic" })` give: Messages API fields. */
export type AnthropicCacheControl = { type: "ephemeral"; ttl?: "5m" | "1h" }
export type AnthropicTextBlock = { type: "text"; text: string; cache_control?: AnthropicCacheControl }
export type AnthropicImageBlock = {
  type: "image";
  source: { type: "url"; url: string } | { type: "base64"; media_type: "image/jpeg" | "image/png" | "image/gif" | "image/webp"; data: string };
  cache_control?: AnthropicCacheControl;
}
export type AnthropicToolUseBlock = { type: "tool_use"; id: string; name: string; input: JsonObject; cache_control?: AnthropicCacheControl }
export type AnthropicToolResultBlock = {
  type: "tool_result"; tool_use_id: string; content?: string | Array<AnthropicTextBlock | AnthropicImageBlock>;
  is_error?: boolean; cache_control?: AnthropicCacheControl;
}
export type AnthropicThinkingBlock = { type: "thinking"; thinking: string; signature: string }
export type AnthropicMessage =
  | { role: "user"; content: Array<AnthropicTextBlock | AnthropicImageBlock | AnthropicToolResultBlock> }
  | { role: "assistant"; content: Array<AnthropicTextBlock | AnthropicThinkingBlock | AnthropicToolUseBlock> };
/** `system` is a string for one system text, text blocks for several. */
export type AnthropicRequest = { system?: string | AnthropicTextBlock[]; messages: AnthropicMessage[] }

/** What `toAiSdk` and `buildRequest({ format: "ai-sdk" })` give: the Vercel AI SDK's `ModelMessage`s. */
export type AiSdkProviderOptions = { [provider: string]: JsonObject };
export type AiSdkTextPart = { type: "text"; text: string; providerOptions?: AiSdkProviderOptions }
/** An image: a URL (`mediaType: "image"`) or base64 with its type. `fromAiSdk` also takes the deprecated `image` part and tagged `data`. */
export type AiSdkFilePart = { type: "file"; data: string; mediaType: string; providerOptions?: AiSdkProviderOptions }
export type AiSdkReasoningPart = { type: "reasoning"; text: string; providerOptions?: AiSdkProviderOptions }
export type AiSdkToolCallPart = { type: "tool-call"; toolCallId: string; toolName: string; input: Json; providerOptions?: AiSdkProviderOptions }
export type AiSdkToolResultOutput =
  | { type: "text" | "error-text"; value: string }
  | { type: "content"; value: Array<{ type: "text"; text: string } | { type: "file"; data: { type: "data"; data: string }; mediaType: string } | { type: "image-url"; url: string }> };
export type AiSdkToolResultPart = { type: "tool-result"; toolCallId: string; toolName: string; output: AiSdkToolResultOutput }
export type AiSdkMessage =
  | { role: "system"; content: string }
  | { role: "user"; content: Array<AiSdkTextPart | AiSdkFilePart> }
  | { role: "assistant"; content: Array<AiSdkTextPart | AiSdkReasoningPart | AiSdkToolCallPart> }
  | { role: "tool"; content: AiSdkToolResultPart[] };
/** System text goes in `instructions` (one text as a string): AI SDK 7 refuses it among the messages. */
export type AiSdkRequest = { instructions?: string | Array<{ role: "system"; content: string }>; messages: AiSdkMessage[] }

/** A built-in counter, `{ ratio, perMessage }` (`ratio` characters per token, 0.01 to 10000; `perMessage` a whole number), or the
 * host's own function, synchronous, whose fraction of a token is rounded up. */
export type TokenCounterSpec =
  | "heuristic" | "openai" | "anthropic" | "gemini" | "local"
  | { ratio: number; perMessage?: number | undefined }
  | ((messages: Message[]) => number);
/** Token counts and the window are whole numbers; `thresholdPercent` too. */
export type PlanTurnOptions = {
  contextWindow: number;
  /** The compaction trigger as a percentage of the window; default 80. */
  thresholdPercent?: number | null | undefined;
  /** The history's messages, or its token count. */
  history: readonly MessageInput[] | number;
  /** Per-request overhead: the system prompt, tool schemas. */
  overheadTokens?: number | null | undefined;
  /** The consolidated attachment message, if any. */
  attachments?: Readonly<ConsolidatedMessage> | null | undefined;
  /** Messages host code computes for this turn. */
  contributors?: readonly MessageInput[] | null | undefined;
  /** Memory transients retrieved for this turn. */
  memories?: readonly MessageInput[] | null | undefined;
  counter?: TokenCounterSpec | null | undefined;
}
export type TurnPlan = {
  /** `compact`: at or over the threshold or the 95% emergency line;
   * `context_exceeded`: transients plus overhead alone reach the lower of the two. */
  action: "send" | "compact" | "context_exceeded";
  emergency: boolean;
  /** History plus overhead plus transients. */
  payloadTokens: number;
  historyTokens: number;
  transientTokens: number;
  overheadTokens: number;
  thresholdTokens: number;
  emergencyTokens: number;
  /** Transients plus overhead. */
  reserveTokens: number;
  /** What to compact the history to, at most: loopctl's default target, 15% of the threshold line, or less when the reserve leaves less room, so that the next plan sends (0 when the context is exceeded). */
  historyBudget: number;
}

export type BuildRequestOptions = {
  /** `generic` (attache's messages, the default), OpenAI Chat Completions, Anthropic Messages or the Vercel AI SDK. */
  format?: "generic" | "openai" | "anthropic" | "ai-sdk" | null | undefined;
  /** A system prompt: a leading message, or Anthropic's top-level `system`. */
  system?: string | null | undefined;
  /** The consolidated attachment message: it leads the request. */
  attachments?: Readonly<ConsolidatedMessage> | null | undefined;
  contributors?: readonly MessageInput[] | null | undefined;
  memories?: readonly MessageInput[] | null | undefined;
  history: readonly MessageInput[];
  /** Anthropic and the AI SDK: cache breakpoints on the last two parts of the pinned prefix.
   * (The blocks sent carry `AnthropicCacheControl`, with no `undefined`, as the SDK's types want.) */
  cacheControl?: boolean | { type: "ephemeral"; ttl?: "5m" | "1h" | undefined } | null | undefined;
  /** OpenAI: an assistant message's thinking goes as its `reasoning_content`, which
   * DeepSeek's thinking mode needs back after a tool call; servers that refuse the field do not want it. */
  reasoningContent?: boolean | null | undefined;
}
/** `buildRequest`'s result in the generic format. */
export type GenericRequest = { messages: Message[] }
/** Spread into the provider's request body beside `model` and the rest:
 * `client.chat.completions.create({ model, ...buildRequest({ format: "openai", history }) })`. */
export function buildRequest(options: BuildRequestOptions & { format: "openai" }): OpenAIRequest;
export function buildRequest(options: BuildRequestOptions & { format: "anthropic" }): AnthropicRequest;
export function buildRequest(options: BuildRequestOptions & { format: "ai-sdk" }): AiSdkRequest;
/** `format` left out, `null` or `undefined` (as under `exactOptionalPropertyTypes`): the generic format. */
export function buildRequest(options: BuildRequestOptions & { format?: "generic" | null | undefined }): GenericRequest;
export function buildRequest(options: BuildRequestOptions): GenericRequest | OpenAIRequest | AnthropicRequest | AiSdkRequest;
export type CheckPrefixOptions = {
  /** Picks the minimum cacheable length and the default counter. */
  provider?: "openai" | "anthropic" | null | undefined;
  /** Anthropic: 4096 on Opus 4.5 to 4.7, Haiku 4.5 and Mythos Preview, 2048 on Haiku 3 and 3.5, else 1024. */
  model?: string | null | undefined;
  /** Overrides the provider's minimum cacheable length. */
  minTokens?: number | null | undefined;
  counter?: TokenCounterSpec | null | undefined;
}
export type PrefixCheck = {
  /** No earlier check to compare with. */
  first: boolean;
  /** The same texts part by part as at the previous check: text moving
   * between parts is a change, as providers cache blocks (two parts of
   * one text trading places are not). */
  stable: boolean;
  /** Where it first differs: a UTF-8 byte offset into the concatenated rendered
   * parts, and the attachment that changed (after a detach, the one detached;
   * after a move, one re-pinned since the last check, else the one that moved furthest). */
  change: { offset: number; attachmentId: string } | null;
  prefixBytes: number;
  prefixTokens: number;
  minCacheableTokens: number;
  belowMinimum: boolean;
  /** Set when the prefix is too short for the provider to cache. */
  warning: string | null;
}

/** JSON data: what the session stores keep. */
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type JsonObject = { [key: string]: Json };
/** JSON data as the stores take it: readonly arrays too, and fields that are
 * `undefined`, which are left out, as `JSON.stringify` leaves them. attache's
 * own shapes are types, so they pass as they are; an interface has no index
 * signature: spread a host's own, `{ ...value }`, to pass one. */
export type JsonInput = null | boolean | number | string | readonly JsonInput[] | { readonly [key: string]: JsonInput | undefined };
/** An object of JSON data as the stores take it. */
export type JsonObjectInput = { readonly [key: string]: JsonInput | undefined };
/** One activity frame: any JSON object, returned exactly as given. */
export type ActivityFrame = JsonObject;
/** The REPL's state under key `repl_state`. */
export type SerializedReplState = { env?: { [name: string]: Json } | undefined; history?: string[] | undefined }
/** The target's introspection tree under key `snapshot`. */
export type SnapshotNode = { accepts?: Json | undefined; state?: Json | undefined; children?: SnapshotNode[] | undefined; [key: string]: Json | SnapshotNode[] | undefined }
export type NewSession = { id?: string | undefined; title?: string | undefined; meta?: JsonObjectInput | undefined }
export type SessionInfo = {
  id: string;
  title: string;
  /** Milliseconds since the Unix epoch. */
  createdAt: number;
  /** Set to the time of every write to the session and of `updateSession`, but never moved back (a clock set back, or a write in the same millisecond, leaves it); not by a call that writes nothing; an import keeps the document's, but none later than the import. */
  updatedAt: number;
  meta: JsonObject;
}
/** Sent when another connection upgrades (or, with `newVersion: null`, deletes) the database. */
export type VersionChangeEvent = { oldVersion: number; newVersion: number | null }
/** A write's redactions: each credential replaced with `[REDACTED:<kind>]`, at its JSON path. */
export type RedactionEvent = { sessionId: string; redactions: { path: string; kind: string }[] }
export type SessionStoreOptions = {
  /** A credential in a value: `"refuse"` the write (default) or `"redact"` it. Ids, keys and pins are refused either way. */
  credentials?: "refuse" | "redact" | undefined;
  /** Called once a write that redacted something has completed; what it throws is ignored. */
  onRedact?: ((event: RedactionEvent) => void) | undefined;
}
export type IdbSessionStoreOptions = SessionStoreOptions & {
  /** Database name; default `"attache"`. */
  name?: string | undefined;
  /** Applied to write transactions; default `"default"`. */
  durability?: "default" | "strict" | "relaxed" | undefined;
  /** Called after the store closed its connection for another's upgrade; the next call reopens. */
  onVersionChange?: ((event: VersionChangeEvent) => void) | undefined;
}
/** What `updateSession` changes; the id cannot. */
export type SessionUpdate = { title?: string | undefined; meta?: JsonObjectInput | undefined }
/** The last `limit` messages before position `before` (positions count from 0). */
export type LoadMessagesOptions = { limit?: number | undefined; before?: number | undefined }
/** Replaces every message from position `from` on; with `expectedCount`, only
 * if the history still has that many messages (else `CONFLICT`). */
export type ReplaceMessagesOptions = { from: number; expectedCount?: number | undefined; messages: readonly MessageInput[] }
export type RequestSummary = { requestId: string; frames: number; firstAt: number; lastAt: number }
export type RequestFrames = { requestId: string; frames: ActivityFrame[] }
/** Everything one turn wrote, committed in one transaction. */
export type TurnCommit = {
  messages?: readonly MessageInput[] | undefined;
  /** Replace the history from this position on with `messages`, rather than append. */
  replaceFrom?: number | undefined;
  frames?: ReadonlyArray<{ requestId: string; frames: readonly JsonObjectInput[] }> | undefined;
  /**
   * Session state by key. Four keys keep checked shapes: `snapshot`,
   * `repl_state`, and the pins' own `attachments` and `prefix_baseline`
   * (attachment specs), which `attachments` below writes: with it given,
   * neither may be here or in `stateIfAbsent`.
   */
  state?: SessionStateInput | undefined;
  /** Session state written only where its key holds nothing yet: the first write wins. Checked as `state`. */
  stateIfAbsent?: SessionStateInput | undefined;
  /** `CONFLICT`, and nothing written, unless the history holds this many messages. */
  expectedCount?: number | undefined;
  /** `CONFLICT`, and nothing written, if any of these state keys holds a value. */
  requireAbsent?: readonly string[] | undefined;
  /** Saved under key `attachments`, as `saveAttachments` does. */
  attachments?: AttachmentStore | undefined;
}
/** Session state by key, as `commitTurn` takes it: the four checked keys with their shapes. */
export type SessionStateInput = {
  readonly snapshot?: SnapshotNode | undefined;
  readonly repl_state?: SerializedReplState | undefined;
  readonly attachments?: readonly AttachmentSpecInput[] | undefined;
  readonly prefix_baseline?: readonly AttachmentSpecInput[] | null | undefined;
  readonly [key: string]: JsonInput | SnapshotNode | SerializedReplState | readonly AttachmentSpecInput[] | undefined;
}
/** What `saveSessionState` takes under key `K`: the four checked keys keep their shapes. */
export type SessionStateValue<K extends string> =
  K extends "snapshot" ? SnapshotNode
  : K extends "repl_state" ? SerializedReplState
  : K extends "attachments" ? readonly AttachmentSpecInput[]
  : K extends "prefix_baseline" ? readonly AttachmentSpecInput[] | null
  : JsonInput | readonly AttachmentSpecInput[];
/** Keys starting with `prefix` and below `before` (UTF-16 order, as IndexedDB compares), ascending or `reverse`, at most `limit`. */
export type StateKeyOptions = { prefix?: string | undefined; before?: string | undefined; limit?: number | undefined; reverse?: boolean | undefined }
/** A session as one document: what `exportSession` gives and `importSession` takes. */
export type SessionDocument = {
  format: "attache-session";
  version: 1;
  session: SessionInfo;
  /** Every session-state key; the pins are under `attachments`. */
  state: { [key: string]: Json };
  messages: Message[];
  frames: RequestFrames[];
}
/** What `importSession` takes: an exported document, edited or not (pins
 * put back under `state.attachments` as `specs()` gives them, say). */
export type SessionDocumentInput = {
  readonly format: "attache-session";
  readonly version: 1;
  readonly session: { readonly id: string; readonly title: string; readonly createdAt: number; readonly updatedAt: number; readonly meta: JsonObjectInput };
  /** Each value checked as its key's, as `commitTurn`'s `state` is. */
  readonly state: SessionStateInput;
  readonly messages: readonly MessageInput[];
  readonly frames: ReadonlyArray<{ readonly requestId: string; readonly frames: readonly JsonObjectInput[] }>;
}
/** Import under another id than the document's. */
export type ImportSessionOptions = { id?: string | undefined }
/** What `MemorySessionStore` and `IdbSessionStore` share. */
export interface SessionStore {
  createSession(options?: NewSession): Promise<SessionInfo>;
  getSession(id: string): Promise<SessionInfo | null>;
  listSessions(): Promise<SessionInfo[]>;
  deleteSession(id: string): Promise<boolean>;
  /** `snapshot`, `repl_state`, `attachments` and `prefix_baseline` keep checked shapes (see `TurnCommit.state`). */
  saveSessionState<K extends string>(sessionId: string, key: K, value: SessionStateValue<K>): Promise<void>;
  loadSessionState(sessionId: string, key: string): Promise<Json | null>;
  listSessionStateKeys(sessionId: string, options?: StateKeyOptions): Promise<string[]>;
  loadSessionStates(sessionId: string, keys: readonly string[]): Promise<(Json | null)[]>;
  deleteSessionState(sessionId: string, key: string): Promise<boolean>;
  saveSnapshot(sessionId: string, snapshot: SnapshotNode): Promise<void>;
  loadSnapshot(sessionId: string): Promise<SnapshotNode | null>;
  saveReplState(sessionId: string, state: SerializedReplState): Promise<void>;
  loadReplState(sessionId: string): Promise<SerializedReplState | null>;
  appendActivityFrames(sessionId: string, requestId: string, frames: readonly JsonObjectInput[]): Promise<void>;
  loadActivityFrames(sessionId: string, requestId?: string | null): Promise<ActivityFrame[]>;
  appendMessages(sessionId: string, messages: readonly MessageInput[]): Promise<void>;
  loadMessages(sessionId: string, options?: LoadMessagesOptions): Promise<Message[]>;
  updateSession(id: string, update: SessionUpdate): Promise<SessionInfo>;
  replaceMessages(sessionId: string, options: ReplaceMessagesOptions): Promise<void>;
  popMessage(sessionId: string): Promise<Message | null>;
  clearMessages(sessionId: string): Promise<void>;
  listRequests(sessionId: string): Promise<RequestSummary[]>;
  loadFramesByRequest(sessionId: string): Promise<RequestFrames[]>;
  commitTurn(sessionId: string, turn: TurnCommit): Promise<void>;
  exportSession(id: string): Promise<SessionDocument>;
  importSession(document: SessionDocumentInput, options?: ImportSessionOptions): Promise<SessionInfo>;
  saveAttachments(sessionId: string, pinned: AttachmentStore): Promise<void>;
  loadAttachments(sessionId: string): Promise<AttachmentStore | null>;
}
"#;
