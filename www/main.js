// The demo page: sessions in IndexedDB, pins, the agent loop, and what
// each request carried. Every text from the user or a model is rendered
// with textContent, never as HTML.
import init, { AttachmentStore, IdbSessionStore, MemorySessionStore, isAttacheError, redactCredentials, registerSecret, forgetSecrets } from "../pkg/attache.js";
import { runTurn, todoItems } from "./agent.js";
import { endpoint, isPinned, scripted } from "./model.js";
import { el, list, describeFrame, download, sizeOf } from "./view.js";

/** Shown in place of a value that holds the key where it cannot be redacted. */
const UNREDACTABLE = "(holds the model's key where it cannot be redacted)";

const $ = (id) => document.getElementById(id);
const describe = (e) => (isAttacheError(e) ? `${e.code}: ${e.message}` : String(e?.message ?? e));
await init().catch((e) => {
  notice(`The demo could not load attache: ${e?.message ?? e}`);
  throw e;
});
// Storage denied (a sandboxed frame, some private modes), or a database
// this build cannot open (a newer one's, say): the memory store keeps the
// page working, for this tab only, and the page says why.
let inMemory = "";
const store = await IdbSessionStore.open({
  name: "attache-demo",
  onVersionChange: ({ newVersion }) => notice(newVersion === null ? "Another tab deleted the database; the next action starts it anew." : "Another tab upgraded the database; reconnecting."),
})
  .catch((e) => {
    // Said in the storage panel too, which stays: a notice is cleared by the next action.
    inMemory = isAttacheError(e) && e.code === "UNAVAILABLE" ? "IndexedDB is not available here."
      : isAttacheError(e) && e.code === "VERSION" ? `IndexedDB holds a database this page cannot open (${describe(e)}).`
        : `IndexedDB could not be opened (${describe(e)}); a reload tries again.`;
    queueMicrotask(() => notice(`Sessions last until this tab closes. ${inMemory}`));
    return new MemorySessionStore();
  });
let model = scripted;
/** A key is registered with the guard: what was stored before may hold it. */
let keyEntered = false;
let sessionId;
let pinned = new AttachmentStore();
let lastSteps = [];
/** Every request the page sent, for the curious (and the end-to-end test); `sent` counts those of failed turns too. */
window.demo = { requests: [], sent: 0 };
const counted = {
  get tools() { return model.tools; },
  get format() { return model.format; },
  complete: (messages, signal) => (window.demo.sent++, model.complete(messages, signal)),
};

function notice(text) {
  $("notice").textContent = text;
}

/** What an action did, for screen readers (`#said` is a status line). */
function said(text) {
  $("said").textContent = text;
}

/** Sets text only when it changed: a live region reads every write. */
function put(id, text) {
  if ($(id).textContent !== text) $(id).textContent = text;
}


/** `f()`, or `blocked(e)` when a pin holding the model's key refused it. */
function unlessBlocked(f, blocked) {
  try {
    return f();
  } catch (e) {
    if (!isAttacheError(e) || e.code !== "CREDENTIAL") throw e;
    return blocked(e);
  }
}

let busy = 0;
/**
 * Runs an action; a refusal is shown, naming where and what, never the
 * value. A refused credential (the store's, or a request not sent) is
 * passed to `clear`, which clears it so it does not stay on screen.
 * `body[data-busy]` stays until the page shows the outcome. `announce`:
 * other tabs hear that this session may have changed.
 */
