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

/// A new object with no prototype, for anything attache hands a platform
/// API or builds to copy into: IndexedDB and `defineProperty` read
/// inherited members, and `Reflect.set` meets an inherited setter or
/// read-only key, so a polluted Object.prototype would change them.
pub(crate) fn bare<T: wasm_bindgen::JsCast>() -> T {
    use wasm_bindgen::JsCast;
    js_sys::Object::create(wasm_bindgen::JsValue::NULL.unchecked_ref::<js_sys::Object>())
        .unchecked_into()
}
pub use environment::BrowserEnvironment;
pub use schema::VERSION;
pub use store::IdbSessionStore;
