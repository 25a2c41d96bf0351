// attache/langgraph: a LangGraph.js checkpointer over either session store.
// A thread is a session (created on its first checkpoint). Each checkpoint,
// each channel value (per channel and version, so an unchanged channel is
// never written again) and each pending write is one session-state key:
//   lg/c/{ns}/{checkpoint id}            the checkpoint, without its values
//   lg/b/{ns}/{channel}/{version}        one channel's value at a version
//   lg/w/{ns}/{checkpoint id}/{task}/{i} one pending write
// Components are URI-encoded, so a key never splits wrongly, and checkpoint
// ids (uuid6) sort by time, so the newest is the last key of its prefix.
// Values are the serializer's JSON kept as JSON, beside the channel's name
// ({ t, name, value }), so the credential guard reads them like any other
// named value: a channel named `password` holding text is refused. Other
// output, and JSON nested too deep for the store, is text in `value` too,
// with `as` saying how to read it back: "s" a string, "u" bytes that are
// UTF-8 text, "l" other bytes as a char per byte (older records: "b",
// base64). Bytes inside JSON are a char per byte too (`bytes: 1` says
// so): the guard reads them, and a redacting store can redact them.
import {
  BaseCheckpointSaver,
  ERROR,
  TASKS,
  WRITES_IDX_MAP,
  compareWritesSortKeys,
  copyCheckpoint,
  getCheckpointId,
  maxChannelVersion,
  writesSortKey,
} from "@langchain/langgraph-checkpoint";
import { redactCredentials } from "./attache.js";
import { credentialKind, depthOf, parseJson, randomFraction, shownText, stringifyJson, uriComponent, wellFormedJson } from "./json-text.js";

/** A key's component; one holding a lone surrogate has no URI form, and no key. */
const enc = (component) =>
  uriComponent(component, () => new TypeError("A thread's namespace, checkpoint id, channel, version, task id or task path holds a lone surrogate (text cut through an emoji): it cannot name a key."));
/**
 * Refuses a credential in the parts a write's keys are made of, in one
 * guard call: URI-encoded (`%3A`, `%40`), the store's guard would no
 * longer see it. Reads need none (nothing new is stored), nor a write's
 * channel or path, which are values the guard reads itself.
 */
function refuseInKeys(parts) {
  // Each alone: side by side, `["x-api-key", "1ef…"]` reads as a header.
  const kind = guardKind(parts.map((part) => [part]));
  if (kind) throw new TypeError(`A thread's namespace, checkpoint id, channel, version or task id holds what looks like a credential (${kind}): it cannot name a key.`);
}
/** The guard's first finding in `value`, or undefined; one in a key, which it cannot redact, too. */
function guardKind(value) {
  try {
    return credentialKind(value);
  } catch (e) {
    if (e?.code !== "CREDENTIAL") throw e;
    return e.kind;
  }
}
// LangGraph's own ids: a task's is a uuid5; a checkpoint's a uuid6, whose
// variant digit holds the step's high bits, so any.
const TASK_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const CHECKPOINT_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-6[0-9a-f]{3}-[0-9a-f]{4}-[0-9a-f]{12}$/;
/**
 * A namespace as the guard reads it: whole, but for the task id LangGraph
 * puts after each node's name, with which `check_password:1ef…` reads as
 * an assignment. A task id, hex, is no credential.
 */
const shownNamespace = (ns) =>
  ns
    .split("|")
    .map((part) => {
      const at = part.lastIndexOf(":");
      return at >= 0 && TASK_ID.test(part.slice(at + 1)) ? part.slice(0, at) : part;
    })
    .join("|");
/**
 * A checkpoint's metadata names its parents' checkpoints by namespace,
 * which the guard may read as credentials (`{client_secret: "1f0…"}`, or
 * `check_password:1ef…` as an assignment). Where it would, but passes
 * them with each namespace as shownNamespace gives it and each of
 * LangGraph's checkpoint ids as "", they are stored as their JSON text,
 * URI-encoded (`ns: 1` marks the record). Otherwise the metadata is
 * stored as it is (undefined), and the store refuses or redacts it as it
 * would any value.
 */
function storableMetadata(metadata) {
  const parents = metadata?.parents;
  if (parents === null || typeof parents !== "object" || Array.isArray(parents)) return undefined;
  const entries = Object.entries(parents);
  // A root graph's, every put: no guard call for none.
  if (entries.length === 0 || !entries.every(([, id]) => typeof id === "string") || !guardKind(parents)) return undefined;
  // Two namespaces may read alike: the later one as an object of its own.
  const seen = new Set();
  const first = [];
  const more = [];
  for (const [ns, id] of entries) {
    const name = shownNamespace(ns);
    const entry = [name, CHECKPOINT_ID.test(id) ? "" : id];
    if (seen.has(name)) more.push(Object.fromEntries([entry]));
    else first.push(entry);
    seen.add(name);
  }
  if (guardKind([Object.fromEntries(first), ...more])) return undefined;
  return { ...metadata, parents: enc(stringifyJson(parents)) };
}
/** What a refused key held, as an error's message may show it. */
const shownName = (name) => shownText(name) ?? "a name that cannot be shown";
// Checkpoint records list() loads per call.
const LIST_PAGE = 16;
// The most keys loadSessionStates takes in one call.
const LOAD_MAX = 10000;
// The store's longest key, in UTF-16 code units.
const KEY_MAX = 4096;
// Deleted threads remembered, against a stopped run's late writes.
const DELETES_KEPT = 1000;
const dec = decodeURIComponent;

