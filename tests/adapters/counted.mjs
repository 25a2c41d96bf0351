// A store that records the name of every method called on it, so a test
// can say how many round trips an adapter's call costs.
export function counted(store) {
  const calls = [];
  const proxy = new Proxy(store, {
    get: (target, name) => (typeof target[name] === "function"
      ? (...args) => { calls.push(name); return target[name](...args); }
      : target[name]),
  });
  return { store: proxy, calls };
}
