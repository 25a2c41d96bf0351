// attache/openai-agents: an OpenAI Agents JS session over either session
// store, on its message operations. Each agent item is stored as one
// attache message: its provider-neutral form (so the history can be
// counted, inspected or sent to another provider) with the item itself,
// exactly, in the message's `meta`. Operation ids of history transactions
// are session-state keys under `agents/op/`, written in the same
// transaction as the history they changed. An id keeps its transaction's
// digest, not a copy: a compaction's expectedSuffix is the whole history.
// clearSession deletes ids; past OPS_KEPT, the oldest go.
import { UserError, protocol } from "@openai/agents-core";
import { redactCredentials } from "./attache.js";
import { credentialKind, depthOf, eachString, parseJson, randomFraction, shownText, stringifyJson, uriComponent, wellFormedJson } from "./json-text.js";

/**
 * The operation id's key. A credential in the id names none: URI-encoded
 * (`%3A`, `%40`), the store's guard would no longer see it.
 */
function opKey(operationId) {
  const key = `agents/op/${uriComponent(operationId, () => new UserError("Session history transaction operationId must not hold a lone surrogate."))}`;
  const kind = credentialKind(operationId);
  if (kind) throw new UserError(`Session history transaction operationId holds what looks like a credential (${kind}): it cannot name a key.`);
  // The store's longest key: past it, the store would name its own argument.
  if (key.length > 4096) throw new UserError("Session history transaction operationId is longer than 4086 UTF-16 code units once URI-encoded.");
  return key;
}
// Operation ids kept per session. A retry repeats an id within its run's
// few turns; kept for good, one id a turn would pile up for the session's
// life (on disk, in every export).
const OPS_KEPT = 1000;
// How often an instance lists the ids to see whether any are past it: on
// its first transaction (a page reloaded each turn), then every 16th. They
// are read and deleted only once OPS_SLACK more have come, at most
// OPS_KEPT a time (a session from before this held one per turn).
const OPS_CHECK_EVERY = 16;
const OPS_SLACK = 100;
const OPS_RECENT = 64;
// Tool arguments nested deeper are kept as their text in the neutral form:
// the store refuses values nested past 128 levels, and a message holds
// them three levels down.
const ARGUMENTS_DEPTH = 100;

function textOf(content) {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content.map((part) => (typeof part?.text === "string" ? part.text : typeof part?.refusal === "string" ? part.refusal : "")).join("");
}

/** Now, in whole ms; 0 from a broken clock (NaN, a throw), as the stores take one. */
function clock() {
  try {
    const ms = Date.now();
    return Number.isFinite(ms) && ms > 0 ? Math.floor(ms) : 0;
  } catch {
    return 0;
  }
}

const infinite = (value) =>
  typeof value === "number" ? !Number.isFinite(value) : value !== null && typeof value === "object" && Object.values(value).some(infinite);

/** JSON text's value, or undefined where the neutral form keeps it as text. */
function parsedJson(text) {
  try {
    if (depthOf(String(text)) > ARGUMENTS_DEPTH) return undefined;
    // Keys that U+FFFD would make one: kept as text, as arguments that are not JSON are.
    const parsed = parseJson(wellFormedJson(String(text), () => new SyntaxError("keys")));
    // A number past ±1.8e308 parses as Infinity, which the store refuses: kept as text too.
    return infinite(parsed) ? undefined : parsed;
  } catch {
    return undefined;
  }
}

function argumentsOf(text) {
  const parsed = parsedJson(text);
  if (parsed === undefined) return { text: typeof text === "string" ? text : String(text ?? "") };
  return parsed !== null && typeof parsed === "object" && !Array.isArray(parsed) ? parsed : { value: parsed };
}

// The escapes the guard reads JSON text through as they are: a `\u`
// (Python writes é so by default) or a `\/` (PHP writes / so).
const HIDING = /\\[u/]/;
/**
 * Text with its JSON strings' escapes written out, all else byte for byte;
 * JSON text inside a string (a body a tool passed on) too, two levels down.
 */
const unescaped = (text, depth = 0) =>
  eachString(text, (token) => {
    if (!HIDING.test(token)) return token;
    try {
      const value = parseJson(token);
      return stringifyJson(depth < 2 && HIDING.test(value) ? unescaped(value, depth + 1) : value);
    } catch {
      return token;
    }
  });

/**
 * `text` with its JSON strings' escapes written out where that shows the
 * guard a credential they hide (all of a key an escape cut, say), else
 * `text`: one the guard finds only through an escape stays as it is.
 */
function revealedText(text) {
  if (typeof text !== "string" || !HIDING.test(text)) return text;
  try {
    const plain = unescaped(text);
    const seen = redactCredentials(plain);
    if (seen.redactions.length === 0 || unescaped(redactCredentials(text).value) === seen.value) return text;
    return plain;
  } catch {
    return text;
  }
}

/**
 * The item with the text its neutral form reads as written (a tool's
 * output, arguments that are no JSON) revealed, in the item itself: both
 * forms then show the guard what JSON escapes hid.
 */
function revealed(item) {
  try {
    const output = item.output;
    if (item.type === "function_call_result") {
      if (typeof output === "string" || output?.type === "text") {
        const text = typeof output === "string" ? output : output.text;
        const seen = revealedText(text);
        if (seen === text) return item;
        return { ...item, output: typeof output === "string" ? seen : { ...output, text: seen } };
      }
      if (!Array.isArray(output)) return item;
      const parts = output.map((part) => {
        const seen = revealedText(part?.text);
        return seen === part?.text ? part : { ...part, text: seen };
      });
      return parts.every((part, i) => part === output[i]) ? item : { ...item, output: parts };
    }
    const args = item.arguments;
    if (item.type !== "function_call" || typeof args !== "string" || !HIDING.test(args) || parsedJson(args) !== undefined) return item;
    const seen = revealedText(args);
    return seen === args ? item : { ...item, arguments: seen };
  } catch {
    // A getter that throws: the store refuses the item with its own error.
    return item;
  }
}

/**
 * The item as `meta` keeps it, where the store's redaction of the item as
 * given would keep a credential that its neutral form shows: text parts a
 * key spans (their texts, redacted whole, joined into the first), or tool
 * arguments a parse shows one in (`\u` escapes, a name and a value side by
 * side; written redacted). Else a redacting store would redact the
 * neutral form, keep the rest of the key in `meta`, and `getItems` would
 * give it back. Any other item is kept as it is; a refusing store refuses
 * the neutral form either way.
 */
