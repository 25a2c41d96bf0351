import {
  BaseCheckpointSaver,
  type ChannelVersions,
  type Checkpoint,
  type CheckpointListOptions,
  type CheckpointMetadata,
  type CheckpointTuple,
  type PendingWrite,
  type SerializerProtocol,
} from "@langchain/langgraph-checkpoint";
import type { RunnableConfig } from "@langchain/core/runnables";
import type { SessionStore } from "./types.js";

/**
 * A LangGraph.js checkpointer over a `MemorySessionStore` or an
 * `IdbSessionStore`. A thread is a session, created with its first
 * checkpoint; each checkpoint, channel value and pending write is one
 * session-state key under `lg/`.
 */
export declare class AttacheCheckpointSaver extends BaseCheckpointSaver<number> {
  constructor(store: SessionStore, serde?: SerializerProtocol);
  readonly store: SessionStore;
  getTuple(config: RunnableConfig): Promise<CheckpointTuple | undefined>;
  /** Newest first, with `filter` on metadata, `before` a checkpoint and at most `limit`. */
  list(config: RunnableConfig, options?: CheckpointListOptions): AsyncGenerator<CheckpointTuple, void, undefined>;
  put(config: RunnableConfig, checkpoint: Checkpoint, metadata: CheckpointMetadata, newVersions: ChannelVersions): Promise<RunnableConfig>;
  putWrites(config: RunnableConfig, writes: PendingWrite[], taskId: string, taskPath?: string): Promise<void>;
  /** Deletes the thread's session, with everything else it held. */
  deleteThread(threadId: string): Promise<void>;
}