async function attempt(action, clear, announce = true) {
  document.body.dataset.busy = String(++busy);
  // A reload another tab asked for keeps what the page says.
  if (announce) {
    notice("");
    said("");
  }
  const began = sessionId;
  try {
    await action();
    // Other tabs on this session (or the one it left: a delete) reload.
    if (announce) for (const id of new Set([began, sessionId])) changes?.postMessage(id);
  } catch (e) {
    // A turn that stored its compaction before it failed: other tabs reload.
    if (announce && e?.compactionStored) changes?.postMessage(began);
    const refused = isAttacheError(e) && e.code === "CREDENTIAL";
    if (refused || e?.credential) clear?.(e);
    // A turn's compaction is stored before its request: whatever failed
    // after it, the page says it stays.
    const kept = e?.compactionStored;
    notice(refused ? `Refused: a credential (${e.kind}) in ${e.field}. ${kept ? "Only the compaction this turn made first was stored." : "Nothing was stored."}`
      : e?.code === "CONFLICT" ? `Another tab changed this session meanwhile; nothing of this turn was stored${kept ? " but the compaction it made first" : ""}. The page now shows what is.`
        : e?.name === "AbortError" ? `Stopped: this turn's messages, frames and pin changes were not stored${kept ? "; the compaction it made first was" : ""}.`
        : kept ? `${describe(e).replace(/[^.!?]$/, "$&.")} The compaction this turn made first was stored.` : describe(e));
  }
  try {
    await render();
  } catch (e) {
    notice(`The page could not refresh: ${describe(e)}`);
  } finally {
    if (--busy === 0) {
      delete document.body.dataset.busy;
      // Another tab wrote while this one was busy: reload now.
      if (stale) reloadWhenIdle();
    }
  }
}

const snapshot = () => ({
  name: "attache-demo",
  accepts: ["send", "pin", "detach", "tick", "export", "import"],
  state: { model: model.name, contextWindow: Number($("context-window").value) },
  children: [{ name: "pins", state: { ids: pinned.attachmentIds() } }],
});

/** The pins as stored: after a failed write the page must not show what was not kept. */
let reloads = 0;
async function reloadPins() {
  const id = sessionId;
  const generation = ++reloads;
  const pins = (await store.loadAttachments(id)) ?? new AttachmentStore();
  // Another session opened, or a later reload began, meanwhile: theirs
  // stay. The old store is freed now: a finalizer may never run, and a
  // file pin holds its whole file in wasm memory, which never shrinks. No
  // turn holds it: reloads wait until the page is idle, or run first in
  // the turn's or the change's own exclusive().
  if (id !== sessionId || generation !== reloads) return pins.free();
  const old = pinned;
  pinned = pins;
  old.free();
}

/** `write()`; if it fails, the pins as stored, since it may have changed them first. */
async function orReload(write) {
  try {
    return await write();
  } catch (e) {
    await reloadPins().catch(() => {});
    throw e;
  }
}

/** `change()` to the pins, then the pins and the snapshot written together, or neither; what `change()` returns is said once written. */
async function changePins(change) {
  // A turn or a switch holds the pins until it is written; so does this.
  await exclusive(() => orReload(async () => {
    // Another tab may have changed them: change what is stored, not this
    // tab's copy, or its write would undo the other's.
    await reloadPins();
    const done = change();
    await store.commitTurn(sessionId, { attachments: pinned, state: { snapshot: snapshot() } });
    said(done);
  }));
}

// Tabs on one session tell each other when they wrote; the others reload.
// Firefox refuses a channel (SecurityError) where the site's cookies are blocked.
let changes = null;
try {
  changes = new BroadcastChannel("attache-demo");
} catch { /* the tabs then do not hear each other */ }
if (changes) {
  changes.onmessage = ({ data }) => {
    if (data === sessionId) reloadWhenIdle();
  };
}
// Busy, the page reloads once done; mid-turn, the turn's write checks the pins.
let stale = false;
function reloadWhenIdle() {
  stale = busy > 0;
  if (!stale) attempt(reloadPins, undefined, false);
}

// The session this tab last opened resumes after a reload: sessionStorage
// is this tab's; a new tab takes the one any tab opened last. Switching
// writes nothing to the store, so the most recent session would not do.
// Storage may be off or full: then a reload opens the most recent one.
const current = "attache-demo:session";
const read = (storage) => { try { return globalThis[storage].getItem(current); } catch { return null; } };
const remembered = () => read("sessionStorage") ?? read("localStorage");
const remember = (id) => {
  for (const storage of ["sessionStorage", "localStorage"]) {
    try { globalThis[storage].setItem(current, id); } catch { /* see above */ }
  }
};

