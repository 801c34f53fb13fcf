//! The 2026-07-28 era on the server: a request whose `params._meta` names a protocol version is
//! served with no handshake, from what that request alone says (version, client capabilities and
//! info, log level), on any connection and beside the 2025 era.
//!
//! The way of a modern request: [`request_meta`] tells the era and reads `_meta` ->
//! [`serve`] checks the version and the method (`server/discover`, `subscriptions/listen`, and
//! the feature methods; `ping`, `logging/setLevel`, `resources/subscribe` and `initialize` do not
//! exist here) -> the feature service runs the handler, inside an input round for the three
//! methods that may ask the client for input ([`input`]) -> the result gets `resultType`,
//! `serverInfo` and cache hints ([`result`]), or `input_required` with a sealed `requestState`
//! ([`sealed_state`]).

mod input;
mod listen;
mod result;
mod sealed_state;

use std::sync::Arc;

use mcp_proto::jsonrpc::{self, RawJson, Request};
use mcp_proto::peer::RequestContext;
use mcp_proto::schema::modern::meta_keys;
use mcp_proto::schema::{
    DiscoverResult, Implementation, InputRequiredResult, InputResponses, Meta, RequestMeta,
};
use mcp_proto::ProtocolVersion;
use serde::Deserialize;

pub use result::CacheHint;

pub(crate) use input::InputRound;
pub(crate) use listen::{ListenEvent, Listeners};
pub(crate) use sealed_state::SealKey;

use crate::context::Context;
use crate::error::ServerError;
use crate::request_state::{LogLevel, Negotiated, RequestState};
use crate::server::Server;
use crate::session::{parse_params, Method};
use crate::tasks::{self, TaskMethod};
use input::Ran;
use mcp_proto::schema::declares_tasks_extension;

/// The era of a request: `None` for the 2025 era (no protocol version in `params._meta`),
/// else its `_meta` read (or why it cannot be: -32602).
pub(crate) fn request_meta(request: &Request) -> Option<Result<RequestMeta, ServerError>> {
    let text = request.params.as_ref()?.get();
    // Most 2025-era requests are told apart without parsing anything.
    memchr::memmem::find(text.as_bytes(), meta_keys::PROTOCOL_VERSION.as_bytes())?;
    #[derive(Deserialize)]
    struct Params {
        #[serde(rename = "_meta", default)]
        meta: Option<Meta>,
    }
    let meta = jsonrpc::from_object::<Params>(text).ok()?.meta?;
    if !meta.contains_key(meta_keys::PROTOCOL_VERSION) {
        return None;
    }
    let invalid = |detail: String| {
        ServerError::InvalidParams(format!("Invalid _meta for a 2026-07-28 request: {detail}"))
    };
    if !meta.contains_key(meta_keys::CLIENT_CAPABILITIES) {
        return Some(Err(invalid(format!(
            "{} is required",
            meta_keys::CLIENT_CAPABILITIES
        ))));
    }
    // The map is moved, not cloned, into the typed view (this runs on every modern request).
    Some(
        serde_json::from_value(serde_json::Value::Object(meta)).map_err(|e| invalid(e.to_string())),
    )
}

/// The client info of a request that sent none.
fn anonymous_client() -> Implementation {
    Implementation::new("unknown-client", "0")
}

