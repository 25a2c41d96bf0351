// Benchmark, not a test: times appending 1,000 activity frames of about
// 200 bytes in one call, loading them back, and appending one frame per call, in headless Chromium.
// Usage: node tests/bench/frames.bench.mjs [runs]   (default 15)
import { start, harness } from "../e2e/browser.mjs";

const runs = Number(process.argv[2] ?? 15);
const env = await start();
try {
  const page = await harness(env);
  const results = await page.evaluate(async (runs) => {
    const frame = (i) => ({ type: "tool_call", requestId: "r", seq: i, tool: "search",
      input: { query: "attache frames benchmark ".repeat(3).slice(0, 60) }, output: { hits: 3, ms: 12.5 },
      note: "x".repeat(40) });
    const frames = Array.from({ length: 1000 }, (_, i) => frame(i));
    const bytes = frames.reduce((n, f) => n + JSON.stringify(f).length, 0) / frames.length;
    const time = async (f) => { const t = performance.now(); await f(); return performance.now() - t; };
    const stores = {
      "IdbSessionStore (durability default)": await attache.IdbSessionStore.open({ name: "bench-default" }),
      "IdbSessionStore (durability relaxed)": await attache.IdbSessionStore.open({ name: "bench-relaxed", durability: "relaxed" }),
      MemorySessionStore: new attache.MemorySessionStore(),
    };
    const out = { bytes, stores: {} };
    for (const [label, store] of Object.entries(stores)) {
      const append = [], load = [], single = [];
      for (let run = 0; run < runs; run++) {
        const { id } = await store.createSession();
        append.push(await time(() => store.appendActivityFrames(id, "r", frames)));
        let loaded;
        load.push(await time(async () => { loaded = await store.loadActivityFrames(id, "r"); }));
        if (loaded.length !== 1000) throw new Error(`${label}: loaded ${loaded.length} frames`);
        // A turn's usual write: one small frame, where a transaction's
        // fixed cost dominates.
        for (let i = 0; i < 10; i++) single.push(await time(() => store.appendActivityFrames(id, "one", [frames[i]])));
        await store.deleteSession(id);
      }
      out.stores[label] = { append, load, single };
    }
    return out;
  }, runs);

  const stats = (xs) => {
    const s = [...xs].sort((a, b) => a - b);
    const at = (q) => s[Math.min(s.length - 1, Math.floor(q * s.length))];
    return `median ${at(0.5).toFixed(1)} ms, min ${s[0].toFixed(1)} ms, p90 ${at(0.9).toFixed(1)} ms`;
  };
  console.log(`1,000 frames of ${results.bytes.toFixed(0)} bytes of JSON each, ${runs} runs, headless Chromium`);
  for (const [label, { append, load, single }] of Object.entries(results.stores)) {
    console.log(`${label}\n  append (one call): ${stats(append)}\n  load (one request): ${stats(load)}` +
      `\n  append one frame: ${stats(single)}`);
  }
} finally {
  await env.stop();
}