/** Swaps in a session's pins once they are loaded: a failed load keeps the old ones. */
function show(id, pins) {
  const old = pinned;
  pinned = pins;
  sessionId = id;
  lastSteps = [];
  old.free();
  remember(id);
  // An edit names a pin of the session it began in.
  for (const form of [$("pin-memory"), $("pin-file")]) if (form.dataset.editing) cleared(form);
}

async function openSession(id) {
  const pins = (await store.loadAttachments(id)) ?? new AttachmentStore();
  const saved = await store.loadSnapshot(id).catch((e) => { pins.free(); throw e; });
  // One of the choices (an import may hold any value), else the default.
  const choices = [...$("context-window").options];
  const chosen = choices.find((o) => o.value === String(saved?.state?.contextWindow)) ?? choices.find((o) => o.defaultSelected);
  $("context-window").value = chosen.value;
  show(id, pins);
}

async function newSession() {
  const info = await store.createSession({ title: `Session ${new Date().toLocaleString()}` });
  show(info.id, new AttachmentStore());
  pinned.setAttachment({ kind: "memory", slug: "style", memory: "Answer in short sentences; cite the pinned file you used." });
  pinned.setAttachment({ kind: "file", path: "README.md", contents: "# demo project\n\nAuth uses Argon2id with RFC 9106 parameters." });
  pinned.setAttachment({ kind: "todo", items: [{ text: "read the README", completed: true }, { text: "review the auth design", completed: false }] });
  // Failed, the page shows the pins as stored: none.
  await orReload(() => store.commitTurn(sessionId, { attachments: pinned, state: { snapshot: snapshot() } }));
}

/** The most recent session, or a new one where none is left. */
async function openLatest() {
  const [next] = await store.listSessions();
  await (next ? openSession(next.id) : newSession());
}

