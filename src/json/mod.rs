//! JSON values as the core sees them. Our own small type rather than
//! `serde_json`: values reach the core as the JSON text `JSON.stringify`
//! made and leave as text for `JSON.parse`, so a parser, a writer and a
//! tree are all it needs, and serde_json with its float formatting cost the
//! wasm about 45 KB. Numbers keep the text they were written as, so they
//! round-trip exactly and are never parsed.

#[macro_use]
mod macros;
mod text;

use std::ops::{Index, IndexMut};

pub use text::{parse, ParseError, MAX_DEPTH};

#[derive(Debug, Clone, PartialEq, Default)]
pub enum Value {
    #[default]
    Null,
    Bool(bool),
    Number(Number),
    String(String),
    Array(Vec<Value>),
    Object(Map),
}

/// A JSON number, as the text it was written as.
#[derive(Debug, Clone, PartialEq)]
pub struct Number(String);

impl Number {
    /// The number as a whole count, if it is written as one: `N` or `N.0`
    /// (as serde_json writes a whole f64, which builds of 29-30 November
    /// stored session times as).
    #[inline(never)]
    pub fn as_u64(&self) -> Option<u64> {
        let text = self.0.strip_suffix(".0").unwrap_or(&self.0);
        text.parse().ok()
    }

    /// The text it was written as.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// An object, keys kept in insertion order.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Map(Vec<(String, Value)>);

impl Map {
    pub fn new() -> Self {
        Self::default()
    }
    pub fn len(&self) -> usize {
        self.0.len()
    }
    /// `json!`'s: appends a field whose key is not there yet.
    #[doc(hidden)]
    pub fn push_field(&mut self, key: String, value: Value) {
        self.0.push((key, value));
    }
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
    pub fn get(&self, key: &str) -> Option<&Value> {
        self.0.iter().find(|(k, _)| k == key).map(|(_, v)| v)
    }
    pub fn get_mut(&mut self, key: &str) -> Option<&mut Value> {
        self.0.iter_mut().find(|(k, _)| k == key).map(|(_, v)| v)
    }
    pub fn contains_key(&self, key: &str) -> bool {
        self.get(key).is_some()
    }
    /// Replaces a key in place, or appends it.
    pub fn insert(&mut self, key: String, value: Value) -> Option<Value> {
        match self.get_mut(&key) {
            Some(slot) => Some(std::mem::replace(slot, value)),
            None => {
                self.0.push((key, value));
                None
            }
        }
    }
    pub fn remove(&mut self, key: &str) -> Option<Value> {
        let index = self.0.iter().position(|(k, _)| k == key)?;
        Some(self.0.remove(index).1)
    }
    pub fn iter(&self) -> impl ExactSizeIterator<Item = (&String, &Value)> {
        self.0.iter().map(|(k, v)| (k, v))
    }
    pub fn iter_mut(&mut self) -> impl Iterator<Item = (&String, &mut Value)> {
        self.0.iter_mut().map(|(k, v)| (&*k, v))
    }
    pub fn keys(&self) -> impl Iterator<Item = &String> {
        self.0.iter().map(|(k, _)| k)
    }
}

impl FromIterator<(String, Value)> for Map {
    fn from_iter<I: IntoIterator<Item = (String, Value)>>(items: I) -> Self {
        let mut map = Map::new();
        for (key, value) in items {
            map.insert(key, value);
        }
        map
    }
}

impl<'a> IntoIterator for &'a Map {
    type Item = (&'a String, &'a Value);
    type IntoIter = std::iter::Map<
        std::slice::Iter<'a, (String, Value)>,
        fn(&'a (String, Value)) -> (&'a String, &'a Value),
    >;
    fn into_iter(self) -> Self::IntoIter {
        self.0.iter().map(|(k, v)| (k, v))
    }
}

impl IntoIterator for Map {
    type Item = (String, Value);
    type IntoIter = std::vec::IntoIter<(String, Value)>;
    fn into_iter(self) -> Self::IntoIter {
        self.0.into_iter()
    }
}

impl Value {
    pub fn is_null(&self) -> bool {
        matches!(self, Value::Null)
    }
    pub fn is_string(&self) -> bool {
        matches!(self, Value::String(_))
    }
    pub fn is_object(&self) -> bool {
        matches!(self, Value::Object(_))
    }
    /// How many arrays and objects nest in it, itself included: 0 for a
    /// scalar, 1 for `[]`.
    pub fn depth(&self) -> usize {
        let inner = match self {
            Value::Array(items) => items.iter().map(Value::depth).max(),
            Value::Object(fields) => fields.iter().map(|(_, v)| v.depth()).max(),
            _ => return 0,
        };
        1 + inner.unwrap_or(0)
    }
    pub fn is_array(&self) -> bool {
        matches!(self, Value::Array(_))
    }
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Value::String(s) => Some(s),
            _ => None,
        }
    }
    pub fn as_bool(&self) -> Option<bool> {
        match self {
            Value::Bool(b) => Some(*b),
            _ => None,
        }
    }
    pub fn as_u64(&self) -> Option<u64> {
        match self {
            Value::Number(n) => n.as_u64(),
            _ => None,
        }
    }
    pub fn as_array(&self) -> Option<&Vec<Value>> {
        match self {
            Value::Array(items) => Some(items),
            _ => None,
        }
    }
    pub fn as_object(&self) -> Option<&Map> {
        match self {
            Value::Object(map) => Some(map),
            _ => None,
        }
    }
    /// An object's field; `None` for a missing key or a non-object.
    pub fn get(&self, key: &str) -> Option<&Value> {
        self.as_object().and_then(|map| map.get(key))
    }
    /// Compact JSON text, as `JSON.stringify` writes it.
    pub fn to_json(&self) -> String {
        let mut out = String::new();
        text::write(self, &mut out);
        out
    }
}

