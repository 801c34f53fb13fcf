//! Checks every HTTP request passes before it reaches a session: `Host` and `Origin` against
//! allowed lists (DNS-rebinding protection). Bearer tokens are checked in `bearer`.

use hyper::header::{HOST, ORIGIN};
use hyper::{HeaderMap, StatusCode, Uri, Version};

use super::body::Refusal;

/// DNS-rebinding protection: `Host` and `Origin` must be on the allowed lists.
#[derive(Clone, Debug)]
pub(crate) struct HostGuard {
    enabled: bool,
    hosts: Vec<String>,
    origins: Vec<String>,
}

const LOCAL_NAMES: [&str; 3] = ["localhost", "127.0.0.1", "[::1]"];

impl HostGuard {
    /// A guard; empty lists mean the loopback names (`localhost`, `127.0.0.1`, `[::1]`) on any
    /// port, for `http` and `https` origins.
    pub(crate) fn new(enabled: bool, hosts: &[String], origins: &[String]) -> Self {
        let hosts = if hosts.is_empty() {
            LOCAL_NAMES.iter().map(|s| s.to_string()).collect()
        } else {
            hosts.iter().map(|s| s.to_ascii_lowercase()).collect()
        };
        let origins = if origins.is_empty() {
            LOCAL_NAMES
                .iter()
                .flat_map(|h| [format!("http://{h}"), format!("https://{h}")])
                .collect()
        } else {
            origins
                .iter()
                .map(|s| s.trim_end_matches('/').to_ascii_lowercase())
                .collect()
        };
        HostGuard {
            enabled,
            hosts,
            origins,
        }
    }

    /// Checks the target's authority (absolute-form), every `Host` header and `Origin`; `Err`
    /// is the 403 response to send.
    pub(crate) fn check(&self, uri: &Uri, headers: &HeaderMap) -> Result<(), Refusal> {
        if !self.enabled {
            return Ok(());
        }
        let forbidden_host = || {
            Refusal::new(
                StatusCode::FORBIDDEN,
                -32000,
                "Forbidden: the Host header is not allowed",
            )
        };
        if let Some(authority) = uri.authority() {
            if !self.host_allowed(authority.as_str()) {
                return Err(forbidden_host());
            }
        }
        let mut hosts = headers.get_all(HOST).iter().peekable();
        if hosts.peek().is_none() {
            return Err(forbidden_host());
        }
        for host in hosts {
            if !host.to_str().is_ok_and(|h| self.host_allowed(h)) {
                return Err(forbidden_host());
            }
        }
        if let Some(origin) = headers.get(ORIGIN) {
            let allowed = origin.to_str().is_ok_and(|o| self.origin_allowed(o));
            if !allowed {
                return Err(Refusal::new(
                    StatusCode::FORBIDDEN,
                    -32000,
                    "Forbidden: the Origin header is not allowed",
                ));
            }
        }
        Ok(())
    }

    /// Compares without allocating: the allowed names are stored in lower case.
    fn host_allowed(&self, host: &str) -> bool {
        let host = host.trim();
        let name = strip_port(host);
        self.hosts
            .iter()
            .any(|h| h.eq_ignore_ascii_case(host) || h.eq_ignore_ascii_case(name))
    }

    /// Compares without allocating: the allowed origins are stored in lower case.
    fn origin_allowed(&self, origin: &str) -> bool {
        let origin = origin.trim().trim_end_matches('/');
        let Some((scheme, rest)) = origin.split_once("://") else {
            return false;
        };
        let name = strip_port(rest);
        self.origins.iter().any(|o| {
            o.eq_ignore_ascii_case(origin)
                || o.split_once("://").is_some_and(|(s, r)| {
                    s.eq_ignore_ascii_case(scheme) && r.eq_ignore_ascii_case(name)
                })
        })
    }
}

