//! Credential shapes found anywhere inside a string, written as small byte
//! scanners (a regex engine would cost the wasm far more than these).

/// A key that starts with a fixed prefix and runs on in one alphabet.
struct Keyed {
    kind: &'static str,
    prefix: &'static [u8],
    /// The shortest run after the prefix that counts.
    min: usize,
    alphabet: fn(u8) -> bool,
}

#[inline(always)]
fn word(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b == b'-'
}
#[inline(always)]
fn alnum(b: u8) -> bool {
    b.is_ascii_alphanumeric()
}
fn alnum_underscore(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}
fn upper_digit(b: u8) -> bool {
    b.is_ascii_uppercase() || b.is_ascii_digit()
}
fn base64url_dot(b: u8) -> bool {
    word(b) || b == b'.'
}
fn hex(b: u8) -> bool {
    b.is_ascii_hexdigit()
}

const KEYED: &[Keyed] = &[
    Keyed {
        kind: "anthropic_key",
        prefix: b"sk-ant-",
        min: 20,
        alphabet: word,
    },
    Keyed {
        kind: "openai_key",
        prefix: b"sk-",
        min: 20,
        alphabet: word,
    },
    Keyed {
        kind: "google_api_key",
        prefix: b"AIza",
        min: 35,
        alphabet: word,
    },
    Keyed {
        kind: "google_oauth_token",
        prefix: b"ya29.",
        min: 20,
        // A service account's token is dotted: `ya29.c.c0ASRK…`.
        alphabet: base64url_dot,
    },
    Keyed {
        kind: "aws_access_key",
        prefix: b"AKIA",
        min: 16,
        alphabet: upper_digit,
    },
    Keyed {
        kind: "aws_access_key",
        prefix: b"ASIA",
        min: 16,
        alphabet: upper_digit,
    },
    Keyed {
        kind: "github_token",
        prefix: b"github_pat_",
        min: 22,
        alphabet: alnum_underscore,
    },
    Keyed {
        kind: "github_token",
        prefix: b"ghp_",
        min: 30,
        alphabet: alnum,
    },
    Keyed {
        kind: "github_token",
        prefix: b"gho_",
        min: 30,
        alphabet: alnum,
    },
    Keyed {
        kind: "github_token",
        prefix: b"ghu_",
        min: 30,
        alphabet: alnum,
    },
    Keyed {
        kind: "github_token",
        prefix: b"ghs_",
        min: 30,
        alphabet: alnum,
    },
    Keyed {
        kind: "github_token",
        prefix: b"ghr_",
        min: 30,
        alphabet: alnum,
    },
    Keyed {
        kind: "gitlab_token",
        prefix: b"glpat-",
        min: 20,
        alphabet: word,
    },
    Keyed {
        kind: "slack_token",
        prefix: b"xoxa-",
        min: 10,
        alphabet: word,
    },
    Keyed {
        kind: "slack_token",
        prefix: b"xoxb-",
        min: 10,
        alphabet: word,
    },
    Keyed {
        kind: "slack_token",
        prefix: b"xoxp-",
        min: 10,
        alphabet: word,
    },
    Keyed {
        kind: "slack_token",
        prefix: b"xoxr-",
        min: 10,
        alphabet: word,
    },
    Keyed {
        kind: "slack_token",
        prefix: b"xoxs-",
        min: 10,
        alphabet: word,
    },
    // An app-level token (Socket Mode's), and a rotation's refresh token.
    Keyed {
        kind: "slack_token",
        prefix: b"xapp-1-",
        min: 10,
        alphabet: word,
    },
    Keyed {
        kind: "slack_token",
        prefix: b"xoxe-1-",
        min: 10,
        alphabet: word,
    },
    Keyed {
        kind: "slack_webhook",
        prefix: b"hooks.slack.com/services/",
        min: 20,
        alphabet: |b| word(b) || b == b'/',
    },
    Keyed {
        kind: "stripe_key",
        prefix: b"sk_live_",
        min: 20,
        alphabet: alnum,
    },
    Keyed {
        kind: "stripe_key",
        prefix: b"rk_live_",
        min: 20,
        alphabet: alnum,
    },
    Keyed {
        kind: "stripe_key",
        prefix: b"sk_test_",
        min: 20,
        alphabet: alnum,
    },
    Keyed {
        kind: "stripe_key",
        prefix: b"rk_test_",
        min: 20,
        alphabet: alnum,
    },
    Keyed {
        kind: "stripe_key",
        prefix: b"whsec_",
        min: 32,
        alphabet: alnum,
    },
    // The model and agent-tool providers a browser agent holds keys for.
    Keyed {
        kind: "groq_key",
        prefix: b"gsk_",
        min: 48,
        alphabet: alnum,
    },
    Keyed {
        kind: "xai_key",
        prefix: b"xai-",
        min: 70,
        alphabet: alnum,
    },
    Keyed {
        kind: "perplexity_key",
        prefix: b"pplx-",
        min: 40,
        alphabet: alnum,
    },
    Keyed {
        kind: "replicate_token",
        prefix: b"r8_",
        min: 37,
        alphabet: alnum,
    },
    Keyed {
        kind: "together_key",
        prefix: b"tgp_v1_",
        min: 40,
        alphabet: word,
    },
    Keyed {
        kind: "cerebras_key",
        prefix: b"csk-",
        min: 40,
        alphabet: alnum,
    },
    Keyed {
        kind: "nvidia_key",
        prefix: b"nvapi-",
        min: 60,
        alphabet: word,
    },
    Keyed {
        kind: "elevenlabs_key",
        prefix: b"sk_",
        min: 40,
        alphabet: hex,
    },
    Keyed {
        kind: "langsmith_key",
        prefix: b"lsv2_",
        min: 40,
        alphabet: word,
    },
    Keyed {
        kind: "tavily_key",
        prefix: b"tvly-",
        min: 30,
        alphabet: word,
    },
    Keyed {
        kind: "pinecone_key",
        prefix: b"pcsk_",
        min: 50,
        alphabet: word,
    },
    Keyed {
        kind: "huggingface_token",
        prefix: b"hf_",
        min: 30,
        alphabet: alnum,
    },
    Keyed {
        kind: "npm_token",
        prefix: b"npm_",
        min: 36,
        alphabet: alnum,
    },
    Keyed {
        kind: "sendgrid_key",
        prefix: b"SG.",
        min: 60,
        alphabet: base64url_dot,
    },
    Keyed {
        kind: "jwt",
        prefix: b"eyJ",
        min: 30,
        alphabet: base64url_dot,
    },
];

/// A credential found: its kind and the bytes to redact.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Hit {
    pub kind: &'static str,
    pub start: usize,
    pub end: usize,
}

impl Hit {
    fn new(kind: &'static str, start: usize, end: usize) -> Self {
        Self { kind, start, end }
    }
}

/// The kind of the first credential shape in `text`, if any.
pub fn scan(text: &str) -> Option<&'static str> {
    locate(text).map(|hit| hit.kind)
}

