//! The typed calls of each feature: tools (with task-only tools refused), resources, prompts,
//! completion, logging, ping and roots.

use std::collections::BTreeMap;

use mcp_proto::jsonrpc;
use mcp_proto::schema::{
    CallTool, CallToolParams, CallToolResult, Complete, CompleteParams, CompleteResult, Discover,
    EmptyParams, GetPrompt, GetPromptParams, GetPromptResult, ListPrompts, ListResourceTemplates,
    ListResources, ListTools, LoggingLevel, Ping, Prompt, ReadResource, ReadResourceParams,
    ReadResourceResult, RequestType, Resource, ResourceTemplate, ResourceUriParams, SetLevel,
    SetLevelParams, Subscribe, Tool, Unsubscribe,
};
use tokio::sync::broadcast;

use crate::era::Era;
use crate::error::ClientError;
use crate::handler::ServerEvent;
use crate::modern;
use crate::options::CallOptions;
use mcp_proto::schema::PassThroughResult;

use super::background::modern_version;
use super::Client;

impl Client {
    /// Every tool of the server (`tools/list`, all pages). Under 2026-07-28, tools whose
    /// `x-mcp-header` annotations are invalid are dropped, as the spec requires.
    pub async fn list_tools(&self) -> Result<Vec<Tool>, ClientError> {
        let mut tools = self.list_all::<ListTools>().await?;
        let required = tools
            .iter()
            .filter(|t| {
                t.execution.as_ref().and_then(|e| e.task_support)
                    == Some(mcp_proto::schema::TaskSupport::Required)
            })
            .map(|t| t.name.clone())
            .collect();
        *self
            .inner
            .task_only_tools
            .lock()
            .unwrap_or_else(|p| p.into_inner()) = Some(required);
        if self.era() == Era::Modern {
            tools.retain(|tool| {
                let schema = serde_json::to_value(&tool.input_schema).unwrap_or_default();
                match crate::param_headers::header_params(&schema) {
                    Ok(_) => true,
                    Err(reason) => {
                        tracing::warn!(server = %self.inner.name, tool = %tool.name, "dropped a tool with an invalid x-mcp-header: {reason}");
                        false
                    }
                }
            });
        }
        Ok(tools)
    }

    /// Calls tool `name` with `arguments` (a JSON object, or `null` for none).
    pub async fn call_tool(
        &self,
        name: &str,
        arguments: serde_json::Value,
    ) -> Result<CallToolResult, ClientError> {
        self.call_tool_with(name, arguments, CallOptions::default())
            .await
    }

    /// Calls tool `name` with per-call options (timeout, progress, cancellation).
    pub async fn call_tool_with(
        &self,
        name: &str,
        arguments: serde_json::Value,
        options: CallOptions,
    ) -> Result<CallToolResult, ClientError> {
        let params = CallToolParams::new(name).with_arguments(arguments);
        // A server speaking the tasks extension may answer any call with a task: it is
        // polled to its end here, so a plain call gets the tool's result either way.
        let task_options = crate::tasks::TaskOptions::from_call(&options);
        // A 2025-11-25 tool that only runs as a task refuses a plain call: call it as the task
        // it asks for.
        // The task paths are boxed: their state is large and rare, and a future is as big as
        // its largest path, so inline they would be copied with every plain call.
        if self.requires_task(name).await {
            let arguments = serde_json::Value::Object(params.arguments.unwrap_or_default());
            return Box::pin(self.call_tool_as_task(name, arguments, task_options)).await;
        }
        match self.call_tool_raw(&params, options).await? {
            crate::tasks::TaskStart::Done(result) => Ok(*result),
            crate::tasks::TaskStart::Task(task) => {
                Box::pin(self.await_task_result(&task.task_id, &task_options)).await
            }
        }
    }

    /// The tools the last `tools/list` said require a task; `None` before the first list.
    pub(crate) fn task_only_tools(&self) -> Option<std::collections::BTreeSet<String>> {
        self.inner
            .task_only_tools
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
    }

