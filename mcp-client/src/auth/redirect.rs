//! The browser step of the authorization code flow: the user (or a test) visits the
//! authorization URL and the authorization server redirects back to us. Three ways to get that
//! redirect: a loopback listener on 127.0.0.1 (a stable port per server), a headless mode where
//! the user pastes the URL the browser ended on, or a hook that drives the step itself.

use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::TcpListener;

use super::AuthError;

/// The path of the loopback redirect URI.
pub const CALLBACK_PATH: &str = "/callback";
/// How long the loopback listener waits for the browser.
const LOOPBACK_WAIT: Duration = Duration::from_secs(300);
/// The most connections the listener serves before giving up (favicons, probes, ...).
const MAX_CONNECTIONS: usize = 32;
/// The longest request head read from the browser.
const MAX_HEAD: usize = 16 * 1024;

/// What the hook gets: the URL to visit and the redirect URI the server will send the browser
/// back to.
#[derive(Clone, Debug)]
pub struct AuthorizationRequest {
    /// The authorization URL (with `state`, PKCE challenge, `resource`, ...).
    pub url: String,
    /// Our redirect URI.
    pub redirect_uri: String,
}

/// A future the hook returns: the full URL the browser was redirected to (with `code`,
/// `state`, maybe `iss`), or why the step failed.
pub type AuthorizeFuture = Pin<Box<dyn Future<Output = Result<String, String>> + Send>>;

/// A function that performs the browser step (tests, conformance, embedders with a UI).
pub type AuthorizeHook = Arc<dyn Fn(AuthorizationRequest) -> AuthorizeFuture + Send + Sync>;

/// How the browser step is done.
#[derive(Clone, Default)]
pub enum RedirectMode {
    /// Listen on 127.0.0.1 for the redirect, print the URL and open a browser when one exists.
    #[default]
    Loopback,
    /// Print the URL and read the URL the browser was redirected to from stdin.
    Headless,
    /// Call this hook.
    Hook(AuthorizeHook),
}

impl fmt::Debug for RedirectMode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            RedirectMode::Loopback => "Loopback",
            RedirectMode::Headless => "Headless",
            RedirectMode::Hook(_) => "Hook",
        })
    }
}

/// The most redirects [`auto_approve_hook`] follows.
const MAX_REDIRECTS: usize = 10;

/// A hook for authorization servers that approve without a user (test servers, the official
/// conformance suite): it GETs the authorization URL and follows redirects until one points at
/// the redirect URI, and returns that URL. Real servers show a login page instead, which this
/// hook reports as an error.
pub fn auto_approve_hook() -> AuthorizeHook {
    Arc::new(|request: AuthorizationRequest| {
        Box::pin(async move {
            let http = super::fetch::AuthHttp::new()?;
            let mut url = request.url;
            for _ in 0..MAX_REDIRECTS {
                let answer = http.get(&url).await?;
                let Some(location) = answer.location.filter(|_| answer.status.is_redirection())
                else {
                    return Err(format!(
                        "the authorization server answered HTTP {} without redirecting (it wants a user)",
                        answer.status.as_u16()
                    ));
                };
                let next = resolve(&url, &location);
                if next.starts_with(&request.redirect_uri) {
                    return Ok(next);
                }
                url = next;
            }
            Err(format!("more than {MAX_REDIRECTS} redirects"))
        }) as AuthorizeFuture
    })
}

/// `location` made absolute against `base`.
fn resolve(base: &str, location: &str) -> String {
    if location.starts_with("http://") || location.starts_with("https://") {
        return location.to_owned();
    }
    let origin_end = base
        .find("://")
        .and_then(|i| base[i + 3..].find('/').map(|j| i + 3 + j))
        .unwrap_or(base.len());
    if location.starts_with('/') {
        format!("{}{location}", &base[..origin_end])
    } else {
        let dir_end = base
            .rfind('/')
            .filter(|&i| i >= origin_end)
            .unwrap_or(origin_end);
        format!("{}/{location}", &base[..dir_end])
    }
}

/// A stable loopback port for `server`: derived from its URL, in 33418..=49151.
pub fn stable_port(server: &str) -> u16 {
    // FNV-1a: stable across runs and builds (std's hasher is not).
    let mut hash: u32 = 0x811c_9dc5;
    for b in server.bytes() {
        hash ^= u32::from(b);
        hash = hash.wrapping_mul(0x0100_0193);
    }
    33418 + (hash % (49151 - 33418 + 1)) as u16
}

/// The redirect URI on `port`.
pub fn redirect_uri(port: u16) -> String {
    format!("http://127.0.0.1:{port}{CALLBACK_PATH}")
}

