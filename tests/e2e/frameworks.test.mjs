// The adapters in real browsers (Chromium, Firefox, WebKit), across a real
// reload: a LangGraph StateGraph interrupted, then resumed by a reloaded
// page from the checkpoints in IndexedDB; an OpenAI Agents run whose
// session a reloaded page continues.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { mkdir, writeFile } from "node:fs/promises";
import { build } from "esbuild";
import { start } from "./browser.mjs";
import { firefox, webkit } from "./webdriver.mjs";

const repo = new URL("../../", import.meta.url);
const PAGES = ["langgraph", "agents"];
let env;

before(async () => {
  // Each page module bundled into target/e2e/, on a page of its own that
  // keeps its errors, for a page that never gets ready to name them.
  for (const name of PAGES) {
    const out = new URL(`target/e2e/${name}/`, repo);
    await mkdir(out, { recursive: true });
    await build({
      entryPoints: [new URL(`tests/e2e/frameworks/${name}.page.mjs`, repo).pathname],
      bundle: true, format: "esm", target: "es2022", outfile: new URL("page.js", out).pathname, logLevel: "error",
    });
    await writeFile(new URL("index.html", out), `<!doctype html><meta charset="utf-8">
<script>window.pageErrors = []; addEventListener("error", (e) => pageErrors.push(String(e.message)));</script>
<script type="module" src="page.js"></script><body></body>\n`);
  }
  env = await start();
});
after(async () => { await env?.stop(); });

/** Runs `call` (an expression on the page's global) once the page is ready. */
const when = (call) => `
  for (const until = Date.now() + 20000; document.body?.dataset.ready !== "true";) {
    if (Date.now() > until) throw new Error("the page never got ready: " + window.pageErrors.join("; "));
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return ${call};`;

const engines = {
  Chromium: async () => {
    const tab = await env.context.newPage();
    return {
      go: (url) => tab.goto(url),
      run: (body) => tab.evaluate(`(async () => { ${body} })().catch((e) => ({ thrown: String(e) }))`),
      close: () => tab.close(),
    };
  },
  Firefox: () => firefox({}),
  WebKit: webkit,
};

/** `steps(go, call)` on a fresh browser of `engine`: `go(name)` (re)loads a page. */
async function inBrowser(engine, steps) {
  const browser = await engines[engine]();
  try {
    await steps(
      (name) => browser.go(`${env.origin}/target/e2e/${name}/index.html`),
      async (call) => {
        const result = await browser.run(when(call), null, 60000);
        assert.equal(result?.thrown, undefined, result?.thrown);
        return result;
      },
    );
  } finally {
    await browser.close();
  }
}

for (const engine of Object.keys(engines)) {
  test(`a LangGraph StateGraph stopped at interrupt() resumes on a reloaded page, in ${engine}`, async () => {
    await inBrowser(engine, async (go, call) => {
      await go("langgraph");
      const started = await call(`window.langgraphRun.start("deploy-thread")`);
      assert.deepEqual(started.interrupts, [{ question: "deploy?" }]);
      assert.deepEqual(started.next, ["approve"]);
      assert.deepEqual(started.log, ["plan v2"]);

      await go("langgraph");
      const resumed = await call(`window.langgraphRun.resume("deploy-thread", "yes")`);
      assert.deepEqual(resumed.pendingBefore, ["approve"], "the reloaded page found the interrupted task");
      assert.deepEqual(resumed.log, ["plan v2", "approved: yes", "deployed"]);
      assert.equal(resumed.approved, "yes");
      assert.ok(resumed.checkpoints >= 4, `every step was checkpointed (${resumed.checkpoints})`);
      assert.deepEqual(resumed.steps, [...resumed.steps].sort((a, b) => b - a), "history is newest first");
    });
  });

  test(`an OpenAI Agents run continues on a reloaded page from its session in IndexedDB, in ${engine}`, async () => {
    await inBrowser(engine, async (go, call) => {
      await go("agents");
      const first = await call(`window.agentsRun.first("chat")`);
      assert.equal(first.output, "It is 3°C in Oslo.");
      assert.deepEqual(first.roles, ["user", "assistant", "tool", "assistant"], "the call, its result and the answer are stored");

      await go("agents");
      const second = await call(`window.agentsRun.second("chat")`);
      assert.equal(second.output, "Oslo.");
      // What the model was sent: the stored turn, then the new question.
      const sent = second.sent.map((item) => item.type === "message" || item.role ? `${item.role}` : item.type);
      assert.deepEqual(sent, ["user", "function_call", "function_call_result", "assistant", "user"]);
      assert.equal(second.sent[0].content, "Weather in Oslo?");
      assert.deepEqual([second.sent[1].callId, second.sent[1].arguments], ["call_oslo", '{"city":"Oslo"}']);
      assert.equal(second.sent[2].callId, "call_oslo");
      assert.equal(second.sent[4].content, "Which city did I ask about?");
      assert.deepEqual(second.roles, ["user", "assistant", "tool", "assistant", "user", "assistant"]);
    });
  });
}
