//! `jsonrpc::parse` against the reference reading of a frame.

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
                if known_bug_array_as_message(&item.as_ref(), text.get()) {
                    continue;
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

/// Known bug (1), being fixed on main: a batch element that is itself a JSON array is read as a
/// message with its fields taken by position (`[["2.0",5,"ping"]]` is a ping with id 5, and
/// `[["1.0",5,"ping"]]` an invalid message with id 5). The right answer is an invalid message
/// without an id. Panics when it shows, unless known bugs are tolerated; then returns whether it
/// showed.
pub(crate) fn known_bug_array_as_message(
    got: &Result<&Message, &InvalidMessage>,
    element: &str,
) -> bool {
    let right = matches!(got, Err(inv) if inv.id.is_none());
    if right || !element.trim_start().starts_with('[') {
        return false;
    }
    if crate::tolerate_known() {
        return true;
    }
    panic!(
        "known bug (1): jsonrpc::parse read the JSON array {element} as a message, taking its \
         fields by position: {got:?}"
    );
}

/// A message serializes to JSON that parses back to a message that serializes the same way.
fn round_trip(m: &Message) {
    let text = m.to_json();
    match jsonrpc::parse(text.as_bytes()) {
        Ok(Incoming::Single(again)) => assert_eq!(again.to_json(), text, "round trip"),
        other => panic!("{m:?} serialized as {text}, which parses as {other:?}"),
    }
}