/** The session whose history is on screen. */
let historyOf;
async function render() {
  let sessions = await store.listSessions();
  // Deleted in another tab, its writes would fail: open another, holding
  // the lock (and not mid-turn: the turn's own write reports it).
  if (!locked && !sessions.some((s) => s.id === sessionId)) {
    await exclusive(openLatest);
    notice("That session was deleted in another tab; this is the most recent one.");
    sessions = await store.listSessions();
  }
  $("session-select").replaceChildren(...sessions.map((s) => el("option", { value: s.id, selected: s.id === sessionId }, readable(s.title || s.id))));
  $("model-name").textContent = model.name;

  // The lists are rebuilt: focus goes back to the same control, or, for
  // one gone (a detach), to the list's heading.
  // A todo by its text and which of that text it is, as its tick finds it.
  const keyOf = (c) => c.dataset.key ?? c.getAttribute("aria-label");
  const focused = document.activeElement?.closest("#todos, #pinned") ? document.activeElement : null;
  const focusKey = focused && keyOf(focused);

  // None shown while the todo pin holds the model's key: the pin list
  // below names it, and editing it stays refused.
  const todos = unlessBlocked(() => todoItems(pinned), () => []);
  const seen = new Map();
  $("todos").replaceChildren(...todos.map((item, i) => {
    // By its text and which of that text it is: another tab may have
    // changed the list since.
    const nth = seen.get(item.text) ?? 0;
    seen.set(item.text, nth + 1);
    const box = el("input", { type: "checkbox", checked: item.completed, id: `todo-${i}`, "data-key": `${nth}:${item.text}` });
    box.onchange = () => attempt(() => changePins(() => {
      const items = [...todoItems(pinned)];
      let k = 0;
      const at = items.findIndex((t) => t.text === item.text && k++ === nth);
      if (at < 0) throw new Error("That todo is no longer in the list; the page now shows what is.");
      items[at] = { ...items[at], completed: box.checked };
      pinned.setAttachment({ kind: "todo", items });
      return `Todo "${item.text}" ${box.checked ? "done" : "open"}.`;
    }));
    return el("li", {}, box, el("label", { for: `todo-${i}` }, item.text));
  }));
  const ids = pinned.attachmentIds();
  // An edit of a pin detached here or in another tab replaces nothing now:
  // its text stays, and saving it pins it anew, as the page says.
  for (const form of [$("pin-memory"), $("pin-file")]) {
    const gone = form.dataset.editing;
    if (gone && !ids.includes(gone)) {
      endEdit(form);
      notice(`${readable(gone)}, being edited, was detached; what you typed stays, and saving pins it anew.`);
    }
  }
  $("pinned").replaceChildren(...ids.map((id) => {
    // An id may hold the key too (a slug pasted before it was entered).
    const name = readable(id);
    const detach = el("button", { type: "button", "aria-label": `Detach ${name}` }, "Detach");
    // Once: a second click would be refused while the first is written.
    detach.onclick = () => {
      if (detach.dataset.pending) return;
      detach.dataset.pending = "true";
      attempt(() => changePins(() => pinned.detachAttachment(id) ? `Detached ${name}.` : `${name} was already detached.`))
        .finally(() => delete detach.dataset.pending);
    };
    // Holding the key entered under "Model": shown by id only, to detach.
    const held = unlessBlocked(() => ({ spec: pinned.getAttachment(id), rendered: pinned.renderAttachment(id) ?? "" }), () => null);
    if (!held) return el("li", { class: "blocked" }, el("code", {}, name), " holds the model's key and stops every request ", detach);
    const { spec, rendered } = held;
    const cut = rendered.match(/… \(truncated, (\d+) bytes total\)$/);
    const detail = cut ? `cut at 8 KiB of ${cut[1]} bytes` : `${sizeOf(rendered)} bytes`;
    const edit = el("button", { type: "button", "aria-label": `Edit ${name}` }, "Edit");
    edit.onclick = () => editSpec(spec, id);
    // A todo is ticked in its list; a custom pin (from an import) has no form.
    return el("li", {}, el("code", {}, name), ` ${detail} `, spec.kind === "memory" || spec.kind === "file" ? edit : "", detach);
  }));
  if (focused && !focused.isConnected) {
    const same = [...$("todos").querySelectorAll("input"), ...$("pinned").querySelectorAll("button")]
      .find((c) => keyOf(c) === focusKey);
    (same ?? $("pinned-title")).focus();
  }

  // Stored before the model's key was entered, the key may be in them:
  // shown redacted, as the export is. One that cannot be (the key as an
  // object's key) is not shown at all.
  const messages = (await store.loadMessages(sessionId)).map((m) => redacted(m) ?? { role: m.role, content: UNREDACTABLE });
  const history = $("history");
  // The newest message in view, unless the reader scrolled up to read; another session starts at its end.
  const atEnd = history.scrollTop + history.clientHeight >= history.scrollHeight - 2;
  history.replaceChildren(...messages.map((m) => el("li", { class: m.role }, el("strong", {}, `${m.role}: `), describeMessage(m))));
  if (atEnd || historyOf !== sessionId) history.scrollTop = history.scrollHeight;
  historyOf = sessionId;

  const last = lastSteps.at(-1);
  // A pin that holds the key entered under "Model" (pasted before it was
  // registered) stops every request until it is detached.
  let blocked;
  const consolidated = unlessBlocked(() => pinned.consolidatedMessage(), (e) => { blocked = e; });
  // What the last request carried; before any, what the next will. Sent
  // before the key was entered, it may hold it: redacted, as the rest is.
  const shown = last?.messages.find(isPinned) ?? consolidated;
  $("consolidated").textContent = blocked
    ? `Nothing can be sent: ${blocked.field} holds the model's key (${blocked.kind}). Detach it.`
    : shown ? JSON.stringify(redacted(shown) ?? UNREDACTABLE, null, 2) : "(nothing pinned: no message is sent)";
  if (last) {
    const { prefix, plan, contextWindow } = last;
    $("message-size").textContent = `${prefix.prefixBytes} bytes · ${prefix.prefixTokens} tokens`;
    // The turn's story: the first request whose prefix changed, if any.
    const at = lastSteps.findIndex((s) => !s.prefix.first && !s.prefix.stable);
    const broke = lastSteps[at]?.prefix;
    const first = lastSteps.every((s) => s.prefix.first || s.prefix.stable) && lastSteps[0].prefix.first;
    $("prefix").className = `indicator ${broke ? "broken" : "held"}`;
    put("prefix", broke
      ? `Prefix broken by ${readable(broke.change.attachmentId)} at byte ${broke.change.offset} (request ${at + 1} of ${lastSteps.length} this turn).`
      : first ? `Prefix: the first request had nothing to compare with${lastSteps.length > 1 ? "; it held after" : ""}.`
        : `Prefix held: byte-identical on ${lastSteps.length === 1 ? "the request" : `all ${lastSteps.length} requests`} this turn.`);
    $("budget").replaceChildren(...[["Window", contextWindow], ["Payload", `${plan.payloadTokens} tokens`],
      ["History", `${plan.historyTokens} tokens`], ["Overhead", `${plan.overheadTokens} tokens`], ["Decision", plan.action]].flatMap(([k, v]) => [el("dt", {}, k), el("dd", {}, String(v))]));
  } else {
    $("message-size").textContent = consolidated ? `${sizeOf(consolidated.content.map((p) => p.text).join(""))} bytes` : "";
    $("prefix").className = "indicator";
    put("prefix", "No request yet on this page; the last prefix is restored with the pins.");
    $("budget").replaceChildren();
  }
  // A frame that cannot be redacted is null, which describeFrame says is withheld.
  const requests = (await store.loadFramesByRequest(sessionId)).map((r) => ({ ...r, frames: r.frames.map(redacted) }));
  $("timeline").replaceChildren(...requests.map((r) => el("li", {}, el("code", {}, readable(r.requestId)), list(r.frames.map(describeFrame)))));
  const snapshotNow = await store.loadSnapshot(sessionId);
  $("snapshot").textContent = snapshotNow === null ? "(no snapshot yet)"
    : JSON.stringify(redacted(snapshotNow) ?? UNREDACTABLE, null, 2);
  // Rejects where IndexedDB is denied too (an opaque origin).
  const estimate = await navigator.storage?.estimate?.().catch(() => null);
  $("storage").textContent = store instanceof MemorySessionStore
    ? `Sessions are in memory, not IndexedDB: they last until this tab closes. ${inMemory}`
    : estimate ? `Using ${(estimate.usage / 1024).toFixed(1)} KiB of ${(estimate.quota / 2 ** 20).toFixed(0)} MiB.` : "Storage estimate unavailable.";
}

