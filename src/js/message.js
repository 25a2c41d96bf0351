// The consolidated message's objects, built in JS so one call makes each:
// frozen, since every caller shares the same objects.
export function textPart(text) {
  return Object.freeze({ type: "text", text });
}

export function userMessage(parts) {
  return Object.freeze({ role: "user", content: Object.freeze(parts) });
}
