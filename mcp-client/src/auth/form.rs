//! `application/x-www-form-urlencoded` and URL odds and ends the OAuth requests need: encoding
//! parameters, reading a query string, origins and well-known paths.

use hyper::Uri;

/// Percent-encodes `s` for a form or query component (unreserved characters stay).
pub(crate) fn encode(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || b"-._~".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// Joins pairs into `a=1&b=2`.
pub(crate) fn encode_pairs(pairs: &[(&str, &str)]) -> String {
    pairs
        .iter()
        .map(|(k, v)| format!("{}={}", encode(k), encode(v)))
        .collect::<Vec<_>>()
        .join("&")
}

/// Decodes one form component (`+` is a space).
pub(crate) fn decode(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'+' => out.push(b' '),
            b'%' if i + 2 < bytes.len() => {
                let hex = std::str::from_utf8(&bytes[i + 1..i + 3]).ok();
                match hex.and_then(|h| u8::from_str_radix(h, 16).ok()) {
                    Some(b) => {
                        out.push(b);
                        i += 2;
                    }
                    None => out.push(b'%'),
                }
            }
            b => out.push(b),
        }
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// The decoded pairs of a query string.
pub(crate) fn parse_query(query: &str) -> Vec<(String, String)> {
    query
        .split('&')
        .filter(|p| !p.is_empty())
        .map(|p| match p.split_once('=') {
            Some((k, v)) => (decode(k), decode(v)),
            None => (decode(p), String::new()),
        })
        .collect()
}

/// `scheme://authority` of a URL.
pub(crate) fn origin(uri: &Uri) -> String {
    format!(
        "{}://{}",
        uri.scheme_str().unwrap_or("http"),
        uri.authority().map(|a| a.as_str()).unwrap_or("")
    )
}

/// The path of a URL without a trailing `/` (`""` for the root).
pub(crate) fn trimmed_path(uri: &Uri) -> String {
    uri.path().trim_end_matches('/').to_owned()
}

/// Parses an absolute http(s) URL.
pub(crate) fn parse_url(text: &str) -> Result<Uri, String> {
    let uri: Uri = text.parse().map_err(|e| format!("{e}"))?;
    match (uri.scheme_str(), uri.authority()) {
        (Some("http" | "https"), Some(_)) => Ok(uri),
        _ => Err("not an absolute http(s) URL".into()),
    }
}

/// The canonical resource identifier of an MCP server URL (RFC 8707, MCP §resource): scheme and
/// host in lower case, no fragment, no trailing slash on a bare origin.
pub(crate) fn canonical_resource(uri: &Uri) -> String {
    let scheme = uri.scheme_str().unwrap_or("http").to_ascii_lowercase();
    let authority = uri
        .authority()
        .map(|a| a.as_str().to_ascii_lowercase())
        .unwrap_or_default();
    let path = uri.path();
    let path = if path == "/" { "" } else { path };
    let query = uri.query().map(|q| format!("?{q}")).unwrap_or_default();
    format!("{scheme}://{authority}{path}{query}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips() {
        let s = "a b&c=d/é";
        assert_eq!(decode(&encode(s)), s);
        assert_eq!(decode("a+b%2Fc%"), "a b/c%");
        assert_eq!(
            parse_query("code=x%20y&state=1&e"),
            vec![
                ("code".into(), "x y".into()),
                ("state".into(), "1".into()),
                ("e".into(), String::new())
            ]
        );
    }

    #[test]
    fn canonical_resources() {
        let u: Uri = "HTTP://Example.COM:8080/mcp".parse().expect("uri");
        assert_eq!(canonical_resource(&u), "http://example.com:8080/mcp");
        let u: Uri = "https://example.com/".parse().expect("uri");
        assert_eq!(canonical_resource(&u), "https://example.com");
    }
}
