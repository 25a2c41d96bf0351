// Two connections to one database, a page's and its module worker's, in
// whichever engine loads this: tabs.test.mjs's checks of two pages in
// Chromium (concurrent appends, a delete the other sees), and a race of
// commits on one expectedCount, for Firefox and WebKit too.
import init, * as attache from "/pkg/attache.js";

const ready = init();
const ms = 20000;
/** `f()`'s value, or the AttacheError's code; anything else, or a hang, throws. */
async function settle(what, f) {
  let timer;
  const hang = new Promise((_, reject) => { timer = setTimeout(() => reject(new Error(`${what} hung`)), ms); });
  try {
    return { value: await Promise.race([f(), hang]) };
  } catch (e) {
    if (!attache.isAttacheError(e)) throw new Error(`${what}: not an AttacheError: ${e}`);
    return { code: e.code, message: e.message };
  } finally {
    clearTimeout(timer);
  }
}

const stores = new Map();
const open = async (name) => {
  await ready;
  if (!stores.has(name)) stores.set(name, await attache.IdbSessionStore.open({ name }));
  return stores.get(name);
};

/** The steps either context runs, by name; each settles, never throws for a code. */
export const steps = {
  async commit({ name, round, writer }) {
    const store = await open(name);
    return settle(`commit ${writer} ${round}`, () => store.commitTurn("s", {
      expectedCount: round,
      messages: [{ role: "user", content: `${writer} ${round}` }],
      frames: [{ requestId: `${writer} ${round}`, frames: [{ writer, round }] }],
    }));
  },
  async append({ name, writer, count }) {
    const store = await open(name);
    const out = [];
    for (let i = 0; i < count; i++) out.push(await settle(`append ${writer} ${i}`, () => store.appendActivityFrames("s", "turn", [{ writer, i }])));
    return out;
  },
  async call({ name, method, args }) {
    const store = await open(name);
    return settle(method, () => store[method](...args));
  },
};

/** In the page: a module worker that runs `steps` on request. */
export function peer() {
  const worker = new Worker(new URL("./peer.mjs", import.meta.url), { type: "module" });
  let next = 0;
  const waiting = new Map();
  worker.onmessage = ({ data }) => {
    waiting.get(data.id)?.(data);
    waiting.delete(data.id);
  };
  worker.onerror = (e) => { for (const done of waiting.values()) done({ thrown: e.message ?? "worker error" }); };
  return (step, args) => new Promise((resolve, reject) => {
    const id = next++;
    waiting.set(id, (data) => (data.thrown ? reject(new Error(`worker: ${data.thrown}`)) : resolve(data.value)));
    worker.postMessage({ id, step, args });
  });
}

/** Every scenario, in the page; the test asserts on what it returns. */
export async function run(rounds = 100, count = 300) {
  const worker = peer();
  const name = `contexts-${Date.now()}`;
  const here = await open(name);
  await here.createSession({ id: "s" });
  // A message takes a while to reach the worker, and its transaction longer
  // to begin (WebKit's lost every round at once): the page waits 0 to 4 ms
  // before its commit, by turns.
  const race = [];
  for (let round = 0; round < rounds; round++) {
    const mine = new Promise((resolve) => setTimeout(resolve, round % 5))
      .then(() => steps.commit({ name, round, writer: "page" }));
    race.push(await Promise.all([mine, worker("commit", { name, round, writer: "worker" })]));
  }
  const messages = (await steps.call({ name, method: "loadMessages", args: ["s"] })).value;
  const committed = (await steps.call({ name, method: "loadActivityFrames", args: ["s"] })).value;
  // Appends from both at once, to one request.
  const appended = await Promise.all([steps.append({ name, writer: "page", count }), worker("append", { name, writer: "worker", count })]);
  const frames = (await steps.call({ name, method: "loadActivityFrames", args: ["s", "turn"] })).value;
  // The worker's connection has written before the page deletes the session.
  const deleted = (await steps.call({ name, method: "deleteSession", args: ["s"] })).value;
  const afterDelete = await worker("call", { name, method: "appendActivityFrames", args: ["s", "turn", [{ late: true }]] });
  const left = await worker("call", { name, method: "loadActivityFrames", args: ["s"] });
  // JSON both ways (WebDriver drops undefined): "ok" or the code.
  const outcome = (settled) => settled.code ?? "ok";
  return {
    race: race.map((both) => both.map(outcome)),
    messages: messages.map((m) => m.content),
    committed: committed.map((f) => `${f.writer} ${f.round}`),
    appended: appended.flat().map(outcome).filter((o) => o !== "ok"),
    frames,
    deleted,
    afterDelete: outcome(afterDelete),
    left: left.value,
  };
}
