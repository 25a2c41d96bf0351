//! Small string helpers that cost less wasm than core's.

/// The longest string V8 makes (other engines' are longer), in bytes: the
/// glue's decoder may refuse by the bytes it is given (Node's does).
pub(crate) const JS_STRING_MAX: usize = (1 << 29) - 24;

/// Whether text may cross to JS as one string, else `INVALID_VALUE` at
/// `field`. The glue decodes it before any JS `try` runs, so a longer one
/// would throw through wasm and leak it.
pub fn fits_js(text: &str, field: &str) -> Result<(), crate::Error> {
    match text.len() > JS_STRING_MAX {
        true => Err(crate::Error::value(field, TOO_LONG)),
        false => Ok(()),
    }
}

pub(crate) const TOO_LONG: &str =
    "is more than 536,870,888 bytes of JSON text, more than one JS string can be made from";

/// `haystack.find(needle)` without core's two-way searcher (1.1 KB
/// gzipped): the needle's first char is found by core's char search,
/// which is memchr and already in the wasm, then the rest is compared.
/// A plain byte loop made the credential scan 10% slower.
pub fn find(haystack: &str, needle: &str) -> Option<usize> {
    let Some(first) = needle.chars().next() else {
        return Some(0);
    };
    let mut from = 0;
    loop {
        let at = from + tail(haystack, from).find(first)?;
        if tail(haystack, at).starts_with(needle) {
            return Some(at);
        }
        from = at + first.len_utf8();
    }
}

// Slices that cannot panic. Every caller's indices are char boundaries;
// one `&s[a..b]` left anywhere keeps core's slice error, its message and
// the Debug formatting and Unicode tables it brings (4.3 KB gzipped).

/// `&s[at..]`, or "" past the end or off a char boundary.
pub fn tail(s: &str, at: usize) -> &str {
    s.get(at..).unwrap_or_default()
}

/// `&s[..at]`, or "" past the end or off a char boundary.
pub fn head(s: &str, at: usize) -> &str {
    s.get(..at).unwrap_or_default()
}

/// `&s[from..to]`, or "" where that is not a slice of `s`.
pub fn part(s: &str, from: usize, to: usize) -> &str {
    s.get(from..to).unwrap_or_default()
}

/// Blank as a host's `trim()` sees it: JS trims U+FEFF, which Rust does
/// not count as whitespace, and keeps U+0085, which Rust does.
pub fn is_blank(s: &str) -> bool {
    s.chars().all(space)
}

fn space(c: char) -> bool {
    (c.is_whitespace() && c != '\u{85}') || c == '\u{feff}'
}

/// Drops the trailing whitespace `is_blank` sees.
pub fn trim_end(s: &mut String) {
    while let Some(c) = s.chars().next_back().filter(|&c| space(c)) {
        s.truncate(s.len() - c.len_utf8());
    }
}

pub fn contains(haystack: &str, needle: &str) -> bool {
    find(haystack, needle).is_some()
}

/// `items.join(sep)` without the library's join, which brings a copy loop
/// specialised per separator length and element type.
pub fn join<S: AsRef<str>>(items: &[S], sep: &str) -> String {
    let len: usize = items.iter().map(|s| s.as_ref().len() + sep.len()).sum();
    let mut out = String::with_capacity(len);
    for (i, item) in items.iter().enumerate() {
        if i > 0 {
            out.push_str(sep);
        }
        out.push_str(item.as_ref());
    }
    out
}

/// Orders as JS and IndexedDB do, by UTF-16 code units: as UTF-8 bytes
/// do, except that U+E000..=U+FFFF sort after the astral planes, whose
/// surrogates are 0xD800..=0xDFFF. Byte by byte, with no re-encoding.
pub fn utf16_cmp(a: &str, b: &str) -> std::cmp::Ordering {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    match a.iter().zip(b).position(|(x, y)| x != y) {
        None => a.len().cmp(&b.len()),
        Some(i) => {
            // Bytes from 0xEE up only lead a char: U+E000.. (0xEE, 0xEF)
            // or astral (0xF0..).
            let (x, y) = (a[i], b[i]);
            if x >= 0xEE && y >= 0xEE && (x >= 0xF0) != (y >= 0xF0) {
                y.cmp(&x)
            } else {
                x.cmp(&y)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    #[cfg(not(target_arch = "wasm32"))]
    proptest::proptest! {
        #[test]
        fn utf16_cmp_is_code_unit_order(a in "[a\u{7ff}\u{d7ff}\u{e000}\u{ff5e}\u{ffff}\u{10000}\u{1f600}]{0,4}",
                                        b in "[a\u{7ff}\u{d7ff}\u{e000}\u{ff5e}\u{ffff}\u{10000}\u{1f600}]{0,4}") {
            proptest::prop_assert_eq!(super::utf16_cmp(&a, &b), a.encode_utf16().cmp(b.encode_utf16()));
        }

        #[test]
        fn utf16_cmp_is_code_unit_order_for_any_text(a in "\\PC{0,6}", b in "\\PC{0,6}") {
            proptest::prop_assert_eq!(super::utf16_cmp(&a, &b), a.encode_utf16().cmp(b.encode_utf16()));
        }

        #[test]
        fn join_is_slice_join(items in proptest::collection::vec("[a€]{0,3}", 0..5), sep in "[,€]{0,2}") {
            proptest::prop_assert_eq!(super::join(&items, &sep), items.join(sep.as_str()));
        }

        #[test]
        fn find_is_str_find(h in "[ab€-]{0,12}", n in "[ab€-]{0,3}") {
            proptest::prop_assert_eq!(super::find(&h, &n), h.find(n.as_str()));
        }
    }

    #[test]
    fn find_matches_str_find_at_the_edges() {
        for (h, n) in [
            ("", ""),
            ("", "a"),
            ("abc", ""),
            ("abc", "abc"),
            ("ab", "abc"),
            ("x€€y", "€y"),
        ] {
            assert_eq!(super::find(h, n), h.find(n), "{h:?} {n:?}");
        }
    }
}
