// The package as users get it: `npm pack` of pkg/, installed from the
// tarball into small projects that are not part of this workspace, then
// used from Node, a plain module page (with either entry), a Web Worker,
// a module service worker (each in Chromium, Firefox and WebKit), a
// Manifest V3 extension (Chromium and Firefox), Vite (dev and build),
// webpack 5, and type-checked by tsc --strict.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { execFile, spawn } from "node:child_process";
import { once } from "node:events";
import { copyFile, mkdir, mkdtemp, readFile, readdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { launch, serve } from "../e2e/browser.mjs";
import { firefox, webkit } from "../e2e/webdriver.mjs";
import { build as esbuild } from "esbuild";
import { expectedText } from "./scenario.js";

const run = promisify(execFile);
const dir = (name) => fileURLToPath(new URL(`./${name}/`, import.meta.url));
const shared = (name) => fileURLToPath(new URL(`./${name}`, import.meta.url));
const npm = (cwd, ...args) => run("npm", [...args, "--no-audit", "--no-fund", "--loglevel=error"], { cwd });
const npx = (cwd, ...args) => run("npx", ["--no-install", ...args], { cwd, maxBuffer: 1 << 24 });

// consumer -> the folder its entry lives in, where the shared files go
const consumers = {
  "node-script": ".",
  "plain-esm": ".",
  "vite-app": ".",
  "webpack-app": "src",
  extension: ".",
  typed: null,
};

let packDir, browser;

before(async () => {
  packDir = await mkdtemp(join(tmpdir(), "attache-pack-"));
  const { stdout } = await npm(fileURLToPath(new URL("../../pkg/", import.meta.url)), "pack", "--json", "--pack-destination", packDir);
  const tarball = join(packDir, JSON.parse(stdout)[0].filename);
  for (const [name, into] of Object.entries(consumers)) {
    if (into) {
      for (const file of ["scenario.js", "page.js"]) await copyFile(shared(file), join(dir(name), into, file));
    }
    await npm(dir(name), "ci");
    // --no-package-lock: the tarball changes every build, so it stays out of the lock.
    await npm(dir(name), "install", "--no-save", "--no-package-lock", tarball);
  }
  browser = await launch();
});

after(async () => {
  await browser?.close();
  if (packDir) await rm(packDir, { recursive: true, force: true });
});

function check(result, { context, store }) {
  assert.equal(result.text, expectedText, "the consolidated message: memories, files, todos");
  assert.equal(result.errorCode, "UNKNOWN_KIND", "a bad spec throws a typed AttacheError");
  assert.equal(result.store, store);
  assert.equal(result.roundTrip, true, "the pins round-trip through the store byte-identical");
  assert.deepEqual(result.frames, [{ type: "start" }, { type: "end", ms: 3 }], "frames come back in order");
  assert.deepEqual(result.listed, ["consumer"]);
  assert.equal(result.context, context);
}

async function pageResult(url, context = browser.context) {
  const page = await context.newPage();
  const problems = [];
  page.on("pageerror", (e) => problems.push(String(e)));
  page.on("console", (m) => m.type() === "error" && problems.push(m.text()));
  try {
    await page.goto(url);
    await page.waitForSelector("body[data-result], body[data-error]", { state: "attached", timeout: 30000 })
      .catch((e) => { throw new Error(`${url}: ${problems.join("; ") || e.message}`); });
    const error = await page.getAttribute("body", "data-error");
    if (error) throw new Error(`${url}: ${error}`);
    return JSON.parse(await page.getAttribute("body", "data-result"));
  } finally {
    await page.close();
  }
}

async function served(root, path, expect) {
  const server = await serve(root);
  try {
    check(await pageResult(`${server.origin}${path}`), expect);
  } finally {
    server.stop();
  }
}

const inWindow = { context: "Window", store: "IdbSessionStore" };

test("a Node script uses the default entry with MemorySessionStore", async () => {
  const { stdout } = await run(process.execPath, ["main.js"], { cwd: dir("node-script") });
  check(JSON.parse(stdout), { context: "Object", store: "MemorySessionStore" });
});

test("the Node script bundled for Node (esbuild) runs from its bundle alone", async () => {
  // Neither esbuild nor Vite's SSR build copies a .wasm the code reads from
  // disk: the bundle must carry the wasm itself.
  const out = await mkdtemp(join(tmpdir(), "attache-node-bundle-"));
  try {
    await esbuild({ entryPoints: [join(dir("node-script"), "main.js")], bundle: true, platform: "node", format: "esm", outfile: join(out, "main.mjs"), logLevel: "silent" });
    assert.deepEqual(await readdir(out), ["main.mjs"], "one file, no .wasm beside it");
    const { stdout } = await run(process.execPath, ["main.mjs"], { cwd: out });
    check(JSON.parse(stdout), { context: "Object", store: "MemorySessionStore" });
  } finally {
    await rm(out, { recursive: true, force: true });
  }
});

test("a plain <script type=module> page imports it through an import map", async () => {
  await served(dir("plain-esm"), "/index.html", inWindow);
});

test("attache/slim leaves loading the .wasm to the host", async () => {
  await served(dir("plain-esm"), "/slim.html", inWindow);
});

test("a module Web Worker imports it", async () => {
  await served(dir("plain-esm"), "/worker.html", { context: "DedicatedWorkerGlobalScope", store: "IdbSessionStore" });
});

test("a module service worker imports the default entry: no top-level await", async () => {
  await served(dir("plain-esm"), "/sw.html", { context: "ServiceWorkerGlobalScope", store: "IdbSessionStore" });
});

// The shipped wasm (release build, wasm-opt'd) in the other engines: the
// wasm-bindgen suites there run debug builds of the crate.
for (const [engine, open] of [["Firefox", () => firefox({})], ["WebKit", webkit]]) {
  test(`the plain page, slim page, Web Worker and service worker in ${engine}`, async () => {
    const server = await serve(dir("plain-esm"));
    let driven;
    try {
      driven = await open();
      for (const [page, context] of [["index", "Window"], ["slim", "Window"], ["worker", "DedicatedWorkerGlobalScope"], ["sw", "ServiceWorkerGlobalScope"]]) {
        await driven.go(`${server.origin}/${page}.html`);
        const shown = await driven.run(`
          while (!document.body?.dataset.result && !document.body?.dataset.error) await new Promise((r) => setTimeout(r, 20));
          return { ...document.body.dataset };`);
        assert.equal(shown.thrown ?? shown.error, undefined, `${page}.html: ${shown.thrown ?? shown.error}`);
        check(JSON.parse(shown.result), { context, store: "IdbSessionStore" });
      }
    } finally {
      await driven?.close();
      server.stop();
    }
  });
}

test("a Manifest V3 extension: the default entry in its worker, across a stop, and attache/slim in its page", async () => {
  const root = dir("extension");
  const withExtension = await launch([`--disable-extensions-except=${root}`, `--load-extension=${root}`]);
  try {
    const { context } = withExtension;
    const worker = context.serviceWorkers()[0] ?? await context.waitForEvent("serviceworker", { timeout: 30000 });
    // Node's URL gives no origin for this scheme.
    const origin = `chrome-extension://${new URL(worker.url()).host}`;
    check(await pageResult(`${origin}/index.html`, context), inWindow);

    const page = await context.newPage();
    await page.goto(`${origin}/index.html`);
    // A Chromium that never stops or wakes the worker fails, not hangs.
    const within = (promise, what) => Promise.race([promise, new Promise((_, reject) =>
      setTimeout(() => reject(new Error(`${what}: no answer in 30 s`)), 30000).unref())]);
    const send = async (command, argument) => {
      const answer = await within(page.evaluate((message) => chrome.runtime.sendMessage(message), { command, argument }), command);
      assert.ok(answer?.ok, `the worker's ${command}: ${answer?.value}`);
      return answer;
    };
    check((await send("scenario")).value, { context: "ServiceWorkerGlobalScope", store: "IdbSessionStore" });
    const remembered = await send("remember", "kept");

    // Chrome stops an idle extension worker; the next message loads it anew.
    const cdp = await context.newCDPSession(page);
    const stopped = new Promise((resolve) => cdp.on("ServiceWorker.workerVersionUpdated",
      ({ versions }) => versions.some((v) => v.runningStatus === "stopped") && resolve()));
    await cdp.send("ServiceWorker.enable");
    await cdp.send("ServiceWorker.stopAllWorkers");
    await within(stopped, "stopping the worker");
    const recalled = await send("recall", remembered.value);
    assert.notEqual(recalled.loadedAt, remembered.loadedAt, "the stopped worker's module was loaded again");
    assert.equal(recalled.value, "kept", "the session outlived the worker");
  } finally {
    await withExtension.close();
  }
});

test("the same extension in Firefox: the default entry in its event page, across a suspension, and attache/slim in its page", async () => {
  const uuid = crypto.randomUUID();
  const fox = await firefox({
    "extensions.webextensions.uuids": JSON.stringify({ "attache-consumer@example.org": uuid }),
    // 30 s by default, as Chrome's. Firefox may suspend a page mid-answer
    // once idle this long: 3 s outlasts any one message here.
    "extensions.background.idle.timeout": 3000,
  });
  try {
    assert.equal(await fox.install(dir("extension")), "attache-consumer@example.org");
    await fox.go(`moz-extension://${uuid}/index.html`);
    const result = await fox.run(`
      while (!document.body?.dataset.result && !document.body?.dataset.error) await new Promise((r) => setTimeout(r, 20));
      return { ...document.body.dataset };`);
    assert.equal(result.thrown ?? result.error, undefined, result.thrown ?? result.error);
    check(JSON.parse(result.result), inWindow);

    const send = async (command, argument) => {
      const answer = await fox.run("return chrome.runtime.sendMessage(arguments[0]);", { command, argument });
      assert.ok(answer?.ok, `the event page's ${command}: ${answer?.value ?? answer?.thrown}`);
      return answer;
    };
    // Firefox's MV3 background is an event page: a window, not a worker.
    check((await send("scenario")).value, inWindow);
    const remembered = await send("remember", "kept");
    // A message that finds the page awake finds the same load, and
    // restarts its idle time: wait past it again.
    let recalled = remembered;
    for (let tries = 0; tries < 8 && recalled.loadedAt === remembered.loadedAt; tries++) {
      await new Promise((resolve) => setTimeout(resolve, 4000));
      recalled = await send("recall", remembered.value);
    }
    assert.notEqual(recalled.loadedAt, remembered.loadedAt, "the suspended event page loaded the module again");
    assert.equal(recalled.value, "kept", "the session outlived the suspension");
  } finally {
    await fox.close();
  }
});

// The default entry inlines the wasm: a bundle that also emits the .wasm
// file ships bytes no page loads.
async function emittedWasm(root) {
  const files = await readdir(root, { recursive: true });
  return files.filter((file) => file.endsWith(".wasm"));
}

test("a Vite build bundles it with no attache-specific config", async () => {
  await rm(join(dir("vite-app"), "dist"), { recursive: true, force: true });
  await npx(dir("vite-app"), "vite", "build", "--logLevel", "error");
  assert.deepEqual(await emittedWasm(join(dir("vite-app"), "dist")), [], "no unused copy of the wasm");
  await served(join(dir("vite-app"), "dist"), "/index.html", inWindow);
});

test("the Vite dev server serves it with no attache-specific config", async () => {
  // Vite's own script, not npx: killing npx would leave Vite running.
  const bin = join(dir("vite-app"), "node_modules", "vite", "bin", "vite.js");
  const vite = spawn(process.execPath, [bin, "--host", "127.0.0.1", "--port", "0", "--clearScreen", "false"],
    { cwd: dir("vite-app"), stdio: ["ignore", "pipe", "inherit"] });
  try {
    // The listener stays attached so Vite's stdout never backs up or breaks.
    const url = await new Promise((resolve, reject) => {
      let printed = "";
      vite.stdout.on("data", (chunk) => {
        printed += chunk;
        const found = printed.replace(/\x1b\[[0-9;]*m/g, "").match(/http:\/\/127\.0\.0\.1:\d+\//);
        if (found) resolve(found[0]);
      });
      vite.on("exit", (code) => reject(new Error(`vite exited (${code}) before serving:\n${printed}`)));
    });
    check(await pageResult(url), inWindow);
  } finally {
    if (vite.exitCode === null && vite.signalCode === null) {
      vite.kill();
      await once(vite, "exit");
    }
  }
});

test("a webpack 5 build bundles it with no attache-specific config", async () => {
  await rm(join(dir("webpack-app"), "dist"), { recursive: true, force: true });
  await npx(dir("webpack-app"), "webpack", "--mode", "production", "--no-stats");
  assert.deepEqual(await emittedWasm(join(dir("webpack-app"), "dist")), [], "no unused copy of the wasm");
  await served(dir("webpack-app"), "/index.html", inWindow);
});

test("the package ships its own README, not the repository's", async () => {
  const shipped = await readFile(new URL("../../pkg/README.md", import.meta.url), "utf8");
  assert.match(shipped, /npm install attache/);
  assert.doesNotMatch(shipped, /scripts\/(test|demo)\.sh/);
});

test("each entry exports at run time just the values its types declare", async () => {
  // A value exported but not declared is one a typed host cannot reach, and
  // one the docs never promised (the default entry's initSync was one).
  const installed = join(dir("typed"), "node_modules", "attache");
  const { default: ts } = await import(join(dir("typed"), "node_modules", "typescript", "lib", "typescript.js"));
  const entries = { "index": "default entry", "attache": "attache/slim" };
  const program = ts.createProgram(Object.keys(entries).map((file) => join(installed, `${file}.d.ts`)), { strict: true, noEmit: true });
  const checker = program.getTypeChecker();
  for (const [file, entry] of Object.entries(entries)) {
    const module = checker.getSymbolAtLocation(program.getSourceFile(join(installed, `${file}.d.ts`)));
    const declared = checker.getExportsOfModule(module)
      .filter((s) => ((s.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(s) : s).flags & ts.SymbolFlags.Value) !== 0)
      .map((s) => s.name).sort();
    const runtime = Object.keys(await import(join(installed, `${file}.js`))).sort();
    assert.ok(declared.includes("AttachmentStore"), `${entry}: the checker found the declarations`);
    assert.deepEqual(runtime, declared, `${entry}: run-time exports against declared values`);
  }
});

test("tsc --strict accepts a typed consumer and its @ts-expect-error lines fail to compile", async () => {
  await npx(dir("typed"), "tsc", "-p", ".").catch((e) => assert.fail(`tsc reported:\n${e.stdout}${e.stderr}`));
});

test("a plain tsconfig (no lib named, node10), one without the DOM lib and one with exactOptionalPropertyTypes all compile it", async () => {
  for (const config of ["tsconfig.plain.json", "tsconfig.nodom.json", "tsconfig.exact.json"]) {
    await npx(dir("typed"), "tsc", "-p", config).catch((e) => assert.fail(`${config}: tsc reported:\n${e.stdout}${e.stderr}`));
  }
});

test("requests and messages go into the openai, @anthropic-ai/sdk and ai types with no casts", async () => {
  await npx(dir("typed"), "tsc", "-p", "tsconfig.sdk.json").catch((e) => assert.fail(`tsc reported:\n${e.stdout}${e.stderr}`));
});

test("the adapters' subpath exports type-check where their frameworks expect them", async () => {
  await npx(dir("typed"), "tsc", "-p", "tsconfig.adapters.json").catch((e) => assert.fail(`tsc reported:\n${e.stdout}${e.stderr}`));
});

test("every TypeScript snippet in both READMEs compiles under --strict", async () => {
  const snippets = [];
  for (const file of ["../../README.md", "../../src/js/npm-README.md"]) {
    const readme = await readFile(new URL(file, import.meta.url), "utf8");
    snippets.push(...[...readme.matchAll(/^```ts\n([\s\S]*?)^```$/gm)].map((m) => m[1]));
  }
  assert.ok(snippets.length >= 7, `found ${snippets.length} snippets`);
  const out = join(dir("typed"), "readme");
  await rm(out, { recursive: true, force: true });
  await mkdir(out);
  // Each its own module, so top-level await works and names do not clash.
  await Promise.all(snippets.map((code, i) => writeFile(join(out, `snippet-${i + 1}.ts`), `${code}\nexport {};\n`)));
  await npx(dir("typed"), "tsc", "-p", "tsconfig.readme.json").catch((e) => assert.fail(`tsc reported:\n${e.stdout}${e.stderr}`));
  // And where a host passes what it holds as it is: `consolidatedMessage()`
  // may give undefined. The frameworks' own types are skipped there, as
  // several do not compile under this flag.
  await npx(dir("typed"), "tsc", "-p", "tsconfig.readme-exact.json").catch((e) => assert.fail(`exactOptionalPropertyTypes: tsc reported:\n${e.stdout}${e.stderr}`));
});
