// One turn of the demo's agent loop, on the real package: plan the budget,
// compact when told to (persisted with replaceMessages), send the request
// with the pins leading it, run the tools the model calls, and write the
// turn (messages, frames, snapshot, pins) with one commitTurn.
import { buildRequest, estimateTokens, planTurn, redactCredentials } from "../pkg/attache.js";
import { textOf } from "./model.js";

const SYSTEM = "You are a careful assistant. Use the tools; keep answers short.";
const MAX_STEPS = 4;

/** The todo items pinned as `todo:session`, as a list to edit. */
export function todoItems(pinned) {
  return pinned.getAttachment("todo:session")?.items ?? [];
}

/** Whether `v` is a list of non-blank strings. */
const texts = (v) => Array.isArray(v) && v.every((s) => typeof s === "string" && s.trim() !== "");

/**
 * Runs a tool call. Arguments of the wrong shape (small models send a
 * string for a list, or null) get an error the model reads, not a turn
 * that fails or a todo per letter.
 */
function runTool(call, pinned) {
  const args = call.arguments;
  if (args === null || typeof args !== "object" || Array.isArray(args)) return `Error: ${call.name} takes an object of arguments.`;
  if (call.name === "update_todos") {
    const { add = [], complete = [] } = args;
    if (!texts(add) || !texts(complete)) return "Error: update_todos takes `add` and `complete` as lists of non-empty strings.";
    const items = todoItems(pinned).map((item) => ({ ...item }));
    for (const text of add) items.push({ text, completed: false });
    const missing = [];
    for (const text of complete) {
      const item = items.find((i) => i.text.toLowerCase() === text.toLowerCase());
      if (item) item.completed = true;
      else missing.push(text);
    }
    pinned.setAttachment({ kind: "todo", items });
    const none = missing.map((text) => ` No todo reads "${text}".`).join("");
    return `The todo list has ${items.length} item(s), ${items.filter((i) => !i.completed).length} open.${none}`;
  }
  if (call.name === "lookup") {
    if (typeof args.query !== "string" || args.query.trim() === "") return "Error: lookup takes a non-empty `query` string.";
    const query = args.query.toLowerCase();
    // What a pin says, not its field names: "memory" or "path" is no hit.
    const said = { memory: (s) => s.memory, file: (s) => `${s.path}\n${s.contents ?? ""}`, todo: (s) => s.items.map((i) => i.text).join("\n"), custom: (s) => s.text };
    // specs() and attachmentIds() share pin order.
    const specs = pinned.specs();
    const hits = pinned.attachmentIds().filter((_, i) => said[specs[i].kind]?.(specs[i]).toLowerCase().includes(query));
    return hits.length ? `"${query}" appears in ${hits.join(", ")}.` : `Nothing pinned mentions "${query}".`;
  }
  return `Unknown tool ${call.name}.`;
}

/**
 * The history cut at a user message, the part before it summarised: the
 * longest tail that, with the summary and the next message, stays under
 * `budget` tokens. With no such tail, the summary alone, but only where it
 * is smaller than the history; otherwise null, and nothing is replaced.
 */
export function compact(history, next, budget) {
  // One more than each message's own count: counters floor the whole
  // list once, so the per-message floors alone can sum to less.
  const count = (message) => estimateTokens([message], "openai") + 1;
  const summary = (cut) => ({ role: "user", content: `[Summary of ${cut} earlier messages: the conversation so far, compacted to fit the window.]` });
  // The tail grows by one message per step back, so counting each once
  // keeps this linear (per-message counts sum to at least the whole's).
  let best = null;
  let tokens = count(next);
  for (let cut = history.length - 1; cut >= 1; cut--) {
    tokens += count(history[cut]);
    if (tokens + count(summary(cut)) >= budget) break;
    if (history[cut].role === "user") best = cut;
  }
  if (best !== null) return [summary(best), ...history.slice(best)];
  const all = summary(history.length);
  return history.length > 0 && count(all) < estimateTokens(history, "openai") ? [all] : null;
}

