// Benchmark, not a test: per-turn cost of consolidatedMessage() for 20
// pinned attachments totalling about 60 KB, unchanged and with one todo
// item changed, in headless Chromium.
// Usage: node tests/bench/consolidated.bench.mjs
import { start, harness } from "../e2e/browser.mjs";

const env = await start();
try {
  const page = await harness(env);
  const r = await page.evaluate(() => {
    const store = new attache.AttachmentStore();
    const para = (n) => "The agent keeps this context pinned across every turn. ".repeat(n);
    for (let i = 0; i < 8; i++) store.setAttachment({ kind: "memory", slug: `fact-${i}`, memory: para(28) });
    for (let i = 0; i < 11; i++) store.setAttachment({ kind: "file", path: `src/module_${i}.rs`, contents: para(76) });
    const items = Array.from({ length: 20 }, (_, i) => ({ text: `step ${i}: ${para(1)}`, completed: i < 5 }));
    store.setAttachment({ kind: "todo", items });
    const first = store.consolidatedMessage();
    const bytes = first.content.reduce((n, p) => n + new TextEncoder().encode(p.text).length, 0);
    const perTurn = (turns, turn) => {
      for (let i = 0; i < 100; i++) turn(i); // warm up
      const t = performance.now();
      for (let i = 0; i < turns; i++) turn(i);
      return ((performance.now() - t) * 1000) / turns;
    };
    const unchanged = perTurn(100000, () => store.consolidatedMessage());
    const changed = perTurn(2000, (i) => {
      items[i % 20] = { ...items[i % 20], completed: !items[i % 20].completed };
      store.setAttachment({ kind: "todo", items });
      return store.consolidatedMessage();
    });
    const json = perTurn(2000, () => JSON.parse(JSON.stringify(first)));
    store.checkPrefix({ provider: "anthropic" });
    const check = perTurn(2000, () => store.checkPrefix({ provider: "anthropic" }));
    return { parts: first.content.length, bytes, unchanged, changed, json, check };
  });
  console.log(`${r.parts} pinned attachments, ${r.bytes} bytes of rendered text, headless Chromium`);
  console.log(`consolidatedMessage(), nothing changed:        ${r.unchanged.toFixed(3)} µs per turn`);
  console.log(`setAttachment(todo) + consolidatedMessage():   ${r.changed.toFixed(1)} µs per turn (one item ticked)`);
  console.log(`checkPrefix({ provider: "anthropic" }), unchanged: ${r.check.toFixed(1)} µs per turn`);
  console.log(`for scale, one JSON deep copy of the message:  ${r.json.toFixed(1)} µs`);
} finally {
  await env.stop();
}
