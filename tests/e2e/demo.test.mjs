// The demo as the README's first command serves it, driven in headless
// Chromium: scripted turns with the pins leading each request, a todo tick
// seen by the prefix indicator, a reload that restores the session, export,
// delete and import, a pasted key refused, an OpenAI-compatible endpoint
// (a loopback stub) that never gets a key typed into the chat, a pin edited
// under another slug or cancelled, two tabs on one session (and one
// deleting it), the agent's tool checks, an endpoint's error, Stop, the
// memory store where IndexedDB is denied, the keyboard's focus and what is
// said, and screenshots at a laptop's and a phone's size, left in
// target/screenshots/. With the site's cookies blocked, Firefox (through
// WebDriver) runs it too.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { createServer } from "node:http";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { launch, start } from "./browser.mjs";
import { firefox } from "./webdriver.mjs";

const root = new URL("../../", import.meta.url);
const key = "sk-proj-" + "Qv7".repeat(16);
// An endpoint's key with no known shape: only its registration refuses it.
const hostKey = "ollama-local-secret-4242";
let env, page;
// Every page's uncaught errors and unhandled rejections: none may occur.
const errors = [];

before(async () => {
  env = await start();
  env.context.on("page", (p) => p.on("pageerror", (e) => errors.push(e)));
  page = await env.context.newPage();
  await page.setViewportSize({ width: 1366, height: 860 });
  await page.goto(`${env.origin}/`);
  await page.waitForSelector("body[data-ready=true]", { timeout: 20000 }).catch((e) => {
    throw new Error(`demo did not start: ${errors.join("; ") || e.message}`);
  });
});

after(async () => {
  await env?.stop();
  assert.deepEqual(errors.map(String), [], "no page threw or left a rejection unhandled");
});

