// An extension page with attache/slim: init() is given the URL the
// extension serves the .wasm at, as the README says. The test loads the
// package as npm installed it; an extension ships just its files.
import init, * as attache from "./node_modules/attache/attache.js";
import { report } from "./page.js";

try {
  await init({ module_or_path: chrome.runtime.getURL("node_modules/attache/attache_bg.wasm") });
  await report(attache);
} catch (e) {
  document.body.dataset.error = String(e?.stack ?? e);
}