    /// Like [`call_tool_with`](Self::call_tool_with), the result left as the JSON text the
    /// server wrote, without the 2026-07-28 head ([`PassThroughResult`]): for a caller that
    /// hands it on unread (a proxy), so that fields this toolkit does not know reach its own
    /// client as they came, and the result is not read into types and written again. A task
    /// the server makes instead is followed to its result as usual.
    pub async fn call_tool_pass_through(
        &self,
        name: &str,
        arguments: serde_json::Value,
        options: CallOptions,
    ) -> Result<PassThroughResult, ClientError> {
        let task_options = crate::tasks::TaskOptions::from_call(&options);
        // As in `call_tool_with`: the task paths are boxed, being large and rare.
        if self.requires_task(name).await {
            // As `CallToolParams::with_arguments` does: arguments that are no object are dropped.
            let arguments = if arguments.is_object() {
                arguments
            } else {
                serde_json::Value::Object(serde_json::Map::new())
            };
            let result = Box::pin(self.call_tool_as_task(name, arguments, task_options)).await?;
            return self.to_raw_result(&result);
        }
        let params = modern::Params::ToolCall {
            name,
            arguments: &arguments,
        };
        // One pass over the answer tells a result from a task and takes the head off.
        let modern = || self.era() == Era::Modern;
        let read = |raw| crate::raw_result::classify(raw, modern());
        let legacy = |raw| crate::raw_result::read(raw, modern());
        let raw = match self.send_call(params, options, read, legacy).await? {
            Ok(result) => return Ok(result),
            Err(raw) => raw,
        };
        let result = match self.task_start(raw)? {
            crate::tasks::TaskStart::Done(result) => *result,
            crate::tasks::TaskStart::Task(task) => {
                Box::pin(self.await_task_result(&task.task_id, &task_options)).await?
            }
        };
        self.to_raw_result(&result)
    }

    /// A result that had to be read, written back as text for [`call_tool_pass_through`](Self::call_tool_pass_through).
    fn to_raw_result(&self, result: &CallToolResult) -> Result<PassThroughResult, ClientError> {
        PassThroughResult::from_typed(result).map_err(|e| self.encode_error(CallTool::METHOD, e))
    }

    /// One `tools/call` with `params` as it is (a `task` field included): the result, or
    /// the task the server created instead.
    pub(crate) async fn call_tool_raw(
        &self,
        params: &CallToolParams,
        options: CallOptions,
    ) -> Result<crate::tasks::TaskStart, ClientError> {
        let params = self.encode_params(params)?;
        let params = modern::Params::Json(Some(&params));
        let raw = self
            .send_call(params, options, modern::classify, std::convert::identity)
            .await?;
        self.task_start(raw)
    }

    /// Sends one `tools/call` with `params` and returns the answer, read by `read` (2026-07-28)
    /// or `legacy` (2025).
    async fn send_call<R>(
        &self,
        params: modern::Params<'_>,
        options: CallOptions,
        read: impl Fn(jsonrpc::RawJson) -> Result<modern::Answer<R>, String> + Copy,
        legacy: impl FnOnce(jsonrpc::RawJson) -> R + Copy,
    ) -> Result<R, ClientError> {
        match self
            .request_json(CallTool::METHOD, params, options.clone(), read, legacy)
            .await
        {
            // A 2026-07-28 HTTP transport mirrors `x-mcp-header` arguments only for tools it
            // has seen listed: on a header mismatch, list the tools and try once more.
            Err(e)
                if self.era() == Era::Modern
                    && e.rpc_error().is_some_and(|r| {
                        r.code == mcp_proto::jsonrpc::error_codes::HEADER_MISMATCH
                    }) =>
            {
                Box::pin(async {
                    self.list_tools().await?;
                    self.request_json(CallTool::METHOD, params, options, read, legacy)
                        .await
                })
                .await
            }
            other => other,
        }
    }

    /// A `tools/call` answer read: the tool's result, or the task the server created instead.
    fn task_start(&self, raw: jsonrpc::RawJson) -> Result<crate::tasks::TaskStart, ClientError> {
        // Most answers are the tool's result: read it straight from the text. One that names a
        // task (either flavour) is read again in full.
        if let Ok(result) = jsonrpc::from_object::<CallToolResult>(raw.get()) {
            let names_task = result
                .extra
                .get("task")
                .is_some_and(serde_json::Value::is_object)
                || result
                    .extra
                    .get("resultType")
                    .and_then(serde_json::Value::as_str)
                    == Some("task");
            if !names_task {
                return Ok(self.done(result));
            }
        }
        let value = self.decode_result(CallTool::METHOD, &raw)?;
        match crate::tasks::TaskStart::read(&self.inner.name, value)? {
            crate::tasks::TaskStart::Done(result) => Ok(self.done(*result)),
            task => Ok(task),
        }
    }

    /// A tool's result as the caller gets it: under 2026-07-28 without the head.
    fn done(&self, mut result: CallToolResult) -> crate::tasks::TaskStart {
        if self.era() == Era::Modern {
            modern::drop_head(&mut result.meta, &mut result.extra);
        }
        crate::tasks::TaskStart::Done(Box::new(result))
    }

    fn encode_params<P: serde::Serialize>(
        &self,
        params: &P,
    ) -> Result<serde_json::Value, ClientError> {
        serde_json::to_value(params).map_err(|e| self.encode_error(CallTool::METHOD, e))
    }

    /// The user's handlers for server requests (they also answer a task's input requests).
    pub(crate) fn callbacks(&self) -> &crate::handler::Callbacks {
        &self.inner.options.callbacks
    }

    /// A receiver of the server's events that does not open a 2026-07-28 listen.
    pub(crate) fn events(&self) -> broadcast::Receiver<ServerEvent> {
        self.inner.handler.subscribe()
    }