const requests = () => page.evaluate(() => window.demo.requests);
const pinnedOf = (messages) => messages.find((m) => m.role === "user" && Array.isArray(m.content) && m.content.every((p) => /^\[(Pinned memory|Attached file|Todo list)/.test(p.text)));

// A loopback endpoint that answers CORS preflights; `answer(req, res, cors)`
// everything else. `url` is its base URL.
async function endpoint(answer) {
  const cors = { "access-control-allow-origin": "*", "access-control-allow-headers": "content-type, authorization" };
  const server = createServer((req, res) => (req.method === "OPTIONS" ? res.writeHead(204, cors).end() : answer(req, res, cors)));
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  return Object.assign(server, { url: `http://127.0.0.1:${server.address().port}/v1` });
}

// Points a page's model at `url` and waits until it names `model`.
async function useEndpoint(p, url, model, key) {
  await p.$eval("#model-settings", (details) => { details.open = true; });
  await p.fill("#model-form input[name=url]", url);
  await p.fill("#model-form input[name=model]", model);
  await p.fill("#model-form input[name=key]", key);
  await p.click("#model-form button:not([type=button])");
  await p.waitForFunction((m) => document.querySelector("#model-name").textContent.includes(m) && !document.body.dataset.busy, model);
}

async function send(text) {
  const before = (await requests()).length;
  await page.fill("#composer-text", text);
  await page.click("#send");
  // Done when the page shows the turn: the requests are in and the render
  // that follows has finished.
  await page.waitForFunction((n) => window.demo.requests.length > n && !document.body.dataset.busy, before);
  return (await requests()).slice(before);
}

test("three scripted turns: the pins lead every request, byte-stable while they do not change", async () => {
  const sent = [];
  for (const text of ["What does the README say about auth?", "Which parameters does Argon2id use?", "Summarise the style memory."]) {
    sent.push(...(await send(text)));
  }
  assert.ok(sent.length >= 6, `each turn is a tool call and an answer (${sent.length} requests)`);
  const leads = sent.map((messages) => {
    const first = messages.findIndex((m) => m.role !== "system");
    return messages[first];
  });
  for (const lead of leads) assert.equal(lead, pinnedOf([lead]), "the consolidated message leads the request");
  const bytes = new Set(leads.map((m) => JSON.stringify(m)));
  assert.equal(bytes.size, 1, "the pins did not change, so neither did the prefix");
  assert.match(await page.textContent("#prefix"), /Prefix held/);
  assert.equal(await page.locator("#history li.assistant").count(), 6);
  assert.match(await page.textContent("#timeline"), /tool lookup/);
  // The latest answer is in view, not the first message.
  const history = await page.$eval("#history", (h) => ({ top: h.scrollTop, seen: h.clientHeight, height: h.scrollHeight }));
  assert.ok(history.height > history.seen, `the history overflows its box (${JSON.stringify(history)})`);
  assert.ok(history.top + history.seen >= history.height - 2, `scrolled to the newest message (${JSON.stringify(history)})`);
});

test("a disabled button looks unlike an enabled one", async () => {
  const look = (id) => page.$eval(id, (b) => {
    const s = getComputedStyle(b);
    return { opacity: s.opacity, cursor: s.cursor, color: s.color, background: s.backgroundColor, border: s.borderColor };
  });
  assert.ok(await page.isDisabled("#stop"), "Stop is off between turns");
  assert.ok(await page.isEnabled("#send"));
  assert.notDeepEqual(await look("#stop"), await look("#send"));
  // Import is a label around a file input, which a turn disables too.
  const importLook = (disabled) => page.$eval("#session-import", (input, off) => {
    input.disabled = off;
    // A computed style is live: read it before the input is enabled again.
    const { opacity, cursor } = getComputedStyle(input.closest(".file-button"));
    input.disabled = false;
    return { opacity, cursor };
  }, disabled);
  assert.notDeepEqual(await importLook(true), await importLook(false));
});

test("ticking a todo breaks the prefix at the todo list, and the indicator says so", async () => {
  await page.locator("#todos input[type=checkbox]").nth(1).check();
  await page.waitForFunction(() => document.querySelectorAll("#todos input:checked").length === 2 && !document.body.dataset.busy);
  const [first] = await send("Anything left to do?");
  assert.match(JSON.stringify(pinnedOf(first)), /- \[x\] review the auth design/);
  const shown = await page.textContent("#prefix");
  assert.match(shown, /broken by todo:session/);
});

test("a reload resumes the session: pins, history, snapshot, frames and the prefix baseline", async () => {
  const read = () => page.evaluate(() => ({
    pins: [...document.querySelectorAll("#pinned code")].map((c) => c.textContent),
    history: document.querySelectorAll("#history li").length,
    frames: document.querySelectorAll("#timeline > li").length,
    snapshot: document.querySelector("#snapshot").textContent,
    session: document.querySelector("#session-select").value,
  }));
  const before = await read();
  await page.reload();
  await page.waitForSelector("body[data-ready=true]", { timeout: 20000 });
  assert.deepEqual(await read(), before);
  assert.ok(before.frames >= 4 && before.history >= 16);
  const [request] = await send("And now?");
  assert.ok(pinnedOf(request));
  assert.match(await page.textContent("#prefix"), /Prefix held/, "the baseline came back with the pins");
});

test("a session exports as one JSON file, and imports back after a delete", async () => {
  const session = await page.inputValue("#session-select");
  const history = await page.locator("#history li").count();
  const title = await page.locator("#session-select option:checked").textContent();
  const [download] = await Promise.all([page.waitForEvent("download"), page.click("#session-export")]);
  const file = await download.path();
  const doc = JSON.parse(await readFile(file, "utf8"));
  assert.equal(doc.format, "attache-session");
  assert.equal(doc.session.id, session);
  await page.waitForFunction(() => !document.body.dataset.busy);
  assert.equal(await page.textContent("#said"), `Exported session "${title}".`, "screen readers hear it");
  // From the keyboard: focus leaves Delete, so a second Enter deletes nothing more.
  await page.focus("#session-delete");
  await page.keyboard.press("Enter");
  await page.waitForFunction((id) => document.querySelector("#session-select").value !== id && !document.body.dataset.busy, session);
  assert.equal(await page.locator(`#session-select option[value="${session}"]`).count(), 0);
  const deleted = await page.textContent("#said");
  assert.ok(deleted.startsWith(`Deleted session "${title}"; opened "`), deleted);
  assert.notEqual(await page.evaluate(() => document.activeElement?.id), "session-delete");
  await page.setInputFiles("#session-import", file);
  await page.waitForFunction((id) => document.querySelector("#session-select").value === id && !document.body.dataset.busy, session);
  assert.equal(await page.locator("#history li").count(), history);
  assert.equal(await page.textContent("#said"), `Imported session "${title}".`);
  // Imported again while it exists: a copy, told apart by its title. This
  // one has no snapshot, which the page says, and no key is claimed.
  const { snapshot, ...state } = doc.state;
  assert.ok(snapshot, "the export had a snapshot");
  await writeFile(file, JSON.stringify({ ...doc, state }));
  // A session with no snapshot, or one naming a window the page does not
  // offer, gets the default window, not the last session's nor none.
  await page.selectOption("#context-window", "400");
  await page.setInputFiles("#session-import", file);
  await page.waitForFunction((id) => document.querySelector("#session-select").value.startsWith(`${id}-copy-`) && !document.body.dataset.busy, session);
  assert.equal(await page.locator("#session-select option:checked").textContent(), `${title} (copy)`);
  assert.equal(await page.textContent("#said"), `Imported a copy, "${title} (copy)": this page holds that session already.`);
  assert.equal(await page.textContent("#snapshot"), "(no snapshot yet)");
  assert.equal(await page.inputValue("#context-window"), "8000");
  const firstCopy = await page.inputValue("#session-select");
  const odd = { ...snapshot, state: { ...snapshot.state, contextWindow: 5000 } };
  await writeFile(file, JSON.stringify({ ...doc, state: { ...doc.state, snapshot: odd } }));
  await page.selectOption("#context-window", "400");
  await page.setInputFiles("#session-import", file);
  await page.waitForFunction((copy) => document.querySelector("#session-select").value !== copy && !document.body.dataset.busy, firstCopy);
  assert.equal(await page.inputValue("#context-window"), "8000");
  assert.equal(await page.locator("#session-select option:checked").textContent(), `${title} (copy 2)`, "numbered: the first copy's title is taken");
  await page.selectOption("#session-select", session);
  await page.waitForFunction((id) => document.querySelector("#session-select").value === id && !document.body.dataset.busy, session);
});

test("a reload resumes the session this tab had open, not the most recent one", async () => {
  const older = await page.inputValue("#session-select");
  await page.click("#session-new");
  await page.waitForFunction((id) => document.querySelector("#session-select").value !== id && !document.body.dataset.busy, older);
  const created = await page.locator("#session-select option:checked").textContent();
  assert.equal(await page.textContent("#said"), `Created and opened session "${created}".`);
  await page.selectOption("#session-select", older);
  await page.waitForFunction((id) => document.querySelector("#session-select").value === id && !document.body.dataset.busy, older);
  assert.equal(await page.textContent("#said"), `Opened session "${await page.locator("#session-select option:checked").textContent()}".`);
  // Another tab opening another session does not move this tab's.
  const other = await env.context.newPage();
  try {
    await other.goto(`${env.origin}/`);
    await other.waitForSelector("body[data-ready=true]", { timeout: 20000 });
    assert.equal(await other.inputValue("#session-select"), older, "a new tab opens the one opened last");
    const newer = await other.$eval("#session-select", (s) => [...s.options].map((o) => o.value).find((v) => v !== s.value));
    await other.selectOption("#session-select", newer);
    await other.waitForFunction((id) => document.querySelector("#session-select").value === id && !document.body.dataset.busy, newer);
  } finally {
    await other.close();
  }
  await page.reload();
  await page.waitForSelector("body[data-ready=true]", { timeout: 20000 });
  assert.equal(await page.inputValue("#session-select"), older);
});

test("with storage for localStorage denied, the demo still starts on the most recent session", async () => {
  const denied = await env.context.newPage();
  try {
    await denied.addInitScript(() => {
      Object.defineProperty(window, "localStorage", { get() { throw new DOMException("denied", "SecurityError"); } });
    });
    await denied.goto(`${env.origin}/`);
    await denied.waitForSelector("body[data-ready=true]", { timeout: 20000 });
    // The list is most recent first.
    const newest = await denied.$eval("#session-select", (select) => select.options[0]?.value ?? "");
    assert.notEqual(newest, "");
    assert.equal(await denied.inputValue("#session-select"), newest);
  } finally {
    await denied.close();
  }
});

test("a refused import names importSession's field, and the same file can be picked again", async () => {
  const dir = await mkdtemp(join(tmpdir(), "attache-demo-"));
  try {
    const file = join(dir, "bad.json");
    await writeFile(file, JSON.stringify({ format: "attache-session", version: 1, session: { id: 5 } }));
    await page.setInputFiles("#session-import", file);
    await page.waitForFunction(() => document.querySelector("#notice").textContent !== "" && !document.body.dataset.busy);
    assert.match(await page.textContent("#notice"), /^INVALID_VALUE: value at `document\.session\.id`: must be a string/);
    assert.equal(await page.inputValue("#session-import"), "", "the input is cleared, so picking bad.json again fires a change");
    await page.setInputFiles("#session-import", { name: "notes.txt", mimeType: "application/json", buffer: Buffer.from("not JSON") });
    await page.waitForFunction(() => /^Import: notes\.txt is not JSON/.test(document.querySelector("#notice").textContent) && !document.body.dataset.busy);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test("a pasted key is refused with where and what, and never shown", async () => {
  const pins = await page.locator("#pinned li").count();
  await page.fill("#pin-memory input[name=slug]", "deploy");
  await page.fill("#pin-memory textarea[name=memory]", `deploy with ${key}`);
  await page.click("#pin-memory button");
  await page.waitForFunction(() => document.querySelector("#notice").textContent !== "");
  const notice = await page.textContent("#notice");
  assert.match(notice, /Refused: a credential \(openai_key\) in memory/);
  assert.ok(!notice.includes(key.slice(8, 20)), "the key is not echoed");
  assert.equal(await page.inputValue("#pin-memory textarea[name=memory]"), "", "nor left on screen");
  assert.equal(await page.locator("#pinned li").count(), pins, "nothing was pinned");
});

test("an OpenAI-compatible endpoint gets the pins first and the key only in its header", async () => {
  const bodies = [];
  const stub = await endpoint(async (req, res, cors) => {
    let body = "";
    for await (const chunk of req) body += chunk;
    bodies.push({ url: req.url, authorization: req.headers.authorization, body: JSON.parse(body) });
    res.writeHead(200, { ...cors, "content-type": "application/json" }).end(JSON.stringify({
      id: "chatcmpl-1", object: "chat.completion", created: 1, model: "stub",
      choices: [{ index: 0, finish_reason: "stop", message: { role: "assistant", content: "Hello from the stub." } }],
    }));
  });
  // The system prompt, and with an endpoint the tool schemas it is sent.
  const overhead = async () => Number((await page.textContent("#budget dd:nth-of-type(4)")).split(" ")[0]);
  try {
    await send("Hello, scripted?");
    const scripted = await overhead();
    await useEndpoint(page, stub.url, "stub-model", hostKey);
    await send("Hello, endpoint?");
    assert.ok(await overhead() > scripted + 100, `${await overhead()} tokens of overhead, ${scripted} without the tools`);
    assert.equal(bodies.length, 1);
    const [{ url, authorization, body }] = bodies;
    assert.equal(url, "/v1/chat/completions");
    assert.equal(authorization, `Bearer ${hostKey}`);
    assert.equal(body.model, "stub-model");
    assert.equal(body.messages[0].role, "system");
    assert.equal(body.messages[1].role, "user");
    // The pins as buildRequest's OpenAI format has them: parts, one a pin.
    assert.ok(body.messages[1].content.every((p) => p.type === "text"), JSON.stringify(body.messages[1].content));
    assert.ok(body.messages[1].content.some((p) => /^\[Pinned memory: style\]/.test(p.text)));
    assert.equal(body.messages.at(-1).content, "Hello, endpoint?");
    assert.deepEqual(body.tools.map((t) => t.function.name), ["lookup", "update_todos"]);
    assert.match(await page.textContent("#history"), /Hello from the stub\./);
    const planned = await page.textContent("#budget dd:first-of-type");
    assert.equal(planned, await page.inputValue("#context-window"));
    assert.notEqual(planned, "128000");
    // A key typed into the chat is refused before the endpoint gets it,
    // and only the message is cleared: the window choice stays.
    await page.selectOption("#context-window", "128000");
    const asked = bodies.length;
    await page.fill("#composer-text", `deploy with ${key}`);
    await page.click("#send");
    await page.waitForFunction(() => /Not sent/.test(document.querySelector("#notice").textContent) && !document.body.dataset.busy);
    assert.equal(bodies.length, asked, "the endpoint never got it");
    assert.match(await page.textContent("#notice"), /credential \(openai_key\)/);
    assert.doesNotMatch(await page.textContent("#notice"), new RegExp(key.slice(8, 20)));
    assert.equal(await page.inputValue("#composer-text"), "");
    assert.equal(await page.inputValue("#context-window"), "128000");
    assert.equal(await page.textContent("#budget dd:first-of-type"), planned, "the window the shown plan was made with, not the one chosen since");
    await page.selectOption("#context-window", "8000");
    // The key is registered with the guard: no part of the session holds it.
    const stored = await page.evaluate(async () => {
      const { IdbSessionStore } = await import("/pkg/attache.js");
      const store = await IdbSessionStore.open({ name: "attache-demo" });
      const id = document.querySelector("#session-select").value;
      const doc = JSON.stringify(await store.exportSession(id));
      store.close();
      return doc;
    });
    assert.ok(!stored.includes(hostKey), "the key is nowhere in the stored session");
    await page.fill("#pin-memory input[name=slug]", "note");
    await page.fill("#pin-memory textarea[name=memory]", `the key is ${hostKey}`);
    await page.click("#pin-memory button");
    await page.waitForFunction(() => /Refused/.test(document.querySelector("#notice").textContent));
    assert.match(await page.textContent("#notice"), /host_secret/);
    // Pasted while no key was registered, then entered as the key: the pin
    // stops every request until it is detached.
    await page.click("#model-scripted");
    const later = "pasted-first-secret-9090";
    await page.fill("#pin-memory input[name=slug]", "early");
    await page.fill("#pin-memory textarea[name=memory]", `the key is ${later}`);
    await page.click("#pin-memory button");
    await page.waitForFunction(() => /memory:early/.test(document.querySelector("#pinned").textContent));
    // A key with no endpoint, or one with no scheme, is refused before
    // anything changes.
    for (const url of ["", "localhost:11434/v1"]) {
      await page.fill("#model-form input[name=url]", url);
      await page.fill("#model-form input[name=key]", later);
      await page.evaluate(() => { document.querySelector("#notice").textContent = ""; });
      await page.click("#model-form button:not([type=button])");
      await page.waitForFunction(() => /must begin with http:\/\/ or https:\/\//.test(document.querySelector("#notice").textContent) && !document.body.dataset.busy);
      assert.match(await page.textContent("#model-name"), /scripted/, url);
    }
    assert.match(await page.textContent("#pinned"), /memory:early/, "the key was not registered");
    assert.doesNotMatch(await page.textContent("#pinned"), /holds the model's key/);
    await page.fill("#model-form input[name=url]", stub.url);
    await page.fill("#model-form input[name=key]", later);
    await page.click("#model-form button:not([type=button])");
    await page.waitForFunction(() => /Nothing can be sent: memory:early/.test(document.querySelector("#consolidated").textContent));
    assert.match(await page.textContent("#pinned"), /memory:early holds the model's key/);
    assert.doesNotMatch(await page.textContent("body"), new RegExp(later), "the key is never shown");
    const sent = bodies.length;
    await page.fill("#composer-text", "Still there?");
    await page.click("#send");
    await page.waitForFunction(() => /Refused: a credential \(host_secret\) in memory:early/.test(document.querySelector("#notice").textContent));
    assert.equal(bodies.length, sent, "nothing reached the endpoint");
    assert.equal(await page.inputValue("#composer-text"), "Still there?", "the credential was in a pin, not in what was typed");
    // A pin added now cannot be saved beside the blocked one: the page
    // shows the pins as stored, not the one that was refused.
    await page.fill("#pin-memory input[name=slug]", "fresh");
    await page.fill("#pin-memory textarea[name=memory]", "harmless");
    await page.click("#pin-memory button");
    await page.waitForFunction(() => /Refused: a credential \(host_secret\)/.test(document.querySelector("#notice").textContent) && !document.body.dataset.busy);
    assert.doesNotMatch(await page.textContent("#pinned"), /memory:fresh/);
    await page.click("button[aria-label='Detach memory:early']");
    await page.waitForFunction(() => !/Nothing can be sent/.test(document.querySelector("#consolidated").textContent) && !document.body.dataset.busy);
    // The snapshot is written with the pins, so it no longer lists it.
    assert.doesNotMatch(await page.textContent("#snapshot"), /memory:early/);
    await page.click("#model-scripted");
  } finally {
    stub.close();
  }
});

test("a new session's turn of one request claims nothing of requests after it", async () => {
  const stub = await endpoint((req, res, cors) => res.writeHead(200, { ...cors, "content-type": "application/json" }).end(JSON.stringify({
    id: "chatcmpl-1", object: "chat.completion", created: 1, model: "stub",
    choices: [{ index: 0, finish_reason: "stop", message: { role: "assistant", content: "One answer, no tools." } }],
  })));
  const back = await page.inputValue("#session-select");
  await page.click("#session-new");
  await page.waitForFunction((id) => document.querySelector("#session-select").value !== id && !document.body.dataset.busy, back);
  const fresh = await page.inputValue("#session-select");
  try {
    await useEndpoint(page, stub.url, "stub-model", "");
    assert.equal((await send("Just one request?")).length, 1);
    assert.equal(await page.textContent("#prefix"), "Prefix: the first request had nothing to compare with.");
  } finally {
    stub.close();
    await page.click("#model-scripted");
    await page.waitForFunction(() => /scripted/i.test(document.querySelector("#model-name").textContent) && !document.body.dataset.busy);
    await page.click("#session-delete");
    await page.waitForFunction((id) => document.querySelector("#session-select").value !== id && !document.body.dataset.busy, fresh);
    await page.selectOption("#session-select", back);
    await page.waitForFunction((id) => document.querySelector("#session-select").value === id && !document.body.dataset.busy, back);
  }
});

test("a key in the history before it was entered is shown and exported redacted", async () => {
  const stub = await endpoint((req, res) => res.writeHead(500).end());
  const back = await page.inputValue("#session-select");
  try {
    await page.click("#session-new");
    await page.waitForFunction((id) => document.querySelector("#session-select").value !== id && !document.body.dataset.busy, back);
    const early = "typed-before-entered-7171";
    await send(`keep ${early} handy`);
    assert.match(await page.textContent("#history"), new RegExp(early), "not a key yet: shown as typed");
    // In a pin's id too, where the pin list and its Detach name it.
    await page.fill("#pin-memory input[name=slug]", `n-${early}`);
    await page.fill("#pin-memory textarea[name=memory]", "named after it");
    await page.click("#pin-memory button:not(.cancel)");
    await page.waitForFunction((k) => document.querySelector("#pinned").textContent.includes(k) && !document.body.dataset.busy, early);
    // A turn with it: the prefix line names it, the panel shows it as sent.
    await send("and now?");
    assert.match(await page.textContent("#prefix"), new RegExp(`broken by memory:n-${early}`));
    // A key under 8 characters (Ollama's "ollama") is said plainly, not as the guard's argument.
    await page.$eval("#model-settings", (details) => { details.open = true; });
    await page.fill("#model-form input[name=url]", stub.url);
    await page.fill("#model-form input[name=key]", "ollama");
    await page.click("#model-form button:not([type=button])");
    await page.waitForFunction(() => /under 8 characters/.test(document.querySelector("#notice").textContent) && !document.body.dataset.busy);
    await useEndpoint(page, stub.url, "stub-model", early);
    assert.doesNotMatch(await page.textContent("#history"), new RegExp(early));
    assert.match(await page.textContent("#history"), /\[REDACTED:host_secret\]/);
    assert.doesNotMatch(await page.textContent("body"), new RegExp(early), "nowhere on the page: pins, snapshot, timeline");
    assert.equal(await page.locator("button[aria-label='Detach memory:n-[REDACTED:host_secret]']").count(), 1);
    const [download] = await Promise.all([page.waitForEvent("download"), page.click("#session-export")]);
    const exported = await readFile(await download.path(), "utf8");
    assert.ok(!exported.includes(early), "the key does not leave in the file");
    assert.match(exported, /\[REDACTED:host_secret\]/);
    await page.waitForFunction(() => /\d+ credential\(s\) redacted, at .*messages\[0\]/.test(document.querySelector("#notice").textContent));
    // Detached, nothing is blocked: the last request's pins show again, redacted.
    await page.click("button[aria-label='Detach memory:n-[REDACTED:host_secret]']");
    await page.waitForFunction(() => !/Nothing can be sent/.test(document.querySelector("#consolidated").textContent) && !document.body.dataset.busy);
    assert.match(await page.textContent("#consolidated"), /\[REDACTED:host_secret\]/);
    assert.doesNotMatch(await page.textContent("body"), new RegExp(early), "nor after the detach");
  } finally {
    stub.close();
    await page.click("#model-scripted");
    await page.waitForFunction(() => /scripted/i.test(document.querySelector("#model-name").textContent) && !document.body.dataset.busy);
    await page.selectOption("#session-select", back);
    await page.waitForFunction((id) => document.querySelector("#session-select").value === id && !document.body.dataset.busy, back);
  }
});

test("a double click pins or detaches once, with no false refusal; a custom pin has no Edit", async () => {
  await page.fill("#pin-memory input[name=slug]", "twice");
  await page.fill("#pin-memory textarea[name=memory]", "clicked twice");
  await page.dblclick("#pin-memory button:not(.cancel)");
  await page.waitForFunction(() => /memory:twice/.test(document.querySelector("#pinned").textContent) && !document.body.dataset.busy);
  assert.doesNotMatch(await page.textContent("#notice"), /Wait until/);
  await page.dblclick("button[aria-label='Detach memory:twice']");
  await page.waitForFunction(() => !/memory:twice/.test(document.querySelector("#pinned").textContent) && !document.body.dataset.busy);
  assert.doesNotMatch(await page.textContent("#notice"), /Wait until/);
  // A custom pin (an imported session's, say) has no form to edit it in.
  await page.evaluate(async () => {
    const { IdbSessionStore } = await import("/pkg/attache.js");
    const store = await IdbSessionStore.open({ name: "attache-demo" });
    const id = document.querySelector("#session-select").value;
    const pins = await store.loadAttachments(id);
    pins.setAttachment({ kind: "custom", id: "note:host", rank: "memory", text: "[Host note] keep it short" });
    pins.setAttachment({ kind: "file", path: "whole.txt", contents: "x".repeat(9000), truncate: false });
    pins.setAttachment({ kind: "file", path: "cut.txt", contents: "z".repeat(9000) });
    await store.saveAttachments(id, pins);
    store.close();
  });
  await page.reload();
  await page.waitForSelector("body[data-ready=true]", { timeout: 20000 });
  // A file pinned whole (an import's) stays whole once edited in the form;
  // one edited after it, with no cancel between, is cut as before.
  const stored = (id) => page.evaluate(async (id) => {
    const { IdbSessionStore } = await import("/pkg/attache.js");
    const store = await IdbSessionStore.open({ name: "attache-demo" });
    const pins = await store.loadAttachments(document.querySelector("#session-select").value);
    const spec = pins.getAttachment(id);
    pins.free();
    store.close();
    return spec;
  }, id);
  const save = async (path, contents) => {
    await page.click(`button[aria-label='Edit file:${path}']`);
    await page.fill("#pin-file textarea[name=contents]", contents);
    await page.click("#pin-file button:not(.cancel)");
    await page.waitForFunction((said) => document.querySelector("#said").textContent === said && !document.body.dataset.busy, `Pinned file:${path}.`);
  };
  await page.click("button[aria-label='Edit file:whole.txt']");
  await save("cut.txt", "c".repeat(9000));
  assert.equal((await stored("file:cut.txt")).truncate ?? true, true);
  await save("whole.txt", "y".repeat(9000));
  const whole = await stored("file:whole.txt");
  assert.deepEqual([whole.truncate, whole.contents.length], [false, 9000]);
  for (const path of ["whole.txt", "cut.txt"]) {
    await page.click(`button[aria-label='Detach file:${path}']`);
    await page.waitForFunction((path) => !document.querySelector("#pinned").textContent.includes(`file:${path}`) && !document.body.dataset.busy, path);
  }
  assert.equal(await page.locator("button[aria-label='Detach note:host']").count(), 1);
  assert.equal(await page.locator("button[aria-label='Edit note:host']").count(), 0);
  await page.click("button[aria-label='Detach note:host']");
  await page.waitForFunction(() => !/note:host/.test(document.querySelector("#pinned").textContent) && !document.body.dataset.busy);
});

test("a file is loaded into the file pin's form with a picker, as by a drop", async () => {
  await page.setInputFiles("#file-load", { name: "notes.md", mimeType: "text/markdown", buffer: Buffer.from("# notes\n\npicked by keyboard") });
  await page.waitForFunction(() => document.querySelector("#file-contents").value.includes("picked by keyboard"));
  assert.equal(await page.inputValue("#pin-file input[name=path]"), "notes.md");
  assert.equal(await page.inputValue("#file-load"), "", "cleared, so the same file can be picked again");
  await page.click("#pin-file button:not(.cancel)");
  await page.waitForFunction(() => /file:notes\.md/.test(document.querySelector("#pinned").textContent) && !document.body.dataset.busy);
  await page.click("button[aria-label='Detach file:notes.md']");
  await page.waitForFunction(() => !/file:notes\.md/.test(document.querySelector("#pinned").textContent) && !document.body.dataset.busy);
  // Dropped text is the textarea's to insert (a cancelled drop inserts
  // nothing); a dropped file is read into it.
  const cancelled = await page.$eval("#file-contents", (box) => {
    const drop = (fill) => {
      const dataTransfer = new DataTransfer();
      fill(dataTransfer);
      const event = new DragEvent("drop", { dataTransfer, bubbles: true, cancelable: true });
      box.dispatchEvent(event);
      return event.defaultPrevented;
    };
    return { text: drop((d) => d.setData("text/plain", "dropped words")), file: drop((d) => d.items.add(new File(["# dropped"], "dropped.md"))) };
  });
  assert.deepEqual(cancelled, { text: false, file: true });
  await page.waitForFunction(() => document.querySelector("#file-contents").value === "# dropped");
  assert.equal(await page.inputValue("#pin-file input[name=path]"), "dropped.md");
  await page.fill("#pin-file input[name=path]", "");
  await page.fill("#file-contents", "");
});

test("a small window compacts the history, persisted before the request is sent", async () => {
  await page.selectOption("#context-window", "400");
  const before = await page.locator("#history li").count();
  await send("Does the style memory still lead?");
  assert.match(await page.textContent("#timeline"), /compaction: \d+ messages → \d+/);
  const first = await page.textContent("#history li:first-child");
  assert.match(first, /\[Summary of \d+ earlier messages/);
  const after = await page.locator("#history li").count();
  assert.ok(after < before, `the history shrank (${before} → ${after})`);
  assert.equal(await page.textContent("#budget dd:last-of-type"), "send", "the compacted request fits");
  await page.reload();
  await page.waitForSelector("body[data-ready=true]", { timeout: 20000 });
  assert.equal(await page.locator("#history li").count(), after, "the compaction was stored");
  assert.equal(await page.inputValue("#context-window"), "400", "the snapshot kept the window");
});

test("a pin edited under another slug replaces the one it came from", async () => {
  await page.click("button[aria-label='Edit memory:style']");
  assert.equal(await page.textContent("#pin-memory button"), "Save, replacing memory:style", "the edit is shown");
  await page.fill("#pin-memory input[name=slug]", "tone");
  await page.click("#pin-memory button");
  await page.waitForFunction(() => /memory:tone/.test(document.querySelector("#pinned").textContent) && !document.body.dataset.busy);
  const ids = await page.$$eval("#pinned code", (codes) => codes.map((c) => c.textContent));
  assert.ok(!ids.includes("memory:style"), ids.join(", "));
  assert.equal(await page.textContent("#pin-memory button"), "Pin memory");
  // A plain pin afterwards is a new pin, not another rename.
  await page.fill("#pin-memory input[name=slug]", "extra");
  await page.fill("#pin-memory textarea[name=memory]", "more");
  await page.click("#pin-memory button");
  await page.waitForFunction(() => /memory:extra/.test(document.querySelector("#pinned").textContent) && !document.body.dataset.busy);
  assert.match(await page.textContent("#pinned"), /memory:tone/);
});

test("an edit can be cancelled, and a switch of session ends it", async () => {
  await page.click("button[aria-label='Edit memory:tone']");
  assert.equal(await page.isVisible("#pin-memory .cancel"), true);
  await page.click("#pin-memory .cancel");
  assert.equal(await page.textContent("#pin-memory button"), "Pin memory");
  assert.equal(await page.isVisible("#pin-memory .cancel"), false);
  await page.fill("#pin-memory input[name=slug]", "unrelated");
  await page.fill("#pin-memory textarea[name=memory]", "a new pin");
  await page.click("#pin-memory button");
  await page.waitForFunction(() => /memory:unrelated/.test(document.querySelector("#pinned").textContent) && !document.body.dataset.busy);
  assert.match(await page.textContent("#pinned"), /memory:tone/, "a cancelled edit replaces nothing");
  await page.click("button[aria-label='Detach memory:unrelated']");
  await page.waitForFunction(() => !/memory:unrelated/.test(document.querySelector("#pinned").textContent) && !document.body.dataset.busy);
  // Begun in one session, an edit does not detach a pin of the next.
  const here = await page.inputValue("#session-select");
  await page.click("button[aria-label='Edit memory:tone']");
  await page.click("#session-new");
  await page.waitForFunction((id) => document.querySelector("#session-select").value !== id && !document.body.dataset.busy, here);
  assert.equal(await page.textContent("#pin-memory button"), "Pin memory");
  await page.selectOption("#session-select", here);
  await page.waitForFunction((id) => document.querySelector("#session-select").value === id && !document.body.dataset.busy, here);
});

test("two tabs on one session: a pin from one is kept by the other's turn, and shown there", async () => {
  const id = await page.inputValue("#session-select");
  // One tab hears nothing from the others: its turn must still read the pins.
  const deaf = await env.context.newPage();
  const other = await env.context.newPage();
  try {
    await deaf.addInitScript(() => { delete window.BroadcastChannel; });
    for (const tab of [deaf, other]) {
      await tab.goto(`${env.origin}/`);
      await tab.waitForSelector("body[data-ready=true]", { timeout: 20000 });
      assert.equal(await tab.inputValue("#session-select"), id);
    }
    await other.fill("#pin-memory input[name=slug]", "second-tab");
    await other.fill("#pin-memory textarea[name=memory]", "pinned in another tab");
    await other.click("#pin-memory button");
    await other.waitForFunction(() => /memory:second-tab/.test(document.querySelector("#pinned").textContent) && !document.body.dataset.busy);
    // This page hears of it and shows it; the deaf one does not, yet.
    await page.waitForFunction(() => /memory:second-tab/.test(document.querySelector("#pinned").textContent) && !document.body.dataset.busy);
    assert.doesNotMatch(await deaf.textContent("#pinned"), /memory:second-tab/);
    await deaf.fill("#composer-text", "todo: keep both tabs' pins");
    await deaf.click("#send");
    await deaf.waitForFunction(() => window.demo.requests.length > 0 && !document.body.dataset.busy);
    assert.match(await deaf.textContent("#pinned"), /memory:second-tab/, "the turn read the pins as stored");
    const stored = await deaf.evaluate(async (sid) => {
      const { IdbSessionStore } = await import("/pkg/attache.js");
      const store = await IdbSessionStore.open({ name: "attache-demo" });
      const pins = await store.loadAttachments(sid);
      const result = { ids: pins.attachmentIds(), todos: pins.getAttachment("todo:session").items.map((i) => i.text) };
      pins.free();
      store.close();
      return result;
    }, id);
    assert.ok(stored.ids.includes("memory:second-tab"), stored.ids.join(", "));
    assert.ok(stored.todos.includes("keep both tabs' pins"), stored.todos.join(", "));
    await page.click("button[aria-label='Detach memory:second-tab']");
    await page.waitForFunction(() => !/memory:second-tab/.test(document.querySelector("#pinned").textContent) && !document.body.dataset.busy);
  } finally {
    await deaf.close();
    await other.close();
  }
});

test("a turn waits while another tab's turn holds the session's Web Lock, from load to commit", async () => {
  const id = await page.inputValue("#session-select");
  const name = `attache-demo:turn:${id}`;
  // Held as another tab's turn holds it (locks are per origin, not per tab).
  await page.evaluate((name) => new Promise((held) => {
    navigator.locks.request(name, () => { held(); return new Promise((release) => { window.releaseTurnLock = release; }); });
  }), name);
  const sent = await page.evaluate(() => window.demo.sent);
  const loaded = (await requests()).length;
  await page.fill("#composer-text", "Are you waiting?");
  await page.click("#send");
  await page.waitForFunction((name) => navigator.locks.query().then((q) => q.pending.some((l) => l.name === name)), name);
  assert.equal(await page.evaluate(() => window.demo.sent), sent, "no request while the lock is held");
  await page.evaluate(() => window.releaseTurnLock());
  await page.waitForFunction((n) => window.demo.requests.length > n && !document.body.dataset.busy, loaded);
  assert.match(await page.textContent("#history"), /Are you waiting\?/);
  // Where the lock is refused outright (a sandboxed frame), the turn runs unlocked.
  await page.evaluate(() => Object.defineProperty(navigator.locks, "request", {
    configurable: true, value: () => Promise.reject(new DOMException("no locks here", "SecurityError")) }));
  try {
    await send("Unlocked?");
    assert.match(await page.textContent("#history"), /Unlocked\?/);
  } finally {
    await page.evaluate(() => delete navigator.locks.request);
  }
});

test("a session deleted in another tab: this tab moves to the most recent one", async () => {
  const doomed = await page.inputValue("#session-select");
  await page.click("#session-new");
  await page.waitForFunction((id) => document.querySelector("#session-select").value !== id && !document.body.dataset.busy, doomed);
  const fresh = await page.inputValue("#session-select");
  const other = await env.context.newPage();
  try {
    await other.goto(`${env.origin}/`);
    await other.waitForSelector("body[data-ready=true]", { timeout: 20000 });
    assert.equal(await other.inputValue("#session-select"), fresh);
    await other.click("#session-delete");
    await other.waitForFunction((id) => document.querySelector("#session-select").value !== id && !document.body.dataset.busy, fresh);
    await page.waitForFunction((id) => document.querySelector("#session-select").value !== id && !document.body.dataset.busy, fresh);
    assert.match(await page.textContent("#notice"), /deleted in another tab/);
    assert.equal(await page.locator(`#session-select option[value="${fresh}"]`).count(), 0);
  } finally {
    await other.close();
  }
  await page.selectOption("#session-select", doomed);
  await page.waitForFunction((id) => document.querySelector("#session-select").value === id && !document.body.dataset.busy, doomed);
});

test("the agent: tool arguments of the wrong shape get an error result; another tab's turn or pin change in between is CONFLICT", async () => {
  const outcome = await page.evaluate(async () => {
    const { runTurn, todoItems } = await import("/www/agent.js");
    const { AttachmentStore, MemorySessionStore } = await import("/pkg/attache.js");
    const store = new MemorySessionStore();
    const { id } = await store.createSession({});
    const pinned = new AttachmentStore();
    pinned.setAttachment({ kind: "todo", items: [{ text: "one", completed: false }] });
    // Stored, as the page's pins are: a turn compares them with the store.
    await store.saveAttachments(id, pinned);
    const replies = [
      { role: "assistant", content: [{ type: "tool_call", id: "c1", name: "update_todos", arguments: { add: "buy milk" } },
        { type: "tool_call", id: "c2", name: "lookup", arguments: { query: null } }] },
      { role: "assistant", content: [{ type: "text", text: "done" }] },
    ];
    const model = { name: "fake", complete: async () => replies.shift() };
    const args = { store, sessionId: id, pinned, model, text: "add milk", contextWindow: 8000, snapshot: () => ({ name: "t" }) };
    await runTurn(args);
    const results = (await store.loadMessages(id)).find((m) => m.role === "tool").content.map((p) => p.content);
    const todos = todoItems(pinned).map((i) => i.text);
    // A model that takes its time while another tab's turn lands.
    const racing = { name: "racing", complete: async () => {
      await store.appendMessages(id, [{ role: "user", content: "from the other tab" }]);
      return { role: "assistant", content: [{ type: "text", text: "late" }] };
    } };
    let code = null;
    const before = (await store.loadMessages(id)).length;
    await runTurn({ ...args, model: racing, text: "again" }).catch((e) => { code = e.code; });
    const after = (await store.loadMessages(id)).map((m) => (typeof m.content === "string" ? m.content : ""));
    // A pin changed in another tab during the turn: CONFLICT too, and the
    // other tab's pins stay.
    const pinning = { name: "pinning", complete: async () => {
      const other = new AttachmentStore();
      other.setAttachment({ kind: "memory", slug: "other-tab", memory: "pinned meanwhile" });
      await store.saveAttachments(id, other);
      other.free();
      return { role: "assistant", content: [{ type: "text", text: "late" }] };
    } };
    let pinCode = null;
    await runTurn({ ...args, model: pinning, text: "third" }).catch((e) => { pinCode = e.code; });
    const kept = await store.loadAttachments(id);
    const keptIds = kept.attachmentIds();
    kept.free();
    const pinAdded = (await store.loadMessages(id)).length - after.length;
    pinned.free();
    return { results, todos, code, added: after.length - before, last: after.at(-1), pinCode, pinAdded, keptIds };
  });
  assert.match(outcome.results[0], /^Error: update_todos takes `add` and `complete` as lists/);
  assert.match(outcome.results[1], /^Error: lookup takes a non-empty `query` string/);
  assert.deepEqual(outcome.todos, ["one"], "no todo per letter");
  assert.equal(outcome.code, "CONFLICT");
  assert.equal(outcome.added, 1, "only the other tab's message");
  assert.equal(outcome.last, "from the other tab");
  assert.equal(outcome.pinCode, "CONFLICT");
  assert.equal(outcome.pinAdded, 0);
  assert.deepEqual(outcome.keptIds, ["memory:other-tab"]);
});

test("an endpoint's error says what it answered, without a key it echoes", async () => {
  const stub = await endpoint((req, res, cors) => {
    res.writeHead(404, { ...cors, "content-type": "application/json" })
      .end(JSON.stringify({ error: { message: `model "nope" not found; your key ${hostKey} is fine` } }));
  });
  try {
    await useEndpoint(page, stub.url, "nope", hostKey);
    await page.fill("#composer-text", "Anyone there?");
    await page.click("#send");
    await page.waitForFunction(() => /answered 404/.test(document.querySelector("#notice").textContent) && !document.body.dataset.busy);
    const notice = await page.textContent("#notice");
    // The excerpt is the endpoint's JSON text, its quotes escaped.
    assert.match(notice, /model \\"nope\\" not found/);
    assert.ok(!notice.includes(hostKey), "the echoed key is redacted");
  } finally {
    stub.close();
    await page.click("#model-scripted");
  }
});

test("Stop ends a turn the endpoint holds: nothing of it is stored, and the text stays", async () => {
  const requests = [];
  // Never answers: only the page's abort ends the request.
  const stub = await endpoint((req, res) => {
    requests.push(new Promise((resolve) => res.on("close", () => resolve(true))));
  });
  const useStub = (p) => useEndpoint(p, stub.url, "hangs", "");
  // Sends, waits for the endpoint to hold the request, stops: what the page said.
  const stopTurn = async (p, text) => {
    const asked = requests.length;
    await p.fill("#composer-text", text);
    await p.click("#send");
    await p.waitForFunction(() => !document.querySelector("#stop").disabled);
    for (const id of ["#model-use", "#model-scripted", "#context-window"]) {
      assert.ok(await p.isDisabled(id), `${id} is off mid-turn: the turn keeps its model and window`);
    }
    for (let waited = 0; requests.length === asked; waited += 20) {
      assert.ok(waited < 10000, "the endpoint got the request");
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    await p.click("#stop");
    await p.waitForFunction(() => /Stopped/.test(document.querySelector("#notice").textContent) && !document.body.dataset.busy);
    assert.equal(await requests[asked], true, "the endpoint's request was cancelled");
    return p.textContent("#notice");
  };
  try {
    await useStub(page);
    await page.selectOption("#context-window", "8000");
    const before = await page.locator("#history li").count();
    assert.ok(await page.isDisabled("#stop"), "Stop is off between turns");
    assert.doesNotMatch(await stopTurn(page, "Are you there?"), /compaction/);
    assert.ok(await page.isDisabled("#stop"));
    assert.equal(await page.inputValue("#composer-text"), "Are you there?", "the text stays, to send again");
    await page.reload();
    await page.waitForSelector("body[data-ready=true]", { timeout: 20000 });
    assert.equal(await page.locator("#history li").count(), before, "nothing of the turn was stored");

    // Where AbortSignal.any is missing (Safari before 17.4), and after a
    // compaction, which stays: the page says so.
    const old = await env.context.newPage();
    try {
      await old.addInitScript(() => { delete AbortSignal.any; });
      await old.goto(`${env.origin}/`);
      await old.waitForSelector("body[data-ready=true]", { timeout: 20000 });
      // A long turn with the scripted model, so the small window compacts.
      await old.selectOption("#context-window", "8000");
      await old.fill("#composer-text", `Please keep this in mind: ${"lorem ipsum ".repeat(120)}`);
      await old.click("#send");
      await old.waitForFunction(() => window.demo.requests.length > 0 && !document.body.dataset.busy);
      await useStub(old);
      await old.selectOption("#context-window", "400");
      const longer = await old.locator("#history li").count();
      assert.match(await stopTurn(old, "And now?"), /the compaction it made first was/);
      await old.reload();
      await old.waitForSelector("body[data-ready=true]", { timeout: 20000 });
      assert.ok(await old.locator("#history li").count() < longer, "the compaction stayed");
      assert.match(await old.textContent("#history li:first-child"), /\[Summary of \d+ earlier messages/);
      assert.doesNotMatch(await old.textContent("#history"), /And now\?/, "the stopped turn's message did not");
    } finally {
      await old.close();
    }
  } finally {
    stub.close();
    stub.closeAllConnections();
    await page.$eval("#model-settings", (details) => { details.open = true; });
    await page.click("#model-scripted");
  }
});

test("with IndexedDB denied, the demo runs on the memory store and says so", async () => {
  const denied = await env.context.newPage();
  try {
    await denied.addInitScript(() => {
      IDBFactory.prototype.open = () => { throw new DOMException("denied", "SecurityError"); };
      // As on an opaque origin, where the storage estimate rejects too.
      StorageManager.prototype.estimate = () => Promise.reject(new TypeError("opaque origin"));
    });
    await denied.goto(`${env.origin}/`);
    await denied.waitForSelector("body[data-ready=true]", { timeout: 20000 });
    assert.match(await denied.textContent("#notice"), /IndexedDB is not available here/);
    await denied.fill("#composer-text", "What does the README say about auth?");
    await denied.click("#send");
    await denied.waitForFunction(() => window.demo.requests.length > 0 && !document.body.dataset.busy);
    assert.match(await denied.textContent("#history"), /README/);
    assert.equal(await denied.textContent("#notice"), "", "the turn's refresh worked");
    assert.match(await denied.textContent("#storage"), /Sessions are in memory/, "and the page still says so");
  } finally {
    await denied.close();
  }
  // A database this build cannot open (a newer build's): the same, saying why.
  const newer = await env.context.newPage();
  try {
    await newer.addInitScript(() => {
      IDBFactory.prototype.open = () => { throw new DOMException("The requested version is less than the existing version.", "VersionError"); };
    });
    await newer.goto(`${env.origin}/`);
    await newer.waitForSelector("body[data-ready=true]", { timeout: 20000 });
    assert.match(await newer.textContent("#notice"), /IndexedDB holds a database this page cannot open \(VERSION: /);
    assert.match(await newer.textContent("#storage"), /Sessions are in memory.*cannot open \(VERSION: /, "the reason stays on screen");
  } finally {
    await newer.close();
  }
});

// The real thing, not a shim: Chromium's open fails with an UnknownError
// "The user denied permission...", Firefox's with a SecurityError, and
// Firefox refuses a BroadcastChannel too. Firefox's private mode with
// IndexedDB turned off (as every Firefox before 115 had it) fails the open
// with an InvalidStateError.
test("with the site's cookies blocked, or in Firefox's private mode without IndexedDB, the demo runs on the memory store", async () => {
  const turn = async (text) => {
    const ready = Date.now() + 20000;
    while (document.body.dataset.ready !== "true") {
      if (Date.now() > ready) throw new Error(`not ready: ${document.querySelector("#notice")?.textContent}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const said = document.querySelector("#notice").textContent;
    const composer = document.querySelector("#composer-text");
    composer.value = text;
    composer.dispatchEvent(new Event("input", { bubbles: true }));
    document.querySelector("#send").click();
    const answered = Date.now() + 20000;
    while (!window.demo.requests.length || document.body.dataset.busy) {
      if (Date.now() > answered) throw new Error(`no answer: ${document.querySelector("#notice").textContent}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    return { said, history: document.querySelector("#history").textContent, storage: document.querySelector("#storage").textContent };
  };
  const check = (seen, engine) => {
    assert.match(seen.said, /IndexedDB is not available here/, engine);
    assert.match(seen.history, /README/, `${engine}: the turn was answered`);
    assert.match(seen.storage, /Sessions are in memory/, engine);
  };
  const chromium = await launch([], { profile: { default_content_setting_values: { cookies: 2 } } });
  chromium.context.on("page", (p) => p.on("pageerror", (e) => errors.push(e)));
  try {
    const blocked = await chromium.context.newPage();
    await blocked.goto(`${env.origin}/`);
    check(await blocked.evaluate(`(${turn})("What does the README say about auth?")`), "Chromium");
  } finally {
    await chromium.close();
  }
  const refusing = {
    "cookies blocked": { "network.cookie.cookieBehavior": 2 },
    "private, without IndexedDB": { "browser.privatebrowsing.autostart": true, "dom.indexedDB.privateBrowsing.enabled": false },
  };
  for (const [how, prefs] of Object.entries(refusing)) {
    const fox = await firefox(prefs);
    try {
      await fox.go(`${env.origin}/`);
      const seen = await fox.run(`return (${turn})(arguments[0]);`, "What does the README say about auth?", 40000);
      assert.equal(seen.thrown, undefined, seen.thrown);
      check(seen, `Firefox, ${how}`);
    } finally {
      await fox.close();
    }
  }
});

test("asking to persist storage answers, never keeps the page busy, and says when the browser cannot", async () => {
  await page.click("#persist");
  await page.waitForFunction(() => document.querySelector("#notice").textContent !== "");
  assert.match(await page.textContent("#notice"), /^(Storage is persistent|The browser did not grant)/);
  // Firefox waits for the user's answer to its prompt, however long: the
  // page, meanwhile, is not busy (which would hold back other tabs' changes).
  await page.evaluate(() => {
    window.realPersist = StorageManager.prototype.persist;
    StorageManager.prototype.persist = () => new Promise(() => {});
  });
  try {
    await page.click("#persist");
    assert.equal(await page.evaluate(() => document.body.dataset.busy ?? "idle"), "idle");
    assert.equal(await page.textContent("#notice"), "");
    // WebKitGTK's MiniBrowser has no navigator.storage at all.
    await page.evaluate(() => Object.defineProperty(navigator, "storage", { value: undefined, configurable: true }));
    await page.click("#persist");
    assert.equal(await page.textContent("#notice"), "This browser cannot make storage persistent.");
  } finally {
    await page.evaluate(() => {
      delete navigator.storage;
      StorageManager.prototype.persist = window.realPersist;
    });
  }
});

test("a blank memory or todo is refused, as a blank path is", async () => {
  const pins = await page.locator("#pinned li").count();
  const todos = await page.locator("#todos li").count();
  await page.fill("#pin-memory input[name=slug]", "blank");
  await page.fill("#pin-memory textarea[name=memory]", " \n\t ");
  await page.click("#pin-memory button:not(.cancel)");
  await page.waitForFunction(() => !document.body.dataset.busy);
  assert.equal(await page.textContent("#notice"), "Not pinned: `memory` must not be empty or blank.");
  assert.equal(await page.locator("#pinned li").count(), pins);
  await page.fill("#pin-memory input[name=slug]", "");
  await page.fill("#pin-memory textarea[name=memory]", "");
  await page.fill("#add-todo input[name=text]", "   ");
  await page.click("#add-todo button");
  await page.waitForFunction(() => !document.body.dataset.busy);
  assert.equal(await page.textContent("#notice"), "Not added: a todo must not be empty or blank.");
  assert.equal(await page.locator("#todos li").count(), todos);
  await page.fill("#add-todo input[name=text]", "");
});

test("on a phone, editing a pin with a long path keeps the page within the screen", async () => {
  const path = "docs/architecture/decisions/0007-pins-ride-every-request-outside-the-history.md";
  await page.fill("#pin-file input[name=path]", path);
  await page.click("#pin-file button:not(.cancel)");
  await page.waitForFunction((p) => document.querySelector("#pinned").textContent.includes(`file:${p}`) && !document.body.dataset.busy, path);
  await page.setViewportSize({ width: 390, height: 844 });
  try {
    await page.click(`button[aria-label='Edit file:${path}']`);
    assert.equal(await page.textContent("#pin-file button"), `Save, replacing file:${path}`);
    const width = await page.evaluate(() => document.documentElement.scrollWidth);
    assert.ok(width <= 390, `the page is ${width}px wide`);
  } finally {
    await page.setViewportSize({ width: 1366, height: 860 });
    await page.click("#pin-file .cancel");
    await page.click(`button[aria-label='Detach file:${path}']`);
    await page.waitForFunction((p) => !document.querySelector("#pinned").textContent.includes(`file:${p}`) && !document.body.dataset.busy, path);
  }
});

test("detaching the pin being edited ends the edit, keeps what was typed and says so", async () => {
  await page.fill("#pin-file input[name=path]", "scratch.md");
  await page.click("#pin-file button:not(.cancel)");
  await page.waitForFunction(() => /file:scratch\.md/.test(document.querySelector("#pinned").textContent) && !document.body.dataset.busy);
  await page.click("button[aria-label='Edit file:scratch.md']");
  assert.equal(await page.textContent("#pin-file button"), "Save, replacing file:scratch.md");
  await page.fill("#file-contents", "typed, not saved");
  await page.click("button[aria-label='Detach file:scratch.md']");
  await page.waitForFunction(() => !/file:scratch\.md/.test(document.querySelector("#pinned").textContent) && !document.body.dataset.busy);
  assert.equal(await page.textContent("#pin-file button"), "Pin file");
  assert.equal(await page.isVisible("#pin-file .cancel"), false);
  // What the user typed stays, and the page says what saving it does now.
  assert.equal(await page.inputValue("#pin-file input[name=path]"), "scratch.md");
  assert.equal(await page.inputValue("#file-contents"), "typed, not saved");
  assert.match(await page.textContent("#notice"), /file:scratch\.md, being edited, was detached; what you typed stays/);
  await page.fill("#pin-file input[name=path]", "");
  await page.fill("#file-contents", "");
});

test("a load asks for nothing the server lacks, the page's icon included", async () => {
  const p = await env.context.newPage();
  const missing = [];
  p.on("response", (r) => r.status() >= 400 && missing.push(`${r.status()} ${r.url()}`));
  try {
    await p.goto(`${env.origin}/`);
    await p.waitForSelector("body[data-ready=true]", { timeout: 20000 });
    // The browser asks for the icon itself, which no page listener hears:
    // asked for here as the browser would (/favicon.ico, with no link).
    const icon = await p.evaluate(async () => {
      const href = document.querySelector("link[rel~=icon]")?.href ?? new URL("/favicon.ico", location.href).href;
      return { href, status: (await fetch(href)).status };
    });
    assert.equal(icon.status, 200, icon.href);
    assert.deepEqual(missing, []);
  } finally {
    await p.close();
  }
});

test("keyboard: focus stays with the control acted on, or goes where it makes sense, and each outcome is said", async () => {
  const focused = () => page.evaluate(() => document.activeElement?.id || document.activeElement?.getAttribute("aria-label") || document.activeElement?.tagName);
  const said = (pattern) => page.waitForFunction((source) => new RegExp(source).test(document.querySelector("#said").textContent) && !document.body.dataset.busy, pattern.source);
  // A todo ticked: the list is rebuilt, and the same box has focus.
  await page.focus("#todo-0");
  await page.keyboard.press("Space");
  await said(/^Todo ".+" (done|open)\.$/);
  assert.equal(await focused(), "todo-0");
  await page.keyboard.press("Space");
  await said(/^Todo ".+" (done|open)\.$/);
  // Pinned, then detached: the detached pin's button is gone, so the list's heading.
  await page.fill("#pin-memory input[name=slug]", "keyboard");
  await page.fill("#pin-memory textarea[name=memory]", "Pinned from the keyboard.");
  await page.focus("#pin-memory button:not(.cancel)");
  await page.keyboard.press("Enter");
  await said(/^Pinned memory:keyboard\.$/);
  await page.focus('[aria-label="Detach memory:keyboard"]');
  await page.keyboard.press("Enter");
  await said(/^Detached memory:keyboard\.$/);
  assert.equal(await focused(), "pinned-title");
  // An edit cancelled: its button hides, so the form's first field.
  // (The memory pinned here now depends on the tests before.)
  await page.fill("#pin-memory input[name=slug]", "edited");
  await page.fill("#pin-memory textarea[name=memory]", "To edit.");
  await page.click("#pin-memory button:not(.cancel)");
  await said(/^Pinned memory:edited\.$/);
  await page.click('[aria-label="Edit memory:edited"]');
  assert.equal(await page.getAttribute("#pin-memory .cancel", "aria-label"), "Cancel editing memory:edited");
  await page.focus("#pin-memory .cancel");
  await page.keyboard.press("Enter");
  assert.equal(await page.evaluate(() => document.activeElement === document.querySelector("#pin-memory input[name=slug]")), true);
  // A turn sent from the keyboard: Send, disabled during the turn (which
  // drops focus to <body>), has it back after.
  await page.fill("#composer-text", "What does the README say about auth?");
  await page.focus("#send");
  await page.keyboard.press("Enter");
  await said(/^Answered: /);
  assert.equal(await focused(), "send");
});

test("pins that alone reach the compaction line stop a turn before anything is sent or stored", async () => {
  await page.selectOption("#context-window", "400");
  await page.fill("#pin-memory input[name=slug]", "huge");
  await page.fill("#pin-memory textarea[name=memory]", "A long note to keep. ".repeat(80));
  await page.click("#pin-memory button:not(.cancel)");
  await page.waitForFunction(() => /memory:huge/.test(document.querySelector("#pinned").textContent) && !document.body.dataset.busy);
  const sent = await page.evaluate(() => window.demo.sent);
  const stored = await page.locator("#history li").count();
  await page.fill("#composer-text", "Still there?");
  await page.click("#send");
  await page.waitForFunction(() => /reach the compaction line/.test(document.querySelector("#notice").textContent) && !document.body.dataset.busy);
  // Counted as the model is asked: a turn that throws records no request.
  assert.equal(await page.evaluate(() => window.demo.sent), sent, "nothing was sent");
  assert.equal(await page.locator("#history li").count(), stored, "nothing was stored");
  await page.click("button[aria-label='Detach memory:huge']");
  await page.waitForFunction(() => !/memory:huge/.test(document.querySelector("#pinned").textContent) && !document.body.dataset.busy);
  await page.selectOption("#context-window", "8000");
});

test("a pin change frees the pins it replaces: a large pinned file is not kept once per change", async () => {
  const p = await env.context.newPage();
  try {
    await p.goto(`${env.origin}/`);
    await p.waitForSelector("body[data-ready=true]", { timeout: 20000 });
    const began = await p.inputValue("#session-select");
    await p.click("#session-new");
    await p.waitForFunction((id) => document.querySelector("#session-select").value !== id && !document.body.dataset.busy, began);
    await p.fill("#pin-file input[name=path]", "big.log");
    // 2 MiB, all kept by the pin (only its rendering is cut).
    await p.$eval("#file-contents", (t) => { t.value = "a log line\n".repeat(190_650); });
    await p.click("#pin-file button:not(.cancel)");
    await p.waitForFunction(() => /file:big\.log/.test(document.querySelector("#pinned").textContent) && !document.body.dataset.busy);
    // The page's own instance: the same module URL, already initialised.
    const memory = () => p.evaluate(async () => (await (await import("/pkg/attache.js")).default()).memory.buffer.byteLength);
    // Every store a load makes, held until freed: so no finalizer frees one
    // the page dropped, and what the page leaks shows whatever the GC does.
    await p.evaluate(async () => {
      const { AttachmentStore } = await import("/pkg/attache.js");
      const { __wrap: wrap, prototype: { free } } = AttachmentStore;
      const live = new Set();
      let loaded = 0;
      AttachmentStore.__wrap = function (...args) {
        const pins = wrap.apply(this, args);
        live.add(pins);
        loaded++;
        return pins;
      };
      AttachmentStore.prototype.free = function () {
        live.delete(this);
        return free.call(this);
      };
      window.pinsHeld = () => ({ loaded, live: live.size });
    });
    // Each tick stores the pins and loads them back from the store.
    const tick = async () => {
      const box = p.locator("#todos input[type=checkbox]").first();
      const was = await box.isChecked();
      await box.setChecked(!was);
      await p.waitForFunction((want) => document.querySelector("#todos input[type=checkbox]").checked === want && !document.body.dataset.busy, !was);
    };
    for (let i = 0; i < 2; i++) await tick();
    const before = await memory();
    for (let i = 0; i < 12; i++) await tick();
    const grown = (await memory()) - before;
    const { loaded, live } = await p.evaluate(() => window.pinsHeld());
    assert.ok(loaded >= 14, `each tick loads the pins (${loaded} loads)`);
    assert.ok(live <= 1, `${live} loaded stores not freed; only the one shown may be`);
    // Each copy kept would hold the file: 12 ticks, 24 MiB or more.
    assert.ok(grown < 12 << 20, `wasm memory grew ${grown} bytes over 12 pin changes`);
    await p.click("#session-delete");
    await p.waitForFunction(() => !/file:big\.log/.test(document.querySelector("#pinned").textContent) && !document.body.dataset.busy);
  } finally {
    await p.close();
  }
});

test("a message sent from further up the history brings its answer into view", async () => {
  const back = await page.inputValue("#session-select");
  await page.click("#session-new");
  await page.waitForFunction((id) => document.querySelector("#session-select").value !== id && !document.body.dataset.busy, back);
  const fresh = await page.inputValue("#session-select");
  const box = () => page.$eval("#history", (h) => ({ top: h.scrollTop, seen: h.clientHeight, height: h.scrollHeight }));
  try {
    for (let i = 0; i < 6 && (await box()).height <= (await box()).seen + 100; i++) await send(`What does the README say, part ${i}?`);
    assert.ok((await box()).height > (await box()).seen + 100, "the history overflows its box");
    await page.$eval("#history", (h) => { h.scrollTop = 0; });
    await send("And the last part?");
    const after = await box();
    assert.ok(after.top + after.seen >= after.height - 2, `the answer is in view (${JSON.stringify(after)})`);
  } finally {
    await page.click("#session-delete");
    await page.waitForFunction((id) => document.querySelector("#session-select").value !== id && !document.body.dataset.busy, fresh);
    await page.selectOption("#session-select", back);
    await page.waitForFunction((id) => document.querySelector("#session-select").value === id && !document.body.dataset.busy, back);
  }
});

test("the pinned list, the todos and the history are named for screen readers", async () => {
  for (const [role, name] of [["list", "Pinned, in pin order"], ["list", "Todo list"], ["list", "Conversation"]]) {
    assert.equal(await page.getByRole(role, { name, exact: true }).count(), 1, name);
  }
});

test("screenshots at 1366×860 and 390×844, with no horizontal scroll", async () => {
  const out = new URL("target/screenshots/", root);
  await mkdir(out, { recursive: true });
  for (const [width, height, name] of [[1366, 860, "laptop"], [390, 844, "phone"]]) {
    await page.setViewportSize({ width, height });
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    assert.equal(overflow, 0, `no horizontal scroll at ${width}px`);
    await page.screenshot({ path: new URL(`demo-${name}.png`, out).pathname, fullPage: true });
  }
  const unlabelled = await page.evaluate(() => [...document.querySelectorAll("input, textarea, select, button")]
    .filter((c) => !(c.labels?.length || c.getAttribute("aria-label") || c.textContent.trim()))
    .map((c) => c.outerHTML.slice(0, 60)));
  assert.deepEqual(unlabelled, [], "every control is labelled");
});
