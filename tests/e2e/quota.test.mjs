// A real QuotaExceededError: Chromium's quota is shrunk for the page's
// origin through the DevTools protocol, then the store writes past it.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { start, harness } from "./browser.mjs";

let env;
before(async () => { env = await start(); });
after(async () => { await env?.stop(); });

test("a write past the quota is a typed QUOTA error and the store stays usable", async () => {
  const page = await harness(env);
  const cdp = await page.context().newCDPSession(page);
  // Chromium reads the quota when the origin first uses storage.
  await cdp.send("Storage.overrideQuotaForOrigin", { origin: env.origin, quotaSize: 512 * 1024 });
  await page.evaluate(async () => {
    const store = await attache.IdbSessionStore.open({ name: "quota" });
    await store.createSession({ id: "s" });
    await store.appendActivityFrames("s", "before", [{ kept: true }]);
    window.store = store;
  });
  const refused = await page.evaluate(async () => {
    const frame = { text: "x".repeat(64 * 1024) };
    try {
      for (let i = 0; i < 64; i++) await store.appendActivityFrames("s", "big", [frame, frame, frame, frame]);
      return null;
    } catch (e) {
      return { isAttacheError: attache.isAttacheError(e), code: e.code, domName: e.domName, message: e.message };
    }
  });
  assert.ok(refused, "a write past 512 KiB was refused");
  assert.equal(refused.isAttacheError, true);
  assert.equal(refused.code, "QUOTA", refused.message);
  assert.equal(refused.domName, "QuotaExceededError");
  const again = await page.evaluate(async () => {
    try {
      // Random hex: a value the engine cannot compress below the quota.
      const bytes = crypto.getRandomValues(new Uint8Array(65536));
      const text = Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
      await store.saveSessionState("s", "big", { text: text.repeat(8) });
      return null;
    } catch (e) {
      return { code: e.code, message: e.message };
    }
  });
  assert.equal(again?.code, "QUOTA", `every write refused for lack of space is QUOTA: ${again?.message}`);

  await cdp.send("Storage.overrideQuotaForOrigin", { origin: env.origin });
  const after = await page.evaluate(async () => {
    await store.appendActivityFrames("s", "after", [{ fine: true }]);
    return {
      before: await store.loadActivityFrames("s", "before"),
      after: await store.loadActivityFrames("s", "after"),
    };
  });
  assert.deepEqual(after.before, [{ kept: true }], "what was stored before is intact");
  assert.deepEqual(after.after, [{ fine: true }], "the store is usable once space is back");
});
