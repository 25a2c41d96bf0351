// A page and its module worker on one IndexedDB database, each with its
// own connection, in Chromium, Firefox and WebKit: an expectedCount race
// has one winner a round, concurrent appends keep every frame, and a
// session one deletes is NOT_FOUND to the other. The scenarios are
// pages/contexts.mjs, run in the page.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { harness, start } from "./browser.mjs";
import { firefox, webkit } from "./webdriver.mjs";

const ROUNDS = 100;
const COUNT = 300;
let env;
before(async () => { env = await start(); });
after(async () => { await env?.stop(); });

const script = `return (await import("/tests/e2e/pages/contexts.mjs")).run(${ROUNDS}, ${COUNT});`;

function check(seen, t) {
  assert.equal(seen.thrown, undefined, seen.thrown);
  const winners = seen.race.map(([page, worker], round) => {
    assert.deepEqual([page, worker].sort(), ["CONFLICT", "ok"], `round ${round}: one commit wins, the other is CONFLICT`);
    return `${page === "ok" ? "page" : "worker"} ${round}`;
  });
  const worker = winners.filter((w) => w.startsWith("worker")).length;
  t.diagnostic(`the worker won ${worker} of ${ROUNDS} rounds`);
  // Else the commits ran one after the other, and nothing raced.
  assert.ok(worker > 0 && worker < ROUNDS, `each context won some rounds (the worker ${worker} of ${ROUNDS})`);
  assert.deepEqual(seen.messages, winners, "each round's winner's message, in order, and no other");
  assert.deepEqual(seen.committed, winners, "and its frames with it");
  assert.deepEqual(seen.appended, [], "every append was stored");
  assert.equal(seen.frames.length, 2 * COUNT, "no frame is lost");
  for (const writer of ["page", "worker"]) {
    const own = seen.frames.filter((f) => f.writer === writer).map((f) => f.i);
    assert.deepEqual(own, [...Array(COUNT).keys()], `the ${writer}'s frames are all there, in its order`);
  }
  assert.equal(seen.deleted, true);
  assert.equal(seen.afterDelete, "NOT_FOUND", "the worker's append after the page's delete");
  assert.deepEqual(seen.left, [], "nothing of the session is left");
}

test("a page and its worker on one database, in Chromium", async (t) => {
  const page = await harness(env);
  check(await page.evaluate(`(async () => { ${script} })().catch((e) => ({ thrown: String(e) }))`), t);
});

for (const [engine, open] of [["Firefox", () => firefox({})], ["WebKit", webkit]]) {
  test(`a page and its worker on one database, in ${engine}`, async (t) => {
    const browser = await open();
    try {
      await browser.go(`${env.origin}/tests/e2e/pages/harness.html`);
      check(await browser.run(script, null, 120000), t);
    } finally {
      await browser.close();
    }
  });
}
