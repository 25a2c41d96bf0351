//! The wasm-bindgen surface: conversion and error mapping only. Behaviour
//! lives in the pure core.

mod attachment_store;
mod attempt;
mod budget;
mod credentials;
mod error;
mod messages;
mod prefix;
mod request;
mod session_calls;
mod session_store;
mod types;
pub(crate) mod values;

pub use attachment_store::AttachmentStore;
pub use budget::{estimate_tokens, plan_turn_js};
pub use error::is_attache_error;
pub use request::build_request_js;
pub use session_store::{IdbSessionStore, MemorySessionStore};
