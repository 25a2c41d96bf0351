// A dependency-free static server on loopback only.
//   node scripts/serve.mjs [port]        the demo: www/, pkg/ and the test
//                                        harness pages (default port 8080)
//   node scripts/serve.mjs port DIR      everything under DIR (consumer tests)
import { createServer } from "node:http";
import { readFile } from "node:fs/promises";
import { extname, join, normalize, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const repo = fileURLToPath(new URL("..", import.meta.url));
const port = Number(process.argv[2] ?? process.env.PORT ?? 8080);
const root = process.argv[3] ? resolve(process.argv[3]) : repo;
// fast-check and pure-rand are served for the browser fuzz page, Dexie and
// idb for the benchmarks.
const allowed = process.argv[3] ? /^\// : /^\/(www|pkg|tests\/e2e\/pages|tests\/boundary|tests\/bench|target\/e2e|node_modules\/(fast-check|pure-rand|dexie|idb))\//;
const home = process.argv[3] ? "/index.html" : "/www/";
const types = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".mjs": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".json": "application/json",
  ".wasm": "application/wasm",
  ".ts": "text/plain; charset=utf-8",
};

const server = createServer(async (req, res) => {
  let path;
  try {
    path = normalize(decodeURIComponent(new URL(req.url, "http://x").pathname));
  } catch {
    // A malformed escape such as `/%E0` must not take the server down.
    res.writeHead(400).end("bad request");
    return;
  }
  if (path === "/") {
    res.writeHead(302, { location: home }).end();
    return;
  }
  if (!allowed.test(path) || path.includes("..")) {
    res.writeHead(404).end("not found");
    return;
  }
  const file = join(root, path.endsWith("/") ? `${path}index.html` : path);
  try {
    const body = await readFile(file);
    const headers = { "content-type": types[extname(file)] ?? "application/octet-stream", "cache-control": "no-store" };
    if (path.startsWith("/tests/bench/")) {
      // Cross-origin isolation: the benchmarks' timer resolution is 5 µs.
      headers["cross-origin-opener-policy"] = "same-origin";
      headers["cross-origin-embedder-policy"] = "require-corp";
    }
    res.writeHead(200, headers);
    res.end(body);
  } catch {
    res.writeHead(404).end("not found");
  }
});

server.on("error", (e) => {
  console.error(e.code === "EADDRINUSE" ? `port ${port} is taken: give another, scripts/demo.sh 9000` : `cannot serve: ${e.message}`);
  process.exit(1);
});
server.listen(port, "127.0.0.1", () => {
  console.log(`attache demo: http://127.0.0.1:${server.address().port}/`);
});
