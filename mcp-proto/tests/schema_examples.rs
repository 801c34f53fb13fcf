//! The specification's 2026-07-28 example messages (`shared/spec/schema/2026-07-28/examples/`):
//! each decodes into our type for that name and encodes back to the same JSON.
//! Skips with a note when the spec is not beside the repository.

use std::path::PathBuf;

use mcp_proto::jsonrpc::{self, ErrorObject, Message, Notification, Request, Response};
use mcp_proto::schema::*;
use mcp_proto::RequestId;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::Value;

fn examples_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared/spec/schema/2026-07-28/examples")
}

/// Example folders with no type of ours: the elicitation form field schemas, which we keep
/// verbatim inside `requestedSchema` rather than typing them.
const UNMAPPED: &[&str] = &[
    "BooleanSchema",
    "NumberSchema",
    "StringSchema",
    "TitledMultiSelectEnumSchema",
    "TitledSingleSelectEnumSchema",
    "UntitledMultiSelectEnumSchema",
    "UntitledSingleSelectEnumSchema",
];

type Check = Result<Value, String>;

fn encode<T: Serialize>(t: &T) -> Check {
    serde_json::to_value(t).map_err(|e| format!("encode: {e}"))
}

/// Decodes into `T` and encodes again.
fn via<T: Serialize + DeserializeOwned>(value: &Value) -> Check {
    let t: T = serde_json::from_value(value.clone()).map_err(|e| format!("decode: {e}"))?;
    encode(&t)
}

/// Decodes a content block and checks it is the expected kind.
fn content(value: &Value, kind: &str) -> Check {
    let c: Content = serde_json::from_value(value.clone()).map_err(|e| format!("decode: {e}"))?;
    if c.type_name() != kind {
        return Err(format!("decoded as {} instead of {kind}", c.type_name()));
    }
    encode(&c)
}

fn parse(value: &Value) -> Result<Message, String> {
    let text = value.to_string();
    jsonrpc::parse_message(text.as_bytes()).map_err(|e| format!("parse: {e:?}"))
}

fn message_json(message: Message) -> Check {
    serde_json::from_str(&message.to_json()).map_err(|e| format!("re-parse: {e}"))
}

/// A full JSON-RPC request of method `R`, params decoded through `R::Params`.
fn request<R: RequestType>(value: &Value) -> Check {
    let Message::Request(req) = parse(value)? else {
        return Err("not a request".into());
    };
    if req.method != R::METHOD {
        return Err(format!("method {} is not {}", req.method, R::METHOD));
    }
    let params: R::Params = req.params_as().map_err(|e| format!("params: {e}"))?;
    let rebuilt = match req.params {
        Some(_) => Request::new(req.id, R::METHOD, &params).map_err(|e| e.to_string())?,
        None => Request {
            id: req.id,
            method: R::METHOD.into(),
            params: None,
        },
    };
    message_json(rebuilt.into())
}

/// A full JSON-RPC notification of method `N`, params decoded through `N::Params`.
fn notification<N: NotificationType>(value: &Value) -> Check {
    let Message::Notification(note) = parse(value)? else {
        return Err("not a notification".into());
    };
    if note.method != N::METHOD {
        return Err(format!("method {} is not {}", note.method, N::METHOD));
    }
    let params: N::Params = note.params_as().map_err(|e| format!("params: {e}"))?;
    let rebuilt = match note.params {
        Some(_) => Notification::new(N::METHOD, &params).map_err(|e| e.to_string())?,
        None => Notification {
            method: N::METHOD.into(),
            params: None,
        },
    };
    message_json(rebuilt.into())
}

/// A full JSON-RPC result response, the result decoded through `T`.
fn response<T: Serialize + DeserializeOwned>(value: &Value) -> Check {
    let Message::Response(resp) = parse(value)? else {
        return Err("not a result response".into());
    };
    let result: T = resp.result_as().map_err(|e| format!("result: {e}"))?;
    message_json(
        Response::new(resp.id, &result)
            .map_err(|e| e.to_string())?
            .into(),
    )
}