/** Stored text as the page shows it: with the model's key, if any, redacted. */
const readable = (text) => redacted(text) ?? "(withheld)";

/** `value` with any credential redacted, or null where it cannot be (a key as an object's key). */
function redacted(value) {
  // Everything stored passed the guard; only a key entered since can be in it.
  if (!keyEntered) return value;
  try {
    return redactCredentials(value).value;
  } catch (e) {
    if (isAttacheError(e) && e.code === "CREDENTIAL") return null;
    throw e;
  }
}

function describeMessage(m) {
  if (typeof m.content === "string") return m.content;
  return m.content.map((p) => (p.type === "text" ? p.text : p.type === "tool_call" ? `→ ${p.name}(${JSON.stringify(p.arguments)})`
    : p.type === "tool_result" ? `← ${typeof p.content === "string" ? p.content : JSON.stringify(p.content)}` : `[${p.type}]`)).join("\n");
}

/** Fills the pin's form; saved with another slug or path, it replaces the pin it came from, as its button says. */
function editSpec(spec, id) {
  const form = spec.kind === "memory" ? $("pin-memory") : $("pin-file");
  for (const [name, value] of Object.entries(spec)) if (form.elements[name]) form.elements[name].value = value ?? "";
  form.dataset.editing = id;
  // The form has no field for it: an imported file pinned whole stays whole.
  if (spec.truncate === false) form.dataset.whole = "true";
  else delete form.dataset.whole;
  const button = form.querySelector("button");
  button.dataset.label ??= button.textContent;
  button.textContent = `Save, replacing ${form.dataset.editing}`;
  const cancel = form.querySelector(".cancel");
  cancel.hidden = false;
  cancel.setAttribute("aria-label", `Cancel editing ${id}`);
  form.elements[0].focus();
}

