//! What a server offers, one service per capability: tools, resources (static, templated and
//! provided), prompts and completions. Each service owns its table behind its own lock,
//! answers its methods with typed params, and changes while the server runs; the [`Server`]
//! (crate::Server) holds one of each and tells clients when a list changed.

mod completions;
mod prompts;
mod resources;
mod tools;

pub(crate) use completions::CompletionService;
pub(crate) use prompts::PromptService;
pub(crate) use resources::ResourceService;
pub(crate) use tools::ToolService;

use mcp_proto::json_text;
use mcp_proto::jsonrpc::{self, RawJson};
use mcp_proto::schema::PaginatedParams;
use mcp_proto::sync::{read as read_table, write as write_table};
use serde::Serialize;

use crate::error::ServerError;
use crate::handler::{MetaSource, Rejection};
use crate::pagination::page;
use crate::router::parse_params;

/// A listing entry, serialized once at registration.
fn listing<T: Serialize>(value: &T) -> RawJson {
    jsonrpc::to_raw(value).unwrap_or_else(|_| jsonrpc::empty_object())
}

/// Answers a list method: the page `params` asks for of `entries` (each `listing`, in order),
/// as `{"<key>":[...],"nextCursor":...}`, written without a `serde_json::Value` in between.
fn list_page<E>(
    key: &str,
    params: Option<&RawJson>,
    page_size: usize,
    entries: &[E],
    listing: impl Fn(&E) -> &RawJson,
) -> Result<RawJson, ServerError> {
    let p: PaginatedParams = parse_params(params)?;
    let pg = page(entries.len(), p.cursor.as_deref(), page_size)?;
    let mut out = String::with_capacity(256);
    out.push_str("{\"");
    out.push_str(key);
    out.push_str("\":[");
    for (i, item) in entries[pg.start..pg.end].iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        out.push_str(listing(item).get());
    }
    out.push(']');
    if let Some(cursor) = pg.next_cursor {
        out.push_str(",\"nextCursor\":");
        out.push_str(&serde_json::to_string(&cursor).map_err(ServerError::handler)?);
    }
    out.push('}');
    // Valid by construction: listings are JSON values, the cursor a JSON string.
    Ok(json_text::written(out))
}

/// Where a request's parsed `_meta` is, for handlers that ask for it.
fn parsed_meta(meta: Option<&mcp_proto::schema::Meta>) -> MetaSource<'_> {
    meta.map_or(MetaSource::Absent, MetaSource::Parsed)
}

/// A handler's parameters could not be made from the request: bad params.
fn rejected(rejection: Rejection) -> ServerError {
    ServerError::InvalidParams(format!("Invalid params: {rejection}"))
}

fn encode<T: Serialize>(value: &T) -> Result<RawJson, ServerError> {
    jsonrpc::to_raw(value)
        .map_err(|e| ServerError::handler(format!("could not encode the result: {e}")))
}
