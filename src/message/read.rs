//! Reading an object's fields with paths, so every refusal names where.
//! A path is a chain on the stack, rendered only for an error: building a
//! string per level cost the wasm more than the converters themselves.

use crate::json::{Map, Value};
use crate::Error;

/// Where a value sits: `history[2].content[0].text`.
#[derive(Clone, Copy)]
pub enum At<'a> {
    Name(&'a str),
    Item(&'a str, usize),
    Field(&'a At<'a>, &'a str),
    Index(&'a At<'a>, usize),
}

impl<'a> At<'a> {
    pub fn field(&'a self, name: &'a str) -> At<'a> {
        At::Field(self, name)
    }

    pub fn index(&'a self, index: usize) -> At<'a> {
        At::Index(self, index)
    }

    pub fn render(&self) -> String {
        let mut out = String::new();
        self.write(&mut out);
        out
    }

    fn write(&self, out: &mut String) {
        let index = |out: &mut String, i: usize| {
            out.push('[');
            out.push_str(&i.to_string());
            out.push(']');
        };
        match *self {
            At::Name(name) => out.push_str(name),
            At::Item(name, i) => {
                out.push_str(name);
                index(out, i);
            }
            // A key from the host may be no identifier: `a["b.c"]`.
            At::Field(parent, name) => {
                let mut at = String::new();
                parent.write(&mut at);
                out.push_str(&crate::error::key_path(&at, name));
            }
            At::Index(parent, i) => {
                parent.write(out);
                index(out, i);
            }
        }
    }

    pub fn wrong(&self, reason: &str) -> Error {
        Error::InvalidValue {
            path: self.render(),
            reason: reason.to_owned(),
        }
    }
}

pub struct Fields<'a> {
    map: &'a Map,
    at: At<'a>,
}

impl<'a> Fields<'a> {
    /// The object at `at`, or `INVALID_VALUE` saying what it must be.
    pub fn of(value: &'a Value, at: At<'a>, must: &str) -> Result<Self, Error> {
        match value {
            Value::Object(map) => Ok(Fields { map, at }),
            _ => Err(at.wrong(must)),
        }
    }

    pub fn at(&self, name: &'a str) -> At<'_> {
        At::Field(&self.at, name)
    }

    pub fn wrong(&self, name: &str, reason: &str) -> Error {
        At::Field(&self.at, name).wrong(reason)
    }

    pub fn get(&self, name: &str) -> Option<&'a Value> {
        self.map.get(name)
    }

    /// Refuses any field not named: it would be lost in conversion.
    pub fn only(&self, known: &[&str]) -> Result<(), Error> {
        match self.map.keys().find(|key| !known.contains(&key.as_str())) {
            // A key holding a secret must not become part of a path.
            Some(key) => Err(match crate::credentials::find(key) {
                Some(kind) => Error::Credential {
                    path: self.at.render(),
                    kind: kind.to_owned(),
                },
                None => self.wrong(key, "is not a field attache knows here"),
            }),
            None => Ok(()),
        }
    }

    /// Refuses these fields unless absent or null.
    pub fn absent(&self, names: &[&str], reason: &str) -> Result<(), Error> {
        match names
            .iter()
            .find(|name| !self.get(name).is_none_or(Value::is_null))
        {
            Some(name) => Err(self.wrong(name, reason)),
            None => Ok(()),
        }
    }

    pub fn any(&self, name: &str) -> Result<&'a Value, Error> {
        self.get(name).ok_or_else(|| self.wrong(name, "is missing"))
    }

    pub fn str(&self, name: &str) -> Result<&'a str, Error> {
        self.any(name)?
            .as_str()
            .ok_or_else(|| self.wrong(name, "must be a string"))
    }

    pub fn string(&self, name: &str) -> Result<String, Error> {
        self.str(name).map(str::to_owned)
    }

    /// Absent or null is `None`.
    pub fn opt_string(&self, name: &str) -> Result<Option<String>, Error> {
        match self.get(name) {
            None | Some(Value::Null) => Ok(None),
            Some(_) => self.string(name).map(Some),
        }
    }

    pub fn opt_bool(&self, name: &str) -> Result<Option<bool>, Error> {
        match self.get(name) {
            None | Some(Value::Null) => Ok(None),
            Some(value) => value
                .as_bool()
                .map(Some)
                .ok_or_else(|| self.wrong(name, "must be a boolean")),
        }
    }

    /// An array field, absent or null read as empty.
    pub fn list(&self, name: &str) -> Result<&'a [Value], Error> {
        match self.get(name) {
            None | Some(Value::Null) => Ok(&[]),
            Some(Value::Array(items)) => Ok(items),
            Some(_) => Err(self.wrong(name, "must be an array")),
        }
    }
}

/// A JSON object from its fields, in order: one loop, where `json!` is a
/// run of calls per field.
pub fn object<const N: usize>(fields: [(&str, Value); N]) -> Value {
    let mut map = Map::new();
    for (name, value) in fields {
        map.push_field(name.to_owned(), value);
    }
    Value::Object(map)
}