/// Runs the browser step in `mode` and returns the URL the browser was redirected to.
pub(crate) async fn run(
    mode: &RedirectMode,
    request: AuthorizationRequest,
    port: u16,
) -> Result<String, AuthError> {
    let fail = |reason: String| AuthError::Redirect { reason };
    match mode {
        RedirectMode::Hook(hook) => hook(request).await.map_err(fail),
        RedirectMode::Headless => {
            eprintln!(
                "Open this URL in a browser and log in:\n\n  {}\n\nThen paste the URL the browser was sent to (it starts with {}):",
                request.url, request.redirect_uri
            );
            let mut line = String::new();
            let mut stdin = BufReader::new(tokio::io::stdin()).take(MAX_HEAD as u64);
            stdin
                .read_line(&mut line)
                .await
                .map_err(|e| fail(format!("reading the pasted URL failed: {e}")))?;
            let line = line.trim().to_owned();
            if line.is_empty() {
                return Err(fail("no URL was pasted".into()));
            }
            Ok(line)
        }
        RedirectMode::Loopback => {
            let listener = TcpListener::bind(("127.0.0.1", port)).await.map_err(|e| {
                fail(format!(
                    "cannot listen on 127.0.0.1:{port} for the redirect ({e}); set another callback port or use the headless mode"
                ))
            })?;
            eprintln!(
                "Open this URL in a browser to log in (waiting for the redirect on 127.0.0.1:{port}):\n\n  {}\n",
                request.url
            );
            open_browser(&request.url);
            tokio::time::timeout(LOOPBACK_WAIT, accept_redirect(listener, port))
                .await
                .map_err(|_| fail(format!("no redirect arrived within {LOOPBACK_WAIT:?}")))?
        }
    }
}

/// Serves the listener until a GET on the callback path arrives; returns its full URL.
async fn accept_redirect(listener: TcpListener, port: u16) -> Result<String, AuthError> {
    for _ in 0..MAX_CONNECTIONS {
        let (stream, _) = listener.accept().await.map_err(|e| AuthError::Redirect {
            reason: format!("the redirect listener failed: {e}"),
        })?;
        let mut reader = BufReader::new(stream).take(MAX_HEAD as u64);
        let mut line = String::new();
        if reader.read_line(&mut line).await.is_err() {
            continue;
        }
        // Drain the rest of the head.
        let mut header = String::new();
        while reader.read_line(&mut header).await.is_ok_and(|n| n > 2) {
            header.clear();
        }
        let mut stream = reader.into_inner().into_inner();
        let mut parts = line.split_whitespace();
        let (method, target) = (parts.next().unwrap_or(""), parts.next().unwrap_or(""));
        let is_callback = method == "GET"
            && (target == CALLBACK_PATH || target.starts_with(&format!("{CALLBACK_PATH}?")));
        let (status, text) = if is_callback {
            ("200 OK", "Login finished. You can close this window.")
        } else {
            ("404 Not Found", "Not found.")
        };
        let page =
            format!("<!doctype html><meta charset=utf-8><title>mcp login</title><p>{text}</p>");
        let response = format!(
            "HTTP/1.1 {status}\r\nContent-Type: text/html; charset=utf-8\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{page}",
            page.len()
        );
        let _ = stream.write_all(response.as_bytes()).await;
        let _ = stream.shutdown().await;
        if is_callback {
            return Ok(format!("http://127.0.0.1:{port}{target}"));
        }
    }
    Err(AuthError::Redirect {
        reason: format!(
            "{MAX_CONNECTIONS} requests reached the redirect listener but none was the redirect"
        ),
    })
}

/// Opens `url` in a browser when the session has one; silently does nothing otherwise.
fn open_browser(url: &str) {
    let opener = if cfg!(target_os = "macos") {
        Some("open")
    } else if std::env::var_os("DISPLAY").is_some() || std::env::var_os("WAYLAND_DISPLAY").is_some()
    {
        Some("xdg-open")
    } else {
        None
    };
    if let Some(opener) = opener {
        let _ = std::process::Command::new(opener)
            .arg(url)
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ports_are_stable_and_in_range() {
        let a = stable_port("http://127.0.0.1:8080/mcp");
        assert_eq!(a, stable_port("http://127.0.0.1:8080/mcp"));
        assert!((33418..=49151).contains(&a));
    }

    #[tokio::test]
    async fn the_loopback_listener_returns_the_redirect() {
        let listener = TcpListener::bind(("127.0.0.1", 0)).await.expect("bind");
        let port = listener.local_addr().expect("addr").port();
        let task = tokio::spawn(accept_redirect(listener, port));
        for target in ["/favicon.ico", "/callback?code=c&state=s"] {
            let mut s = tokio::net::TcpStream::connect(("127.0.0.1", port))
                .await
                .expect("connect");
            s.write_all(format!("GET {target} HTTP/1.1\r\nHost: x\r\n\r\n").as_bytes())
                .await
                .expect("write");
            let mut out = String::new();
            let _ = s.read_to_string(&mut out).await;
        }
        let url = task.await.expect("join").expect("redirect");
        assert_eq!(
            url,
            format!("http://127.0.0.1:{port}/callback?code=c&state=s")
        );
    }
}
