// Two pages of one origin and one browser context on the same IndexedDB
// store, each with its own connection: concurrent appends to one session,
// and a delete one page makes that the other must see.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { start, harness } from "./browser.mjs";

const FRAMES = 500;

let env;
before(async () => { env = await start(); });
after(async () => { await env?.stop(); });

test("two pages appending to one session at once keep all frames, each writer's in its order", async (t) => {
  const pages = await Promise.all([harness(env), harness(env)]);
  await pages[0].evaluate(async () => {
    const store = await attache.IdbSessionStore.open({ name: "tabs" });
    await store.createSession({ id: "s" });
    store.close();
  });
  // Each page opens its connection, then waits for `go` so both start together.
  await Promise.all(pages.map((page) => page.evaluate(async () => {
    window.store = await attache.IdbSessionStore.open({ name: "tabs" });
    window.started = new Promise((resolve) => { window.go = resolve; });
  })));
  const writers = pages.map((page, w) => page.evaluate(async ({ writer, count }) => {
    await started;
    for (let i = 0; i < count; i++) await store.appendActivityFrames("s", "turn", [{ writer, i }]);
  }, { writer: w, count: FRAMES }));
  await Promise.all(pages.map((page) => page.evaluate(() => go())));
  await Promise.all(writers);

  const [frames, all] = await pages[1].evaluate(async () =>
    [await store.loadActivityFrames("s", "turn"), await store.loadActivityFrames("s")]);
  assert.equal(frames.length, 2 * FRAMES, "no frame is lost");
  assert.deepEqual(all, frames, "the session holds just these frames");
  for (const writer of [0, 1]) {
    const own = frames.filter((f) => f.writer === writer).map((f) => f.i);
    assert.deepEqual(own, [...Array(FRAMES).keys()], `writer ${writer}'s frames are all there, in its order`);
  }
  // A switch is a frame whose writer differs from the one before.
  const switches = frames.filter((f, k) => k > 0 && f.writer !== frames[k - 1].writer).length;
  t.diagnostic(`writers switched ${switches} times in ${frames.length} frames`);
  assert.ok(switches > 1, `the writers interleaved, not one after the other (${switches} switch)`);
});

test("a session deleted in one page is NOT_FOUND in the other", async () => {
  const [a, b] = await Promise.all([harness(env), harness(env)]);
  await a.evaluate(async () => {
    window.store = await attache.IdbSessionStore.open({ name: "tabs-delete" });
    await store.createSession({ id: "gone" });
  });
  // B's connection is open and has written to the session before the delete.
  await b.evaluate(async () => {
    window.store = await attache.IdbSessionStore.open({ name: "tabs-delete" });
    await store.appendActivityFrames("gone", "r", [{ before: true }]);
  });
  assert.equal(await a.evaluate(() => store.deleteSession("gone")), true);

  const refused = await b.evaluate(async () => {
    try {
      await store.appendActivityFrames("gone", "r", [{ after: true }]);
      return null;
    } catch (e) {
      return { isAttacheError: attache.isAttacheError(e), code: e.code, message: e.message };
    }
  });
  assert.ok(refused, "appending to the deleted session was refused");
  assert.equal(refused.isAttacheError, true);
  assert.equal(refused.code, "NOT_FOUND", refused.message);
  assert.equal(await b.evaluate(() => store.getSession("gone")), null, "B sees no session");
  assert.deepEqual(await a.evaluate(() => store.loadActivityFrames("gone")), [], "nothing of either append is left");
});