/** Clears a form and its edit. */
function cleared(form) {
  form.reset();
  endEdit(form);
}

/** Ends a form's edit, keeping what was typed: saved, it pins anew. */
function endEdit(form) {
  delete form.dataset.editing;
  delete form.dataset.whole;
  const button = form.querySelector("button");
  if (button?.dataset.label) button.textContent = button.dataset.label;
  const cancel = form.querySelector(".cancel");
  if (cancel) {
    cancel.hidden = true;
    cancel.removeAttribute("aria-label");
  }
}
for (const form of [$("pin-memory"), $("pin-file")]) {
  form.querySelector(".cancel").onclick = () => {
    // The button hides: focus goes to the form it cleared.
    cleared(form);
    form.elements[0].focus();
  };
}

/** Pins a spec from `form`, replacing the pin being edited, if its id changed. */
function pinFrom(form, spec) {
  return changePins(() => {
    const id = pinned.setAttachment(spec);
    const edited = form.dataset.editing;
    if (edited && edited !== id) pinned.detachAttachment(edited);
    return edited && edited !== id ? `Pinned ${id}, replacing ${edited}.` : `Pinned ${id}.`;
  });
}

/** A form's submit; `clear` (default: the whole form) runs once it worked, or on a refused credential. */
function onSubmit(id, handler, clear = cleared) {
  $(id).addEventListener("submit", (event) => {
    event.preventDefault();
    const form = event.currentTarget;
    // A double click submits twice: the second would only be refused.
    if (form.dataset.pending) return;
    form.dataset.pending = "true";
    const values = Object.fromEntries(new FormData(form));
    attempt(async () => { await handler(values, form); clear(form); }, (e) => clear(form, e))
      .finally(() => delete form.dataset.pending);
  });
}

/** Refused as a blank path is: it would ride every request saying nothing. */
function notBlank(text, what) {
  if (text.trim() === "") throw new Error(`${what} must not be empty or blank.`);
}

onSubmit("pin-memory", ({ slug, memory }, form) => {
  notBlank(memory, "Not pinned: `memory`");
  return pinFrom(form, { kind: "memory", slug, memory });
});
onSubmit("pin-file", ({ path, contents }, form) =>
  pinFrom(form, { kind: "file", path, contents: contents || null, ...(form.dataset.whole && contents ? { truncate: false } : {}) }));
onSubmit("add-todo", ({ text }) => {
  notBlank(text, "Not added: a todo");
  return changePins(() => {
    pinned.setAttachment({ kind: "todo", items: [...todoItems(pinned), { text, completed: false }] });
    return `Added todo "${text}".`;
  });
});
// A turn holds the session's pins: switching sessions mid-turn would free
// them, and a turn started mid-switch would hold pins about to be freed.
// Each turns the other's controls off.
// The model and the window too: a turn keeps the ones it began with.
const turnControls = ["send", "session-select", "session-new", "session-delete", "session-import", "model-use", "model-scripted", "context-window"];
let locked = false;
const exclusive = async (action) => {
  if (locked) throw new Error("Wait until the turn, the switch of session or the last change has finished.");
  // A control that is disabled loses focus to <body>: it gets it back.
  const had = turnControls.map($).find((c) => c === document.activeElement);
  for (const id of turnControls) $(id).disabled = true;
  locked = true;
  try {
    await action();
  } finally {
    locked = false;
    for (const id of turnControls) $(id).disabled = false;
    if (had && document.activeElement === document.body) had.focus();
  }
};
// A tool may change the pins before a turn fails: nothing of it is stored.
// Stop aborts the running turn: the endpoint's fetch, or its next step.
let running = null;
$("stop").onclick = () => running?.abort();
/** Stop off: the turn ended or is being written. Disabled, it would drop focus to <body>. */
function stopOff() {
  if (document.activeElement === $("stop")) $("composer-text").focus();
  $("stop").disabled = true;
}
/**
 * Runs `action` holding the session's Web Lock, as the README asks: another
 * tab's turn may compact the session and leave its length as it was, which
 * commitTurn's expectedCount cannot see. Stop ends the wait too.
 */
