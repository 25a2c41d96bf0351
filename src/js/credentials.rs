//! The host's own secrets, registered so no part of attache stores or pins
//! them (the page's API key, say).

use wasm_bindgen::prelude::*;

use super::error::to_js;
use super::values::string_arg;
use crate::credentials;

/// `registerSecret(apiKey) // refused wherever it appears from now on`
///
/// At least 8 bytes of UTF-8, surrounding whitespace aside. Held in this
/// page's wasm memory only, never stored.
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

/// `const { value, redactions } = redactCredentials(frame) // before a log line`
///
/// The guard's redact mode on any JSON value, as a redacting store would
/// keep it: each credential becomes `[REDACTED:<kind>]`, and `redactions`
/// says where. A key holding one cannot be rewritten: `CREDENTIAL`.
/// Typed `unknown`, as it takes what a host holds (an Agents SDK input,
/// a request); what is not JSON is `INVALID_VALUE`.
#[wasm_bindgen(
    js_name = redactCredentials,
    unchecked_return_type = "{ value: Json; redactions: { path: string; kind: string }[] }"
)]
pub fn redact_credentials(
    #[wasm_bindgen(unchecked_param_type = "unknown")] value: JsValue,
) -> Result<JsValue, JsValue> {
    let redact = || {
        let mut value = super::values::from_js(&value, "value")?;
        let mut found = Vec::new();
        // Named as the walk in JS names what it refuses: `value.a.b`.
        credentials::redact_value("", &mut value, &[], &mut found)
            .map_err(|e| e.within("value"))?;
        let redactions = credentials::redactions_value(&found);
        let result = crate::json!({"value": value, "redactions": redactions});
        super::values::to_js(&result)
    };
    redact().map_err(|e: crate::Error| to_js(&e))
}
