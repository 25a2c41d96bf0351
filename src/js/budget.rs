use js_sys::{Array, Function};
use wasm_bindgen::prelude::*;

use super::error::to_js;
use super::values::{from_js, is_array, list_from_js, to_js as value_to_js, Options};
use crate::budget::{
    plan_turn, Counter, Transient, TurnBudget, DEFAULT_THRESHOLD_PERCENT, TRANSIENTS,
};
use crate::message::Message;
use crate::Error;

/// A built-in counter, or the host's own function (wrapping js-tiktoken,
/// say), called with the messages and returning their token count.
pub(crate) enum JsCounter {
    Builtin(Counter),
    Host(Function),
}

impl JsCounter {
    pub(crate) fn from_js(counter: &JsValue) -> Result<Self, Error> {
        let invalid = |reason: &str| Error::argument("counter", reason);
        if counter.is_undefined() || counter.is_null() {
            return Ok(JsCounter::Builtin(Counter::Heuristic));
        }
        let kinds = || {
            invalid("must be \"heuristic\", \"openai\", \"anthropic\", \"gemini\", \"local\", {ratio, perMessage} or a function")
        };
        if let Some(name) = super::values::short_string(counter) {
            return Counter::named(&name)
                .map(JsCounter::Builtin)
                .ok_or_else(kinds);
        }
        if let Some(function) = counter.dyn_ref::<Function>() {
            return Ok(JsCounter::Host(function.clone()));
        }
        if !counter.is_object() || is_array(counter) {
            return Err(kinds());
        }
        // Read as options are: `perMesage` is a typo named, not ignored.
        let fields = Options::read_as(counter, "counter", &["ratio", "perMessage"])?;
        // Not a number: NaN, which Counter::ratio refuses in its words.
        let ratio = fields.get("ratio").as_f64().unwrap_or(f64::NAN);
        let per_message = tokens(&fields.get("perMessage"), "counter.perMessage")?;
        Ok(JsCounter::Builtin(Counter::ratio(
            ratio,
            per_message.unwrap_or(0),
        )?))
    }

    /// The consolidated message, of `chars` rendered characters; the
    /// host's function, if that is the counter, gets it as it is (frozen,
    /// attache's own: no copy to check).
    pub(crate) fn count_one(
        &self,
        message: &JsValue,
        chars: impl FnOnce() -> u64,
    ) -> Result<u64, Error> {
        match self {
            JsCounter::Builtin(counter) => Ok(counter.count_chars(&[chars()])),
            JsCounter::Host(function) => host_count(function, &Array::of1(message)),
        }
    }

    /// Every message is checked, with its path, whichever counter counts.
    /// The host's function gets the copy that was checked (see
    /// `for_counter`), not the array again: a getter read twice could
    /// answer differently.
    pub(crate) fn count(&self, messages: &JsValue, path: &str) -> Result<u64, Error> {
        let items = list_from_js(messages, path)?;
        let checked = Message::list(&items, path)?;
        self.count_read(items, &checked)
    }

    /// Messages as read and as checked: the host's function gets the read
    /// copy without `meta`, built only for it.
    fn count_read(
        &self,
        items: Vec<crate::json::Value>,
        checked: &[Message],
    ) -> Result<u64, Error> {
        match self {
            JsCounter::Builtin(counter) => Ok(counter.count_messages(checked)),
            JsCounter::Host(function) => host_count(function, &for_counter(items)?),
        }
    }
}

/// The host's count of `messages`.
fn host_count(function: &Function, messages: &JsValue) -> Result<u64, Error> {
    let counted = super::attempt::call1(function, &JsValue::UNDEFINED, messages).map_err(|e| {
        super::error::keep_cause("counter", &e);
        // An Error's message; JSON.stringify(error) is "{}".
        let said = super::attempt::get(&e, "message")
            .ok()
            .and_then(|m| super::values::host_text(&m))
            .or_else(|| super::values::host_text(&e))
            .unwrap_or_else(|| "a value that is not an Error".to_owned());
        Error::InvalidArgument {
            field: "counter".to_owned(),
            reason: format!("threw: {said}"),
        }
    })?;
    // A part of a token is a token: `text.length / 4` counts.
    // One reason for NaN, -1, undefined or a Promise: a counter
    // runs synchronously.
    // Rounded up, then bounded as any count argument is.
    counted
        .as_f64()
        .filter(|n| *n >= 0.0)
        .and_then(|n| {
            tokens(&JsValue::from_f64(n.ceil()), "counter")
                .ok()
                .flatten()
        })
        .ok_or_else(|| {
            Error::argument(
                "counter",
                "must return a non-negative number of tokens, at most 2^53 - 1, synchronously",
            )
        })
}

/// Messages as the host's counter gets them: without `meta`, which is
/// never sent, so a counter that counts the JSON does not count it.
fn for_counter(mut items: Vec<crate::json::Value>) -> Result<JsValue, Error> {
    for item in &mut items {
        if let crate::json::Value::Object(message) = item {
            message.remove("meta");
        }
    }
    value_to_js(&crate::json::Value::Array(items))
}

