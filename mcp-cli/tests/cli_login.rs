//! `mcp login`, `mcp auth status`, `mcp servers` and `mcp logout` against the scripted OAuth
//! server of mcp-client's tests: the test plays the browser, visiting the printed URL and
//! following the redirect to the loopback listener `mcp login` runs on 127.0.0.1.

mod common;

#[path = "../../mcp-client/tests/common/oauth_server.rs"]
mod oauth_server;

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::Path;
use std::process::Stdio;
use std::time::{Duration, Instant};

use common::{mcp_in, run, scratch, write_config, Run};
use serde_json::json;

/// One HTTP/1.1 GET of `url` (no redirects followed): status line and `Location`.
fn get(url: &str) -> (String, Option<String>) {
    let rest = url.strip_prefix("http://").expect("http URL");
    let (host, path) = rest.split_at(rest.find('/').unwrap_or(rest.len()));
    let mut stream = TcpStream::connect(host).expect("connect");
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .expect("timeout");
    write!(
        stream,
        "GET {path} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n"
    )
    .expect("write");
    let mut text = String::new();
    let _ = stream.read_to_string(&mut text);
    let status = text.lines().next().unwrap_or("").to_owned();
    let location = text
        .lines()
        .find_map(|l| {
            l.strip_prefix("location: ")
                .or_else(|| l.strip_prefix("Location: "))
        })
        .map(|l| l.trim().to_owned());
    (status, location)
}

fn mcp(home: &Path, config: &Path, args: &[&str]) -> Run {
    let config = config.to_string_lossy().into_owned();
    let mut all = vec!["--config", config.as_str()];
    all.extend_from_slice(args);
    run(mcp_in(home, &all), 30)
}

#[test]
fn login_status_servers_and_logout() {
    let runtime = tokio::runtime::Runtime::new().expect("runtime");
    let (base, script) = runtime.block_on(oauth_server::start(oauth_server::Script::default()));
    let home = scratch("login");
    let config = write_config(
        &home,
        json!({"remote": {"type": "streamableHttp", "url": format!("{base}/mcp"), "protocol": "legacy"}}),
    );

    let before = mcp(&home, &config, &["servers"]);
    assert!(
        before.stdout.contains("needs login (mcp login remote)"),
        "{before:?}"
    );

    // `mcp login` prints the URL and waits on the loopback redirect.
    let port = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").expect("free port");
        l.local_addr().expect("addr").port()
    };
    let config_text = config.to_string_lossy().into_owned();
    let port_text = port.to_string();
    let mut login = mcp_in(
        &home,
        &[
            "--config",
            &config_text,
            "login",
            "remote",
            "--port",
            &port_text,
        ],
    );
    let mut child = login
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn mcp login");
    let stderr = child.stderr.take().expect("stderr");
    let mut lines = BufReader::new(stderr).lines();
    let url = loop {
        let line = lines
            .next()
            .expect("mcp login printed no URL")
            .expect("line");
        if let Some(url) = line.trim().strip_prefix("http") {
            if url.contains("/authorize?") {
                break format!("http{url}");
            }
        }
    };
    let (status, location) = get(&url);
    assert!(status.contains("302"), "{status}");
    let callback = location.expect("redirect");
    assert!(callback.starts_with(&format!("http://127.0.0.1:{port}/callback?")));
    let (status, _) = get(&callback);
    assert!(status.contains("200"), "{status}");
    let deadline = Instant::now() + Duration::from_secs(30);
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
    assert!(exit.success(), "{stdout}");
    assert!(stdout.contains("logged in to remote"), "{stdout}");
    assert!(stdout.contains("remote: connected"), "{stdout}");

    let store = home.join(".config/mcp/oauth.json");
    let text = std::fs::read_to_string(&store).expect("token store");
    assert!(text.contains("at-1"));
    let status = mcp(&home, &config, &["auth", "status"]);
    assert!(status.stdout.contains("logged in"), "{status:?}");
    assert!(!status.stdout.contains("at-1") && !status.stdout.contains("rt-1"));

    let servers = mcp(&home, &config, &["servers"]);
    assert!(servers.stdout.contains("connected"), "{servers:?}");
    assert!(!servers.stdout.contains("at-1"));
    assert_eq!(script.lock().expect("lock").registrations, 1);

    let out = mcp(&home, &config, &["logout", "remote"]);
    assert_eq!(out.code, 0, "{out:?}");
    let status = mcp(&home, &config, &["auth", "status"]);
    assert!(status.stdout.contains("not logged in"), "{status:?}");
    let text = std::fs::read_to_string(&store).expect("token store");
    assert!(text.contains("client-1"), "the registration stays: {text}");
    assert!(!text.contains("at-1"));
}
