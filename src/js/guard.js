// Guards every method of the exported classes; scripts/package.mjs wires it
// into wasm-bindgen's glue. wasm-bindgen's glue passes `this.__wbg_ptr` to
// wasm as is: 0 after free() throws an untyped "null pointer passed to
// rust", and another class's pointer is read as this class's memory. So a
// method on a freed instance is FREED, one called with a wrong `this` is
// INVALID_THIS, and an async method rejects rather than throws.
//
// A pointer is read once, here, and the method hands wasm that value: a
// getter or Proxy could answer a second read with anything. An instance the
// glue made is known by its token, whatever its `__wbg_ptr` now says; a
// Proxy over one (Vue's reactive, Pinia state) is no key of `issued`, so its
// pointer, read once, must be one the glue has out for that class. The
// finalizer holds the token, not the pointer: an instance freed through a
// Proxy is not freed again once collected.
const issued = new WeakMap();
const live = new Map();

export function born(self, Class) {
  const token = { ptr: self.__wbg_ptr };
  issued.set(self, token);
  if (!live.has(Class)) live.set(Class, new Map());
  live.get(Class).set(token.ptr, token);
  return token;
}

export function died(Class, ptr, self) {
  const tokens = live.get(Class);
  const token = tokens?.get(ptr);
  if (token !== undefined) {
    token.ptr = 0;
    tokens.delete(ptr);
  }
  try {
    if (self !== undefined) self.__wbg_ptr = 0;
  } catch {
    // A getter-only pointer: the token already says it is gone.
  }
}

// The pointer to hand wasm, or 0.
export function alive(self, Class) {
  try {
    if (!(self instanceof Class)) return 0;
    const own = issued.get(self);
    if (own !== undefined) return own.ptr;
    const ptr = self.__wbg_ptr;
    return live.get(Class)?.has(ptr) === true ? ptr : 0;
  } catch {
    // A revoked Proxy throws on instanceof.
    return 0;
  }
}

export function freed(self, Class) {
  try {
    if (!(self instanceof Class)) return false;
    const own = issued.get(self);
    return own !== undefined ? own.ptr === 0 : self.__wbg_ptr === 0;
  } catch {
    return false;
  }
}

function attacheError(code, message) {
  const error = new Error(message);
  error.name = "AttacheError";
  error.code = code;
  return error;
}

export function refuse(self, Class, async) {
  const gone = freed(self, Class);
  const error = attacheError(gone ? "FREED" : "INVALID_THIS", gone
    ? `this ${Class.name} was freed; create a new one`
    : `called with a \`this\` that is not a live ${Class.name}`);
  if (async) return Promise.reject(error);
  throw error;
}

// What wasm-bindgen throws from inside the wasm, typed. A getter, a counter
// or onRedact that calls back into the instance whose call is reading it
// meets wasm-bindgen's borrow check: BUSY, and the outer call goes on.
export function thrown(message) {
  if (/^(recursive use of an object|attempted to take ownership)/.test(message)) {
    return attacheError("BUSY", "this object is in use by a call still running (a getter, counter or onRedact called back into it); call it again once that call returns");
  }
  if (/^null pointer passed to rust/.test(message)) {
    return attacheError("FREED", "this object was freed; create a new one");
  }
  return new Error(message);
}
