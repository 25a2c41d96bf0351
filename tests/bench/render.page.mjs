// Runs in the benchmark page: consolidatedMessage() against a plain-JS
// full re-render of the same spec, on each workload. Times are µs per call,
// each the median of 15 timed batches, as afterChange's rounds are.
import { pinned, workloads, tick } from "./workloads.mjs";

const median = (xs) => xs.slice().sort((a, b) => a - b)[xs.length >> 1];

/** µs per call of `f(i)`: the median of `batches` batches of about `ms / batches` each. */
function perCall(f, ms = 300, batches = 15) {
  for (let i = 0; i < 50; i++) f(i); // warm up
  let n = 1;
  let i = 0;
  for (;;) {
    const t = performance.now();
    for (let k = 0; k < n; k++) f(i++);
    const took = performance.now() - t;
    if (took >= ms / batches) break;
    n *= took < ms / batches / 20 ? 10 : 2;
  }
  const samples = [];
  for (let b = 0; b < batches; b++) {
    const t = performance.now();
    for (let k = 0; k < n; k++) f(i++);
    samples.push(((performance.now() - t) * 1000) / n);
  }
  return median(samples);
}

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

/** The two give the same message, as timed: checked here, not only in the tests. */
function same(store, plain, what) {
  if (JSON.stringify(store.consolidatedMessage()) !== JSON.stringify(plain.consolidatedMessage())) {
    throw new Error(`attache and the plain renderer differ on ${what}`);
  }
}

export function renderBench(attache) {
  const results = {};
  const stores = { typical: 100, heavy: 20, "one 1 MB file": 100 };
  for (const [name, make] of Object.entries(workloads)) {
    const { specs, store, plain } = pinned(attache, make);
    same(store, plain, name);
    const changed = tick(specs, 0);
    store.setAttachment(changed);
    plain.setAttachment(changed);
    same(store, plain, `${name}, after one change`);
    const bytes = store.consolidatedMessage().content.reduce((n, p) => n + new TextEncoder().encode(p.text).length, 0);
    results[name] = {
      attachments: specs.length,
      bytes,
      // The yardstick: a host that renders everything on every turn.
      plainRender: perCall(() => plain.consolidatedMessage()),
      changed: afterChange(attache, make, stores[name]),
      unchanged: perCall(() => store.consolidatedMessage(), 100),
      // The whole changed turn, setAttachment included: attache renders
      // the changed attachment there and checks it for credentials.
      changedTurn: perCall((i) => { store.setAttachment(tick(specs, i)); store.consolidatedMessage(); }),
      plainTurn: perCall((i) => { plain.setAttachment(tick(specs, i)); plain.consolidatedMessage(); }),
    };
    store.free();
  }
  return results;
}
