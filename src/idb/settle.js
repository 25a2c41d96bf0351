// Watches a transaction from the moment it opens, in JS so no Rust closure
// can outlive it. Resolves with the error to report, or null: a transaction
// counts only if it completed and none of its requests failed. The first
// failing request's error is kept because WebKit leaves `tx.error` null on
// such an abort, and Firefox may complete a transaction around a failure.
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
