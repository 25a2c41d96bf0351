//! The converters between attache's messages and each provider's shape.

use wasm_bindgen::prelude::*;

use super::error::to_js as error_to_js;
use super::values::{from_js, list_from_js, to_js};
use crate::json::Value;
use crate::message::{ai_sdk, anthropic, openai, to_values, At, Message, Sourced};
use crate::Error;

fn messages(value: &JsValue) -> Result<Vec<Sourced>, Error> {
    let messages = Message::list(&list_from_js(value, "messages")?, "messages")?;
    let at = |(i, m)| (At::Item("messages", i), m);
    Ok(messages.into_iter().enumerate().map(at).collect())
}

fn to(
    value: &JsValue,
    convert: fn(&[Sourced]) -> Result<Value, Error>,
) -> Result<JsValue, JsValue> {
    messages(value)
        .and_then(|m| convert(&m))
        .and_then(|v| to_js(&v))
        .map_err(|e| error_to_js(&e))
}

fn from(
    value: &JsValue,
    convert: fn(&Value, At) -> Result<Vec<Message>, Error>,
) -> Result<JsValue, JsValue> {
    from_js(value, "input")
        .and_then(|v| convert(&v, At::Name("input")))
        .and_then(|m| to_js(&to_values(&m)))
        .map_err(|e| error_to_js(&e))
}

/// `openai.chat.completions.create({ model, messages: toOpenAI(history) })`
#[wasm_bindgen(js_name = toOpenAI, unchecked_return_type = "OpenAIChatMessage[]")]
pub fn to_openai(
    #[wasm_bindgen(unchecked_param_type = "readonly MessageInput[]")] messages: JsValue,
) -> Result<JsValue, JsValue> {
    to(&messages, |m| openai::to_openai(m, None, false))
}

/// `await store.appendMessages(id, fromOpenAI(completion))`: messages, one
/// message, or a response (its `choices[0].message`).
#[wasm_bindgen(js_name = fromOpenAI, unchecked_return_type = "Message[]")]
pub fn from_openai(
    #[wasm_bindgen(unchecked_param_type = "object")] input: JsValue,
) -> Result<JsValue, JsValue> {
    from(&input, openai::from_openai)
}

/// `anthropic.messages.create({ model, max_tokens, ...toAnthropic(history) })`
#[wasm_bindgen(js_name = toAnthropic, unchecked_return_type = "AnthropicRequest")]
pub fn to_anthropic(
    #[wasm_bindgen(unchecked_param_type = "readonly MessageInput[]")] messages: JsValue,
) -> Result<JsValue, JsValue> {
    to(&messages, |m| anthropic::to_anthropic(m, None, None))
}

/// `await store.appendMessages(id, fromAnthropic(response))`: messages, one
/// message, a request (`{system?, messages}`) or a response.
#[wasm_bindgen(js_name = fromAnthropic, unchecked_return_type = "Message[]")]
pub fn from_anthropic(
    #[wasm_bindgen(unchecked_param_type = "object")] input: JsValue,
) -> Result<JsValue, JsValue> {
    from(&input, anthropic::from_anthropic)
}

/// `generateText({ model, ...buildRequest({ format: "ai-sdk", history }) })`
/// sends these: AI SDK 7 takes a system message only as `instructions`,
/// which `buildRequest` moves it to, and `toAiSdk(history)` keeps in the list.
#[wasm_bindgen(js_name = toAiSdk, unchecked_return_type = "AiSdkMessage[]")]
pub fn to_ai_sdk(
    #[wasm_bindgen(unchecked_param_type = "readonly MessageInput[]")] messages: JsValue,
) -> Result<JsValue, JsValue> {
    to(&messages, |m| ai_sdk::to_ai_sdk(m, None, None))
}

/// `await store.appendMessages(id, fromAiSdk(result.responseMessages))`:
/// every step's (AI SDK 7; in 7 `result.response.messages` holds the last
/// step's alone, its tool round lost; in 5 and 6 it held every step's).
#[wasm_bindgen(js_name = fromAiSdk, unchecked_return_type = "Message[]")]
pub fn from_ai_sdk(
    #[wasm_bindgen(unchecked_param_type = "object")] input: JsValue,
) -> Result<JsValue, JsValue> {
    from(&input, ai_sdk::from_ai_sdk)
}