/// How many scanners `detect` runs.
pub const DETECTORS: usize = 4;

/// The first hit of one scanner at or after byte `from` (a char boundary):
/// redaction asks again only the scanners whose hit it has passed, so a
/// text with many keys is still scanned about once.
pub fn detect(which: usize, text: &str, from: usize) -> Option<Hit> {
    match which {
        0 => words(text, from),
        1 => pem(text, from),
        2 => bearer(text, from),
        _ => url_password(text.as_bytes(), from),
    }
}

/// The credential shape that starts first in `text`.
pub fn locate(text: &str) -> Option<Hit> {
    (0..DETECTORS)
        .filter_map(|which| detect(which, text, 0))
        .min_by_key(|hit| hit.start)
}

/// What redaction leaves in a credential's place, `[REDACTED:<kind>]`: the
/// stores check a redacted value again, and it must pass. Only an exact
/// marker passes; `[REDACTED:x]hunter2` is still a password.
pub fn is_marker(text: &[u8]) -> bool {
    text.strip_prefix(b"[REDACTED:")
        .and_then(|rest| rest.strip_suffix(b"]"))
        .is_some_and(|kind| kind.iter().all(|&b| b.is_ascii_lowercase() || b == b'_'))
}

/// Where a value typed in place ends, for redaction: at a quote (escaped
/// too, in JSON inside a string) or a line break (`\r\n` in JSON text too),
/// and with `spaces` at any whitespace, so punctuation inside it
/// (`Tr0ub4dor&3`) goes with it. Without, a cookie's pairs run on.
fn value_end(text: &str, spaces: bool) -> usize {
    let bytes = text.as_bytes();
    (0..bytes.len())
        .find_map(|k| match bytes[k] {
            b'\n' | b'\r' => Some(k),
            b if spaces && b.is_ascii_whitespace() => Some(k),
            b'"' | b'\'' => Some(quote_end(bytes, k)),
            b'\\' if bytes.get(k + 1).is_some_and(|&n| n == b'n' || n == b'r') => Some(k),
            _ => None,
        })
        .unwrap_or(bytes.len())
}

/// How many backslashes come right before byte `k`: an odd run escapes it.
fn backslashes_before(bytes: &[u8], k: usize) -> usize {
    bytes[..k].iter().rev().take_while(|&&b| b == b'\\').count()
}

/// Spaces and tabs at the start of `bytes`.
fn blanks(bytes: &[u8]) -> usize {
    bytes
        .iter()
        .take_while(|&&b| b == b' ' || b == b'\t')
        .count()
}

/// The gap JSON allows between tokens: spaces, tabs and line breaks, or,
/// in JSON escaped inside a string, their escapes (`\n`), as pretty-printed
/// text has them (a HAR file's `"name": "Authorization",\n "value": …`).
fn json_gap(bytes: &[u8], escaped: bool) -> usize {
    let mut k = 0;
    loop {
        match bytes.get(k..) {
            Some([b' ' | b'\t' | b'\n' | b'\r', ..]) => k += 1,
            Some([b'\\', b'n' | b'r' | b't', ..]) if escaped => k += 2,
            _ => return k,
        }
    }
}

/// Whether text stands in for a secret: a redaction marker or a
/// placeholder.
pub fn stands_in(text: &[u8]) -> bool {
    is_marker(text) || is_placeholder(text)
}

/// Where a value ends at the quote at `k`: at the quote, or, when an odd
/// run of backslashes escapes it (JSON inside a string), before its last
/// backslash. The rest of the run is the value's own (`abc\\`), so the
/// text left around a marker still parses.
fn quote_end(bytes: &[u8], k: usize) -> usize {
    k - backslashes_before(bytes, k) % 2
}

/// The bytes of a string's content opened by `quote`, up to its closing
/// quote: one after an even run of backslashes or, for a string escaped
/// inside another (`\"…\"`), the `\"` that closes it. One level down, that
/// quote follows 4n + 1 backslashes: 4n are the string's own backslashes,
/// escaped twice, and one escapes the quote. A line break ends it too.
fn quoted_len(value: &[u8], quote: u8, escaped: bool) -> usize {
    for (k, &b) in value.iter().enumerate() {
        if b == b'\n' || b == b'\r' {
            return k;
        }
        if b == quote {
            let run = backslashes_before(value, k);
            if escaped && run % 4 == 1 {
                return k - 1;
            }
            if !escaped && run % 2 == 0 {
                return k;
            }
        }
    }
    value.len()
}

/// A credential-named field in JSON text, escaped or not: `"password":"…"`,
/// or a named pair's `"DB_PASSWORD","value":"…"`. It holds a credential
/// whatever its length, as the same field parsed would, and the whole
/// string goes. Words with spaces are a label (an i18n file's
/// `"forgotPassword": "Forgot password?"`), but for a passphrase's.
/// `Some(None)`: a field that holds none (a label), which no other rule
/// reads again.
fn json_field(text: &str, i: usize, name_end: usize) -> Option<Option<Hit>> {
    let bytes = text.as_bytes();
    let escaped = match bytes[..i] {
        [.., b'\\', b'"'] => true,
        [.., b'"'] => false,
        _ => return None,
    };
    let quote: &[u8] = if escaped { b"\\\"" } else { b"\"" };
    let gap = |b: &[u8]| json_gap(b, escaped);
    let mut rest = bytes[name_end..].strip_prefix(quote)?;
    rest = &rest[gap(rest)..];
    if let Some(after) = rest.strip_prefix(b",") {
        let after = &after[gap(after)..];
        let after = after
            .strip_prefix(quote)?
            .strip_prefix(b"value")?
            .strip_prefix(quote)?;
        rest = &after[gap(after)..];
    }
    let rest = rest.strip_prefix(b":")?;
    let value = rest[gap(rest)..].strip_prefix(quote)?;
    // Its shape first: the name is read only for a field's.
    let name = crate::text::part(text, i, name_end);
    let password = super::credential_name(name)?;
    let start = bytes.len() - value.len();
    let literal = &value[..quoted_len(value, b'"', escaped)];
    // A label is words (`"Forgot password?"`, `"Must be 8+ chars"`) or one
    // short capitalised word (`"confirmPassword": "Confirm"`); a secret is
    // neither, but a passphrase may be words, and `secret` or `monkey` is
    // a password. A space pasted around a password, or words beside one
    // (`Tr0ub4dor&3x is new`), make no label: each word must be one.
    let words = label_words(literal);
    // Or a locale's label naming the field (`"newPassword": "Password"`),
    // as a label writes it (`password`, `pASSWORD`, `Password1` or `admin`
    // under `adminPassword` is a password).
    let capital = literal.first().is_some_and(u8::is_ascii_uppercase)
        && literal[1..].iter().all(u8::is_ascii_lowercase);
    let word = capital && literal.len() < 8
        || (capital || literal.iter().all(u8::is_ascii_uppercase))
            && super::one_of(literal, b"password|passphrase");
    let label = (words && !passphrase(name)) || word || (!password && super::says_state(literal));
    let real = !literal.is_empty() && !label && !stands_in(literal);
    Some(real.then(|| Hit::new("credential_field", start, start + literal.len())))
}