/**
 * A namespace, checkpoint id or task id as MemorySaver takes one: a
 * string. Stored otherwise, it would break each later read of its thread
 * (the writes' order compares strings).
 */
function identifier(what, value) {
  if (typeof value !== "string") {
    const got = value === null ? "null" : Array.isArray(value) ? "an array" : typeof value;
    throw new TypeError(`The ${what} must be a string (got ${got}).`);
  }
  return value;
}
/**
 * A channel's version, which names its value's key: a finite number or a
 * string, as LangGraph's `ChannelVersions` has it. Another would be
 * stored, yet name no key a read finds (NaN is null in JSON), or fail as
 * text (an array holding a symbol).
 */
function version(value) {
  if (!Number.isFinite(value) && typeof value !== "string") {
    const got = value === null ? "null" : Array.isArray(value) ? "an array" : typeof value === "number" ? String(value) : typeof value;
    throw new TypeError(`A channel's version must be a finite number or a string (got ${got}).`);
  }
}
// The serializer's text for a value it cannot write (a BigInt, a throwing
// toJSON): stored, it would read back as this string.
const UNSERIALIZABLE = "[unable to serialize, circular reference is too complex to analyze]";
// JSON nested deeper is kept as its text: the store takes 128 levels, and
// a write's record wraps the value in two more.
const VALUE_DEPTH = 100;
const checkpointPrefix = (ns) => `lg/c/${ns === undefined ? "" : `${enc(ns)}/`}`;
const checkpointKey = (ns, id) => `lg/c/${enc(ns)}/${enc(id)}`;
const blobKey = (ns, channel, version) => `lg/b/${enc(ns)}/${enc(channel)}/${enc(String(version))}`;
// Without an id, every write of the namespace.
const writesPrefix = (ns, id) => `lg/w/${enc(ns)}/${id === undefined ? "" : `${enc(id)}/`}`;
/** `lg/w/{ns}/{id}/…` back to its checkpoint id. */
const writeCheckpointId = (key) => dec(key.split("/")[3]);
const writeKey = (ns, id, task, idx) => `${writesPrefix(ns, id)}${enc(task)}/${idx}`;

/** `lg/c/{ns}/{id}` back to its parts. */
function parseCheckpointKey(key) {
  const [, , ns, id] = key.split("/");
  return { ns: dec(ns), id: dec(id) };
}

/** Bytes as a char per byte: a key in them (ASCII) is text the guard reads. */
function latin1(bytes) {
  let text = "";
  for (let i = 0; i < bytes.length; i += 0x8000) text += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return text;
}

const fromLatin1 = (text) => Uint8Array.from(text, (c) => c.charCodeAt(0) & 0xff);

// Bytes inside a value, as LangGraph's serializer writes them: a
// Uint8Array as a constructor record (what its reviver takes), a Node
// Buffer as its toJSON, each a number per byte, which no guard reads.
// Each is kept with its numbers as a char per byte instead.
const BYTES = "attache:latin1";
const isBytes = (list) => Array.isArray(list) && list.every((n) => Number.isInteger(n) && n >= 0 && n < 256);
const uint8Record = (v) =>
  v.lc === 2 && v.type === "constructor" && Array.isArray(v.id) && v.id.length === 1 && v.id[0] === "Uint8Array" && (v.method ?? "from") === "from" && Array.isArray(v.args) && v.args.length === 1;
const bufferJson = (v) => v.type === "Buffer" && Object.keys(v).length === 2 && "data" in v;
/** Where a value holds bytes: the object and the field holding them, or null. */
const bytesAt = (v) => (uint8Record(v) ? [v.args, 0] : bufferJson(v) ? [v, "data"] : null);

/** Each one's numbers as a char per byte, in place; whether there was one. */
function packBytes(value) {
  if (value === null || typeof value !== "object") return false;
  const [holder, field] = bytesAt(value) ?? [];
  if (holder && isBytes(holder[field])) {
    holder[field] = { [BYTES]: latin1(Uint8Array.from(holder[field])) };
    return true;
  }
  let packed = false;
  for (const item of Array.isArray(value) ? value : Object.values(value)) packed = packBytes(item) || packed;
  return packed;
}

/**
 * Packed bytes out of `value`, each replaced by a token string, in place,
 * while the serializer reads the rest (its reviver takes a promise per
 * number: minutes for a few megabytes). `taken.token` is new each read, so
 * no stored string can be one. `restore` puts back what the reviver would
 * have made of them: a Uint8Array, a Buffer's numbers.
 */
