// estimateTokens and planTurn through the built package, as a host calls them.
import { test, before } from "node:test";
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";

const root = new URL("../../", import.meta.url);
const attache = await import(new URL("pkg/attache.js", root));
const { estimateTokens, planTurn, AttachmentStore, isAttacheError } = attache;
const vectors = JSON.parse(await readFile(new URL("tests/fixtures/token-vectors.json", root), "utf8"));

before(async () => {
  await attache.default({ module_or_path: await readFile(new URL("pkg/attache_bg.wasm", root)) });
});

test("every token vector is reproduced through the JS API", () => {
  for (const [n, c] of vectors.cases.entries()) {
    assert.equal(estimateTokens(c.messages), c.heuristic, `case ${n}: the default is the heuristic`);
    for (const preset of ["heuristic", "openai", "anthropic", "gemini", "local"]) {
      assert.equal(estimateTokens(c.messages, preset), c[preset], `case ${n}: ${preset}`);
    }
  }
});

test("a custom ratio and a host function count as given", () => {
  const messages = [{ role: "user", content: [{ type: "text", text: "a".repeat(37) }] }];
  assert.equal(estimateTokens(messages, { ratio: 3.7, perMessage: 2 }), 12, "37 / 3.7 + 2");
  assert.equal(estimateTokens(messages, (ms) => ms.length * 1000), 1000, "the host's count is used as is");
  // meta is never sent, so a counter that counts the JSON must not see it.
  const withMeta = [{ ...messages[0], meta: { note: "n".repeat(4000) } }];
  assert.equal(estimateTokens(withMeta, (ms) => JSON.stringify(ms).length), JSON.stringify(messages).length);
  const seen = [];
  const attachments = { role: "user", content: [{ type: "text", text: "[Pinned memory: a]\n\nm" }], meta: { note: "n".repeat(4000) } };
  planTurn({ contextWindow: 100_000, history: withMeta, attachments, contributors: withMeta, memories: withMeta, counter: (ms) => { seen.push(JSON.stringify(ms)); return 1; } });
  assert.deepEqual(seen.map((s) => s.includes("meta")), [false, false], "history, and the attachments, contributors and memories, without meta");
  assert.ok(seen[1].includes("Pinned memory"), "the attachments were counted");
  for (const bad of ["gpt", { ratio: 0 }, { ratio: 4, perMessage: -1 }, () => -1, () => -0.5, () => { throw new Error("x"); }]) {
    assert.throws(() => estimateTokens(messages, bad), (e) => isAttacheError(e) && e.code === "INVALID_ARGUMENT", String(bad));
  }
  assert.throws(() => estimateTokens([{ role: "user", content: [{ type: "audio" }] }]), (e) => e.code === "INVALID_VALUE");
  // The ratio is named where it is, however it is wrong; a counter of no
  // kind at all is told every kind it may be.
  for (const bad of [{ ratio: -1 }, { ratio: "4" }, {}]) {
    assert.throws(() => estimateTokens(messages, bad), (e) => e.field === "counter.ratio" && /from 0\.01 to 10000/.test(e.message), JSON.stringify(bad));
  }
  for (const bad of [5, true, Symbol("c"), [], [{ ratio: 4 }]]) {
    assert.throws(() => estimateTokens(messages, bad), (e) => e.field === "counter" && /"heuristic".*or a function/.test(e.message), String(bad));
  }
  // A count past 2^53 - 1 says so, not that it is no whole number.
  assert.throws(() => planTurn({ contextWindow: 2 ** 53, history: 0 }), (e) => e.field === "contextWindow" && /non-negative safe integer/.test(e.message));
});

test("planTurn counts the consolidated message, contributors and memories as the turn's transients", () => {
  const store = new AttachmentStore();
  store.setAttachment({ kind: "memory", slug: "m", memory: "x".repeat(380) });
  const attachments = store.consolidatedMessage();
  const contributors = [{ role: "user", content: "y".repeat(80) }];
  // "[Pinned memory: m]\n\n" and 380 x's, then 80 y's, each message 20
  // more: (420 + 100) / 4.
  const transients = 130;
  assert.equal(estimateTokens([attachments, ...contributors]), transients, "counted together");
  const plan = planTurn({ contextWindow: 1000, history: 600, overheadTokens: 50, attachments, contributors });
  assert.equal(plan.transientTokens, transients);
  assert.equal(plan.payloadTokens, 780);
  assert.equal(plan.reserveTokens, 180);
  assert.equal(plan.historyBudget, 120, "loopctl's target: 15% of the threshold line");
  assert.equal(plan.action, "send", "780 is under the threshold, 800");
  const over = planTurn({ contextWindow: 1000, history: 620, overheadTokens: 50, attachments, contributors });
  assert.equal(over.action, "compact", "800 is at it");
  const next = planTurn({ contextWindow: 1000, history: plan.historyBudget, overheadTokens: 50, attachments, contributors });
  assert.equal(next.action, "send", "at the budget, the next plan sends");
});

test("planTurn's lines, one token either side, from JS", () => {
  const at = (history, extra = {}) => planTurn({ contextWindow: 1000, history, ...extra });
  assert.equal(at(799).action, "send");
  assert.deepEqual([at(800).action, at(800).emergency], ["compact", false]);
  assert.deepEqual([at(949).action, at(949).emergency], ["compact", false]);
  assert.deepEqual([at(950).action, at(950).emergency], ["compact", true]);
  assert.equal(at(0, { overheadTokens: 799 }).action, "send");
  assert.deepEqual([at(0, { overheadTokens: 800 }).action, at(0, { overheadTokens: 800 }).historyBudget], ["context_exceeded", 0]);
  assert.equal(planTurn({ contextWindow: 1000, history: 499, thresholdPercent: 50 }).action, "send");
  assert.equal(planTurn({ contextWindow: 1000, history: 500, thresholdPercent: 50 }).action, "compact");
  for (const bad of [{ history: 1 }, { contextWindow: -1, history: 1 }, { contextWindow: 0, history: [] }, { contextWindow: 10, history: "x" }, { contextWindow: 10, history: 1, thresholdPercent: 0 }]) {
    assert.throws(() => planTurn(bad), (e) => isAttacheError(e) && e.code === "INVALID_ARGUMENT", JSON.stringify(bad));
  }
});

test("a counter's wrong result is named at counter, with what it must return", () => {
  for (const result of [NaN, Infinity, -1, -0.5, 2 ** 53, undefined, "3", Promise.resolve(2)]) {
    assert.throws(() => attache.estimateTokens([{ role: "user", content: "hi" }], () => result), (e) =>
      isAttacheError(e) && e.code === "INVALID_ARGUMENT" && e.field === "counter" && /synchronously/.test(e.message));
  }
});

test("a counter's fraction of a token is a token: rounded up", () => {
  const hi = [{ role: "user", content: "hi" }];
  assert.equal(attache.estimateTokens(hi, () => 10 / 4), 3);
  assert.equal(attache.estimateTokens(hi, () => 0.25), 1);
  assert.equal(attache.estimateTokens(hi, () => 7), 7);
  assert.equal(planTurn({ contextWindow: 100, history: hi, counter: (ms) => JSON.stringify(ms).length / 4 }).historyTokens,
    Math.ceil(JSON.stringify(hi).length / 4));
});

test("planTurn takes as attachments only what buildRequest takes: the consolidated message", () => {
  for (const attachments of [{ role: "system", content: "x" }, { role: "user", content: [] }]) {
    assert.throws(() => planTurn({ contextWindow: 1000, history: 0, attachments }), (e) => isAttacheError(e) && e.field === "attachments");
  }
});