function guardable(item) {
  if (item === null || typeof item !== "object") return item;
  const type = item.type ?? "message";
  const field = type === "function_call_result" ? "output" : type === "function_call" ? "arguments" : "content";
  const value = item[field];
  if (Array.isArray(value)) {
    // As the neutral form reads them: a text file's URL as its text.
    const texts = value.map((part) => {
      const text = textOf([part]);
      return fileText(text)?.[1] ?? text;
    });
    if (texts.filter(Boolean).length < 2) return item;
    let whole;
    try {
      // One scan where no credential is found, the common case.
      whole = redactCredentials(texts.join(""));
      if (whole.redactions.length === 0 || redactCredentials(texts).value.join("") === whole.value) return item;
    } catch {
      // Text the guard refuses (a lone surrogate in an item JSON cannot
      // write): the store refuses the item with its own typed error.
      return item;
    }
    const first = texts.findIndex(Boolean);
    const parts = value.map((part, i) =>
      texts[i] ? { ...part, [typeof part.text === "string" ? "text" : "refusal"]: i === first ? whole.value : "" } : part);
    return { ...item, [field]: parts };
  }
  if (field !== "arguments" || typeof value !== "string") return item;
  const parsed = parsedJson(value);
  if (parsed === undefined) return item;
  let written;
  try {
    const redacted = redactCredentials(parsed);
    // One scan where no credential is found, the common case.
    if (redacted.redactions.length === 0) return item;
    written = stringifyJson(redacted.value);
    // Kept where the store's redaction of the text redacts just what the
    // parse shows: not the head of a key an escape cut, say.
    const after = parsedJson(redactCredentials(value).value);
    if (after !== undefined && stringifyJson(after) === written) return item;
  } catch {
    // A key that is a credential: the store refuses the neutral form.
    return item;
  }
  return { ...item, arguments: written };
}

function outputOf(output) {
  if (typeof output === "string") return output;
  if (output?.type === "text") return output.text ?? "";
  return Array.isArray(output) ? textOf(output) : "";
}

/**
 * An agent item as an attache message, the item itself in `meta`. The item
 * comes well formed (`withFiles`, or `transactionAsStored` for a transaction's): a
 * lone surrogate, text cut through an emoji, is U+FFFD by then, in the item
 * and so in its neutral form, as the store refuses it.
 */
function toMessage(given, files) {
  if (given === null || typeof given !== "object" || Array.isArray(given)) {
    throw new UserError("Session items must be objects.");
  }
  files ??= filesIn(given);
  const plain = revealed(given);
  if (plain !== given) [given, files] = [plain, filesIn(plain)];
  // The neutral form is the item's as given, escapes revealed; `meta` may
  // keep it redacted (its files found anew: a joined part may have been one).
  const safe = guardable(given);
  const meta = safe === given ? withFileTexts(given, files) : withFileTexts(safe);
  // The neutral form reads a text file as its text: as base64 (a tool's
  // output that is the URL), the guard would not read it.
  const item = putAt(given, files, (file) => file.text);
  switch (item.type ?? "message") {
    case "message": {
      const role = roleOf(item);
      if (!["system", "user", "assistant"].includes(role)) throw new UserError(`Unknown message role: ${shown(role)}`);
      return { role, content: textOf(item.content), meta };
    }
    case "function_call":
      return { role: "assistant", content: [{ type: "tool_call", id: item.callId, name: item.name, arguments: argumentsOf(item.arguments) }], meta };
    case "function_call_result":
      return { role: "tool", content: [{ type: "tool_result", callId: item.callId, content: outputOf(item.output) }], meta };
    case "reasoning":
      return { role: "assistant", content: [{ type: "thinking", thinking: textOf(item.content) }], meta };
    default:
      // Hosted tools, computer calls and the rest have no neutral form.
      return { role: "assistant", content: [], meta };
  }
}

/** A host's value in an error's text: as a log may keep it, so no secret,
 * and cut, as a model's runaway output would fill the log. */
function shown(value) {
  const text = shownText(value);
  return text === undefined ? `a ${typeof value}` : stringifyJson(text);
}

/** MemorySession's error, with what the host's value threw as its cause. */
function userError(message, cause) {
  const error = new UserError(message);
  // Not enumerable, as `new Error(message, { cause })` makes it.
  // A null-prototype descriptor: defineProperty reads an inherited `get`.
  Object.defineProperty(error, "cause", { __proto__: null, value: cause, writable: true, configurable: true });
  return error;
}

/** The role of an item's neutral form. */
function roleOf(item) {
  const type = item.type ?? "message";
  if (type === "message") return item.role === "developer" ? "system" : item.role;
  return type === "function_call_result" ? "tool" : "assistant";
}

/**
 * The agent item stored with a message, if it is one: an object whose
 * neutral form has the message's role, with what `toMessage` needs of its
 * type. A host's own `meta.item` (a string, a product record) on a
 * message it stored is not taken for one.
 */
function storedItem(message) {
  const item = message.meta?.item;
  if (item === null || typeof item !== "object" || Array.isArray(item) || roleOf(item) !== message.role) return undefined;
  switch (item.type ?? "message") {
    case "message":
      if (!("content" in item)) return undefined;
      break;
    case "function_call":
    case "function_call_result":
      if (typeof item.callId !== "string") return undefined;
      break;
    case "reasoning":
      break;
    default:
      // Hosted tool calls and the rest are stored with no content.
      if (partsOf(message.content).length !== 0) return undefined;
  }
  return withoutFileTexts(message.meta);
}

// ---- Text files sent as base64: an input_file, a tool's file output ----
// The guard reads no base64, and this is how the SDK carries any file: a
// key in a .env would be stored unseen. So the text of each such file is
// kept beside the item, in `meta.files` ({at: its path, text}), its
// payload left out of the item: the store's guard reads the text (a
// redacting store redacts it), and a read encodes it back. Only UTF-8 text
// that encodes back to the very same URL, and as JSON no longer than
// base64, or half again as long below 4 MiB of base64 (quotes, tabs, CRLF
// and a log's ESC fit; a tar's NULs are six characters each): a large
// file grows no item. Images (but SVG), audio, video and other bytes stay
// as they are, and so does the `type` or `role` the neutral form reads.
// A URL's scheme and `base64` are in any case, as RFC 2397 has them.
const DATA_HEAD = /^data:[^;,]*(?:;[^;,]*)*;base64,$/i;
// One rule for the head and for JSON text: images (but SVG), audio, video.
const MEDIA = String.raw`(?:image\/(?!svg\+xml[;,])|audio\/|video\/)`;
const MEDIA_HEAD = new RegExp(`^data:${MEDIA}`, "i");
const LARGE = 4 * 1024 * 1024;
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

