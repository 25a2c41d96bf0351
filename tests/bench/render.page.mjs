// Runs in the benchmark page: consolidatedMessage() against a plain-JS
// full re-render of the same spec, on each workload. Times are µs per call.
import { pinned, workloads, tick } from "./workloads.mjs";

/** µs per call of `f(i)`, over enough calls to take about `ms`. */
function perCall(f, ms = 300) {
  for (let i = 0; i < 50; i++) f(i); // warm up
  let n = 1;
  for (;;) {
    const t = performance.now();
    for (let i = 0; i < n; i++) f(i);
    const took = performance.now() - t;
    if (took >= ms) return (took * 1000) / n;
    n *= took < ms / 20 ? 10 : 2;
  }
}

const median = (xs) => xs.slice().sort((a, b) => a - b)[xs.length >> 1];

/**
 * µs per consolidatedMessage() right after one attachment changed: `count`
 * stores each get their change untimed, then one call each is timed, so
 * the figure is the rebuild alone.
 */
function afterChange(attache, make, count, rounds = 15) {
  const stores = Array.from({ length: count }, () => {
    const specs = make();
    const store = new attache.AttachmentStore();
    for (const spec of specs) store.setAttachment(spec);
    store.consolidatedMessage();
    return { specs, store };
  });
  const samples = [];
  for (let round = 0; round < rounds; round++) {
    for (const { specs, store } of stores) store.setAttachment(tick(specs, round));
    const t = performance.now();
    for (const { store } of stores) store.consolidatedMessage();
    samples.push(((performance.now() - t) * 1000) / count);
  }
  for (const { store } of stores) store.free();
  return median(samples);
}

export function renderBench(attache) {
  const results = {};
  const stores = { typical: 100, heavy: 20, "one 1 MB file": 100 };
  for (const [name, make] of Object.entries(workloads)) {
    const { specs, store, plain } = pinned(attache, make);
    const bytes = store.consolidatedMessage().content.reduce((n, p) => n + new TextEncoder().encode(p.text).length, 0);
    results[name] = {
      attachments: specs.length,
      bytes,
      // The yardstick: a host that renders everything on every turn.
      plainRender: perCall(() => plain.consolidatedMessage()),
      changed: afterChange(attache, make, stores[name]),
      unchanged: perCall(() => store.consolidatedMessage(), 100),
      // The whole changed turn, setAttachment included, for context.
      changedTurn: perCall((i) => { store.setAttachment(tick(specs, i)); store.consolidatedMessage(); }),
    };
    store.free();
  }
  return results;
}