function takeBytes(value, taken) {
  if (value === null || typeof value !== "object") return value;
  const [holder, field] = bytesAt(value) ?? [];
  const text = holder?.[field]?.[BYTES];
  if (typeof text === "string") {
    const bytes = fromLatin1(text);
    taken.push(uint8Record(value) ? bytes : { ...value, data: Array.from(bytes) });
    return `${taken.token}${taken.length - 1}`;
  }
  if (Array.isArray(value)) for (let i = 0; i < value.length; i++) value[i] = takeBytes(value[i], taken);
  else for (const key of Object.keys(value)) value[key] = takeBytes(value[key], taken);
  return value;
}

/** `takeBytes` undone in what the serializer returned: arrays, objects (messages too), Sets and Maps. */
function restore(value, taken, seen = new Set()) {
  if (typeof value === "string") {
    const i = value.startsWith(taken.token) ? value.slice(taken.token.length) : "";
    return /^\d+$/.test(i) && Number(i) < taken.length ? taken[Number(i)] : value;
  }
  if (value === null || typeof value !== "object" || seen.has(value) || ArrayBuffer.isView(value)) return value;
  seen.add(value);
  if (value instanceof Map || value instanceof Set) {
    // Rebuilt in order: a key or an item may be a token.
    const entries = [...value.entries()];
    value.clear();
    for (const [k, v] of entries) {
      if (value instanceof Map) value.set(restore(k, taken, seen), restore(v, taken, seen));
      else value.add(restore(k, taken, seen));
    }
  } else {
    for (const key of Object.keys(value)) {
      // Read once (a getter may give a new object each time); written only
      // where a stand-in was, as the serializer's own objects are plain.
      const current = value[key];
      const next = restore(current, taken, seen);
      if (!Object.is(next, current)) value[key] = next;
    }
  }
  return value;
}

/** Bytes as text when they are UTF-8 that encodes back to the same bytes, else null. */
function utf8(bytes) {
  try {
    return new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    return null;
  }
}

/** Older records' bytes, base64. */
const fromBase64 = (text) => fromLatin1(atob(text));

/** The store names a key past its limit only as `state`: named here. */
function checkKeys(turn, names) {
  for (const key of [...Object.keys(turn.state ?? {}), ...Object.keys(turn.stateIfAbsent ?? {})]) {
    if (key.length > KEY_MAX) {
      // The namespace may be what is long: the key's parts are named, not one.
      throw new TypeError(`The namespace, checkpoint id, channel, version and task id of ${names[key] === undefined ? "a key" : shownName(names[key])} make a key longer than ${KEY_MAX} UTF-16 code units once URI-encoded: it cannot be stored.`);
    }
  }
}

/** Whether the run that made `config` was stopped: its signal aborted. */
function stopped(config) {
  try {
    return config.signal?.aborted === true;
  } catch {
    return false;
  }
}

function required(config, field, what) {
  const value = config?.configurable?.[field];
  if (typeof value !== "string" || value === "") {
    throw new Error(`Failed to ${what}: the config's configurable.${field} must be a non-empty string.`);
  }
  return value;
}

export class AttacheCheckpointSaver extends BaseCheckpointSaver {
  /**
   * @param {import("attache").SessionStore} store a MemorySessionStore or an IdbSessionStore
   * @param {import("@langchain/langgraph-checkpoint").SerializerProtocol} [serde]
   */
  constructor(store, serde) {
    super(serde);
    if (!store || typeof store.commitTurn !== "function" || typeof store.loadSessionStates !== "function") {
      throw new TypeError("AttacheCheckpointSaver needs a MemorySessionStore or an IdbSessionStore");
    }
    this.store = store;
    // Items of array values the serializer has read back, each to the
    // JSON text it read (see _readsBack).
    this._readable = new WeakMap();
    // Threads deleted here, each to its delete's own mark: a stopped run's
    // late writes must not bring one back (see _commit).
    this._deleted = new Map();
    // Threads deleted here whose live run's next checkpoints store every
    // channel's value, each to the namespaces stored whole since (see _commit).
    this._partial = new Map();
  }

