import { PlainAttachments } from "./plain.mjs";

// The render benchmark's workloads, shared with the test that checks the
// plain-JS renderer gives attache's output on them.
const para = (n) => "The agent keeps this context pinned across every turn. ".repeat(n);
const todo = (n) => ({ kind: "todo", items: Array.from({ length: n }, (_, i) => ({ text: `step ${i}: ${para(1)}`, completed: i < n / 4 })) });

export const workloads = {
  // 20 attachments, about 60 KB: a working session.
  typical: () => [
    ...Array.from({ length: 8 }, (_, i) => ({ kind: "memory", slug: `fact-${i}`, memory: para(28) })),
    ...Array.from({ length: 11 }, (_, i) => ({ kind: "file", path: `src/module_${i}.rs`, contents: para(76) })),
    todo(20),
  ],
  // 200 attachments, about 1 MB.
  heavy: () => [
    ...Array.from({ length: 100 }, (_, i) => ({ kind: "memory", slug: `fact-${i}`, memory: para(45) })),
    ...Array.from({ length: 99 }, (_, i) => ({ kind: "file", path: `src/module_${i}.rs`, contents: para(140) })),
    todo(40),
  ],
  // One 1 MB file, pinned as hosts do (cut to 8 KB with a footer), and
  // the todo list.
  "one 1 MB file": () => [
    { kind: "file", path: "data/big.json", contents: para(18724) },
    todo(20),
  ],
};

/** A workload pinned into an attache store and the plain-JS one alike. */
export function pinned(attache, make) {
  const specs = make();
  const store = new attache.AttachmentStore();
  const plain = new PlainAttachments();
  for (const spec of specs) {
    store.setAttachment(spec);
    plain.setAttachment(spec);
  }
  return { specs, store, plain };
}

/** The turn's one change: tick the todo item `i`. */
export function tick(specs, i) {
  const list = specs[specs.length - 1];
  const items = list.items.slice();
  items[i % items.length] = { ...items[i % items.length], completed: !items[i % items.length].completed };
  specs[specs.length - 1] = { kind: "todo", items };
  return specs[specs.length - 1];
}
