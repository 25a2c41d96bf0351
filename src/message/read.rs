//! Reading an object's fields with paths, so every refusal names where.

use crate::json::{Map, Value};
use crate::Error;

pub struct Fields<'a> {
    map: &'a Map,
    at: String,
}

impl<'a> Fields<'a> {
    /// The object at `at`, or `INVALID_VALUE` saying what it must be.
    pub fn of(value: &'a Value, at: &str, must: &str) -> Result<Self, Error> {
        match value {
            Value::Object(map) => Ok(Fields {
                map,
                at: at.to_owned(),
            }),
            _ => Err(Error::InvalidValue {
                path: at.to_owned(),
                reason: must.to_owned(),
            }),
        }
    }

    pub fn path(&self, name: &str) -> String {
        if name.starts_with('[') {
            format!("{}{name}", self.at)
        } else {
            format!("{}.{name}", self.at)
        }
    }

    pub fn wrong(&self, name: &str, reason: &str) -> Error {
        Error::InvalidValue {
            path: self.path(name),
            reason: reason.to_owned(),
        }
    }

    pub fn get(&self, name: &str) -> Option<&'a Value> {
        self.map.get(name)
    }

    /// Refuses any field not named: it would be lost in conversion.
    pub fn only(&self, known: &[&str]) -> Result<(), Error> {
        match self.map.keys().find(|key| !known.contains(&key.as_str())) {
            Some(key) => Err(self.wrong(key, "is not a field attache knows here")),
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
