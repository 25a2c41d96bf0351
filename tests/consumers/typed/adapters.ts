// The adapters' subpath exports, typed as a consumer gets them: each fits
// where its framework expects a checkpointer or a session, with no casts.
import type { BaseCheckpointSaver, CheckpointTuple } from "@langchain/langgraph-checkpoint";
import type { Session, SessionHistoryRewriteAwareSession, SessionHistoryTransactionAwareSession, AgentInputItem } from "@openai/agents-core";
import { MemorySessionStore, type SessionStore } from "attache";
import { AttacheCheckpointSaver } from "attache/langgraph";
import { AttacheSession } from "attache/openai-agents";

const store: SessionStore = new MemorySessionStore();
const saver: BaseCheckpointSaver = new AttacheCheckpointSaver(store);
const tuple: Promise<CheckpointTuple | undefined> = saver.getTuple({ configurable: { thread_id: "t" } });
const session: Session = new AttacheSession(store, { sessionId: "chat" });
const transactional: SessionHistoryTransactionAwareSession = new AttacheSession(store);
const items: Promise<AgentInputItem[]> = session.getItems(10);
// Declared, not only inherited as optional: a host may call it directly.
const compared: AgentInputItem[] = new AttacheSession(store).prepareHistoryItemsForPersistenceComparison(await items);
console.log(compared.length);
await transactional.applyHistoryTransaction({ operationId: "op", transaction: { type: "append_items", items: await items } });
const rewriting: SessionHistoryRewriteAwareSession = new AttacheSession(store);
await rewriting.applyHistoryMutations({ mutations: [] });
console.log(tuple);
