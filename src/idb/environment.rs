use js_sys::{Function, Reflect};
use wasm_bindgen::prelude::*;
use wasm_bindgen::{JsCast, JsValue};

#[wasm_bindgen(module = "/src/js/snippet.js")]
extern "C" {
    /// `Date.now()`, or NaN where a mock of it throws.
    fn now() -> f64;
}

use crate::session::Environment;

/// `Date.now()` and `crypto.randomUUID()`, which windows and workers alike
/// provide in secure contexts (including localhost).
pub struct BrowserEnvironment;

impl Environment for BrowserEnvironment {
    fn clock(&self) -> f64 {
        now()
    }

    fn new_id(&self) -> String {
        let crypto =
            Reflect::get(&js_sys::global(), &"crypto".into()).unwrap_or(JsValue::UNDEFINED);
        Reflect::get(&crypto, &"randomUUID".into())
            .ok()
            .and_then(|f| f.dyn_into::<Function>().ok())
            .and_then(|f| f.call0(&crypto).ok())
            // A page's replacement may answer anything: a huge one is not
            // copied in.
            .and_then(|id| crate::js::values::short_string(&id))
            .filter(|id| !id.is_empty())
            // Outside a secure context: time plus randomness, still unique enough per origin.
            .unwrap_or_else(|| {
                format!(
                    "{:x}-{:x}",
                    now() as u64,
                    (js_sys::Math::random() * 1e15) as u64
                )
            })
    }
}
