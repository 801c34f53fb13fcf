//! The page's API, under `/api/` on the page origin (every request passes the guard's token
//! check first): the hub as JSON, tool calls streamed as Server-Sent Events (progress, then
//! the result), resource reads, prompts, and views put on the app origin. A call made for a view
//! (`"app": SERVER`) is refused unless the tool is that server's and its visibility lets apps
//! call it, whatever the page asked.

use bytes::Bytes;
use http_body_util::{BodyExt, Limited};
use hyper::body::Incoming;
use hyper::{Method, Request, Response, StatusCode};
use mcp_client::CallOptions;
use mcp_hub::{Hub, ServerStatus};
use mcp_proto::schema::apps_extension::{UiResourceMeta, UiToolMeta};
use serde_json::{json, Value};

use super::body::{self, UiBody};
use super::views::{Views, MAX_VIEW_BYTES};

/// The largest request body the API reads (a call's arguments).
const MAX_REQUEST_BYTES: usize = 4 << 20;

/// How many progress events may wait for a slow page before new ones are dropped.
const PROGRESS_QUEUE: usize = 64;

/// A refused or failed API request: its status and what the page is told.
#[derive(Debug)]
struct Rejection(StatusCode, String);

impl Rejection {
    fn bad(message: impl Into<String>) -> Rejection {
        Rejection(StatusCode::BAD_REQUEST, message.into())
    }
}

/// What an API handler answers.
type Answer = Result<Response<UiBody>, Rejection>;

/// Answers one API request (the guard has passed it).
pub async fn handle(hub: &Hub, views: &Views, req: Request<Incoming>) -> Response<UiBody> {
    route(hub, views, req)
        .await
        .unwrap_or_else(|Rejection(status, message)| body::error(status, &message))
}

async fn route(hub: &Hub, views: &Views, req: Request<Incoming>) -> Answer {
    let path = req.uri().path().to_owned();
    match (req.method().clone(), path.as_str()) {
        (Method::GET, "/api/hub") => Ok(body::json(StatusCode::OK, &hub_json(hub))),
        (Method::POST, "/api/call") => call(hub, &read_json(req).await?),
        (Method::POST, "/api/read") => read(hub, &read_json(req).await?).await,
        (Method::POST, "/api/view") => view(hub, views, &read_json(req).await?).await,
        (Method::POST, "/api/prompt") => prompt(hub, &read_json(req).await?).await,
        _ => Err(Rejection(StatusCode::NOT_FOUND, "no such API".into())),
    }
}

/// The request's JSON object, read within [`MAX_REQUEST_BYTES`].
async fn read_json(req: Request<Incoming>) -> Result<Value, Rejection> {
    let bytes = match Limited::new(req.into_body(), MAX_REQUEST_BYTES)
        .collect()
        .await
    {
        Ok(collected) => collected.to_bytes(),
        Err(_) => {
            return Err(Rejection(
                StatusCode::PAYLOAD_TOO_LARGE,
                "the request body is too large or was cut".into(),
            ))
        }
    };
    match serde_json::from_slice::<Value>(&bytes) {
        Ok(v @ Value::Object(_)) => Ok(v),
        _ => Err(Rejection::bad("the body must be a JSON object")),
    }
}

fn field<'a>(v: &'a Value, name: &str) -> Result<&'a str, Rejection> {
    v.get(name)
        .and_then(Value::as_str)
        .ok_or_else(|| Rejection::bad(format!("`{name}` (a string) is missing")))
}

/// Every server with its status, era and counts, and the tools, resources, templates and
/// prompts of the connected ones.
pub fn hub_json(hub: &Hub) -> Value {
    let servers: Vec<Value> = hub
        .servers()
        .into_iter()
        .map(|s| {
            let connected = s.status == ServerStatus::Connected;
            json!({
                "name": s.config.name,
                "transport": s.config.transport.kind(),
                "status": if s.status.needs_login() {
                    format!("needs login (mcp login {})", s.config.name)
                } else {
                    s.status.describe()
                },
                "connected": connected,
                "era": s.era.map(|e| e.to_string()),
                "protocolVersion": s.protocol_version,
                "serverInfo": s.server_info,
                "counts": {
                    "tools": s.lists.tools.len(),
                    "resources": s.lists.resources.len() + s.lists.templates.len(),
                    "prompts": s.lists.prompts.len(),
                },
            })
        })
        .collect();
    let tools: Vec<Value> = hub
        .tools()
        .into_iter()
        .map(|t| {
            let ui = UiToolMeta::of(&t.tool);
            json!({
                "exposed": t.exposed,
                "server": t.server,
                "tool": t.tool,
                "view": ui.as_ref().and_then(|u| u.resource_uri.clone()),
                "visibleToModel": ui.as_ref().is_none_or(UiToolMeta::visible_to_model),
                "callableByApp": ui.as_ref().is_none_or(UiToolMeta::callable_by_app),
            })
        })
        .collect();
    let resources: Vec<Value> = hub
        .resources()
        .into_iter()
        .map(|r| json!({ "server": r.server, "resource": r.resource }))
        .collect();
    let templates: Vec<Value> = hub
        .resource_templates()
        .into_iter()
        .map(|r| json!({ "server": r.server, "template": r.template }))
        .collect();
    let prompts: Vec<Value> = hub
        .prompts()
        .into_iter()
        .map(|p| json!({ "exposed": p.exposed, "server": p.server, "prompt": p.prompt }))
        .collect();
    json!({
        "servers": servers,
        "tools": tools,
        "resources": resources,
        "templates": templates,
        "prompts": prompts,
    })
}

