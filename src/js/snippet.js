// Every JS helper the wasm imports, in one module: each snippet file is one
// more module request when a page or worker starts (in service workers,
// three of them made startup fail now and then; see git log).

// ---- JSON data: checked and serialized before anything is copied in ----
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
// Native in current engines; the regex only where it is missing. Bound
// now: a page that prunes or replaces it later changes nothing here.
const isWellFormed = String.prototype.isWellFormed?.call.bind(String.prototype.isWellFormed);
const illFormed = isWellFormed ? (s) => !isWellFormed(s) : (s) => LONE_SURROGATE.test(s);

// The most one value may hold: a bound on the wasm memory one call can
// take, whatever it is given (wasm memory never shrinks). A session's
// export of 100,000 frames is about a tenth of either. Text is counted in
// UTF-16 code units, as JS strings are.
const MAX_ITEMS = 4_000_000;
// As the engine had it at load: a page's replacement (one that masks
// e-mail addresses, one that sorts keys) would change what is stored.
const stringify = JSON.stringify;
const MAX_TEXT = 64 * 1024 * 1024;
// A session document's text is bounded as an export's (src/text.rs), in
// UTF-8 bytes, and its items at 16 times a value's (some 16M frames).
const MAX_EXPORT = 2 ** 29 - 24;
// As src/json/text.rs: past PARSE_DEPTH the walk stops, naming where.
const MAX_DEPTH = 128;
const PARSE_DEPTH = MAX_DEPTH + 4;

// Checks that a value is JSON data before it is stored, and returns its JSON
// text. Runs in JS because walking a value from wasm would cross the
// boundary once per property. Throws {path, reason} for the first problem.
// `ids` names, one per line, the paths of ids in it (`frames[].requestId`;
// `state.*`: the keys of `state`), checked as idProblem checks an id
// argument: a problem there is {field, reason}. Matched by structure as the
// walk goes down, so a key holding a dot or named "*" or "[]" is never
// taken for an id's path. `whole`: importSession's document, so that a
// session grown turn by turn past one value's bounds imports again.
export function toJson(value, path, ids, whole) {
  const maxItems = whole ? 16 * MAX_ITEMS : MAX_ITEMS;
  const seen = new Set();
  // The paths of the objects and arrays being walked.
  const trail = [];
  let items = 0;
  // As JS would reach it: `at.key`, or `at["a.b"]` for a key no identifier.
  const field = (at, key) => (/^[A-Za-z_$][\w$]*$/.test(key) ? (at ? `${at}.${key}` : key) : `${at}[${stringify(key)}]`);
  // Each id path as the steps left to it: a key, "[]" for any item, "*" for keys.
  const steps = ids ? ids.split("\n").filter((p) => p.startsWith(path)).map((p) => p.slice(path.length).match(/\[\]|[^.[\]]+/g) ?? []) : [];
  // An item takes the "[]" step; a key its name, but a key named "[]" or "*" no step.
  const down = (pats, step, key) => (pats.length ? pats.filter((t) => t[0] === step && !(key && (step === "[]" || step === "*"))).map((t) => t.slice(1)) : pats);
  // A getter, a toJSON or a Proxy's trap that throws is named at its own
  // path, with what it threw as the cause.
  const host = (at, reason, f) => {
    try {
      return f();
    } catch (cause) {
      throw { path: at, reason, cause };
    }
  };
  const read = (o, k, at) => host(at, "has a getter that threw", () => o[k]);
  // `key` is what JSON.stringify passes to toJSON; `replaced`, that v is a
  // toJSON's result, whose own toJSON JSON.stringify does not call. Returns
  // a copy of what it read: each getter and toJSON runs once, and the copy
  // is what is serialized, so what is stored is what was checked.
  const check = (v, at, key, replaced, pats) => {
    if (++items > maxItems) throw { path: at, reason: `is part of a value of more than ${maxItems} items, more than one value may hold` };
    switch (typeof v) {
      case "string":
        if (pats.length && pats.some((t) => !t.length)) {
          const problem = idProblem(v);
          if (problem) throw { field: at, reason: problem };
        }
        if (illFormed(v)) throw { path: at, reason: "holds a lone surrogate, which UTF-8 cannot hold" };
        return v;
      case "boolean":
        return v;
      case "number":
        if (!Number.isFinite(v)) throw { path: at, reason: `is ${v}, which JSON cannot hold` };
        return v;
      case "object":
        break;
      default:
        // undefined here is what a toJSON returned.
        throw { path: at, reason: `is ${v === undefined ? "undefined" : `a ${typeof v}`}, which JSON cannot hold` };
    }
    if (v === null) return v;
    if (seen.has(v)) throw { path: at, reason: "refers back to itself (a cycle)" };
    const trap = "threw when read (a Proxy's trap or a getter)";
    const [array, plain] = host(at, trap, () => {
      const array = Array.isArray(v);
      return [array, array || isPlain(v)];
    });
    if (!plain) {
      // A URL is its href, as JSON.stringify writes it: the AI SDK's file
      // parts hold URL objects.
      const href = hrefOf(v);
      if (typeof href === "string") return check(href, at, key, true, pats);
      const name = host(at, trap, () => v.constructor?.name);
      throw { path: at, reason: `is a ${name ?? "non-plain object"}, not a plain object` };
    }
    seen.add(v);
    // JSON.stringify stores what a toJSON method returns (own or inherited,
    // a MobX array's, say), so that is what is checked.
    const toJSON = replaced ? undefined : host(at, trap, () => v.toJSON);
    const out = typeof toJSON === "function" ? host(at, "has a toJSON that threw", () => toJSON.call(v, key)) : v;
    let result;
    if (out !== v) {
      result = check(out, at, key, true, pats);
    } else if (trail.push(at) > PARSE_DEPTH) {
      throw { path: trail[trail.length - MAX_DEPTH - 1], reason: `nests more than ${MAX_DEPTH} levels deep` };
    } else if (array) {
      result = [];
      const itemPats = down(pats, "[]");
      // Every index: forEach skips holes, which JSON.stringify writes as null.
      // A number once: a Proxy's length may be an object whose valueOf runs.
      for (let i = 0, length = host(at, trap, () => +v.length); i < length; i++) {
        const item = read(v, i, `${at}[${i}]`);
        if (item === undefined) throw { path: `${at}[${i}]`, reason: "is undefined or a hole, which JSON cannot hold" };
        result.push(check(item, `${at}[${i}]`, String(i), false, itemPats));
      }
    } else {
      // Null-prototype, so a "__proto__" key stays a key.
      result = Object.create(null);
      const keysAreIds = pats.some((t) => t.length === 1 && t[0] === "*");
      for (const k of host(at, trap, () => Object.keys(v))) {
        const problem = keysAreIds && idProblem(k);
        if (problem) throw { field: at, reason: `has a key that ${problem}` };
        if (illFormed(k)) throw { path: at, reason: "has a key with a lone surrogate, which UTF-8 cannot hold" };
        const where = field(at, k);
        const item = read(v, k, where);
        // Absent and undefined mean the same, as in JSON.stringify.
        if (item !== undefined) result[k] = check(item, where, k, false, down(pats, k, true));
      }
    }
    if (out === v) trail.pop();
    seen.delete(v);
    return result;
  };
  const text = stringify(check(value, path, "", false, steps));
  // A copy, but only of a document over MAX_TEXT.
  if (text.length > MAX_TEXT && (!whole || new TextEncoder().encode(text).length > MAX_EXPORT))
    throw { path, reason: `is more than ${whole ? `${MAX_EXPORT} bytes` : `${MAX_TEXT} characters`} of JSON text, more than one value may hold` };
  return text;
}

