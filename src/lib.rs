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
