//! `mcp login` then `mcp call` against weather-server run protected (`--auth-issuer`) in front
//! of a real authorization server, oidc-provider (npm, OpenID-certified; `interop/auth`,
//! installed by `scripts/interop-setup.sh`). The test plays the browser with
//! `interop/auth/browse.mjs`, which follows the AS's redirects (its login and consent are
//! automated) to the loopback listener `mcp login` runs.
//!
//! Checked: DCR + PKCE + resource indicator login; calls with the JWT access token; an expired
//! token (the store's expiry moved back) refreshed before the call with the refresh token
//! rotated; a revoked refresh token makes the next call ask for a login, keeps the
//! registration, and a new login works without registering again; with two servers behind two
//! ASes, neither AS ever sees the other's tokens.

mod common;

use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use common::{mcp_in, run, scratch, weather_server, write_config, Run, CLOCK};
use serde_json::{json, Value};

const ROOT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/..");

/// The oidc-provider modules (from `scripts/interop-setup.sh`); `None` skips the test, unless
/// `MCP_INTEROP_REQUIRED=1`, which fails it instead.
fn auth_modules() -> Option<PathBuf> {
    match std::env::var_os("MCP_INTEROP_AUTH_MODULES") {
        Some(path) if PathBuf::from(&path).join("oidc-provider").exists() => Some(path.into()),
        _ => {
            if std::env::var("MCP_INTEROP_REQUIRED").as_deref() == Ok("1") {
                panic!("oidc-provider is not installed but MCP_INTEROP_REQUIRED=1; run scripts/interop-setup.sh");
            }
            eprintln!("skipped: MCP_INTEROP_AUTH_MODULES has no oidc-provider; run `eval \"$(scripts/interop-setup.sh)\"` to enable");
            None
        }
    }
}

/// A child process killed when dropped.
struct Killed(Child);

impl Drop for Killed {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Reads `stream` line by line until `pick` finds something, for at most 60 s.
fn first_line<R: Read + Send + 'static>(
    stream: R,
    pick: impl Fn(&str) -> Option<String> + Send + 'static,
) -> String {
    first_line_within(stream, pick, Duration::from_secs(60))
        .expect("the process printed what the test waits for within 60 s")
}

/// The first line of `stream` that `pick` accepts, if one comes within `wait` (None when the
/// process ends first or is silent). The rest keeps being drained into the test's output, so
/// the child never blocks on a full pipe.
fn first_line_within<R: Read + Send + 'static>(
    stream: R,
    pick: impl Fn(&str) -> Option<String> + Send + 'static,
    wait: Duration,
) -> Option<String> {
    let (found_tx, found_rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut found_tx = Some(found_tx);
        for line in BufReader::new(stream).lines().map_while(Result::ok) {
            match found_tx.as_ref().and_then(|_| pick(&line)) {
                Some(found) => {
                    if let Some(tx) = found_tx.take() {
                        let _ = tx.send(found);
                    }
                }
                None => eprintln!("{line}"),
            }
        }
    });
    found_rx.recv_timeout(wait).ok()
}

/// oidc-provider on 127.0.0.1 (hour-long access tokens) logging its requests to `log`.
fn start_as(modules: &Path, log: &Path) -> (Killed, String) {
    // Node has been seen to hang at start on this machine (its main thread parked on a lock,
    // before listening); a start that prints no issuer within 20 s is killed and tried again.
    for _ in 0..3 {
        let mut child = Command::new("node")
            .arg(format!("{ROOT}/interop/auth/provider.mjs"))
            .arg(modules)
            .arg("0")
            .env("AS_REQUEST_LOG", log)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("node starts");
        let stdout = child.stdout.take().expect("stdout");
        let child = Killed(child);
        let issuer = first_line_within(
            stdout,
            |line| {
                let v: Value = serde_json::from_str(line).ok()?;
                v["issuer"].as_str().map(str::to_owned)
            },
            Duration::from_secs(20),
        );
        if let Some(issuer) = issuer {
            return (child, issuer);
        }
        eprintln!("the authorization server printed no issuer within 20 s; starting it again");
    }
    panic!("the authorization server (interop/auth/provider.mjs) did not start in 3 tries");
}

