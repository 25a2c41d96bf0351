//! One fake example of every credential shape, with the kind it must be
//! found as: for the tests here and the conformance suite. Unused by the
//! bindings, so none of it ships.

/// Deterministic key-like text: fake, but shaped like the real thing.
fn chars(alphabet: &str, n: usize, seed: u64) -> String {
    let alphabet: Vec<char> = alphabet.chars().collect();
    let mut x = seed
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407);
    (0..n)
        .map(|_| {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            alphabet[(x >> 33) as usize % alphabet.len()]
        })
        .collect()
}
const ALNUM: &str = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
const UPPER: &str = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
const URLSAFE: &str = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

/// What must never survive a redaction of `secret`, found without the
/// guard's help: every 6 characters of each random run of letters and
/// digits in it, one with a digit or of 16 or more (a header's name, a
/// scheme, a host or a variable's words have neither).
pub fn material(secret: &str) -> Vec<&str> {
    secret
        .split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|run| {
            run.len() >= 6 && (run.len() >= 16 || run.bytes().any(|b| b.is_ascii_digit()))
        })
        .flat_map(|run| (0..=run.len() - 6).map(move |i| &run[i..i + 6]))
        .collect()
}

/// One example of every shape, with the kind it must be found as.
pub fn secrets() -> Vec<(String, &'static str)> {
    let a = |n, seed| chars(ALNUM, n, seed);
    let u = |n, seed| chars(URLSAFE, n, seed);
    let jwt = format!("eyJhbGciOiJIUzI1NiJ9.eyJ{}.{}", u(40, 1), u(43, 2));
    let pem = |kind: &str| {
        format!(
            "-----BEGIN {kind}PRIVATE KEY-----\nMIIE{}\n-----END {kind}PRIVATE KEY-----",
            a(60, 3)
        )
    };
    vec![
        (format!("sk-{}", u(48, 4)), "openai_key"),
        (format!("sk-proj-{}", u(64, 5)), "openai_key"),
        (format!("sk-svcacct-{}", u(64, 6)), "openai_key"),
        (format!("sk-ant-api03-{}", u(80, 7)), "anthropic_key"),
        // A LiteLLM proxy's key (token_urlsafe(16)) and Langfuse's (a UUID).
        (format!("sk-{}", u(22, 61)), "openai_key"),
        (
            format!(
                "sk-lf-{}-{}-{}-{}-{}",
                chars("0123456789abcdef", 8, 62),
                chars("0123456789abcdef", 4, 63),
                chars("0123456789abcdef", 4, 64),
                chars("0123456789abcdef", 4, 65),
                chars("0123456789abcdef", 12, 66)
            ),
            "openai_key",
        ),
        (format!("AIza{}", u(35, 8)), "google_api_key"),
        (format!("ya29.{}", u(60, 9)), "google_oauth_token"),
        (format!("AKIA{}", chars(UPPER, 16, 10)), "aws_access_key"),
        (format!("ASIA{}", chars(UPPER, 16, 11)), "aws_access_key"),
        (
            format!(
                "aws_secret_access_key = {}",
                chars(&format!("{ALNUM}/+"), 40, 12)
            ),
            "credential_assignment",
        ),
        (format!("ghp_{}", a(36, 13)), "github_token"),
        (format!("gho_{}", a(36, 14)), "github_token"),
        (format!("ghu_{}", a(36, 15)), "github_token"),
        (format!("ghs_{}", a(36, 16)), "github_token"),
        (format!("ghr_{}", a(36, 17)), "github_token"),
        (
            format!("github_pat_{}_{}", a(22, 18), a(59, 19)),
            "github_token",
        ),
        (format!("glpat-{}", u(20, 20)), "gitlab_token"),
        (
            format!(
                "xoxb-{}-{}-{}",
                chars("0123456789", 12, 21),
                chars("0123456789", 13, 22),
                a(24, 23)
            ),
            "slack_token",
        ),
        (format!("xoxp-{}", a(40, 24)), "slack_token"),
        // Socket Mode's app-level token, and a rotation's refresh token.
        (
            format!(
                "xapp-1-A{}-{}-{}",
                a(10, 90),
                chars("0123456789", 13, 91),
                a(64, 92)
            ),
            "slack_token",
        ),
        (format!("xoxe-1-{}", a(140, 93)), "slack_token"),
        (
            format!(
                "https://hooks.slack.com/services/T{}/B{}/{}",
                a(8, 25),
                a(10, 26),
                a(24, 27)
            ),
            "slack_webhook",
        ),
        (format!("sk_live_{}", a(24, 28)), "stripe_key"),
        (format!("rk_live_{}", a(24, 29)), "stripe_key"),
        (
            format!(
                "hf_{}",
                chars(
                    "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ",
                    34,
                    30
                )
            ),
            "huggingface_token",
        ),
        (format!("npm_{}", a(36, 31)), "npm_token"),
        (format!("sk_test_{}", a(99, 45)), "stripe_key"),
        (format!("rk_test_{}", a(99, 46)), "stripe_key"),
        (format!("whsec_{}", a(32, 47)), "stripe_key"),
        (format!("gsk_{}", a(52, 48)), "groq_key"),
        (format!("xai-{}", a(80, 49)), "xai_key"),
        (format!("pplx-{}", a(48, 50)), "perplexity_key"),
        (format!("r8_{}", a(37, 51)), "replicate_token"),
        (format!("tgp_v1_{}", u(43, 52)), "together_key"),
        (
            format!(
                "csk-{}",
                chars("abcdefghijklmnopqrstuvwxyz0123456789", 48, 53)
            ),
            "cerebras_key",
        ),
        (format!("nvapi-{}", u(64, 54)), "nvidia_key"),
        (
            format!("sk_{}", chars("0123456789abcdef", 48, 55)),
            "elevenlabs_key",
        ),
        (
            format!(
                "lsv2_pt_{}_{}",
                chars("0123456789abcdef", 32, 56),
                chars("0123456789abcdef", 10, 57)
            ),
            "langsmith_key",
        ),
        (format!("tvly-{}", a(32, 58)), "tavily_key"),
        (format!("pcsk_{}_{}", a(6, 59), a(63, 60)), "pinecone_key"),
        (format!("SG.{}.{}", u(22, 32), u(43, 33)), "sendgrid_key"),
        (jwt, "jwt"),
        (pem(""), "private_key"),
        (pem("RSA "), "private_key"),
        (pem("EC "), "private_key"),
        (pem("OPENSSH "), "private_key"),
        (pem("ENCRYPTED "), "private_key"),
        (pem("DSA "), "private_key"),
        (
            format!("Authorization: Bearer {}", u(32, 34)),
            "authorization_header",
        ),
        (
            format!("authorization: Basic {}", a(24, 35)),
            "authorization_header",
        ),
        (
            format!("Authorization: Token {}", a(40, 36)),
            "authorization_header",
        ),
        (
            format!("Proxy-Authorization: Basic {}", a(24, 37)),
            "authorization_header",
        ),
        (format!("x-api-key: {}", a(32, 38)), "api_key_header"),
        (format!("Cookie: session={}", a(32, 39)), "cookie_header"),
        (
            format!("Set-Cookie: sid={}; HttpOnly", a(32, 40)),
            "cookie_header",
        ),
        (
            "postgres://admin:hunter2@db.example.com:5432/app".to_owned(),
            "url_password",
        ),
        (
            "https://user:pa55word@example.com/private".to_owned(),
            "url_password",
        ),
        // Raw `#`, `?`, `/` in a `.env`'s password: a URL parser reads the
        // authority as ending there.
        (
            "postgres://admin:Tr0ub4dor#2024@db.internal:5432/app".to_owned(),
            "url_password",
        ),
        (
            "mysql://root:S3cr3tPass?w0rd/42@127.0.0.1/app".to_owned(),
            "url_password",
        ),
        (
            format!("export OPENAI_API_KEY=\"{}\"", a(20, 41)),
            "credential_assignment",
        ),
        (
            format!("DATABASE_PASSWORD={}", a(16, 42)),
            "credential_assignment",
        ),
        (
            format!("--db-password={}7", a(15, 44)),
            "credential_assignment",
        ),
        (format!("Bearer {}", u(40, 43)), "bearer_token"),
    ]
}
