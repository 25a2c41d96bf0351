//! The host's own secrets, registered so no part of attache stores or pins
//! them (the page's API key, say).

use wasm_bindgen::prelude::*;

use super::error::to_js;
use super::values::string_arg;
use crate::credentials;

/// `registerSecret(apiKey) // refused wherever it appears from now on`
///
/// At least 8 characters. Held in this page's wasm memory only, never stored.
#[wasm_bindgen(js_name = registerSecret)]
pub fn register_secret(
    #[wasm_bindgen(unchecked_param_type = "string")] secret: JsValue,
) -> Result<(), JsValue> {
    // Not an id: the secret itself is what the id check would refuse.
    let secret = string_arg(&secret, "secret").map_err(|e| to_js(&e))?;
    credentials::register_host_secret(&secret).map_err(|e| to_js(&e))
}

/// `forgetSecrets() // when the user signs out, say`
#[wasm_bindgen(js_name = forgetSecrets)]
pub fn forget_secrets() {
    credentials::clear_host_secrets();
}
