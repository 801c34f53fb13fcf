//! Newline-delimited JSON framing for byte streams (stdio, child processes).
//!
//! [`LineCodec`] cuts a byte stream into lines and knows nothing of JSON-RPC; [`JsonRpcCodec`]
//! hands each line to [`jsonrpc::parse`], the one function every
//! transport uses to turn a frame into a message. A line over the maximum size is discarded up to
//! its newline without being buffered and reported as its own error item; the stream goes on.
//! The decoder remembers how far it searched for a newline, so no byte is scanned twice.

use bytes::{Buf, BufMut, Bytes, BytesMut};
use serde::Serialize;
use tokio_util::codec::{Decoder, Encoder};

use crate::jsonrpc::{self, Batch, Incoming, Message, ParseError};

/// The default maximum size of one message: 16 MiB.
pub const DEFAULT_MAX_MESSAGE_SIZE: usize = 16 * 1024 * 1024;

/// A frame that could not become a message. The stream is intact after each of these.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum FrameError {
    /// A line longer than the limit; it was skipped without being buffered.
    #[error("message exceeds the maximum size of {limit} bytes and was skipped")]
    TooLong {
        /// The configured maximum message size in bytes.
        limit: usize,
    },
    /// The line was not JSON, or not a JSON-RPC message.
    #[error(transparent)]
    Parse(#[from] ParseError),
}

impl FrameError {
    /// The error response that answers the bad frame (id null unless the id could be read).
    pub fn to_error_response(&self) -> Message {
        match self {
            FrameError::TooLong { .. } => Message::error(
                None,
                jsonrpc::ErrorObject::invalid_request(self.to_string()),
            ),
            FrameError::Parse(e) => e.to_error_response(),
        }
    }
}

/// Cuts a byte stream into lines: LF or CRLF ends a line, blank lines are ignored.
#[derive(Clone, Debug)]
pub struct LineCodec {
    max_len: usize,
    /// How far into the buffer we have already searched for a newline.
    next_index: usize,
    /// True while skipping the rest of an over-long line.
    discarding: bool,
}

impl Default for LineCodec {
    fn default() -> Self {
        Self::new(DEFAULT_MAX_MESSAGE_SIZE)
    }
}

impl LineCodec {
    /// A line codec that refuses lines longer than `max_len` bytes.
    pub fn new(max_len: usize) -> Self {
        LineCodec {
            max_len: max_len.max(1),
            next_index: 0,
            discarding: false,
        }
    }

    /// The maximum line length in bytes.
    pub fn max_len(&self) -> usize {
        self.max_len
    }

    fn trim(mut line: Bytes) -> Option<Bytes> {
        while let Some(&last) = line.last() {
            if last == b'\n' || last == b'\r' {
                line.truncate(line.len() - 1);
            } else {
                break;
            }
        }
        if line.iter().all(u8::is_ascii_whitespace) {
            None
        } else {
            Some(line)
        }
    }
}

impl Decoder for LineCodec {
    type Item = Result<Bytes, FrameError>;
    type Error = std::io::Error;

    fn decode(&mut self, buf: &mut BytesMut) -> Result<Option<Self::Item>, Self::Error> {
        loop {
            let newline =
                memchr::memchr(b'\n', &buf[self.next_index..]).map(|i| i + self.next_index);
            match newline {
                Some(end) => {
                    self.next_index = 0;
                    if self.discarding {
                        self.discarding = false;
                        buf.advance(end + 1);
                        continue;
                    }
                    let line = buf.split_to(end + 1).freeze();
                    if end > self.max_len {
                        return Ok(Some(Err(FrameError::TooLong {
                            limit: self.max_len,
                        })));
                    }
                    match Self::trim(line) {
                        Some(line) => return Ok(Some(Ok(line))),
                        None => continue,
                    }
                }
                None if self.discarding => {
                    buf.clear();
                    self.next_index = 0;
                    return Ok(None);
                }
                None if buf.len() > self.max_len => {
                    buf.clear();
                    self.next_index = 0;
                    self.discarding = true;
                    return Ok(Some(Err(FrameError::TooLong {
                        limit: self.max_len,
                    })));
                }
                None => {
                    self.next_index = buf.len();
                    return Ok(None);
                }
            }
        }
    }