/// Whether a view of `app` (a server's name) may call `name`: the tool must be that server's
/// and visible to apps. `Err` says why not.
pub fn app_may_call(hub: &Hub, app: &str, name: &str) -> Result<(), String> {
    let tool = hub.resolve_tool(name).map_err(|e| e.to_string())?;
    if tool.server != app {
        return Err(format!(
            "a view of {app} may call only {app}'s tools, not {}",
            tool.exposed
        ));
    }
    if !UiToolMeta::of(&tool.tool).is_none_or(|ui| ui.callable_by_app()) {
        return Err(format!(
            "{} is not visible to apps (its _meta.ui.visibility leaves out \"app\")",
            tool.exposed
        ));
    }
    Ok(())
}

/// `POST /api/call {name, arguments, app?}`: an event stream of `progress` events, then one
/// `result` (the `CallToolResult`) or `error` (`{message}`). A page that goes away cancels
/// the call (the server gets `notifications/cancelled`).
fn call(hub: &Hub, v: &Value) -> Answer {
    let name = field(v, "name")?.to_owned();
    let arguments = match v.get("arguments") {
        None | Some(Value::Null) => json!({}),
        Some(a @ Value::Object(_)) => a.clone(),
        Some(_) => return Err(Rejection::bad("`arguments` must be an object")),
    };
    if let Some(app) = v.get("app").and_then(Value::as_str) {
        app_may_call(hub, app, &name).map_err(|why| Rejection(StatusCode::FORBIDDEN, why))?;
    }
    let (response, tx) = body::sse(PROGRESS_QUEUE);
    let progress = tx.clone();
    let options = CallOptions::default().on_progress(move |p| {
        let event = json!({ "progress": p.progress, "total": p.total, "message": p.message });
        let _ = progress.try_send(body::sse_event("progress", &event));
    });
    let hub = hub.clone();
    tokio::spawn(async move {
        let outcome = tokio::select! {
            outcome = hub.call_tool_with(&name, arguments, options) => outcome,
            () = tx.closed() => return,
        };
        let event: Bytes = match outcome {
            Ok(result) => {
                body::sse_event("result", &serde_json::to_value(&result).unwrap_or_default())
            }
            Err(e) => body::sse_event("error", &json!({ "message": e.to_string() })),
        };
        let _ = tx.send(event).await;
    });
    Ok(response)
}

/// `POST /api/read {server, uri}`: the `ReadResourceResult`.
async fn read(hub: &Hub, v: &Value) -> Answer {
    let (server, uri) = (field(v, "server")?, field(v, "uri")?);
    let result = hub.read_resource(server, uri).await.map_err(upstream)?;
    Ok(body::json(
        StatusCode::OK,
        &serde_json::to_value(&result).unwrap_or_default(),
    ))
}

/// `POST /api/prompt {server, name, arguments}`: the `GetPromptResult` (arguments are strings).
async fn prompt(hub: &Hub, v: &Value) -> Answer {
    let (server, name) = (field(v, "server")?, field(v, "name")?);
    let mut arguments = std::collections::BTreeMap::new();
    if let Some(given) = v.get("arguments").and_then(Value::as_object) {
        for (key, value) in given {
            let Some(text) = value.as_str() else {
                return Err(Rejection::bad(format!(
                    "prompt argument `{key}` must be a string"
                )));
            };
            arguments.insert(key.clone(), text.to_owned());
        }
    }
    let result = hub
        .get_prompt(server, name, arguments)
        .await
        .map_err(upstream)?;
    Ok(body::json(
        StatusCode::OK,
        &serde_json::to_value(&result).unwrap_or_default(),
    ))
}

/// `POST /api/view {server, uri}`: reads the view and puts it on the app origin; answers
/// `{url, policy, allow, meta}` for the page's iframe.
async fn view(hub: &Hub, views: &Views, v: &Value) -> Answer {
    let (server, uri) = (field(v, "server")?, field(v, "uri")?);
    let read = hub.read_resource(server, uri).await.map_err(upstream)?;
    let listed = hub
        .resources()
        .into_iter()
        .find(|r| r.server == server && r.resource.uri == uri)
        .and_then(|r| UiResourceMeta::from_meta(r.resource.meta.as_ref()));
    let framed = views
        .keep(uri, &read, listed)
        .map_err(|why| Rejection(StatusCode::UNPROCESSABLE_ENTITY, why))?;
    Ok(body::json(
        StatusCode::OK,
        &json!({
            "url": framed.url,
            "policy": framed.policy,
            "allow": framed.allow,
            "meta": framed.meta,
            "maxBytes": MAX_VIEW_BYTES,
        }),
    ))
}

/// A server's failure, passed on as a bad gateway.
fn upstream(e: mcp_hub::HubError) -> Rejection {
    Rejection(StatusCode::BAD_GATEWAY, e.to_string())
}
