//! The merged tool list of all servers, built once per change of the hub and shared by every
//! call until the next one.
//!
//! Every call through the hub resolves its name against this list; building it means walking
//! every server's tools, filtering, naming and cloning their schemas, which is far more work
//! than forwarding the call. The hub's change counter ([`Changes`](super::server::Changes)) is
//! bumped after every write of a server's lists, status or config, so a list built at version
//! `v` is current while the counter still reads `v`.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use super::{HubError, HubTool, NameCollision};

/// The merged list with its lookups by exposed and raw name.
#[derive(Debug, Default)]
pub(crate) struct MergedTools {
    /// Tools under exposed names, servers in config order.
    pub(crate) tools: Vec<Arc<HubTool>>,
    /// Tools left out because their exposed name was taken.
    pub(crate) collisions: Vec<NameCollision>,
    by_exposed: HashMap<String, usize>,
    by_raw: HashMap<String, Vec<usize>>,
}

impl MergedTools {
    /// Indexes a merged list.
    pub(crate) fn new(tools: Vec<HubTool>, collisions: Vec<NameCollision>) -> Self {
        let mut by_exposed = HashMap::with_capacity(tools.len());
        let mut by_raw: HashMap<String, Vec<usize>> = HashMap::with_capacity(tools.len());
        for (i, tool) in tools.iter().enumerate() {
            by_exposed.entry(tool.exposed.clone()).or_insert(i);
            by_raw.entry(tool.tool.name.clone()).or_default().push(i);
        }
        MergedTools {
            tools: tools.into_iter().map(Arc::new).collect(),
            collisions,
            by_exposed,
            by_raw,
        }
    }

    /// A tool by exposed name, or by raw name when exactly one server has it.
    pub(crate) fn resolve(&self, name: &str) -> Result<Arc<HubTool>, HubError> {
        if let Some(&i) = self.by_exposed.get(name) {
            return Ok(self.tools[i].clone());
        }
        match self.by_raw.get(name).map(Vec::as_slice) {
            None | Some([]) => Err(HubError::UnknownTool { name: name.into() }),
            Some([i]) => Ok(self.tools[*i].clone()),
            Some(many) => Err(HubError::AmbiguousTool {
                name: name.into(),
                candidates: many
                    .iter()
                    .map(|&i| self.tools[i].exposed.clone())
                    .collect(),
            }),
        }
    }
}

/// The last merged list and the change version it was built at.
#[derive(Default)]
pub(crate) struct MergedCache(Mutex<Option<(u64, Arc<MergedTools>)>>);

impl MergedCache {
    /// The list built at `version`, or a new one from `build` (kept for the next caller).
    pub(crate) fn get_or_build(
        &self,
        version: u64,
        build: impl FnOnce() -> MergedTools,
    ) -> Arc<MergedTools> {
        if let Some((built, merged)) = &*mcp_proto::sync::lock(&self.0) {
            if *built == version {
                return merged.clone();
            }
        }
        // Built outside the lock: a concurrent caller may build the same list; both are right.
        let merged = Arc::new(build());
        *mcp_proto::sync::lock(&self.0) = Some((version, merged.clone()));
        merged
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use mcp_proto::schema::Tool;

    fn tool(server: &str, raw: &str) -> HubTool {
        HubTool {
            exposed: format!("{server}__{raw}"),
            server: server.into(),
            description: String::new(),
            tool: Tool::new(raw, ""),
        }
    }

    #[test]
    fn resolves_exposed_then_unique_raw_names() {
        let merged = MergedTools::new(
            vec![tool("a", "x"), tool("b", "x"), tool("b", "y")],
            Vec::new(),
        );
        assert_eq!(
            merged.resolve("b__x").map(|t| t.server.clone()).ok(),
            Some("b".into())
        );
        assert_eq!(
            merged.resolve("y").map(|t| t.exposed.clone()).ok(),
            Some("b__y".into())
        );
        assert!(
            matches!(merged.resolve("x"), Err(HubError::AmbiguousTool { candidates, .. }) if candidates == ["a__x", "b__x"])
        );
        assert!(matches!(
            merged.resolve("z"),
            Err(HubError::UnknownTool { .. })
        ));
    }

    #[test]
    fn a_list_is_built_again_only_for_a_new_version() {
        let cache = MergedCache::default();
        let mut builds = 0;
        for version in [1, 1, 2, 2, 1] {
            cache.get_or_build(version, || {
                builds += 1;
                MergedTools::default()
            });
        }
        assert_eq!(builds, 3);
    }
}