/// weather-server --http on a free port, protected by `issuer`, every request needing scope
/// `mcp`; its `/mcp` URL.
fn start_weather(issuer: &str) -> (Killed, String) {
    let mut child = Command::new(weather_server())
        .args([
            "--http",
            "127.0.0.1:0",
            "--clock",
            CLOCK,
            "--auth-issuer",
            issuer,
        ])
        // Its challenges then name the scope, which clients ask for (oidc-provider grants
        // nothing to a request that names no scope).
        .args(["--auth-required-scope", "mcp", "--log-level", "info"])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("weather-server starts");
    let stderr = child.stderr.take().expect("stderr");
    let url = first_line(stderr, |line| {
        let rest = line.split("Streamable HTTP at ").nth(1)?;
        Some(rest.split_whitespace().next()?.to_owned())
    });
    (Killed(child), url)
}

fn mcp(home: &Path, config: &Path, args: &[&str]) -> Run {
    let config = config.to_string_lossy().into_owned();
    let mut all = vec!["--config", config.as_str()];
    all.extend_from_slice(args);
    run(mcp_in(home, &all), 60)
}

/// A port nobody listens on now, for a loopback redirect.
fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("free port")
        .port()
}

/// `mcp login NAME` (its redirect port from the config's `oauth.callbackPort`), the browser
/// step played by browse.mjs; returns login's stdout.
fn login(home: &Path, config: &Path, name: &str) -> String {
    let config = config.to_string_lossy().into_owned();
    let mut child = mcp_in(home, &["--config", &config, "login", name])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn mcp login");
    let stderr = child.stderr.take().expect("stderr");
    let url = first_line(stderr, |line| {
        let line = line.trim();
        (line.starts_with("http") && line.contains("/auth?")).then(|| line.to_owned())
    });
    let browser = Command::new("node")
        .arg(format!("{ROOT}/interop/auth/browse.mjs"))
        .arg(&url)
        .stdin(Stdio::null())
        .output()
        .expect("node runs browse.mjs");
    let deadline = Instant::now() + Duration::from_secs(60);
    let exit = loop {
        if let Some(exit) = child.try_wait().expect("wait") {
            break exit;
        }
        assert!(Instant::now() < deadline, "mcp login did not finish");
        std::thread::sleep(Duration::from_millis(20));
    };
    let mut stdout = String::new();
    let _ = child
        .stdout
        .take()
        .expect("stdout")
        .read_to_string(&mut stdout);
    assert!(
        browser.status.success() && exit.success(),
        "login failed: {stdout}\nbrowser: {}",
        String::from_utf8_lossy(&browser.stderr)
    );
    stdout
}

/// The token store `mcp` keeps under `home`.
fn store(home: &Path) -> Value {
    let text =
        std::fs::read_to_string(home.join(".config/mcp/oauth.json")).expect("the token store");
    serde_json::from_str(&text).expect("the token store is JSON")
}

/// The stored tokens of server `url`: (access token, refresh token).
fn tokens_of(home: &Path, url: &str) -> (String, String) {
    let store = store(home);
    let login = store["logins"]
        .as_array()
        .and_then(|logins| logins.iter().find(|l| l["server"] == url))
        .unwrap_or_else(|| panic!("no login for {url} in {store}"));
    let text = |key: &str| {
        login["tokens"][key]
            .as_str()
            .unwrap_or_else(|| panic!("no {key} in the login"))
            .to_owned()
    };
    (text("access_token"), text("refresh_token"))
}

/// Marks the stored access token of server `url` as expired, as if an hour had passed: the next
/// `mcp` run must refresh it first.
fn expire_tokens(home: &Path, url: &str) {
    let path = home.join(".config/mcp/oauth.json");
    let mut store = store(home);
    for login in store["logins"].as_array_mut().expect("logins") {
        if login["server"] == url {
            login["tokens"]["expires_at"] = json!(1);
        }
    }
    std::fs::write(&path, store.to_string()).expect("rewrite the token store");
}

