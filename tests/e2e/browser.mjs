// Starts the static server and headless Chromium for the e2e tests and
// benchmarks. Chromium comes from Debian; no browser is downloaded. The
// profile is persistent (in a temp dir) because Chromium ignores quota
// overrides for the in-memory storage of an incognito context.
import { spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium } from "playwright-core";

const root = new URL("../../", import.meta.url);

export async function start() {
  const server = spawn(process.execPath, ["scripts/serve.mjs", "0"], { cwd: root, stdio: ["ignore", "pipe", "inherit"] });
  const [line] = await once(server.stdout, "data");
  const origin = String(line).match(/http:\/\/[\d.:]+/)[0];
  const profile = await mkdtemp(join(tmpdir(), "attache-chromium-"));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: process.env.CHROMIUM ?? "/usr/bin/chromium",
    args: ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--disable-background-networking",
      "--disable-component-update", "--disable-sync", "--no-first-run"],
  });
  return {
    origin,
    context,
    async stop() {
      await context.close();
      server.kill();
      await rm(profile, { recursive: true, force: true });
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
