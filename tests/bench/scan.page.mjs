// Runs in the benchmark page: what the credential guard costs. A memory
// store saves 1 MiB as one session-state value, so only conversion and
// the guard run (no IndexedDB): prose, whose every string is scanned, and
// the same prose holding 64 keys, redacted (and then checked again, as
// every stored value is). ms per save, medians.
const MiB = 1 << 20;
const median = (xs) => xs.slice().sort((a, b) => a - b)[xs.length >> 1];

function timed(f, rounds) {
  f(0);
  const times = [];
  for (let i = 1; i <= rounds; i++) {
    const t = performance.now();
    f(i);
    times.push(performance.now() - t);
  }
  return median(times);
}

export async function scanBench(attache, prose, rounds = 15) {
  let text = "";
  while (text.length < MiB) text += prose;
  text = text.slice(0, MiB);
  const key = "sk-proj-" + "Zx9".repeat(16);
  const step = Math.floor(MiB / 64);
  let keyed = "";
  for (let at = 0; at < MiB; at += step) keyed += text.slice(at, at + step - key.length - 1) + " " + key;
  const save = (store, value) => {
    const id = "bench";
    store.createSession({ id });
    return timed((i) => store.saveSessionState(id, `k${i % 4}`, value), rounds);
  };
  const refusing = new attache.MemorySessionStore();
  const redacting = new attache.MemorySessionStore({ credentials: "redact" });
  const result = {
    bytes: MiB,
    prose: save(refusing, { text }),
    redacted64: save(redacting, { text: keyed }),
  };
  const stored = await redacting.loadSessionState("bench", "k1");
  if (stored.text.includes(key) || !stored.text.includes("[REDACTED:openai_key]")) throw new Error("the bench did not redact");
  return result;
}
