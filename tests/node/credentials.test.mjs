// The credential guard through the built package: at pin time, in stores,
// for the host's own secrets; errors name where and what, never the secret.
import "fake-indexeddb/auto";
import { test, before } from "node:test";
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";

const root = new URL("../../", import.meta.url);
const attache = await import(new URL("pkg/attache.js", root));
const { AttachmentStore, MemorySessionStore, isAttacheError } = attache;

before(async () => {
  await attache.default({ module_or_path: await readFile(new URL("pkg/attache_bg.wasm", root)) });
});

const key = "sk-proj-" + "Zx9".repeat(16);
const refused = (field, kind) => (e) => {
  assert.ok(isAttacheError(e) && e.code === "CREDENTIAL", `${e}`);
  assert.equal(e.field, field);
  if (kind) assert.equal(e.kind, kind);
  assert.ok(!e.message.includes(key.slice(-10)) && !JSON.stringify(e).includes(key.slice(-10)), "never the secret");
  return true;
};

test("a key in pinned text is refused at pin time, so it never reaches a request", () => {
  const pinned = new AttachmentStore();
  assert.throws(() => pinned.setAttachment({ kind: "file", path: ".env", contents: `curl -H "x-key" https://api.example.com ${key}\n` }), refused("contents", "openai_key"));
  assert.throws(() => pinned.setAttachment({ kind: "file", path: ".env", contents: `export OPENAI_API_KEY="${key}"\n` }), refused("contents"));
  assert.throws(() => pinned.setAttachment({ kind: "todo", items: [{ text: `rotate ${key}`, completed: false }] }), refused("items[0].text"));
  assert.equal(pinned.size, 0);
  pinned.setAttachment({ kind: "memory", slug: "schema", memory: JSON.stringify({ properties: { password: { type: "string" } } }) });
  pinned.free();
});

test("a host's registered secret is refused wherever it appears, until forgotten", async () => {
  const store = new MemorySessionStore();
  const { id } = await store.createSession();
  const secret = "page-held-key-0042";
  attache.registerSecret(secret);
  await assert.rejects(store.appendMessages(id, [{ role: "user", content: `use ${secret} please` }]), refused("messages[0].content"));
  await assert.rejects(store.saveSessionState(id, "k", { nested: [`${secret}`] }), refused("k.nested[0]", "host_secret"));
  attache.forgetSecrets();
  await store.appendMessages(id, [{ role: "user", content: `use ${secret} please` }]);
  assert.throws(() => attache.registerSecret("short"), (e) => isAttacheError(e) && e.code === "INVALID_ARGUMENT");
  assert.throws(() => attache.registerSecret(42), (e) => isAttacheError(e) && e.code === "INVALID_ARGUMENT");
  store.free();
});

test("a secret registered after it was pinned stops the message, the render and the prefix check", () => {
  const pinned = new AttachmentStore();
  const secret = "page-held-key-0077";
  pinned.setAttachment({ kind: "memory", slug: "notes", memory: `my key: ${secret}` });
  const before = pinned.consolidatedMessage();
  attache.registerSecret(secret);
  try {
    const blocked = (e) => isAttacheError(e) && e.code === "CREDENTIAL" && e.field === "memory:notes" && e.kind === "host_secret";
    assert.throws(() => pinned.consolidatedMessage(), blocked);
    assert.throws(() => pinned.renderAll(), blocked);
    assert.throws(() => pinned.checkPrefix({ counter: { ratio: 4 } }), blocked);
    assert.throws(() => pinned.renderAttachment("memory:notes"), blocked);
    assert.throws(() => pinned.getAttachment("memory:notes"), blocked);
    // Still listed, so a host can show it and detach it.
    assert.deepEqual(pinned.attachmentIds(), ["memory:notes"]);
    assert.equal(pinned.specs().length, 1);
    assert.equal(pinned.detachAttachment("memory:notes"), true);
    assert.equal(pinned.consolidatedMessage(), undefined);
    assert.ok(before.content[0].text.includes(secret), "the message before registering held it");
  } finally {
    attache.forgetSecrets();
    pinned.free();
  }
});

