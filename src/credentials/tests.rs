use super::*;
use crate::json;

use super::examples::secrets;

/// The example secret of `kind` (the first, where there are several).
fn secret_of(kind: &str) -> String {
    secrets().into_iter().find(|(_, k)| *k == kind).unwrap().0
}

#[test]
fn every_shape_is_found_alone_and_inside_prose_and_code() {
    for (secret, kind) in secrets() {
        assert_eq!(find(&secret), Some(kind), "{secret}");
        for context in [
            format!("Here is the value: {secret} (do not share)"),
            format!("const config = {{\n  value: \"{secret}\",\n}};"),
            format!("line one\n{secret}\nline three"),
            format!("The value is {secret}."),
            format!("Set `{secret}` (a Markdown span)."),
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
        // A port, an IPv6 host, a path or query with `:` and `@` in it.
        "http://localhost:3000/users/alice@example.com",
        "http://[::1]:8080/v1/a@b",
        "https://example.com/a:b@c and https://example.com?x=a:b@c",
        "https://medium.com/@alice, https://host:443/@alice",
        // A port's name, a host list, a version, a Markdown link's end.
        "const hmr = `http://localhost:${port}/@vite/client`;",
        "curl http://localhost:$PORT/@fs/home/me/app/src/main.ts",
        "mongodb://h1:27017,h2:27017/app?appName=svc@prod",
        "http://api.local:v2/users/me@2x.png",
        "[docs](http://localhost:PORT/api)@alice",
        // A format string, a Windows placeholder, a port's name, a query
        // after a password-less URL, an IPv6 host.
        "fmt.Sprintf(\"http://%s:%d?user=%s@%s\", h, p, u, d)",
        "curl \"http://localhost:%PORT%?email=me@x.com\"",
        "GET http://localhost:PORT?email=a@b.com; open http://localhost:port#/login?user=a@b.com",
        "http://[fe80::a1]:8080/x@y, https://user@example.com/@scope/pkg?x=a@b",
        // Code building a DSN from a format string's fields.
        "fmt.Sprintf(\"postgres://%s:%s@%s:%d/%s\", user, pw, host, port, db)",
        "\"postgresql://%(user)s:%(password)s@%(host)s/db\" % cfg",
        "format!(\"postgres://{}:{}@{}/{}\", u, p, h, d); f\"redis://{cfg.user}:{cfg.password}@{host}\"",
        "string.Format(\"amqp://{0}:{1}@{2}/\", u, p, h)",
        "String.format(\"http://%1$s:%2$d/users?email=%3$s@%4$s\", a, b, c, d)",
        "printf(\"http://%s:%04d/u?email=%s@%s\", h, p, u, d);",
        // Projects named xapp, which a Slack app token's prefix starts.
        "git clone https://github.com/acme/xapp-backend-v2; npm i xapp-cli-tools-v2",
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
            (
                "CREDENTIAL",
                crate::error::key_path("frame.headers", name).as_str()
            )
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

/// Whether any of the secret's random material survives in `text`.
fn leaks(secret: &str, text: &str) -> bool {
    let pieces = examples::material(secret);
    assert!(!pieces.is_empty(), "{secret} has material to check");
    pieces.iter().any(|piece| text.contains(piece))
}

#[test]
fn redaction_replaces_every_shape_and_keeps_the_prose() {
    for (secret, kind) in secrets() {
        // On lines of their own: a cookie's value runs to its line's end.
        let mut text = format!("before\n{secret}\nmiddle {secret}\nafter");
        let mut found = Vec::new();
        redact_text("frames[0].text", &mut text, &mut found).unwrap();
        assert_eq!(find(&text), None, "{text}");
        assert!(!leaks(&secret, &text), "{kind}: {text}");
        assert!(
            text.starts_with("before\n") && text.ends_with("\nafter"),
            "{text}"
        );
        assert!(text.contains("\nmiddle "), "{text}");
        assert_eq!(found.len(), 2, "{kind}: {text}");
        for redaction in &found {
            assert_eq!(redaction.path, "frames[0].text");
            assert!(text.contains(&format!("[REDACTED:{}]", redaction.kind)));
        }
    }
}

#[test]
fn redaction_keeps_what_is_not_secret_and_names_the_scheme() {
    let mut text =
        "curl -H 'Authorization: Bearer abcdefgh12345678' postgres://app:hunter22@db/x".to_owned();
    let mut found = Vec::new();
    redact_text("t", &mut text, &mut found).unwrap();
    assert_eq!(
        text,
        "curl -H 'Authorization: Bearer [REDACTED:authorization_header]' postgres://app:[REDACTED:url_password]@db/x"
    );
    let kinds: Vec<_> = found.iter().map(|r| r.kind).collect();
    assert_eq!(kinds, ["authorization_header", "url_password"]);

    let mut clean = "nothing here, tokens: 12".to_owned();
    redact_text("t", &mut clean, &mut found).unwrap();
    assert_eq!(clean, "nothing here, tokens: 12");
    assert_eq!(found.len(), 2, "a clean text reports nothing");
}

#[test]
fn redacting_a_value_rewrites_strings_and_named_fields_but_never_keys() {
    let key = secrets()[0].0.clone();
    let mut value = json!({
        "input": {"cmd": (format!("export OPENAI_API_KEY={key}")), "apiKey": "abc", "password": ""},
        "list": [(key.clone()), 3, null],
        "properties": {"password": {"type": "string"}}
    });
    let mut found = Vec::new();
    redact_value("frames[2]", &mut value, &[], &mut found).unwrap();
    assert_eq!(
        value,
        json!({
            "input": {"cmd": "export OPENAI_API_KEY=[REDACTED:credential_assignment]", "apiKey": "[REDACTED:credential_field]", "password": ""},
            "list": ["[REDACTED:openai_key]", 3, null],
            "properties": {"password": {"type": "string"}}
        })
    );
    let paths: Vec<_> = found.iter().map(|r| (r.path.as_str(), r.kind)).collect();
    assert_eq!(
        paths,
        [
            ("frames[2].input.cmd", "credential_assignment"),
            ("frames[2].input.apiKey", "credential_field"),
            ("frames[2].list[0]", "openai_key"),
        ]
    );
    assert_eq!(check_value("frames[2]", &value), Ok(()));

    let mut fields = crate::json::Map::new();
    fields.push_field(key.clone(), json!(2));
    let mut keyed = Value::Object(fields);
    let error = redact_value("frames[0]", &mut keyed, &[], &mut found).unwrap_err();
    assert_eq!(error.code(), "CREDENTIAL");
    assert!(!format!("{error:?}").contains(&key[3..]));

    let mut document = json!({"session": {"id": (key.clone()), "title": (key.clone())}});
    let names = ["document.session.id", "document.frames[].requestId"];
    let error = redact_value("document", &mut document, &names, &mut found).unwrap_err();
    assert_eq!(
        error.field(),
        Some("document.session.id"),
        "an id is a name"
    );
    let mut batches = json!({"frames": [{"requestId": "r", "meta": {"requestId": (key.clone())}}, {"requestId": (key.clone())}]});
    let error = redact_value("document", &mut batches, &names, &mut found).unwrap_err();
    assert_eq!(
        error.field(),
        Some("document.frames[1].requestId"),
        "`[]` in a name is any index"
    );
    assert_eq!(
        batches["frames"][0]["meta"]["requestId"], "[REDACTED:openai_key]",
        "a name is a path: the same field deeper down is redacted"
    );
}

#[test]
fn a_host_secret_is_redacted_where_it_starts() {
    let secret = "pa55-word-of-the-host";
    register_host_secret(secret).unwrap();
    let mut text = format!("x {secret} y sk-{}", "a1".repeat(15));
    let mut found = Vec::new();
    let result = redact_text("t", &mut text, &mut found);
    clear_host_secrets();
    result.unwrap();
    assert_eq!(text, "x [REDACTED:host_secret] y [REDACTED:openai_key]");
}

#[test]
fn a_registered_secret_absent_from_a_text_is_looked_for_once_however_many_hits() {
    // A quote makes two forms, and the escaped one is not in the text: it
    // was looked for again after each hit, to the text's end (7 s for 1 MB).
    let secret = "corp\"Passw0rd!x";
    register_host_secret(secret).unwrap();
    let mut text = format!("log: {secret}\n").repeat(1_000);
    SECRET_SCANS.with(|n| n.set(0));
    let result = redact_text("t", &mut text, &mut Vec::new());
    let scans = SECRET_SCANS.with(std::cell::Cell::get);
    clear_host_secrets();
    result.unwrap();
    assert_eq!(text, "log: [REDACTED:host_secret]\n".repeat(1_000));
    // Once to start each form, then once per hit for the one present.
    assert_eq!(scans, 2 + 1_000);
}

#[test]
fn overlapping_shapes_redact_as_one_span_and_many_keys_all_go() {
    let key = format!("sk-{}", "aB3".repeat(8));
    let body = "MIIEpAIBAAKCAQEA3Tz2mr7SZiAMfQyuvBjM";
    let mut text =
        format!("{key}-----BEGIN RSA PRIVATE KEY-----\n{body}\n-----END RSA PRIVATE KEY----- tail");
    let mut found = Vec::new();
    redact_text("t", &mut text, &mut found).unwrap();
    assert!(!text.contains(body) && !text.contains(&key), "{text}");
    assert!(text.ends_with(" tail"), "{text}");
    assert_eq!(find(&text), None, "{text}");

    let many: String = (0..5000).map(|i| format!("line {i}: {key}\n")).collect();
    let mut text = many.clone();
    let mut found = Vec::new();
    redact_text("t", &mut text, &mut found).unwrap();
    assert_eq!(found.len(), 5000);
    assert_eq!(text, many.replace(&key, "[REDACTED:openai_key]"));
}

#[test]
fn only_an_exact_marker_passes_and_a_redacted_value_loses_its_punctuation_too() {
    for text in [
        "Authorization: Bearer [REDACTED:x]abcdef0123456789",
        "x-api-key: [REDACTED:]abcd1234efgh",
        "Cookie: [REDACTED:x]; sid=secret",
        "postgres://u:[REDACTED:x]pass1234@db",
        "\"password\": \"[REDACTED:x]hunter22\"",
    ] {
        assert!(find(text).is_some(), "a secret after a fake marker: {text}");
    }
    let value = json!({"password": "[REDACTED:x]hunter2"});
    assert_eq!(check_value("v", &value).unwrap_err().code(), "CREDENTIAL");
    assert_eq!(
        check_value("v", &json!({"password": "[REDACTED:credential_field]"})),
        Ok(())
    );

    let mut found = Vec::new();
    for (text, redacted) in [
        (
            "DB_PASSWORD=Tr0ub4dor&3xyz next",
            "DB_PASSWORD=[REDACTED:credential_assignment] next",
        ),
        (
            "use Bearer abcdefghiJklmnop%2Fqrs now",
            "use Bearer [REDACTED:bearer_token] now",
        ),
    ] {
        let mut text = text.to_owned();
        redact_text("t", &mut text, &mut found).unwrap();
        assert_eq!(text, redacted);
        assert_eq!(find(&text), None);
    }
}

#[test]
fn scrub_leaves_no_part_of_any_secret_in_an_error_a_shape_check_made() {
    for (secret, _) in secrets() {
        // Routes where a shape check reports before the guard runs: a kind
        // that is no kind, a path built from a key.
        let spec = json!([{"kind": (secret.clone())}]);
        let unknown = crate::attachment::AttachmentStore::from_specs(&spec).unwrap_err();
        // A key goes on into the path under it: `.label` ran a SendGrid
        // key on past its exact shape.
        let keyed = Error::value(&format!("frames[0].{secret}"), "is NaN");
        let deeper = Error::value(&format!("keys.{secret}.label"), "is NaN");
        let item = Error::value(&format!("keys.{secret}[0].f"), "is NaN");
        for error in [unknown, keyed, deeper, item] {
            let shown = format!(
                "{} {}",
                scrub(&error.to_string()),
                scrub(error.field().unwrap_or(""))
            );
            assert!(
                !leaks(&secret, &shown),
                "the error shows the secret: {shown}"
            );
            assert!(
                shown.contains("[REDACTED:"),
                "the marker says what was there: {shown}"
            );
        }
    }
    let plain = "frames[0].text is NaN, which JSON cannot hold";
    assert_eq!(scrub(plain), plain);
}

#[test]
fn a_credential_name_ends_in_its_word_and_counts_its_number() {
    for name in [
        "API_KEY_2",
        "password1",
        "HTTP_AUTHORIZATION",
        "passwordConfirmation",
        "secret_value",
        "aws_secret_access_key",
    ] {
        assert!(is_credential_name(name), "{name}");
    }
    for name in [
        "secretary",
        "passwordPolicy",
        "forgot_password_url",
        "secretName",
        "passwordMinLength",
        "secretKeyRef",
        "password_hash",
    ] {
        assert!(!is_credential_name(name), "{name}");
    }
}

#[test]
fn a_credential_field_holding_text_a_value_or_a_named_pair_is_refused() {
    for (value, field) in [
        (json!({"apiKey": {"value": "q8Zr4mLx9Tv2Kp7W"}}), "v.apiKey"),
        (
            json!({"properties": {"password": "hunter2hunter2"}}),
            "v.properties.password",
        ),
        (
            json!({"env": [{"name": "DB_PASSWORD", "value": "hunter2"}]}),
            "v.env[0].value",
        ),
        (
            json!({"input": {"type": "password", "value": "hunter2"}}),
            "v.input.value",
        ),
        (
            json!([{"name": "Authorization", "value": "Basic dXNlcjpwYXNz"}]),
            "v[0].value",
        ),
    ] {
        let error = check_value("v", &value).unwrap_err();
        assert_eq!(
            (error.code(), error.field()),
            ("CREDENTIAL", Some(field)),
            "{value}"
        );
    }
    for value in [
        json!({"env": [{"name": "DB_PASSWORD", "value": ""}, {"name": "HOME", "value": "/root"}]}),
        json!({"api_key": {"type": "apiKey", "name": "api_key", "in": "header"}}),
        json!({"apiKey": "<YOUR_API_KEY>", "token_secret": "${TOKEN_SECRET}"}),
        // An API's validation errors, and Postman's placeholder header.
        json!({"errors": {"password": ["The password must be at least 8 characters."]}}),
        json!({"key": "Authorization", "value": "Bearer {{access_token}}"}),
    ] {
        assert_eq!(check_value("v", &value), Ok(()), "{value}");
    }
    let mut value = json!({"env": [{"name": "DB_PASSWORD", "value": "hunter2"}], "password": "a"});
    let mut found = Vec::new();
    redact_value("v", &mut value, &[], &mut found).unwrap();
    assert_eq!(
        value,
        json!({"env": [{"name": "DB_PASSWORD", "value": "[REDACTED:credential_field]"}],
               "password": "[REDACTED:credential_field]"})
    );
    assert_eq!(found.len(), 2);
}

#[test]
fn a_key_or_token_field_holding_a_state_word_holds_no_credential() {
    // An approval graph's `authorization: "pending"`, an unset key's `N/A`.
    for value in [
        json!({"authorization": "pending", "api_key": "N/A", "accessToken": "none", "cookie": "Accepted"}),
        json!({"name": "Authorization", "value": "approved"}),
        json!([["GITHUB_TOKEN", "unset"]]),
        json!({"body": r#"{"authorization": "denied"}"#}),
    ] {
        assert_eq!(check_value("v", &value), Ok(()), "{value}");
        let mut redacted = value.clone();
        redact_value("v", &mut redacted, &[], &mut Vec::new()).unwrap();
        assert_eq!(redacted, value);
    }
    // A password's or a secret's field may hold any word; a key's, any
    // word not listed.
    for (value, field) in [
        (json!({"password": "none"}), "v.password"),
        (json!({"client_secret": "pending"}), "v.client_secret"),
        (json!({"api_key": "supersecret"}), "v.api_key"),
        (
            json!({"authorization": "pending approval"}),
            "v.authorization",
        ),
        (json!({"type": "password", "value": "denied"}), "v.value"),
        (json!({"body": r#"{"secret": "denied"}"#}), "v.body"),
    ] {
        let error = check_value("v", &value).unwrap_err();
        assert_eq!(
            (error.code(), error.field()),
            ("CREDENTIAL", Some(field)),
            "{value}"
        );
    }
}

#[test]
fn a_header_list_entry_is_read_as_its_line() {
    // fetch's `headers: [[name, value]]`, `[...new Headers(h)]`, Node's
    // `rawHeaders`; parsed, and as JSON text (a tool's output).
    let key = "q8Zr4mLx9Tv2Kp7Wq8Zr4mLx9Tv2Kp7Wq8Zr4mLx";
    for (value, field, kind) in [
        (
            json!({"headers": [["Accept", "*/*"], ["Authorization", "Basic ZGVwbG95OmgzbGxv"]]}),
            "v.headers[1][1]",
            "authorization_header",
        ),
        (json!([["X-Api-Key", key]]), "v[0][1]", "api_key_header"),
        (
            json!([["set-cookie", "sid=4f2a9c; HttpOnly"]]),
            "v[0][1]",
            "cookie_header",
        ),
        (
            json!({"rawHeaders": ["Host", "x.test", "proxy-authorization", "Basic ZGVwbG95OmgzbGxv"]}),
            "v.rawHeaders[3]",
            "authorization_header",
        ),
        (
            json!({"output": r#"{"headers":[["Authorization","Basic ZGVwbG95OmgzbGxv"]]}"#}),
            "v.output",
            "authorization_header",
        ),
        (
            json!({"output": format!(r#"{{\"h\":[[\"x-api-key\", \"{key}\"]]}}"#)}),
            "v.output",
            "api_key_header",
        ),
        // Pretty-printed, escaped too, and as Python prints its tuples.
        (
            json!({"output": "[\n  [\n    \"Cookie\",\n    \"sid=4f2a9c8e\"\n  ]\n]"}),
            "v.output",
            "cookie_header",
        ),
        (
            json!({"output": r#"{\"h\": [[\"Authorization\",\n  \"Basic ZGVwbG95OmgzbGxv\"]]}"#}),
            "v.output",
            "authorization_header",
        ),
        (
            json!({"output": "[('Authorization', 'Basic ZGVwbG95OmgzbGxv')]"}),
            "v.output",
            "authorization_header",
        ),
        (
            json!({"output": "new Headers([ ['Authorization', 'Basic ZGVwbG95OmgzbGxv'] ])"}),
            "v.output",
            "authorization_header",
        ),
        (
            json!({"output": r#"{\"h\": \"[\n('Authorization', 'Basic ZGVwbG95OmgzbGxv')]\"}"#}),
            "v.output",
            "authorization_header",
        ),
    ] {
        assert_eq!(
            check_value("v", &value),
            Err(Error::Credential {
                path: field.into(),
                kind: kind.into()
            }),
            "{value}"
        );
    }
    // Lists that name headers, or credentials, hold none: a schema's enum,
    // a field list, a placeholder, a consent flag, a key with no digit.
    for value in [
        json!({"enum": ["x-api-key", "authorization", "cookie"]}),
        json!({"auth_type": {"enum": ["api_key", "oauth2"]}}),
        json!({"required": ["password", "user_id2"]}),
        json!(["secret", "k8s/secret"]),
        json!(["password", "contraseña"]),
        json!([["Authorization", "Bearer {{access_token}}"]]),
        json!([["cookie", "accepted"]]),
        json!(r#"{"enum":["x-api-key","authorizationHeader"]}"#),
        // Code, which a tool's output holds: a call's arguments, not a list.
        json!("headers.set('x-api-key', process.env.ANTHROPIC_KEY_V2);"),
        json!("self.send_header('Set-Cookie', 'session=%s' % sid)"),
        json!("h.set(\"Authorization\", \"Token tokenFromStorage1\")"),
    ] {
        assert_eq!(check_value("v", &value), Ok(()), "{value}");
    }
    let mut value = json!({"headers": [["Accept", "*/*"], ["Authorization", "Basic ZGVwbG95OmgzbGxv"]],
                           "raw": ["cookie", "sid=4f2a9c", "x-api-key", key]});
    let mut found = Vec::new();
    redact_value("v", &mut value, &[], &mut found).unwrap();
    assert_eq!(
        value,
        json!({"headers": [["Accept", "*/*"], ["Authorization", "[REDACTED:authorization_header]"]],
               "raw": ["cookie", "[REDACTED:cookie_header]", "x-api-key", "[REDACTED:api_key_header]"]})
    );
    let paths: Vec<&str> = found.iter().map(|r| r.path.as_str()).collect();
    assert_eq!(paths, ["v.headers[1][1]", "v.raw[1]", "v.raw[3]"]);
}

#[test]
fn escaped_json_spacing_and_punctuation_do_not_hide_a_credential() {
    let key = "sk-proj-Zq81xYv3Lm0Nt5Kw2Pr7Hs4Jd6Fg9Bc";
    for text in [
        format!(r#"{{"stdout":"PATH=/usr/bin\n{key}"}}"#),
        format!(r#"key:\t{key}"#),
        r#"headers:\r\nAuthorization: Basic dXNlcjpodW50ZXIy"#.to_owned(),
        "Authorization: Bearer  Zq81xYv3Lm0Nt5Kw2Pr7".to_owned(),
        "Authorization: Basic\tdXNlcjpodW50ZXIy".to_owned(),
        "call it with Bearer\tZq81xYv3Lm0Nt5Kw2Pr7".to_owned(),
        "HTTP_AUTHORIZATION: Basic dXNlcjpodW50ZXIy".to_owned(),
        r#"{\"Authorization\":\"Basic dXNlcjpodW50ZXIy\"}"#.to_owned(),
        r#"{\"password\":\"s3cr3tpassw0rd\"}"#.to_owned(),
        r#"{"dsn":"postgres:\/\/admin:hunter2@db.example.com\/app"}"#.to_owned(),
        "-----BEGIN PGP PRIVATE KEY BLOCK-----\nlQOYBF0\n-----END PGP PRIVATE KEY BLOCK-----"
            .to_owned(),
        "DB_PASSWORD=p@ssw0rd!2024".to_owned(),
        "password=p%40ssw0rd2024".to_owned(),
        r#"password := "s3cr3tpassw0rd""#.to_owned(),
        r#"passphrase = "correct horse battery staple""#.to_owned(),
        "SECRET_KEY_BASE=9f8e7d6c5b4a39281706f5e4d3c2b1a0".to_owned(),
        r#"{"reset_password_token":"Xy7kP2qLm9"}"#.to_owned(),
        r#"password: "p\u00e4ssw\u00f6rd1""#.to_owned(),
    ] {
        assert!(find(&text).is_some(), "missed: {text}");
    }
    let mut text = r#"{\"password\":\"s3cr3tpassw0rd\"}"#.to_owned();
    redact_text("t", &mut text, &mut Vec::new()).unwrap();
    assert_eq!(text, r#"{\"password\":\"[REDACTED:credential_field]\"}"#);
}

#[test]
fn a_credential_field_in_json_text_goes_whole_and_the_text_still_parses() {
    for (text, redacted) in [
        // Short, spaced: the field holds it whatever its length.
        (
            r#"{"password":"hunter2"}"#,
            r#"{"password":"[REDACTED:credential_field]"}"#,
        ),
        (
            r#"{"passphrase": "correct horse battery staple", "n": 1}"#,
            r#"{"passphrase": "[REDACTED:credential_field]", "n": 1}"#,
        ),
        // A named pair in an env list, as a tool's output text holds it.
        (
            r#"[{"name":"DB_PASSWORD","value":"Tr0ub4dor&3xx"}]"#,
            r#"[{"name":"DB_PASSWORD","value":"[REDACTED:credential_field]"}]"#,
        ),
        // Backslashes that are the value's own stay out of the JSON's way.
        (
            r#"{"password":"abc\\"}"#,
            r#"{"password":"[REDACTED:credential_field]"}"#,
        ),
        (
            r#"{"h":"Authorization: Bearer Zq81xYv3Lm0Nt5Kw\\"}"#,
            r#"{"h":"Authorization: Bearer [REDACTED:authorization_header]"}"#,
        ),
        (
            r#"{"k":"-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIB"}"#,
            r#"{"k":"[REDACTED:private_key]"}"#,
        ),
    ] {
        let mut out = text.to_owned();
        redact_text("t", &mut out, &mut Vec::new()).unwrap();
        assert_eq!(out, redacted, "{text}");
        assert!(
            serde_json::from_str::<serde_json::Value>(&out).is_ok(),
            "{out}"
        );
    }
    // A bare value after a quoted name ends before the object does (not
    // JSON to begin with: what follows the marker is kept).
    let mut bare = r#"{"user":"ann","password":hunter2x9,"n":1}"#.to_owned();
    redact_text("t", &mut bare, &mut Vec::new()).unwrap();
    assert_eq!(
        bare,
        r#"{"user":"ann","password":[REDACTED:credential_assignment],"n":1}"#
    );
    for text in [
        r#"{"password":""}"#,
        r#"{"password":"…"}"#,
        r#"{"password":"****"}"#,
        // A number, as the field rule reads `{ password: 12345678 }`.
        r#"{"user":"ann","password":12345678}"#,
        r#"{\"pin\": 1234567890}"#,
    ] {
        assert_eq!(find(text), None, "{text}");
    }
    // Unquoted names keep reading a bare number as a typed password, and
    // digits that run on are no number: a bot token in YAML.
    assert!(find("password=12345678").is_some());
    for text in [
        r#""bot_token": 123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw"#,
        r#""password": 12345678;x"#,
    ] {
        assert!(find(text).is_some(), "{text}");
    }
    // A YAML value with a comma goes whole; JSON's next field stays.
    let mut yaml = r#""password": Tr0ub4dor!!,xyz"#.to_owned();
    redact_text("t", &mut yaml, &mut Vec::new()).unwrap();
    assert_eq!(yaml, r#""password": [REDACTED:credential_assignment]"#);
}

#[test]
fn placeholders_prose_and_css_are_not_credentials() {
    for text in [
        "'password' => 'required|string|min:8|confirmed'",
        r#"if password == "hunter2222" {"#,
        r#"{"username":"string","password":"string"}"#,
        r#"{"forgotPassword": "Forgot password?"}"#,
        r#"{"headers":{"Authorization":"Bearer ${OPENAI_API_KEY}"}}"#,
        "postgres://app:${DB_PASSWORD}@db:5432/app",
        "redis://:$REDIS_PASSWORD@redis:6379",
        r#"curl https://api.openai.com/v1/models -H "Authorization: Bearer $OPENAI_API_KEY""#,
        "Authorization: Bearer ${TOKEN}",
        r#"POSTGRES_PASSWORD: "${DB_PASSWORD}""#,
        r#"{"apiKey":"<YOUR_API_KEY>"}"#,
        "password=$DB_PASSWORD1",
        "The Bearer authentication_scheme is described in RFC 6750.",
        r#"<div class="sk-slider-container-horizontal-wide">"#,
        // A Jira key's branch, a spinner's classes, a slug, a namespace,
        // AWS's documented example key, a Spanish label.
        "git checkout -b feature/sk-1234-fix-login-redirect-loop",
        ".sk-circle-bounce-delay-2, .sk-ProductCardHeaderTitle { }",
        "git switch sk-1234-MigrateUserSettingsToV2; sk-learn-RandomForestClassifier",
        "git switch sk-2041-fix-base64-decoding-in-utf8-parser",
        "/posts/sk-hynix-Q3-2024-earnings-beat-expectations",
        "using SG.Framework.Data.Repositories.Implementations.UserRepositoryBase2;",
        "aws_access_key_id = AKIAIOSFODNN7EXAMPLE",
        r#"{"forgotPassword": "¿Olvidaste tu contraseña?"}"#,
        // A locale file's labels naming their field.
        r#"{"password": "Password", "newPassword": "PASSWORD", "accessToken": "Token"}"#,
        // A placeholder in prose or a Markdown span, as API docs write it.
        "sends Authorization: Bearer <token>.",
        "Set the header `Authorization: Bearer $OPENAI_API_KEY` on each call.",
        "(use Authorization: Bearer <YOUR_TOKEN>)",
        "curl -H 'Authorization: Bearer YOUR_ACCESS_TOKEN' https://api.example.com",
        "Authorization: Bearer REPLACE_WITH_TOKEN or Bearer INSERT_TOKEN_HERE",
        "Authorization: Bearer {token}, then retry",
        "`x-api-key: YOUR_API_KEY`, or x-api-key: <your-key>.",
        "`Authorization: Bearer sk-proj-...` or x-api-key: <your-key>! or Bearer <token>?",
        // A form's masked value, as a snapshot of a login form holds it.
        r#"{"password": "••••••••", "secret": "●●●●●●"}"#,
        // A docs' fill-in: one character repeated.
        "STRIPE_KEY=sk_test_XXXXXXXXXXXXXXXXXXXXXXXX and gsk_XXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX",
        // Shorter than its key, or an identifier after its prefix.
        "sk_buff r8_init fw_updateFirmwareVersion2 lsv2_enabled",
    ] {
        assert_eq!(find(text), None, "{text}");
    }
}

#[test]
fn the_readmes_named_sk_examples_are_as_it_says() {
    // Each 20 characters or more after `sk-`, as a key's run is: shorter
    // passes for its length alone, whatever the rule for names says.
    for named in [
        "sk-1234-fix-login-redirect",
        "sk-ProductCardHeaderTitle",
        "sk-abcdefghijklmnop1234",
    ] {
        assert_eq!(find(named), None, "{named}");
    }
    for key in ["sk-1234-add-i18n-support", "sk-learn-GridSearchCV-tuning"] {
        assert_eq!(find(key), Some("openai_key"), "{key}");
    }
}

#[test]
fn pem_headers_alone_hold_no_key() {
    // Also what made each header read the rest of the text for its END
    // (34 s here on c152e3c; milliseconds now). No test times it: a
    // return to that would show as a slow run, not a failure.
    let text = "-----BEGIN PRIVATE KEY-----\"".repeat(4_000);
    assert_eq!(find(&text), None);
    let text = "-----BEGIN ".repeat(10_000);
    assert_eq!(find(&text), None);
}

#[test]
fn code_and_docs_that_name_credentials_pass_and_their_real_neighbours_do_not() {
    // What a scan of 26,789 files of real crates and npm packages refused
    // (linux-raw-sys, ring, http, jose, langsmith, web-sys, ...): each is
    // a file an agent pins.
    for text in [
        "pub const DEVCONF_STABLE_SECRET: _bindgen_ty_3 = _bindgen_ty_3::DEVCONF_STABLE_SECRET;",
        "    generate_private_key: x25519_generate_private_key,",
        "let mut cookie: i32 = 0;",
        "let cookie: Cookie = Cookie::build(\"name\", \"value\");",
        "const LANGSMITH_API_KEY = \"LANGSMITH_API_KEY\";",
        " *   apiKey: \"your-api-key\",",
        "  access_token: 'access_token',",
        "if (pkcs8.indexOf(\"-----BEGIN PRIVATE KEY-----\") !== 0) {",
        "consistent!(click_1, r\"-----BEGIN PRIVATE KEY-----\");",
        "return buildHeaders([{ 'X-API-Key': this.apiKey }]);",
    ] {
        assert_eq!(find(text), None, "{text}");
    }
    for (text, kind) in [
        ("password: \"hunter2hunter2\"", "credential_assignment"),
        ("password = \"password123\"", "credential_assignment"),
        ("api_key = abc123def456", "credential_assignment"),
        ("API_KEY: c2VjcmV0a2V5MTIz", "credential_assignment"),
        ("private_key: priv8key2024x", "credential_assignment"),
        ("password: mypassword2024", "credential_assignment"),
        ("password: password123", "credential_assignment"),
        ("secret: \"Tr0ub4dor&3 is mine\"", "credential_assignment"),
        ("password: Password_2024!", "credential_assignment"),
        ("password: hunter2_password", "credential_assignment"),
        ("secret: 4fGhT9kLmNqRsVwX_secret", "credential_assignment"),
        ("secret: secret_4fGhT9kLmNqRsVwXyZ1a2B3c4D5e6F7g8H9iJ0kLmNo", "credential_assignment"),
        ("password: \"password\"", "credential_assignment"),
        ("WIFI_PASSWORD=\"sunflower garden 42\"", "credential_assignment"),
        ("DATABASE_URL=mongodb://root:password@mongo.prod.internal:27017/app", "url_password"),
        ("curl -H 'x-api-key: QwErTyUiOpAsDfGhJkLzXcVbNmQwErTy' https://api.example.com", "api_key_header"),
        ("const KEY = [\n  \"-----BEGIN RSA PRIVATE KEY-----\",\n  \"MIIEowIBAAKCAQEAxzdfEeseTs/rukjly6MSLHM+Rh0enA3Ai4Mj2sdl31x3SbPo\",\n  \"-----END RSA PRIVATE KEY-----\",\n].join(\"\\n\");", "private_key"),
        ("postgres://app:s3cr3tpassw0rd@db/app", "url_password"),
        (
            "-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC\n",
            "private_key",
        ),
        (
            "\"-----BEGIN PRIVATE KEY-----\\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC\"",
            "private_key",
        ),
        ("Cookie: session=abc123; theme=dark", "cookie_header"),
        ("x-api-key: 9f8e7d6c5b4a39281706", "api_key_header"),
    ] {
        assert_eq!(find(text), Some(kind), "{text}");
    }
}

#[test]
fn code_that_builds_or_types_a_credential_and_docs_that_stand_for_one_pass() {
    // A second scan (22,632 files under node_modules, the cargo registry,
    // /usr/share/doc, Python packages): the classes it refused.
    for text in [
        r#"headers = {"Authorization": "Bearer " + token}"#,
        "interface KeyPair { privateKey: Uint8Array; publicKey: Uint8Array }",
        "pub fn new(secret_key: SecretKey256) -> Self",
        r#"setErrors({ password: "Password is required" })"#,
        r#"curl -H "Authorization: Bearer $(gcloud auth print-access-token)" URL"#,
        r#"curl -H "Authorization: Bearer ACCESS_TOKEN" URL"#,
        "curl -H 'Authorization: Bearer my-api-key' URL",
        "Set `Authorization: Bearer my-api-key`.",
        "(Authorization: Bearer api-key).",
        "  apiKey: 'your_api_key_here',",
        r#"api_key = "placeholder""#,
        r#"enum OAuthErrorCode { InvalidToken = "invalid_token" }"#,
        "  _CLIENT_SECRET = 'CLIENT_SECRET'",
        "  _client_secret = 'client_secret'",
    ] {
        assert_eq!(find(text), None, "{text}");
    }
    // Their real neighbours.
    for text in [
        r#"headers = {"Authorization": "Bearer eyJhbGciOiJIUzI1NiJ9"}"#,
        "privateKey: Tr0ub4dor3x",
        "password: Hunter2024",
        r#"password = "correcthorse battery staple""#,
        r#"curl -H "Authorization: Bearer abcd-efgh-1234" URL"#,
        "  apiKey: 'your8api2key',",
        r#"{"idToken": "eyJhbGciOiJSUzI1NiJ9x"}"#,
        "  _CLIENT_SECRET = 'd8Kq2mXz9PvL4tRw'",
        r#"{"AWS_SECRET": "7f3a9b2c1d4e5f6a"}"#,
        // A path's last part still names one; each rule kept narrow.
        r#"Settings::SECRET_KEY = "d8Kq2mXz9PvL4tRw""#,
        r#"{"AWS::SecretsManager::Secret": "7f3a9b2c1d4e5f6a"}"#,
        "password: Hunter2024;",
        "fn login(password: Hunter2024)",
        r#"password: "Swordfish horse battery""#,
        r#"curl -H "Authorization: Bearer $(Kq2mXz9PvL4tRw" URL"#,
        r#"curl -H "Authorization: Bearer abcd-efgh-ijkl" URL"#,
        r#"api_key = "HUNTER_TWO""#,
        r#"{"uuidToken": "eyJhbGciOiJSUzI1NiJ9x"}"#,
        r#"{"validToken": "eyJhbGciOiJSUzI1NiJ9x"}"#,
        r#"DB_PASSWORD="MONKEY_BUSINESS""#,
        r#"export GITHUB_TOKEN="TOKENIZER_PASS""#,
        r#"DB_PASSWORD="Champion is here""#,
        "password: Summer16;",
        r#"password: "$(Kq2mXz9PvL4tRw)""#,
        r#"{"password": "$(k9LmQ2x#)"}"#,
        "Authorization: Bearer my.realsecretvalue",
        "Authorization: Bearer api:lowercasesecret",
    ] {
        assert!(find(text).is_some(), "{text}");
    }
}

#[test]
fn redacting_settles_and_a_key_without_its_end_line_goes_whole() {
    for (text, redacted) in [
        (
            r#"{"headers":{"Authorization":"Bearer abcdefghijklmnop1"}}"#,
            r#"{"headers":{"Authorization":"[REDACTED:credential_field]"}}"#,
        ),
        (
            "https://ghp_Zq81xYv3Lm0Nt5Kw2Pr7Hs4Jd6Fg9Bc0a1b@github.com/o/r.git",
            "https://[REDACTED:github_token]@github.com/o/r.git",
        ),
        (
            "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA1b2c\nQWERTYuiop",
            "[REDACTED:private_key]",
        ),
        (
            r#"PASSPHRASE="verylongw0rd and more words" next"#,
            r#"PASSPHRASE="[REDACTED:credential_assignment]" next"#,
        ),
    ] {
        let mut out = text.to_owned();
        redact_text("t", &mut out, &mut Vec::new()).unwrap();
        assert_eq!(out, redacted, "{text}");
        assert_eq!(
            find(&out),
            None,
            "redacted text passes the guard again: {out}"
        );
    }
}

#[test]
fn a_span_that_ends_inside_a_name_leaves_no_value_behind() {
    let key = format!("sk-proj-{}", "Ab3".repeat(22));
    for text in [
        format!("-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\nOPENAI_API_KEY={key}\nDB_PASSWORD='Hunter2024pw'\n"),
        "Cookie: csrftoken=Tk7Yh3Nb9Vc5Xz1Q; password='Hunter2024pw'".to_owned(),
        "Cookie: csrftoken=Tk7Yh3Nb9Vc5Xz1Q; password = 'Hunter2024pw'".to_owned(),
        format!("-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\nOPENAI_API_KEY={key}\ndb_password: 'Hunter2024pw'\n"),
        format!("{key}-{}PASSWORD=Hunter2024pw", "A_".repeat(30)),
    ] {
        let mut out = text.clone();
        redact_text("t", &mut out, &mut Vec::new()).unwrap();
        assert!(!out.contains("Hunter2024pw") && !out.contains(&key), "{out}");
    }
}

#[test]
fn a_key_after_a_percent_escape_or_dotted_is_found() {
    let jwt = secret_of("jwt");
    let key = format!("sk-proj-{}", "Ab3".repeat(22));
    for (text, kind) in [
        (
            format!("https://x.example/?q=why%20is%20my%20key%20{key}%20rejected"),
            "openai_key",
        ),
        (
            format!("redirect=https%3A%2F%2Fx.example%2F%23access_token%3D{jwt}"),
            "jwt",
        ),
        (
            "ya29.c.c0ASRK0GZx4Lq9Vt2Bn7Mp3Hs8Jd1Fg6Kw0Pz5Rx".to_owned(),
            "google_oauth_token",
        ),
    ] {
        assert_eq!(find(&text), Some(kind), "{text}");
        let mut out = text.clone();
        redact_text("t", &mut out, &mut Vec::new()).unwrap();
        assert!(
            !out.contains("Pz5Rx") && !out.contains(&jwt) && !out.contains(&key),
            "{out}"
        );
    }
    // A hex pair alone is no escape: the key is still glued to a word.
    assert_eq!(find(&format!("x3D{key}")), None);
}

#[test]
fn quoted_values_end_at_their_own_quote_one_level_down_too() {
    for (text, redacted) in [
        (
            r#"password = "Sup3rS3cr\"etTail99""#,
            r#"password = "[REDACTED:credential_assignment]""#,
        ),
        (
            r#"{"cmd":"export PASSWORD=\"Sup3rS3cret\" && run"}"#,
            r#"{"cmd":"export PASSWORD=\"[REDACTED:credential_assignment]\" && run"}"#,
        ),
        (
            r#"{"body":"{\"password\":\"hunter2\"}"}"#,
            r#"{"body":"{\"password\":\"[REDACTED:credential_field]\"}"}"#,
        ),
        (
            r#"{"out":"{\"password\":\"abc\\\\\",\"user\":\"bob\"}"}"#,
            r#"{"out":"{\"password\":\"[REDACTED:credential_field]\",\"user\":\"bob\"}"}"#,
        ),
    ] {
        let mut out = text.to_owned();
        redact_text("t", &mut out, &mut Vec::new()).unwrap();
        assert_eq!(out, redacted, "{text}");
        assert_eq!(find(&out), None, "{out}");
        if text.starts_with('{') {
            assert!(
                serde_json::from_str::<serde_json::Value>(&out).is_ok(),
                "{out}"
            );
        }
    }
    let jwt = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c";
    assert_eq!(find(&format!("token:{jwt}.Thanks")), Some("jwt"));
    assert_eq!(
        find(r#"{"password":"{{hunter2"}"#),
        Some("credential_field")
    );
}

#[test]
fn a_quoted_password_with_spaces_goes_whole_once_its_first_word_counts() {
    for (text, redacted) in [
        (
            r#"DB_PASSWORD="correcthorse battery staple""#,
            r#"DB_PASSWORD="[REDACTED:credential_assignment]""#,
        ),
        (
            "export SECRET='Tr0ub4dor&3 and more' # set\nnext=1",
            "export SECRET='[REDACTED:credential_assignment]' # set\nnext=1",
        ),
        (
            r#"{"cmd":"export PASSWORD=\"Sup3rS3cret two words\" && run"}"#,
            r#"{"cmd":"export PASSWORD=\"[REDACTED:credential_assignment]\" && run"}"#,
        ),
        // No closing quote on its line: to the line's end, no further.
        (
            "password = \"Sup3rS3cret and prose\nthat goes on\"",
            "password = \"[REDACTED:credential_assignment]\nthat goes on\"",
        ),
    ] {
        let mut out = text.to_owned();
        redact_text("t", &mut out, &mut Vec::new()).unwrap();
        assert_eq!(out, redacted, "{text}");
    }
    // A label's first word is no credential, so none of it is.
    for text in [
        r#"password = "Enter your password""#,
        r#"secret: "correct horse battery staple""#,
    ] {
        assert_eq!(find(text), None, "{text}");
    }
}

#[test]
fn lists_of_values_count_but_sentences_labels_and_examples_do_not() {
    for value in [
        json!({"password": ["hunter2"]}),
        json!({"set-cookie": ["sid=s%3Aabc123; Path=/"]}),
    ] {
        assert_eq!(
            check_value("v", &value).unwrap_err().code(),
            "CREDENTIAL",
            "{value}"
        );
    }
    for text in [
        r#"{"resetPassword":"Reset","secret":"Secret","confirmPassword":"Confirm"}"#,
        r#"{"password":"[FILTERED]"}"#,
        r#"{"apiKey":"sk-..."}"#,
        r#"{"apiKey":"YOUR_API_KEY"}"#,
        r#"export OPENAI_API_KEY="sk-proj-...""#,
        "postgres://user:{password}@h/db",
    ] {
        assert_eq!(find(text), None, "{text}");
    }
}

#[test]
fn cut_values_json_in_strings_later_headers_and_long_quoted_values_are_still_found() {
    for text in [
        r#"{"cookie":"sessionid=k2j3h4k5j6h7g8f9d0s; csrftoken=Hq8..."}"#,
        r#"DB_PASSWORD="Zx81kq...mn""#,
        r#"{"SecretString":"{\"host\":\"db\",\"dbpass\":\"Xk29fj2kdl\"}"}"#,
        r#"password: '{hunter2xyz}'"#,
        r#"{"password":"monkey"}"#,
        r#"send: b'GET / HTTP/1.1\r\nCookie: \r\nAuthorization: Basic YWRtaW46c2VjcmV0\r\n'"#,
        r#"X-Api-Key: k\r\nAuthorization: Basic YWRtaW46c2VjcmV0"#,
    ] {
        assert!(find(text).is_some(), "missed: {text}");
    }
    let mut value = json!({"cookie": "sessionid=k2j3h4k5j6h7g8f9d0s; csrftoken=Hq8..."});
    redact_value("v", &mut value, &[], &mut Vec::new()).unwrap();
    assert_eq!(value, json!({"cookie": "[REDACTED:credential_field]"}));
    // A quoted value past its 4 KiB window goes whole, and no text after
    // it is lost when the window ends inside a character.
    let long = format!("a{}", "é".repeat(3000));
    let mut text = format!(r#"{{"note":"password='{long}'","after":"keep me"}}"#);
    redact_text("t", &mut text, &mut Vec::new()).unwrap();
    assert!(!text.contains("éé") && text.contains("keep me"), "{text}");
    let mut text = r#"X-Api-Key: k\r\nAuthorization: Basic YWRtaW46c2VjcmV0"#.to_owned();
    redact_text("t", &mut text, &mut Vec::new()).unwrap();
    assert!(!text.contains("YWRtaW46"), "{text}");
}

#[test]
fn pretty_printed_json_and_unicode_escapes_do_not_hide_a_credential() {
    let key = "sk-proj-Zq81xYv3Lm0Nt5Kw2Pr7Hs4Jd6Fg9Bc";
    for text in [
        // A HAR file's header, as JSON.stringify(x, null, 2) writes it.
        "{\n  \"name\": \"Authorization\",\n  \"value\": \"Basic dXNlcjpodW50ZXIy\"\n}".to_owned(),
        "{\n  \"password\":\n    \"hunter2hunter2\"\n}".to_owned(),
        // The same, escaped inside a string (a tool's output kept as text).
        r#"{\n  \"name\": \"Cookie\",\n  \"value\": \"sid=s%3Aabc123\"\n}"#.to_owned(),
        // Python's json.dumps writes curly quotes as \u201c; Go writes < as \u003c.
        format!(r#"{{"text":"use \u201c{key}\u201d"}}"#),
        format!(r#"{{"html":"\u003c{key}\u003e"}}"#),
    ] {
        assert!(find(&text).is_some(), "missed: {text}");
    }
    // One level down, JSON inside a string: the escapes are \\u201c, \\n.
    assert!(find(&format!(
        r#"{{"o":"{{\"t\":\"use \\u201c{key}\\u201d\"}}"}}"#
    ))
    .is_some());
    assert!(find(&format!(r#"{{"o":"{{\"t\":\"line\\n{key}\"}}"}}"#)).is_some());
}

#[test]
fn a_key_prefix_after_a_slash_or_plus_inside_long_standard_base64_is_data() {
    // An image's bytes as base64: "/AIza" or "+AKIA" inside them is no key.
    let run =
        "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9aw".repeat(2);
    for inner in [
        "/AIzaSyD3xYv3Lm0Nt5Kw2Pr7Hs4Jd6Fg9BcQ1Zt",
        "+AIzaSyD3xYv3Lm0Nt5Kw2Pr7Hs4Jd6Fg9BcQ1Zt",
        "/AKIAQ3XZ7Y2W4V5U6T7S",
    ] {
        let text = format!("data:image/png;base64,{run}{inner}{run}");
        assert_eq!(find(&text), None, "{text}");
    }
    // After a path's slash, a query's `+`, or a short run, it is still a key.
    let query = "why+does+my+Google+Maps+embed+show+an+error+on+the+2nd+load+".repeat(3);
    for text in [
        "https://maps.example.test/v1/AIzaSyD3xYv3Lm0Nt5Kw2Pr7Hs4Jd6Fg9BcQ1Zt".to_owned(),
        format!("https://x.test/search?q={query}with+key+AIzaSyD3xYv3Lm0Nt5Kw2Pr7Hs4Jd6Fg9BcQ1Zt"),
        format!("{}/AIzaSyD3xYv3Lm0Nt5Kw2Pr7Hs4Jd6Fg9BcQ1Zt", &run[..100]),
        format!("{} /AIzaSyD3xYv3Lm0Nt5Kw2Pr7Hs4Jd6Fg9BcQ1Zt", run),
    ] {
        assert!(find(&text).is_some(), "missed: {text}");
    }
}

#[test]
fn a_key_prefix_inside_a_long_base64url_run_is_data() {
    // OpenAI's encrypted_content is base64url: "-sk-" or "_hf_" inside it
    // is no key, however random what follows.
    let run = "gAAAAABn4Xz9QkT2Lm0Np5Kw2Pr7Hs4Jd6Fg9BcYv3Lm0Nt5Kw2Pr7Hs4".repeat(3);
    for inner in [
        "-sk-proj-Zq81xYv3Lm0Nt5Kw2Pr7Hs4Jd6Fg9Bc",
        "_hf_Zq81xYv3Lm0Nt5Kw2Pr7Hs4Jd6Fg9BcX",
        "-ghp_Zq81xYv3Lm0Nt5Kw2Pr7Hs4Jd6Fg9BcYv3L",
    ] {
        let text = format!("{run}{inner}{run}");
        assert_eq!(find(&text), None, "{text}");
    }
    // A key after a name and a hyphen or underscore is still one, a long
    // name's too: an ENV_NAME or a slug is no base64url.
    for text in [
        "key-sk-proj-Zq81xYv3Lm0Nt5Kw2Pr7Hs4Jd6Fg9Bc",
        "token_ghp_Zq81xYv3Lm0Nt5Kw2Pr7Hs4Jd6Fg9BcYv3L",
        "MY_COMPANY_PRODUCTION_DEPLOY_KEY_sk-proj-Zq81xYv3Lm0Nt5Kw2Pr7Hs4Jd6Fg9Bc",
        "release-2026-deploy-notes-for-the-team-ghp_Zq81xYv3Lm0Nt5Kw2Pr7Hs4Jd6Fg9BcYv3L",
        "Release-2026-Deploy-Notes-For-Team-ghp_Zq81xYv3Lm0Nt5Kw2Pr7Hs4Jd6Fg9BcYv3L",
        "loadOpenAiKeyForGpt4oProduction_sk-proj-Zq81xYv3Lm0Nt5Kw2Pr7Hs4Jd6Fg9Bc",
    ] {
        assert!(find(text).is_some(), "missed: {text}");
    }
    // 128 characters and more before it, but one case short of base64url:
    // a long slug, a long ENV_NAME.
    for text in [
        format!(
            "{}sk-proj-Zq81xYv3Lm0Nt5Kw2Pr7Hs4Jd6Fg9Bc",
            "deploy-notes-".repeat(11)
        ),
        format!(
            "{}sk-proj-Zq81xYv3Lm0Nt5Kw2Pr7Hs4Jd6Fg9Bc",
            "MY_SERVICE_2026_".repeat(9)
        ),
    ] {
        assert!(find(&text).is_some(), "missed: {text}");
    }
}

#[test]
fn a_field_holding_a_label_is_not_read_again_as_an_assignment() {
    for text in [
        r#"{"newPassword": "Password strength: weak"}"#,
        r#"{"password": "Password strength: weak"}"#,
        r#"{"password": "Must be 8+ chars (at least 1 digit)."}"#,
        r#"{"passwordHint": "Use 2 words"}"#,
        r#"{"apiKey": "Enter your API key"}"#,
    ] {
        assert_eq!(find(text), None, "{text}");
    }
    // A password that is one word after the name is still refused, and
    // one with a space after it (a paste's) or more words.
    for text in [
        r#"{"password": "Tr0ub4dor&3"}"#,
        r#"{"password": "Tr0ub4dor&3x "}"#,
        r#"{"client_secret": "3f9a8b7c6d5e4f3a2b1c and more"}"#,
        r#"{\"password\": \"Tr0ub4dor&3x \"}"#,
        r#"{"password": "Xq!vB#rTzw&kPq "}"#,
        r#"{"password": " Xq!vB#rTzw&kPq"}"#,
        r#"{"name": "DB_PASSWORD", "value": "Xq!vB#rTzw&kPq "}"#,
        r#"{"password": "Xq!vB#rTzw&kPq is new"}"#,
        r#"{"password": "Sunshine "}"#,
        // One word that is not the name, nor only another script's letters.
        r#"{"password": "Sunshine"}"#,
        r#"{"password": "Passw0rd"}"#,
        r#"{"password": "пароль123"}"#,
        r#"{"password": "Пароль!"}"#,
        "Authorization: Bearer xK9fQ2mZ7pL4vN8rT3wY",
        // Default credentials, a credential's word with a digit or in small
        // letters, and padding after a secret are no label, mask or fill-in.
        r#"{"adminPassword": "admin", "x": 1}"#,
        r#"{"password": "password"}"#,
        r#"{"password": "Password1"}"#,
        r#"{"password": "hunter2xyz            "}"#,
        r#"{"password": "D0g....................."}"#,
        r#"{"password": "⢀⢢⢗⢏⢀⢢"}"#,
        r#"{"password": "Tr0ub4dorxxxxxxxxxxxx"}"#,
        r#"{"password": "hunter2xyz-xxxxxxxxxxxx", "apiKey": "pASSWORD"}"#,
        r#"{"password": "hunter2xyz\n# was sk-xxxxxxxxxxxx"}"#,
        "API_KEY=xK9fQ2mZ7pL4vN8rT3wY_xxxxxxxxxxxx",
        "postgres://user:Tr0ub4dor_xxxxxxxxxxxx@db/app",
        "curl -H 'Authorization: Bearer xK9fQ2mZ7pL4vN8rT3wYb6Hg............'",
        "postgres://user:Tr0ub4dor!!!!!!!!!!!!@db/app",
    ] {
        assert!(find(text).is_some(), "missed: {text}");
    }
    // Whole, not its first word.
    let mut text = r#"{"password":"Blue42Sky2024 hunter horse"}"#.to_owned();
    redact_text("t", &mut text, &mut Vec::new()).unwrap();
    assert_eq!(text, r#"{"password":"[REDACTED:credential_field]"}"#);
}

#[test]
fn a_host_secret_is_found_as_json_text_escapes_it() {
    let secret = r#"Tr0ub4"dor\&3xyz"#;
    register_host_secret(secret).unwrap();
    let arguments = json::Value::String(
        // A field no name rule reads: only the registration finds it.
        json!({ "note": secret, "user": "ana" }).to_string(),
    );
    assert_eq!(
        check_value("meta.item.arguments", &arguments)
            .unwrap_err()
            .code(),
        "CREDENTIAL"
    );
    clear_host_secrets();
    // A tab inside one, as JSON text escapes it.
    register_host_secret("Tr0ub4\tdor&3xyz").unwrap();
    let arguments = json::Value::String(json!({ "note": "Tr0ub4\tdor&3xyz" }).to_string());
    assert!(check_value("a", &arguments).is_err());
    clear_host_secrets();
    // Ending in a backslash, its escaped form is the longer match: the
    // redacted JSON text still parses.
    register_host_secret(r"abcdefgh\").unwrap();
    let mut text = json!({ "pw": r"abcdefgh\" }).to_string();
    redact_text("t", &mut text, &mut Vec::new()).unwrap();
    assert!(json::parse(&text).is_ok(), "{text}");
    clear_host_secrets();
}

#[test]
fn a_jwt_after_sendgrid_looking_text_is_redacted_whole() {
    // The SendGrid run's 67th byte is the JWT's second dot: measured no
    // further, it read as a SendGrid key and left the signature.
    let mut text = "SG.abcdefghijklmnopqrstuv.eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJhYmNkZWYifQ.SflKxwRJSFMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c".to_owned();
    redact_text("t", &mut text, &mut Vec::new()).unwrap();
    assert_eq!(text, "SG.abcdefghijklmnopqrstuv.[REDACTED:jwt]");
    // A SendGrid key ending a sentence is still one.
    let key = format!("SG.{}.{}", "aB3".repeat(7) + "x", "cD4".repeat(14) + "y");
    assert_eq!(
        find(&format!("the key {key}. Thanks")),
        Some("sendgrid_key")
    );
}

#[test]
fn scrub_reads_a_bounded_window_per_separator() {
    // Each `.` tried against the whole text before it made a 32 KB dotted
    // error take 20 s in a browser: the bytes read grew with its square.
    let dotted = "a.".repeat(16_000);
    let runs = format!("{}.", "x".repeat(17)).repeat(2_000);
    for text in [dotted, runs] {
        SCRUBBED.with(|n| n.set(0));
        assert_eq!(scrub(&text), text);
        let read = SCRUBBED.with(std::cell::Cell::get);
        // The whole text once, and at most 1,024 bytes per try, one try
        // per 8-byte segment and its separator at most.
        let bound = text.len() + (text.len() / 9 + 1) * 1024;
        assert!(read <= bound, "{read} bytes read for {}", text.len());
    }
    // A separator after a short segment is not tried: the text is read once.
    let dotted = "a.".repeat(16_000);
    SCRUBBED.with(|n| n.set(0));
    scrub(&dotted);
    assert_eq!(SCRUBBED.with(std::cell::Cell::get), dotted.len());
}

#[test]
fn scrub_finds_a_short_password_or_a_glued_key_where_a_path_goes_on() {
    // A value followed by `.label` reads as code, and SendGrid's exact
    // length is broken by it: only a try that ends at the `.` finds them.
    let sendgrid = secret_of("sendgrid_key");
    let aws = secrets()
        .into_iter()
        .find(|(s, _)| s.starts_with("aws_secret_access_key"))
        .unwrap()
        .0;
    let cases = [
        ("password=Hunter2024!".to_owned(), "Hunter2024!".to_owned()),
        (
            "api_token: 9f8e7d6c5b4a".to_owned(),
            "9f8e7d6c5b4a".to_owned(),
        ),
        ("secret=abc12345".to_owned(), "abc12345".to_owned()),
        (
            "x-api-key: AbCdEfGhIjKl".to_owned(),
            "AbCdEfGhIjKl".to_owned(),
        ),
        // Glued to a long run, the window starts inside it, not past the name.
        (
            format!("{}={sendgrid}", "a".repeat(460)),
            sendgrid[3..].to_owned(),
        ),
        (
            format!("{}/{aws}", "Q".repeat(500)),
            aws[aws.len() - 40..].to_owned(),
        ),
    ];
    for (key, secret) in cases {
        for path in [
            format!("k.{key}.label"),
            format!("k.{key}[0].f"),
            format!("{}.{key}.x.y", "p".repeat(600)),
        ] {
            let shown = scrub(&format!("value at `{path}`: is NaN"));
            assert!(!shown.contains(&secret), "{shown}");
            assert!(shown.contains("[REDACTED:"), "{shown}");
        }
    }
}

#[test]
fn scrub_finds_a_long_value_with_its_name_where_a_path_goes_on() {
    // A value the guard measures to 512 bytes, with its name before it,
    // and a glued run in front whose boundary lies inside the credential.
    let mut x: u64 = 12345;
    let mut random = |n: usize| -> String {
        let alphabet = b"ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz0123456789";
        (0..n)
            .map(|_| {
                x = (x * 1_103_515_245 + 12_345) % 2_147_483_648;
                alphabet[(x % alphabet.len() as u64) as usize] as char
            })
            .collect()
    };
    let cases = [
        format!("password={}", random(505)),
        format!("aws_session_token={}", random(500)),
        format!("{}/password: {}", "Q".repeat(300), random(300)),
        format!("{}/password=Ab1!{}", "Q".repeat(300), random(300)),
    ];
    for key in cases {
        let value = &key[key.len() - 200..];
        for path in [
            format!("k.{key}.label"),
            format!("k.{key}[0]"),
            format!("{}.{key}.x", "p".repeat(700)),
        ] {
            let shown = scrub(&format!("value at `{path}`: is NaN"));
            assert!(!shown.contains(value), "{}", &shown[..120.min(shown.len())]);
        }
    }
}

#[test]
fn scrub_hides_every_segment_of_a_dotted_value_a_header_names() {
    // Replaced as found, the first try left `Cookie: [REDACTED].seg2.seg3`,
    // and no later try saw the header's name before the rest.
    let signature = "Vb2NcX9mQ4rT7yU1iO3pA5sD8fG0hJ2kL4zX6cV8bN";
    for value in [
        format!("Cookie: connect.sid=s%3AQx7fLm2Np4Qr6St8Uv0Wx2Yz4Ab6CdK0.{signature}"),
        format!("Cookie: session=eyJ1c2VySWQiOjQyfQ.ZkR3aQ.{signature}"),
        format!("Set-Cookie: sid=abcdefgh12345678.{signature}; HttpOnly"),
    ] {
        for text in [
            format!("value at `k.{value}.label`: is NaN"),
            format!("unknown kind \"{value}\""),
        ] {
            let shown = scrub(&text);
            assert!(!shown.contains(&signature[..12]), "{shown}");
            assert!(shown.contains("[REDACTED:"), "{shown}");
        }
    }
}

#[test]
fn scrub_keeps_what_lies_between_two_credentials() {
    // A span from the first hit to the last swallowed the path between.
    let (a, b) = (secret_of("openai_key"), secret_of("github_token"));
    let text = format!("value at `keys.{a}.usage.daily.byModel.{b}.cost`: is NaN");
    let shown = scrub(&text);
    assert!(
        shown.contains(".usage.daily.byModel.[REDACTED:github_token].cost"),
        "{shown}"
    );
    assert!(shown.contains("keys.[REDACTED:openai_key]"), "{shown}");
}

#[test]
fn scrub_joins_its_hits_in_n_log_n() {
    // Each join searched every hit for its next one: 504 ms for a 123 KB
    // error with a key in each dotted segment, found again by each try.
    // Spans compared, passed over and moved are counted: at 3,000 keys,
    // moving the tail for each span the last try finds again is past the
    // bound (5.7 million steps).
    let key = secret_of("github_token");
    for n in [100, 3_000] {
        let text = format!("keys.{key}.usage.").repeat(n);
        JOIN_STEPS.with(|s| s.set(0));
        let shown = scrub(&text);
        assert_eq!(shown, "keys.[REDACTED:github_token].usage.".repeat(n));
        // Each key is found by the tries of up to 1,024 bytes after it.
        let hits = n * (1 + 1024 / (key.len() + 2));
        let bound = 3 * hits * (usize::BITS - hits.leading_zeros()) as usize;
        let steps = JOIN_STEPS.with(std::cell::Cell::get);
        assert!(steps <= bound, "{steps} steps for {n} keys");
    }
}

#[test]
fn a_list_of_name_value_pairs_names_a_credential_as_keys_do() {
    // `[...formData]`, `Object.entries(env)`, `[...url.searchParams]`,
    // `[...headers]`: the same data as an object was refused.
    for (value, field) in [
        (
            json!({"form": [["user", "bob"], ["password", "Tr0ub4dor&3"]]}),
            "v.form[1][1]",
        ),
        (
            json!([
                ["PATH", "/usr/bin"],
                ["MISTRAL_API_KEY", "q8Zr4mLx9Tv2Kp7W"]
            ]),
            "v[1][1]",
        ),
        (json!([["q", "cats"], ["api_key", "k3y0123456"]]), "v[1][1]"),
        (json!([["api-key", "0a1b2c3d4e5f"]]), "v[0][1]"),
        // A raw key in Authorization (no scheme), and an item not a pair.
        (
            json!([
                ["accept", "json"],
                ["authorization", "abcdef0123456789abcdef"]
            ]),
            "v[1][1]",
        ),
        (
            json!({"form": [["user", "bob"], ["password", "Tr0ub4dor&3x"], "extra"]}),
            "v.form[1][1]",
        ),
    ] {
        let refused = Err(Error::Credential {
            path: field.into(),
            kind: "credential_field".into(),
        });
        assert_eq!(check_value("v", &value), refused, "{value}");
        let mut redacted = value.clone();
        let mut found = Vec::new();
        redact_value("v", &mut redacted, &[], &mut found).unwrap();
        assert_eq!(found.len(), 1, "{redacted}");
        assert_eq!(found[0].path, field);
        let at = |v: &Value| match v {
            Value::Array(items) => items.clone(),
            Value::Object(fields) => match fields.get("form") {
                Some(Value::Array(items)) => items.clone(),
                _ => unreachable!(),
            },
            _ => unreachable!(),
        };
        // The pair's value alone is replaced, its name and the rest kept.
        let (before, after) = (at(&value), at(&redacted));
        // The pair's index: the field's `[i]` before its `[1]`.
        let i: usize = field
            .trim_end_matches("][1]")
            .rsplit('[')
            .next()
            .unwrap()
            .parse()
            .unwrap();
        assert_eq!(before[..i], after[..i]);
        assert_eq!(
            after[i],
            json!([
                (before[i].as_array().unwrap()[0].as_str().unwrap()),
                "[REDACTED:credential_field]"
            ])
        );
    }
    // A lone pair is a list of names; a schema's properties hold no text;
    // a header's value is read as its line.
    for value in [
        json!({"required": ["password", "username"]}),
        json!([["apiKey", {"type": "string"}], ["model", {"type": "string"}]]),
        json!([["password", ""], ["user", "bob"]]),
        json!([["cookie", "accepted"], ["theme", "dark"]]),
        // Prose: a FAQ's, a table's rows.
        json!([["How do I reset my password?", "Click Forgot password."]]),
        json!([["Setting", "Value"], ["Two-factor secret", "Enabled"]]),
    ] {
        assert_eq!(check_value("v", &value), Ok(()), "{value}");
    }
}

#[test]
fn a_url_password_with_raw_at_and_hash_is_redacted_whole() {
    // Cut at its first `@`, the rest of the password stayed, and a
    // redacting store refused its own output.
    for (url, secret) in [
        ("postgres://admin:Tr0ub4dor#p@ss9@db/app", "ss9"),
        ("mysql://root:S3cr?t@42xyZ@db/app", "42xyZ"),
        ("postgres://admin:pa$$w0rd#1@db/app", "w0rd"),
    ] {
        let text = format!("DATABASE_URL={url} # prod");
        let (mut shown, mut found) = (text.clone(), Vec::new());
        redact_text("v", &mut shown, &mut found).unwrap();
        assert!(!shown.contains(secret), "{shown}");
        let kinds: Vec<&str> = found.iter().map(|r| r.kind).collect();
        assert_eq!(kinds, ["url_password"], "{shown}");
        assert!(shown.ends_with("@db/app # prod"), "{shown}");
        assert_eq!(find(&shown), None, "{shown}");
    }
}

#[test]
fn a_url_password_is_redacted_up_to_its_host_and_no_further() {
    // Run to the last `@`, a password took the host, the path and the
    // next line of a tool's output with it.
    for (text, kept) in [
        (
            "https://user:tok3n@registry.npmjs.org/@types/node",
            "@registry.npmjs.org/@types/node",
        ),
        (
            "https://user:tok3n@example.com/a?email=a@b.com",
            "@example.com/a?email=a@b.com",
        ),
        (
            r#"{"stdout":"DATABASE_URL=postgres://u:p4ss@h/db\nADMIN_EMAIL=admin@example.com\n"}"#,
            r#"@h/db\nADMIN_EMAIL=admin@example.com\n"}"#,
        ),
        (
            "postgres://u:Tr0ub4dor#1@h/db,ops@example.com",
            "@h/db,ops@example.com",
        ),
    ] {
        let (mut shown, mut found) = (text.to_owned(), Vec::new());
        redact_text("v", &mut shown, &mut found).unwrap();
        assert!(
            shown.ends_with(&format!("[REDACTED:url_password]{kept}")),
            "{shown}"
        );
    }
}

/// A path cut at 1,000 units (a huge key) may end inside a credential:
/// what of it is before the `…` must not show.
#[test]
fn scrub_leaves_no_part_of_a_secret_a_cut_ends_in() {
    let registered = "Vx9Lm4Qr7Tz2Wp8K";
    register_host_secret(registered).unwrap();
    let mut secrets = secrets();
    secrets.push((registered.to_owned(), "host_secret"));
    let mut missed = Vec::new();
    for (secret, kind) in &secrets {
        for keep in [6, 10, secret.len() / 2, secret.len() - 1] {
            let Some(kept) = secret.get(..keep) else {
                continue;
            };
            // Words, then the secret, the cut `keep` bytes into it.
            let key = format!(
                "{} {secret}",
                "a ".repeat(500).get(..1000 - 9 - keep).unwrap()
            );
            let path = crate::error::cut_path(format!("frames[\"{key}\"]"));
            assert!(path.ends_with(&format!("{kept}…")), "{path}");
            let error = Error::value(&path, "is NaN");
            let shown = format!("{} {}", scrub(&error.to_string()), scrub(&path));
            if leaks(secret, &shown) {
                missed.push(format!(
                    "{kind} cut after {keep}: …{}",
                    &shown[shown.len() - 60..]
                ));
            }
        }
    }
    clear_host_secrets();
    assert!(missed.is_empty(), "{missed:#?}");
    let plain = crate::error::cut_path(format!("frames[\"{}\"]", "a".repeat(2000)));
    assert_eq!(scrub(&plain), plain);
}

/// A registered secret of digits (an account number) is found where a
/// model wrote it as a JSON number, as where it wrote it as text.
#[test]
fn a_registered_secret_of_digits_is_found_as_a_number() {
    register_host_secret("4929123456781234").unwrap();
    let value = json!({"args": {"card": 4929123456781234u64}, "n": 42});
    let error = check_value("frame", &value).unwrap_err();
    assert_eq!(
        (error.code(), error.field()),
        ("CREDENTIAL", Some("frame.args.card"))
    );
    let error = check_host_secrets_in("frame", &value).unwrap_err();
    assert_eq!(error.code(), "CREDENTIAL");
    let mut redacted = value.clone();
    let mut found = Vec::new();
    redact_value("frame", &mut redacted, &[], &mut found).unwrap();
    assert_eq!(
        redacted,
        json!({"args": {"card": "[REDACTED:host_secret]"}, "n": 42})
    );
    assert_eq!(found.len(), 1);
    clear_host_secrets();
    assert!(
        check_value("frame", &value).is_ok(),
        "a number is no credential by itself"
    );
}
