//! Which tools of a server the hub offers, and under what name, title and description.
//!
//! A server's entry may carry `"tools": {"include": ["get_*"], "exclude": ["*delete*"],
//! "overrides": {"get_weather": {"name": "weather_now", "description": "…"}}}`; the keys
//! other clients write for the same purpose are read too (see `config/tool_filter.rs`). A tool
//! the filter leaves out is neither listed nor callable: the hub resolves calls against the
//! filtered list only.
//!
//! Patterns are globs over the tool's raw name (as the server lists it): `*` matches any run
//! of characters, `?` one character, everything else itself (case-sensitive).

use std::collections::BTreeMap;

use mcp_proto::schema::Tool;

/// The tools of one server the hub offers, and how it presents them.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ToolFilter {
    /// When not empty, only tools matching one of these globs are offered.
    pub include: Vec<String>,
    /// Tools matching one of these globs are never offered (exclusion wins over inclusion).
    pub exclude: Vec<String>,
    /// Presentation changes per raw tool name.
    pub overrides: BTreeMap<String, ToolOverride>,
}

/// What the hub shows instead of the server's own name, title or description of one tool.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ToolOverride {
    /// The name the tool is exposed under (still prefixed `server__`); calls go to the server
    /// under the raw name.
    pub name: Option<String>,
    /// The title shown instead of the server's.
    pub title: Option<String>,
    /// The description shown instead of the server's.
    pub description: Option<String>,
}

impl ToolFilter {
    /// Whether the filter changes nothing.
    pub fn is_empty(&self) -> bool {
        self.include.is_empty() && self.exclude.is_empty() && self.overrides.is_empty()
    }

    /// Whether the tool with this raw name is offered.
    pub fn allows(&self, raw_name: &str) -> bool {
        let included =
            self.include.is_empty() || self.include.iter().any(|p| glob_match(p, raw_name));
        included && !self.exclude.iter().any(|p| glob_match(p, raw_name))
    }

    /// The tool as the hub presents it, or `None` when filtered out: the returned definition
    /// keeps the raw name (the one calls are routed by); the second value is the name to
    /// expose it under (the override, else the raw name).
    pub fn present(&self, tool: &Tool) -> Option<(Tool, String)> {
        if !self.allows(&tool.name) {
            return None;
        }
        let Some(changes) = self.overrides.get(&tool.name) else {
            return Some((tool.clone(), tool.name.clone()));
        };
        let mut shown = tool.clone();
        if let Some(title) = &changes.title {
            shown.title = Some(title.clone());
        }
        if let Some(description) = &changes.description {
            shown.description = Some(description.clone());
        }
        let name = changes.name.clone().unwrap_or_else(|| tool.name.clone());
        Some((shown, name))
    }

    /// Patterns and override keys that match none of `raw_names`: likely typos, worth a
    /// warning.
    pub fn unmatched<'a>(&'a self, raw_names: &[&str]) -> Vec<&'a str> {
        let patterns = self.include.iter().chain(&self.exclude);
        let mut out: Vec<&str> = patterns
            .filter(|p| !raw_names.iter().any(|n| glob_match(p, n)))
            .map(String::as_str)
            .collect();
        out.extend(
            self.overrides
                .keys()
                .filter(|k| !raw_names.contains(&k.as_str()))
                .map(String::as_str),
        );
        out
    }
}

impl super::Hub {
    /// Filter patterns and override keys of connected servers that match none of their tools:
    /// likely typos, one line each, naming the server.
    pub fn filter_warnings(&self) -> Vec<String> {
        let mut out = Vec::new();
        for server in self.all() {
            if server.client().is_none() {
                continue;
            }
            let filter = server.config().tool_filter.clone();
            let name = server.name();
            server.with_lists(|lists| {
                let raw: Vec<&str> = lists.tools.iter().map(|t| t.name.as_str()).collect();
                for pattern in filter.unmatched(&raw) {
                    out.push(format!(
                        "server \"{name}\": tool filter entry {pattern:?} matches none of its tools"
                    ));
                }
            });
        }
        out
    }
}

/// Whether `text` matches the glob `pattern` (`*` any run, `?` one character). Linear in the
/// length of both, with one point of backtracking (the last `*`).
pub fn glob_match(pattern: &str, text: &str) -> bool {
    let p: Vec<char> = pattern.chars().collect();
    let t: Vec<char> = text.chars().collect();
    let (mut pi, mut ti) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while ti < t.len() {
        if pi < p.len() && (p[pi] == '?' || (p[pi] != '*' && p[pi] == t[ti])) {
            pi += 1;
            ti += 1;
        } else if pi < p.len() && p[pi] == '*' {
            star = Some((pi, ti));
            pi += 1;
        } else if let Some((sp, st)) = star {
            pi = sp + 1;
            ti = st + 1;
            star = Some((sp, st + 1));
        } else {
            return false;
        }
    }
    p[pi..].iter().all(|&c| c == '*')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn globs() {
        assert!(glob_match("get_*", "get_weather"));
        assert!(glob_match("*delete*", "force_delete_all"));
        assert!(glob_match("*", ""));
        assert!(glob_match("a?c", "abc"));
        assert!(!glob_match("a?c", "ac"));
        assert!(!glob_match("get_*", "set_weather"));
        assert!(glob_match("exact", "exact"));
        assert!(!glob_match("exact", "exactly"));
        assert!(glob_match("*a*b*c", "xxaxxbxxbxc"));
        assert!(!glob_match("*a*b*c", "xxaxxbxxbx"));
        assert!(glob_match("**", "anything"));
        assert!(glob_match("é*", "éclair"));
    }

    #[test]
    fn exclusion_wins_and_empty_include_means_all() {
        let filter = ToolFilter {
            include: vec!["get_*".into(), "list_*".into()],
            exclude: vec!["*secret*".into()],
            ..ToolFilter::default()
        };
        assert!(filter.allows("get_weather"));
        assert!(filter.allows("list_cities"));
        assert!(!filter.allows("delete_city"));
        assert!(!filter.allows("get_secret_key"));
        let all = ToolFilter {
            exclude: vec!["rm".into()],
            ..ToolFilter::default()
        };
        assert!(all.allows("anything"));
        assert!(!all.allows("rm"));
    }

    #[test]
    fn overrides_change_presentation_not_the_raw_name() {
        let mut overrides = BTreeMap::new();
        overrides.insert(
            "get_weather".to_owned(),
            ToolOverride {
                name: Some("weather_now".into()),
                title: Some("Now".into()),
                description: Some("The weather now.".into()),
            },
        );
        let filter = ToolFilter {
            overrides,
            ..ToolFilter::default()
        };
        let tool = Tool::new("get_weather", "Current weather").with_title("Current");
        let (shown, name) = filter.present(&tool).expect("offered");
        assert_eq!(name, "weather_now");
        assert_eq!(shown.name, "get_weather");
        assert_eq!(shown.title.as_deref(), Some("Now"));
        assert_eq!(shown.description.as_deref(), Some("The weather now."));
        let other = Tool::new("get_forecast", "Forecast");
        assert_eq!(
            filter.present(&other),
            Some((other.clone(), "get_forecast".into()))
        );
        assert_eq!(filter.unmatched(&["get_forecast"]), vec!["get_weather"]);
    }
}
