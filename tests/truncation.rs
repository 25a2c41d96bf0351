//! Properties of the inline-file cut over arbitrary UTF-8.
#![cfg(not(target_arch = "wasm32"))]

use attache::attachment::{truncate_contents, FILE_CONTENTS_LIMIT_BYTES as LIMIT};
use proptest::prelude::*;

fn unit() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("a".to_owned()),
        Just("\u{e9}".to_owned()),
        Just("\u{4e2d}".to_owned()),
        Just("\u{1f469}\u{200d}\u{1f4bb}".to_owned()),
        Just("\r\n".to_owned()),
        any::<char>().prop_map(String::from),
    ]
}

/// Random chars, ASCII padding to bring the length near the ceiling, then
/// random chars again, so cuts land at every offset of multi-byte
/// sequences without generating 8 KiB of random text per case.
/// Every tail unit is at least one byte and the padding stops at most 48
/// bytes short of the ceiling, so every string is over it.
fn over_the_ceiling() -> impl Strategy<Value = String> {
    let head = prop::collection::vec(unit(), 0..40);
    let tail = prop::collection::vec(unit(), 49..120);
    (head, 0..48usize, tail).prop_map(|(head, short_of, tail)| {
        let mut s = head.concat();
        let target = LIMIT.saturating_sub(short_of);
        if s.len() < target {
            s.push_str(&"x".repeat(target - s.len()));
        }
        s.push_str(&tail.concat());
        s
    })
}

/// Strings over the ceiling with chars popped off the end until they fit.
fn at_most_the_ceiling() -> impl Strategy<Value = String> {
    over_the_ceiling().prop_map(|mut s| {
        while s.len() > LIMIT {
            s.pop();
        }
        s
    })
}

fn footer(total: usize) -> String {
    format!("\n\n\u{2026} (truncated, {total} bytes total)")
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 1024,
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    #[test]
    fn contents_at_or_under_the_ceiling_come_back_whole(s in at_most_the_ceiling()) {
        prop_assert_eq!(truncate_contents(&s), s.as_str());
    }

    #[test]
    fn the_cut_is_the_longest_char_boundary_prefix_with_an_exact_footer(s in over_the_ceiling()) {
        let out = truncate_contents(&s);
        let footer = footer(s.len());
        prop_assert!(out.ends_with(&footer), "footer names {} bytes", s.len());
        let kept = &out[..out.len() - footer.len()];
        prop_assert!(kept.len() <= LIMIT, "the cut is within the ceiling");
        prop_assert!(s.starts_with(kept), "the cut is a prefix");
        prop_assert!(s.is_char_boundary(kept.len()), "the cut ends on a char boundary");
        let next = s[kept.len()..].chars().next().unwrap();
        prop_assert!(kept.len() + next.len_utf8() > LIMIT, "one more char would pass the ceiling");
    }
}

#[test]
fn a_four_byte_char_straddling_the_ceiling_is_dropped_whole() {
    let s = format!("{}\u{1f600}tail", "a".repeat(LIMIT - 2));
    let out = truncate_contents(&s);
    assert_eq!(out, format!("{}{}", "a".repeat(LIMIT - 2), footer(s.len())));
}
