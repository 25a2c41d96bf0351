// Watches a write transaction from the moment it opens, in JS so no Rust
// closure can outlive it. Resolves with the error to report, or null: a
// call resolves only if its transaction completed and none of its requests
// failed (a failure the transaction survived, because a handler prevented
// its abort, still fails the call). The first failing request's error is
// kept because WebKit leaves `tx.error` null on such an abort.
export function settle(tx) {
  let first = null;
  tx.addEventListener("error", (event) => {
    first ??= event.target?.error ?? null;
  });
  return new Promise((resolve) => {
    tx.addEventListener("complete", () => resolve(first));
    tx.addEventListener("abort", () => resolve(first ?? tx.error ?? new DOMException("the transaction was aborted", "AbortError")));
  });
}
