// Runs in the benchmark page: activity frames in IndexedDB through attache,
// Dexie and raw IndexedDB, each doing the same job: an append is one
// transaction that checks the session exists, adds the frames and bumps
// the session's updatedAt; a load is one request's frames in append order.
// attache keeps each call's frames as one record; Dexie and raw IndexedDB
// keep a record per frame, and Dexie also a record per call, as attache
// does, so the table shows what the layout gives and what the library.
// Times are ms, medians of `runs`.
import Dexie from "/node_modules/dexie/dist/dexie.mjs";

const SESSION = "bench";
const frame = (i) => ({
  type: "tool_call", seq: i, tool: "search",
  input: { query: "attache frames benchmark ".repeat(3).slice(0, 60) },
  output: { hits: 3, ms: 12.5 }, note: "x".repeat(40),
});
const median = (xs) => xs.slice().sort((a, b) => a - b)[xs.length >> 1];
const time = async (f) => {
  const t = performance.now();
  await f();
  return performance.now() - t;
};
const deleteDatabase = (name) => new Promise((resolve, reject) => {
  const request = indexedDB.deleteDatabase(name);
  request.onsuccess = resolve;
  request.onerror = () => reject(request.error);
});
const done = (request) => new Promise((resolve, reject) => {
  request.onsuccess = () => resolve(request.result);
  request.onerror = () => reject(request.error);
});

async function openAttache(attache, name) {
  await deleteDatabase(name);
  const store = await attache.IdbSessionStore.open({ name });
  await store.createSession({ id: SESSION });
  return {
    append: (requestId, frames) => store.appendActivityFrames(SESSION, requestId, frames),
    load: (requestId) => store.loadActivityFrames(SESSION, requestId),
    close: () => { store.close(); store.free(); },
  };
}

// A record per frame, or (`batched`) attache's layout: a record per
// append, holding its frames.
async function openDexie(name, batched = false) {
  await Dexie.delete(name);
  const db = new Dexie(name);
  db.version(1).stores({ sessions: "id", frames: "++seq, [sessionId+requestId], sessionId" });
  await db.sessions.add({ id: SESSION, updatedAt: Date.now() });
  return {
    append: (requestId, frames) => db.transaction("rw", db.sessions, db.frames, async () => {
      const session = await db.sessions.get(SESSION);
      if (!session) throw new Error("no session");
      await db.frames.bulkAdd(batched ? [{ sessionId: SESSION, requestId, frames }] : frames.map((f) => ({ sessionId: SESSION, requestId, frame: f })));
      await db.sessions.put({ ...session, updatedAt: Date.now() });
    }),
    // In primary-key order within the index key: append order.
    load: async (requestId) => (await db.frames.where("[sessionId+requestId]").equals([SESSION, requestId]).toArray()).flatMap((r) => (batched ? r.frames : [r.frame])),
    close: () => db.close(),
  };
}

async function openRaw(name) {
  await deleteDatabase(name);
  const open = indexedDB.open(name, 1);
  open.onupgradeneeded = () => {
    open.result.createObjectStore("sessions", { keyPath: "id" });
    const frames = open.result.createObjectStore("frames", { autoIncrement: true });
    frames.createIndex("by_request", ["sessionId", "requestId"]);
  };
  const db = await done(open);
  const tx = db.transaction("sessions", "readwrite");
  tx.objectStore("sessions").add({ id: SESSION, updatedAt: Date.now() });
  await new Promise((resolve) => { tx.oncomplete = resolve; });
  return {
    append: (requestId, frames) => new Promise((resolve, reject) => {
      const tx = db.transaction(["sessions", "frames"], "readwrite");
      const sessions = tx.objectStore("sessions");
      const get = sessions.get(SESSION);
      get.onsuccess = () => {
        if (!get.result) return tx.abort();
        const store = tx.objectStore("frames");
        for (const f of frames) store.add({ sessionId: SESSION, requestId, frame: f });
        sessions.put({ ...get.result, updatedAt: Date.now() });
      };
      tx.oncomplete = resolve;
      tx.onabort = () => reject(tx.error ?? new Error("aborted"));
    }),
    load: async (requestId) => {
      const tx = db.transaction("frames", "readonly");
      const rows = await done(tx.objectStore("frames").index("by_request").getAll(IDBKeyRange.only([SESSION, requestId])));
      return rows.map((r) => r.frame);
    },
    close: () => db.close(),
  };
}

async function measure(backend, runs) {
  const thousand = Array.from({ length: 1000 }, (_, i) => frame(i));
  const check = (frames, n) => { if (frames.length !== n) throw new Error(`loaded ${frames.length}, expected ${n}`); };
  const out = { scale: {} };
  // Scale: a load of one request's 1,000 frames and a one-frame append,
  // with 1k, 10k and 100k frames stored. "probe" is the first 1,000. Each
  // further 1,000 come as an agent's do: 100 streamed one per call, then
  // 900 in one call, so attache holds about 10,000 records at 100k.
  await backend.append("probe", thousand);
  let stored = 1000;
  for (const size of [1000, 10000, 100000]) {
    for (; stored < size; stored += 1000) {
      for (let i = 0; i < 100; i++) await backend.append(`fill-${stored}`, [thousand[i]]);
      await backend.append(`fill-${stored}`, thousand.slice(100));
    }
    // Let the engine settle after the fill (LevelDB compacts in the
    // background), then warm up appends and loads, so each size is
    // measured alike.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    for (let i = 0; i < 5; i++) await backend.append(`warm-${size}`, [thousand[i]]);
    for (let i = 0; i < 3; i++) check(await backend.load("probe"), 1000);
    const load = median(await series(runs, () => time(async () => check(await backend.load("probe"), 1000))));
    const append = median(await series(runs, (run) => time(() => backend.append(`tick-${size}`, [thousand[run]]))));
    out.scale[size] = { load, append };
  }
  // With 100,000 frames stored: one request's 1,000 frames, 1,000 frames
  // appended in one call, and 200 appended one per call as they stream.
  out.load1000 = out.scale[100000].load;
  out.append1000 = median(await series(runs, (run) => time(() => backend.append(`a${run}`, thousand))));
  const streamed = await series(200, (i) => time(() => backend.append("stream", [thousand[i]])));
  out.appendStreamed = median(streamed);
  out.appendStreamedTotal = streamed.reduce((a, b) => a + b, 0);
  out.loadStreamed = median(await series(runs, () => time(async () => check(await backend.load("stream"), 200))));
  return out;
}

async function series(runs, f) {
  const times = [];
  for (let run = 0; run < runs; run++) times.push(await f(run));
  return times;
}

export async function storeBench(attache, runs = 7) {
  const results = {};
  for (const [label, open] of Object.entries({
    attache: (name) => openAttache(attache, name),
    Dexie: (name) => openDexie(name),
    "Dexie, a record per call": (name) => openDexie(name, true),
    "raw IndexedDB": openRaw,
  })) {
    const name = `bench-${label.replace(/\W/g, "")}`;
    const backend = await open(name);
    try {
      results[label] = await measure(backend, runs);
    } finally {
      backend.close();
      await deleteDatabase(name);
    }
  }
  return results;
}
