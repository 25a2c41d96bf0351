/// Builds a [`Value`](crate::json::Value) from JSON-like syntax, as
/// serde_json's `json!` does: `json!({"role": "user", "content": parts})`.
/// Values that are not literals are taken by reference and cloned.
#[macro_export]
macro_rules! json {
    (null) => {
        $crate::json::Value::Null
    };
    ([ $($tt:tt)* ]) => {
        $crate::json::Value::Array($crate::json_array!([] $($tt)*))
    };
    ({ $($tt:tt)* }) => {
        $crate::json::Value::Object({
            // Pushed, not inserted: a literal's keys are distinct.
            #[allow(unused_mut)]
            let mut fields = $crate::json::Map::new();
            $crate::json_object!(fields $($tt)*);
            fields
        })
    };
    ($other:expr) => {
        $crate::json::to_value(&$other)
    };
}

#[doc(hidden)]
#[macro_export]
macro_rules! json_array {
    ([$($done:expr,)*]) => {
        vec![$($done,)*]
    };
    ([$($done:expr,)*] null $(, $($rest:tt)*)?) => {
        $crate::json_array!([$($done,)* $crate::json::Value::Null,] $($($rest)*)?)
    };
    ([$($done:expr,)*] [$($inner:tt)*] $(, $($rest:tt)*)?) => {
        $crate::json_array!([$($done,)* $crate::json!([$($inner)*]),] $($($rest)*)?)
    };
    ([$($done:expr,)*] {$($inner:tt)*} $(, $($rest:tt)*)?) => {
        $crate::json_array!([$($done,)* $crate::json!({$($inner)*}),] $($($rest)*)?)
    };
    ([$($done:expr,)*] $next:expr $(, $($rest:tt)*)?) => {
        $crate::json_array!([$($done,)* $crate::json!($next),] $($($rest)*)?)
    };
}

#[doc(hidden)]
#[macro_export]
macro_rules! json_object {
    ($map:ident) => {};
    ($map:ident $key:literal : null $(, $($rest:tt)*)?) => {
        $map.push_field(($key).into(), $crate::json::Value::Null);
        $crate::json_object!($map $($($rest)*)?);
    };
    ($map:ident $key:literal : [$($inner:tt)*] $(, $($rest:tt)*)?) => {
        $map.push_field(($key).into(), $crate::json!([$($inner)*]));
        $crate::json_object!($map $($($rest)*)?);
    };
    ($map:ident $key:literal : {$($inner:tt)*} $(, $($rest:tt)*)?) => {
        $map.push_field(($key).into(), $crate::json!({$($inner)*}));
        $crate::json_object!($map $($($rest)*)?);
    };
    ($map:ident $key:literal : $value:expr $(, $($rest:tt)*)?) => {
        $map.push_field(($key).into(), $crate::json!($value));
        $crate::json_object!($map $($($rest)*)?);
    };
}