  /** The serializer's output, as JSON where it is JSON, named by `name` (a channel's). */
  async _encode(value, name) {
    const named = name === undefined ? {} : { name };
    const what = `A value${name === undefined ? "" : ` of channel "${name}"`}`;
    let type, data;
    try {
      [type, data] = await this.serde.dumpsTyped(value);
    } catch (cause) {
      // The serializer's own walk ran out of stack.
      if (cause instanceof RangeError) throw new TypeError(`${what} nests too deep for the serializer: it cannot be stored.`, { cause });
      throw cause;
    }
    if (type === "json") {
      // A lone surrogate (text cut through an emoji) becomes U+FFFD: the
      // store refuses it, and kept as text the guard would read less.
      const text = wellFormedJson(typeof data === "string" ? data : new TextDecoder().decode(data), () =>
        new TypeError(`${what} holds two keys of one object that are the same once lone surrogates are U+FFFD: it cannot be stored.`));
      // A function or a symbol: JSON has nothing for it to read back.
      if (text === "") throw new TypeError(`${what} has no JSON form (a function or a symbol, say): it cannot be stored.`);
      if (text === `"${UNSERIALIZABLE}"` && value !== UNSERIALIZABLE) {
        throw new TypeError(`${what} cannot be serialized (a BigInt, a toJSON that throws, or nesting too deep): it cannot be stored.`);
      }
      let record;
      if (depthOf(text) > VALUE_DEPTH) record = { t: type, ...named, as: "s", value: text };
      else {
        const parsed = parseJson(text);
        record = packBytes(parsed) ? { t: type, ...named, bytes: 1, value: parsed } : { t: type, ...named, value: parsed };
      }
      if (text.includes('"lc"')) await this._readsBack(value, record, what, text);
      return record;
    }
    if (typeof data === "string") return { t: type, ...named, as: "s", value: data };
    const text = utf8(data);
    return text === null ? { t: type, ...named, as: "l", value: latin1(data) } : { t: type, ...named, as: "u", value: text };
  }

  /**
   * Refuses what the serializer cannot read back. Its reviver takes an
   * object with an `lc` key for LangChain's own, and one it cannot revive
   * (a tool's JSON of that shape, a missing secret, kwargs past its 50
   * levels, which it counts from each LangChain object) would break each
   * read of the thread. An array (a messages channel) is read an item at
   * a time, and an item object whose JSON is what read back before is
   * not read again: a step reads its new and its edited messages only.
   */
  async _readsBack(value, record, what, text) {
    const byItem = record.as === undefined && Array.isArray(value) && Array.isArray(record.value) && value.length === record.value.length;
    const items = byItem ? record.value.map((item, i) => [value[i], item]) : [[undefined, record.value]];
    for (const [original, item] of items) {
      // Whole, the serializer's own text (packed bytes need their packed form).
      const itemText = record.as === "s" ? item : byItem || record.bytes === 1 ? stringifyJson(item) : text;
      if (!itemText.includes('"lc"')) continue;
      const known = byItem && original !== null && typeof original === "object";
      if (known && this._readable.get(original) === itemText) continue;
      try {
        // Bytes need _decode, which takes them out in place: of a copy.
        await (record.bytes === 1 ? this._decode({ ...record, value: parseJson(itemText) }) : this.serde.loadsTyped(record.t, itemText));
      } catch (e) {
        // Its reason, without the value its message quotes after " -> ".
        const reason = redactCredentials(String(e?.message).split(" -> ")[0].slice(0, 200)).value;
        throw new TypeError(`${what} cannot be read back by the serializer (${reason}): it cannot be stored.`);
      }
      if (known) this._readable.set(original, itemText);
    }
  }

  /** Each object item of `value`, decoded from stored JSON `texts[i]`, as read back already. */
  _read(value, texts) {
    if (!texts || !Array.isArray(value) || value.length !== texts.length) return value;
    for (const [i, item] of value.entries()) {
      if (item !== null && typeof item === "object" && texts[i].includes('"lc"')) this._readable.set(item, texts[i]);
    }
    return value;
  }

  /** A checkpoint's metadata, its parents as LangGraph gave them (see storableMetadata). */
  async _metadata(stored) {
    const metadata = await this._decode(stored);
    if (stored.ns !== 1) return metadata;
    try {
      metadata.parents = parseJson(dec(metadata.parents));
    } catch (cause) {
      // Another program's record, or a damaged import.
      throw new TypeError("A checkpoint's stored metadata.parents is not the URI-encoded JSON attache writes: it cannot be read.", { cause });
    }
    return metadata;
  }

  async _decode(stored, text) {
    // Before values were named (0.1): { t, j }, { t, s } and { t, b }.
    const { t, as } = stored;
    if (as === "s") return this.serde.loadsTyped(t, stored.value);
    if (as === "u") return this.serde.loadsTyped(t, new TextEncoder().encode(stored.value));
    if (as === "l") return this.serde.loadsTyped(t, fromLatin1(stored.value));
    if (as === "b") return this.serde.loadsTyped(t, fromBase64(stored.value));
    if (stored.bytes === 1) {
      const taken = Object.assign([], { token: `\u0000attache:bytes:${randomFraction().toString(36).slice(2)}:` });
      const value = takeBytes(stored.value, taken);
      return restore(await this.serde.loadsTyped(t, stringifyJson(value)), taken);
    }
    if ("value" in stored || "j" in stored) return this.serde.loadsTyped(t, text ?? stringifyJson("value" in stored ? stored.value : stored.j));
    return this.serde.loadsTyped(t, "s" in stored ? stored.s : fromBase64(stored.b));
  }

