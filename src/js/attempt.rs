//! Calls into JS that may throw (a getter, a Proxy's trap, a host's
//! callback), made through `src/js/snippet.js` rather than with
//! wasm-bindgen's `catch`: a `catch` import that returns a value leaks a
//! slot of wasm memory each time it throws.

use js_sys::Function;
use wasm_bindgen::prelude::*;

#[wasm_bindgen(module = "/src/js/snippet.js")]
extern "C" {
    #[wasm_bindgen(js_name = tryGet)]
    fn try_get(target: &JsValue, key: &JsValue) -> JsValue;
    #[wasm_bindgen(js_name = tryParse)]
    fn try_parse(text: &str) -> JsValue;
    #[wasm_bindgen(js_name = tryPrototype)]
    fn try_prototype(value: &JsValue) -> JsValue;
    #[wasm_bindgen(js_name = tryOwnKeys)]
    fn try_own_keys(value: &JsValue) -> JsValue;
    #[wasm_bindgen(js_name = tryArrayItems)]
    fn try_array_items(value: &JsValue, max: u32, not_array: &str) -> JsValue;
    #[wasm_bindgen(js_name = tryCall0)]
    fn try_call0(f: &Function, this: &JsValue) -> JsValue;
    #[wasm_bindgen(js_name = tryCall1)]
    fn try_call1(f: &Function, this: &JsValue, arg: &JsValue) -> JsValue;
    fn threw(value: &JsValue) -> bool;
    #[wasm_bindgen(js_name = takeThrown)]
    fn take_thrown() -> JsValue;
}

fn settle(value: JsValue) -> Result<JsValue, JsValue> {
    if threw(&value) {
        Err(take_thrown())
    } else {
        Ok(value)
    }
}

/// `Reflect.get(target, key)`, or what its getter threw.
pub fn get(target: &JsValue, key: &str) -> Result<JsValue, JsValue> {
    settle(try_get(target, &key.into()))
}

/// `JSON.parse(text)`, as the engine had it at load, or what threw.
pub fn parse(text: &str) -> Result<JsValue, JsValue> {
    settle(try_parse(text))
}

/// `Reflect.getPrototypeOf(value)`, or what threw (for a non-object, or a
/// Proxy's trap).
pub fn prototype_of(value: &JsValue) -> Result<JsValue, JsValue> {
    settle(try_prototype(value))
}

/// `Reflect.ownKeys(value)`, or what a Proxy's trap threw.
pub fn own_keys(value: &JsValue) -> Result<js_sys::Array, JsValue> {
    settle(try_own_keys(value)).map(JsCast::unchecked_into)
}

/// An array's items as a plain array, or why not, or what threw.
pub fn array_items(value: &JsValue, max: u32, not_array: &str) -> Result<JsValue, JsValue> {
    settle(try_array_items(value, max, not_array))
}

/// `f.call(this)`, or what it threw.
pub fn call0(f: &Function, this: &JsValue) -> Result<JsValue, JsValue> {
    settle(try_call0(f, this))
}

/// `f.call(this, arg)`, or what it threw.
pub fn call1(f: &Function, this: &JsValue, arg: &JsValue) -> Result<JsValue, JsValue> {
    settle(try_call1(f, this, arg))
}