    fn decode_eof(&mut self, buf: &mut BytesMut) -> Result<Option<Self::Item>, Self::Error> {
        if let Some(item) = self.decode(buf)? {
            return Ok(Some(item));
        }
        self.next_index = 0;
        if self.discarding {
            self.discarding = false;
            buf.clear();
            return Ok(None);
        }
        if buf.is_empty() {
            return Ok(None);
        }
        let line = buf.split().freeze();
        Ok(Self::trim(line).map(Ok))
    }
}

/// Newline-delimited JSON-RPC: lines in, [`Incoming`] messages (or frame errors) out.
#[derive(Clone, Debug, Default)]
pub struct JsonRpcCodec {
    lines: LineCodec,
}

impl JsonRpcCodec {
    /// A codec that refuses messages longer than `max_message_size` bytes.
    pub fn new(max_message_size: usize) -> Self {
        JsonRpcCodec {
            lines: LineCodec::new(max_message_size),
        }
    }
}

impl Decoder for JsonRpcCodec {
    type Item = Result<Incoming, FrameError>;
    type Error = std::io::Error;

    fn decode(&mut self, buf: &mut BytesMut) -> Result<Option<Self::Item>, Self::Error> {
        Ok(self
            .lines
            .decode(buf)?
            .map(|line| Ok(jsonrpc::parse(&line?)?)))
    }

    fn decode_eof(&mut self, buf: &mut BytesMut) -> Result<Option<Self::Item>, Self::Error> {
        Ok(self
            .lines
            .decode_eof(buf)?
            .map(|line| Ok(jsonrpc::parse(&line?)?)))
    }
}

impl Encoder<&Message> for JsonRpcCodec {
    type Error = std::io::Error;

    fn encode(&mut self, item: &Message, dst: &mut BytesMut) -> Result<(), Self::Error> {
        encode_message_line(item, dst);
        Ok(())
    }
}

/// Appends `value` as one line of compact JSON to `dst`.
///
/// The line never contains a raw newline: raw JSON kept from a pretty-printed source may carry
/// newlines between tokens (never inside strings, where JSON forbids them), and those become
/// spaces.
pub fn encode_line<T: Serialize + ?Sized>(value: &T, dst: &mut BytesMut) -> std::io::Result<()> {
    let start = dst.len();
    serde_json::to_writer((&mut *dst).writer(), value)?;
    end_line(dst, start);
    Ok(())
}

/// Appends `message` as one line of compact JSON to `dst`, its raw payload copied as it is
/// (see [`encode_line`] for newlines).
pub fn encode_message_line(message: &Message, dst: &mut BytesMut) {
    let start = dst.len();
    message.write_json(dst);
    end_line(dst, start);
}

/// Appends `batch` as one line of compact JSON to `dst` (see [`encode_message_line`]).
pub fn encode_batch_line(batch: &[Message], dst: &mut BytesMut) {
    let start = dst.len();
    Batch(batch).write_json(dst);
    end_line(dst, start);
}