function latin1(bytes) {
  let text = "";
  for (let i = 0; i < bytes.length; i += 0x2000) text += String.fromCharCode.apply(null, bytes.subarray(i, i + 0x2000));
  return text;
}

/** A data: URL's head (`data:text/plain;base64,`) and text, if it is a text file's. */
function fileText(value) {
  if (value.slice(0, 5).toLowerCase() !== "data:") return undefined;
  // The type before the payload is scanned: an image's megabytes are not.
  const head = value.slice(0, value.indexOf(",") + 1);
  if (!DATA_HEAD.test(head) || MEDIA_HEAD.test(head)) return undefined;
  const payload = value.slice(head.length);
  if (!BASE64.test(payload)) return undefined;
  const bytesOf = (binary) => {
    // A loop: Uint8Array.from with a map function is 25 times slower.
    const bytes = new Uint8Array(binary.length);
    for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
    return bytes;
  };
  const utf8 = () => new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
  try {
    // Most other bytes (a PDF, a zip) show in their first 768: before the rest is decoded.
    utf8().decode(bytesOf(atob(payload.slice(0, 1024))), { stream: true });
    const binary = atob(payload);
    const text = utf8().decode(bytesOf(binary));
    const short = stringifyJson(text).length <= payload.length * (payload.length < LARGE ? 1.5 : 1) + 2;
    return short && btoa(binary) === payload ? [head, text] : undefined;
  } catch {
    return undefined;
  }
}

/** `value` with `leaf` at path `at`, copied along it: a `__proto__` key stays a key. */
function withAt(value, at, leaf, i = 0) {
  if (i === at.length) return leaf;
  const copy = Array.isArray(value) ? [...value] : { ...value };
  Object.defineProperty(copy, at[i], { value: withAt(value[at[i]], at, leaf, i + 1), writable: true, enumerable: true, configurable: true });
  return copy;
}

/** The text files in `item`: each one's path, URL head and text. */
function filesIn(item) {
  const files = [];
  // What the neutral form reads as given: the item's type and role, its
  // output's type.
  const read = (at, k) => (at.length === 0 ? k === "type" || k === "role" : at.length === 1 && at[0] === "output" && k === "type");
  const walk = (v, at) => {
    // Deeper, the store refuses the item (128 levels).
    if (at.length > 200) return;
    if (typeof v === "string") {
      const file = fileText(v);
      if (file) files.push({ at, text: file[1], head: file[0] });
    } else if (v !== null && typeof v === "object") {
      for (const [k, x] of Object.entries(v)) {
        if (!read(at, k)) walk(x, [...at, Array.isArray(v) ? Number(k) : k]);
      }
    }
  };
  walk(item, []);
  return files;
}

/** `item` with `leaf(file)` in place of each of `files`. */
const putAt = (item, files, leaf) => files.reduce((copy, file) => withAt(copy, file.at, leaf(file)), item);

/** An item as `meta` keeps it: `{item}`, or with its text files taken out. */
function withFileTexts(item, files = filesIn(item)) {
  if (files.length === 0) return { item };
  return { item: putAt(item, files, (file) => file.head), files: files.map(({ at, text }) => ({ at, text })) };
}

/** The item `meta` keeps, its text files encoded back (as its own URLs gave them). */
function withoutFileTexts(meta) {
  let item = meta.item;
  if (!Array.isArray(meta.files)) return item;
  for (const file of meta.files) {
    if (!Array.isArray(file?.at) || typeof file.text !== "string") continue;
    let head = item;
    for (const key of file.at) head = head !== null && typeof head === "object" && Object.hasOwn(head, key) ? head[key] : undefined;
    if (typeof head === "string" && DATA_HEAD.test(head)) {
      item = withAt(item, file.at, head + btoa(latin1(new TextEncoder().encode(file.text))));
    }
  }
  return item;
}

/** A message's parts: string content is one text part. */
const partsOf = (content) => (typeof content === "string" ? [{ type: "text", text: content }] : Array.isArray(content) ? content : []);

const imageOf = (part) => part.url ?? `data:${part.mediaType};base64,${part.data}`;

/** A tool result's output: its text, or input_* items where it holds an image. */
function outputOfResult(content) {
  const parts = partsOf(content);
  if (parts.every((part) => part.type === "text")) return textOf(parts);
  return parts.map((part) => (part.type === "text" ? { type: "input_text", text: part.text } : { type: "input_image", image: imageOf(part) }));
}

/**
 * The items a message stands for, each with the first of its parts that
 * it came from (so what comes before can be kept): the one stored with it,
 * or, for a message stored without one (appendMessages, fromOpenAI's
 * output through commitTurn, an import), each call and result as its own
 * item and its text and images as a message item of its role, in part
 * order, shaped as the protocol wants. A result is named by `names`, its
 * nearest call before it; one with none is user text of its own (marked
 * `orphan`). Thinking is left out, as before: no OpenAI model takes
 * another provider's reasoning without its id.
 */
function toItems(message, names) {
  const item = storedItem(message);
  if (item) return [{ item, part: 0, own: 0 }];
  const entries = [];
  let content = null;
  // Where the next item starts: at thinking before it, which goes with it.
  let start = null;
  const add = (item, at, orphan = false) => {
    // `own`: its own part, after any thinking that goes with it.
    entries.push({ item, part: start ?? at, own: at, orphan });
    start = null;
    return item;
  };
  const role = message.role === "system" ? "system" : message.role === "assistant" ? "assistant" : "user";
  const say = (part, at) => {
    if (content === null) {
      content = add(role === "assistant" ? { type: "message", role, status: "completed", content: [] } : { type: "message", role, content: [] }, at);
    } else {
      // Thinking between its parts is inside this item's range.
      start = null;
    }
    if (part) content.content.push(part);
  };
  partsOf(message.content).forEach((part, at) => {
    if (part.type === "thinking") {
      start ??= at;
      return;
    }
    if (part.type === "tool_call") {
      add({ type: "function_call", callId: part.id, name: part.name, status: "completed", arguments: stringifyJson(part.arguments) }, at);
    } else if (part.type === "tool_result") {
      const name = names.get(part.callId);
      if (name === undefined) add({ type: "message", role: "user", content: textOf(partsOf(part.content)) }, at, true);
      else add({ type: "function_call_result", callId: part.callId, name, status: "completed", output: outputOfResult(part.content) }, at);
    } else {
      say(part.type === "image" ? { type: "input_image", image: imageOf(part) } : { type: role === "assistant" ? "output_text" : "input_text", text: part.text ?? "" }, at);
      return;
    }
    content = null;
  });
  if (entries.length === 0) say(role === "assistant" ? { type: "output_text", text: "" } : null, 0);
  // Text alone is a string, as the protocol's system and user items take it.
  for (const { item } of entries) {
    if (item.type === "message" && item.role !== "assistant" && Array.isArray(item.content) && item.content.every((part) => part.type === "input_text")) {
      item.content = textOf(item.content);
    }
  }
  return entries;
}

