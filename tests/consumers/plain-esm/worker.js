// Import maps do not reach workers, so the worker names the file.
import * as attache from "./node_modules/attache/index.js";
import { scenario } from "./scenario.js";

try {
  postMessage({ ok: true, value: JSON.stringify(await scenario(attache, { persistent: true })) });
} catch (e) {
  postMessage({ ok: false, value: String(e?.stack ?? e) });
}
