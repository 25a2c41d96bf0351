// The boundary's properties (tests/boundary/properties.mjs) in headless
// Chromium and Firefox and in WebKit under Xvfb, on MemorySessionStore
// and on real IndexedDB: the Node run covers the same contract without a
// browser's engine or storage.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { serve, start } from "./browser.mjs";
import { firefox, webkit } from "./webdriver.mjs";

// More on demand, never fewer than the test command's 5,000.
const asked = Number(process.env.ATTACHE_FUZZ_RUNS);
const RUNS = Math.max(5000, Number.isSafeInteger(asked) ? asked : 0);
const IDB_RUNS = Math.max(1, Math.round(RUNS / 10));

let env;
before(async () => { env = await start(); });
after(async () => { await env?.stop(); });

test(`arbitrary values in every id and option parameter, in Chromium (${RUNS} runs, ${IDB_RUNS} on IndexedDB)`, { timeout: 300000 * Math.ceil(RUNS / 5000) }, async () => {
  const page = await env.context.newPage();
  await page.goto(`${env.origin}/tests/e2e/pages/fuzz.html`);
  await page.waitForSelector("body[data-ready=true]", { state: "attached", timeout: 15000 });
  const { grown, jumps, idbGrown, idbJumps } = await page.evaluate(([runs, idbRuns]) => runFuzz(runs, idbRuns), [RUNS, IDB_RUNS]);
  // One 64 KiB page of slack beyond the largest single jump: over 5,000
  // runs, a leak of about 40 bytes a run (three pages) fails.
  assert.ok(grown <= 64 * 1024, `wasm memory stayed flat: grew ${grown} bytes over ${RUNS} runs, beyond its largest single jump (growth as [run, bytes]: ${JSON.stringify(jumps)})`);
  // The IndexedDB pass too: its calls take their own paths (the store's op, its records).
  assert.ok(idbGrown <= 64 * 1024, `wasm memory stayed flat on IndexedDB: grew ${idbGrown} bytes over ${IDB_RUNS} runs, beyond its largest single jump (${JSON.stringify(idbJumps)})`);
});

// Each of its runs checks one rule at one parameter: a tenth as many.
const CONTRACT_RUNS = Math.ceil(RUNS / 10);
test(`a blank or lone-surrogate id at any id parameter, an unknown option key anywhere, in Chromium (${CONTRACT_RUNS} runs each, ${Math.ceil(CONTRACT_RUNS / 4)} on IndexedDB)`, async () => {
  const page = await env.context.newPage();
  await page.goto(`${env.origin}/tests/e2e/pages/fuzz.html`);
  await page.waitForSelector("body[data-ready=true]", { state: "attached", timeout: 15000 });
  // A failed property rejects, and evaluate rethrows it with its counterexample.
  await page.evaluate(([runs, idbRuns]) => runContract(runs, idbRuns), [CONTRACT_RUNS, Math.ceil(CONTRACT_RUNS / 4)]);
});

// The same page in the other engines, through their WebDriver servers:
// fewer runs, as each engine's own calls and its IndexedDB are what is new.
const OTHER_RUNS = Math.ceil(RUNS * 2 / 5);
const OTHER_IDB_RUNS = Math.ceil(OTHER_RUNS / 10);
const scale = Math.ceil(RUNS / 5000);
for (const [engine, open] of [["Firefox", () => firefox({})], ["WebKit", webkit]]) {
  test(`arbitrary values in every parameter, then the id and option rules, in ${engine} (${OTHER_RUNS} runs, ${OTHER_IDB_RUNS} on IndexedDB)`, { timeout: 420000 * scale }, async () => {
    const server = await serve();
    let driven;
    try {
      driven = await open();
      await driven.go(`${server.origin}/tests/e2e/pages/fuzz.html`);
      const ready = await driven.run(`
        for (let i = 0; i < 750 && !document.body?.dataset.ready; i++) await new Promise((r) => setTimeout(r, 20));
        return document.body?.dataset.ready ?? "fuzz.html never became ready";`);
      assert.equal(ready, "true", ready?.thrown ?? String(ready));
      const fuzzed = await driven.run("return await runFuzz(...arguments[0]);", [OTHER_RUNS, OTHER_IDB_RUNS], 240000 * scale);
      assert.equal(fuzzed.thrown, undefined, fuzzed.thrown);
      const { grown, jumps, idbGrown, idbJumps } = fuzzed;
      assert.ok(grown <= 64 * 1024, `wasm memory stayed flat: grew ${grown} bytes beyond its largest single jump (${JSON.stringify(jumps)})`);
      assert.ok(idbGrown <= 64 * 1024, `wasm memory stayed flat on IndexedDB: grew ${idbGrown} bytes (${JSON.stringify(idbJumps)})`);
      const ruled = await driven.run("await runContract(...arguments[0]); return 'kept';", [OTHER_IDB_RUNS, Math.ceil(OTHER_IDB_RUNS / 4)], 60000 * scale);
      assert.equal(ruled, "kept", ruled?.thrown);
    } finally {
      await driven?.close();
      server.stop();
    }
  });
}
