// LangGraph's own checkpointer validation suite, with its opt-in
// delta-channel-history suite, on both stores: IndexedDB through
// fake-indexeddb in Node, the same schema and code as in a browser.
import "fake-indexeddb/auto";
import { validate, deltaChannelHistoryTests } from "@langchain/langgraph-checkpoint-validation";
import { MemorySessionStore, IdbSessionStore } from "../../pkg/index.js";
import { AttacheCheckpointSaver } from "../../pkg/langgraph.js";

let databases = 0;
const backends = [
  {
    checkpointerName: "AttacheCheckpointSaver on MemorySessionStore",
    createCheckpointer: () => new AttacheCheckpointSaver(new MemorySessionStore()),
    destroyCheckpointer: (saver) => saver.store.free(),
  },
  {
    checkpointerName: "AttacheCheckpointSaver on IdbSessionStore",
    createCheckpointer: async () => new AttacheCheckpointSaver(await IdbSessionStore.open({ name: `langgraph-${databases++}` })),
    destroyCheckpointer: (saver) => {
      saver.store.close();
      saver.store.free();
    },
  },
];

for (const backend of backends) {
  validate(backend);
  deltaChannelHistoryTests(backend);
}
