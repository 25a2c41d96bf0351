// The demo's compactor, through the built package: it must land the
// history under the budget planTurn gives, however long the last messages.
import { test, before } from "node:test";
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";

const root = new URL("../../", import.meta.url);
const attache = await import(new URL("pkg/attache.js", root));
const { compact } = await import(new URL("www/agent.js", root));

before(async () => {
  await attache.default({ module_or_path: await readFile(new URL("pkg/attache_bg.wasm", root)) });
});

const say = (role, words) => ({ role, content: "word ".repeat(words).trim() });
const tokens = (messages) => attache.estimateTokens(messages, "openai");

test("compaction keeps the longest tail that fits the budget, cut at a user message", () => {
  const history = [say("user", 10), say("assistant", 10), say("user", 400), say("assistant", 400), say("user", 10), say("assistant", 10)];
  const next = say("user", 5);
  const budget = 200;
  const kept = compact(history, next, budget);
  assert.ok(tokens([...kept, next]) < budget, `${tokens([...kept, next])} tokens, under ${budget}`);
  assert.match(kept[0].content, /^\[Summary of 4 earlier messages/);
  assert.deepEqual(kept.slice(1), history.slice(4), "the two long messages go, the short tail stays");
  // A looser budget keeps more.
  const roomy = compact(history, next, 10_000);
  assert.deepEqual(roomy.slice(1), history.slice(2));
});

test("when no tail fits, only the summary is kept; an empty history has nothing to cut", () => {
  const history = [say("user", 10), say("assistant", 2000)];
  const kept = compact(history, say("user", 1), 100);
  assert.equal(kept.length, 1);
  assert.match(kept[0].content, /^\[Summary of 2 earlier messages/);
  assert.equal(compact([], say("user", 1), 100), null);
});

test("a history the summary would not shrink is left alone, whatever the budget", () => {
  const short = [say("user", 1), say("assistant", 1)];
  assert.equal(compact(short, say("user", 5000), 100), null, "a huge next message does not wipe it");
  assert.equal(compact(short, say("user", 1), -300), null, "nor does a budget below zero");
  assert.equal(compact([say("user", 1)], say("user", 1), 0), null);
  // A long history under an impossible budget is summarised, not kept whole.
  const long = [say("user", 500), say("assistant", 500)];
  assert.equal(compact(long, say("user", 1), -300).length, 1);
});