  /**
   * One commit; a thread's first creates its session and commits again.
   * A refusal names a key, so its message gets what the key holds, by
   * `names`, which a graph's user knows.
   */
  async _commit(threadId, turn, names, config, whole) {
    checkKeys(turn, names);
    const partial = this._partial.get(threadId);
    try {
      // A live run's first checkpoint in a namespace since this saver
      // deleted its thread holds every channel's value (`whole`): the
      // delete took those it did not change, which MemorySaver keeps in the
      // checkpoint. The run's writes may have made the thread again before
      // it. (A new thread's first checkpoint stores only what it changed.)
      const again = whole !== undefined && partial !== undefined && !stopped(config) && !partial.has(whole.ns);
      if (again) {
        turn = { ...turn, state: { ...(await whole.unchanged()), ...turn.state } };
        checkKeys(turn, names);
      }
      // Read with no await before the first commit: a delete here after
      // it comes after this write.
      const mark = this._deleted.get(threadId);
      let made = false;
      for (let attempt = 0; ; attempt++) {
        if (attempt > 0) {
          try {
            await this.store.createSession({ id: threadId });
          } catch (e) {
            // Another put created it first.
            if (e?.code !== "ALREADY_EXISTS") throw e;
          }
          made = true;
        }
        try {
          await this.store.commitTurn(threadId, turn);
          break;
        } catch (e) {
          // Deleted each time it was made again (elsewhere): the store's error.
          if (e?.code !== "NOT_FOUND" || attempt >= 3) throw e;
        }
        // A stopped run's write that finds its thread deleted here
        // (LangGraph still writes after invoke rejects): as if it landed
        // before the delete, which took it with the rest. So is one whose
        // thread a delete here took again as it was made. A live run's
        // write makes it again.
        if ((mark !== undefined && stopped(config)) || (made && this._deleted.get(threadId) !== mark)) return;
      }
      // Back, it is no longer marked, unless a delete since marked it anew.
      if (made && this._deleted.get(threadId) === mark) this._deleted.delete(threadId);
      if (again && this._partial.get(threadId) === partial) {
        // The root's checkpoint comes last in a step: then it is whole.
        if (whole.ns === "") this._partial.delete(threadId);
        else partial.add(whole.ns);
      }
    } catch (e) {
      const field = typeof e?.field === "string" ? e.field : "";
      // Keys are named as JS reaches them: `state["lg/c//…"]`.
      // A long path comes cut, ending in "…": the key it starts.
      const cut = field.endsWith("…") ? field.slice(0, -1) : undefined;
      const key = Object.keys(names).find((k) =>
        [`state[${stringifyJson(k)}]`, `stateIfAbsent[${stringifyJson(k)}]`].some(
          (at) => field === at || field.startsWith(`${at}.`) || field.startsWith(`${at}[`) || (cut !== undefined && at.startsWith(cut)),
        ),
      );
      if (key !== undefined && typeof e.message === "string") {
        // A frozen error keeps its message: the refusal matters more.
        try {
          e.message += ` (${shownName(names[key])})`;
        } catch {}
      }
      throw e;
    }
  }

  /** State values by key, in calls the store takes (at most 10,000 keys each). */
  async _load(threadId, keys) {
    const values = [];
    for (let at = 0; at < keys.length; at += LOAD_MAX) {
      values.push(...(await this.store.loadSessionStates(threadId, keys.slice(at, at + LOAD_MAX))));
    }
    return values;
  }

  /**
   * A checkpoint's tuple from its stored record, with its values and
   * writes. `metadata`, when list() has read it: reading takes bytes out
   * of the record, so a second read would find their tokens.
   */
  async _tuple(threadId, ns, id, record, metadata) {
    const checkpoint = await this._decode(record.checkpoint);
    const versions = Object.entries(checkpoint.channel_versions ?? {});
    const writeKeys = await this.store.listSessionStateKeys(threadId, { prefix: writesPrefix(ns, id) });
    const keys = [...versions.map(([channel, version]) => blobKey(ns, channel, version)), ...writeKeys];
    const values = await this._load(threadId, keys);
    checkpoint.channel_values = {};
    for (const [i, [channel]] of versions.entries()) {
      const blob = values[i];
      if (blob && blob.t !== "empty") {
        // Taken before _decode takes bytes out of them; joined, they are
        // the array's own text, which the serializer then reads.
        const texts = blob.as === undefined && Array.isArray(blob.value) ? blob.value.map((item) => stringifyJson(item)) : null;
        checkpoint.channel_values[channel] = this._read(await this._decode(blob, texts && `[${texts.join(",")}]`), texts);
      }
    }
    const writes = values.slice(versions.length).filter(Boolean);
    if (checkpoint.v < 4 && record.parent != null) await this._migratePendingSends(checkpoint, threadId, ns, record.parent);
    const tuple = {
      config: { configurable: { thread_id: threadId, checkpoint_ns: ns, checkpoint_id: id } },
      checkpoint,
      metadata: metadata ?? (await this._metadata(record.metadata)),
      pendingWrites: await this._pendingWrites(writes),
    };
    if (record.parent != null) {
      tuple.parentConfig = { configurable: { thread_id: threadId, checkpoint_ns: ns, checkpoint_id: record.parent } };
    }
    return tuple;
  }

