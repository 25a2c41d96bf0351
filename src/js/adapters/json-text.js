// What both adapters do to JSON before storing it, and to text they show
// in an error. The store refuses a
// string with a lone surrogate (UTF-8 cannot hold one), and text cut
// through an emoji has one: it becomes U+FFFD, as TextEncoder makes it.
// Not a subpath export: the adapters import it.
import { redactCredentials } from "./attache.js";

// A lone surrogate escaped: `\u` after an even run of backslashes (kept in
// `$1`), so `\\ud800`, text, is left alone; a high one not followed by a
// low one, or a low one not after a high one. A pair stays: JSON.stringify
// writes none escaped, but a model's tool arguments may (Python's
// ensure_ascii does).
const HIGH = "\\\\u[dD][89abAB][0-9a-fA-F]{2}";
const LOW = "\\\\u[dD][c-fC-F][0-9a-fA-F]{2}";
const LONE_ESCAPE = new RegExp(`(?<!\\\\)((?:\\\\\\\\)*)(?:${HIGH}(?!${LOW})|(?<!${HIGH})${LOW})`, "g");

/**
 * `text` as a key's component. One holding a lone surrogate has no URI
 * form: `refusal()` is thrown, typed as the adapter's framework wants, not
 * a URIError.
 */
export function uriComponent(text, refusal) {
  try {
    return encodeURIComponent(text);
  } catch (e) {
    if (!(e instanceof URIError)) throw e;
    throw refusal();
  }
}

/** JSON.parse and JSON.stringify as they were at load: a page's replacement (reviving dates, masking text) would change what is stored. */
/**
 * A host's text as an error's message may show it: no secret, and cut, as
 * a log keeps it (a model's runaway output would fill it). `undefined`
 * where it cannot be read (a lone surrogate, a throwing toString).
 */
export function shownText(value) {
  try {
    const text = redactCredentials(String(value)).value;
    return text.length > 200 ? `${text.slice(0, 200)}…` : text;
  } catch {
    return undefined;
  }
}

/**
 * The kind of the first credential in a key's parts, if any: URI-encoded
 * into a key (`%3A`, `%40`), the store's guard would no longer see it.
 */
export const credentialKind = (parts) => redactCredentials(parts).redactions[0]?.kind;

export const parseJson = JSON.parse;
export const stringifyJson = JSON.stringify;

/**
 * A fraction in [0, 1) from crypto where there is one: a test's mocked or
 * a seeded Math.random repeats itself.
 */
export function randomFraction() {
  const crypto = globalThis.crypto;
  return typeof crypto?.getRandomValues === "function" ? crypto.getRandomValues(new Uint32Array(1))[0] / 2 ** 32 : Math.random();
}

/** How many keys the objects in `value` hold, all told. */
function keyCount(value) {
  let count = 0;
  const pending = [value];
  while (pending.length > 0) {
    const v = pending.pop();
    if (v === null || typeof v !== "object") continue;
    const values = Object.values(v);
    if (!Array.isArray(v)) count += values.length;
    for (const inner of values) pending.push(inner);
  }
  return count;
}

/**
 * JSON text with each escaped lone surrogate made `\ufffd`. Where that
 * makes two keys of an object one (`"\ud800"` beside `"\ufffd"`), JSON.parse
 * would keep only the last, so `refusal()` is thrown instead, if given.
 */
export function wellFormedJson(text, refusal) {
  const fixed = text.replace(LONE_ESCAPE, "$1\\ufffd");
  if (refusal && fixed !== text && keyCount(parseJson(fixed)) !== keyCount(parseJson(text))) throw refusal();
  return fixed;
}

const lineEnd = (c) => c === 0x0a || c === 0x0d || c === 0x2028 || c === 0x2029;

/**
 * `text` with each JSON string in it, quotes and all, passed through
 * `fn`. A string left open ends its line unread. A loop, not a regex: a
 * line of megabytes of escapes would overflow a regex's stack.
 */
export function eachString(text, fn) {
  let out = "";
  let last = 0;
  for (let at = text.indexOf('"'); at !== -1; ) {
    let end = at + 1;
    for (; end < text.length; end++) {
      const c = text.charCodeAt(end);
      if (c === 0x22 || lineEnd(c) || (c === 0x5c && lineEnd(text.charCodeAt(++end)))) break;
    }
    if (text.charCodeAt(end) !== 0x22) {
      at = text.indexOf('"', end);
      continue;
    }
    out += text.slice(last, at) + fn(text.slice(at, end + 1));
    last = end + 1;
    at = text.indexOf('"', last);
  }
  return last === 0 ? text : out + text.slice(last);
}

/** How deep JSON text nests, strings skipped. */
export function depthOf(text) {
  let depth = 0;
  let max = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 34) {
      for (i++; i < text.length && text.charCodeAt(i) !== 34; i++) if (text.charCodeAt(i) === 92) i++;
    } else if (c === 91 || c === 123) {
      max = Math.max(max, ++depth);
    } else if (c === 93 || c === 125) {
      depth--;
    }
  }
  return max;
}
