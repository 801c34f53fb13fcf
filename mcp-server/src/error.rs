//! What can go wrong while serving a request, with messages a user can act on, and how each
//! error travels on the wire (its JSON-RPC code and data).

use mcp_proto::jsonrpc::{error_codes, ErrorObject};
use mcp_proto::peer::PeerError;
use mcp_proto::ProtocolVersion;

/// An error a server, a handler or a call to the client can produce.
#[derive(Debug, Clone, thiserror::Error)]
#[non_exhaustive]
pub enum ServerError {
    /// `tools/call` named a tool this server does not have.
    #[error("Unknown tool: {0}")]
    ToolNotFound(String),
    /// The arguments of a tool call did not fit the tool's argument type.
    #[error("Invalid arguments for tool {tool}: {detail}")]
    InvalidArguments {
        /// The tool that was called.
        tool: String,
        /// What did not fit, as serde said it.
        detail: String,
    },
    /// `prompts/get` named a prompt this server does not have.
    #[error("Unknown prompt: {0}")]
    PromptNotFound(String),
    /// A required prompt argument was not given.
    #[error("Missing required argument {argument:?} for prompt {prompt}")]
    MissingArgument {
        /// The prompt that was asked for.
        prompt: String,
        /// The argument that is missing.
        argument: String,
    },
    /// No resource, dynamic provider or template serves this URI.
    #[error("Resource not found: {0}")]
    ResourceNotFound(String),
    /// A list cursor that this server did not hand out (or that no longer fits the list).
    #[error("Invalid cursor: {0:?}")]
    InvalidCursor(String),
    /// The params of a request did not fit its method.
    #[error("{0}")]
    InvalidParams(String),
    /// A request other than `initialize` or `ping` arrived before `initialize`.
    #[error("Server not initialized: send initialize before {0}")]
    NotInitialized(String),
    /// `initialize` arrived a second time on the same connection.
    #[error("Already initialized: initialize may be sent once per connection")]
    AlreadyInitialized,
    /// Nobody serves this method here.
    #[error("Method not found: {0}")]
    MethodNotFound(String),
    /// A server-to-client request the client did not declare a capability for.
    #[error(
        "The client does not support {feature}: it did not declare the {capability} capability"
    )]
    ClientCapabilityMissing {
        /// What the handler tried to do (e.g. `sampling/createMessage`).
        feature: String,
        /// The capability the client would have to declare (e.g. `sampling`).
        capability: String,
    },
    /// A 2026-07-28 request named a protocol version this server does not serve per request.
    #[error("Unsupported protocol version {requested:?}; this server supports {}", supported.join(", "))]
    UnsupportedVersion {
        /// The version the request named.
        requested: String,
        /// The per-request versions this server serves.
        supported: Vec<String>,
    },
    /// An MRTR `requestState` that this server did not seal, was altered, has expired or
    /// belongs to another request.
    #[error("Invalid requestState: {0}")]
    InvalidRequestState(String),
    /// A call to the client failed (timeout, cancellation, an error answer, a closed connection).
    #[error("{0}")]
    Peer(#[from] PeerError),
    /// A handler failed; the message is passed on as is.
    #[error("{0}")]
    Handler(String),
    /// A JSON-RPC error chosen by a handler, passed on verbatim.
    #[error("{0}")]
    Rpc(ErrorObject),
}

impl ServerError {
    /// A handler failure with a message.
    pub fn handler(message: impl std::fmt::Display) -> Self {
        ServerError::Handler(message.to_string())
    }

