import type {
  AgentInputItem,
  SessionHistoryRewriteArgs,
  SessionHistoryRewriteAwareSession,
  SessionHistoryTransactionArgs,
  SessionHistoryTransactionAwareSession,
} from "@openai/agents-core";
import type { SessionStore } from "./types.js";

export interface AttacheSessionOptions {
  /** An existing session's id, or the id to create it under; a new id is generated when absent. */
  sessionId?: string | undefined;
}

/**
 * An OpenAI Agents JS `Session` over a `MemorySessionStore` or an
 * `IdbSessionStore`. Each item is one attache message: its neutral form,
 * with the item itself in `meta`, returned exactly.
 */
export declare class AttacheSession implements SessionHistoryTransactionAwareSession, SessionHistoryRewriteAwareSession {
  constructor(store: SessionStore, options?: AttacheSessionOptions);
  getSessionId(): Promise<string>;
  getItems(limit?: number): Promise<AgentInputItem[]>;
  addItems(items: AgentInputItem[]): Promise<void>;
  popItem(): Promise<AgentInputItem | undefined>;
  /** Items as a redacting store keeps them, so stored and expected items compare equal. */
  prepareHistoryItemsForPersistenceComparison(items: AgentInputItem[]): AgentInputItem[];
  /** Empties the history, then forgets the applied operation ids, as `MemorySession` does: a transaction replayed after it applies again. */
  clearSession(): Promise<void>;
  /** The whole history becomes `items` (a compaction and what it keeps), in one transaction. */
  replaceHistoryWithCompaction(items: AgentInputItem[]): Promise<void>;
  /** Atomic and idempotent per `operationId`: `append_items`, or `replace_suffix` when the suffix still matches. */
  applyHistoryTransaction(args: SessionHistoryTransactionArgs): Promise<void>;
  /** `replace_function_call` as `MemorySession` applies it, in one transaction; the operation ids stay. */
  applyHistoryMutations(args: SessionHistoryRewriteArgs): Promise<void>;
}