// The getter checks its receiver is a URL (a look-alike tagged "URL" is
// not), and reads the URL's own value, whatever a subclass's toJSON says.
const HREF = typeof URL === "function" ? Object.getOwnPropertyDescriptor(URL.prototype, "href")?.get : undefined;
function hrefOf(v) {
  try {
    return HREF?.call(v);
  } catch {
    return undefined;
  }
}

// Plain in any realm: an iframe's or a sandbox's objects have their own
// Object.prototype, so compare the shape of the chain, not identity.
function isPlain(v) {
  const proto = Object.getPrototypeOf(v);
  return (proto === null || Object.getPrototypeOf(proto) === null) &&
    Object.prototype.toString.call(v) === "[object Object]";
}

// Ids (session ids, keys, request ids, attachment ids, database names) are
// checked here, before anything is copied into wasm: a non-string could
// trap the glue, a huge one would grow wasm memory for good, and a lone
// surrogate would silently become U+FFFD. Returns the problem, or null.
export function idProblem(value) {
  if (typeof value !== "string") return `must be a string, not ${value === null ? "null" : typeof value}`;
  if (value.length > 4096) return "must be at most 4096 UTF-16 code units long";
  if (illFormed(value)) {
    return "holds a lone surrogate, which UTF-8 cannot hold";
  }
  return null;
}