/// A message's verb or advice: `is required`, `Please enter`.
fn tells(message: &[u8]) -> bool {
    message
        .split(|&b| !b.is_ascii_alphabetic())
        .any(|w| super::one_of(w, b"must|required|invalid|enter|please|cannot|should"))
}

/// A type's name with its bit width, one run of digits, and letters after
/// it or a capital inside: `Uint8Array`, `SecretKey256`; not `Hunter2024`
/// nor `Summer16`.
fn width_type(name: &[u8]) -> bool {
    let Some(start) = name.iter().position(u8::is_ascii_digit) else {
        return false;
    };
    let (head, rest) = name.split_at(start);
    let digits = rest.iter().take_while(|b| b.is_ascii_digit()).count();
    let (width, tail) = rest.split_at(digits);
    head.first().is_some_and(u8::is_ascii_alphabetic)
        && head.iter().chain(tail).all(u8::is_ascii_alphabetic)
        && (!tail.is_empty() || head.iter().skip(1).any(u8::is_ascii_uppercase))
        && matches!(
            width,
            b"8" | b"16" | b"32" | b"64" | b"128" | b"256" | b"512"
        )
}

/// Words, as a label is, each a label word. Two at least: a space pasted
/// after a password is not a second.
fn label_words(literal: &[u8]) -> bool {
    let mut count = 0;
    after_scheme(literal).is_none()
        && literal.split(|&b| b == b' ').all(|w| {
            count += usize::from(!w.is_empty());
            label_word(w)
        })
        && count > 1
}

/// A word of a label: letters, in one case but for a capital first (an
/// acronym's all capitals; other scripts' letters count), or a number
/// (`8+`, `100%`), with punctuation (`(optional)`, `password?`). A
/// password's mixed case, digits among letters, or symbols make none.
fn label_word(w: &[u8]) -> bool {
    let (mut letters, mut lower, mut upper_later, mut digits) = (false, false, false, false);
    // Other scripts' bytes are letters beside digits, but no case: `¿`
    // before a capital (`¿Olvidaste`) makes no mixed case.
    let mut other = false;
    for &b in w {
        match b {
            b'a'..=b'z' => (lower, letters) = (true, true),
            b'A'..=b'Z' => (upper_later, letters) = (letters, true),
            b'0'..=b'9' => digits = true,
            0x80.. => other = true,
            b'(' | b')' | b'[' | b']' | b'?' | b'.' | b',' | b':' | b';' | b'!' | b'\'' | b'"'
            | b'-' | b'+' | b'%' | b'&' | b'/' => {}
            _ => return false,
        }
    }
    !(digits && (letters || other)) && !(lower && upper_later)
}

