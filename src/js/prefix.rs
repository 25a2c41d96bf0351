use wasm_bindgen::prelude::*;

use super::budget::{tokens, JsCounter};
use super::error::to_js;
use super::values::{to_js as value_to_js, Options};
use super::AttachmentStore;
use crate::attachment::minimum_cacheable_tokens;
use crate::Error;

#[wasm_bindgen]
impl AttachmentStore {
    /// ```js
    /// const check = store.checkPrefix({ provider: "anthropic", model });
    /// if (!check.stable && !check.first) log(`cache miss from ${check.change?.attachmentId}`);
    /// if (check.warning) log(check.warning);
    /// ```
    ///
    /// Call it after building each request: it compares the pinned prefix
    /// with the one at the previous call.
    #[wasm_bindgen(js_name = checkPrefix, unchecked_return_type = "PrefixCheck")]
    pub fn check_prefix(
        &self,
        #[wasm_bindgen(unchecked_optional_param_type = "CheckPrefixOptions")] options: JsValue,
    ) -> Result<JsValue, JsValue> {
        self.check(&options).map_err(|e| to_js(&e))
    }
}

impl AttachmentStore {
    /// Characters and UTF-8 bytes of the pinned prefix, counted once per
    /// revision: checkPrefix runs every turn.
    fn prefix_size(&self, revision: u64) -> (u64, usize) {
        let mut cached = self.prefix_size.borrow_mut();
        match *cached {
            Some((seen, chars, bytes)) if seen == revision => (chars, bytes),
            _ => {
                let texts = self.core().render_all();
                let chars = texts.iter().map(|t| crate::budget::chars(t)).sum();
                let bytes = texts.iter().map(|t| t.len()).sum();
                *cached = Some((revision, chars, bytes));
                (chars, bytes)
            }
        }
    }

    /// A host counter is asked once per revision and function, so an
    /// unchanged turn costs what the built-in count does: nothing.
    fn prefix_tokens(
        &self,
        revision: u64,
        counter: &JsCounter,
        message: &JsValue,
        chars: u64,
    ) -> Result<u64, Error> {
        let JsCounter::Host(function) = counter else {
            return counter.count_one(message, || chars);
        };
        let function: &JsValue = function;
        if let Some((seen, counted_by, tokens)) = &*self.prefix_counted.borrow() {
            if *seen == revision && counted_by == function {
                return Ok(*tokens);
            }
        }
        let tokens = counter.count_one(message, || chars)?;
        *self.prefix_counted.borrow_mut() = Some((revision, function.clone(), tokens));
        Ok(tokens)
    }

    fn check(&self, options: &JsValue) -> Result<JsValue, Error> {
        let options = Options::read(options, &["provider", "model", "minTokens", "counter"])?;
        let get = |name: &str| options.get(name);
        // Checked, not ignored: "Anthropic" or 42 would silently take the
        // 1024 minimum and the heuristic counter.
        let provider = match get("provider") {
            // null is absent, as minTokens: null is.
            v if v.is_undefined() || v.is_null() => None,
            v => match super::values::short_string(&v).as_deref() {
                Some(p @ ("openai" | "anthropic")) => Some(p.to_owned()),
                _ => {
                    return Err(Error::argument(
                        "provider",
                        "must be \"openai\" or \"anthropic\"",
                    ))
                }
            },
        };
        let model = match get("model") {
            v if v.is_undefined() || v.is_null() => None,
            v => Some(super::values::string_arg(&v, "model")?),
        };
        let counter = match (get("counter"), provider.as_deref()) {
            // null is absent here too: the provider's counter, as documented.
            (counter, _) if !counter.is_undefined() && !counter.is_null() => counter,
            // Checked above: "openai" or "anthropic", each a counter's name.
            (_, Some(provider)) => JsValue::from_str(provider),
            _ => JsValue::UNDEFINED,
        };
        let counter = JsCounter::from_js(&counter)?;
        let min_tokens = match tokens(&get("minTokens"), "minTokens")? {
            Some(n) => n,
            None => minimum_cacheable_tokens(provider.as_deref(), model.as_deref()),
        };

        // A counter that called checkPrefix back would move the baseline
        // under this call, which would then report the new prefix stable.
        if self.prefix.try_borrow_mut().is_err() {
            return Err(Error::Busy {
                class: "AttachmentStore",
            });
        }
        // The message goes to the host's counter: a remote one, perhaps.
        self.core().check_host_secrets()?;
        let revision = self.core().revision();
        let message = self.message();
        let (prefix_chars, prefix_bytes) = self.prefix_size(revision);
        let counting = self.prefix.borrow();
        let prefix_tokens = if message.is_undefined() {
            0
        } else {
            self.prefix_tokens(revision, &counter, &message, prefix_chars)?
        };
        drop(counting);
        // Only once the counter has answered: a refused call must leave the
        // baseline where it was, so the next call still reports the change.
        let status = self.prefix.borrow_mut().check(self.core());
        let below = prefix_tokens < min_tokens;
        let warning = below.then(|| {
            format!(
                "the pinned prefix is {prefix_tokens} tokens, under the {min_tokens}-token minimum {} caches: it is cached only if the system prompt and tools before it make up the rest",
                provider.as_deref().unwrap_or("a provider")
            )
        });
        value_to_js(&crate::json!({
            "first": status.first,
            "stable": status.stable(),
            // A detached pin's id comes from the baseline, which the
            // pins' secret check does not see: a secret registered since.
            "change": status.change.map(|c| crate::json!({"offset": c.offset, "attachmentId": crate::credentials::scrub(&c.attachment_id)})),
            "prefixBytes": prefix_bytes,
            "prefixTokens": prefix_tokens,
            "minCacheableTokens": min_tokens,
            "belowMinimum": below,
            "warning": warning,
        }))
    }
}
