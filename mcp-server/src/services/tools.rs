//! The tools service: the table of tools, `tools/list` and `tools/call`.

use std::borrow::Cow;
use std::collections::HashMap;
#[cfg(feature = "http")]
use std::sync::atomic::AtomicBool;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, RwLock};

use mcp_proto::jsonrpc::{self, RawJson};
use mcp_proto::ProtocolVersion;
use serde::{Deserialize, Deserializer};
use serde_json::value::RawValue;

use super::{list_page, listing, read_table, write_table};
use crate::context::Context;
use crate::error::ServerError;
use crate::handler::{erase, Call, Handler, MetaSource};
#[cfg(feature = "http")]
use crate::http::{tool_header_params, ToolHeaderParam};
use crate::modern::{json_text, ParamsRead, ResultHead};
use crate::tasks::{self, CallMode, TaskSlot};
use crate::tool::{IntoToolResult, Tool, ToolEntry, ToolOutput};
use mcp_proto::schema::{ClientCapabilities, TaskMetadata, TaskSupport};

/// Every tool a server offers, by name.
#[derive(Default)]
pub(crate) struct ToolService {
    entries: RwLock<HashMap<String, Arc<ToolEntry>>>,
    /// Registration order, which `tools/list` keeps.
    seq: AtomicU64,
    /// Some tool ever added has `x-mcp-header` parameters (else no call needs a look).
    #[cfg(feature = "http")]
    annotated: AtomicBool,
    /// How many tools may run as a task (kept with the table, read on every request).
    task_tools: AtomicUsize,
}

/// `tools/call` params, borrowed from the request: the arguments stay raw until the handler's
/// own type reads them.
#[derive(Deserialize)]
struct CallParams<'a> {
    #[serde(borrow)]
    name: Cow<'a, str>,
    #[serde(borrow, default)]
    arguments: Option<&'a RawValue>,
    /// `_meta`'s raw JSON text.
    #[serde(borrow, default, rename = "_meta", deserialize_with = "raw_text")]
    meta: Option<&'a str>,
    /// Run as a task (2025-11-25).
    #[serde(default)]
    task: Option<TaskMetadata>,
}

/// A field's raw JSON text (`None` for `null`).
fn raw_text<'de, D: Deserializer<'de>>(d: D) -> Result<Option<&'de str>, D::Error> {
    Option::<&'de RawValue>::deserialize(d).map(|raw| raw.map(RawValue::get))
}

impl<'a> CallParams<'a> {
    /// The call that params already read make, and whether they have a `_meta` (an object;
    /// its text is not kept); `None` when they make none (no name, or a field of the wrong
    /// type).
    fn from_read(read: &ParamsRead<'a>) -> Option<(Self, bool)> {
        let call = CallParams {
            name: json_text(read.name?)?,
            arguments: match read.arguments {
                Some(text) => Some(serde_json::from_str::<&RawValue>(text).ok()?),
                None => None,
            },
            meta: None,
            task: match read.task {
                Some(text) => Some(serde_json::from_str(text).ok()?),
                None => None,
            },
        };
        Some((call, read.has_meta))
    }
}

impl ToolService {
    /// Adds a tool, or replaces the one of the same name; its schemas not set by hand are
    /// derived from the handler's types. Refused, naming the tool, when the handler's arguments
    /// type can never fit a call's arguments (its schema is not an object).
    pub(crate) fn add<H, T>(&self, tool: Tool, handler: H) -> Result<(), ServerError>
    where
        H: Handler<T, str>,
        H::Output: IntoToolResult,
        T: 'static,
    {
        let input = H::input_schema()
            .map_err(|e| ServerError::InvalidParams(format!("tool {:?}: {e}", tool.name())))?;
        let tool = tool.with_derived_schemas(input, <H::Output as IntoToolResult>::output_schema());
        if !tool_name_is_portable(&tool.name) {
            tracing::warn!(
                "tool name {:?} does not follow the spec's guidance (1-128 characters of A-Z a-z 0-9 _ - .); some clients may refuse it",
                tool.name
            );
        }
        #[cfg(feature = "http")]
        if !tool_header_params(&tool.input_schema).is_empty() {
            self.annotated.store(true, Ordering::Relaxed);
        }
        let entry = ToolEntry {
            listing: listing(&tool),
            tool,
            handler: erase(handler, IntoToolResult::into_tool_result),
            seq: self.seq.fetch_add(1, Ordering::Relaxed),
        };
        let mut table = write_table(&self.entries);
        self.count_task_tool(&entry, true);
        if let Some(old) = table.insert(entry.tool.name.clone(), Arc::new(entry)) {
            self.count_task_tool(&old, false);
        }
        Ok(())
    }

    /// Removes a tool; returns whether it existed.
    pub(crate) fn remove(&self, name: &str) -> bool {
        let mut table = write_table(&self.entries);
        let removed = table.remove(name);
        if let Some(old) = &removed {
            self.count_task_tool(old, false);
        }
        removed.is_some()
    }

    /// Counts a task tool in (`added`) or out; called with the table locked for writing.
    fn count_task_tool(&self, entry: &ToolEntry, added: bool) {
        if entry.task_support() != TaskSupport::Forbidden {
            if added {
                self.task_tools.fetch_add(1, Ordering::Relaxed);
            } else {
                self.task_tools.fetch_sub(1, Ordering::Relaxed);
            }
        }
    }

    pub(crate) fn is_empty(&self) -> bool {
        read_table(&self.entries).is_empty()
    }

    /// Whether some tool may run as a task.
    pub(crate) fn has_task_tools(&self) -> bool {
        self.task_tools.load(Ordering::Relaxed) > 0
    }