/// Turns any newline written since `start` into a space and ends the line.
fn end_line(dst: &mut BytesMut, start: usize) {
    // Searched with SIMD: almost every line has none, and a byte loop cost two instructions a
    // byte on every message.
    let mut at = start;
    while let Some(found) = memchr::memchr2(b'\n', b'\r', &dst[at..]) {
        dst[at + found] = b' ';
        at += found + 1;
    }
    dst.put_u8(b'\n');
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::jsonrpc::RequestId;

    fn decode_all(codec: &mut JsonRpcCodec, chunks: &[&[u8]]) -> Vec<Result<String, String>> {
        let mut buf = BytesMut::new();
        let mut out = Vec::new();
        let mut push = |item: Result<Incoming, FrameError>| {
            out.push(match item {
                Ok(Incoming::Single(m)) => Ok(m.to_json()),
                Ok(Incoming::Batch(b)) => Ok(format!("batch of {}", b.len())),
                Err(e) => Err(e.to_string()),
            })
        };
        for chunk in chunks {
            buf.extend_from_slice(chunk);
            while let Some(item) = codec.decode(&mut buf).unwrap() {
                push(item);
            }
        }
        while let Some(item) = codec.decode_eof(&mut buf).unwrap() {
            push(item);
        }
        out
    }

    const STREAM: &str = concat!(
        "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"w\",\"arguments\":{\"city\":\"\u{6df1}\u{5733}\"}}}\n",
        "\r\n",
        "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\r\n",
        "\n",
        "   \n",
        "{\"jsonrpc\":\"2.0\",\"id\":\"s\",\"result\":{\"content\":[]}}\n",
        "not json\n",
        "[{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\"}]\n",
        "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"ping\"}"
    );

    #[test]
    fn split_at_every_byte_boundary_decodes_identically() {
        let bytes = STREAM.as_bytes();
        let whole = decode_all(&mut JsonRpcCodec::default(), &[bytes]);
        assert_eq!(whole.len(), 6, "{whole:?}");
        assert!(whole[3].is_err());
        for cut in 0..=bytes.len() {
            let (a, b) = bytes.split_at(cut);
            assert_eq!(
                decode_all(&mut JsonRpcCodec::default(), &[a, b]),
                whole,
                "cut at {cut}"
            );
        }
        let singles: Vec<&[u8]> = bytes.chunks(1).collect();
        assert_eq!(decode_all(&mut JsonRpcCodec::default(), &singles), whole);
    }

    #[test]
    fn many_messages_in_one_read() {
        let mut text = String::new();
        for i in 0..500 {
            text.push_str(&format!(
                "{{\"jsonrpc\":\"2.0\",\"id\":{i},\"method\":\"ping\"}}\n"
            ));
        }
        let out = decode_all(&mut JsonRpcCodec::default(), &[text.as_bytes()]);
        assert_eq!(out.len(), 500);
        assert!(out.iter().all(|r| r.is_ok()));
    }

    #[test]
    fn over_long_line_is_skipped_and_next_message_decodes() {
        let long = format!(
            "{{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"x\",\"params\":{{\"a\":\"{}\"}}}}\n",
            "y".repeat(300)
        );
        let next = "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\"}\n";
        // Whole, in one read, and in small reads (the long line is never buffered whole).
        for chunk in [1usize, 7, 64, 10_000] {
            let stream = format!("{long}{next}");
            let chunks: Vec<&[u8]> = stream.as_bytes().chunks(chunk).collect();
            let mut codec = JsonRpcCodec::new(100);
            let out = decode_all(&mut codec, &chunks);
            assert_eq!(out.len(), 2, "chunk {chunk}: {out:?}");
            assert!(out[0].as_ref().unwrap_err().contains("maximum size of 100"));
            assert!(out[1].as_ref().unwrap().contains("\"id\":2"));
        }
    }

    #[test]
    fn over_long_line_does_not_grow_the_buffer() {
        let mut codec = LineCodec::new(1000);
        let mut buf = BytesMut::new();
        let mut errors = 0;
        for _ in 0..1000 {
            buf.extend_from_slice(&[b'a'; 512]);
            while let Some(item) = codec.decode(&mut buf).unwrap() {
                assert!(item.is_err());
                errors += 1;
            }
            assert!(buf.len() <= 1512);
        }
        assert_eq!(errors, 1);
        buf.extend_from_slice(b"tail\n{}\n");
        let item = codec.decode(&mut buf).unwrap().unwrap().unwrap();
        assert_eq!(&item[..], b"{}");
    }

    #[test]
    fn invalid_utf8_is_an_error_item_and_stream_goes_on() {
        let mut stream = b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"\xff\xfe\"}\n".to_vec();
        stream.extend_from_slice(b"\xc3\x28\n");
        stream.extend_from_slice(b"{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\"}\n");
        let out = decode_all(&mut JsonRpcCodec::default(), &[&stream]);
        assert_eq!(out.len(), 3, "{out:?}");
        assert!(out[0].is_err() && out[1].is_err());
        assert!(out[2].as_ref().unwrap().contains("\"id\":2"));
    }

    #[test]
    fn crlf_accepted() {
        let out = decode_all(
            &mut JsonRpcCodec::default(),
            &[b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\r\n\r\n"],
        );
        assert_eq!(
            out,
            vec![Ok(
                "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}".to_owned()
            )]
        );
    }

    #[test]
    fn encoded_messages_never_contain_a_raw_newline() {
        let pretty = "{\n  \"jsonrpc\": \"2.0\",\n  \"id\": 1,\n  \"method\": \"m\",\n  \"params\": {\n    \"text\": \"a\\nb\"\r\n  }\n}";
        let Incoming::Single(message) = jsonrpc::parse(pretty.as_bytes()).unwrap() else {
            panic!()
        };
        let mut dst = BytesMut::new();
        JsonRpcCodec::default().encode(&message, &mut dst).unwrap();
        let line = &dst[..dst.len() - 1];
        assert!(!line.contains(&b'\n') && !line.contains(&b'\r'));
        assert_eq!(dst.last(), Some(&b'\n'));
        let Incoming::Single(back) = jsonrpc::parse(line).unwrap() else {
            panic!()
        };
        assert_eq!(back.id(), Some(&RequestId::Number(1)));
        let Message::Request(r) = back else { panic!() };
        let params: serde_json::Value = r.params_as().unwrap();
        assert_eq!(params["text"], "a\nb");
    }

    mod properties {
        use super::*;
        use proptest::prelude::*;

        fn arb_id() -> impl Strategy<Value = RequestId> {
            prop_oneof![
                any::<i64>().prop_map(RequestId::Number),
                ".{0,12}".prop_map(RequestId::from)
            ]
        }

        fn arb_json() -> impl Strategy<Value = serde_json::Value> {
            let leaf = prop_oneof![
                Just(serde_json::Value::Null),
                any::<bool>().prop_map(serde_json::Value::from),
                any::<i32>().prop_map(serde_json::Value::from),
                ".{0,16}".prop_map(serde_json::Value::from),
            ];
            leaf.prop_recursive(3, 24, 4, |inner| {
                prop_oneof![
                    prop::collection::vec(inner.clone(), 0..4).prop_map(serde_json::Value::from),
                    prop::collection::btree_map(".{0,6}", inner, 0..4)
                        .prop_map(|m| serde_json::Value::Object(m.into_iter().collect())),
                ]
            })
        }

        fn arb_message() -> impl Strategy<Value = Message> {
            let params = || {
                prop::collection::btree_map("[a-z_]{1,6}", arb_json(), 0..4).prop_map(|m| {
                    jsonrpc::to_raw(&m.into_iter().collect::<serde_json::Map<_, _>>()).unwrap()
                })
            };
            prop_oneof![
                (arb_id(), "[a-z/]{1,20}", params()).prop_map(|(id, method, p)| {
                    Message::Request(jsonrpc::Request {
                        id,
                        method,
                        params: Some(p),
                    })
                }),
                ("[a-z/]{1,20}", params()).prop_map(|(method, p)| {
                    Message::Notification(jsonrpc::Notification {
                        method,
                        params: Some(p),
                    })
                }),
                (arb_id(), params())
                    .prop_map(|(id, result)| Message::Response(jsonrpc::Response { id, result })),
                (prop::option::of(arb_id()), any::<i32>(), ".{0,20}").prop_map(
                    |(id, code, msg)| {
                        Message::error(id, jsonrpc::ErrorObject::new(code.into(), msg))
                    }
                ),
            ]
        }

        proptest! {
            #[test]
            fn random_valid_messages_round_trip(messages in prop::collection::vec(arb_message(), 1..8), cut in 0usize..4096) {
                let mut dst = BytesMut::new();
                let mut codec = JsonRpcCodec::default();
                for m in &messages {
                    codec.encode(m, &mut dst).unwrap();
                }
                let bytes = dst.to_vec();
                let cut = cut.min(bytes.len());
                let (a, b) = bytes.split_at(cut);
                let out = decode_all(&mut JsonRpcCodec::default(), &[a, b]);
                let expected: Vec<Result<String, String>> = messages.iter().map(|m| Ok(m.to_json())).collect();
                prop_assert_eq!(out, expected);
            }

            #[test]
            fn random_bytes_never_panic(chunks in prop::collection::vec(prop::collection::vec(any::<u8>(), 0..64), 0..16)) {
                let refs: Vec<&[u8]> = chunks.iter().map(|c| c.as_slice()).collect();
                let _ = decode_all(&mut JsonRpcCodec::new(40), &refs);
            }
        }
    }
}
