//! An outgoing message as the HTTP transports carry it: serialized once, with what a transport
//! acts on taken from the peer's typed [`Intent`], never by parsing the message again.

use bytes::Bytes;
use mcp_proto::jsonrpc::{Batch, Message, Notification, Request, RequestId};
use mcp_proto::peer::{Intent, Outbound, Outgoing};
use tokio_util::sync::CancellationToken;

/// An outgoing message, serialized, and what the transport needs to know about it.
pub(crate) struct Encoded {
    /// The JSON body to POST.
    pub(crate) body: Bytes,
    /// Whether an answer is awaited.
    pub(crate) kind: Kind,
    /// What the message means to the transport, as the peer that wrote it said.
    pub(crate) intent: Intent,
    /// The params of `initialize` and `notifications/initialized` (and of nothing else), kept
    /// to replay them when a new session has to be started.
    pub(crate) replay_params: Option<String>,
    /// A 2026-07-28 request (its `_meta` names a protocol version): POSTed statelessly with the
    /// era's headers.
    pub(crate) modern: bool,
}

/// Whether an outgoing message waits for an answer.
pub(crate) enum Kind {
    /// A request we wait an answer for.
    Request {
        /// Its id, which the answer carries.
        id: RequestId,
    },
    /// A notification (answered with 202 and no body).
    Notification,
    /// Responses to the server's requests, one or a batch (answered with 202 and no body).
    Response,
}

/// Serializes an outgoing message once and notes what the transport acts on.
pub(crate) fn encode(message: Outgoing) -> Encoded {
    let intent = message.intent;
    match message.body {
        Outbound::Single(m) => {
            let body = Bytes::from(m.to_json());
            let (kind, params) = match m {
                Message::Request(Request { id, params, .. }) => (Kind::Request { id }, params),
                Message::Notification(Notification { params, .. }) => (Kind::Notification, params),
                _ => (Kind::Response, None),
            };
            let replays = matches!(intent, Intent::Initialize | Intent::Initialized);
            let modern = matches!(kind, Kind::Request { .. })
                && params.as_ref().is_some_and(|p| super::is_modern(p.get()));
            let replay_params = params.filter(|_| replays).map(|p| p.get().to_owned());
            Encoded {
                body,
                kind,
                intent,
                replay_params,
                modern,
            }
        }
        Outbound::Batch(ms) => {
            let mut out = Vec::new();
            Batch(&ms).write_json(&mut out);
            Encoded {
                body: Bytes::from(out),
                kind: Kind::Response,
                intent,
                replay_params: None,
                modern: false,
            }
        }
    }
}

/// A token that is already cancelled: a barrier nothing waits behind.
pub(crate) fn done_token() -> CancellationToken {
    let t = CancellationToken::new();
    t.cancel();
    t
}

#[cfg(test)]
mod tests {
    use mcp_proto::jsonrpc::raw_json;

    use super::*;

    fn request(id: i64, method: &str) -> Message {
        Message::Request(Request {
            id: RequestId::Number(id),
            method: method.into(),
            params: Some(raw_json(r#"{"k":1}"#)),
        })
    }

    #[test]
    fn only_what_a_new_session_replays_keeps_its_params() {
        let init = encode(Outgoing::new(request(1, "initialize")).with_intent(Intent::Initialize));
        assert!(matches!(&init.kind, Kind::Request { id } if *id == RequestId::Number(1)));
        assert_eq!(init.replay_params.as_deref(), Some(r#"{"k":1}"#));
        let call = encode(Outgoing::new(request(2, "tools/call")));
        assert_eq!(call.intent, Intent::Plain);
        assert_eq!(call.replay_params, None);
        let cancel = Message::Notification(Notification {
            method: "notifications/cancelled".into(),
            params: Some(raw_json(r#"{"requestId":2}"#)),
        });
        let cancel =
            encode(Outgoing::new(cancel).with_intent(Intent::Cancel(RequestId::Number(2))));
        assert!(matches!(cancel.kind, Kind::Notification));
        assert_eq!(cancel.intent, Intent::Cancel(RequestId::Number(2)));
        assert_eq!(cancel.replay_params, None);
    }

    fn call(params: &str) -> Encoded {
        encode(Outgoing::new(Message::Request(Request {
            id: RequestId::Number(3),
            method: "tools/call".into(),
            params: Some(raw_json(params)),
        })))
    }

    #[test]
    fn the_era_comes_from_meta_not_from_text() {
        let user_data = [
            r#"{"name":"t","arguments":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}"#,
            r#"{"name":"t","arguments":{"a":[{"_meta":{"io.modelcontextprotocol/protocolVersion":1}}]}}"#,
            r#"{"_meta":{"k":"\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\""}}"#,
        ];
        for params in user_data {
            assert!(!call(params).modern, "{params}");
        }
        for params in [
            r#"{"name":"echo","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}"#,
            r#"{"name":"echo","_meta":{"io.modelcontextprotocol\/protocolVersion":"2026-07-28"}}"#,
            r#"{"name":"echo","\u005fmeta":{"io.modelcontextprotocol/\u0070rotocolVersion":"2026-07-28"}}"#,
        ] {
            assert!(call(params).modern, "{params}");
        }
    }
}
