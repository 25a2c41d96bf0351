// Guards every method of the exported classes; scripts/package.mjs wires it
// into wasm-bindgen's glue. The glue passes `this.__wbg_ptr` to wasm as is:
// 0 after free() throws an untyped "null pointer passed to rust", and
// another class's pointer is read as this class's memory. So a method on a
// freed instance is FREED, one called with a wrong `this` is INVALID_THIS,
// and an async method rejects rather than throws.
//
// A `__wbg_ptr` set by hand, on an object made from the prototype or over a
// live one's, would have wasm read whatever memory it names. So a pointer
// counts only while the glue has it out for that class, and an instance
// the glue made only while it holds its own. A Proxy over an instance
// (Vue's reactive, Pinia state) is no key of `issued`: its pointer must be
// live, which is all a Proxy can show.
const issued = new WeakMap();
const live = new Map();

export function born(self, Class) {
  issued.set(self, self.__wbg_ptr);
  if (!live.has(Class)) live.set(Class, new Set());
  live.get(Class).add(self.__wbg_ptr);
}

// `self` when freed by hand: its pointer, were it put back, is no longer its.
export function died(Class, ptr, self) {
  live.get(Class)?.delete(ptr);
  if (self !== undefined) issued.set(self, 0);
}

export function alive(self, Class) {
  try {
    const ptr = self instanceof Class ? self.__wbg_ptr : 0;
    return ptr !== 0 && live.get(Class)?.has(ptr) === true && (!issued.has(self) || issued.get(self) === ptr);
  } catch {
    // A revoked Proxy throws on instanceof.
    return false;
  }
}

export function refuse(self, Class, async) {
  let freed = false;
  try {
    freed = self instanceof Class && self.__wbg_ptr === 0;
  } catch {
    // A revoked Proxy: not a live instance.
  }
  const error = new Error(freed
    ? `this ${Class.name} was freed; create a new one`
    : `called with a \`this\` that is not a live ${Class.name}`);
  error.name = "AttacheError";
  error.code = freed ? "FREED" : "INVALID_THIS";
  if (async) return Promise.reject(error);
  throw error;
}
