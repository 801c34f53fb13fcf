//! The NDJSON codec against a plain split of the same bytes into lines.

use bytes::BytesMut;
use mcp_proto::codec::{encode_line, FrameError, JsonRpcCodec};
use mcp_proto::jsonrpc::{self, Incoming};
use tokio_util::codec::Decoder;

use crate::Input;

/// What one decoded item looks like, comparable across the codec and the reference.
fn summary(item: &Result<Incoming, FrameError>) -> String {
    format!("{item:?}")
}

/// The items a stream must decode to: each line (LF-terminated, or the unterminated tail) longer
/// than `max` bytes before its LF is one `TooLong`; else trailing CRs and LFs are cut, blank
/// lines dropped, and the rest parsed.
fn reference(stream: &[u8], max: usize) -> Vec<String> {
    let mut out = Vec::new();
    let mut lines: Vec<&[u8]> = stream.split(|&b| b == b'\n').collect();
    if lines.last().is_some_and(|l| l.is_empty()) {
        lines.pop();
    }
    for line in lines {
        if line.len() > max {
            out.push(summary(&Err(FrameError::TooLong { limit: max })));
            continue;
        }
        let end = line.iter().rposition(|&b| b != b'\r').map_or(0, |i| i + 1);
        let line = &line[..end];
        if line.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        out.push(summary(&jsonrpc::parse(line).map_err(FrameError::from)));
    }
    out
}

/// Decodes `data` (a limit byte, a chunking byte, then the stream) fed in chunks, and checks that
/// the items equal the reference split whatever the chunking; that the buffer never holds more
/// than the limit between calls; and that every message re-encodes to one line that decodes to
/// the same message.
pub fn check_codec(data: &[u8]) {
    let mut input = Input::new(data);
    let max = match input.byte() {
        0 => mcp_proto::codec::DEFAULT_MAX_MESSAGE_SIZE,
        b => usize::from(b),
    };
    let chunking = input.byte();
    let stream = input.rest();

    let mut codec = JsonRpcCodec::new(max);
    let mut buf = BytesMut::new();
    let mut got = Vec::new();
    let mut messages = Vec::new();
    let mut take = |item: Result<Incoming, FrameError>| {
        got.push(summary(&item));
        if let Ok(Incoming::Single(m)) = item {
            messages.push(m);
        }
    };
    for chunk in crate::chunks(stream, chunking) {
        buf.extend_from_slice(chunk);
        while let Some(item) = codec.decode(&mut buf).expect("decode never fails") {
            take(item);
        }
        assert!(
            buf.len() <= max,
            "{} bytes buffered with a limit of {max}",
            buf.len()
        );
    }
    while let Some(item) = codec.decode_eof(&mut buf).expect("decode_eof never fails") {
        take(item);
    }
    let expected = reference(stream, max);
    assert_eq!(
        got,
        expected,
        "decoding {:?} with a limit of {max}",
        String::from_utf8_lossy(stream)
    );

    for m in messages {
        let mut line = BytesMut::new();
        encode_line(&m, &mut line).expect("encoding into memory never fails");
        let newline = line.iter().position(|&b| b == b'\n' || b == b'\r');
        assert_eq!(newline, Some(line.len() - 1), "one line: {line:?}");
        let mut codec = JsonRpcCodec::default();
        match codec.decode(&mut line) {
            // Raw JSON kept from the input may hold CR or LF between tokens; the line has
            // spaces there (JSON strings cannot hold them raw, so nothing else changes).
            Ok(Some(Ok(Incoming::Single(again)))) => {
                assert_eq!(again.to_json(), m.to_json().replace(['\r', '\n'], " "))
            }
            other => panic!("{m:?} encoded as a line that decodes as {other:?}"),
        }
    }
}