/// `items` as one JSON array's text, without first copying them into a
/// `Value::Array`: an export of a long history holds no second tree.
pub fn array_text(items: &[Value]) -> String {
    let mut out = String::new();
    text::write_array(items, &mut out);
    out
}

/// `text` as a JSON string literal: how messages quote what a host gave,
/// without `Debug` formatting's code.
pub fn quote(text: &str) -> String {
    let mut out = String::new();
    text::write_string(text, &mut out);
    out
}

static NULL: Value = Value::Null;

/// `value["key"]`: `null` when absent, as in serde_json.
impl Index<&str> for Value {
    type Output = Value;
    fn index(&self, key: &str) -> &Value {
        self.get(key).unwrap_or(&NULL)
    }
}

/// `value[i]`: `null` when out of range or not an array.
impl Index<usize> for Value {
    type Output = Value;
    fn index(&self, index: usize) -> &Value {
        self.as_array()
            .and_then(|items| items.get(index))
            .unwrap_or(&NULL)
    }
}

/// `value["key"] = v` on an object inserts. Anything else first becomes
/// an empty object, so no input can make it panic; callers index only
/// objects they checked or built.
impl IndexMut<&str> for Value {
    fn index_mut(&mut self, key: &str) -> &mut Value {
        if !self.is_object() {
            *self = Value::Object(Map::new());
        }
        let Value::Object(map) = self else {
            return self;
        };
        let index = match map.0.iter().position(|(k, _)| k == key) {
            Some(index) => index,
            None => {
                map.0.push((key.to_owned(), Value::Null));
                map.0.len() - 1
            }
        };
        &mut map.0[index].1
    }
}

impl PartialEq<&str> for Value {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == Some(*other)
    }
}

impl PartialEq<str> for Value {
    fn eq(&self, other: &str) -> bool {
        self.as_str() == Some(other)
    }
}

impl std::fmt::Display for Value {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.to_json())
    }
}

/// What `json!` accepts as a value: taken by reference and cloned, as
/// serde_json's macro does.
pub trait ToJson {
    fn to_json_value(&self) -> Value;
}

pub fn to_value<T: ToJson + ?Sized>(value: &T) -> Value {
    value.to_json_value()
}

impl ToJson for Value {
    fn to_json_value(&self) -> Value {
        self.clone()
    }
}
impl ToJson for Map {
    fn to_json_value(&self) -> Value {
        Value::Object(self.clone())
    }
}
impl ToJson for str {
    fn to_json_value(&self) -> Value {
        Value::String(self.to_owned())
    }
}
impl ToJson for String {
    fn to_json_value(&self) -> Value {
        Value::String(self.clone())
    }
}
impl ToJson for bool {
    fn to_json_value(&self) -> Value {
        Value::Bool(*self)
    }
}
macro_rules! whole_numbers {
    ($($t:ty),*) => {$(
        impl ToJson for $t {
            fn to_json_value(&self) -> Value {
                Value::Number(Number(self.to_string()))
            }
        }
        impl From<$t> for Value {
            fn from(n: $t) -> Value {
                n.to_json_value()
            }
        }
    )*};
}
whole_numbers!(u8, u16, u32, u64, usize, i32, i64);
impl<T: ToJson + ?Sized> ToJson for &T {
    fn to_json_value(&self) -> Value {
        (**self).to_json_value()
    }
}
impl<T: ToJson> ToJson for Option<T> {
    fn to_json_value(&self) -> Value {
        self.as_ref().map_or(Value::Null, ToJson::to_json_value)
    }
}
impl<T: ToJson> ToJson for [T] {
    fn to_json_value(&self) -> Value {
        Value::Array(crate::map_vec(self, ToJson::to_json_value))
    }
}
impl<T: ToJson> ToJson for Vec<T> {
    fn to_json_value(&self) -> Value {
        self.as_slice().to_json_value()
    }
}

impl From<&str> for Value {
    fn from(s: &str) -> Value {
        Value::String(s.to_owned())
    }
}
impl From<String> for Value {
    fn from(s: String) -> Value {
        Value::String(s)
    }
}
impl From<bool> for Value {
    fn from(b: bool) -> Value {
        Value::Bool(b)
    }
}
impl From<Map> for Value {
    fn from(map: Map) -> Value {
        Value::Object(map)
    }
}
impl<T: Into<Value>> From<Vec<T>> for Value {
    fn from(items: Vec<T>) -> Value {
        Value::Array(items.into_iter().map(Into::into).collect())
    }
}
impl<T: Into<Value>> From<Option<T>> for Value {
    fn from(value: Option<T>) -> Value {
        value.map_or(Value::Null, Into::into)
    }
}
impl FromIterator<Value> for Value {
    fn from_iter<I: IntoIterator<Item = Value>>(items: I) -> Self {
        Value::Array(items.into_iter().collect())
    }
}

#[cfg(test)]
mod tests;
