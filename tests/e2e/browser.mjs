// Headless Chromium and static servers for the e2e and consumer tests and
// the benchmarks. Chromium comes from Debian; no browser is downloaded. The
// profile is persistent (in a temp dir) because Chromium ignores quota
// overrides for the in-memory storage of an incognito context.
import { spawn } from "node:child_process";
import { once } from "node:events";
import { mkdir, mkdtemp, readdir, readFile, readlink, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { chromium } from "playwright-core";

const repo = new URL("../../", import.meta.url);

/** Serves the repo (www/, pkg/, harness pages), or everything under `root`. */
export async function serve(root) {
  const args = ["scripts/serve.mjs", "0", ...(root ? [root] : [])];
  const server = spawn(process.execPath, args, { cwd: repo, stdio: ["ignore", "pipe", "inherit"] });
  const [line] = await once(server.stdout, "data");
  return { origin: String(line).match(/http:\/\/[\d.:]+/)[0], stop: () => server.kill() };
}

export const executablePath = process.env.CHROMIUM ?? "/usr/bin/chromium";
export const chromiumArgs = ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
  "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run"];

/** `preferences`: the profile's own, as Chromium's settings page writes them. */
export async function launch(extraArgs = [], preferences) {
  const profile = await mkdtemp(join(tmpdir(), "attache-chromium-"));
  if (preferences) {
    await mkdir(join(profile, "Default"));
    await writeFile(join(profile, "Default", "Preferences"), JSON.stringify(preferences));
  }
  const context = await chromium.launchPersistentContext(profile, { executablePath, args: [...chromiumArgs, ...extraArgs] });
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

/**
 * Chromium on `profile` as our own child, in its own process group, driven
 * over CDP: unlike a Playwright launch, it can be SIGKILLed whole, like a
 * crash, and relaunched on the same profile. `context` is the profile's.
 */
export async function spawnChromium(profile) {
  const args = [...chromiumArgs, "--headless=new", `--user-data-dir=${profile}`, "--remote-debugging-port=0", "about:blank"];
  const child = spawn(executablePath, args, { detached: true, stdio: ["ignore", "ignore", "pipe"] });
  const exited = once(child, "exit");
  let log = "";
  const endpoint = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no DevTools endpoint from chromium: ${log}`)), 30000);
    child.stderr.on("data", (chunk) => {
      if (log.length < 1e5) log += chunk;
      const found = log.match(/DevTools listening on (ws:\/\/\S+)/);
      if (found) { clearTimeout(timer); resolve(found[1]); }
    });
    exited.then(([code, signal]) => { clearTimeout(timer); reject(new Error(`chromium exited (${code ?? signal}): ${log}`)); });
  });
  // Should this process die first, Chromium must not outlive it.
  const reap = () => { try { process.kill(-child.pid, "SIGKILL"); } catch {} };
  process.once("exit", reap);
  const browser = await chromium.connectOverCDP(endpoint);
  return {
    context: browser.contexts()[0],
    /** What Chromium wrote to stderr about its storage (the first 100 KB). */
    storageLog: () => log.split("\n").filter((l) => /indexeddb|leveldb|sqlite|corrupt/i.test(l)).slice(0, 5).join(" | "),
    /** SIGKILLs every process of the group; resolves once none is left. */
    async kill() {
      process.off("exit", reap);
      try { process.kill(-child.pid, "SIGKILL"); } catch (e) { if (e.code !== "ESRCH") throw e; }
      await exited;
      await groupGone(child.pid);
      // Chromium removes its singleton socket's temp dir only on a clean exit.
      const socket = await readlink(join(profile, "SingletonSocket")).catch(() => "");
      if (/\/org\.chromium\.Chromium\.\w+\/SingletonSocket$/.test(socket)) {
        await rm(dirname(socket), { recursive: true, force: true });
      }
    },
  };
}

// Orphaned children are reaped by init, if at all: zombies are ignored.
async function groupGone(pgid) {
  for (let tries = 0; tries < 200; tries++) {
    let alive = 0;
    for (const pid of await readdir("/proc").catch(() => [])) {
      if (!/^\d+$/.test(pid)) continue;
      const stat = await readFile(`/proc/${pid}/stat`, "utf8").catch(() => "");
      const [state, , pgrp] = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      if (Number(pgrp) === pgid && state !== "Z") alive++;
    }
    if (alive === 0) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`chromium's process group ${pgid} outlived SIGKILL`);
}
