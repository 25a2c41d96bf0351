//! The IndexedDB backend (wasm only), following Dexie and jakearchibald/idb:
//! every write is planned before its transaction opens, awaits nothing but
//! IndexedDB inside it, and counts only once the transaction completes.

mod connection;
mod environment;
mod errors;
mod export;
mod history;
mod plan;
mod records;
pub mod schema;
mod store;

pub use connection::{Durability, Hold, Listener, VersionChange};
pub use environment::BrowserEnvironment;
pub use schema::VERSION;
pub use store::IdbSessionStore;
