//! The Content Security Policy and the permission policy `mcp ui` applies to a view, built
//! from its resource's `_meta.ui` as the MCP Apps extension says a host does: the restrictive
//! default when nothing is declared, the declared origins added and nothing else, and
//! `object-src 'none'` always. An origin that could break out of its directive (`;`, `,`,
//! quotes, spaces) is dropped, never passed on.

use mcp_proto::schema::apps_extension::{ResourceCsp, ResourcePermissions};

/// The `Content-Security-Policy` header of a view.
pub fn view_policy(csp: Option<&ResourceCsp>) -> String {
    let (connect, resources, frames, bases) = match csp {
        Some(c) => (
            sources(c.connect_domains.as_ref()),
            sources(c.resource_domains.as_ref()),
            sources(c.frame_domains.as_ref()),
            sources(c.base_uri_domains.as_ref()),
        ),
        None => Default::default(),
    };
    let with = |base: &str, extra: &[&str]| -> String {
        std::iter::once(base)
            .chain(extra.iter().copied())
            .collect::<Vec<_>>()
            .join(" ")
    };
    let or_none = |list: &[&str], none: &str| -> String {
        if list.is_empty() {
            none.to_owned()
        } else {
            list.join(" ")
        }
    };
    [
        "default-src 'none'".to_owned(),
        format!("script-src {}", with("'self' 'unsafe-inline'", &resources)),
        format!("style-src {}", with("'self' 'unsafe-inline'", &resources)),
        format!("img-src {}", with("'self' data:", &resources)),
        format!("media-src {}", with("'self' data:", &resources)),
        format!("font-src {}", with("'self'", &resources)),
        format!("connect-src {}", or_none(&connect, "'none'")),
        format!("frame-src {}", or_none(&frames, "'none'")),
        format!("base-uri {}", or_none(&bases, "'self'")),
        "object-src 'none'".to_owned(),
        "form-action 'none'".to_owned(),
    ]
    .join("; ")
}

/// The iframe's `allow` attribute: the browser features the view asked for, all granted
/// (a view still feature-detects, as the extension tells it to).
pub fn allow_attribute(permissions: Option<&ResourcePermissions>) -> String {
    let Some(p) = permissions else {
        return String::new();
    };
    [
        (p.camera.is_some(), "camera"),
        (p.microphone.is_some(), "microphone"),
        (p.geolocation.is_some(), "geolocation"),
        (p.clipboard_write.is_some(), "clipboard-write"),
    ]
    .iter()
    .filter(|(asked, _)| *asked)
    .map(|(_, feature)| *feature)
    .collect::<Vec<_>>()
    .join("; ")
}

/// The declared origins that are safe to put in a directive.
fn sources(domains: Option<&Vec<String>>) -> Vec<&str> {
    domains
        .map(|d| {
            d.iter()
                .map(String::as_str)
                .filter(|d| is_source(d))
                .collect()
        })
        .unwrap_or_default()
}

/// Whether `source` is one CSP source expression that cannot end its directive or add one:
/// a scheme, host or origin with an optional `*.` wildcard, nothing quoted.
fn is_source(source: &str) -> bool {
    !source.is_empty()
        && source.len() <= 256
        && source
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-._:/*[]%".contains(c))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_declaration_gets_the_restrictive_default() {
        let policy = view_policy(None);
        for directive in [
            "default-src 'none'",
            "script-src 'self' 'unsafe-inline'",
            "style-src 'self' 'unsafe-inline'",
            "img-src 'self' data:",
            "media-src 'self' data:",
            "connect-src 'none'",
            "frame-src 'none'",
            "base-uri 'self'",
            "object-src 'none'",
        ] {
            assert!(policy.contains(directive), "{directive} in {policy}");
        }
    }

    #[test]
    fn declared_origins_are_added_and_injections_dropped() {
        let csp = ResourceCsp {
            connect_domains: Some(vec![
                "https://api.example.com".into(),
                "https://x.com; script-src *".into(),
            ]),
            resource_domains: Some(vec!["https://*.cdn.example".into(), "'unsafe-eval'".into()]),
            frame_domains: Some(vec!["https://www.youtube.com".into()]),
            ..Default::default()
        };
        let policy = view_policy(Some(&csp));
        assert!(
            policy.contains("connect-src https://api.example.com;"),
            "{policy}"
        );
        assert!(policy.contains("script-src 'self' 'unsafe-inline' https://*.cdn.example;"));
        assert!(policy.contains("img-src 'self' data: https://*.cdn.example;"));
        assert!(policy.contains("frame-src https://www.youtube.com;"));
        assert!(!policy.contains("unsafe-eval") && !policy.contains("script-src *"));
    }

    #[test]
    fn permissions_become_the_allow_attribute() {
        let asked = ResourcePermissions {
            camera: Some(Default::default()),
            clipboard_write: Some(Default::default()),
            ..Default::default()
        };
        assert_eq!(allow_attribute(Some(&asked)), "camera; clipboard-write");
        assert_eq!(allow_attribute(None), "");
    }
}