  /** Stored writes in `writesSortKey` order, as LangGraph replays them. */
  async _pendingWrites(writes) {
    const sorted = writes
      .map((w) => ({ w, key: writesSortKey(w.path ?? "", w.task, w.idx) }))
      .sort((a, b) => compareWritesSortKeys(a.key, b.key));
    return Promise.all(sorted.map(async ({ w }) => [w.task, w.channel, await this._decode(w.value)]));
  }

  /** Checkpoints before format 4 kept pending sends in the parent's writes. */
  async _migratePendingSends(checkpoint, threadId, ns, parentId) {
    const keys = await this.store.listSessionStateKeys(threadId, { prefix: writesPrefix(ns, parentId) });
    const writes = (await this._load(threadId, keys)).filter((w) => w?.channel === TASKS);
    const sorted = await this._pendingWrites(writes);
    checkpoint.channel_values ??= {};
    checkpoint.channel_values[TASKS] = sorted.map(([, , value]) => value);
    checkpoint.channel_versions ??= {};
    const versions = Object.values(checkpoint.channel_versions);
    // 1, not getNextVersion's random fraction: this is not stored, and each
    // read of the checkpoint must give the same version.
    checkpoint.channel_versions[TASKS] = versions.length > 0 ? maxChannelVersion(...versions) : 1;
  }

  /**
   * The next version, unique to its branch. LangGraph numbers a new
   * version from the highest it sees, so a fork (updateState on an old
   * checkpoint, two runs from one parent) would reuse the other branch's
   * numbers, and values are stored per version: it would overwrite them.
   * A random fraction keeps versions numbers, ordered as before, and the
   * integer counters of checkpoints stored earlier still compare. From
   * crypto: a mocked Math.random would give two forks one version.
   */
  getNextVersion(current) {
    return (typeof current === "number" && Number.isFinite(current) ? Math.floor(current) : 0) + 1 + randomFraction();
  }

  /** The newest checkpoint's id in a namespace, or undefined. */
  async _latestId(threadId, ns) {
    const [latest] = await this.store.listSessionStateKeys(threadId, { prefix: checkpointPrefix(ns), reverse: true, limit: 1 });
    return latest === undefined ? undefined : parseCheckpointKey(latest).id;
  }

  async getTuple(config) {
    const target = await this._target(config);
    return target && this._tuple(target.threadId, target.ns, target.id, target.record);
  }

  /** The checkpoint `config` names, else its thread's latest: `{threadId, ns, id, record}`. */
  async _target(config) {
    const threadId = config?.configurable?.thread_id;
    // As MemorySaver: no thread, no checkpoint.
    if (threadId === undefined || threadId === null || threadId === "") return undefined;
    const ns = identifier("config's configurable.checkpoint_ns", config.configurable.checkpoint_ns ?? "");
    const asked = getCheckpointId(config);
    const id = asked ? identifier("config's configurable.checkpoint_id", asked) : await this._latestId(threadId, ns);
    if (!id) return undefined;
    const [record] = await this.store.loadSessionStates(threadId, [checkpointKey(ns, id)]);
    return record ? { threadId, ns, id, record } : undefined;
  }

