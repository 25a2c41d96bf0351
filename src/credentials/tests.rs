use super::*;
use crate::json;

use super::examples::secrets;

#[test]
fn every_shape_is_found_alone_and_inside_prose_and_code() {
    for (secret, kind) in secrets() {
        assert_eq!(find(&secret), Some(kind), "{secret}");
        for context in [
            format!("Here is the value: {secret} (do not share)"),
            format!("const config = {{\n  value: \"{secret}\",\n}};"),
            format!("line one\n{secret}\nline three"),
            format!("The value is {secret}."),
        ] {
            assert!(find(&context).is_some(), "inside text: {context}");
        }
    }
}

#[test]
fn near_misses_pass() {
    let near = [
        "d41d8cd98f00b204e9800998ecf8427e",
        "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
        "550e8400-e29b-41d4-a716-446655440000",
        "commit 9fceb02d0ae598e95dc970b74767f19372d61af8",
        "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==",
        "pip install scikit-learn; import sk-learn is wrong",
        "the desk-antenna-array-of-the-lab is on the roof",
        "each token costs money; tokens add up",
        "max_tokens: 4096, token_type: \"bearer\"",
        "-----BEGIN CERTIFICATE-----\nMIIDdzCCAl+gAwIBAgIEAgAAuTANBgkqhkiG9w0BAQUFADBaMQswCQYDVQQGEwJJ\n-----END CERTIFICATE-----",
        "-----BEGIN PUBLIC KEY-----\nMIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEA\n-----END PUBLIC KEY-----",
        "https://example.com/path?user=alice",
        "https://alice@example.com/",
        "PWD=/home/alice/projects/attache",
        "fetch(url, { credentials: \"include\" })",
        "let password = read_password_from_keychain();",
        "secret: process.env.SECRET",
        "api_key: &str,",
        "Authorization: Bearer",
        "Cookie: (none)",
        "sk-",
        "AKIA-not-a-key",
        "the eyJ prefix starts base64 JSON",
        "Bearer of bad news is here",
    ];
    for text in near {
        assert_eq!(find(text), None, "{text}");
    }
    let values = [
        json!({"properties": {"password": {"type": "string"}, "apiKey": {"type": "string"}}}),
        json!({"password": "", "secret": false, "apiKey": null, "token": {"id": 1, "text": "Hel"}, "tokens": 12}),
        json!({"type": "token", "token": "the"}),
        json!({"PWD": "/home/alice", "credentials": "include", "max_tokens": 100, "token_type": "bearer"}),
    ];
    for value in values {
        assert_eq!(check_value("v", &value), Ok(()), "{value}");
    }
}

#[test]
fn credential_names_are_one_family_across_spellings() {
    for name in [
        "apiKey",
        "api_key",
        "x-api-key",
        "X-Api-Key",
        "OPENAI_API_KEY",
        "x-goog-api-key",
        "auth_token",
        "authToken",
        "aws_secret_access_key",
        "GITHUB_TOKEN",
        "DATABASE_PASSWORD",
        "secretKey",
        "client_secret",
        "set-cookie",
        "Cookie",
        "proxy-authorization",
        "Authorization",
        "passphrase",
        "passwd",
        "private_key",
        "refresh_token",
        "id_token",
        "access_token",
        "HF_TOKEN",
        "npmToken",
        "csrf_token",
    ] {
        assert!(is_credential_name(name), "{name}");
        let headers = crate::json::Map::from_iter([(name.to_owned(), json!("some-value"))]);
        let value = json!({"headers": (Value::Object(headers))});
        let error = check_value("frame", &value).unwrap_err();
        assert_eq!(
            (error.code(), error.field().unwrap_or_default()),
            ("CREDENTIAL", format!("frame.headers.{name}").as_str())
        );
    }
    for name in [
        "token",
        "tokens",
        "max_tokens",
        "token_type",
        "tokenizer",
        "PWD",
        "credentials",
        "key",
        "id",
        "nextPageToken",
        "tokenCount",
    ] {
        assert!(!is_credential_name(name), "{name}");
    }
}

#[test]
fn keys_are_checked_too_and_the_error_never_holds_the_secret() {
    for (secret, kind) in secrets() {
        let error =
            check_value("state", &json!({"notes": [{"text": (secret.clone())}]})).unwrap_err();
        assert_eq!(error.field(), Some("state.notes[0].text"));
        assert!(
            matches!(&error, Error::Credential { kind: k, .. } if k == kind),
            "{error:?}"
        );
        let shown = format!("{error} {error:?}");
        let probe = &secret[secret.len() - 8..];
        assert!(
            !shown.contains(probe),
            "the error shows part of the secret: {shown}"
        );
        let keyed = crate::json::Map::from_iter([(secret.clone(), json!(1))]);
        let as_key = check_value("state", &Value::Object(keyed.clone())).unwrap_err();
        assert_eq!(
            as_key.field(),
            Some("state"),
            "a secret key is reported at its object"
        );
        let message = json!({"role": "user", "content": "hi"});
        let mut message = message.as_object().unwrap().clone();
        message.insert(secret.clone(), json!(1));
        let refused = crate::session::checks::messages(&[Value::Object(message)]).unwrap_err();
        for error in [as_key, refused] {
            assert_eq!(error.code(), "CREDENTIAL");
            let shown = format!("{error} {error:?}");
            assert!(!shown.contains(probe), "a key's secret is echoed: {shown}");
        }
    }
}

#[test]
fn a_host_secret_is_refused_wherever_it_appears() {
    let secret = "my-own-page-key-1234";
    assert_eq!(
        find(&format!("it is {secret}!")),
        None,
        "unknown until registered"
    );
    register_host_secret(secret).unwrap();
    assert_eq!(find(&format!("it is {secret}!")), Some("host_secret"));
    assert_eq!(
        register_host_secret("short").unwrap_err().code(),
        "INVALID_ARGUMENT"
    );
    clear_host_secrets();
    assert_eq!(find(secret), None);
}

#[test]
fn the_projects_own_sources_and_readme_pass_whole() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = vec![root.join("README.md"), root.join("src/js/npm-README.md")];
    let mut dirs = vec![root.join("src"), root.join("www")];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                dirs.push(path);
            } else if path
                .file_name()
                .is_some_and(|n| n != "tests.rs" && n != "examples.rs")
            {
                files.push(path);
            }
        }
    }
    let mut scanned = 0;
    for file in files {
        let Ok(text) = std::fs::read_to_string(&file) else {
            continue;
        };
        // Whole, and line by line (as frames and messages carry text).
        let found = find(&text).map(|kind| {
            (
                kind,
                text.lines().find(|l| find(l).is_some()).unwrap_or_default(),
            )
        });
        assert_eq!(found, None, "{}", file.display());
        scanned += text.len();
    }
    assert!(scanned > 100_000, "scanned {scanned} bytes");
}
