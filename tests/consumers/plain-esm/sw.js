// Import maps do not reach workers, so the worker names the file.
import * as attache from "./node_modules/attache/index.js";
import { scenario } from "./scenario.js";

self.addEventListener("message", (event) => {
  const reply = (data) => event.source.postMessage(data);
  event.waitUntil(scenario(attache, { persistent: true })
    .then((result) => reply({ ok: true, value: JSON.stringify(result) }))
    .catch((e) => reply({ ok: false, value: String(e?.stack ?? e) })));
});