// ---- Calls that may throw, without wasm-bindgen's `catch` ----
// A `catch` import that returns a value keeps a slot for the value it
// never returned when it throws: wasm memory grew about 11 bytes a throw,
// without bound (a getter that throws, a counter that throws, called
// 200,000 times: 2 MiB). These return THREW instead and keep what was
// thrown for takeThrown().
const THREW = Symbol("attache.threw");
let thrown;
const attempt = (f) => {
  try {
    return f();
  } catch (e) {
    thrown = e;
    return THREW;
  }
};
export const tryGet = (target, key) => attempt(() => Reflect.get(target, key));
// attache's own JSON text out, through the engine's JSON.parse as it was
// at load: a page's reviving replacement (dates) would change its values.
const parse = JSON.parse;
export const tryParse = (text) => attempt(() => parse(text));
export const tryPrototype = (value) => attempt(() => Reflect.getPrototypeOf(value));
export const tryOwnKeys = (value) => attempt(() => Reflect.ownKeys(value));
// One name per arity: wasm imports of one name must have one signature.
export const tryCall0 = (f, self) => attempt(() => f.call(self));
export const tryCall1 = (f, self, arg) => attempt(() => f.call(self, arg));
export const threw = (value) => value === THREW;
export function takeThrown() {
  const e = thrown;
  thrown = undefined;
  return e;
}

// The host's clock, which a test's mock may break: a throw or a value that
// is not a number (a BigInt) is NaN, which the stores read as 0. A throw
// through wasm would hang an IndexedDB call, its connection held.
export function now() {
  try {
    const t = Date.now();
    return typeof t === "number" ? t : NaN;
  } catch {
    return NaN;
  }
}

// Array.isArray throws on a revoked Proxy; here that is "not an array".
export function isArray(value) {
  try {
    return Array.isArray(value);
  } catch {
    return false;
  }
}

// An array's items, read once by index: a length past `max` cannot run
// long (its iterator, which Array.from would call, is never used).
// Returns a plain array, or why not (`notArray`), or THREW: what a Proxy's
// trap or a getter threw is kept as the error's cause.
export const tryArrayItems = (value, max, notArray) =>
  attempt(() => {
    if (!Array.isArray(value)) return notArray;
    const length = value.length;
    if (!(length <= max)) return `must hold at most ${max} items`;
    return Array.from({ length }, (_, i) => value[i]);
  });

// ---- The consolidated message's objects ----
// Built in JS so one call makes each; frozen, since every caller shares
// the same objects.
export function textPart(text) {
  return Object.freeze({ type: "text", text });
}

export function userMessage(parts) {
  return Object.freeze({ role: "user", content: Object.freeze(parts) });
}

// Promises made here are the engine's as it had them at load: the wasm
// awaits them, and a page's later polyfill that settles on a macrotask
// would resume it after the transaction auto-committed (every write
// ABORTED).
const Native = Promise;

// ---- onRedact ----
// In a microtask: queued before the call's promise resolves, run after the
// call returns. What the listener throws or rejects with cannot undo the
// write, so it is dropped (an async listener's rejection too).
export function tellLater(listener, event) {
  Native.resolve().then(() => listener(event)).catch(() => {});
}

// ---- IndexedDB: a wait that ends with its connection ----
// The browser fires `close` once every transaction of the connection has
// ended. Firefox, clearing site data, leaves one begun just before that
// unsettled for good: at `close`, the wait ends as a lost connection
// (from_dom in src/error.rs reads "clos" in the message as that).
function untilClosed(db, end) {
  const lost = () => end(new DOMException("The connection was closed.", "AbortError"));
  db?.addEventListener("close", lost);
  return () => db?.removeEventListener("close", lost);
}

// ---- IndexedDB: how a write transaction settled ----
// Watches a write transaction from the moment it opens, in JS so no Rust
// closure can outlive it. Resolves with the error to report, or null: a
// call resolves only if its transaction completed and none of its requests
// failed (a failure the transaction survived, because a handler prevented
// its abort, still fails the call). The first failing request's error is
// kept because WebKit leaves `tx.error` null on such an abort.
export function settle(tx) {
  let first = null;
  tx.addEventListener("error", (event) => {
    first ??= event.target?.error ?? null;
  });
  return new Native((resolve) => {
    // A request's failure, already seen, is still the one to report.
    const stop = untilClosed(tx.db, (lost) => resolve(first ?? lost));
    const end = (error) => {
      stop();
      resolve(error);
    };
    tx.addEventListener("complete", () => end(first));
    tx.addEventListener("abort", () => end(first ?? tx.error ?? new DOMException("the transaction was aborted", "AbortError")));
  });
}

// ---- IndexedDB: one open for a burst of calls ----
// A promise and the function that resolves it: calls made while the
// connection opens wait on it rather than open their own.
export function latch() {
  let open;
  const wake = new Native((resolve) => (open = resolve));
  return [wake, open];
}

// ---- IndexedDB: a request's outcome ----
// Resolves with the request's result once it succeeds, rejects with its
// error, or as lost at its connection's close; in JS, as settle is, so no
// Rust closure outlives the request. A cursor's request succeeds again
// after each continue(): wait once more.
export function done(request) {
  return new Native((resolve, reject) => {
    const stop = untilClosed(request.transaction?.db, reject);
    request.onsuccess = () => {
      stop();
      resolve(request.result);
    };
    request.onerror = () => {
      stop();
      reject(request.error);
    };
  });
}