/// Serves one 2026-07-28 request.
pub(crate) async fn serve(
    server: &Server,
    request: &Request,
    rc: RequestContext,
    meta: RequestMeta,
) -> Result<RawJson, ServerError> {
    let version = ProtocolVersion::parse(&meta.protocol_version)
        .filter(|v| server.modern_versions().contains(v))
        .ok_or_else(|| ServerError::UnsupportedVersion {
            requested: meta.protocol_version.clone(),
            supported: server
                .modern_versions()
                .iter()
                .map(|v| v.as_str().to_owned())
                .collect(),
        })?;
    let (server_capabilities, advertised) = server.capabilities(version);
    let method = Method::of(&request.method)
        .filter(|m| m.exists_in_modern_era() && m.offered(advertised))
        .ok_or_else(|| ServerError::MethodNotFound(request.method.clone()))?;
    if let Method::Task(task_method) = method {
        // The extension's methods; tasks/result and tasks/list were removed (-32601).
        if matches!(task_method, TaskMethod::Result | TaskMethod::List) {
            return Err(ServerError::MethodNotFound(request.method.clone()));
        }
        if !declares_tasks_extension(meta.client_capabilities.extensions.as_ref()) {
            return Err(tasks::extension_missing(&format!(
                "{} is a method of the tasks extension",
                request.method
            )));
        }
        let requester = tasks::requester(&rc, "");
        let raw = tasks::serve_modern(
            server.tasks(),
            task_method,
            request.params.as_ref(),
            &requester,
        )?;
        return result::complete(&raw, server.info_json(), None);
    }
    let params = request.params.as_ref();
    let info = server.info_json();
    let hints = server.cache_hint();
    match method {
        Method::Discover => {
            let mut discover = DiscoverResult::new(
                server
                    .modern_versions()
                    .iter()
                    .map(|v| v.as_str().to_owned())
                    .collect(),
                server_capabilities,
            );
            discover.instructions = server.instructions().map(str::to_owned);
            discover.ttl_ms = None;
            discover.cache_scope = None;
            let raw = jsonrpc::to_raw(&discover).map_err(ServerError::handler)?;
            return result::complete(&raw, info, Some(hints));
        }
        Method::Listen => {
            let raw = listen::listen(server.listeners(), params, advertised, &rc).await?;
            return result::complete(&raw, info, None);
        }
        _ => {}
    }
    let negotiated = Arc::new(Negotiated {
        version,
        client_capabilities: meta.client_capabilities,
        client_info: meta.client_info.unwrap_or_else(anonymous_client),
        server_capabilities,
        advertised,
    });
    let log_level = Arc::new(meta.log_level.map_or_else(LogLevel::off, LogLevel::new));
    let round = match method {
        Method::CallTool | Method::GetPrompt | Method::ReadResource => {
            Some(Arc::new(InputRound::new(resumed_answers(server, request)?)))
        }
        _ => None,
    };
    let state = RequestState::new(negotiated, log_level).with_input(round.clone());
    let ctx = Context::new(rc, state, server.clone());
    let offers = server.offers();
    let page_size = server.page_size();
    let work = async {
        match method {
            Method::CallTool => offers.tools.call(params, ctx, version).await,
            Method::ListTools => offers.tools.list(params, page_size),
            Method::ListResources => offers.resources.list(params, ctx, page_size).await,
            Method::ListResourceTemplates => offers.resources.list_templates(params, page_size),
            Method::ReadResource => offers.resources.read(params, ctx).await,
            Method::ListPrompts => offers.prompts.list(params, page_size),
            Method::GetPrompt => offers.prompts.get(params, ctx).await,
            Method::Complete => {
                let (prompts, resources) = (&offers.prompts, &offers.resources);
                offers
                    .completions
                    .complete(params, ctx, prompts, resources)
                    .await
            }
            // Answered above, or refused as not existing in this era.
            _ => Err(ServerError::MethodNotFound(request.method.clone())),
        }
    };
    let raw = match &round {
        None => work.await?,
        Some(round) => match round.run(work).await {
            Ran::Done(done) => done?,
            Ran::Asked { requests, answers } => {
                let target = request_target(request)?;
                let sealed = sealed_state::seal(
                    server.seal_key(),
                    &request.method,
                    &target,
                    &answers,
                    server.options().input_state_ttl,
                )?;
                let mut asked = InputRequiredResult::new(requests, Some(sealed));
                let mut meta = Meta::new();
                let info = serde_json::from_str(info.get()).map_err(ServerError::handler)?;
                meta.insert(meta_keys::SERVER_INFO.into(), info);
                asked.meta = Some(meta);
                return jsonrpc::to_raw(&asked).map_err(ServerError::handler);
            }
        },
    };
    let cacheable = matches!(
        method,
        Method::ListTools
            | Method::ListResources
            | Method::ListResourceTemplates
            | Method::ListPrompts
            | Method::ReadResource
    );
    result::complete(&raw, info, cacheable.then_some(hints))
}

/// What an MRTR request is about: the tool or prompt name, or the resource URI.
fn request_target(request: &Request) -> Result<String, ServerError> {
    #[derive(Deserialize)]
    struct Target {
        #[serde(default)]
        name: Option<String>,
        #[serde(default)]
        uri: Option<String>,
    }
    let t: Target = parse_params(request.params.as_ref())?;
    Ok(t.name.or(t.uri).unwrap_or_default())
}

/// The answers a retried request brings: those sealed in its `requestState` (checked) and its
/// `inputResponses`.
fn resumed_answers(server: &Server, request: &Request) -> Result<InputResponses, ServerError> {
    let Some(params) = request.params.as_ref() else {
        return Ok(InputResponses::new());
    };
    let text = params.get();
    if !text.contains("\"inputResponses\"") && !text.contains("\"requestState\"") {
        return Ok(InputResponses::new());
    }
    #[derive(Deserialize)]
    #[serde(rename_all = "camelCase")]
    struct Resumption {
        #[serde(default)]
        input_responses: Option<InputResponses>,
        #[serde(default)]
        request_state: Option<String>,
    }
    let r: Resumption = parse_params(Some(params))?;
    let mut answers = match &r.request_state {
        Some(sealed) => {
            let target = request_target(request)?;
            sealed_state::open(server.seal_key(), sealed, &request.method, &target)?.a
        }
        None => InputResponses::new(),
    };
    answers.extend(r.input_responses.unwrap_or_default());
    Ok(answers)
}
