// Firefox (Debian's ESR, through geckodriver) and WebKitGTK (through
// WebKitWebDriver) by the WebDriver HTTP API: Playwright's Firefox and
// WebKit are patched builds, which we do not download.
import { spawn } from "node:child_process";
import { createServer } from "node:net";

const freePort = () => new Promise((resolve, reject) => {
  const server = createServer().listen(0, "127.0.0.1", () => {
    const { port } = server.address();
    server.close(() => resolve(port));
  }).on("error", reject);
});

export async function firefox(prefs) {
  const port = await freePort();
  // --allow-system-access: geckodriver 0.37 opens no moz-extension: page without it.
  return drive(port, process.env.GECKODRIVER ?? "geckodriver",
    ["--port", String(port), "--allow-system-access", "--binary", process.env.FIREFOX ?? "/usr/bin/firefox-esr"],
    { "moz:firefoxOptions": { args: ["-headless"], prefs } });
}

export async function webkit() {
  const port = await freePort();
  // WebKitWebDriver starts MiniBrowser, which needs a display. Searched
  // from a random number: node --test runs files at once on a machine with
  // more cores, and two xvfb-run -a from one start can take one display.
  const display = String(100 + Math.floor(Math.random() * 10000));
  return drive(port, "xvfb-run", ["-a", "-n", display, "/usr/bin/WebKitWebDriver", `--port=${port}`], {});
}

async function drive(port, command, args, capabilities) {
  // Its own process group: geckodriver leaves Firefox running when it is
  // killed (mozilla/geckodriver#291), and the browser holds the stderr pipe.
  const driver = spawn(command, args,
    { env: { ...process.env, MOZ_HEADLESS: "1" }, stdio: ["ignore", "ignore", "pipe"], detached: true });
  const exited = new Promise((resolve) => driver.once("exit", resolve));
  // Should this process end first, the browser must not outlive it.
  const reap = () => { try { process.kill(-driver.pid, "SIGKILL"); } catch { /* already gone */ } };
  const onSignal = (signal) => { reap(); process.kill(process.pid, signal); };
  process.once("exit", reap);
  for (const signal of ["SIGINT", "SIGTERM"]) process.once(signal, onSignal);
  let log = "";
  driver.stderr.on("data", (chunk) => { log = (log + chunk).slice(-4000); });
  // A driver that could not start or died says so, with its log.
  const died = new Promise((_, reject) => {
    const end = (why) => reject(new Error(`${command} ended (${why}): ${log}`));
    driver.on("error", (e) => end(e.message));
    driver.on("exit", (code, signal) => end(code ?? signal));
  });
  died.catch(() => {});
  const base = `http://127.0.0.1:${port}`;
  // A script may take up to `ms`; its HTTP call gets a minute more.
  const call = async (method, path, body, ms = 0) => {
    const response = await Promise.race([died, fetch(base + path, { method, headers: { "content-type": "application/json" },
      body: body && JSON.stringify(body), signal: AbortSignal.timeout(ms + 60000) })]);
    const { value } = await response.json();
    if (!response.ok) throw new Error(`${method} ${path}: ${value.message}`);
    return value;
  };
  let session;
  const at = (path) => `/session/${session}${path}`;
  const close = async () => {
    if (session) await call("DELETE", at("")).catch(() => {});
    // TERM first, so xvfb-run stops its Xvfb and removes its lock files.
    try { process.kill(-driver.pid, "SIGTERM"); } catch { /* already gone */ }
    await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 3000))]);
    reap();
    process.off("exit", reap);
    for (const signal of ["SIGINT", "SIGTERM"]) process.off(signal, onSignal);
    driver.stderr?.destroy();
  };
  try {
    for (let i = 0; ; i++) {
      try { await Promise.race([died, fetch(`${base}/status`)]); break; } catch (e) { if (i > 300 || driver.exitCode !== null || driver.signalCode !== null) throw e; }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    ({ sessionId: session } = await call("POST", "/session",
      { capabilities: { alwaysMatch: capabilities } }));
  } catch (e) {
    await close();
    throw e;
  }
  return {
    install: (path) => call("POST", at("/moz/addon/install"), { path, temporary: true }),
    go: (url) => call("POST", at("/url"), { url }),
    /** Runs an async function body in the page, for up to `ms`; `arguments[0]` is `arg`. */
    run: async (body, arg = null, ms = 30000) => {
      await call("POST", at("/timeouts"), { script: ms });
      return call("POST", at("/execute/async"), { args: [arg], script:
        `const done = arguments[arguments.length - 1];
         (async () => { ${body} })().then(done, (e) => done({ thrown: \`\${e}\n\${e?.stack ?? ""}\` }));` }, ms);
    },
    close,
  };
}