test("a secret registered after pinning stops saving the pins, past a file's cut too, on every route", async () => {
  const secret = "page-held-key-0314";
  for (const Store of [MemorySessionStore, attache.IdbSessionStore]) {
    const sessions = Store === MemorySessionStore ? new Store() : await Store.open({ name: "secret-after-pin" });
    const { id } = await sessions.createSession();
    const pinned = new AttachmentStore();
    // Past the 8192-byte cut: never sent, but saved with the spec.
    pinned.setAttachment({ kind: "file", path: "app.log", contents: `${"x".repeat(9000)} ${secret}` });
    pinned.setAttachment({ kind: "memory", slug: "m", memory: "M" });
    pinned.checkPrefix();
    await sessions.saveAttachments(id, pinned);
    attache.registerSecret(secret);
    try {
      for (const save of [() => sessions.saveAttachments(id, pinned), () => sessions.commitTurn(id, { attachments: pinned })]) {
        const refused = await save().catch((e) => e);
        assert.deepEqual([refused.code, refused.kind], ["CREDENTIAL", "host_secret"], `${Store.name}: ${refused.message}`);
      }
    } finally {
      attache.forgetSecrets();
    }
    // Forgotten, the same pins save again, unscanned once more.
    await sessions.commitTurn(id, { attachments: pinned });
    const stored = await sessions.loadSessionState(id, "attachments");
    assert.ok(stored[0].contents.endsWith(secret), "the pins as they are");
    pinned.free();
    sessions.free();
  }
});

/**
 * An IndexedDB session and pins whose memory `slug` holds `secret`, their
 * prefix checked, for `body`; the secret forgotten and all freed after.
 */
async function pinnedOnIdb(name, secret, slug, body) {
  const sessions = await attache.IdbSessionStore.open({ name });
  const { id } = await sessions.createSession();
  const pinned = new AttachmentStore();
  pinned.setAttachment({ kind: "memory", slug, memory: `token ${secret}` });
  pinned.checkPrefix();
  try {
    await body(sessions, id, pinned);
  } finally {
    attache.forgetSecrets();
    pinned.free();
    sessions.free();
  }
}

test("on IndexedDB, a secret registered while a save waits its turn stops it", async () => {
  const secret = "page-held-key-0271";
  await pinnedOnIdb("secret-while-waiting", secret, "m", async (sessions, id, pinned) => {
    // Both checked the pins when called; their writes run later, in turn.
    const saves = [sessions.saveAttachments(id, pinned), sessions.commitTurn(id, { attachments: pinned })];
    attache.registerSecret(secret);
    for (const refused of await Promise.all(saves.map((s) => s.then(() => "saved", (e) => e)))) {
      assert.equal(refused.code, "CREDENTIAL", String(refused.message ?? refused));
    }
    assert.equal(await sessions.loadSessionState(id, "attachments"), null, "nothing stored");
  });
});

test("on IndexedDB, a baseline holding a secret registered right after the save is dropped, and the pins saved", async () => {
  const secret = "page-held-key-0314";
  await pinnedOnIdb("stale-baseline-after-call", secret, "old", async (sessions, id, pinned) => {
    pinned.detachAttachment("memory:old");
    pinned.setAttachment({ kind: "memory", slug: "m", memory: "clean" });
    // Checked a moment after the call, as the memory store would at it.
    const saved = sessions.saveAttachments(id, pinned);
    attache.registerSecret(secret);
    await saved;
    assert.equal(await sessions.loadSessionState(id, "prefix_baseline"), null);
    assert.deepEqual(await sessions.loadSessionState(id, "attachments"), pinned.specs());
  });
});

test("on IndexedDB, an import whose session id, title or meta holds a secret registered right after the call is refused", async () => {
  const secret = "page-held-key-0422";
  const sessions = await attache.IdbSessionStore.open({ name: "import-after-call" });
  const source = new MemorySessionStore();
  try {
    await source.createSession({ id: "src", title: "t" });
    await source.appendMessages("src", [{ role: "user", content: "hi" }]);
    const doc = await source.exportSession("src");
    const held = (session, options = {}) => [{ ...doc, session: { ...doc.session, ...session } }, options];
    for (const [given, options, field] of [
      [...held({ id: `copy-${secret}` }), "document.session.id"],
      [...held({ title: `t ${secret}` }), "document.session.title"],
      [...held({ meta: { note: secret } }), "document.session.meta.note"],
      [...held({}, { id: `other-${secret}` }), "document.session.id"],
    ]) {
      const imported = sessions.importSession(given, options);
      attache.registerSecret(secret);
      try {
        await assert.rejects(imported, refused(field, "host_secret"));
      } finally {
        attache.forgetSecrets();
      }
    }
    assert.deepEqual(await sessions.listSessions(), [], "nothing stored");
  } finally {
    sessions.close();
    sessions.free();
    source.free();
  }
});