/**
 * The items of `messages`, each with the index of the message it came
 * from (`at`) and its first part there. A result is named by the nearest
 * call before it: providers reuse ids (`call_0` each turn).
 */
function itemsOf(messages, from = 0) {
  const names = new Map();
  return messages.flatMap((message, at) => {
    // Before `from`, only the calls' names are read.
    const entries = at < from ? [] : toItems(message, names).map((entry) => ({ ...entry, at }));
    for (const part of partsOf(message.content)) if (part.type === "tool_call") names.set(part.id, part.name);
    return entries;
  });
}

/** What stays of message `at` when its items from part `part` on go: none, or its earlier parts, stored without an item. */
function keptOf(history, at, part) {
  const message = history[at];
  if (!message || part === 0) return [];
  return [{ ...message, content: partsOf(message.content).slice(0, part) }];
}

/** JSON as stored, lone surrogates made U+FFFD: what a later call compares against. */
const asStored = (value, replacer, refusal) => parseJson(wellFormedJson(stringifyJson(value, replacer), refusal));

const collided = () => new UserError("Session items must not hold two keys of one object that are the same once lone surrogates are U+FFFD.");

/** Session items as given, if they are an array: a revoked Proxy is none (Array.isArray throws). */
function itemList(items) {
  try {
    if (Array.isArray(items)) return items;
  } catch {}
  throw new UserError("Session items must be an array.");
}

/** Items as the messages that store them. */
function messagesOf(items) {
  itemList(items);
  try {
    return items.map((item) => toMessage(...withFiles(item)));
  } catch (cause) {
    // A getter or a Proxy's trap that throws as the neutral form reads it,
    // or as the list is read (an index, its length).
    throw cause instanceof UserError ? cause : userError("Session items must be JSON data: reading one threw.", cause);
  }
}

/** A string that may be a text file's URL, in JSON text. */
const FILE_URL = new RegExp(`"data:(?!${MEDIA})`, "i");

/**
 * JSON as the store writes it, or a throw where the store refuses: a URL
 * is its href, whatever its toJSON; a number JSON has not, a function, a
 * symbol, a BigInt, undefined in an array (a hole) and an object not plain
 * (a Date, bytes, a Map, a class's) are refused, where JSON would change
 * them unseen. Both the value as given (from its descriptor: no getter
 * runs twice) and what its toJSON returned are read.
 */
function storable(k, v) {
  const own = Object.getOwnPropertyDescriptor(this, k);
  const given = own && "value" in own ? own.value : v;
  for (const x of [given, v]) {
    if (x === null || typeof x !== "object" || Array.isArray(x)) continue;
    const proto = Object.getPrototypeOf(x);
    if ((proto === null || Object.getPrototypeOf(proto) === null) && Object.prototype.toString.call(x) === "[object Object]") continue;
    let href;
    try {
      // A URL, in any realm, as the store reads it.
      href = HREF?.call(x);
    } catch {}
    if (typeof href === "string") return href;
    throw new TypeError("not plain");
  }
  const noJson = (x) => typeof x === "function" || typeof x === "symbol" || typeof x === "bigint";
  if (typeof v === "number" && !Number.isFinite(v)) throw new TypeError("not finite");
  if (noJson(given) || noJson(v) || (v === undefined && (Array.isArray(this) || given !== undefined))) throw new TypeError("no JSON");
  return v;
}

const HREF = typeof URL === "function" ? Object.getOwnPropertyDescriptor(URL.prototype, "href")?.get : undefined;

/**
 * A JSON copy of an item, each lone surrogate made U+FFFD, and its text
 * files. A copy, as MemorySession keeps one: the store reads the item
 * after the session is found, and a host may change it meanwhile; the
 * walk then reads what the store keeps, no getter twice, and cannot
 * throw. What the store refuses (`storable`, a cycle, a BigInt) goes to
 * it as given, to be refused with its typed error.
 */
function withFiles(item) {
  let text;
  try {
    text = stringifyJson(item, storable);
  } catch {
    return [item, []];
  }
  if (text === undefined) return [item, []];
  const fixed = wellFormedJson(text, collided);
  const copy = parseJson(fixed);
  return [copy, FILE_URL.test(fixed) ? filesIn(copy) : []];
}

/**
 * A transaction as stored. What the store refuses in `addItems` is refused
 * here too, as MemorySession refuses it: bytes (which JSON.stringify would
 * make an object of indexes), a cycle, a BigInt, a number JSON has not (it
 * would be null). So is what JSON would change unseen, as MemorySession
 * refuses it: a getter, what `toJSON` changes (a Date), a function, a
 * symbol, a hole, an object that is not plain (a Map, a class's, a boxed
 * primitive, one with an inherited or hidden key). Then an item that is
 * no `ModelItem`, by the protocol's own schema, as given: JSON drops a
 * key whose value is undefined.
 */
function transactionAsStored(transaction) {
  function unsupported(k, v) {
    if (ArrayBuffer.isView(v) || v instanceof ArrayBuffer) throw new TypeError("bytes");
    if (typeof v === "number" && !Number.isFinite(v)) throw new TypeError("not finite");
    if (!("value" in Object.getOwnPropertyDescriptor(this, k)) || v !== this[k]) throw new TypeError("getter or toJSON");
    if (typeof v === "function" || typeof v === "symbol" || (v === undefined && Array.isArray(this))) throw new TypeError("no JSON");
    // An array's own keys are its indexes and length: JSON drops any other.
    if (Array.isArray(v) && Reflect.ownKeys(v).length !== v.length + 1) throw new TypeError("not plain");
    if (v !== null && typeof v === "object" && !Array.isArray(v)) {
      // Plain: no prototype, or a realm's Object.prototype (an iframe's
      // too), and every key its own and enumerable: the schema reads an
      // inherited or hidden one, which JSON drops.
      const proto = Object.getPrototypeOf(v);
      const plain = proto === null || (Object.getPrototypeOf(proto) === null && Object.hasOwn(proto, "hasOwnProperty"));
      if (!plain || Reflect.ownKeys(v).length !== Object.keys(v).length) throw new TypeError("not plain");
    }
    return v;
  }
  let stored;
  try {
    stored = asStored(transaction, unsupported, collided);
  } catch (cause) {
    throw userError("Session history transaction items contain invalid or unsupported data.", cause);
  }
  // Read after the snapshot, which refused any getter.
  const lists = [transaction.items, transaction.expectedSuffix, transaction.replacement];
  if (lists.some((list) => Array.isArray(list) && list.some((item) => !protocol.ModelItem.safeParse(item).success))) {
    throw new UserError("Session history transaction items contain invalid or unsupported data.");
  }
  return stored;
}