/// A count argument: absent, or a non-negative safe integer.
pub(crate) fn tokens(value: &JsValue, field: &str) -> Result<Option<u64>, Error> {
    if value.is_undefined() || value.is_null() {
        return Ok(None);
    }
    match value.as_f64() {
        Some(n) if n >= 0.0 && n.fract() == 0.0 && n <= 9_007_199_254_740_991.0 => {
            Ok(Some(n as u64))
        }
        _ => Err(Error::argument(
            field,
            "must be a non-negative safe integer",
        )),
    }
}

/// ```js
/// estimateTokens(messages)                       // the heuristic
/// estimateTokens(messages, "anthropic")          // a preset
/// estimateTokens(messages, { ratio: 3.7, perMessage: 4 })
/// estimateTokens(messages, (ms) => myTokenizer(ms))
/// ```
#[wasm_bindgen(js_name = estimateTokens)]
pub fn estimate_tokens(
    #[wasm_bindgen(unchecked_param_type = "readonly MessageInput[]")] messages: JsValue,
    #[wasm_bindgen(unchecked_optional_param_type = "TokenCounterSpec")] counter: JsValue,
) -> Result<f64, JsValue> {
    let counter = JsCounter::from_js(&counter).map_err(|e| to_js(&e))?;
    counter
        .count(&messages, "messages")
        .map(|n| n as f64)
        .map_err(|e| to_js(&e))
}

/// ```js
/// const plan = planTurn({ contextWindow: 200_000, history, overheadTokens: 1200,
///                         attachments: store.consolidatedMessage(), counter: "anthropic" });
/// if (plan.action === "compact") await compact(history, plan.historyBudget);
/// ```
#[wasm_bindgen(js_name = planTurn, unchecked_return_type = "TurnPlan")]
pub fn plan_turn_js(
    #[wasm_bindgen(unchecked_param_type = "PlanTurnOptions")] options: JsValue,
) -> Result<JsValue, JsValue> {
    plan(&options).map_err(|e| to_js(&e))
}

fn plan(options: &JsValue) -> Result<JsValue, Error> {
    let options = Options::read(
        options,
        &[
            "contextWindow",
            "thresholdPercent",
            "history",
            "overheadTokens",
            "attachments",
            "contributors",
            "memories",
            "counter",
        ],
    )?;
    let get = |name: &str| options.get(name);
    let counter = JsCounter::from_js(&get("counter"))?;
    let context_window = tokens(&get("contextWindow"), "contextWindow")?
        .ok_or_else(|| Error::argument("contextWindow", "is required"))?;
    let threshold =
        tokens(&get("thresholdPercent"), "thresholdPercent")?.unwrap_or(DEFAULT_THRESHOLD_PERCENT);
    let history = get("history");
    let history_tokens = match tokens(&history, "history") {
        Ok(Some(n)) => n,
        _ if is_array(&history) => counter.count(&history, "history")?,
        _ => {
            return Err(Error::argument(
                "history",
                "must be the history's messages or its token count",
            ))
        }
    };
    // One list, in the order the core gives, each source checked under
    // its own name. The host's counter gets what was checked, not the
    // values again: a second read could differ, or claim a length of
    // 2^32 - 1.
    let mut read = Vec::new();
    let mut checked = Vec::new();
    for source in TRANSIENTS {
        let (name, list) = match source {
            Transient::Attachments => ("attachments", false),
            Transient::Contributors => ("contributors", true),
            Transient::Memories => ("memories", true),
        };
        let value = get(name);
        if value.is_undefined() || value.is_null() {
            continue;
        }
        if !list {
            let value = from_js(&value, name)?;
            checked.push(crate::request::consolidated(&value)?);
            read.push(value);
        } else if is_array(&value) {
            let items = list_from_js(&value, name)?;
            checked.extend(Message::list(&items, name)?);
            read.extend(items);
        } else {
            return Err(Error::argument(name, "must be an array of messages"));
        }
    }
    let transient_tokens = if read.is_empty() {
        0
    } else {
        counter.count_read(read, &checked)?
    };
    let plan = plan_turn(TurnBudget {
        context_window,
        threshold_percent: threshold,
        history_tokens,
        overhead_tokens: tokens(&get("overheadTokens"), "overheadTokens")?.unwrap_or(0),
        transient_tokens,
    })?;
    let (action, emergency) = plan.action.name();
    value_to_js(&crate::json!({
        "action": action,
        "emergency": emergency,
        "payloadTokens": plan.payload_tokens,
        "historyTokens": plan.history_tokens,
        "transientTokens": plan.transient_tokens,
        "overheadTokens": plan.overhead_tokens,
        "thresholdTokens": plan.threshold_tokens,
        "emergencyTokens": plan.emergency_tokens,
        "reserveTokens": plan.reserve_tokens,
        "historyBudget": plan.history_budget,
    }))
}