    #[cfg(feature = "http")]
    /// The `x-mcp-header` parameters of tool `name` (none for an unknown tool), which the
    /// 2026-07-28 Streamable HTTP transport checks against `Mcp-Param-*` headers.
    pub(crate) fn header_params(&self, name: &str) -> Vec<ToolHeaderParam> {
        if !self.annotated.load(Ordering::Relaxed) {
            return Vec::new();
        }
        read_table(&self.entries)
            .get(name)
            .map_or_else(Vec::new, |e| tool_header_params(&e.tool.input_schema))
    }

    /// `tools/list`, in registration order.
    pub(crate) fn list(
        &self,
        params: Option<&RawJson>,
        page_size: usize,
    ) -> Result<RawJson, ServerError> {
        let mut entries: Vec<Arc<ToolEntry>> =
            read_table(&self.entries).values().cloned().collect();
        entries.sort_by_key(|e| e.seq);
        list_page("tools", params, page_size, &entries, |e| &e.listing)
    }

    /// `tools/call`: parses the arguments into the handler's types and runs it. With a `head`
    /// (2026-07-28), the result is complete, head included.
    pub(crate) async fn call(
        &self,
        params: Option<&RawJson>,
        read: Option<&ParamsRead<'_>>,
        ctx: Context,
        version: ProtocolVersion,
        head: Option<&ResultHead<'_>>,
    ) -> Result<RawJson, ServerError> {
        let raw = params.map_or("{}", |p| p.get());
        // The params as already read (a 2026-07-28 request), else read here; a read that does
        // not make a call is read again here, for the error that says why.
        let (p, meta) = match read.and_then(CallParams::from_read) {
            Some((p, has_meta)) => {
                // `_meta` stays in the params, read from there only if a handler asks for it.
                let meta = match has_meta {
                    true => MetaSource::InParams(raw),
                    false => MetaSource::Absent,
                };
                (p, meta)
            }
            None => {
                let p = jsonrpc::from_object::<CallParams<'_>>(raw).map_err(|e| {
                    ServerError::InvalidParams(format!("Invalid params for tools/call: {e}"))
                })?;
                // `_meta` belongs to the request, not to the arguments: a bad one is bad params.
                if p.meta.is_some_and(|meta| !meta.starts_with('{')) {
                    return Err(ServerError::InvalidParams(
                        "Invalid params for tools/call: _meta must be a JSON object".into(),
                    ));
                }
                let meta = p.meta.map_or(MetaSource::Absent, MetaSource::Raw);
                (p, meta)
            }
        };
        let entry = read_table(&self.entries)
            .get(p.name.as_ref())
            .cloned()
            .ok_or_else(|| ServerError::ToolNotFound(p.name.clone().into_owned()))?;
        // `{}`: the arguments of a call that sent none.
        let arguments = p.arguments.map_or("{}", RawValue::get);
        let support = entry.task_support();
        let mode = match (support, &p.task) {
            (TaskSupport::Forbidden, None) => CallMode::Direct,
            (_, task) => {
                let none = ClientCapabilities::default();
                let client = ctx.client_capabilities().unwrap_or(&none);
                tasks::call_mode(&entry.tool.name, support, version, task.as_ref(), client)?
            }
        };
        let slot = (mode != CallMode::Direct).then(|| Arc::new(TaskSlot::default()));
        let ctx = match &slot {
            Some(slot) => ctx.with_task(slot.clone()),
            None => ctx,
        };
        // A panic here or in the handler is caught once, by the peer: -32603 for this request.
        let output = match ((entry.handler)(&Call::new(arguments, meta, &ctx)), slot) {
            (Ok(future), Some(slot)) => {
                let server = ctx.server().clone();
                // Boxed: a task call is rare and its future large, and every call's future
                // (allocated whole for each request) would carry it.
                let raw = Box::pin(server.tasks().call(ctx, slot, future, mode, version)).await?;
                // A task's answer (its handle, or a result that came first) is completed here.
                return match head {
                    Some(head) => head.complete(&raw),
                    None => Ok(raw),
                };
            }
            (Ok(future), None) => future.await,
            (Err(rejection), _) => {
                let error = ServerError::InvalidArguments {
                    tool: entry.tool.name.clone(),
                    detail: without_position(rejection.0),
                };
                if version.tool_input_errors_as_results() {
                    ToolOutput::error(error.to_string())
                } else {
                    return Err(error);
                }
            }
        };
        output.into_raw(version, head)
    }
}

/// Drops serde_json's " at line 1 column 17" suffix: positions in a one-line JSON text help
/// nobody, least of all a model fixing its arguments.
fn without_position(mut detail: String) -> String {
    if let Some(at) = detail.rfind(" at line ") {
        if detail[at..].contains(" column ") {
            detail.truncate(at);
        }
    }
    detail
}

/// The 2025-11-25 tool-name guidance: 1 to 128 characters of `[A-Za-z0-9_.-]`.
fn tool_name_is_portable(name: &str) -> bool {
    (1..=128).contains(&name.len())
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.'))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tool_names() {
        assert!(tool_name_is_portable("get_weather.v2-beta"));
        assert!(!tool_name_is_portable("has space"));
        assert!(!tool_name_is_portable(""));
        assert!(!tool_name_is_portable(&"x".repeat(129)));
    }

    #[test]
    fn error_positions() {
        assert_eq!(
            without_position("missing field `b` at line 1 column 7".into()),
            "missing field `b`"
        );
        assert_eq!(without_position("plain".into()), "plain");
    }
}
