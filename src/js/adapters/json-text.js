// What both adapters need to know of JSON text before storing it: the store
// refuses values nested past 128 levels and strings with a lone surrogate,
// and keeps either as text. Not a subpath export: the adapters import it.

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

/**
 * A lone surrogate as JSON.stringify escapes it (text cut through an
 * emoji): `\u` after an even run of backslashes, the run kept in `$1`.
 */
export const LONE_ESCAPE = /(?<!\\)((?:\\\\)*)\\u[dD][89a-fA-F][0-9a-fA-F]{2}/g;

/** Whether JSON text parses to a value the store takes, at most `depth` deep. */
export function storable(text, depth) {
  LONE_ESCAPE.lastIndex = 0;
  return !LONE_ESCAPE.test(text) && depthOf(text) <= depth;
}
