//! Pagination across every list the server offers (`pagination.cursor-walk`): following
//! `nextCursor` through `tools/list`, `resources/list`, `resources/templates/list` and
//! `prompts/list` ends within a bound, lists each item once, and every item is well-formed.

use std::collections::BTreeSet;

use serde_json::Value;

use crate::case;
use crate::case::{Case, CaseResult, Versions};
use crate::context::{Ctx, Listing, MAX_PAGES};
use crate::driver::session::brief;

/// The pagination cases beyond the tool list's own.
pub fn cases() -> Vec<Case> {
    vec![
        case!("pagination.cursor-walk", Must, Versions::ALL, Shared, "server/utilities/pagination",
            "following nextCursor through every offered list ends, lists each item once and every item is well-formed", cursor_walk),
    ]
}

/// One paginated list: the capability that offers it, its method, the result key holding the
/// items, and the field that identifies an item.
#[derive(Clone, Copy, Debug)]
pub struct PagedList {
    /// The server capability that offers the list.
    pub capability: &'static str,
    /// The list method.
    pub method: &'static str,
    /// The result key holding a page's items.
    pub key: &'static str,
    /// The string field naming an item uniquely.
    pub identity: &'static str,
}

/// Every paginated list of the 2025 era, in the order the walk reads them.
pub const LISTS: [PagedList; 4] = [
    PagedList {
        capability: "tools",
        method: "tools/list",
        key: "tools",
        identity: "name",
    },
    PagedList {
        capability: "resources",
        method: "resources/list",
        key: "resources",
        identity: "uri",
    },
    PagedList {
        capability: "resources",
        method: "resources/templates/list",
        key: "resourceTemplates",
        identity: "uriTemplate",
    },
    PagedList {
        capability: "prompts",
        method: "prompts/list",
        key: "prompts",
        identity: "name",
    },
];

/// The problems of one list read to its end: the walk's own (error pages, loops, no end within
/// [`MAX_PAGES`]), items that are not well-formed, and items listed twice.
pub fn walk_problems(list: &PagedList, listing: &Listing) -> Vec<String> {
    let mut problems: Vec<String> = listing.problems.clone();
    let mut seen = BTreeSet::new();
    for item in &listing.items {
        let Some(id) = item.get(list.identity).and_then(Value::as_str) else {
            problems.push(format!(
                "`{}`: an item without a string `{}`: {}",
                list.method,
                list.identity,
                brief(item)
            ));
            continue;
        };
        if let Some(problem) = item_problem(list, item) {
            problems.push(format!("`{}`: {problem}", list.method));
        }
        if !seen.insert(id) {
            problems.push(format!(
                "`{}`: {} {id:?} listed twice across {} pages",
                list.method, list.identity, listing.pages
            ));
        }
    }
    problems
}

/// A schema problem with one item of `list`, if any.
fn item_problem(list: &PagedList, item: &Value) -> Option<String> {
    use mcp_proto::schema;
    let what = format!("item {}", brief(item));
    match list.key {
        "tools" => super::schema_problem::<schema::Tool>(item, &what),
        "resources" => super::schema_problem::<schema::Resource>(item, &what),
        "resourceTemplates" => super::schema_problem::<schema::ResourceTemplate>(item, &what),
        "prompts" => super::schema_problem::<schema::Prompt>(item, &what),
        _ => None,
    }
}

async fn cursor_walk(cx: &mut Ctx) -> CaseResult {
    let mut walked = Vec::new();
    let mut problems = Vec::new();
    for list in &LISTS {
        if cx.capability(list.capability).await?.is_none() {
            continue;
        }
        let listing = cx.list_all(list.method, list.key).await?;
        walked.push(format!(
            "{} ({} items, {} pages)",
            list.method,
            listing.items.len(),
            listing.pages
        ));
        problems.extend(walk_problems(list, &listing));
    }
    Ok(super::verdict_over(
        &walked,
        "the server declares none of tools, resources, prompts",
        &format!(
            "every list read to its end within {MAX_PAGES} pages, each item once and well-formed"
        ),
        problems,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn listing(items: Vec<Value>, pages: usize) -> Listing {
        Listing {
            items,
            pages,
            problems: Vec::new(),
        }
    }

    #[test]
    fn a_clean_walk_has_no_problems() {
        let tools = listing(
            vec![
                json!({"name": "a", "inputSchema": {"type": "object"}}),
                json!({"name": "b", "inputSchema": {"type": "object"}}),
            ],
            2,
        );
        assert!(walk_problems(&LISTS[0], &tools).is_empty());
    }

    #[test]
    fn an_item_on_two_pages_is_a_duplicate() {
        let resources = listing(
            vec![
                json!({"uri": "file:///x", "name": "x"}),
                json!({"uri": "file:///y", "name": "y"}),
                json!({"uri": "file:///x", "name": "x"}),
            ],
            2,
        );
        let problems = walk_problems(&LISTS[1], &resources);
        assert_eq!(problems.len(), 1, "{problems:?}");
        assert!(problems[0].contains("\"file:///x\" listed twice"));
    }

    #[test]
    fn items_without_their_identity_or_shape_are_reported() {
        let prompts = listing(vec![json!({"title": "no name"}), json!({"name": 7})], 1);
        assert_eq!(walk_problems(&LISTS[3], &prompts).len(), 2);
        let templates = listing(vec![json!({"uriTemplate": "x://{id}"})], 1);
        let problems = walk_problems(&LISTS[2], &templates);
        assert_eq!(problems.len(), 1, "a template needs a name: {problems:?}");
    }

    #[test]
    fn the_walks_own_problems_come_first() {
        let mut looped = listing(
            vec![json!({"name": "a", "inputSchema": {"type": "object"}})],
            3,
        );
        looped
            .problems
            .push("`tools/list` returned cursor \"c\" twice (a loop)".into());
        let problems = walk_problems(&LISTS[0], &looped);
        assert_eq!(problems.len(), 1);
        assert!(problems[0].contains("a loop"));
    }
}
