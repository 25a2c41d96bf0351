use wasm_bindgen::prelude::*;

// Precise types for the values that cross the boundary as JsValue.
#[wasm_bindgen(typescript_custom_section)]
const TYPES: &'static str = r#"
/** `memory:{slug}`: a fact that must stay visible. */
export interface MemorySpec { kind: "memory"; slug: string; memory: string }
/** `file:{path}`: path only when `contents` is absent or null. Inline contents
 * past 8192 UTF-8 bytes are cut unless `truncate` is false. */
export interface FileSpec { kind: "file"; path: string; contents?: string | null; truncate?: boolean }
export interface TodoItem { text: string; completed: boolean }
/** `todo:session`: the live task list. */
export interface TodoSpec { kind: "todo"; items: TodoItem[] }
/** Host-rendered: `text` is sent verbatim, ranked with `rank`'s kind. */
export interface CustomSpec { kind: "custom"; id: `${string}:${string}`; rank: AttachmentKind; text: string }
export type AttachmentKind = "memory" | "file" | "todo";
export type AttachmentSpec = MemorySpec | FileSpec | TodoSpec | CustomSpec;

export interface TextPart { type: "text"; text: string }
/** One all-text user message carrying every pinned attachment. */
export interface ConsolidatedMessage { role: "user"; content: TextPart[] }

export type AttacheErrorCode =
  | "UNKNOWN_KIND" | "INVALID_SPEC" | "INVALID_ID"
  | "INVALID_ARGUMENT" | "INVALID_VALUE" | "CREDENTIAL"
  | "NOT_FOUND" | "ALREADY_EXISTS"
  | "VERSION" | "QUOTA" | "ABORTED" | "CONNECTION_LOST" | "UNAVAILABLE"
  | "FREED" | "INVALID_THIS";
export interface AttacheError extends Error {
  name: "AttacheError";
  code: AttacheErrorCode;
  /** The field at fault, such as `items[2].text` or `frames[3].input`. */
  field?: string;
  /** The DOMException name behind a storage error, such as `QuotaExceededError`. */
  domName?: string;
  /** What caused it: the DOMException itself, or what the host's counter threw. */
  cause?: unknown;
}

/** A message part the token counters understand. */
export type CountablePart =
  | TextPart
  | { type: "thinking"; thinking?: string; text?: string }
  | { type: "image" | "image_url"; [key: string]: Json }
  | { type: "tool_call" | "tool_use"; name: string; input?: Json; arguments?: Json; id?: string }
  | { type: "tool_result"; content?: string | Array<TextPart | { type: "image" | "image_url" }>; output?: string; tool_use_id?: string };
/** A message as counted: `content` is a string or a list of parts. */
export interface CountableMessage { role: string; content: string | CountablePart[] }
/** A built-in counter, `{ ratio, perMessage }`, or the host's own function. */
export type TokenCounterSpec =
  | "heuristic" | "openai" | "anthropic" | "gemini" | "local"
  | { ratio: number; perMessage?: number }
  | ((messages: CountableMessage[]) => number);
export interface PlanTurnOptions {
  contextWindow: number;
  /** The compaction trigger as a percentage of the window; default 80. */
  thresholdPercent?: number;
  /** The history's messages, or its token count. */
  history: CountableMessage[] | number;
  /** Per-request overhead such as tool schemas. */
  overheadTokens?: number;
  /** The consolidated attachment message, if any. */
  attachments?: Readonly<ConsolidatedMessage> | null;
  /** Messages host code computes for this turn. */
  contributors?: CountableMessage[];
  /** Memory transients retrieved for this turn. */
  memories?: CountableMessage[];
  counter?: TokenCounterSpec;
}
export interface TurnPlan {
  /** `compact`: at or over the threshold or the 95% emergency line;
   * `context_exceeded`: transients plus overhead alone pass the window. */
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
  /** The window minus the reserve: what compaction must land the history under. */
  historyBudget: number;
}

