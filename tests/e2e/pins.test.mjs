// Persisted pins across a real page reload: what the page pinned and saved
// to IndexedDB comes back byte-identical, in the same order.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { start, harness } from "./browser.mjs";

let env;
before(async () => { env = await start(); });
after(async () => { await env?.stop(); });

test("a reloaded page restores the pins byte-identical and in pin order", async () => {
  const page = await harness(env);
  const before = await page.evaluate(async () => {
    const pinned = new attache.AttachmentStore();
    pinned.setAttachment({ kind: "todo", items: [{ text: "ship", completed: false }] });
    pinned.setAttachment({ kind: "file", path: "big.log", contents: "é".repeat(5000) });
    pinned.setAttachment({ kind: "memory", slug: "style", memory: "be brief" });
    pinned.setAttachment({ kind: "custom", id: "skill:review", rank: "file", text: "Review." });
    const sessions = await attache.IdbSessionStore.open({ name: "pins" });
    await sessions.createSession({ id: "s" });
    await sessions.saveAttachments("s", pinned);
    sessions.close();
    return { message: JSON.stringify(pinned.consolidatedMessage()), ids: pinned.attachmentIds() };
  });
  await page.reload();
  await page.waitForSelector("body[data-ready=true]", { state: "attached" });
  const after = await page.evaluate(async () => {
    const sessions = await attache.IdbSessionStore.open({ name: "pins" });
    const pinned = await sessions.loadAttachments("s");
    const none = await sessions.loadAttachments("missing");
    return { message: JSON.stringify(pinned.consolidatedMessage()), ids: pinned.attachmentIds(), none };
  });
  assert.equal(after.message, before.message, "the consolidated message is byte-identical");
  assert.deepEqual(after.ids, before.ids, "pin order survives");
  assert.equal(after.none, null, "a session with nothing saved has no pins");
});
