// Guards every method of the exported classes; scripts/package.mjs wires it
// into wasm-bindgen's glue. wasm-bindgen's glue passes `this.__wbg_ptr` to
// wasm as is: 0 after free() throws an untyped "null pointer passed to
// rust", and another class's pointer is read as this class's memory. So a
// method on a freed instance is FREED, one called with a wrong `this` is
// INVALID_THIS, and an async method rejects rather than throws.
//
// `__wbg_ptr` is not trusted at all: a getter, a Proxy or a prototype's
// accessor can answer anything. Each instance gets a token (below) under a
// module-private symbol, fixed when the glue makes it (before a host could
// freeze it); a Proxy over an instance (Vue's reactive or readonly, Pinia
// state) reads the target's. A token counts only while it is the one live
// for its pointer and class, so a stale token never reaches memory since
// handed to another instance. The finalizer holds the token too: an
// instance freed through a Proxy is not freed again once collected.
const TOKEN = Symbol("attache.token");
const live = new Map();
// A token is an empty object, its pointer kept here: SES's harden() may
// freeze the token, yet free() still marks it gone; no host can forge the
// pointer the finalizer frees; and reading an object that is no token (a
// Proxy over one, a copy) gives undefined, never a throw.
const pointers = new WeakMap();
export const pointerOf = (token) => pointers.get(token);

export function born(self, Class, ptr) {
  // Frozen: Vue's reactive() wraps what a get returns unless it is not
  // extensible, and a wrapped token breaks the Proxy invariant of the
  // read-only property that holds it.
  const token = Object.freeze({ __proto__: null });
  pointers.set(token, ptr);
  // Null-prototype descriptors: defineProperty reads an inherited `get`.
  Object.defineProperty(self, TOKEN, { __proto__: null, value: token });
  if (!live.has(Class)) live.set(Class, new Map());
  live.get(Class).set(ptr, token);
  return token;
}

export function died(Class, ptr, self) {
  const tokens = live.get(Class);
  const token = tokens?.get(ptr);
  if (token !== undefined) {
    pointers.set(token, 0);
    tokens.delete(ptr);
  }
  try {
    if (self !== undefined) self.__wbg_ptr = 0;
  } catch {
    // A getter-only or frozen pointer: the token already says it is gone.
  }
}

function tokenOf(self, Class) {
  try {
    return self instanceof Class ? self[TOKEN] : undefined;
  } catch {
    // A revoked Proxy throws on instanceof.
    return undefined;
  }
}

// The pointer to hand wasm, read once, or 0 (refused: see refuse). free()
// passes `any`: a `finally` may call it anywhere, up to HELPERS deep, and
// past that it is refused before the object is marked gone.
export function alive(self, Class, any) {
  return depth >= (any ? HELPERS : DEPTH) ? 0 : pointer(self, Class);
}

function pointer(self, Class) {
  const token = tokenOf(self, Class);
  const ptr = pointerOf(token);
  return ptr && live.get(Class)?.get(ptr) === token ? ptr : 0;
}

export function freed(self, Class) {
  return pointerOf(tokenOf(self, Class)) === 0;
}

function attacheError(code, message) {
  const error = new Error(message);
  // Defined, not set: with Error.prototype frozen, setting `name` throws.
  Object.defineProperty(error, "name", { __proto__: null, value: "AttacheError", writable: true, enumerable: true, configurable: true });
  Object.defineProperty(error, "code", { __proto__: null, value: code, writable: true, enumerable: true, configurable: true });
  return error;
}

export function refuse(self, Class, async) {
  const gone = freed(self, Class);
  // A live object refused is refused for the depth alone.
  const error = pointer(self, Class) ? nested() : attacheError(gone ? "FREED" : "INVALID_THIS", gone
    ? `this ${Class.name} was freed; create a new one`
    : `called with a \`this\` that is not a live ${Class.name}`);
  if (async) return Promise.reject(error);
  throw error;
}

// Every entry into the wasm, from the glue. A counter, getter or toJSON
// that calls attache, which calls it back, and so on, would run the wasm's
// 1 MiB stack out and trap the module for good: past DEPTH nested entries a
// call is BUSY. Methods refuse it first (an async one rejects), as does
// `open`, the one async static. The glue's own helpers (malloc, frees,
// closures) and isAttacheError, which a catch block calls, are let through
// up to HELPERS deep: refused inside a call already let in, they would
// unwind it past its drops and leave its object borrowed for good. Only a
// recursion through them reaches HELPERS (a getter isAttacheError reads, a
// patched close() that frees). A JS exception or a trap unwinding through
// the wasm skips its frames' epilogues, which would leave the stack pointer
// where they moved it (a BUSY in a loop: 128 B each, until the module
// traps): each entry puts it back.
const DEPTH = 16;
const HELPERS = 256;
let depth = 0;
const nested = () => attacheError("BUSY", `attache calls are nested ${depth} deep (a counter, getter or toJSON calling attache, which called it back); call it again once the outer call returns`);

export function entries(exports, sp, open, helpers) {
  const stack = exports[sp];
  const entry = (name, f) => (...args) => {
    if (depth >= DEPTH && (depth >= HELPERS || !helpers.includes(name))) {
      if (name === open) return Promise.reject(nested());
      throw nested();
    }
    const at = stack.value;
    depth++;
    try {
      return f(...args);
    } catch (e) {
      stack.value = at;
      throw e;
    } finally {
      depth--;
    }
  };
  return Object.fromEntries(Object.entries(exports).map(([name, f]) => [name, typeof f === "function" ? entry(name, f) : f]));
}

// What wasm-bindgen throws from inside the wasm, typed. A getter, a toJSON
// or a counter that calls back into the instance whose call is reading it
// meets wasm-bindgen's borrow check: BUSY, and the outer call goes on.
export function thrown(message) {
  if (/^(recursive use of an object|attempted to take ownership)/.test(message)) {
    return attacheError("BUSY", "this object is in use by a call still running (a getter, toJSON or counter called back into it); call it again once that call returns");
  }
  if (/^null pointer passed to rust/.test(message)) {
    return attacheError("FREED", "this object was freed; create a new one");
  }
  return new Error(message);
}
