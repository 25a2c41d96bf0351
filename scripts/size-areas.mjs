// What each area of the wasm costs gzipped: the code section's gzip -9
// size with and without that area's function bodies. twiggy counts raw
// bytes, and raw bytes mislead: repetitive code gzips to a fraction.
// Usage: node scripts/size-areas.mjs target/size-profile/named.wasm
// AREAS='[["label","regex"],...]' weighs other areas first (a candidate's
// cost before the work to remove it), e.g. '[["fmt","fmt|pad_integral"]]'.
import { readFileSync } from "node:fs";
import { deflateSync } from "node:zlib";

const AREAS = [
  ...JSON.parse(process.env.AREAS ?? "[]").map(([label, pattern]) => [label, new RegExp(pattern)]),
  ["IndexedDB store", /attache::idb|future_to_promise|^<?idb::|oneshot/],
  ["memory store", /session::memory|session::call::run_now/],
  ["provider conversions", /attache::message/],
  ["requests, budget", /attache::(request|budget)|js::(request|budget)/],
  ["credential guard", /attache::credentials|js::credentials/],
  ["attachments, prefix", /attache::attachment|js::(attachment_store|prefix)/],
  ["session core, export", /attache::session/],
  ["bindings (js/), JSON", /attache::(js|json|error)/],
  ["export shims", /shim|maybe_catch_unwind|^[a-z]+(store)?_[a-zA-Z]+$/],
];

const wasm = readFileSync(process.argv[2] ?? "target/size-profile/named.wasm");
let at = 8;
const leb = () => {
  let value = 0, shift = 0, byte;
  do { byte = wasm[at++]; value += (byte & 0x7f) * 2 ** shift; shift += 7; } while (byte & 0x80);
  return value;
};
const name = () => { const n = leb(); const s = wasm.toString("utf8", at, at + n); at += n; return s; };
let imported = 0;
const bodies = [];
const names = new Map();
let dataBytes = Buffer.alloc(0);
while (at < wasm.length) {
  const id = wasm[at++];
  const size = leb();
  const end = at + size;
  if (id === 2) {
    for (let n = leb(); n > 0; n--) {
      name(); name();
      const kind = wasm[at++];
      if (kind === 0) { leb(); imported++; }
      else if (kind === 1) { at++; const flags = wasm[at++]; leb(); if (flags & 1) leb(); }
      else if (kind === 2) { const flags = wasm[at++]; leb(); if (flags & 1) leb(); }
      else if (kind === 3) at += 2;
      else if (kind === 4) { at++; leb(); }
      else throw new Error(`import kind ${kind}: this parser is out of date`);
    }
  } else if (id === 10) {
    for (let n = leb(); n > 0; n--) { const len = leb(); bodies.push(wasm.subarray(at, at + len)); at += len; }
  } else if (id === 11) {
    dataBytes = wasm.subarray(at, end);
  } else if (id === 0 && name() === "name") {
    while (at < end) {
      const sub = wasm[at++];
      const subEnd = leb() + at;
      if (sub === 1) for (let n = leb(); n > 0; n--) { const index = leb(); names.set(index, name()); }
      at = subEnd;
    }
  }
  at = end;
}

const gz = (parts) => deflateSync(Buffer.concat(parts), { level: 9 }).length;
const all = gz(bodies);
const area = (i) => {
  const n = names.get(i + imported) ?? "";
  return AREAS.findIndex(([, pattern]) => pattern.test(n));
};
const owner = bodies.map((_, i) => area(i));
const kb = (bytes) => (bytes / 1000).toFixed(1).padStart(6);
console.log(`code ${kb(all)} kB gzipped (${bodies.length} functions); data ${kb(gz([dataBytes]))} kB alone`);
console.log("saved if removed (kB gz) | raw kB | functions | area");
const rows = AREAS.map(([label], a) => {
  const mine = bodies.filter((_, i) => owner[i] === a);
  const rest = bodies.filter((_, i) => owner[i] !== a);
  return [all - gz(rest), mine.reduce((s, b) => s + b.length, 0), mine.length, label];
});
const others = bodies.filter((_, i) => owner[i] === -1);
rows.push([all - gz(bodies.filter((_, i) => owner[i] !== -1)), others.reduce((s, b) => s + b.length, 0), others.length, "std, core, alloc, wasm-bindgen"]);
for (const [saved, raw, count, label] of rows.sort((a, b) => b[0] - a[0])) {
  console.log(`${kb(saved)} | ${kb(raw)} | ${String(count).padStart(5)} | ${label}`);
}