/// A placeholder for a secret, not one: `$OPENAI_API_KEY`, `${TOKEN}`,
/// `<YOUR_API_KEY>`, `{{token}}`, `%API_KEY%`, a mask or an ellipsis
/// (`****`, `...`, `…`), Swagger's `string`; after a scheme too (`Bearer
/// {{access_token}}`, as Postman writes a header).
pub fn is_placeholder(text: &[u8]) -> bool {
    // A scheme alone: `"Bearer " + token` builds the header.
    let (text, scheme) = after_scheme(text).map_or((text, false), |rest| (rest, rest.is_empty()));
    // An example cut short after a prefix (`sk-...`, `sk-proj-…`): a value
    // a logger cut short (`Tr0ub4dor&3...`) keeps more than a prefix.
    let cut = [&b"..."[..], "…".as_bytes()].iter().any(|dots| {
        text.strip_suffix(*dots)
            .is_some_and(|prefix| prefix.len() <= 8 && !prefix.contains(&b'.'))
    });
    // A mask: `****`, a form's bullets (`••••`, `●●●●`).
    let masked = !text.is_empty()
        && std::str::from_utf8(text)
            .is_ok_and(|t| t.chars().all(|c| matches!(c, '*' | '.' | '•' | '●')));
    // A doc's `YOUR_API_KEY`, `your-api-key` or `your_token`, or a
    // constant's name that says what it stands for (`ACCESS_TOKEN`,
    // `REPLACE_ME`); `HUNTER_TWO` may be a password.
    // Whole parts: `MONKEY_BUSINESS` holds no `KEY`.
    let caps = text.iter().all(|b| b.is_ascii_uppercase() || *b == b'_')
        && (text.contains(&b'_') && {
            text.split(|&b| b == b'_')
                .any(|part| super::one_of(part, b"your|key|token|secret|password|replace"))
        } || text.starts_with(b"YOUR"));
    let yours = caps
        || text.get(..5).is_some_and(|start| {
            start[..4].eq_ignore_ascii_case(b"your") && matches!(start[4], b'-' | b'_')
        }) && text
            .iter()
            .all(|&b| b.is_ascii_alphabetic() || b == b'-' || b == b'_');
    // A name in braces or brackets (`{password}`, `[FILTERED]`): letters,
    // spaces, `_` and `-` only, so JSON text or a braced key is no mask.
    let named = |inner: &[u8]| {
        !inner.is_empty()
            && inner
                .iter()
                .all(|&b| b.is_ascii_alphabetic() || matches!(b, b'_' | b'-' | b' '))
    };
    // A format string's field, as code builds a DSN: Python's and Rust's
    // `{}`, `{0}`, `{cfg.password}` (but `{hunter2xyz}` may be a
    // password); printf's `%s`, `%2$d`, `%04d`, Python's `%(password)s`.
    let field = |inner: &[u8]| {
        inner.iter().all(u8::is_ascii_digit)
            || inner.contains(&b'.')
                && inner
                    .iter()
                    .all(|&b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.'))
    };
    let verb = |rest: &[u8]| {
        let rest = match rest {
            [b'(', named @ ..] => match named.iter().position(|&b| b == b')') {
                Some(close)
                    if named[..close]
                        .iter()
                        .all(|&b| b.is_ascii_alphanumeric() || b == b'_') =>
                {
                    &named[close + 1..]
                }
                _ => return false,
            },
            _ => rest,
        };
        match rest {
            [flags @ .., last] => {
                b"sdifuxXoeEgGcqvp".contains(last)
                    && flags
                        .iter()
                        .all(|&b| b.is_ascii_digit() || b"$-+ #.lhz".contains(&b))
            }
            [] => false,
        }
    };
    if scheme || text == b"string" || text == b"placeholder" || cut || masked || yours {
        return true;
    }
    match text {
        // `${X}`, `<X>`, `{{x}}`, `%X%`.
        [b'$', b'{', .., b'}']
        | [b'<', .., b'>']
        | [b'{', b'{', .., b'}', b'}']
        | [b'%', _, .., b'%'] => true,
        // A shell's `$(gcloud auth print-access-token)`, whole or to its
        // first space: a command's small letters, not a token's.
        [b'$', b'(', rest @ ..] => {
            let rest = rest.strip_suffix(b")").unwrap_or(rest);
            rest.first().is_some_and(u8::is_ascii_lowercase)
                && rest
                    .iter()
                    .all(|&b| b.is_ascii_lowercase() || b"-_/. ".contains(&b))
        }
        [b'{', inner @ .., b'}'] => named(inner) || field(inner),
        [b'[', inner @ .., b']'] => named(inner),
        [b'%', rest @ ..] => verb(rest),
        [b'$', rest @ ..] => {
            !rest.is_empty()
                && rest
                    .iter()
                    .all(|&b| b.is_ascii_uppercase() || b.is_ascii_digit() || b == b'_')
        }
        _ => false,
    }
}

/// What follows an authorization scheme and its spaces or tabs (`Bearer `,
/// `Basic\t`, `Token `).
fn after_scheme(text: &[u8]) -> Option<&[u8]> {
    ["bearer", "basic", "token"].iter().find_map(|scheme| {
        let n = scheme.len();
        let rest = text.get(n..)?;
        let gap = blanks(rest);
        (gap > 0 && text[..n].eq_ignore_ascii_case(scheme.as_bytes())).then(|| &rest[gap..])
    })
}

/// How long the escape whose letter is byte `i` is, after its backslash,
/// or 0: a line break's (`\n`, `\t`, `\r` in JSON text) 1, a `\uXXXX`'s 5
/// (Python's json.dumps writes curly quotes so, Go writes `<` so). Not
/// part of the word after it. Any run of backslashes: one level down,
/// JSON inside a string, it is `\\n`.
fn escape_len(bytes: &[u8], i: usize) -> usize {
    // Most bytes follow neither: this runs for every one scanned.
    if i == 0 || !matches!(bytes[i - 1], b'\\' | b'%') {
        return 0;
    }
    let hex = |n: usize| {
        bytes
            .get(i + 1..i + 1 + n)
            .is_some_and(|hex| hex.iter().all(u8::is_ascii_hexdigit))
    };
    match (bytes[i - 1], bytes[i]) {
        (b'\\', b'n' | b't' | b'r') => 1,
        (b'\\', b'u') if hex(4) => 5,
        // A URL's percent escape: a key after `%3D` or `%20` starts a word.
        (b'%', b) if b.is_ascii_hexdigit() && hex(1) => 2,
        _ => 0,
    }
}

/// Where `part`, a slice of `text`, starts in it.
fn offset(text: &str, part: &str) -> usize {
    part.as_ptr() as usize - text.as_ptr() as usize
}

/// One pass over the words: keys, header lines and assignments all start
/// one. A pass per shape cost several times more (a byte loop at
/// opt-level z is slow, and these run over every string stored).
fn words(text: &str, from: usize) -> Option<Hit> {
    let bytes = text.as_bytes();
    let mut dead = Dead::new();
    let mut header_dead = [0; 6];
    let mut i = from;
    // Where the run of word bytes that `i` is in began (a byte before
    // `from` counts): a word starts there, not inside it.
    let mut run_start = from - usize::from(from > 0 && word(bytes[from - 1]));
    while i < bytes.len() {
        let escape = escape_len(bytes, i);
        if escape > 0 || !word(bytes[i]) {
            i += escape.max(1);
            run_start = i;
            continue;
        }
        let prev_word = i > run_start;
        let prev_alnum = prev_word && alnum(bytes[i - 1]);
        // A key starts a word: "desk-antenna" holds no "sk-" key. Nor does
        // base64url data (an encrypted reasoning item, kilobytes long) at
        // a `-` or `_` inside it: 128 characters of it before, with a
        // capital, a small letter and a digit, which no name glued to a
        // key (an ENV_NAME_, a slug-) is.
        // Measured only for a key found: it vetoes one.
        // So is standard base64 (a data: URL's image, a file's bytes) at
        // a `/` or `+`, which end a word: 128 characters of it before, as
        // random as base64 is (about 50 capitals), which a path or a
        // query's `why+does+my+key` is not.
        let in_data = || {
            let base64 = |b: &u8| alnum(*b) || *b == b'/' || *b == b'+';
            let (long, least) = if prev_word {
                (i - run_start >= 128, 1)
            } else {
                let after = i >= 128 && matches!(bytes[i - 1], b'/' | b'+');
                (after && bytes[i - 128..i].iter().all(base64), 16)
            };
            long && {
                let run = &bytes[i - 128..i];
                let count = |f: fn(&u8) -> bool| run.iter().filter(|b| f(b)).count();
                count(u8::is_ascii_uppercase) >= least
                    && count(u8::is_ascii_lowercase) >= least
                    && count(u8::is_ascii_digit) >= least.min(4)
            }
        };
        let found = if prev_alnum {
            None
        } else {
            keyed_at(bytes, i, &mut dead).filter(|_| !in_data())
        };
        // `--password=…`, `db-password: …`: a name may follow a hyphen.
        let after_hyphen = i > 0 && bytes[i - 1] == b'-';
        // Where a name starting here ends, read once for both its uses.
        let name_end = if prev_word && !after_hyphen {
            None
        } else {
            name_end_at(bytes, i)
        };
        // A quoted field before its header line: `"Authorization":"Bearer …"`
        // goes whole, as the same field parsed would.
        let field = match (prev_word, name_end) {
            (false, Some(end)) if found.is_none() => json_field(text, i, end),
            _ => None,
        };
        let found = found.or(field.flatten()).or_else(|| {
            if prev_word {
                None
            } else {
                header_at(text, i, &mut header_dead)
            }
        });
        // A field found holding a label (an i18n string of words) is not
        // read again as `name: value`, cut at its first space.
        let found = found.or_else(|| {
            field
                .is_none()
                .then(|| assignment_at(text, i, name_end?))
                .flatten()
        });
        if found.is_some() {
            return found;
        }
        // Past the rest of an alphanumeric run: no word starts inside it.
        // After `-` or `_` the next byte may start one (`--password`).
        if alnum(bytes[i]) {
            while i + 1 < bytes.len() && alnum(bytes[i + 1]) {
                i += 1;
            }
        }
        i += 1;
    }
    None
}

/// A key or token is random, so it holds a digit or a capital (missing
/// both: about 1 in 10^6 for 16 base62 characters); a run of lowercase
/// words, such as the CSS class `sk-slider-container-horizontal`, is text.
fn random(run: &[u8]) -> bool {
    // One character repeated is a docs' fill-in (`sk_test_XXXX…`).
    run.iter()
        .any(|b| b.is_ascii_digit() || b.is_ascii_uppercase())
        && run.iter().any(|&b| b != run[0])
}

/// Whether a run reads as named rather than random: each part between
/// `-` and `_` a word or a camelCase name, digits only at its end
/// (`fix`, `ProductCardHeaderTitle`, `base64`, `ToV2`), a number, or three
/// characters or fewer (`v2`, `Q3`, `2xl`). A random key has a part that
/// is none (two capitals together, a digit inside): about 1 in 2,000 of
/// 22 characters reads as named.
fn named_text(run: &[u8]) -> bool {
    run.split(|&b| b == b'-' || b == b'_')
        .all(|part| part.len() <= 3 || part.iter().all(u8::is_ascii_digit) || camel_word(part))
}

/// `([A-Z]?[a-z]+)+([A-Z]?[0-9]+)?`, without a regex engine.
fn camel_word(part: &[u8]) -> bool {
    let (mut i, mut words) = (0, 0);
    while i < part.len() {
        let cap = usize::from(part[i].is_ascii_uppercase());
        let lower = part[i + cap..]
            .iter()
            .take_while(|b| b.is_ascii_lowercase())
            .count();
        if lower == 0 {
            break;
        }
        i += cap + lower;
        words += 1;
    }
    let tail = &part[i..];
    let digits = match tail {
        [c, rest @ ..] if c.is_ascii_uppercase() => rest,
        _ => tail,
    };
    let numbered = digits.len() == tail.len() || !digits.is_empty();
    words > 0 && numbered && digits.iter().all(u8::is_ascii_digit)
}

/// Where a key's run of each alphabet was found with no digit or capital:
/// a key of that alphabet starting inside the run ends where it ends and
/// fails the same way, so it is not scanned again (`sk-` 30,000 times
/// in a row would otherwise scan quadratically).
/// Keyed too by a pattern's own address, for a run dead for that pattern
/// alone.
type Dead = Vec<(usize, usize)>;

/// Whether a key's prefix may start with these two bytes: most words are
/// rejected here, not by a pass over the table (`the`, `pinned`, `code`
/// start none).
fn may_start_key(first: u8, second: u8) -> bool {
    match first {
        b'A' | b'y' | b'g' | b'x' | b'h' | b'r' | b'n' | b'S' | b'e' => true,
        b's' => second == b'k',
        b'c' => second == b's',
        b'p' => matches!(second, b'p' | b'c'),
        b't' => matches!(second, b'g' | b'v'),
        b'l' => second == b's',
        b'w' => second == b'h',
        _ => false,
    }
}

fn keyed_at(bytes: &[u8], start: usize, dead: &mut Dead) -> Option<Hit> {
    let first = bytes[start];
    if !may_start_key(first, bytes.get(start + 1).copied().unwrap_or(0)) {
        return None;
    }
    for pattern in KEYED {
        // The first byte decides for most patterns, cheaply.
        if pattern.prefix[0] != first {
            continue;
        }
        let alphabet = pattern.alphabet as usize;
        let id = pattern as *const Keyed as usize;
        if dead
            .iter()
            .any(|&(a, end)| (a == alphabet || a == id) && start < end)
        {
            continue;
        }
        let Some(rest) = bytes[start..].strip_prefix(pattern.prefix) else {
            continue;
        };
        // A JWT is three parts: a fourth after a dot is prose
        // (`….sig.Thanks`), and no run is measured past it.
        let jwt = pattern.kind == "jwt";
        let mut dots = 0;
        // No key of these is longer: `SG.` repeated is not measured to the
        // end from each one.
        let longest = match pattern.kind {
            "sendgrid_key" => 72,
            "aws_access_key" => 17,
            _ => usize::MAX,
        };
        let mut run = rest
            .iter()
            .take(longest)
            .take_while(|&&b| {
                dots += usize::from(b == b'.');
                (pattern.alphabet)(b) && !(jwt && dots > 2)
            })
            .count();
        let run_end = start + pattern.prefix.len() + run;
        // A sentence's full stop is not part of a dotted token.
        while run > 0 && rest[run - 1] == b'.' {
            run -= 1;
        }
        let shape_ok = match pattern.kind {
            // header.payload.signature
            "jwt" => rest[..run].iter().filter(|&&b| b == b'.').count() == 2,
            // `SG.` 22 `.` 43: a C# namespace (`SG.Framework.Data…`) is none.
            // A run that goes on past it (a JWT after `SG.` text) is none.
            "sendgrid_key" => run == 66 && rest[22] == b'.' && run_end - start < 3 + 72,
            // Exactly 16: a longer run is some other identifier. AWS's
            // documentation's own example is none.
            "aws_access_key" => run == 16 && !rest[..run].ends_with(b"EXAMPLE"),
            // A branch or class named after a Jira key
            // (`sk-1234-fix-login`, `sk-circle-bounce-2`) is words.
            "openai_key" => !named_text(&rest[..run]),
            _ => true,
        };
        if run >= pattern.min && shape_ok && random(&rest[..run]) {
            let end = start + pattern.prefix.len() + run;
            return Some(Hit::new(pattern.kind, start, end));
        }
        // Only a run with no digit or capital is dead for its alphabet: a
        // later start in a misshapen one may have the right shape, but
        // for a run that reads as named (a later `sk-` starts a part of
        // it) or a JWT's with fewer than two dots, not for this pattern.
        let mut mark = |key: usize| {
            dead.retain(|&(a, _)| a != key);
            dead.push((key, run_end));
        };
        if run >= pattern.min && shape_ok {
            mark(alphabet);
        } else if pattern.kind == "openai_key" && !shape_ok || jwt && dots < 2 {
            mark(id);
        }
    }
    None
}

/// `Bearer <token>` without its header name, as a value is often passed
/// on: a random token of 16 characters or more. "Bearer of bad news" and
/// "the Bearer authentication_scheme" pass.
fn bearer(text: &str, from: usize) -> Option<Hit> {
    let mut from = from;
    while let Some(at) = crate::text::find(crate::text::tail(text, from), "Bearer") {
        let bytes = text.as_bytes();
        let gap = blanks(&bytes[from + at + 6..]);
        let start = from + at + 6 + gap;
        if gap == 0 {
            // `BearerBearer…`: no token here, and none measured.
            from = start;
            continue;
        }
        let token = &bytes[start..];
        let run = token
            .iter()
            .take_while(|&&b| word(b) || matches!(b, b'.' | b'~' | b'+' | b'/' | b'='))
            .count();
        // API docs' `Bearer YOUR_ACCESS_TOKEN` is a placeholder after a scheme.
        if run >= 16 && random(&token[..run]) && !is_placeholder(&token[..run]) {
            let end = start + value_end(crate::text::tail(text, start), true).max(run);
            return Some(Hit::new("bearer_token", start, end));
        }
        from = start;
    }
    None
}

/// A PEM private key of any type; certificates and public keys pass.
/// Redacted from its BEGIN line through its END line, or to the end of a
/// text that lost its END.
fn pem(text: &str, from: usize) -> Option<Hit> {
    let mut rest = crate::text::tail(text, from);
    while let Some(at) = crate::text::find(rest, "-----BEGIN ") {
        let line = crate::text::tail(rest, at + 11);
        let end = crate::text::find(line, "-----").unwrap_or(line.len());
        let label = crate::text::head(line, end);
        // A header that a quote or `)` closes at once, with no base64 line
        // in the 1 KB after it, is a format check or a pattern
        // (`indexOf("-----BEGIN PRIVATE KEY-----")`): no key. A key's
        // lines are 64 characters; one quoted line by line is still one.
        // Read only for a key's label, and only 1 KB: linear in the text.
        let key = label.ends_with("PRIVATE KEY") || label.ends_with("PRIVATE KEY BLOCK");
        let alone = key && {
            let after = line.as_bytes().get(end + 5..).unwrap_or_default();
            let next = after.iter().find(|&&b| b != b' ');
            let mut run = 0;
            let body = after[..after.len().min(1024)].iter().any(|&b| {
                run = if b.is_ascii_alphanumeric() || b == b'+' || b == b'/' {
                    run + 1
                } else {
                    0
                };
                run >= 40
            });
            !body && matches!(next, None | Some(b'"' | b'\'' | b'`' | b')'))
        };
        // `PGP PRIVATE KEY BLOCK` is the armored form.
        if key && !alone {
            let start = offset(text, rest) + at;
            let body = crate::text::tail(text, start);
            let stop = crate::text::find(body, "-----END ")
                .and_then(|e| {
                    crate::text::find(crate::text::tail(body, e + 9), "-----")
                        .map(|f| e + 9 + f + 5)
                })
                // Without its END, to the end of the string it sits in (a
                // quote), line breaks and all.
                .unwrap_or_else(|| {
                    let bytes = body.as_bytes();
                    (0..bytes.len())
                        .find(|&k| matches!(bytes[k], b'"' | b'\''))
                        .map_or(bytes.len(), |k| quote_end(bytes, k))
                });
            return Some(Hit::new("private_key", start, start + stop));
        }
        rest = crate::text::tail(line, end);
    }
    None
}

// `HTTP_AUTHORIZATION` as CGI and Django dump it.
const HEADERS: [&str; 6] = [
    "proxy-authorization",
    "authorization",
    "http_authorization",
    "x-api-key",
    "set-cookie",
    "cookie",
];

/// The credential in a header list's entry, `[name, value]` as fetch's
/// lists, `Headers`' entries and Node's `rawHeaders` hold them, relative to
/// `value`: read as the header's line, but for a key that holds a digit.
/// A list may name headers beside each other (a schema's
/// `enum: ["x-api-key", "authorization"]`).
pub fn header_pair(name: &str, value: &str) -> Option<Hit> {
    let name = HEADERS.into_iter().find(|n| n.eq_ignore_ascii_case(name))?;
    header_value(name, value, &mut 0).filter(|hit| paired(name, value, hit))
}

/// A list's `x-api-key` entry holds a digit: a schema's enum
/// (`["x-api-key", "authorization"]`) is no header.
fn paired(name: &str, value: &str, hit: &Hit) -> bool {
    name != "x-api-key"
        || crate::text::part(value, hit.start, hit.end)
            .bytes()
            .any(|b| b.is_ascii_digit())
}

/// Whether the quoted name at `start` is an item of a list or a tuple
/// (`["Authorization", …]`, `('Authorization', …)`), not a call's
/// argument (`headers.set('x-api-key', …)`, which code a tool read holds).
fn listed(bytes: &[u8], start: usize) -> bool {
    let mut k = start;
    loop {
        match bytes.get(..k).unwrap_or_default() {
            [.., b'\\', b'n' | b'r' | b't'] => k -= 2,
            [.., b' ' | b'\t' | b'\r' | b'\n' | b'"' | b'\'' | b'\\'] => k -= 1,
            // After an escape (`\\n(`), a `(` opens a tuple, not a call.
            [.., b'[' | b','] | [b'('] | [.., b'\\', b'n' | b'r' | b't', b'('] => return true,
            [.., c, b'('] => return !(c.is_ascii_alphanumeric() || matches!(c, b'_' | b'$')),
            _ => return false,
        }
    }
}

/// `Authorization: Bearer …` and the other credential header lines, in
/// any letter case, at a word start; in JSON text, a header list's entry
/// too (`"Authorization","Basic …"`).
fn header_at(text: &str, start: usize, dead: &mut [usize; 6]) -> Option<Hit> {
    let bytes = text.as_bytes();
    let first = bytes[start].to_ascii_lowercase();
    if !matches!(first, b'p' | b'a' | b'h' | b'x' | b's' | b'c') {
        return None;
    }
    for (n, name) in HEADERS.into_iter().enumerate() {
        let end = start + name.len();
        if start < dead[n]
            || name.as_bytes()[0] != first
            || end > bytes.len()
            || !bytes[start..end].eq_ignore_ascii_case(name.as_bytes())
        {
            continue;
        }
        // Quotes, escaped too: JSON text inside a string. The value's own
        // scan stops at its line's end: a line of header names without
        // colons is not measured again at each.
        let quotes = [' ', '\t', '"', '\'', '\\'];
        let after = crate::text::tail(text, end);
        let trimmed = after.trim_start_matches(quotes);
        let (value, pair) = match trimmed.strip_prefix(':') {
            Some(value) => (value, false),
            // A list's entry, name and value quoted (JSON, escaped too, or
            // Python's `('Authorization', '…')`), pretty-printed too.
            None if matches!(after.as_bytes().first(), Some(b'"' | b'\'' | b'\\'))
                && listed(bytes, start) =>
            {
                let value = trimmed.strip_prefix(',').unwrap_or_default();
                let value = crate::text::tail(value, json_gap(value.as_bytes(), true));
                if !matches!(value.as_bytes().first(), Some(b'"' | b'\'' | b'\\')) {
                    continue;
                }
                (value, true)
            }
            None => continue,
        };
        let value = value.trim_start_matches(quotes);
        let at = offset(text, value);
        let mut measured = 0;
        if let Some(hit) = header_value(name, value, &mut measured) {
            if !pair || paired(name, value, &hit) {
                return Some(Hit::new(hit.kind, at + hit.start, at + hit.end));
            }
        }
        // The same header name inside what was read holds a part of the
        // same value: not read again (`x-api-key:<` 15,000 times was
        // quadratic). Another name there is read: `Cookie: \r\nAuthorization:`.
        dead[n] = dead[n].max(at + measured);
    }
    None
}

/// The credential in a header's value, relative to the value: its token,
/// or a cookie's whole line.
/// `measured` is set to how far the value was read when it holds none.
fn header_value(name: &str, value: &str, measured: &mut usize) -> Option<Hit> {
    // Prose after a token is not part of it: `Bearer <token>.`, a Markdown
    // span's closing backtick (`` `Bearer $API_KEY` ``).
    const CLOSERS: &[u8] = b"`.,;:)]!?";
    // The token from `from` on, if it is long enough to be a credential.
    let mut token = |kind, from: usize| {
        let token = crate::text::tail(value, from);
        let len = value_end(token, true);
        *measured = from + len;
        let shown = &token.as_bytes()[..len];
        let closers = shown
            .iter()
            .rev()
            .take_while(|b| CLOSERS.contains(b))
            .count();
        // A few lengths: an example cut short keeps its dots
        // (`sk-proj-...`); every length of a long run would be quadratic.
        let real = !(0..=closers.min(3))
            .chain([closers])
            .any(|k| stands_in(&shown[..len - k]));
        (len >= 8 && real).then_some(Hit::new(kind, from, from + len))
    };
    match name {
        // Without a digit, a member (`'X-API-Key': this.apiKey`) is code.
        "x-api-key" => token("api_key_header", 0).filter(|hit| {
            let key = crate::text::part(value, hit.start, hit.end);
            key.bytes().any(|b| b.is_ascii_digit()) || !key.contains('.')
        }),
        "set-cookie" | "cookie" => {
            // To the end of the line, or of the quoted string it sits in.
            let end = value_end(value, false);
            *measured = end;
            let pairs = crate::text::head(value, end);
            let set = !is_marker(pairs.trim_end().as_bytes())
                && pairs.split(';').any(|pair| {
                    // `name=value`, no space at the `=`: `cookie: i32 = 0`
                    // is code.
                    pair.split_once('=').is_some_and(|(n, v)| {
                        !n.trim().is_empty()
                            && !v.trim().is_empty()
                            && !n.ends_with(' ')
                            && !v.starts_with(' ')
                    })
                });
            set.then_some(Hit::new("cookie_header", 0, end))
        }
        _ => {
            let token_at = after_scheme(value.as_bytes())?;
            // A doc's token is small words a doc uses: `Bearer my-api-key`.
            token("authorization_header", value.len() - token_at.len()).filter(|hit| {
                // Before prose's closers: `` `Bearer my-api-key`. ``
                let token = crate::text::part(value, hit.start, hit.end).as_bytes();
                let end = token
                    .iter()
                    .rposition(|b| !CLOSERS.contains(b))
                    .map_or(0, |last| last + 1);
                let token = token.get(..end).unwrap_or_default();
                let doc = token.first().is_some_and(u8::is_ascii_lowercase)
                    && token.iter().all(|&b| b.is_ascii_lowercase() || b == b'-')
                    && token
                        .split(|b| !b.is_ascii_lowercase())
                        .any(|w| super::one_of(w, b"my|your|api|key|token|secret|example"));
                !doc
            })
        }
    }
}

/// A URL whose userinfo (before the `@` of its authority) holds a
/// password after the user's colon.
fn url_password(bytes: &[u8], from: usize) -> Option<Hit> {
    let mut from = from;
    while let Some((at, len)) = find(&bytes[from..]) {
        let authority_start = from + at + len;
        let authority: Vec<u8> = bytes[authority_start..]
            .iter()
            .copied()
            .take_while(|&b| {
                !matches!(b, b'/' | b'?' | b'#')
                    && !b.is_ascii_whitespace()
                    && b != b'"'
                    && b != b'\''
            })
            .collect();
        if let Some(at) = authority.iter().rposition(|&b| b == b'@') {
            let userinfo = &authority[..at];
            // A key redacted as the user (`https://[REDACTED:github_token]@…`)
            // holds no colon of its own; a placeholder (`:${DB_PASSWORD}@`)
            // is no password.
            let user = match userinfo.iter().position(|&b| b == b']') {
                Some(close) if is_marker(&userinfo[..=close]) => close + 1,
                _ => 0,
            };
            if let Some(colon) = userinfo[user..]
                .iter()
                .position(|&b| b == b':')
                .map(|c| user + c)
            {
                let password = &userinfo[colon + 1..];
                if !password.is_empty() && !stands_in(password) {
                    let start = authority_start + colon + 1;
                    return Some(Hit::new("url_password", start, authority_start + at));
                }
            }
        } else if let Some(colon) = authority.iter().position(|&b| b == b':') {
            // A `.env`'s DATABASE_URL may hold a raw `#`, `?` or `/` in its
            // password, where a URL parser ends the authority: the head
            // before it must read as a password (a letter and a digit in 4
            // bytes or more, not a port's name: `:${PORT}`, `:v2`, a host
            // list's `:27017,h2`), and the `@` come within 256 bytes of
            // it, before a space, a quote or a delimiter.
            let head = &authority[colon + 1..];
            let password = head.len() >= 4
                && head.iter().any(u8::is_ascii_digit)
                && head.iter().any(u8::is_ascii_alphabetic)
                && !head.contains(&b',')
                && authority.first() != Some(&b'[')
                && !stands_in(head);
            // Only then the 256 bytes after it: read at every `://` with a
            // colon, they made dense URL text 20 times slower than prose.
            let after = authority_start + authority.len();
            if password {
                let run = bytes[after..]
                    .iter()
                    .take(256)
                    .take_while(|&&b| {
                        !b.is_ascii_whitespace() && !b"\"'`()<>[]{},;|\\".contains(&b)
                    })
                    .count();
                if let Some(last) = bytes[after..after + run].iter().rposition(|&b| b == b'@') {
                    let start = authority_start + colon + 1;
                    return Some(Hit::new("url_password", start, after + last));
                }
            }
        }
        from = authority_start;
    }
    None
}

/// The next `://`, or `:\/\/` as JSON may escape it, found by its colon:
/// where it starts and its length.
fn find(haystack: &[u8]) -> Option<(usize, usize)> {
    let mut from = 0;
    while let Some(at) = haystack[from..].iter().position(|&b| b == b':') {
        let at = from + at;
        for separator in [&b"://"[..], b":\\/\\/"] {
            if haystack[at..].starts_with(separator) {
                return Some((at, separator.len()));
            }
        }
        from = at + 1;
    }
    None
}

/// Where a name that starts at `i` ends: a run of word bytes no longer than
/// a credential's name can be (`fold` keeps 64 letters), so a long
/// hyphenated run is not walked again from every hyphen in it.
fn name_end_at(bytes: &[u8], i: usize) -> Option<usize> {
    if !(bytes[i].is_ascii_alphabetic() || bytes[i] == b'_') {
        return None;
    }
    let len = bytes[i..]
        .iter()
        .take(129)
        .take_while(|&&b| word(b))
        .count();
    (len <= 128).then_some(i + len)
}

/// Whether a name is a passphrase's, whose value may hold spaces.
fn passphrase(name: &str) -> bool {
    name.len() >= 10 && name.as_bytes()[name.len() - 10..].eq_ignore_ascii_case(b"passphrase")
}

/// A credential-named variable (`OPENAI_API_KEY`, `password`) assigned,
/// with `=`, `:` or `:=`, a literal of eight characters or more, in prose or
/// code. `=>` and `==` are a map's entry and a comparison: Laravel's
/// `'password' => 'required|min:8'` is a rule, not a password.
fn assignment_at(text: &str, i: usize, name_end: usize) -> Option<Hit> {
    let bytes = text.as_bytes();
    let mut j = name_end;
    // `"name": "value"` in JSON text (escaped too), or `name = value`.
    while j < bytes.len() && matches!(bytes[j], b' ' | b'\t' | b'"' | b'\'' | b'\\') {
        j += 1;
    }
    // A quoted name: JSON, or a dict, where `,` `}` `]` end a bare value.
    let quoted_name = bytes[name_end..j].iter().any(|&b| b == b'"' || b == b'\'');
    let next = bytes.get(j + 1).copied();
    let assigns = match bytes.get(j) {
        Some(b'=') => !matches!(next, Some(b'=' | b'>')),
        Some(b':') => true,
        _ => false,
    };
    let name = crate::text::part(text, i, name_end);
    if !assigns || !super::is_credential_name(name) {
        return None;
    }
    let value = crate::text::tail(text, j + 1);
    let value = if bytes[j] == b':' {
        value.strip_prefix('=').unwrap_or(value)
    } else {
        value
    };
    let value = value.trim_start_matches([' ', '\t', '\\']);
    // A literal: quoted, or a bare run of key characters and a password's
    // punctuation. Code that computes the value (`get_key()`,
    // `process.env.KEY`) passes; `&`, `;` and `,` end a value.
    let quote = value
        .as_bytes()
        .first()
        .copied()
        .filter(|&q| q == b'"' || q == b'\'');
    let quoted = quote.is_some();
    // Opened by `\"` (JSON inside a string), it closes at `\"` too.
    let opened_at = offset(text, value);
    let escaped = opened_at > 0 && bytes[opened_at - 1] == b'\\';
    let value = if quoted {
        crate::text::tail(value, 1)
    } else {
        value
    };
    // No literal is longer than this (a bare one than 512 bytes): a run of
    // `password=` is not measured to the end of the text from each one.
    let longest = if quoted { 4096 } else { 512 };
    let window = &value.as_bytes()[..value.len().min(longest)];
    let close = quote.map(|q| quoted_len(window, q, escaped));
    let run = match close {
        // To the closing quote: a passphrase's words are one value; other
        // values are judged by their first word (`"Enter your password"`
        // is a label).
        Some(close) if passphrase(name) => close,
        // A message, in words as in JSON text, in sentence case and
        // saying what to do (`password: "Password is required"`).
        Some(close)
            if window.first().is_some_and(u8::is_ascii_uppercase)
                && window
                    .get(..close)
                    .is_some_and(|m| label_words(m) && tells(m)) =>
        {
            return None
        }
        Some(close) => window[..close]
            .iter()
            .position(|&b| b == b' ')
            .unwrap_or(close),
        None => window
            .iter()
            .take_while(|&&b| {
                word(b)
                    || matches!(
                        b,
                        b'+' | b'/'
                            | b'='
                            | b'~'
                            | b'@'
                            | b'!'
                            | b'#'
                            | b'$'
                            | b'%'
                            | b'^'
                            | b'*'
                            | b'?'
                    )
            })
            .count(),
    };
    // A call or a member (`f(`, `a.b`, `a[0]`) computes it; a full stop
    // ends a sentence.
    let after = |k: usize| value.as_bytes().get(run + k).copied();
    // A path (`Ty::NAME`), and in `name: Ty = …` the type, are code.
    let typed = !quoted
        && bytes[j] == b':'
        && value.as_bytes().iter().skip(run).find(|&&b| b != b' ') == Some(&b'=');
    let ends = match after(0) {
        Some(b'(' | b'[') => false,
        // After `:`, a type named for its width: `privateKey: Uint8Array;`,
        // `(key: SecretKey256)`; a year is no width.
        Some(b';' | b')' | b'<')
            if !quoted
                && bytes[j] == b':'
                && value.as_bytes().get(..run).is_some_and(width_type) =>
        {
            false
        }
        Some(b'.') => !after(1).is_some_and(|b| b.is_ascii_alphanumeric()),
        Some(b':') => after(1) != Some(b':'),
        _ => !typed,
    };
    // Bare, it must hold a digit: a variable's name has none, a password
    // typed in place usually does.
    let digit = quoted || value.as_bytes()[..run].iter().any(u8::is_ascii_digit);
    let literal = &value.as_bytes()[..run];
    // A compound name as its own value (`access_token: 'access_token'`,
    // an env var's name), or bare, a lower-case identifier ending in `_`
    // and it (`x25519_generate_private_key`): code. Not a single word's
    // (`Password_2024!`, `hunter2_password`): real if weak. A private
    // constant's `_` is not its name's (`_CLIENT_SECRET = 'CLIENT_SECRET'`).
    let name = name.trim_start_matches('_');
    let compound = name.bytes().any(|b| b == b'_');
    let prefix = literal.len().saturating_sub(name.len() + 1);
    let ends_named = compound
        && literal.len() > name.len()
        && literal[prefix] == b'_'
        && literal[prefix + 1..].eq_ignore_ascii_case(name.as_bytes())
        && literal[..prefix]
            .iter()
            .all(|&b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_');
    let named = compound && literal.eq_ignore_ascii_case(name.as_bytes()) || !quoted && ends_named;
    let real = !(stands_in(literal) || named);
    // `"pin": 12345678` is a number, as `{ pin: 12345678 }` is: the field
    // rule takes text only. Only where a JSON number ends: a bot token's
    // digits run on into `:AAH…`.
    let number = quoted_name
        && !quoted
        && literal.iter().all(|b| b.is_ascii_digit())
        && matches!(
            after(0),
            None | Some(b',' | b'}' | b']' | b' ' | b'\t' | b'\r' | b'\n' | b'\\')
        );
    if !(run >= 8 && ends && digit && real) || number {
        return None;
    }
    // Only now: measuring the value's end for every name would be quadratic.
    let start = offset(text, value);
    // A quoted value goes to its closing quote, every word of it, or, with
    // none in its window, where the value ends (never inside a character);
    // a bare one may take punctuation with it.
    let end = match close {
        Some(close) if close < window.len() || window.len() == value.len() => close,
        Some(_) if run < window.len() => run,
        Some(_) => value_end(value, true),
        // After a quoted name, not the `}` that closes the object: a `,`
        // `}` or `]` that JSON follows ends it (in YAML, `pa,ss` is one).
        None if quoted_name => {
            let end = value_end(value, true);
            let bytes = value.as_bytes();
            let json_after = |k: usize| {
                let next = bytes[..end].get(k + 1 + blanks(&bytes[k + 1..end]));
                matches!(next, None | Some(b'"' | b'\\' | b'}' | b']' | b','))
            };
            (run..end)
                .find(|&k| matches!(bytes[k], b',' | b'}' | b']') && json_after(k))
                .unwrap_or(end)
                .max(run)
        }
        None => value_end(value, true).max(run),
    };
    Some(Hit::new("credential_assignment", start, start + end))
}

#[cfg(test)]
#[test]
fn every_prefix_passes_the_two_letter_filter() {
    for pattern in KEYED {
        assert!(
            may_start_key(pattern.prefix[0], pattern.prefix[1]),
            "{}",
            pattern.kind
        );
    }
}
