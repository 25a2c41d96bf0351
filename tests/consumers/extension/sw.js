// An MV3 extension's background worker, as the README's "In a service
// worker or an extension" has it: the default entry by path (workers have
// no import maps), the store opened on first use, not at the top.
import * as attache from "./node_modules/attache/index.js";
import { scenario } from "./scenario.js";

// Which load of the module answered: a stopped worker loads it again.
const loadedAt = crypto.randomUUID();
let opened;
const sessions = () => (opened ??= attache.IdbSessionStore.open().catch((e) => { opened = undefined; throw e; }));

const commands = {
  scenario: () => scenario(attache, { persistent: true }),
  remember: async (title) => (await (await sessions()).createSession({ title })).id,
  recall: async (id) => (await (await sessions()).getSession(id))?.title ?? null,
};

chrome.runtime.onMessage.addListener((message, sender, reply) => {
  // This extension's own pages only (its content scripts message it too,
  // from the web page's URL), and known commands only.
  if (!sender.url?.startsWith(chrome.runtime.getURL("")) || !Object.hasOwn(commands, message?.command)) return false;
  commands[message.command](message.argument).then(
    (value) => reply({ ok: true, value, loadedAt }),
    (e) => reply({ ok: false, value: String(e?.stack ?? e), loadedAt }));
  return true; // the reply comes later
});
