// Headless Chromium and static servers for the e2e and consumer tests and
// the benchmarks. Chromium comes from Debian; no browser is downloaded. The
// profile is persistent (in a temp dir) because Chromium ignores quota
// overrides for the in-memory storage of an incognito context.
import { spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium } from "playwright-core";

const repo = new URL("../../", import.meta.url);

/** Serves the repo (www/, pkg/, harness pages), or everything under `root`. */
export async function serve(root) {
  const args = ["scripts/serve.mjs", "0", ...(root ? [root] : [])];
  const server = spawn(process.execPath, args, { cwd: repo, stdio: ["ignore", "pipe", "inherit"] });
  const [line] = await once(server.stdout, "data");
  return { origin: String(line).match(/http:\/\/[\d.:]+/)[0], stop: () => server.kill() };
}

export async function launch() {
  const profile = await mkdtemp(join(tmpdir(), "attache-chromium-"));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: process.env.CHROMIUM ?? "/usr/bin/chromium",
    args: ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--disable-background-networking",
      "--disable-component-update", "--disable-sync", "--no-first-run"],
  });
  return {
    context,
    async close() {
      await context.close();
      await rm(profile, { recursive: true, force: true });
    },
  };
}

/** The repo server and a browser, for the demo and harness pages. */
export async function start() {
  const [server, browser] = await Promise.all([serve(), launch()]);
  return {
    origin: server.origin,
    context: browser.context,
    async stop() {
      await browser.close();
      server.stop();
    },
  };
}

/** A page with the built package loaded as `window.attache`. */
export async function harness(env) {
  const page = await env.context.newPage();
  await page.goto(`${env.origin}/tests/e2e/pages/harness.html`);
  await page.waitForSelector("body[data-ready=true]", { state: "attached", timeout: 15000 });
  return page;
}
