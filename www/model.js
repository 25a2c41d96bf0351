// The demo's models. The embedded default is a deterministic script, so
// the page works offline with no key: it looks up what is pinned, and
// keeps its todo list when asked. The other speaks to any OpenAI-compatible
// endpoint (a local Ollama, say). Both return attache's messages; the
// endpoint takes its request in OpenAI's format, the script attache's.
import { fromOpenAI, redactCredentials } from "../pkg/attache.js";

// A request that hangs would hold the page's controls for good.
const TIMEOUT_MS = 120_000;

/** The pretend tools, as an OpenAI-compatible endpoint is told of them. */
export const tools = [
  {
    type: "function",
    function: {
      name: "lookup",
      description: "Search the pinned memories and files for a word.",
      parameters: { type: "object", properties: { query: { type: "string" } }, required: ["query"] },
    },
  },
  {
    type: "function",
    function: {
      name: "update_todos",
      description: "Add todo items, or mark them done.",
      parameters: {
        type: "object",
        properties: { add: { type: "array", items: { type: "string" } }, complete: { type: "array", items: { type: "string" } } },
      },
    },
  },
];

/** Words that ask, never what is asked about. */
const ASKING = new Set(["what", "which", "where", "when", "does", "should", "would", "could", "about", "tell", "please", "there", "this", "that", "have"]);

/** A message's text: its text parts, joined. */
export const textOf = (message) =>
  typeof message.content === "string" ? message.content : message.content.filter((p) => p.type === "text").map((p) => p.text).join("");

/** The embedded scripted model: the same request always gets the same answer. */
export const scripted = {
  name: "scripted (embedded)",
  async complete(messages) {
    const last = messages.at(-1);
    const asked = textOf(messages.findLast((m) => m.role === "user" && !isPinned(m)) ?? { content: "" });
    const call = (name, args) => ({ type: "tool_call", id: `call_${name}_${messages.length}`, name, arguments: args });
    if (last.role === "user") {
      const todo = asked.match(/^(?:todo|remember to)[:\s]+(.+)$/i);
      const done = asked.match(/^done[:\s]+(.+)$/i);
      if (todo) return { role: "assistant", content: [{ type: "text", text: "I'll track that." }, call("update_todos", { add: [todo[1].trim()] })] };
      if (done) return { role: "assistant", content: [{ type: "text", text: "Marking it done." }, call("update_todos", { complete: [done[1].trim()] })] };
      // The longest word the pins hold, so "What does auth use?" looks up
      // "auth"; the longest word if none does.
      const words = asked.split(/\W+/).filter((w) => w.length > 3 && !ASKING.has(w.toLowerCase())).sort((a, b) => b.length - a.length);
      // Closer to what lookup searches: a file's path stays, the headers'
      // labels (and a memory's slug) go; a slug or path may hold "]".
      const label = /^\[(?:Pinned memory: [^\n]*|Todo list|Attached file: ([^\n]*))\]$/m;
      const said = messages.filter(isPinned).flatMap((m) => m.content.map((p) => p.text.replace(label, "$1"))).join("\n").toLowerCase();
      const query = words.find((w) => said.includes(w.toLowerCase())) ?? words[0] ?? asked;
      return { role: "assistant", content: [{ type: "text", text: `Plan: look up "${query}" in what is pinned, then answer.` }, call("lookup", { query })] };
    }
    // After the tools: answer from what they returned and what is pinned.
    const results = last.content.map((p) => (typeof p.content === "string" ? p.content : p.content.map((c) => c.text).join("")));
    const pinned = messages.find(isPinned);
    const open = pinned ? pinned.content.flatMap((p) => p.text.split("\n").filter((l) => l.startsWith("- [ ] "))) : [];
    const lines = [`You asked: "${asked}".`, ...results];
    lines.push(open.length ? `Open todos: ${open.map((l) => l.slice(6)).join("; ")}.` : "No open todos.");
    return { role: "assistant", content: [{ type: "text", text: lines.join("\n") }] };
  },
};

/** A fetch's rejection as the page says it: stopped, a timeout, or `what` and why. */
const failed = (what, stop) => (e) => {
  // Stopped by the user: the turn says so itself.
  if (stop?.aborted) throw e;
  // Chrome before 124 rejects a timed-out fetch with a plain AbortError.
  const late = e?.name === "TimeoutError" || e?.name === "AbortError";
  throw new Error(late ? `the endpoint did not answer in ${TIMEOUT_MS / 1000} s` : `${what} (${e?.message ?? e})`);
};

/** Aborts on `stop` or after the timeout; by hand where AbortSignal.any is missing (Safari before 17.4). */
function stopOrTimeout(stop) {
  const timeout = AbortSignal.timeout(TIMEOUT_MS);
  if (!stop) return timeout;
  if (AbortSignal.any) return AbortSignal.any([stop, timeout]);
  const either = new AbortController();
  for (const s of [stop, timeout]) {
    if (s.aborted) either.abort(s.reason);
    else s.addEventListener("abort", () => either.abort(s.reason), { once: true });
  }
  return either.signal;
}

/** An OpenAI-compatible endpoint; the key stays in this object, in memory. */
export function endpoint({ url, model, key }) {
  // "localhost:11434/v1" parses, with "localhost:" as its scheme. The URL
  // is not quoted: it may hold a password.
  let parsed = null;
  try {
    parsed = new URL(url);
  } catch { /* said below */ }
  if (!/^https?:$/.test(parsed?.protocol ?? "")) throw new Error("The endpoint URL must begin with http:// or https://, as http://localhost:11434/v1 does.");
  // fetch refuses one, and its error would show the whole URL on screen.
  if (parsed.username || parsed.password) throw new Error("The endpoint URL must not hold a user or password: put the key under Key.");
  return {
    name: `${model} at ${parsed.host}`,
    // The turn builds its requests in this format.
    format: "openai",
    // Sent with every request, so the budget counts them.
    tools,
    async complete(messages, stop) {
      const body = { model, messages, tools };
      const response = await fetch(`${url.replace(/\/$/, "")}/chat/completions`, {
        method: "POST",
        headers: { "content-type": "application/json", ...(key ? { authorization: `Bearer ${key}` } : {}) },
        body: JSON.stringify(body),
        signal: stopOrTimeout(stop),
      }).catch(failed("the endpoint could not be reached", stop));
      const text = await response.text().catch(failed("the endpoint's answer broke off", stop));
      // What it said ("model not found"), short, and without a key it may echo.
      const excerpt = () => redactCredentials(text.slice(0, 4096)).value.slice(0, 200);
      if (!response.ok) throw new Error(`the endpoint answered ${response.status}: ${excerpt()}`);
      let completion;
      try {
        completion = JSON.parse(text);
      } catch {
        throw new Error(`the endpoint's answer is not JSON: ${excerpt()}`);
      }
      const [reply] = fromOpenAI(completion);
      return reply;
    },
  };
}

/** The consolidated message: a user message whose parts are all pinned. */
export function isPinned(message) {
  return message?.role === "user" && Array.isArray(message.content) && message.content.length > 0
    && message.content.every((p) => p.type === "text" && /^\[(Pinned memory|Attached file|Todo list)/.test(p.text));
}