test("a redacting store imports its own export though a registered secret is digits of its times", async () => {
  const stores = [new MemorySessionStore({ credentials: "redact" }), await attache.IdbSessionStore.open({ name: "times-redact", credentials: "redact" })];
  for (const store of stores) {
    const { id, createdAt } = await store.createSession();
    await store.appendMessages(id, [{ role: "user", content: "hi" }]);
    const doc = await store.exportSession(id);
    // Eight digits from the middle of the time, as a PIN-like secret may be.
    attache.registerSecret(String(createdAt).slice(2, 10));
    try {
      const copy = await store.importSession(doc, { id: `${id}-copy` });
      assert.deepEqual([copy.createdAt, copy.updatedAt], [doc.session.createdAt, doc.session.updatedAt]);
    } finally {
      attache.forgetSecrets();
      store.free();
    }
  }
});

test("a session whose id holds a secret registered since is refused by id, and deleted once it is forgotten", async () => {
  const secret = "page-held-key-0537";
  for (const store of [new MemorySessionStore(), await attache.IdbSessionStore.open({ name: "delete-held-id" })]) {
    const id = `copy-${secret}`;
    await store.createSession({ id });
    attache.registerSecret(secret);
    try {
      // As any argument holding a credential is: refused, the secret never echoed.
      for (const call of [() => store.getSession(id), () => store.deleteSession(id)]) {
        await assert.rejects(call(), (e) => e.code === "CREDENTIAL" && !e.message.includes(secret));
      }
      assert.deepEqual((await store.listSessions()).map((s) => s.id), [id], "listed, to be found");
      attache.forgetSecrets();
      assert.equal(await store.deleteSession(id), true);
      assert.deepEqual(await store.listSessions(), []);
    } finally {
      attache.forgetSecrets();
      store.free();
    }
  }
});

test("a detached pin whose id holds a secret registered since is not named by the prefix check", () => {
  const pinned = new AttachmentStore();
  const secret = "Zq7vK2mP9xR4tW8nB3cL";
  pinned.setAttachment({ kind: "memory", slug: `k${secret}`, memory: "m" });
  pinned.setAttachment({ kind: "memory", slug: "other", memory: "o" });
  pinned.checkPrefix();
  attache.registerSecret(secret);
  try {
    assert.equal(pinned.detachAttachment(`memory:k${secret}`), true);
    const { change } = pinned.checkPrefix();
    assert.ok(change.attachmentId.startsWith("memory:k[REDACTED:"), change.attachmentId);
    assert.ok(!change.attachmentId.includes(secret));
  } finally {
    attache.forgetSecrets();
    pinned.free();
  }
});

test("pins saved before their secret was registered load held, beside the others, and detach", async () => {
  const sessions = new MemorySessionStore();
  await sessions.createSession({ id: "s" });
  const pinned = new AttachmentStore();
  const secret = "page-held-key-0099";
  pinned.setAttachment({ kind: "memory", slug: "keep", memory: "fine" });
  pinned.setAttachment({ kind: "memory", slug: "m", memory: `token ${secret}` });
  await sessions.saveAttachments("s", pinned);
  attache.registerSecret(secret);
  let loaded;
  try {
    loaded = await sessions.loadAttachments("s");
    assert.deepEqual(loaded.attachmentIds(), ["memory:keep", "memory:m"]);
    const blocked = (e) => isAttacheError(e) && e.code === "CREDENTIAL" && e.field === "memory:m";
    assert.throws(() => loaded.consolidatedMessage(), blocked);
    assert.throws(() => loaded.renderAttachment("memory:m"), blocked);
    assert.equal(loaded.renderAttachment("memory:keep"), "[Pinned memory: keep]\n\nfine");
    await assert.rejects(sessions.saveAttachments("s", loaded), (e) => e.code === "CREDENTIAL");
    assert.equal(loaded.detachAttachment("memory:m"), true);
    assert.equal(loaded.consolidatedMessage().content.length, 1);
  } finally {
    attache.forgetSecrets();
    pinned.free();
    loaded?.free();
  }
});

test("redactCredentials gives a value as a redacting store keeps it, and where it changed", () => {
  const { value, redactions } = attache.redactCredentials({ cmd: `curl -H "Authorization: Bearer ${key}"`, env: [{ name: "DB_PASSWORD", value: "hunter2" }], n: 1 });
  assert.deepEqual(value, { cmd: 'curl -H "Authorization: Bearer [REDACTED:authorization_header]"', env: [{ name: "DB_PASSWORD", value: "[REDACTED:credential_field]" }], n: 1 });
  assert.deepEqual(redactions, [{ path: "cmd", kind: "authorization_header" }, { path: "env[0].value", kind: "credential_field" }]);
  assert.deepEqual(attache.redactCredentials("plain"), { value: "plain", redactions: [] });
  assert.throws(() => attache.redactCredentials({ [key]: 1 }), refused("value"));
  assert.throws(() => attache.redactCredentials(() => 1), (e) => isAttacheError(e) && e.code === "INVALID_VALUE" && e.field === "value");
  assert.throws(() => attache.redactCredentials({ a: { "b-c": 1n } }), (e) => e.field === 'value.a["b-c"]');
  assert.throws(() => attache.redactCredentials({ a: { [key]: 1 } }), refused("value.a"));
});