    /// Every resource of the server (`resources/list`, all pages).
    pub async fn list_resources(&self) -> Result<Vec<Resource>, ClientError> {
        self.list_all::<ListResources>().await
    }

    /// Every resource template of the server (`resources/templates/list`, all pages).
    pub async fn list_resource_templates(&self) -> Result<Vec<ResourceTemplate>, ClientError> {
        self.list_all::<ListResourceTemplates>().await
    }

    /// Reads the resource at `uri`.
    pub async fn read_resource(&self, uri: &str) -> Result<ReadResourceResult, ClientError> {
        let mut result = self
            .send::<ReadResource>(&ReadResourceParams::new(uri), CallOptions::default())
            .await?;
        if self.era() == Era::Modern {
            modern::drop_head(&mut result.meta, &mut result.extra);
        }
        Ok(result)
    }

    /// Asks for `notifications/resources/updated` about `uri`; they arrive through
    /// [`notifications`](Self::notifications) as [`ServerEvent::ResourceUpdated`]. Under
    /// 2026-07-28 the URI joins the client's `subscriptions/listen`.
    pub async fn subscribe(&self, uri: &str) -> Result<(), ClientError> {
        if self.era() == Era::Modern {
            self.change_subscription(|uris| uris.insert(uri.to_owned()));
            return Ok(());
        }
        self.send::<Subscribe>(&ResourceUriParams::new(uri), CallOptions::default())
            .await
            .map(drop)
    }

    /// Stops updates about `uri`.
    pub async fn unsubscribe(&self, uri: &str) -> Result<(), ClientError> {
        if self.era() == Era::Modern {
            self.change_subscription(|uris| uris.remove(uri));
            return Ok(());
        }
        self.send::<Unsubscribe>(&ResourceUriParams::new(uri), CallOptions::default())
            .await
            .map(drop)
    }

    /// Every prompt of the server (`prompts/list`, all pages).
    pub async fn list_prompts(&self) -> Result<Vec<Prompt>, ClientError> {
        self.list_all::<ListPrompts>().await
    }

    /// Gets prompt `name` filled with `arguments`.
    pub async fn get_prompt<K, V>(
        &self,
        name: &str,
        arguments: impl IntoIterator<Item = (K, V)>,
    ) -> Result<GetPromptResult, ClientError>
    where
        K: Into<String>,
        V: Into<String>,
    {
        let arguments: BTreeMap<String, String> = arguments
            .into_iter()
            .map(|(k, v)| (k.into(), v.into()))
            .collect();
        let mut params = GetPromptParams::new(name);
        if !arguments.is_empty() {
            params.arguments = Some(arguments);
        }
        let mut result = self
            .send::<GetPrompt>(&params, CallOptions::default())
            .await?;
        if self.era() == Era::Modern {
            modern::drop_head(&mut result.meta, &mut result.extra);
        }
        Ok(result)
    }

    /// Asks the server to complete an argument (`completion/complete`).
    pub async fn complete(&self, params: CompleteParams) -> Result<CompleteResult, ClientError> {
        self.send::<Complete>(&params, CallOptions::default()).await
    }

    /// Sets the least severe level of log messages the server sends: `logging/setLevel` under
    /// 2025; under 2026-07-28 every later request asks for it in its `_meta`.
    pub async fn set_logging_level(&self, level: LoggingLevel) -> Result<(), ClientError> {
        let connection = self.connection(SetLevel::METHOD).await?;
        if modern_version(&connection).is_some() {
            *self
                .inner
                .log_level
                .lock()
                .unwrap_or_else(|p| p.into_inner()) = Some(level);
            return Ok(());
        }
        self.send::<SetLevel>(&SetLevelParams::new(level), CallOptions::default())
            .await
            .map(drop)
    }

    /// Checks that the server answers: `ping` under 2025, `server/discover` under 2026-07-28
    /// (which has no `ping`).
    pub async fn ping(&self) -> Result<(), ClientError> {
        let connection = self.connection(Ping::METHOD).await?;
        if modern_version(&connection).is_some() {
            return self
                .send::<Discover>(&EmptyParams::default(), CallOptions::default())
                .await
                .map(drop);
        }
        self.send::<Ping>(&EmptyParams::default(), CallOptions::default())
            .await
            .map(drop)
    }

    /// Tells the server our roots changed (`notifications/roots/list_changed`). Under
    /// 2026-07-28 this does nothing: the server asks for roots with each request that needs them.
    pub async fn notify_roots_changed(&self) -> Result<(), ClientError> {
        let connection = self.connection("notifications/roots/list_changed").await?;
        if modern_version(&connection).is_some() {
            return Ok(());
        }
        connection
            .peer
            .notify::<mcp_proto::schema::RootsListChanged>(&EmptyParams::default())
            .await
            .map_err(|e| ClientError::from_peer(&self.inner.name, e))
    }
}
