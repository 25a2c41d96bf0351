//! The wasm-bindgen surface: conversion and error mapping only. Behaviour
//! lives in the pure core.

mod attachment_store;
mod error;
mod types;

pub use attachment_store::AttachmentStore;
pub use error::is_attache_error;