/// An error: a full JSON-RPC error response, or a bare error object.
fn error(value: &Value) -> Check {
    if value.get("jsonrpc").is_some() {
        let message = parse(value)?;
        if !matches!(message, Message::Error(_)) {
            return Err("not an error response".into());
        }
        message_json(message)
    } else {
        via::<ErrorObject>(value)
    }
}

/// A 2026-07-28 input request (`{method, params}`, sometimes with an `id`), as [`InputRequest`].
fn input_request(value: &Value, method: &str) -> Check {
    #[derive(Serialize, Deserialize)]
    struct Envelope {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        jsonrpc: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        id: Option<RequestId>,
        #[serde(flatten)]
        request: InputRequest,
    }
    let e: Envelope = serde_json::from_value(value.clone()).map_err(|e| format!("decode: {e}"))?;
    if e.request.method() != method || matches!(e.request, InputRequest::Other { .. }) {
        return Err(format!("decoded as {:?}", e.request.method()));
    }
    encode(&e)
}

fn elicit_params(value: &Value, url: bool) -> Check {
    let p: ElicitParams =
        serde_json::from_value(value.clone()).map_err(|e| format!("decode: {e}"))?;
    if matches!(p, ElicitParams::Url(_)) != url {
        return Err(format!("wrong mode: {p:?}"));
    }
    encode(&p)
}

/// Our decode/encode for an example folder, or `None` when we have no such type.
fn check(folder: &str, value: &Value) -> Option<Check> {
    Some(match folder {
        "AudioContent" => content(value, "audio"),
        "ImageContent" => content(value, "image"),
        "TextContent" => content(value, "text"),
        "EmbeddedResource" => content(value, "resource"),
        "ResourceLink" => content(value, "resource_link"),
        "ToolUseContent" => content(value, "tool_use"),
        "ToolResultContent" => content(value, "tool_result"),
        "BlobResourceContents" => via::<BlobResourceContents>(value),
        "TextResourceContents" => via::<TextResourceContents>(value),
        "ClientCapabilities" => via::<ClientCapabilities>(value),
        "ServerCapabilities" => via::<ServerCapabilities>(value),
        "ModelPreferences" => via::<ModelPreferences>(value),
        "Resource" => via::<Resource>(value),
        "Root" => via::<Root>(value),
        "SamplingMessage" => via::<SamplingMessage>(value),
        "Tool" => via::<Tool>(value),

        "CallToolRequest" => request::<CallTool>(value),
        "CallToolRequestParams" => via::<CallToolParams>(value),
        "CallToolResult" => via::<CallToolResult>(value),
        "CallToolResultResponse" => response::<ModernResult<CallToolResult>>(value),
        "CompleteRequest" => request::<Complete>(value),
        "CompleteRequestParams" => via::<CompleteParams>(value),
        "CompleteResult" => via::<CompleteResult>(value),
        "CompleteResultResponse" => response::<CompleteResult>(value),
        "DiscoverRequest" => request::<Discover>(value),
        "DiscoverResult" => via::<DiscoverResult>(value),
        "DiscoverResultResponse" => response::<DiscoverResult>(value),
        "GetPromptRequest" => request::<GetPrompt>(value),
        "GetPromptRequestParams" => via::<GetPromptParams>(value),
        "GetPromptResult" => via::<GetPromptResult>(value),
        "GetPromptResultResponse" => response::<ModernResult<GetPromptResult>>(value),
        "ListPromptsRequest" => request::<ListPrompts>(value),
        "ListPromptsResult" => via::<ListPromptsResult>(value),
        "ListPromptsResultResponse" => response::<ListPromptsResult>(value),
        "ListResourcesRequest" => request::<ListResources>(value),
        "ListResourcesResult" => via::<ListResourcesResult>(value),
        "ListResourcesResultResponse" => response::<ListResourcesResult>(value),
        "ListResourceTemplatesRequest" => request::<ListResourceTemplates>(value),
        "ListResourceTemplatesResult" => via::<ListResourceTemplatesResult>(value),
        "ListResourceTemplatesResultResponse" => response::<ListResourceTemplatesResult>(value),
        "ListToolsRequest" => request::<ListTools>(value),
        "ListToolsResult" => via::<ListToolsResult>(value),
        "ListToolsResultResponse" => response::<ListToolsResult>(value),
        "PaginatedRequestParams" => via::<PaginatedParams>(value),
        "ReadResourceRequest" => request::<ReadResource>(value),
        "ReadResourceResult" => via::<ReadResourceResult>(value),
        "ReadResourceResultResponse" => response::<ModernResult<ReadResourceResult>>(value),
        "SubscriptionsListenRequest" => request::<SubscriptionsListen>(value),
        "SubscriptionsListenResult" => via::<SubscriptionsListenResult>(value),
        "SubscriptionsListenResultResponse" => response::<SubscriptionsListenResult>(value),

        "CreateMessageRequest" => input_request(value, "sampling/createMessage"),
        "CreateMessageRequestParams" => via::<CreateMessageParams>(value),
        "CreateMessageResult" => via::<CreateMessageResult>(value),
        "ElicitRequest" => input_request(value, "elicitation/create"),
        "ElicitRequestFormParams" => elicit_params(value, false),
        "ElicitRequestURLParams" => elicit_params(value, true),
        "ElicitResult" => via::<ElicitResult>(value),
        "ListRootsRequest" => input_request(value, "roots/list"),
        "ListRootsResult" => via::<ListRootsResult>(value),
        "InputRequests" => via::<InputRequests>(value),
        "InputRequiredResult" => via::<InputRequiredResult>(value),
        "InputResponses" => via::<InputResponses>(value),

        "CancelledNotification" => notification::<Cancelled>(value),
        "CancelledNotificationParams" => via::<CancelledParams>(value),
        "LoggingMessageNotification" => notification::<LoggingMessage>(value),
        "LoggingMessageNotificationParams" => via::<LoggingMessageParams>(value),
        "ProgressNotification" => notification::<Progress>(value),
        "ProgressNotificationParams" => via::<ProgressParams>(value),
        "PromptListChangedNotification" => notification::<PromptListChanged>(value),
        "ResourceListChangedNotification" => notification::<ResourceListChanged>(value),
        "ToolListChangedNotification" => notification::<ToolListChanged>(value),
        "ResourceUpdatedNotification" => notification::<ResourceUpdated>(value),
        "ResourceUpdatedNotificationParams" => via::<ResourceUpdatedParams>(value),
        "SubscriptionsAcknowledgedNotification" => notification::<SubscriptionsAcknowledged>(value),

        "HeaderMismatchError"
        | "InternalError"
        | "InvalidParamsError"
        | "MethodNotFoundError"
        | "MissingRequiredClientCapabilityError"
        | "ParseError"
        | "UnsupportedProtocolVersionError" => error(value),
        _ => return None,
    })
}

