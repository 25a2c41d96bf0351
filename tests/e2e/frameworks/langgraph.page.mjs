// Bundled for the browser by tests/e2e/frameworks.test.mjs: a real
// StateGraph that stops at interrupt() with its checkpoints in IndexedDB,
// so a reloaded page can resume it.
import { AsyncLocalStorageProviderSingleton } from "@langchain/core/singletons";
import { Annotation, Command, END, START, StateGraph, interrupt } from "@langchain/langgraph/web";

// Browsers have no AsyncLocalStorage, and interrupt() reads the run's
// config from one. This one holds it while a node runs synchronously,
// which is where interrupt() is called here.
class SyncLocalStorage {
  #store;
  getStore() { return this.#store; }
  enterWith(store) { this.#store = store; }
  run(store, fn, ...args) {
    const previous = this.#store;
    this.#store = store;
    try { return fn(...args); } finally { this.#store = previous; }
  }
}
AsyncLocalStorageProviderSingleton.initializeGlobalInstance(new SyncLocalStorage());
import { IdbSessionStore } from "../../../pkg/index.js";
import { AttacheCheckpointSaver } from "../../../pkg/langgraph.js";

const State = Annotation.Root({
  request: Annotation(),
  approved: Annotation(),
  log: Annotation({ reducer: (a, b) => a.concat(b), default: () => [] }),
});

async function graph() {
  const store = await IdbSessionStore.open({ name: "langgraph-e2e" });
  const compiled = new StateGraph(State)
    .addNode("plan", (s) => ({ log: [`plan ${s.request}`] }))
    .addNode("approve", () => {
      const answer = interrupt({ question: "deploy?" });
      return { approved: answer, log: [`approved: ${answer}`] };
    })
    .addNode("act", (s) => ({ log: [s.approved === "yes" ? "deployed" : "skipped"] }))
    .addEdge(START, "plan")
    .addEdge("plan", "approve")
    .addEdge("approve", "act")
    .addEdge("act", END)
    .compile({ checkpointer: new AttacheCheckpointSaver(store) });
  return { compiled, store };
}

window.langgraphRun = {
  async start(thread_id) {
    const { compiled, store } = await graph();
    const config = { configurable: { thread_id } };
    const result = await compiled.invoke({ request: "v2" }, config);
    const state = await compiled.getState(config);
    store.close();
    return { interrupts: result.__interrupt__.map((i) => i.value), next: state.next, log: state.values.log };
  },
  async resume(thread_id, answer) {
    const { compiled, store } = await graph();
    const config = { configurable: { thread_id } };
    const before = await compiled.getState(config);
    const result = await compiled.invoke(new Command({ resume: answer }), config);
    const history = [];
    for await (const snapshot of compiled.getStateHistory(config)) history.push(snapshot.metadata.step);
    const keys = await store.listSessionStateKeys(thread_id, { prefix: "lg/c/" });
    store.close();
    return { pendingBefore: before.next, log: result.log, approved: result.approved, steps: history, checkpoints: keys.length };
  },
};
document.body.dataset.ready = "true";
