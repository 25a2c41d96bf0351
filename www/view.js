// DOM helpers: every string goes in as text, never as HTML.

/** An element with attributes (booleans as properties) and text or nodes. */
export function el(tag, attributes, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (typeof value === "boolean") node[name] = value;
    else node.setAttribute(name, value);
  }
  node.append(...children.filter((c) => c !== "" && c != null));
  return node;
}

export function list(items) {
  return el("ul", {}, ...items.map((text) => el("li", {}, text)));
}

export const sizeOf = (text) => new TextEncoder().encode(text).length;

/** One activity frame as a line of the timeline. */
export function describeFrame(f) {
  if (f === null) return "(a frame holding the model's key where it cannot be redacted: not shown)";
  switch (f.type) {
    case "plan": return `plan: ${f.action}, ${f.payloadTokens} of ${f.window} tokens`;
    case "compaction": return `compaction: ${f.before} messages → ${f.after}`;
    case "request": return `request ${f.step}: ${f.messages} messages, prefix ${f.prefixStable === null ? "first" : f.prefixStable ? "held" : `broken by ${f.changed}`}`;
    case "tool": return `tool ${f.name}: ${f.output}`;
    case "reply": return `reply ${f.step}: ${f.toolCalls ? `${f.toolCalls} tool call(s)` : f.text}`;
    case "stopped": return `stopped before request ${f.step}: ${f.payloadTokens} tokens would not fit the window; the next turn compacts first`;
    default: return JSON.stringify(f);
  }
}

export function download(name, text) {
  const url = URL.createObjectURL(new Blob([text], { type: "application/json" }));
  const link = el("a", { href: url, download: name });
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}
