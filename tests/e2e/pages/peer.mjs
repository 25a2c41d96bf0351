// contexts.mjs's module worker: runs its steps on the page's request.
import { steps } from "./contexts.mjs";

self.onmessage = async ({ data: { id, step, args } }) => {
  try {
    postMessage({ id, value: await steps[step](args) });
  } catch (e) {
    postMessage({ id, thrown: String(e) });
  }
};