/**
 * Items as a redacting store keeps them: the runner holds the originals,
 * the store may hold markers (or, once a secret is registered, text now
 * found to hold one). Both sides compared this way match exactly.
 */
function comparable(items) {
  itemList(items);
  let stored;
  try {
    // The whole array: an item with no JSON form (undefined) is null.
    stored = asStored(items);
  } catch (cause) {
    throw userError("Session items must be JSON (no cycle, no BigInt).", cause);
  }
  return stored.map(redactedItem);
}

/** An item as a redacting store gives it back: its text files redacted too. */
const redactedItem = (item) => withoutFileTexts(redactCredentials(withFileTexts(guardable(revealed(item)))).value);

/** Whether stored JSON `a` is `b`, in any key order, once both are comparable. */
const equal = (a, b) => canonical(comparable([a])) === canonical(comparable([b]));

/** JSON text with object keys sorted: one text per value, in any key order. */
function canonical(value) {
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`;
  if (value === null || typeof value !== "object") return stringifyJson(value);
  const fields = Object.keys(value).sort().map((k) => `${stringifyJson(k)}:${canonical(value[k])}`);
  return `{${fields.join(",")}}`;
}

/** cyrb53 (bryc, public domain): 53 bits of a string's UTF-16 units. */
function cyrb53(text, seed) {
  let h1 = 0xdeadbeef ^ seed;
  let h2 = 0x41c6ce57 ^ seed;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    h1 = Math.imul(h1 ^ c, 2654435761);
    h2 = Math.imul(h2 ^ c, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return 4294967296 * (2097151 & h2) + (h1 >>> 0);
}

/**
 * Tells transactions apart, synchronously and in any context (crypto.subtle
 * is missing on insecure origins): two seeded 53-bit hashes of the
 * canonical text. It guards against a host reusing an id by mistake; no
 * one gains by forging a collision. Hashed as a redacting store keeps the
 * transaction: a hash of a secret's text would let anyone holding the
 * store test guesses at what a marker replaced.
 */
function digestOf(redacted) {
  return `r1.${hashes(canonical(redacted))}`;
}

/** The digest before redaction, as records written before r1 hold it. */
function digestBeforeRedaction(transaction) {
  const text = canonical(transaction);
  return `${hashes(text)}.${text.length}`;
}

const hashes = (text) => `${cyrb53(text, 0).toString(36)}.${cyrb53(text, 1).toString(36)}`;

/** Whether a stored operation record is this transaction's. */
function sameOperation(applied, transaction, digest) {
  // Records written before digests hold the transaction itself.
  if (applied?.transaction !== undefined) return equal(applied.transaction, transaction);
  if (typeof applied?.digest === "string" && !applied.digest.startsWith("r1.")) {
    return applied.digest === digestBeforeRedaction(transaction);
  }
  return applied?.digest === digest;
}

/** History mutations, snapshotted as JSON; kinds other than replace_function_call do nothing, as in MemorySession. */
function mutationsOf(args) {
  let mutations;
  try {
    if (args === null || typeof args !== "object") throw new TypeError("no arguments object");
    const list = Reflect.get(args, "mutations");
    if (!Array.isArray(list)) throw new TypeError("not an array");
    // What addItems refuses, refused here too (bytes, a Map, a BigInt).
    mutations = asStored(list, storable, collided);
  } catch (cause) {
    // A getter or a Proxy's trap that throws, a cycle.
    throw userError("Session history mutations must be an array of JSON data.", cause);
  }
  for (const mutation of mutations) {
    if (mutation?.type !== "replace_function_call") continue;
    // Checked as a transaction's items are, by the protocol's own schema.
    const { callId, replacement } = mutation;
    if (typeof callId !== "string" || replacement?.type !== "function_call" || !protocol.ModelItem.safeParse(replacement).success) {
      throw new UserError("A replace_function_call mutation needs a callId and a function_call item to replace it.");
    }
  }
  return mutations;
}

/** `entries` with the call's first function_call item replaced, where it stood, and any other dropped, as MemorySession does. */
function replacedCall(entries, { callId, replacement }) {
  let replaced = false;
  return entries.flatMap((entry) => {
    if (entry.item?.type !== "function_call" || entry.item.callId !== callId) return [entry];
    if (replaced) return [];
    replaced = true;
    // The same call again changes nothing: its message stays as stored.
    return [canonical(entry.item) === canonical(replacement) ? entry : { ...entry, item: replacement }];
  });
}

/**
 * The messages from the first that changes on (`from`), for items
 * `entries` (of `history`) to become `next`; undefined if none does. A
 * message with a changed item keeps its parts before it and its thinking,
 * and is that item's and the later ones' messages from there. Any other stays
 * as stored (a host's keeps its thinking and meta), unless what it gives
 * then differs from its items before: a host's tool result named by a
 * call that changed, or answering one it did not before.
 */
function rewritten(history, entries, next) {
  // A match is replaced by a new entry, so a change is an entry no longer in `next`.
  const remaining = new Set(next);
  // Per message, its first changed entry.
  const cut = new Map();
  for (const entry of entries.filter((entry) => !remaining.has(entry))) if (!(cut.get(entry.at)?.own <= entry.own)) cut.set(entry.at, entry);
  if (cut.size === 0) return undefined;
  const from = Math.min(...cut.keys());
  // Entries by the message they come from (Map.groupBy is not in Node 20).
  const byMessage = (list) => {
    const map = new Map();
    for (const entry of list) {
      if (map.has(entry.at)) map.get(entry.at).push(entry);
      else map.set(entry.at, [entry]);
    }
    return map;
  };
  const wanted = byMessage(next);
  const itemsAt = (map, at) => (map.get(at) ?? []).map(({ item }) => item);
  const shown = history.slice(0, from);
  // For each message of `shown` kept as stored, its index in `history`.
  const origins = [];
  // Thinking whose message went whole (a duplicate call dropped), for the next assistant message.
  let pending = [];
  // `thinking` into a message's parts at `at` (its start by default).
  const withThinking = (message, thinking, at = 0) => {
    const parts = partsOf(message.content);
    return { ...message, content: [...parts.slice(0, at), ...thinking, ...parts.slice(at)] };
  };
  for (let at = from; at < history.length; at++) {
    const first = cut.get(at);
    if (first === undefined) {
      origins[shown.length] = at;
      // It gives no item: the message gives what it gave.
      shown.push(pending.length > 0 && history[at].role === "assistant" ? withThinking(history[at], pending.splice(0)) : history[at]);
      continue;
    }
    const after = messagesOf((wanted.get(at) ?? []).filter((entry) => entry.own >= first.own).map(({ item }) => item));
    const kept = keptOf(history, at, first.part);
    // Thinking where the message is rebuilt gives no item: it goes, in
    // its order, before the first assistant message rebuilt, or else after
    // the parts kept (a duplicate call dropped after it).
    const thinking = [...pending.splice(0), ...partsOf(history[at].content).slice(first.part).filter((part) => part.type === "thinking")];
    const to = after.findIndex((message) => message.role === "assistant");
    if (thinking.length > 0 && to >= 0) after[to] = withThinking(after[to], thinking);
    else if (thinking.length > 0 && kept.length > 0) kept[0] = withThinking(kept[0], thinking, Infinity);
    else pending = thinking;
    shown.push(...kept, ...after);
  }
  // None after: to the last assistant message before, after its leading
  // thinking (earlier, so still before its calls), from there on.
  let start = from;
  if (pending.length > 0) {
    const last = shown.findLastIndex((message) => message.role === "assistant");
    if (last >= 0) {
      const lead = partsOf(shown[last].content).findIndex((part) => part.type !== "thinking");
      shown[last] = withThinking(shown[last], pending, lead < 0 ? Infinity : lead);
      start = Math.min(from, last);
    }
  }
  // What the kept messages give once the changed ones are in.
  const given = byMessage(itemsOf(shown, from));
  const messages = shown.slice(from).flatMap((message, i) => {
    const at = origins[from + i];
    if (at === undefined) return [message];
    const want = itemsAt(wanted, at);
    return canonical(itemsAt(given, from + i)) === canonical(want) ? [message] : messagesOf(want);
  });
  // A message before `from` that took thinking is written too; it gives what it gave.
  return { from: start, messages: [...shown.slice(start, from), ...messages] };
}

/** A transaction's arguments, checked and snapshotted as MemorySession's are. */
function checkedTransaction(args) {
  let operationId;
  let transaction;
  try {
    if (args === null || typeof args !== "object") throw new TypeError("no arguments object");
    operationId = Reflect.get(args, "operationId");
    transaction = Reflect.get(args, "transaction");
  } catch (cause) {
    // A getter or a Proxy's trap that throws, a revoked Proxy.
    throw userError("Session history transaction arguments are invalid.", cause);
  }
  if (typeof operationId !== "string" || !operationId.trim()) {
    throw new UserError("Session history transaction operationId must be a non-empty string.");
  }
  // Its key, made before the session is created: a refused call creates none.
  const key = opKey(operationId);
  if (transaction === null || typeof transaction !== "object") throw new UserError("Session history transaction must be an object.");
  // The transaction itself is snapshotted too: a getter, a class's object,
  // an inherited or hidden field is refused before any field is read.
  const stored = transactionAsStored(transaction);
  const lists = stored.type === "append_items" ? ["items"] : stored.type === "replace_suffix" ? ["expectedSuffix", "replacement"] : undefined;
  if (!lists) throw new UserError("Session history transaction must be append_items or replace_suffix.");
  // Fields it does not name are refused, as MemorySession refuses them.
  if (Object.keys(stored).length !== lists.length + 1 || !lists.every((name) => Array.isArray(stored[name]))) {
    throw new UserError(`Session history ${lists.length === 1 ? "append" : "suffix"} transaction fields are invalid.`);
  }
  return { key, transaction: stored };
}

// Mutations of one session run one at a time: a suffix replaced by two
// runs at once would pass the length check twice. Web Locks hold across
// tabs and workers of the origin; without them (Node, an insecure origin)
// or where they are refused (an opaque origin), within this realm only.
const queues = new Map();
let locksRefused = false;
/**
 * `options.sessionId`, own or from a class or defaults object, but not
 * from an Object.prototype, this realm's or another's (its own prototype
 * is null): another library's pollution there is none. The walk is
 * bounded, and a Proxy's trap that throws or loops means none.
 */
function sessionIdOf(options) {
  if (options == null) return undefined;
  const object = Object(options);
  let owner = null;
  try {
    for (let at = object, depth = 0; at !== null && depth < 32; at = Object.getPrototypeOf(at), depth++) {
      if (Object.hasOwn(at, "sessionId")) {
        if (at === object || Object.getPrototypeOf(at) !== null) owner = at;
        break;
      }
    }
  } catch {
    return undefined;
  }
  // From where the walk found it; a getter that throws still throws.
  return owner === null ? undefined : Reflect.get(owner, "sessionId", object);
}

async function exclusive(sessionId, work) {
  const name = `attache/openai-agents/${sessionId}`;
  const locks = globalThis.navigator?.locks;
  if (!locksRefused && typeof locks?.request === "function") {
    let started = false;
    try {
      return await locks.request(name, () => {
        started = true;
        return work();
      });
    } catch (e) {
      // Refused before the work ran: the realm's queue instead, from now on.
      if (started) throw e;
      locksRefused = true;
    }
  }
  const run = (queues.get(name) ?? Promise.resolve()).then(work, work);
  const settled = run.then(() => {}, () => {});
  queues.set(name, settled);
  settled.then(() => {
    if (queues.get(name) === settled) queues.delete(name);
  });
  return run;
}

/** A new session's id, as the stores make one: a UUID where the context is secure. */
function newSessionId() {
  try {
    const id = globalThis.crypto?.randomUUID?.();
    if (typeof id === "string" && id !== "") return id;
  } catch {}
  // 64 random bits: a clash would be taken for this object's own session.
  const draw = () => {
    try {
      return randomFraction();
    } catch {
      return Math.random();
    }
  };
  const hex = () => Math.floor(draw() * 2 ** 32).toString(16).padStart(8, "0");
  return `${Date.now().toString(16)}-${hex()}${hex()}`;
}

export class AttacheSession {
  #store;
  #sessionId;
  // Whether this object made its id (none was given): no lookup first.
  #made = false;
  #ready;
  #applies = 0;
  // The ids this instance applied lately, never pruned: the runner repeats
  // an id only within a run, on the session it holds, and a clock stepped
  // back since would otherwise make them look the oldest.
  #recent = [];

  /**
   * @param {import("attache").SessionStore} store a MemorySessionStore or an IdbSessionStore
   * @param {{ sessionId?: string }} [options] an existing session's id, or the id to create it under
   */
  constructor(store, options = {}) {
    if (!store || typeof store.appendMessages !== "function" || typeof store.commitTurn !== "function") {
      throw new TypeError("AttacheSession needs a MemorySessionStore or an IdbSessionStore");
    }
    // A typo (`sessionID`), MemorySession's `initialItems` or an id passed
    // bare would otherwise start a new, empty session at each load, unseen.
    // null is no options, as in the stores.
    if (options !== null && (typeof options !== "object" || Array.isArray(options))) {
      const got = Array.isArray(options) ? "an array" : `a ${typeof options}`;
      throw new TypeError(`AttacheSession's options must be an object such as { sessionId: "chat" } (got ${got}).`);
    }
    let keys = [];
    try {
      keys = Object.keys(options ?? {});
    } catch {
      // A Proxy's trap that throws: no keys, as it has no sessionId.
    }
    const unknown = keys.find((key) => key !== "sessionId");
    if (unknown !== undefined) {
      throw new TypeError(`AttacheSession has no option ${shown(unknown)}: its only option is sessionId${unknown === "initialItems" ? " (add the items with addItems)" : ""}.`);
    }
    this.#store = store;
    this.#sessionId = sessionIdOf(options);
    // Made here when none is given, as MemorySession makes its own: every
    // call then queues under it at the call, in call order, on any object.
    if (this.#sessionId === undefined) {
      this.#sessionId = newSessionId();
      this.#made = true;
    }
  }

  /** The session, created on first use (under `sessionId`, or an id made at construction). Async,
   * so a call on another `this` rejects rather than throws. */
  async getSessionId() {
    if (this.#ready) return this.#ready;
    const ready = (async () => {
      const id = this.#sessionId;
      // A made id is new: created, or taken already by this object's own
      // earlier creation (a session deleted since comes back under it).
      if (!this.#made && (await this.#store.getSession(id))) return id;
      try {
        return (await this.#store.createSession({ id })).id;
      } catch (e) {
        if (e?.code === "ALREADY_EXISTS") return id;
        throw e;
      }
    })();
    this.#ready = ready;
    // A failed creation may be retried; a newer attempt is kept.
    ready.catch(() => {
      if (this.#ready === ready) this.#ready = undefined;
    });
    return ready;
  }

  /** `write(id)` on the session. One deleted since (a "delete chat" in
   * another tab) is created again under its id, as a new AttacheSession
   * would, rather than failing every later run after its model call. */
  async #onSession(write) {
    // The retry inside the lock too: a getItems called after this write
    // must come after it.
    return this.#locked(async (id) => {
      try {
        return await write(id);
      } catch (e) {
        if (e?.code !== "NOT_FOUND") throw e;
        this.#ready = undefined;
        return write(await this.getSessionId());
      }
    });
  }

  /** The last `limit` items, as MemorySession slices them (1.5 is 2; NaN and Infinity, all). */
  async getItems(limit) {
    let asked;
    try {
      asked = limit === undefined ? NaN : Number(limit);
    } catch (cause) {
      throw userError("getItems' limit must be a number.", cause);
    }
    if (asked <= 0) return [];
    // After this session's writes called before it, as MemorySession's
    // (which are synchronous) are: a redraw after an unawaited popItem.
    return this.#locked((id) => this.#itemsOf(id, asked));
  }

  /**
   * `work(id)` under the session's lock, queued at the call, so a new
   * object's first call is not overtaken by another object's later one
   * on that session.
   */
  async #locked(work) {
    // An id not a string is the store's to refuse, as getSessionId finds.
    const id = this.#sessionId;
    const queued = typeof id === "string" ? id : await this.getSessionId();
    return exclusive(queued, async () => work(await this.getSessionId()));
  }

  async #itemsOf(id, asked) {
    const count = Math.ceil(asked);
    const limited = Number.isSafeInteger(count);
    const messages = await this.#store.loadMessages(id, limited ? { limit: count } : undefined);
    // A message stands for one item or more, so `limit` messages hold the
    // last `limit` items; a result whose call is before them is named from
    // the whole history.
    let entries = itemsOf(messages);
    // Fewer than `limit` messages are the whole history already.
    // Only a returned result with no call is named again: then, and in a
    // session holding one whose call is nowhere, the whole history is read.
    if (limited && messages.length === count && entries.slice(-count).some((entry) => entry.orphan)) {
      entries = itemsOf(await this.#store.loadMessages(id));
    }
    const items = entries.map(({ item }) => item);
    return limited ? items.slice(-count) : items;
  }

  /** Stored and expected items as the runner should compare them: see `comparable`. */
  prepareHistoryItemsForPersistenceComparison(items) {
    return comparable(items);
  }

  async addItems(items) {
    const messages = messagesOf(items);
    if (messages.length === 0) return;
    await this.#onSession((id) => this.#store.appendMessages(id, messages));
  }

  /**
   * Removes the last item. A message stored without an item may stand for
   * several: its earlier parts stay. One transaction, checked against the
   * history's length, so it reads the whole history: a host's own writes
   * (the messages without items) come outside this adapter's lock, and a
   * pop then a put-back could lose one.
   */
  async popItem() {
    return this.#locked(async (id) => {
      for (let attempt = 0; ; attempt++) {
        const history = await this.#store.loadMessages(id);
        if (history.length === 0) return undefined;
        const at = history.length - 1;
        const { item, part } = itemsOf(history, at).at(-1);
        try {
          await this.#store.replaceMessages(id, { from: at, messages: keptOf(history, at, part), expectedCount: history.length });
          return item;
        } catch (e) {
          if (e?.code !== "CONFLICT" || attempt >= 4) throw e;
        }
      }
    });
  }

  /**
   * Empties the history, then forgets the operation ids applied before it,
   * as MemorySession does: a transaction replayed after a clear applies
   * again. The ids are listed first: one applied from another tab after
   * the clear (where no Web Lock orders the two) keeps its history and its
   * id. A tab closed midway keeps ids, which skips a replay, rather than
   * leaving history without its id, which would double one.
   */
  async clearSession() {
    try {
      await this.#locked(async (id) => {
        const keys = await this.#store.listSessionStateKeys(id, { prefix: "agents/op/" });
        await this.#store.clearMessages(id);
        await Promise.all(keys.map((key) => this.#store.deleteSessionState(id, key)));
      });
    } catch (e) {
      // Deleted since: nothing to clear, and the next use creates it again.
      if (e?.code !== "NOT_FOUND") throw e;
      this.#ready = undefined;
    }
  }

  /**
   * The whole history becomes `items` (a compaction item and what it
   * keeps) in one transaction: without this, the runner clears and then
   * adds, and a tab closed between the two loses the conversation.
   */
  async replaceHistoryWithCompaction(items) {
    // Checked first, as addItems does: items that are no messages create
    // no session (one the store then refuses does: README).
    const messages = messagesOf(items);
    await this.#onSession((id) => this.#store.replaceMessages(id, { from: 0, messages }));
  }

  /**
   * Rewrites calls (an approved call's edited arguments) as MemorySession
   * does, in one store call checked against the history's length, from
   * the first item that changes. Without it the SDK clears, then adds: a
   * tab closed between the two loses the chat, and the clear forgets the
   * operation ids, so a transaction retried after it applies twice.
   */
  async applyHistoryMutations(args) {
    const mutations = mutationsOf(args);
    if (mutations.length === 0) return;
    await this.#onSession(async (id) => {
      for (let attempt = 0; ; attempt++) {
        const history = await this.#store.loadMessages(id);
        const entries = itemsOf(history);
        let next = entries;
        for (const mutation of mutations) if (mutation?.type === "replace_function_call") next = replacedCall(next, mutation);
        const rewrite = rewritten(history, entries, next);
        if (rewrite === undefined) return;
        const { from, messages } = rewrite;
        try {
          await this.#store.replaceMessages(id, { from, messages, expectedCount: history.length });
          return;
        } catch (e) {
          if (e?.code !== "CONFLICT" || attempt >= 4) throw e;
        }
      }
    });
  }

  /**
   * Appends, or replaces a suffix that must match, in one transaction with
   * its operation id. A repeated id with the same transaction does nothing;
   * with another, it throws and changes nothing.
   */
  async applyHistoryTransaction(args) {
    const { key, transaction } = checkedTransaction(args);
    // Checked before the session is made, as addItems checks.
    const incoming = (transaction.type === "append_items" ? transaction.items : transaction.replacement).map((item) => toMessage(item));
    // Redacted once, whatever the retries, and before the session is made:
    // items it cannot read (nested past 128 levels) are refused as the
    // store's other refusals are.
    let redacted;
    try {
      const { items, expectedSuffix, replacement, ...rest } = transaction;
      redacted = redactCredentials(rest).value;
      for (const [k, list] of Object.entries({ items, expectedSuffix, replacement })) if (Array.isArray(list)) redacted[k] = list.map(redactedItem);
    } catch (e) {
      throw userError(`Session history transaction items cannot be stored: ${shown(e?.message)}`, e);
    }
    return this.#onSession((id) => this.#apply(id, key, transaction, incoming, redacted));
  }

  /** Whether this transaction took operation key `key` already; another that took it is a UserError. */
  async #applied(id, key, transaction, digest) {
    const applied = await this.#store.loadSessionState(id, key);
    if (applied === null) return false;
    if (sameOperation(applied, transaction, digest)) return true;
    throw new UserError("Session history operation was already applied with a different transaction.");
  }

  async #apply(id, key, transaction, incoming, redacted) {
    // The digest, and the suffix, as a redacting store would keep them (the
    // transaction came through transactionAsStored).
    const digest = digestOf(redacted);
    const expected = transaction.type === "replace_suffix" ? canonical(redacted.expectedSuffix) : undefined;
    // Another writer may come between the read and the commit: the commit
    // then conflicts, and the precondition is read again. An append has no
    // precondition on the history, so it commits first and reads only
    // when its operation id turns out to be taken.
    for (let attempt = 0; ; attempt++) {
      if ((transaction.type === "replace_suffix" || attempt > 0) && (await this.#applied(id, key, transaction, digest))) return;
      // When, so the oldest ids can go first.
      const turn = { state: { [key]: { type: transaction.type, digest, at: clock() } }, requireAbsent: [key] };
      if (transaction.type === "append_items") {
        turn.messages = incoming;
      } else {
        const history = await this.#store.loadMessages(id);
        const items = itemsOf(history);
        const from = items.length - transaction.expectedSuffix.length;
        const actual = from < 0 ? null : items.slice(from).map(({ item }) => item);
        if (!actual || canonical(comparable(actual)) !== expected) {
          throw new UserError("Session history suffix no longer matches the transaction precondition.");
        }
        // The suffix may start inside a message that stands for several
        // items: its earlier parts stay.
        const [at, part] = from < items.length ? [items[from].at, items[from].part] : [history.length, 0];
        Object.assign(turn, { messages: [...keptOf(history, at, part), ...incoming], replaceFrom: at, expectedCount: history.length });
      }
      try {
        await this.#store.commitTurn(id, turn);
      } catch (e) {
        // An append refused before its id was read: the id may be taken,
        // by this very transaction (stored redacted, then moved into a
        // refusing store, or with a secret registered since).
        if (e?.code === "CREDENTIAL" && transaction.type === "append_items" && attempt === 0 && (await this.#applied(id, key, transaction, digest))) return;
        if (e?.code !== "CONFLICT" || attempt >= 4) throw e;
        continue;
      }
      this.#recent = [...this.#recent.slice(1 - OPS_RECENT), key];
      if (this.#applies++ % OPS_CHECK_EVERY === 0) {
        // The transaction is stored: a failure here is tried again later.
        await this.#forgetOldOperations(id).catch(() => {});
      }
      return;
    }
  }

  /**
   * Deletes the oldest operation ids past OPS_KEPT. Those stored without a
   * time go first, and so do those stamped later than now: a clock that
   * ran ahead (another device's, imported; this one's, set back since)
   * wrote them, before the ids written now, which would otherwise go.
   * This instance's recent ids stay whatever their time.
   */
  async #forgetOldOperations(id) {
    const keys = await this.#store.listSessionStateKeys(id, { prefix: "agents/op/" });
    if (keys.length <= OPS_KEPT + OPS_SLACK) return;
    const applied = [];
    // loadSessionStates takes at most 10,000 keys a call.
    for (let i = 0; i < keys.length; i += 10000) applied.push(...(await this.#store.loadSessionStates(id, keys.slice(i, i + 10000))));
    const now = clock();
    // A broken clock tells no ages: every stamp would look ahead of it.
    if (now === 0) return;
    const age = (record) => (typeof record?.at === "number" && record.at <= now ? record.at : 0);
    const byAge = keys.map((key, i) => [age(applied[i]), key]).filter(([, key]) => !this.#recent.includes(key)).sort((a, b) => a[0] - b[0]);
    const excess = byAge.slice(0, Math.min(keys.length - OPS_KEPT, OPS_KEPT));
    await Promise.all(excess.map(([, key]) => this.#store.deleteSessionState(id, key)));
  }
}
