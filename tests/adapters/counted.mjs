// A store that records the name of every method called on it, so a test
// can say how many round trips an adapter's call costs, and (`args`) what
// each call was given.
export function counted(store) {
  const calls = [];
  const args = [];
  const proxy = new Proxy(store, {
    get: (target, name) => (typeof target[name] === "function"
      ? (...given) => { calls.push(name); args.push(given); return target[name](...given); }
      : target[name]),
  });
  return { store: proxy, calls, args };
}
