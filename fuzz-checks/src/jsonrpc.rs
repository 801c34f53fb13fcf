//! `jsonrpc::parse` against the reference reading of a frame.

use mcp_proto::json_text::RawMembers;
use mcp_proto::jsonrpc::{self, Incoming, InvalidMessage, Message, ParseError};

use crate::reference::{self, Frame, Shape};

/// Parses `data` as one frame and checks the outcome against [`reference::frame`]: the same kind,
/// the same id, method, params, result and error; a message that serializes and parses back to
/// the same text; and JSON arrays never accepted as a message.
pub fn check_jsonrpc(data: &[u8]) {
    let got = jsonrpc::parse(data);
    let expected = reference::frame(data);
    let frame = String::from_utf8_lossy(data);
    match (&got, &expected) {
        (_, Frame::Single(Shape::NotUtf8)) => {
            if let Ok(Incoming::Single(m)) = &got {
                round_trip(m);
            }
        }
        (Err(ParseError::Json(_)), Frame::Single(Shape::NotJson)) => {}
        (Ok(Incoming::Single(m)), Frame::Single(shape)) => same_message(&Ok(m), shape, &frame),
        (Err(ParseError::Invalid(inv)), Frame::Single(shape)) => {
            same_message(&Err(inv), shape, &frame)
        }
        (Ok(Incoming::Batch(items)), Frame::Batch(shapes)) => {
            assert_eq!(items.len(), shapes.len(), "batch length of {frame}");
            let texts: Vec<Box<serde_json::value::RawValue>> =
                serde_json::from_slice(data).unwrap_or_default();
            for ((item, shape), text) in items.iter().zip(shapes).zip(&texts) {
                // A JSON array is never a message: serde would read its elements by position.
                if text.get().trim_start().starts_with('[') {
                    assert!(
                        matches!(item, Err(inv) if inv.id.is_none()),
                        "jsonrpc::parse read the JSON array {} as a message: {item:?}",
                        text.get()
                    );
                }
                same_message(&item.as_ref(), shape, &frame);
            }
        }
        _ => panic!("parse({frame:?}) = {got:?}, but the frame reads as {expected:?}"),
    }
}

/// Checks one parsed message (or invalid message) against its reference shape.
pub(crate) fn same_message(got: &Result<&Message, &InvalidMessage>, shape: &Shape, frame: &str) {
    let raw = |r: &Option<jsonrpc::RawJson>| r.as_ref().map(|p| p.get().to_owned());
    let fits = match (got, shape) {
        (Err(inv), Shape::Invalid(id)) => inv.id == *id,
        (Ok(Message::Request(r)), Shape::Request { id, method, params }) => {
            r.id == *id && r.method == *method && raw(&r.params) == *params
        }
        (Ok(Message::Notification(n)), Shape::Notification { method, params }) => {
            n.method == *method && raw(&n.params) == *params
        }
        (Ok(Message::Response(r)), Shape::Response { id, result }) => {
            r.id == *id && r.result.get() == result
        }
        (
            Ok(Message::Error(e)),
            Shape::Error {
                id,
                code,
                message,
                data,
            },
        ) => {
            e.id == *id
                && e.error.code == *code
                && e.error.message == *message
                && raw(&e.error.data) == *data
        }
        _ => false,
    };
    if !fits {
        panic!("parsed {got:?} from {frame:?}, but it reads as {shape:?}");
    }
    if let Ok(m) = got {
        round_trip(m);
    }
}

/// The members [`RawMembers`] finds in a payload without reading its values are the ones serde
/// reads: the same keys, in order, repeats included, each with the same value text.
fn members_as_serde_reads_them(m: &Message) {
    let payload = match m {
        Message::Request(r) => r.params.as_ref(),
        Message::Notification(n) => n.params.as_ref(),
        Message::Response(r) => Some(&r.result),
        Message::Error(_) => None,
    };
    let Some(text) = payload.map(jsonrpc::RawJson::get) else {
        return;
    };
    let ours = RawMembers::of(text).map(|members| members.as_slice().to_vec());
    assert_eq!(ours, reference::members(text), "the members of {text}");
}

/// A message serializes to JSON that parses back to a message that serializes the same way.
fn round_trip(m: &Message) {
    members_as_serde_reads_them(m);
    let text = m.to_json();
    match jsonrpc::parse(text.as_bytes()) {
        Ok(Incoming::Single(again)) => assert_eq!(again.to_json(), text, "round trip"),
        other => panic!("{m:?} serialized as {text}, which parses as {other:?}"),
    }
}