  /**
   * Each channel's writes since its nearest stored value, along the
   * target's ancestors, as BaseCheckpointSaver defines them. The default
   * built each ancestor's whole tuple, every channel decoded (a review
   * counted 548 store calls loading a 30-turn thread); this reads the
   * checkpoint records, the asked channels' values, and the walked
   * checkpoints' writes in one listing and one load.
   */
  async getDeltaChannelHistory(options) {
    const { config, channels: asked } = options ?? {};
    const refused = () => new TypeError("getDeltaChannelHistory needs its channels as an array of strings.");
    if (!Array.isArray(asked)) throw refused();
    // Copied by index: the array's own iterator may never end (new Set
    // would spin on it), and a hole is no string.
    const channels = [];
    for (let i = 0; i < asked.length; i++) {
      if (typeof asked[i] !== "string") throw refused();
      channels.push(asked[i]);
    }
    // An old checkpoint's pending sends are rebuilt by _tuple: the default walk.
    if (channels.length === 0 || channels.includes(TASKS)) return super.getDeltaChannelHistory({ config, channels });
    const target = await this._target(config);
    const { threadId, ns } = target ?? {};
    const walked = []; // [checkpoint id, the channels still open there], newest first
    const seeds = new Map();
    if (target) {
      const open = new Set(channels);
      const unseeded = new Set(); // value keys known to hold no value
      let parent = target.record.parent;
      // A checkpoint that is its own ancestor (put with its own id as the
      // parent) ends the walk where it comes round again.
      const visited = new Set();
      while (parent != null && open.size > 0 && !visited.has(parent)) {
        visited.add(parent);
        const [record] = await this.store.loadSessionStates(threadId, [checkpointKey(ns, parent)]);
        if (!record) break;
        walked.push([parent, new Set(open)]);
        const versions = (await this._decode(record.checkpoint)).channel_versions ?? {};
        const keyed = [...open]
          .filter((ch) => Object.hasOwn(versions, ch))
          .map((ch) => [ch, blobKey(ns, ch, versions[ch])])
          .filter(([, key]) => !unseeded.has(key));
        const blobs = keyed.length > 0 ? await this._load(threadId, keyed.map(([, key]) => key)) : [];
        for (const [i, [ch, key]] of keyed.entries()) {
          if (blobs[i] && blobs[i].t !== "empty") {
            seeds.set(ch, await this._decode(blobs[i]));
            open.delete(ch);
          } else unseeded.add(key);
        }
        parent = record.parent;
      }
    }
    const byCheckpoint = new Map(walked.map(([id]) => [id, []]));
    if (walked.length > 0) {
      const keys = (await this.store.listSessionStateKeys(threadId, { prefix: writesPrefix(ns) }))
        .map((key) => [key, writeCheckpointId(key)])
        .filter(([, id]) => byCheckpoint.has(id));
      for (const [i, write] of (await this._load(threadId, keys.map(([key]) => key))).entries()) {
        if (write) byCheckpoint.get(keys[i][1]).push(write);
      }
    }
    const result = Object.fromEntries(channels.map((ch) => [ch, { writes: [] }]));
    // Oldest first; within a checkpoint, in writesSortKey order.
    for (const [id, open] of walked.reverse()) {
      const writes = byCheckpoint.get(id).filter((w) => open.has(w.channel));
      for (const write of await this._pendingWrites(writes)) result[write[1]].writes.push(write);
    }
    for (const [ch, seed] of seeds) result[ch].seed = seed;
    return result;
  }

  /** Newest first: by checkpoint id across namespaces, then threads in the store's order. */
  async *list(config, options) {
    const { before, filter, limit: asked } = options ?? {};
    // As MemorySaver compares it: "2" is 2, null is 0.
    let limit;
    try {
      limit = asked === undefined ? undefined : Number(asked);
    } catch {
      throw new TypeError(`The list's limit must be a number (got ${typeof asked}).`);
    }
    const threadId = config?.configurable?.thread_id;
    const ns = config?.configurable?.checkpoint_ns;
    if (ns !== undefined) identifier("config's configurable.checkpoint_ns", ns);
    const onlyId = config?.configurable?.checkpoint_id;
    if (onlyId) identifier("config's configurable.checkpoint_id", onlyId);
    const beforeId = before?.configurable?.checkpoint_id;
    if (beforeId) identifier("before's configurable.checkpoint_id", beforeId);
    // As MemorySaver: an empty thread id lists every thread.
    const threads = threadId ? [threadId] : (await this.store.listSessions()).map((s) => s.id);
    for (const thread of threads) {
      const keys = await this.store.listSessionStateKeys(thread, { prefix: checkpointPrefix(ns) });
      const found = keys
        .map(parseCheckpointKey)
        .filter(({ id }) => (!onlyId || id === onlyId) && (!beforeId || id < beforeId))
        .sort((a, b) => (a.id < b.id ? 1 : a.id > b.id ? -1 : a.ns < b.ns ? -1 : 1));
      // Records a page at a time, one call each: a caller that stops
      // early has not paid for the rest.
      for (let start = 0; start < found.length; ) {
        if (limit !== undefined && limit <= 0) return;
        // A page is never empty: limit may be 1.5 or NaN, as before.
        const size = limit === undefined || filter || !(limit >= 1) ? LIST_PAGE : Math.min(LIST_PAGE, Math.ceil(limit));
        const page = found.slice(start, start + size);
        start += page.length;
        const records = await this.store.loadSessionStates(thread, page.map(({ ns: at, id }) => checkpointKey(at, id)));
        for (const [i, { ns: at, id }] of page.entries()) {
          const record = records[i];
          if (!record) continue;
          const metadata = await this._metadata(record.metadata);
          if (filter && !Object.entries(filter).every(([k, v]) => metadata?.[k] === v)) continue;
          if (limit !== undefined && limit <= 0) return;
          if (limit !== undefined) limit -= 1;
          yield this._tuple(thread, at, id, record, metadata);
        }
      }
    }
  }

