// Guards every method of the exported classes; scripts/package.mjs wires it
// into wasm-bindgen's glue. The glue passes `this.__wbg_ptr` to wasm as is:
// 0 after free() throws an untyped "null pointer passed to rust", and
// another class's pointer is read as this class's memory. So a method on a
// freed instance is FREED, one called with a wrong `this` is INVALID_THIS,
// and an async method rejects rather than throws.
//
// A `__wbg_ptr` set by hand, on an object made from the prototype or over a
// live one's, would have wasm read whatever memory it names: an instance is
// live only while it holds the pointer the glue gave it.
const issued = new WeakMap();

export function born(self) {
  issued.set(self, self.__wbg_ptr);
}

export function alive(self, Class) {
  return self instanceof Class && self.__wbg_ptr !== 0 && issued.get(self) === self.__wbg_ptr;
}

export function refuse(self, Class, async) {
  const freed = self instanceof Class && issued.has(self) && self.__wbg_ptr === 0;
  const error = new Error(freed
    ? `this ${Class.name} was freed; create a new one`
    : `called with a \`this\` that is not a live ${Class.name}`);
  error.name = "AttacheError";
  error.code = freed ? "FREED" : "INVALID_THIS";
  if (async) return Promise.reject(error);
  throw error;
}
