//! Exposed tool names across servers: tool `t` of server `s` becomes `s__t`, as Cline names
//! them, so the names a model sees are valid for every LLM provider and stable across runs.
//!
//! The rule: `raw = s + "__" + t`; every run of characters outside `[A-Za-z0-9_-]` becomes one
//! `_`; if nothing was replaced and `raw` has at most 64 characters, the name is `raw`;
//! otherwise it is the first 55 characters of the sanitised name, `_`, and the first 8 hex
//! digits of the SHA-1 of `raw`'s UTF-8 bytes (64 characters at most).

use std::collections::HashMap;

use sha1::{Digest, Sha1};

/// The longest name LLM providers accept for a function.
pub const MAX_NAME_LEN: usize = 64;

/// What separates the server name from the tool name.
pub const SEPARATOR: &str = "__";

/// The exposed name of tool `tool` of server `server`.
pub fn exposed_name(server: &str, tool: &str) -> String {
    let raw = format!("{server}{SEPARATOR}{tool}");
    let mut sanitised = String::with_capacity(raw.len());
    let mut replaced = false;
    let mut in_run = false;
    for c in raw.chars() {
        if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
            sanitised.push(c);
            in_run = false;
        } else {
            replaced = true;
            if !in_run {
                sanitised.push('_');
            }
            in_run = true;
        }
    }
    if !replaced && raw.len() <= MAX_NAME_LEN {
        return raw;
    }
    let digest = Sha1::digest(raw.as_bytes());
    let hex: String = digest.iter().take(4).map(|b| format!("{b:02x}")).collect();
    // The sanitised name is ASCII, so 55 bytes are 55 characters.
    let keep = sanitised.len().min(MAX_NAME_LEN - 1 - hex.len());
    format!("{}_{hex}", &sanitised[..keep])
}

/// Where an exposed name leads: the server and the tool's raw name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolRoute {
    /// The server's name in the config.
    pub server: String,
    /// The tool's name on that server.
    pub tool: String,
}

/// Two tools that map to the same exposed name.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("tools {first_server}/{first_tool} and {second_server}/{second_tool} both map to the exposed name {name}; the second is not exposed")]
pub struct NameCollision {
    /// The exposed name both map to.
    pub name: String,
    /// The server of the tool that keeps the name.
    pub first_server: String,
    /// The tool that keeps the name.
    pub first_tool: String,
    /// The server of the tool left out.
    pub second_server: String,
    /// The tool left out.
    pub second_tool: String,
}

/// Exposed names mapped back to the exact server and raw tool name.
#[derive(Debug, Default, Clone)]
pub struct ToolNames {
    routes: HashMap<String, ToolRoute>,
}

impl ToolNames {
    /// An empty table.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds a tool and returns its exposed name, or the collision when another tool already
    /// has that name (the first one keeps it; nothing is shadowed silently).
    pub fn insert(&mut self, server: &str, tool: &str) -> Result<String, NameCollision> {
        let name = exposed_name(server, tool);
        if let Some(existing) = self.routes.get(&name) {
            if existing.server == server && existing.tool == tool {
                return Ok(name);
            }
            return Err(NameCollision {
                name,
                first_server: existing.server.clone(),
                first_tool: existing.tool.clone(),
                second_server: server.to_owned(),
                second_tool: tool.to_owned(),
            });
        }
        self.routes.insert(
            name.clone(),
            ToolRoute {
                server: server.to_owned(),
                tool: tool.to_owned(),
            },
        );
        Ok(name)
    }

    /// Where an exposed name leads.
    pub fn route(&self, exposed: &str) -> Option<&ToolRoute> {
        self.routes.get(exposed)
    }

    /// Removes every tool of one server (before its list is refreshed).
    pub fn remove_server(&mut self, server: &str) {
        self.routes.retain(|_, r| r.server != server);
    }

    /// How many names are exposed.
    pub fn len(&self) -> usize {
        self.routes.len()
    }

    /// True when no name is exposed.
    pub fn is_empty(&self) -> bool {
        self.routes.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Vectors computed independently (Python's hashlib and re) from the rule in the docs.
    #[test]
    fn naming_vectors() {
        let a30 = "a".repeat(30);
        let a40 = "a".repeat(40);
        let cases: Vec<(&str, String, &str)> = vec![
            ("mock", "echo".into(), "mock__echo"),
            (
                "my.server",
                "tool/name".into(),
                "my_server__tool_name_61879991",
            ),
            ("weather", "get_weather".into(), "weather__get_weather"),
            ("天气", "查询".into(), "_____01c1af0d"),
            ("srv", "café".into(), "srv__caf__0cba332c"),
            (
                &a30,
                "b".repeat(32),
                "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaa__bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb",
            ),
            (
                &a30,
                "b".repeat(33),
                "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaa__bbbbbbbbbbbbbbbbbbbbbbb_7df3c386",
            ),
            (
                &a40,
                "b".repeat(40),
                "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa__bbbbbbbbbbbbb_1a9439d3",
            ),
            ("my server", "t".into(), "my_server__t_7e35d7cb"),
            ("s", "t.t.t".into(), "s__t_t_t_7892c19a"),
            ("x-y", "z_w-1".into(), "x-y__z_w-1"),
            ("github", "create_issue".into(), "github__create_issue"),
            ("s", "emoji😀tool".into(), "s__emoji_tool_8744d225"),
            ("ab", "c d".into(), "ab__c_d_e1d09706"),
            ("ab", "c  d".into(), "ab__c_d_5e44216b"),
        ];
        for (server, tool, expected) in cases {
            let name = exposed_name(server, &tool);
            assert_eq!(name, expected, "{server} / {tool}");
            assert!(name.len() <= MAX_NAME_LEN);
            assert!(name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-'));
        }
        // Exactly 64 characters stays as it is; 65 is cut and hashed.
        assert_eq!(exposed_name(&a30, &"b".repeat(32)).len(), 64);
        assert_eq!(exposed_name(&a30, &"b".repeat(33)).len(), 64);
    }

    #[test]
    fn collisions_are_reported_and_routes_lead_back() {
        let mut names = ToolNames::new();
        assert_eq!(names.insert("a__b", "c").unwrap(), "a__b__c");
        let collision = names.insert("a", "b__c").unwrap_err();
        assert_eq!(collision.name, "a__b__c");
        assert!(
            collision.to_string().contains("a__b/c") && collision.to_string().contains("a/b__c")
        );
        assert_eq!(
            names.route("a__b__c"),
            Some(&ToolRoute {
                server: "a__b".into(),
                tool: "c".into()
            })
        );
        // Re-inserting the same tool is not a collision.
        assert_eq!(names.insert("a__b", "c").unwrap(), "a__b__c");
        let long = names.insert("my.server", "tool/name").unwrap();
        assert_eq!(
            names.route(&long).map(|r| r.tool.as_str()),
            Some("tool/name")
        );
        names.remove_server("a__b");
        assert!(names.route("a__b__c").is_none());
        assert_eq!(names.len(), 1);
    }
}