    /// The JSON-RPC error object for this error, as the given protocol version spells it.
    pub fn to_error_object(&self, version: Option<ProtocolVersion>) -> ErrorObject {
        let message = self.to_string();
        match self {
            ServerError::ToolNotFound(name) | ServerError::PromptNotFound(name) => {
                ErrorObject::new(error_codes::INVALID_PARAMS, message)
                    .with_data(&serde_json::json!({ "name": name }))
            }
            ServerError::InvalidArguments { .. }
            | ServerError::MissingArgument { .. }
            | ServerError::InvalidCursor(_)
            | ServerError::InvalidParams(_) => {
                ErrorObject::new(error_codes::INVALID_PARAMS, message)
            }
            ServerError::ResourceNotFound(uri) => {
                let code = version
                    .unwrap_or(ProtocolVersion::LATEST)
                    .resource_not_found_code();
                ErrorObject::new(code, message).with_data(&serde_json::json!({ "uri": uri }))
            }
            ServerError::NotInitialized(_) | ServerError::AlreadyInitialized => {
                ErrorObject::new(error_codes::INVALID_REQUEST, message)
            }
            ServerError::MethodNotFound(_) => {
                ErrorObject::new(error_codes::METHOD_NOT_FOUND, message)
            }
            ServerError::ClientCapabilityMissing { capability, .. } => {
                if version.is_some_and(ProtocolVersion::is_stateless_era) {
                    ErrorObject::new(error_codes::MISSING_REQUIRED_CLIENT_CAPABILITY, message).with_data(
                        &serde_json::json!({ "requiredCapabilities": capability_object(capability) }),
                    )
                } else {
                    ErrorObject::new(error_codes::INVALID_REQUEST, message)
                }
            }
            ServerError::UnsupportedVersion {
                requested,
                supported,
            } => ErrorObject::new(error_codes::UNSUPPORTED_PROTOCOL_VERSION, message)
                .with_data(&serde_json::json!({ "supported": supported, "requested": requested })),
            ServerError::InvalidRequestState(_) => {
                ErrorObject::new(error_codes::INVALID_PARAMS, message)
            }
            ServerError::Peer(e) => match e.rpc_error() {
                Some(error) => error.clone(),
                None => ErrorObject::new(error_codes::INTERNAL_ERROR, message),
            },
            ServerError::Handler(_) => ErrorObject::new(error_codes::INTERNAL_ERROR, message),
            ServerError::Rpc(error) => error.clone(),
        }
    }
}

/// A dotted capability path (`sampling.tools`) as a `ClientCapabilities` object
/// (`{"sampling":{"tools":{}}}`).
fn capability_object(path: &str) -> serde_json::Value {
    path.rsplit('.').fold(
        serde_json::json!({}),
        |inner, key| serde_json::json!({ key: inner }),
    )
}

impl From<String> for ServerError {
    fn from(message: String) -> Self {
        ServerError::Handler(message)
    }
}

impl From<&str> for ServerError {
    fn from(message: &str) -> Self {
        ServerError::Handler(message.to_owned())
    }
}

impl From<ErrorObject> for ServerError {
    fn from(error: ErrorObject) -> Self {
        ServerError::Rpc(error)
    }
}

/// Why a handler failed, as it says with `Err(..)`: the one error contract of tools,
/// resources, resource templates, prompts and completions.
///
/// Made from any error (`?` works on anything that converts to `Box<dyn Error + Send + Sync>`:
/// every `std::error::Error + Send + Sync + 'static`, `String` and `&str` included). It keeps the
/// error and its source chain. What the client sees depends on the kind of handler:
///
/// - a tool: an `isError` result with the whole chain, the spec's place for failures the model
///   can act on;
/// - a resource, prompt or completion: a JSON-RPC error, -32603 with the chain as its message,
///   or the code a returned [`ServerError`] has (e.g. [`ServerError::ResourceNotFound`]).
///
/// A protocol error (a JSON-RPC error, from a tool too) is made with
/// [`HandlerError::protocol`], or by returning `ServerError::Rpc`.
pub struct HandlerError(HandlerErrorKind);

enum HandlerErrorKind {
    /// The handler ran and failed.
    Failed(Box<dyn std::error::Error + Send + Sync>),
    /// The request itself is refused: a JSON-RPC error.
    Protocol(ServerError),
}

impl HandlerError {
    /// A failure: an `isError` result from a tool, a JSON-RPC error from other handlers.
    pub fn new(error: impl Into<Box<dyn std::error::Error + Send + Sync>>) -> Self {
        HandlerError(HandlerErrorKind::Failed(error.into()))
    }

    /// A protocol error: the request is answered with this JSON-RPC error, not a result.
    pub fn protocol(error: impl Into<ServerError>) -> Self {
        HandlerError(HandlerErrorKind::Protocol(error.into()))
    }