/**
 * Refuses a request that holds a credential before the model gets it: the
 * store would refuse the turn too, but only once it was sent. Catches the
 * user's text, and history stored before its key was registered.
 */
function unsent(messages, typedAt = -1) {
  const { redactions } = redactCredentials(messages);
  const [found] = redactions;
  if (found) {
    // `typed`: one is in the user's new message, which the page then clears.
    const typed = redactions.some((r) => r.path.startsWith(`[${typedAt}]`));
    throw Object.assign(new Error(`Not sent: the request holds a credential (${found.kind}) at ${found.path}.`), { credential: found.kind, typed });
  }
}

/** The stored pins' specs as text, to compare: another tab may change them. */
async function storedPins(store, sessionId) {
  const pins = await store.loadAttachments(sessionId);
  try {
    return JSON.stringify(pins?.specs() ?? []);
  } finally {
    pins?.free();
  }
}

/**
 * Runs one turn; its activity frames are stored under its request id.
 * `snapshot()` is taken when the turn is written, after its tools ran.
 * Once `signal` aborts, the turn stops at its next step and writes nothing
 * more. Whatever it throws says, as `compactionStored`, whether a
 * compaction was already stored. `writing()` is called as the turn is
 * written, when it can no longer stop.
 */
export async function runTurn(options) {
  const state = { compactionStored: false };
  try {
    return await turn(options, state);
  } catch (e) {
    // A stored compaction stays whatever failed after it: the page says so.
    if (e && typeof e === "object" && Object.isExtensible(e)) e.compactionStored = state.compactionStored;
    throw e;
  }
}