export interface BuildRequestOptions {
  /** `generic` (attache's message shape, the default), OpenAI Chat Completions or Anthropic Messages. */
  format?: "generic" | "openai" | "anthropic";
  /** A system prompt: a leading message, or Anthropic's top-level `system`. */
  system?: string;
  /** The consolidated attachment message: it leads the request. */
  attachments?: Readonly<ConsolidatedMessage> | null;
  contributors?: StoredMessage[];
  memories?: StoredMessage[];
  history: StoredMessage[];
  /** Anthropic only: a cache breakpoint on the last block of the pinned prefix. */
  cacheControl?: boolean | { type: "ephemeral"; ttl?: "5m" | "1h" };
}
/** Spread into the provider's request body beside `model` and the rest. */
export interface BuiltRequest { system?: string; messages: JsonObject[] }
export interface CheckPrefixOptions {
  /** Picks the minimum cacheable length and the default counter. */
  provider?: "openai" | "anthropic";
  /** Anthropic Haiku models cache from 2048 tokens, others from 1024. */
  model?: string;
  /** Overrides the provider's minimum cacheable length. */
  minTokens?: number;
  counter?: TokenCounterSpec;
}
export interface PrefixCheck {
  /** No earlier check to compare with. */
  first: boolean;
  /** Byte-identical to the prefix at the previous check. */
  stable: boolean;
  /** Where it first differs: a UTF-8 byte offset into the concatenated rendered
   * parts, and the attachment holding that byte. */
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
/** One activity frame: any JSON object, returned exactly as given. */
export type ActivityFrame = JsonObject;
/** A message as the host stores it: any JSON object, usually `{ role, content }`. */
export type StoredMessage = JsonObject;
/** The REPL's state under key `repl_state`. */
export interface SerializedReplState { env?: { [name: string]: Json }; history?: string[] }
/** The target's introspection tree under key `snapshot`. */
export interface SnapshotNode { accepts?: Json; state?: Json; children?: SnapshotNode[]; [key: string]: Json | SnapshotNode[] | undefined }
export interface NewSession { id?: string; title?: string; meta?: JsonObject }
export interface SessionInfo {
  id: string;
  title: string;
  /** Milliseconds since the Unix epoch. */
  createdAt: number;
  /** Bumped by every write to the session. */
  updatedAt: number;
  meta: JsonObject;
}
/** Sent when another connection upgrades (or, with `newVersion: null`, deletes) the database. */
export interface VersionChangeEvent { oldVersion: number; newVersion: number | null }
export interface IdbSessionStoreOptions {
  /** Database name; default `"attache"`. */
  name?: string;
  /** Applied to write transactions; default `"default"`. */
  durability?: "default" | "strict" | "relaxed";
  /** Called after the store closed its connection for another's upgrade; the next call reopens. */
  onVersionChange?: (event: VersionChangeEvent) => void;
}
/** What `MemorySessionStore` and `IdbSessionStore` share. */
export interface SessionStore {
  createSession(options?: NewSession): Promise<SessionInfo>;
  getSession(id: string): Promise<SessionInfo | null>;
  listSessions(): Promise<SessionInfo[]>;
  deleteSession(id: string): Promise<boolean>;
  saveSessionState(sessionId: string, key: string, value: Json): Promise<void>;
  loadSessionState(sessionId: string, key: string): Promise<Json | null>;
  listSessionStateKeys(sessionId: string): Promise<string[]>;
  deleteSessionState(sessionId: string, key: string): Promise<boolean>;
  saveSnapshot(sessionId: string, snapshot: SnapshotNode): Promise<void>;
  loadSnapshot(sessionId: string): Promise<SnapshotNode | null>;
  saveReplState(sessionId: string, state: SerializedReplState): Promise<void>;
  loadReplState(sessionId: string): Promise<SerializedReplState | null>;
  appendActivityFrames(sessionId: string, requestId: string, frames: ActivityFrame[]): Promise<void>;
  loadActivityFrames(sessionId: string, requestId?: string): Promise<ActivityFrame[]>;
  appendMessages(sessionId: string, messages: StoredMessage[]): Promise<void>;
  loadMessages(sessionId: string): Promise<StoredMessage[]>;
  saveAttachments(sessionId: string, pinned: AttachmentStore): Promise<void>;
  loadAttachments(sessionId: string): Promise<AttachmentStore | null>;
}
"#;