    /// The error the handler returned, for logging or downcasting.
    pub fn error(&self) -> &(dyn std::error::Error + 'static) {
        match &self.0 {
            HandlerErrorKind::Failed(e) => e.as_ref(),
            HandlerErrorKind::Protocol(e) => e,
        }
    }

    /// Whether this becomes a JSON-RPC error rather than a tool's `isError` result.
    pub fn is_protocol_error(&self) -> bool {
        matches!(self.0, HandlerErrorKind::Protocol(_))
    }

    /// For a tool: the protocol error, or the text of the `isError` result (the error and its
    /// sources).
    pub(crate) fn into_outcome(self) -> Result<String, ServerError> {
        match self.0 {
            HandlerErrorKind::Protocol(e) => Err(e),
            HandlerErrorKind::Failed(e) => Ok(error_chain(e.as_ref())),
        }
    }

    /// For a resource, prompt or completion: the JSON-RPC error to answer with. A
    /// [`ServerError`] keeps its code; any other error is -32603 with its chain.
    pub(crate) fn into_server_error(self) -> ServerError {
        match self.0 {
            HandlerErrorKind::Protocol(e) => e,
            HandlerErrorKind::Failed(e) => match e.downcast::<ServerError>() {
                Ok(e) => *e,
                Err(e) => ServerError::Handler(error_chain(e.as_ref())),
            },
        }
    }
}

/// `error: source: source of source`, each distinct message once.
fn error_chain(error: &(dyn std::error::Error + 'static)) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    // A source chain is finite but not bounded by us; 16 links are plenty for a message.
    for _ in 0..16 {
        let Some(e) = source else { break };
        let message = e.to_string();
        if !text.ends_with(&message) {
            text.push_str(": ");
            text.push_str(&message);
        }
        source = e.source();
    }
    text
}

impl<E: Into<Box<dyn std::error::Error + Send + Sync>>> From<E> for HandlerError {
    fn from(error: E) -> Self {
        let error = error.into();
        match error.downcast::<ServerError>() {
            Ok(e) if matches!(*e, ServerError::Rpc(_)) => HandlerError::protocol(*e),
            Ok(e) => HandlerError(HandlerErrorKind::Failed(e)),
            Err(e) => HandlerError(HandlerErrorKind::Failed(e)),
        }
    }
}

impl std::fmt::Display for HandlerError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&error_chain(self.error()))
    }
}

impl std::fmt::Debug for HandlerError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.0 {
            HandlerErrorKind::Failed(e) => f.debug_tuple("HandlerError::Failed").field(e).finish(),
            HandlerErrorKind::Protocol(e) => {
                f.debug_tuple("HandlerError::Protocol").field(e).finish()
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_and_data() {
        let e = ServerError::ToolNotFound("nope".into()).to_error_object(None);
        assert_eq!(e.code, -32602);
        assert!(e.message.contains("nope"));
        let e = ServerError::ResourceNotFound("file:///x".into())
            .to_error_object(Some(ProtocolVersion::V2025_06_18));
        assert_eq!(e.code, -32002);
        assert_eq!(
            e.data.map(|d| d.get().to_owned()).as_deref(),
            Some(r#"{"uri":"file:///x"}"#)
        );
        let e = ServerError::NotInitialized("tools/list".into()).to_error_object(None);
        assert_eq!(e.code, -32600);
    }

    #[derive(Debug, thiserror::Error)]
    #[error("could not fetch the forecast")]
    struct Fetch(#[source] std::io::Error);

    #[test]
    fn tool_errors_keep_their_sources() {
        let io = std::io::Error::new(std::io::ErrorKind::ConnectionRefused, "connection refused");
        let e: HandlerError = Fetch(io).into();
        assert!(!e.is_protocol_error());
        assert!(e.error().downcast_ref::<Fetch>().is_some());
        assert_eq!(
            e.into_outcome().unwrap(),
            "could not fetch the forecast: connection refused"
        );
        let e: HandlerError = "plain text".into();
        assert_eq!(e.to_string(), "plain text");
        let e: HandlerError = ServerError::Rpc(ErrorObject::new(-32602, "bad")).into();
        assert!(e.is_protocol_error());
        let e: HandlerError = ServerError::InvalidParams("bad".into()).into();
        assert!(!e.is_protocol_error());
    }
}
