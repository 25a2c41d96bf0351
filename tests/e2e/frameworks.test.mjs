// The adapters in a real browser, across a real reload: a LangGraph
// StateGraph interrupted, then resumed by a reloaded page from the
// checkpoints in IndexedDB.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { mkdir, writeFile } from "node:fs/promises";
import { build } from "esbuild";
import { start } from "./browser.mjs";

const repo = new URL("../../", import.meta.url);
let env;

/** Bundles a page module into target/e2e/ and serves it on a page of its own. */
async function page(name) {
  const out = new URL(`target/e2e/${name}/`, repo);
  await mkdir(out, { recursive: true });
  await build({
    entryPoints: [new URL(`tests/e2e/frameworks/${name}.page.mjs`, repo).pathname],
    bundle: true, format: "esm", target: "es2022", outfile: new URL("page.js", out).pathname, logLevel: "error",
  });
  await writeFile(new URL("index.html", out), `<!doctype html><meta charset="utf-8"><script type="module" src="page.js"></script><body></body>\n`);
  const tab = await env.context.newPage();
  const errors = [];
  tab.on("pageerror", (e) => errors.push(e));
  await tab.goto(`${env.origin}/target/e2e/${name}/index.html`);
  await tab.waitForSelector("body[data-ready=true]", { state: "attached", timeout: 20000 }).catch((e) => {
    throw new Error(`${e.message}; page errors: ${errors.join("; ")}`);
  });
  return tab;
}

before(async () => { env = await start(); });
after(async () => { await env?.stop(); });

test("a LangGraph StateGraph stopped at interrupt() resumes on a reloaded page", async () => {
  const tab = await page("langgraph");
  const started = await tab.evaluate(() => window.langgraphRun.start("deploy-thread"));
  assert.deepEqual(started.interrupts, [{ question: "deploy?" }]);
  assert.deepEqual(started.next, ["approve"]);
  assert.deepEqual(started.log, ["plan v2"]);

  await tab.reload();
  await tab.waitForSelector("body[data-ready=true]", { state: "attached" });
  const resumed = await tab.evaluate(() => window.langgraphRun.resume("deploy-thread", "yes"));
  assert.deepEqual(resumed.pendingBefore, ["approve"], "the reloaded page found the interrupted task");
  assert.deepEqual(resumed.log, ["plan v2", "approved: yes", "deployed"]);
  assert.equal(resumed.approved, "yes");
  assert.ok(resumed.checkpoints >= 4, `every step was checkpointed (${resumed.checkpoints})`);
  assert.deepEqual(resumed.steps, [...resumed.steps].sort((a, b) => b - a), "history is newest first");
  await tab.close();
});