async function turn({ store, sessionId, pinned, model, text, contextWindow, snapshot, signal, writing }, state) {
  // A new error each time: the signal's reason may be anything, or frozen.
  const halt = () => {
    if (signal?.aborted) throw Object.assign(new DOMException("The turn was stopped.", "AbortError"), { cause: signal.reason });
  };
  const requestId = `req-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 6)}`;
  const frames = [];
  const frame = (f) => frames.push({ at: Date.now(), ...f });
  const user = { role: "user", content: text };
  // buildRequest adds the system prompt, and a model may be sent tool
  // schemas with it: planTurn counts both as overhead.
  const overhead = estimateTokens([{ role: "system", content: SYSTEM }, ...(model.tools ? [{ role: "system", content: JSON.stringify(model.tools) }] : [])], "openai");
  let history = await store.loadMessages(sessionId);
  const stored = history.length;
  // The pins as the turn was given them, loaded from the store: see the commit.
  const startPins = JSON.stringify(pinned.specs());
  // Before the compaction: the user's text, and history stored before a
  // key was registered, never go anywhere. Each step then checks what it added.
  unsent([...history, user], history.length);

  const tooLarge = (tokens) =>
    new Error(`Not sent: the request would be ${tokens} tokens, more than the ${contextWindow}-token window. Shorten the message, detach a pin, or choose a larger window.`);
  // The budget first: a compaction is persisted before anything is sent.
  let plan = planTurn({ contextWindow, history: [...history, user], attachments: pinned.consolidatedMessage(), overheadTokens: overhead, counter: "openai" });
  frame({ type: "plan", action: plan.action, payloadTokens: plan.payloadTokens, window: contextWindow });
  if (plan.action === "context_exceeded") throw new Error("The pins and the system prompt alone reach the compaction line: detach a pin, or choose a larger window.");
  let compacted = null;
  if (plan.action === "compact") {
    // Under historyBudget the next plan sends, with room for the turn's
    // replies; when not even a summary fits there, the summary alone.
    compacted = compact(history, user, plan.historyBudget);
    if (compacted) {
      // A request that still would not fit the window (a message too large
      // beside the pins) is refused before the compaction is stored.
      // It is the first step's plan too.
      const after = planTurn({ contextWindow, history: [...compacted, user], attachments: pinned.consolidatedMessage(), overheadTokens: overhead, counter: "openai" });
      if (after.payloadTokens > contextWindow) throw tooLarge(after.payloadTokens);
      plan = after;
      halt();
      await store.replaceMessages(sessionId, { from: 0, expectedCount: stored, messages: compacted });
      state.compactionStored = true;
      frame({ type: "compaction", before: stored, after: compacted.length });
      history = compacted;
    }
  }

  const added = [user];
  history = [...history, user];
  const steps = [];
  let stopped = false;
  // Checked before the compaction, whose summary is ours.
  let checked = history.length;
  for (let step = 0; step < MAX_STEPS; step++) {
    halt();
    const attachments = pinned.consolidatedMessage();
    // The first step's plan is the turn's, or the one after its compaction.
    if (step > 0) plan = planTurn({ contextWindow, history, attachments, overheadTokens: overhead, counter: "openai" });
    // A first request that would not fit the window is not sent (the
    // summary a compaction left, and the message).
    if (step === 0 && plan.payloadTokens > contextWindow) throw tooLarge(plan.payloadTokens);
    // The turn began by compacting; a later step whose request would not
    // fit the window ends the turn (one over the threshold still goes).
    if (step > 0 && plan.payloadTokens > contextWindow) {
      frame({ type: "stopped", step, action: plan.action, payloadTokens: plan.payloadTokens });
      stopped = true;
      break;
    }
    // In the model's own format (an endpoint's is "openai"): as the
    // README prescribes, so a second pin moves no byte of the first, and
    // a tool call without its result is refused before it is sent.
    const { messages } = buildRequest({ format: model.format, system: SYSTEM, history, attachments });
    // What each step added (the pins refuse themselves, and the system
    // prompt is ours).
    unsent(history.slice(checked));
    checked = history.length;
    const prefix = pinned.checkPrefix({ provider: "openai" });
    steps.push({ messages, plan, prefix, contextWindow });
    frame({ type: "request", step, messages: messages.length, prefixStable: prefix.first ? null : prefix.stable, changed: prefix.change?.attachmentId ?? null });
    let reply;
    try {
      reply = await model.complete(messages, signal);
    } catch (e) {
      halt();
      throw e;
    }
    // The scripted model does not listen: its reply is dropped too.
    halt();
    history.push(reply);
    added.push(reply);
    const calls = reply.content.filter?.((p) => p.type === "tool_call") ?? [];
    // A reply may be only tool calls, or only thought: its text is then "".
    frame({ type: "reply", step, text: textOf(reply).slice(0, 120), toolCalls: calls.length });
    if (calls.length === 0) break;
    const results = calls.map((call) => {
      const output = runTool(call, pinned);
      frame({ type: "tool", name: call.name, arguments: call.arguments, output });
      return { type: "tool_result", callId: call.id, content: output };
    });
    const tool = { role: "tool", content: results };
    history.push(tool);
    added.push(tool);
  }

  // Another tab's turn in between is CONFLICT, and nothing is written;
  // so is a pin change there (the turn would write its own copy over it),
  // checked here, as late as the store allows.
  if ((await storedPins(store, sessionId)) !== startPins) {
    const kept = state.compactionStored ? "; only the compaction it made first was" : "";
    throw Object.assign(new Error(`Another tab changed the pins during this turn; nothing of it was stored${kept}.`), { code: "CONFLICT" });
  }
  halt();
  writing?.();
  await store.commitTurn(sessionId, {
    expectedCount: compacted ? compacted.length : stored,
    messages: added,
    frames: [{ requestId, frames }],
    state: { snapshot: snapshot() },
    attachments: pinned,
  });
  // The last reply's text, for the page to say.
  // A turn that stopped before its next request has no answer.
  const answer = stopped ? "" : textOf(added.findLast((m) => m.role === "assistant") ?? { content: "" });
  return { requestId, steps, compacted: compacted !== null, answer, stopped };
}