// A session, and pins whose last check's baseline holds `secret`.
async function checkedWith(secret, spec) {
  const sessions = new MemorySessionStore();
  const { id } = await sessions.createSession();
  const pinned = new AttachmentStore();
  pinned.setAttachment({ kind: "memory", ...spec, memory: `${spec.memory} ${secret}` });
  pinned.checkPrefix();
  return { sessions, id, pinned };
}

test("a saved prefix baseline holding a since-registered secret is dropped, and saving goes on", async () => {
  const secret = "page-held-key-0123";
  const { sessions, id, pinned } = await checkedWith(secret, { slug: "a", memory: "old note" });
  pinned.setAttachment({ kind: "memory", slug: "a", memory: "new clean note" });
  await sessions.saveAttachments(id, pinned);
  attache.registerSecret(secret);
  let loaded;
  try {
    loaded = await sessions.loadAttachments(id);
    await sessions.saveAttachments(id, loaded);
    assert.equal(await sessions.loadSessionState(id, "prefix_baseline"), null, "dropped: no host could detach it");
    assert.equal(loaded.checkPrefix().first, true);
  } finally {
    attache.forgetSecrets();
    pinned.free();
    loaded?.free();
    sessions.free();
  }
});

test("once its pin is detached, a secret in the last check's baseline does not stop the next turn", async () => {
  const secret = "page-held-key-0456";
  const { sessions, id, pinned } = await checkedWith(secret, { slug: "note", memory: "my key" });
  attache.registerSecret(secret);
  try {
    assert.equal(pinned.detachAttachment("memory:note"), true);
    await sessions.commitTurn(id, { messages: [{ role: "user", content: "hi" }], attachments: pinned });
    assert.equal((await sessions.loadMessages(id)).length, 1, "the turn was stored");
    assert.equal(await sessions.loadSessionState(id, "prefix_baseline"), null, "without the baseline");
  } finally {
    attache.forgetSecrets();
    pinned.free();
    sessions.free();
  }
});

test("state keys side by side are not a named pair, in a turn or an import, in either mode", async () => {
  for (const credentials of ["refuse", "redact"]) {
    const events = [];
    const store = new MemorySessionStore({ credentials, onRedact: (e) => events.push(e) });
    await store.createSession({ id: "a" });
    const state = { type: "password", value: "shown to the user", key: "Authorization" };
    await store.commitTurn("a", { state });
    await store.commitTurn("a", { stateIfAbsent: { name: "DB_PASSWORD", value: "also shown" } });
    const doc = await store.exportSession("a");
    await store.importSession(doc, { id: "b" });
    assert.deepEqual((await store.exportSession("b")).state, doc.state, credentials);
    assert.deepEqual(doc.state, { ...state, name: "DB_PASSWORD" }, credentials);
    assert.deepEqual(events, [], credentials);
    // Within one value it is a pair, as before.
    const pair = store.commitTurn("a", { state: { field: { type: "password", value: "hunter2hunter2" } } });
    if (credentials === "refuse") await assert.rejects(pair, refused("state.field.value"));
    else {
      await pair;
      assert.deepEqual(await store.loadSessionState("a", "field"), { type: "password", value: "[REDACTED:credential_field]" });
      assert.deepEqual(events.at(-1).redactions, [{ path: "state.field.value", kind: "credential_field" }]);
    }
    store.free();
  }
});

test("ordinary data passes: empty or boolean credential fields, schemas, near misses", async () => {
  const store = new MemorySessionStore();
  const { id } = await store.createSession();
  await store.saveSessionState(id, "ok", {
    password: "", secret: false, apiKey: null,
    schema: { properties: { password: { type: "string" }, token: { type: "string" } } },
    note: "pip install scikit-learn; the desk-antenna; tokens and max_tokens",
    fetch: { credentials: "include" }, env: { PWD: "/home/me" }, stream: { token: { id: 1, text: "Hi" } },
  });
  store.free();
});