async function heldForTurn(id, signal, action) {
  if (!navigator.locks?.request) return action();
  let ran = false;
  try {
    return await navigator.locks.request(`attache-demo:turn:${id}`, { signal }, () => ((ran = true), action()));
  } catch (e) {
    // Refused outright (a sandboxed frame: SecurityError), as Storage
    // there is: the turn runs unlocked, on its own tab's store.
    if (ran || e?.name !== "SecurityError") throw e;
    return action();
  }
}
onSubmit("composer", ({ text, window: size }) => exclusive(() => orReload(async () => {
  running = new AbortController();
  $("stop").disabled = false;
  // Sent from further up the history, the answer comes into view.
  historyOf = null;
  try {
    await heldForTurn(sessionId, running.signal, async () => {
      // The pins as stored: another tab may have changed them.
      await reloadPins();
      const turn = await runTurn({ store, sessionId, pinned, model: counted, text, contextWindow: Number(size), snapshot, signal: running.signal, writing: stopOff });
      lastSteps = turn.steps;
      window.demo.requests.push(...turn.steps.map((s) => s.messages));
      said(turn.stopped ? "The turn stopped: its next request would not fit the window."
        : turn.answer ? `Answered: ${turn.answer}` : "The turn ended without a written answer.");
    });
  } finally {
    running = null;
    stopOff();
  }
})), (form, e) => {
  // Cleared once sent, or when the credential refused is in what was typed
  // (the turn's first message); one elsewhere (the history, a pin, the
  // model's reply) leaves the user's text.
  if (!e || e.typed || (isAttacheError(e) && /^messages\[0\]/.test(e.field ?? ""))) form.elements.text.value = "";
});
onSubmit("model-form", ({ url, model: name, key }) => exclusive(async () => {
  // The guard takes no key under 8 characters; Ollama's docs show "ollama".
  if (key && key.trim().length < 8) throw new Error("A key under 8 characters cannot be guarded, so the page does not take it. Ollama needs none: leave it empty.");
  // Checked before the key in use is forgotten: a bad URL or key keeps it guarded.
  const next = endpoint({ url, model: name || "default", key });
  if (key) registerSecret(key);
  // The key lives in the endpoint's closure only; registered, it cannot be pinned or stored.
  forgetSecrets();
  if (key) registerSecret(key);
  keyEntered = Boolean(key);
  model = next;
}));
$("model-scripted").onclick = () => attempt(() => exclusive(async () => { forgetSecrets(); keyEntered = false; model = scripted; }));