/// RFC 9112 §3.2: an HTTP/1.1 request with no `Host` header, or more than one, is a 400, whatever
/// the host; so is an HTTP/1.0 request with more than one.
pub(crate) fn check_host_count(version: Version, headers: &HeaderMap) -> Result<(), Refusal> {
    let mut hosts = headers.get_all(HOST).iter();
    let problem = match (hosts.next(), hosts.next()) {
        (Some(_), Some(_)) => "Bad Request: more than one Host header",
        (None, _) if version == Version::HTTP_11 => "Bad Request: the Host header is missing",
        _ => return Ok(()),
    };
    Err(Refusal::new(StatusCode::BAD_REQUEST, -32600, problem))
}

/// `name:port` → `name`, leaving bracketed IPv6 literals intact.
fn strip_port(host: &str) -> &str {
    if let Some(end) = host.find(']') {
        return &host[..=end];
    }
    match host.rsplit_once(':') {
        Some((name, port)) if port.bytes().all(|b| b.is_ascii_digit()) => name,
        _ => host,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use hyper::header::HeaderValue;

    fn headers(pairs: &[(&'static str, &str)]) -> HeaderMap {
        let mut map = HeaderMap::new();
        for (k, v) in pairs {
            map.append(*k, HeaderValue::from_str(v).expect("header"));
        }
        map
    }

    #[test]
    fn every_host_and_the_absolute_target_are_checked() {
        let guard = HostGuard::new(true, &[], &[]);
        let path: Uri = "/mcp".parse().expect("uri");
        let two = headers(&[("host", "localhost:1"), ("host", "evil.example.com")]);
        assert!(guard.check(&path, &two).is_err());
        let two = headers(&[("host", "evil.example.com"), ("host", "localhost:1")]);
        assert!(guard.check(&path, &two).is_err());
        let local = headers(&[("host", "localhost:1")]);
        let absolute: Uri = "http://evil.example.com/mcp".parse().expect("uri");
        assert!(guard.check(&absolute, &local).is_err());
        let absolute: Uri = "http://127.0.0.1:9/mcp".parse().expect("uri");
        assert!(guard.check(&absolute, &local).is_ok());
    }

    #[test]
    fn host_count_follows_rfc_9112() {
        let one = headers(&[("host", "localhost:1")]);
        let two = headers(&[("host", "localhost:1"), ("host", "localhost:1")]);
        assert!(check_host_count(Version::HTTP_11, &one).is_ok());
        assert!(check_host_count(Version::HTTP_10, &headers(&[])).is_ok());
        for (version, map) in [
            (Version::HTTP_11, &two),
            (Version::HTTP_10, &two),
            (Version::HTTP_11, &headers(&[])),
        ] {
            let r = check_host_count(version, map).expect_err("refused");
            assert_eq!(r.status(), StatusCode::BAD_REQUEST);
        }
    }

    #[test]
    fn loopback_defaults() {
        let guard = HostGuard::new(true, &[], &[]);
        assert!(guard
            .check(
                &Uri::from_static("/"),
                &headers(&[("host", "127.0.0.1:8080")])
            )
            .is_ok());
        assert!(guard
            .check(&Uri::from_static("/"), &headers(&[("host", "localhost")]))
            .is_ok());
        assert!(guard
            .check(&Uri::from_static("/"), &headers(&[("host", "[::1]:1")]))
            .is_ok());
        assert!(guard
            .check(
                &Uri::from_static("/"),
                &headers(&[("host", "evil.example.com")])
            )
            .is_err());
        assert!(guard.check(&Uri::from_static("/"), &headers(&[])).is_err());
        let ok = headers(&[("host", "localhost:1"), ("origin", "http://localhost:3000")]);
        assert!(guard.check(&Uri::from_static("/"), &ok).is_ok());
        let bad = headers(&[
            ("host", "localhost:1"),
            ("origin", "http://evil.example.com"),
        ]);
        let response = guard
            .check(&Uri::from_static("/"), &bad)
            .expect_err("bad origin");
        assert_eq!(response.status(), StatusCode::FORBIDDEN);
    }

    #[test]
    fn disabled_guard_allows_anything() {
        let guard = HostGuard::new(false, &[], &[]);
        assert!(guard
            .check(
                &Uri::from_static("/"),
                &headers(&[("host", "evil.example.com")])
            )
            .is_ok());
    }
}