  async put(config, checkpoint, metadata, newVersions) {
    const threadId = required(config, "thread_id", "put a checkpoint");
    const ns = identifier("config's configurable.checkpoint_ns", config.configurable.checkpoint_ns ?? "");
    // Each part read once, from the copy: a getter could give the checks
    // one id or version, and the key another.
    const prepared = copyCheckpoint(checkpoint ?? {});
    const id = identifier("checkpoint's id", prepared.id);
    // Empty, it would be stored, and listed, but no getTuple finds it.
    if (id === "") throw new TypeError("The checkpoint's id must not be empty.");
    // The parent: a tuple's parentConfig names it, and getTuple takes a string.
    const asked = config.configurable.checkpoint_id;
    const parent = asked === undefined || asked === null || asked === "" ? null : identifier("config's configurable.checkpoint_id", asked);
    const changed = Object.entries(newVersions ?? {});
    const own = prepared.channel_versions ?? {};
    for (const [, v] of [...changed, ...Object.entries(own)]) version(v);
    // A value is read back by the checkpoint's version of its channel: by
    // another (LangGraph's newVersions are the checkpoint's own), it would
    // be stored where no read finds it.
    for (const [channel, v] of changed) {
      if (!Object.hasOwn(own, channel) || own[channel] !== v) {
        throw new TypeError(`The checkpoint's channel_versions must give channel "${shownName(channel)}" the version newVersions gives it.`);
      }
    }
    const values = prepared.channel_values ?? {};
    prepared.channel_values = {};
    const state = {};
    const names = {};
    for (const [channel, version] of changed) {
      const key = blobKey(ns, channel, version);
      names[key] = `channel "${channel}"`;
      // Own keys only: an empty channel named `toString` holds no value.
      state[key] = Object.hasOwn(values, channel) ? await this._encode(values[channel], channel) : { t: "empty" };
    }
    const key = checkpointKey(ns, id);
    names[key] = `checkpoint ${id}`;
    const storable = storableMetadata(metadata);
    state[key] = { checkpoint: await this._encode(prepared), metadata: await this._encode(storable ?? metadata), parent };
    if (storable) state[key].metadata.ns = 1;
    refuseInKeys([shownNamespace(ns), id, ...changed.flatMap(([channel, version]) => [channel, String(version)])]);
    // Read only for a live run's first checkpoint after a delete here: the
    // values of the channels it did not change, which the delete took.
    const unchanged = async () => {
      const kept = {};
      for (const [channel, version] of Object.entries(own)) {
        const key = blobKey(ns, channel, version);
        if (key in state || !Object.hasOwn(values, channel)) continue;
        names[key] = `channel "${channel}"`;
        refuseInKeys([channel, String(version)]);
        kept[key] = await this._encode(values[channel], channel);
      }
      return kept;
    };
    await this._commit(threadId, { state }, names, config, { ns, unchanged });
    return { configurable: { thread_id: threadId, checkpoint_ns: ns, checkpoint_id: id } };
  }

  /** The first write of a `(task, index)` is kept; a special channel's (an error, an interrupt) is replaced. */
  async putWrites(config, writes, taskId, taskPath) {
    const threadId = required(config, "thread_id", "put writes");
    const checkpointId = required(config, "checkpoint_id", "put writes");
    const ns = identifier("config's configurable.checkpoint_ns", config.configurable.checkpoint_ns ?? "");
    identifier("task id", taskId);
    // Refused here as put refuses a lone surrogate: stored, the store would
    // name its own key.
    if (taskPath != null) enc(identifier("task path", taskPath));
    if (!Array.isArray(writes)) throw new TypeError("putWrites needs its writes as an array.");
    // Nothing to keep: no session is made for it, as MemorySaver makes none.
    if (writes.length === 0) return;
    const state = {};
    const stateIfAbsent = {};
    const names = {};
    for (const [i, write] of writes.entries()) {
      if (!Array.isArray(write)) throw new TypeError("Each write must be a [channel, value] array.");
      const [channel, value] = write;
      enc(identifier("write's channel", channel));
      // Own keys only: a channel named `toString` is no special one.
      const special = Object.hasOwn(WRITES_IDX_MAP, channel) ? WRITES_IDX_MAP[channel] : undefined;
      const idx = special ?? i;
      let encoded = await this._encode(value, channel);
      // An error is kept without its credentials (a 401 quoting the key):
      // refused, LangGraph would drop it unseen, and the run's error with it.
      if (channel === ERROR) encoded = redactCredentials(encoded).value;
      const key = writeKey(ns, checkpointId, taskId, idx);
      names[key] = `task ${taskId}'s write to channel "${channel}"`;
      (special !== undefined ? state : stateIfAbsent)[key] = { task: taskId, idx, channel, value: encoded, path: taskPath ?? "" };
    }
    refuseInKeys([shownNamespace(ns), checkpointId, taskId]);
    await this._commit(threadId, { state, stateIfAbsent }, names, config);
  }

  /** A thread is a session: deleting it deletes the session, whatever else it held. */
  async deleteThread(threadId) {
    if (typeof threadId === "string") {
      // Newest last; the oldest past DELETES_KEPT is forgotten: a stopped
      // run writes late by moments, and a saver that deletes a thread per
      // conversation would otherwise keep every id it ever deleted.
      for (const [map, mark] of [[this._deleted, {}], [this._partial, new Set()]]) {
        map.delete(threadId);
        map.set(threadId, mark);
        if (map.size > DELETES_KEPT) map.delete(map.keys().next().value);
      }
    }
    await this.store.deleteSession(threadId);
  }
}
