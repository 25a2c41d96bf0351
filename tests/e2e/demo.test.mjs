// Serves the demo as `scripts/demo.sh` does and drives it in headless
// Chromium: the page must show a consolidated message rendered by the wasm
// build, and the embedded model must receive it ahead of the history.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { mkdir } from "node:fs/promises";
import { start } from "./browser.mjs";

const root = new URL("../../", import.meta.url);
let env, page;

before(async () => {
  env = await start();
  page = await env.context.newPage();
  const errors = [];
  page.on("pageerror", (e) => errors.push(e));
  await page.goto(`${env.origin}/`);
  await page.waitForSelector("body[data-ready=true]", { timeout: 15000 }).catch((e) => {
    throw new Error(`demo did not start: ${errors.join("; ") || e.message}`);
  });
});

after(async () => {
  await env?.stop();
});

const consolidated = async () => JSON.parse(await page.textContent("#consolidated"));

test("the page shows the consolidated message in kind order", async () => {
  const message = await consolidated();
  assert.equal(message.role, "user");
  assert.deepEqual(
    message.content.map((part) => part.text.split("\n", 1)[0]),
    ["[Pinned memory: auth-design]", "[Attached file: README.md]", "[Attached file: src/lib.rs]", "[Todo list]"],
  );
  assert.equal(message.content[3].text, "[Todo list]\n- [x] read the pinned README\n- [ ] answer with the auth design in mind");
});

test("ticking a todo re-pins the list in place", async () => {
  await page.locator("#todos input[type=checkbox]").nth(1).check();
  const message = await consolidated();
  assert.equal(message.content.length, 4, "a re-pin does not add a part");
  assert.match(message.content[3].text, /- \[x\] answer with the auth design in mind$/);
});

test("the embedded model receives the pinned parts ahead of the conversation", async () => {
  await page.fill("#chat input[name=text]", "hello");
  await page.click("#chat button");
  const reply = await page.textContent("#history li.assistant");
  assert.match(reply, /You said: "hello"/);
  assert.match(reply, /led with 4 pinned part\(s\): \[Pinned memory: auth-design\]/);
});

test("a pinned memory joins the memories ahead of the files", async () => {
  await page.fill("#pin-memory input[name=slug]", "tone");
  await page.fill("#pin-memory input[name=memory]", "be brief");
  await page.click("#pin-memory button");
  const message = await consolidated();
  assert.equal(message.content[1].text, "[Pinned memory: tone]\n\nbe brief");
  assert.equal(await page.textContent("#status"), "");
  await mkdir(new URL("tests/e2e/artifacts/", root), { recursive: true });
  await page.screenshot({ path: new URL("tests/e2e/artifacts/demo.png", root).pathname, fullPage: true });
});

test("detaching every attachment leaves no message to send", async () => {
  while (await page.locator("#pinned button").count()) await page.locator("#pinned button").first().click();
  assert.equal(await page.textContent("#consolidated"), "(nothing pinned: no message is sent)");
});