test("a redacting store keeps the frame, replaces the secret, and reports where, as the README shows", async () => {
  const events = [];
  const store = new MemorySessionStore({ credentials: "redact", onRedact: (e) => events.push(e) });
  const { id } = await store.createSession();
  const cmd = "curl -H 'Authorization: Bearer abcdefgh12345678' https://api.example.com";
  await store.appendActivityFrames(id, "req-1", [{ type: "tool", input: { cmd } }, { type: "note", text: `key ${key} and ${key}` }]);
  const [first, second] = await store.loadActivityFrames(id, "req-1");
  assert.equal(first.input.cmd, "curl -H 'Authorization: Bearer [REDACTED:authorization_header]' https://api.example.com");
  assert.equal(second.text, "key [REDACTED:openai_key] and [REDACTED:openai_key]");
  assert.deepEqual(events, [{ sessionId: id, redactions: [
    { path: "frames[0].input.cmd", kind: "authorization_header" },
    { path: "frames[1].text", kind: "openai_key" },
    { path: "frames[1].text", kind: "openai_key" },
  ] }]);
  // A state key names its value as a field does, in both modes, with the
  // path a refusing store names.
  await store.saveSessionState(id, "password", "hunter2 horse");
  assert.equal(await store.loadSessionState(id, "password"), "[REDACTED:credential_field]");
  assert.deepEqual(events.pop(), { sessionId: id, redactions: [{ path: "password", kind: "credential_field" }] });
  const refusing = new MemorySessionStore();
  const other = await refusing.createSession();
  await assert.rejects(refusing.saveSessionState(other.id, "password", "hunter2 horse"), refused("password", "credential_field"));
  refusing.free();
  // A secret as an option key is refused without echoing it, by every
  // method's options reader; a symbol key is no option at all.
  await assert.rejects(store.createSession({ [key]: "x" }), refused("options"));
  await assert.rejects(store.loadMessages(id, { [key]: 1 }), refused("options"));
  assert.equal((await store.createSession({ title: "t", [Symbol("tag")]: 1 })).title, "t");
  // A refused write reports nothing; a name is refused in either mode.
  await assert.rejects(store.saveSessionState(id, key, 1), refused("key", "openai_key"));
  assert.equal(events.length, 1);
  // Pins are checked when pinned, in either mode.
  const pinned = new AttachmentStore();
  assert.throws(() => pinned.setAttachment({ kind: "memory", slug: "k", memory: key }), refused("memory"));
  pinned.free();
  store.free();
});

test("an error never echoes a secret, whichever check refused first", async () => {
  const store = new MemorySessionStore();
  const { id } = await store.createSession();
  const silent = (code) => (e) => {
    assert.ok(isAttacheError(e), `${e}`);
    assert.equal(e.code, code);
    const shown = `${e.message} ${e.field}`;
    assert.ok(!shown.includes(key.slice(-10)), `no part of the secret: ${shown}`);
    assert.match(shown, /\[REDACTED:/, "the marker says what stood there");
    return true;
  };
  // A key that is not JSON data: the path is built from the key.
  await assert.rejects(store.appendActivityFrames(id, "r", [{ [key]: NaN }]), silent("INVALID_VALUE"));
  // A pin's spec is checked before the credential walk, as setAttachment
  // checks it; other typed state after it, as a redacting store reports it.
  await assert.rejects(store.saveSessionState(id, "attachments", [{ kind: key }]), silent("UNKNOWN_KIND"));
  await assert.rejects(store.saveReplState(id, { [key]: 1 }), (e) => {
    assert.equal(e.code, "CREDENTIAL");
    assert.equal(e.kind, "openai_key");
    assert.ok(!`${e.message} ${e.field}`.includes(key.slice(-10)), `no part of the secret: ${e.message}`);
    return true;
  });
  const pinned = new AttachmentStore();
  assert.throws(() => pinned.setAttachment({ kind: key }), silent("UNKNOWN_KIND"));
  pinned.free();
  assert.deepEqual(await store.listSessionStateKeys(id), [], "nothing was stored");
  store.free();
});

test("a pin the guard would refuse by its id (a secret registered later) can still be found and detached", () => {
  const pinned = new AttachmentStore();
  pinned.setAttachment({ kind: "file", path: "//u:pw@h", contents: null });
  pinned.setAttachment({ kind: "memory", slug: "page-held-key-0042", memory: "m" });
  attache.registerSecret("page-held-key-0042");
  try {
    assert.equal(pinned.hasAttachment("file://u:pw@h"), true);
    assert.equal(pinned.detachAttachment("file://u:pw@h"), true);
    assert.equal(pinned.detachAttachment("memory:page-held-key-0042"), true);
    assert.equal(pinned.size, 0);
  } finally {
    attache.forgetSecrets();
    pinned.free();
  }
});
