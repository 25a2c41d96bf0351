// The demo's embedded default model: a deterministic stand-in for a real
// provider, so the demo runs offline with no credentials. It answers from
// what actually reached it in the request, which makes the attachments
// visible: it reports the pinned parts it was sent and the open todos.
export const name = "attache-echo (embedded)";

export function respond(messages) {
  const [first, ...rest] = messages;
  const pinned = isPinned(first) ? first.content.map((part) => part.text) : [];
  const said = textOf((pinned.length ? rest : messages).at(-1));
  const lines = [`You said: "${said}".`];
  if (pinned.length === 0) {
    lines.push("Nothing is pinned, so I only see the conversation.");
  } else {
    const headers = pinned.map((text) => text.split("\n", 1)[0]);
    lines.push(`The request led with ${pinned.length} pinned part(s): ${headers.join(", ")}.`);
    const open = pinned
      .filter((text) => text.startsWith("[Todo list]"))
      .flatMap((text) => text.split("\n").filter((line) => line.startsWith("- [ ] ")));
    if (open.length) lines.push(`Still open: ${open.map((line) => line.slice(6)).join("; ")}.`);
  }
  return lines.join("\n");
}

// The consolidated message is the leading user message whose parts all
// carry a built-in attachment header.
function isPinned(message) {
  return message?.role === "user" && message.content.length > 0
    && message.content.every((part) => /^\[(Pinned memory|Attached file|Todo list)/.test(part.text));
}

function textOf(message) {
  return message ? message.content.map((part) => part.text).join("") : "";
}
