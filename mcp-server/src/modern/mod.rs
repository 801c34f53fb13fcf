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
mod request_meta;
mod result;
mod sealed_state;

use std::sync::Arc;

use mcp_proto::jsonrpc::{self, RawJson, Request};
use mcp_proto::peer::RequestContext;
use mcp_proto::schema::modern::meta_keys;
use mcp_proto::schema::{
    declares_tasks_extension, DiscoverResult, InputRequiredResult, InputResponses, Meta,
};
use mcp_proto::ProtocolVersion;
use serde::Deserialize;

pub use result::CacheHint;
pub(crate) use result::{is_plain, is_plain_parsed, ResultHead};

pub(crate) use input::InputRound;
pub(crate) use listen::{ListenEvent, Listeners};
#[cfg(feature = "http")]
pub(crate) use request_meta::PreRead;
pub(crate) use request_meta::{
    names_no_version, names_version_parsed, request_meta, text as json_text, ModernMeta,
    NegotiatedCache, ParamsRead,
};
pub(crate) use sealed_state::SealKey;

use crate::auth::AuthIdentity;
use crate::context::Context;
use crate::error::ServerError;
use crate::request_scope::RequestScope;
use crate::router::{self, parse_params, CallExtras, Method};
use crate::server::Server;
use crate::tasks::{self, TaskMethod};
use input::Ran;

/// Serves one 2026-07-28 request.
pub(crate) async fn serve(
    server: &Server,
    request: &Request,
    rc: RequestContext,
    meta: &ModernMeta<'_>,
    identity: Option<Arc<AuthIdentity>>,
) -> Result<RawJson, ServerError> {
    let version = ProtocolVersion::parse(&meta.protocol_version)
        .filter(|v| server.modern_versions().contains(v))
        .ok_or_else(|| ServerError::UnsupportedVersion {
            requested: meta.protocol_version.clone().into_owned(),
            supported: server
                .modern_versions()
                .iter()
                .map(|v| v.as_str().to_owned())
                .collect(),
        })?;
    let advertised = server.advertised();
    let method = Method::of(&request.method)
        .filter(|m| m.exists_in_modern_era() && m.offered(advertised))
        .ok_or_else(|| ServerError::MethodNotFound(request.method.clone()))?;
    let (negotiated, log_level) = server
        .negotiated_cache()
        .negotiated(server, version, meta)?;
    if let Method::Task(task_method) = method {
        // The extension's methods; tasks/result and tasks/list were removed (-32601).
        if matches!(task_method, TaskMethod::Result | TaskMethod::List) {
            return Err(ServerError::MethodNotFound(request.method.clone()));
        }
        if !declares_tasks_extension(negotiated.client_capabilities.extensions.as_ref()) {
            return Err(tasks::extension_missing(&format!(
                "{} is a method of the tasks extension",
                request.method
            )));
        }
        let requester = tasks::requester(identity.as_deref(), "");
        // Boxed, as are the other rare branches below: kept inline, their futures would set
        // the size of every request's future.
        let raw = Box::pin(tasks::serve_modern(
            server.tasks(),
            task_method,
            request.params.as_ref(),
            &requester,
        ))
        .await?;
        return result::complete(&raw, server.info_json(), None);
    }
    let params = request.params.as_ref();
    let info = server.info_json();
    let hints = server.cache_hint();
    match method {
        Method::Discover => {
            let (server_capabilities, _) = server.capabilities(version);
            let mut discover = DiscoverResult::new(
                server
                    .modern_versions()
                    .iter()
                    .map(|v| v.as_str().to_owned())
                    .collect(),
                (*server_capabilities).clone(),
            );
            discover.instructions = server.instructions().map(str::to_owned);
            discover.ttl_ms = None;
            discover.cache_scope = None;
            let raw = jsonrpc::to_raw(&discover).map_err(ServerError::handler)?;
            return result::complete(&raw, info, Some(hints));
        }
        Method::Listen => {
            let raw = Box::pin(listen::listen(server.listeners(), params, advertised, &rc)).await?;
            return result::complete(&raw, info, None);
        }
        _ => {}
    }
    let round = match method {
        Method::CallTool | Method::GetPrompt | Method::ReadResource => {
            let answers = if meta.read.resumes {
                resumed_answers(server, request)?
            } else {
                InputResponses::new()
            };
            Some(Arc::new(InputRound::new(answers)))
        }
        _ => None,
    };
    let state = RequestScope::new(negotiated, log_level)
        .with_input(round.clone())
        .with_identity(identity);
    let ctx = Context::new(rc, state, server.clone());
    let head = ResultHead::new(info, None);
    let call = CallExtras {
        read: Some(&meta.read),
        head: Some(&head),
    };
    let ctx = move || ctx;
    let work = std::pin::pin!(router::dispatch(
        method, request, ctx, server, version, call
    ));
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
    if method == Method::CallTool {
        return Ok(raw);
    }
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

/// The answers a retried request brings (one whose params carry `inputResponses` or
/// `requestState`): those sealed in its `requestState` (checked) and its `inputResponses`.
fn resumed_answers(server: &Server, request: &Request) -> Result<InputResponses, ServerError> {
    let Some(params) = request.params.as_ref() else {
        return Ok(InputResponses::new());
    };
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
