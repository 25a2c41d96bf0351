// Runs the scenario on a page and leaves the outcome on <body> for the
// test to read. Copied into each browser consumer with scenario.js.
import { scenario } from "./scenario.js";

export async function report(attache) {
  try {
    document.body.dataset.result = JSON.stringify(await scenario(attache, { persistent: true }));
  } catch (e) {
    document.body.dataset.error = String(e?.stack ?? e);
  }
}
