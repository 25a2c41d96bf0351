//! attache: pinned context and durable sessions for browser agent loops.
//!
//! `attachment`, `budget`, `message`, `request`, `session` and `error` are pure Rust and run natively under
//! `cargo test`; `js` is the thin wasm-bindgen layer over them.

pub mod attachment;
pub mod budget;
pub mod credentials;
pub mod error;
pub mod json;
pub mod message;
pub mod request;
pub mod session;
mod text;

#[cfg(target_arch = "wasm32")]
pub mod idb;
#[cfg(target_arch = "wasm32")]
pub mod js;

pub use error::Error;

#[cfg(all(not(target_feature = "atomics"), target_family = "wasm"))]
#[global_allocator]
static TALC: talc::wasm::WasmDynamicTalc = talc::wasm::new_wasm_dynamic_allocator();

/// `items.iter().map(f).collect()`, written once: each such chain
/// otherwise instantiates `from_iter` and `extend` for its own types.
pub(crate) fn map_vec<T, U>(items: &[T], mut f: impl FnMut(&T) -> U) -> Vec<U> {
    let mut out = Vec::with_capacity(items.len());
    for item in items {
        out.push(f(item));
    }
    out
}
