// Guards every method of the exported classes; scripts/package.mjs wires it
// into wasm-bindgen's glue. The glue passes `this.__wbg_ptr` to wasm as is:
// 0 after free() throws an untyped "null pointer passed to rust", and
// another class's pointer is read as this class's memory. So a method on a
// freed instance is FREED, one called with a wrong `this` is INVALID_THIS,
// and an async method rejects rather than throws.
export function alive(self, Class) {
  return self instanceof Class && typeof self.__wbg_ptr === "number" && self.__wbg_ptr !== 0;
}

export function refuse(self, Class, async) {
  const freed = self instanceof Class;
  const error = new Error(freed
    ? `this ${Class.name} was freed; create a new one`
    : `called with a \`this\` that is not a live ${Class.name}`);
  error.name = "AttacheError";
  error.code = freed ? "FREED" : "INVALID_THIS";
  if (async) return Promise.reject(error);
  throw error;
}