$("file-contents").addEventListener("dragover", (e) => e.preventDefault());
/** A file's text into the file pin's form; a folder or an unreadable file is said. */
function loadFile(file) {
  if (!file) return;
  file.text().then((text) => {
    $("file-contents").value = text;
    $("pin-file").elements.path.value ||= file.name;
  }, (e) => notice(`Could not read ${file.name}: ${describe(e)}`));
}
$("file-contents").addEventListener("drop", (e) => {
  // Dropped text is the textarea's to insert.
  if (!e.dataTransfer?.files.length) return;
  e.preventDefault();
  loadFile(e.dataTransfer.files[0]);
});
// Keyboard users cannot drop: the same through a file picker.
$("file-load").onchange = (e) => {
  loadFile(e.target.files[0]);
  e.target.value = "";
};
/** A session's title as the list shows it. */
const titleOf = async (id) => readable((await store.getSession(id))?.title || id);
$("session-select").onchange = (e) => attempt(() => exclusive(async () => {
  await openSession(e.target.value);
  said(`Opened session "${await titleOf(sessionId)}".`);
}));
$("session-new").onclick = () => attempt(() => exclusive(async () => {
  await newSession();
  said(`Created and opened session "${await titleOf(sessionId)}".`);
}));
$("session-delete").onclick = () => attempt(async () => {
  await exclusive(async () => {
    const gone = await titleOf(sessionId);
    await store.deleteSession(sessionId);
    await openLatest();
    said(`Deleted session "${gone}"; opened "${await titleOf(sessionId)}".`);
  });
  // Left on Delete, a second Enter would delete this session too.
  $("session-select").focus();
});
$("session-export").onclick = () => attempt(async () => {
  // A key stored before it was entered under "Model" does not leave in a
  // file. The whole document at once is safe here: the demo's state keys
  // (snapshot, pins) never sit side by side as a named pair.
  const doc = await store.exportSession(sessionId);
  let value, redactions;
  try {
    ({ value, redactions } = redactCredentials(doc));
  } catch (e) {
    if (!isAttacheError(e) || e.code !== "CREDENTIAL") throw e;
    throw new Error(`Export: ${e.field} holds the model's key where it cannot be redacted; nothing was exported.`);
  }
  download(`attache-session-${sessionId}.json`, JSON.stringify(value, null, 2));
  said(`Exported session "${await titleOf(sessionId)}".`);
  if (redactions.length) notice(`Exported with ${redactions.length} credential(s) redacted, at ${redactions.map((r) => r.path).join(", ")}.`);
});
$("session-import").onchange = (e) => attempt(() => exclusive(async () => {
  const [file] = e.target.files;
  if (!file) return;
  // Cleared first: picking the same file again after a refusal must retry.
  e.target.value = "";
  let doc;
  try {
    doc = JSON.parse(await file.text());
  } catch {
    throw new Error(`Import: ${file.name} is not JSON; export a session to get a file the page imports.`);
  }
  // A malformed document is importSession's to refuse, with its own field.
  const id = doc?.session?.id;
  const exists = typeof id === "string" && id.trim() !== "" && (await store.getSession(id));
  // A copy is told apart in the list by its title: "(copy)", then "(copy 2)"…
  let copy = doc;
  if (exists && typeof doc.session.title === "string") {
    const taken = new Set((await store.listSessions()).map((s) => s.title));
    let title = `${doc.session.title || id} (copy)`;
    for (let n = 2; taken.has(title); n++) title = `${doc.session.title || id} (copy ${n})`;
    copy = { ...doc, session: { ...doc.session, title } };
  }
  const info = await store.importSession(copy, exists ? { id: `${id}-copy-${Date.now().toString(36)}` } : undefined);
  await openSession(info.id);
  const title = await titleOf(info.id);
  said(exists ? `Imported a copy, "${title}": this page holds that session already.` : `Imported session "${title}".`);
}));
// Not an attempt(): Firefox waits for the user's answer to its prompt, and
// the page must not stay busy (holding other tabs' changes) meanwhile.
$("persist").onclick = () => {
  if (typeof navigator.storage?.persist !== "function") return notice("This browser cannot make storage persistent.");
  notice("");
  navigator.storage.persist().then(
    (granted) => notice(granted ? "Storage is persistent: the browser will not evict it under pressure." : "The browser did not grant persistent storage."),
    (e) => notice(`Persistent storage could not be asked for: ${describe(e)}`));
};

// This tab's last session resumes after a reload; else the most recent.
try {
  // Locked as a switch is: a turn sent meanwhile would have no session.
  await exclusive(async () => {
    const sessions = await store.listSessions();
    const resume = sessions.find((s) => s.id === remembered()) ?? sessions[0];
    await (resume ? openSession(resume.id) : newSession());
  });
  await render();
  document.body.dataset.ready = "true";
} catch (e) {
  notice(`The demo could not start: ${describe(e)}`);
}
