// Crash consistency of appendActivityFrames on a persistent profile. A page
// appends 20,000 frames as 200 calls of 100 (one transaction each); partway
// through, the test closes the page, or SIGKILLs the whole browser, then
// reopens the store. Each call's frames must be all there or not at all,
// every call the page saw resolve must be there, and the store must still
// take writes.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { start, serve, spawnChromium, harness } from "./browser.mjs";

const BATCHES = 200;
const PER_BATCH = 100;
const TRIALS = 10;
// Where each trial interrupts: once batch `at` is issued and `delay` ms
// have passed, so it lands before, during or after that batch's commit
// (a call takes some 5 to 15 ms here). Trials cycle through durabilities.
const at = (trial) => 5 + 19 * trial;
const delay = (trial) => 3 * (trial % 5);
const durability = (trial) => ["default", "relaxed", "strict"][trial % 3];

// The page builds the same frames in `append`.
const framesOf = (batch) =>
  Array.from({ length: PER_BATCH }, (_, i) => ({ batch, i, text: `frame ${i} of batch ${batch}` }));

// Runs in the page. `issued` is awaited before each call, so Node's count
// bounds what can have been written; `acked` reports a call that resolved.
async function append({ name, durability, batches, perBatch }) {
  const store = await attache.IdbSessionStore.open({ name, durability });
  await store.createSession({ id: "s" });
  for (let batch = 0; batch < batches; batch++) {
    const frames = Array.from({ length: perBatch }, (_, i) => ({ batch, i, text: `frame ${i} of batch ${batch}` }));
    await window.issued(batch);
    await store.appendActivityFrames("s", "run", frames);
    window.acked(batch);
  }
}

/** Runs `append` in `page` and calls `interrupt` partway; what Node saw. */
async function interrupted(page, name, trial, interrupt) {
  const seen = { issued: 0, acked: 0 };
  let stopping = false, reached;
  const trigger = new Promise((resolve) => { reached = resolve; }).then(() => { seen.triggered = true; });
  await page.exposeFunction("issued", (batch) => {
    // Once the interruption starts, no further call may begin.
    if (stopping) return new Promise(() => {});
    seen.issued = batch + 1;
    if (batch === at(trial)) setTimeout(reached, delay(trial));
  });
  await page.exposeFunction("acked", (batch) => { seen.acked = batch + 1; });
  const run = page.evaluate(append, { name, durability: durability(trial), batches: BATCHES, perBatch: PER_BATCH })
    .then(() => "finished", (e) => { seen.error ??= String(e?.message ?? e).split("\n")[0]; return "interrupted"; });
  await Promise.race([trigger, run]);
  stopping = true;
  await interrupt();
  seen.run = await run;
  return { ...seen };
}

/** Reopens the store in a fresh page: what it holds, and a write after. */
async function reopen(env, name) {
  const page = await harness(env);
  // As JSON text: Playwright takes seconds to copy 20,000 objects.
  const found = await page.evaluate(async (name) => {
    const store = await attache.IdbSessionStore.open({ name });
    const session = await store.getSession("s");
    // Which databases the origin still has, should this one be gone.
    const databases = session ? [] : (await indexedDB.databases()).map((d) => d.name);
    // A missing session is reported by check(), with what the trial saw.
    const frames = session ? await store.loadActivityFrames("s", "run") : [];
    if (!session) await store.createSession({ id: "s" });
    await store.appendActivityFrames("s", "after", [{ writable: true }]);
    const after = await store.loadActivityFrames("s", "after");
    store.close();
    return JSON.stringify({ session, frames, after, databases });
  }, name);
  await page.close();
  return JSON.parse(found);
}

/** Asserts the reopened store against what Node saw. */
function check(seen, { session, frames, after, databases }) {
  // Else the appends failed on their own, before anything was interrupted.
  assert.ok(seen.triggered, `the interruption came on its cue, after ${seen.issued} batches issued: ${seen.error}`);
  assert.equal(seen.run, "interrupted", "the interruption came before the last batch");
  assert.ok(session, `the session is there (interrupted on cue, ${seen.acked} acknowledged; the origin's databases: ${JSON.stringify(databases)}${seen.log ? `; chromium said: ${seen.log}` : ""})`);
  const stored = [];
  for (let k = 0; k < frames.length; k += PER_BATCH) {
    const batch = frames[k].batch;
    const got = frames.slice(k, k + PER_BATCH);
    const own = got.filter((f) => f.batch === batch).length;
    assert.deepEqual(got, framesOf(batch), `batch ${batch} must be whole and in order: ${own} of its frames are stored together`);
    stored.push(batch);
  }
  assert.deepEqual(stored, stored.map((_, k) => k), "the stored batches are the first ones, in order");
  assert.ok(stored.length >= seen.acked, `every acknowledged batch is stored: ${seen.acked} acknowledged, ${stored.length} stored`);
  assert.ok(stored.length <= seen.issued, `no batch beyond those issued is stored: ${seen.issued} issued, ${stored.length} stored`);
  assert.deepEqual(after, [{ writable: true }], "the store takes a write and reads it back");
}

// Chromium's words when it deletes a database whose LevelDB log a kill
// left with a partial record: no store can keep what the browser deletes.
const DELETED = /IndexedDB recovering from a corrupted \(and deleted\) database/;

/** Runs the trials; one summary line; fails listing every failed trial. */
async function trials(t, label, runTrial) {
  const outcomes = [], failures = [], deleted = [];
  for (let trial = 0; trial < TRIALS; trial++) {
    const [seen, found] = await runTrial(trial, `crash-${trial}`);
    if (!found.session && DELETED.test(seen.log ?? "")) {
      deleted.push(trial);
      outcomes.push(`deleted by chromium ${durability(trial)}`);
      continue;
    }
    try {
      check(seen, found);
    } catch (e) {
      failures.push(`trial ${trial}: ${e.message.split("\n")[0]}`);
    }
    // A fraction here would be a partial batch.
    outcomes.push(`${seen.acked}/${found.frames.length / PER_BATCH}/${seen.issued} ${durability(trial)}`);
  }
  t.diagnostic(`${label}: acknowledged/stored/issued batches of ${BATCHES} per trial: ${outcomes.join(", ")}`);
  assert.deepEqual(failures, []);
  assert.ok(deleted.length < TRIALS / 2, `Chromium deleted its corrupted database in trials ${deleted}: too few trials left to check`);
}

test("closing the page mid-append: each batch whole or absent, none acknowledged lost, store writable", { timeout: 90000 }, async (t) => {
  const env = await start();
  try {
    await trials(t, "page closed", async (trial, name) => {
      const page = await harness(env);
      const seen = await interrupted(page, name, trial, () => page.close());
      return [seen, await reopen(env, name)];
    });
  } finally {
    await env.stop();
  }
});

test("killing the browser mid-append: each batch whole or absent, none acknowledged lost, store writable", { timeout: 90000 }, async (t) => {
  const server = await serve();
  const profile = await mkdtemp(join(tmpdir(), "attache-crash-"));
  let browser;
  try {
    browser = await spawnChromium(profile);
    // Every trial crashes the same profile, then relaunches on it.
    await trials(t, "browser killed", async (trial, name) => {
      const page = await harness({ origin: server.origin, context: browser.context });
      const seen = await interrupted(page, name, trial, () => browser.kill());
      browser = await spawnChromium(profile);
      const found = await reopen({ origin: server.origin, context: browser.context }, name);
      seen.log = browser.storageLog();
      return [seen, found];
    });
  } finally {
    await browser?.kill();
    server.stop();
    await rm(profile, { recursive: true, force: true });
  }
});