#[test]
fn every_example_round_trips() {
    let dir = examples_dir();
    let Ok(entries) = std::fs::read_dir(&dir) else {
        eprintln!(
            "note: {} not found; example round trips skipped",
            dir.display()
        );
        return;
    };
    let mut folders: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
    folders.sort();
    let (mut passed, mut failures, mut unmapped) = (0, Vec::new(), Vec::new());
    for folder in folders.iter().filter(|p| p.is_dir()) {
        let name = folder
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or_default()
            .to_owned();
        let mut files: Vec<PathBuf> = std::fs::read_dir(folder)
            .unwrap()
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|x| x == "json"))
            .collect();
        files.sort();
        for file in files {
            let text = std::fs::read_to_string(&file).unwrap();
            let value: Value = serde_json::from_str(&text).unwrap();
            match check(&name, &value) {
                None => {
                    unmapped.push(name.clone());
                    break;
                }
                Some(Ok(out)) if out == value => passed += 1,
                Some(Ok(out)) => failures.push(format!(
                    "{}: re-encoded differently\n  in:  {value}\n  out: {out}",
                    file.display()
                )),
                Some(Err(e)) => failures.push(format!("{}: {e}", file.display())),
            }
        }
    }
    eprintln!("{passed} examples round-trip; unmapped folders: {unmapped:?}");
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert_eq!(
        unmapped, UNMAPPED,
        "the set of unmapped example folders changed"
    );
    assert!(passed > 100, "too few examples checked: {passed}");
}