fn call_weather(home: &Path, config: &Path, server: &str) -> Run {
    let tool = format!("{server}__get_weather");
    mcp(home, config, &["call", &tool, r#"{"city":"Shenzhen"}"#])
}

#[test]
fn login_call_refresh_revoke_and_two_authorization_servers() {
    let Some(modules) = auth_modules() else {
        return;
    };
    let home = scratch("oidc");
    let (log1, log2) = (home.join("as1.log"), home.join("as2.log"));
    let (_as1, issuer1) = start_as(&modules, &log1);
    let (_as2, issuer2) = start_as(&modules, &log2);
    let (_w1, url1) = start_weather(&issuer1);
    let (_w2, url2) = start_weather(&issuer2);
    let config = write_config(
        &home,
        json!({ "w1": {"type": "streamableHttp", "url": url1, "oauth": {"callbackPort": free_port()}},
                "w2": {"type": "streamableHttp", "url": url2, "oauth": {"callbackPort": free_port()}} }),
    );

    let before = mcp(&home, &config, &["servers"]);
    assert!(before.stdout.contains("needs login"), "{before:?}");

    // Login: DCR, authorization code with PKCE and the resource, through the loopback.
    let out = login(&home, &config, "w1");
    assert!(
        out.contains(&format!("logged in to w1 at {issuer1}")),
        "{out}"
    );
    assert!(out.contains("w1: connected"), "{out}");
    let call = call_weather(&home, &config, "w1");
    assert_eq!(call.code, 0, "{call:?}");
    assert!(call.stdout.contains("Shenzhen"), "{call:?}");

    // An expired token is refreshed before the call, and the refresh token rotates.
    let (access_before, refresh_before) = tokens_of(&home, &url1);
    expire_tokens(&home, &url1);
    let call = call_weather(&home, &config, "w1");
    assert_eq!(call.code, 0, "{call:?}");
    let (access_after, refresh_after) = tokens_of(&home, &url1);
    assert_ne!(access_before, access_after, "a new access token");
    assert_ne!(refresh_before, refresh_after, "the refresh token rotates");
    let seen1 = std::fs::read_to_string(&log1).expect("as1 log");
    assert_eq!(
        seen1.matches("\"grant_type\":\"refresh_token\"").count(),
        1,
        "one refresh"
    );

    // A revoked refresh token: the next call needs a login; the registration stays.
    let client_id = store(&home)["registrations"][&issuer1]["client_id"]
        .as_str()
        .unwrap_or_else(|| panic!("no registration for {issuer1}: {}", store(&home)))
        .to_owned();
    let revoke = Command::new("node")
        .arg("-e")
        .arg(
            "const [u, t, c] = process.argv.slice(1);\
             fetch(u, {method: 'POST', headers: {'content-type': 'application/x-www-form-urlencoded'},\
               body: new URLSearchParams({token: t, token_type_hint: 'refresh_token', client_id: c})})\
             .then(r => process.exit(r.ok ? 0 : 1), () => process.exit(1));",
        )
        .arg(format!("{issuer1}/token/revocation"))
        .arg(&refresh_after)
        .arg(&client_id)
        .status()
        .expect("node runs");
    assert!(revoke.success(), "revocation refused");
    expire_tokens(&home, &url1);
    let refused = call_weather(&home, &config, "w1");
    assert_ne!(refused.code, 0, "{refused:?}");
    assert!(
        format!("{}{}", refused.stdout, refused.stderr).contains("login"),
        "{refused:?}"
    );
    assert_eq!(
        store(&home)["registrations"][&issuer1]["client_id"],
        client_id.as_str()
    );
    let out = login(&home, &config, "w1");
    assert!(out.contains("w1: connected"), "{out}");
    let call = call_weather(&home, &config, "w1");
    assert_eq!(call.code, 0, "{call:?}");
    let registrations = std::fs::read_to_string(&log1)
        .expect("as1 log")
        .lines()
        .filter(|l| l.contains("\"path\":\"/reg\""))
        .count();
    assert_eq!(registrations, 1, "the client registered once with as1");

    // A second server behind a second AS: its own registration and tokens.
    let out = login(&home, &config, "w2");
    assert!(
        out.contains(&format!("logged in to w2 at {issuer2}")),
        "{out}"
    );
    // Each server refreshes with its own AS.
    let (first_access2, first_refresh2) = tokens_of(&home, &url2);
    expire_tokens(&home, &url1);
    expire_tokens(&home, &url2);
    for server in ["w1", "w2"] {
        let call = call_weather(&home, &config, server);
        assert_eq!(call.code, 0, "{call:?}");
    }
    let (access1, refresh1) = tokens_of(&home, &url1);
    let (access2, refresh2) = tokens_of(&home, &url2);
    let seen1 = std::fs::read_to_string(&log1).expect("as1 log");
    let seen2 = std::fs::read_to_string(&log2).expect("as2 log");
    assert!(seen2.contains(&first_refresh2), "as2 saw its refresh token");
    for token in [&first_access2, &first_refresh2, &access2, &refresh2] {
        assert!(!seen1.contains(token.as_str()), "an as2 token reached as1");
    }
    for token in [&access1, &refresh1] {
        assert!(!seen2.contains(token.as_str()), "an as1 token reached as2");
    }
    let registrations = store(&home)["registrations"].clone();
    assert!(
        registrations[&issuer1]["client_id"] != registrations[&issuer2]["client_id"],
        "one registration per issuer: {registrations}"
    );
}
