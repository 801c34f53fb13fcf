//! The SSE parser against a whole-stream reading of the WHATWG rules, and the writer against the
//! parser.

use bytes::BytesMut;
use mcp_proto::sse::{self, SseError, SseEvent, SseParser, DEFAULT_MAX_EVENT_SIZE};

use crate::Input;

type Item = Result<SseEvent, SseError>;

/// What a parser reports after the whole stream: the items, the last event id and the retry.
#[derive(Debug, PartialEq)]
struct Outcome {
    items: Vec<Item>,
    last_event_id: Option<String>,
    retry: Option<u64>,
}

/// The stream read whole: lines end at CR, LF or CRLF; a leading BOM is dropped; an unterminated
/// last line is never interpreted (it only counts against the limit); an event's size is the sum
/// of its field lines' lengths, comments excluded.
fn reference(stream: &[u8], max: usize) -> Outcome {
    const BOM: &[u8] = b"\xEF\xBB\xBF";
    let mut out = Outcome {
        items: Vec::new(),
        last_event_id: None,
        retry: None,
    };
    if BOM.starts_with(stream) {
        return out; // a BOM or a part of one: nothing yet
    }
    let stream = stream.strip_prefix(BOM).unwrap_or(stream);
    let (mut event, mut data, mut id, mut retry) = (String::new(), String::new(), None, None);
    let (mut size, mut skipping) = (0usize, false);
    let (mut id_buffer, mut last_id) = (String::new(), String::new());
    let mut rest = stream;
    loop {
        let Some(end) = rest.iter().position(|&b| b == b'\n' || b == b'\r') else {
            // The unterminated tail: it overflows now if it already would as a whole line.
            let ignored = rest.is_empty() || skipping || rest[0] == b':';
            if !ignored && size.saturating_add(rest.len()) > max {
                out.items.push(Err(SseError::EventTooLarge { limit: max }));
            }
            break;
        };
        let line = &rest[..end];
        let terminator = if rest[end] == b'\r' && rest.get(end + 1) == Some(&b'\n') {
            2
        } else {
            1
        };
        rest = &rest[end + terminator..];
        if line.is_empty() {
            if std::mem::take(&mut skipping) {
            } else {
                last_id.clone_from(&id_buffer);
                if !data.is_empty() {
                    data.pop();
                    out.items.push(Ok(SseEvent {
                        event: Some(std::mem::take(&mut event)).filter(|e| !e.is_empty()),
                        data: std::mem::take(&mut data),
                        id: id.take(),
                        retry: retry.take(),
                    }));
                }
            }
            (event, data, id, retry, size) = (String::new(), String::new(), None, None, 0);
            continue;
        }
        if skipping || line[0] == b':' {
            continue;
        }
        if size.saturating_add(line.len()) > max {
            out.items.push(Err(SseError::EventTooLarge { limit: max }));
            (event, data, id, retry, size) = (String::new(), String::new(), None, None, 0);
            skipping = true;
            id_buffer.clone_from(&last_id);
            continue;
        }
        size += line.len();
        let (name, value) = match line.iter().position(|&b| b == b':') {
            Some(colon) => {
                let value = &line[colon + 1..];
                (&line[..colon], value.strip_prefix(b" ").unwrap_or(value))
            }
            None => (line, &[][..]),
        };
        let text = String::from_utf8_lossy(value).into_owned();
        match name {
            b"event" => event = text,
            b"data" => {
                data.push_str(&text);
                data.push('\n');
            }
            b"id" if !value.contains(&0) => {
                id_buffer.clone_from(&text);
                id = Some(text);
            }
            b"retry" if !value.is_empty() && value.iter().all(u8::is_ascii_digit) => {
                if let Ok(ms) = text.parse::<u64>() {
                    out.retry = Some(ms);
                    retry = Some(ms);
                }
            }
            _ => {}
        }
    }
    out.last_event_id = Some(last_id).filter(|id| !id.is_empty());
    out
}

/// Feeds the stream (after a limit byte and a chunking byte) in chunks and checks the parser
/// against [`reference`]; then writes events made from the input and checks they read back.
pub fn check_sse(data: &[u8]) {
    let mut input = Input::new(data);
    let max = match input.byte() {
        0 => DEFAULT_MAX_EVENT_SIZE,
        b => usize::from(b),
    };
    let chunking = input.byte();
    let stream = input.rest();

    let mut parser = SseParser::with_max_event_size(max);
    let mut items = Vec::new();
    for chunk in crate::chunks(stream, chunking) {
        parser.feed(chunk);
        items.extend(std::iter::from_fn(|| parser.next_event()));
    }
    let got = Outcome {
        items,
        last_event_id: parser.last_event_id().map(str::to_owned),
        retry: parser.retry(),
    };
    let expected = reference(stream, max);
    assert_eq!(
        got,
        expected,
        "parsing {:?} with a limit of {max}",
        String::from_utf8_lossy(stream)
    );

    write_and_read_back(&String::from_utf8_lossy(stream));
}

/// Splits `text` at `\u{1}` into an event name, an id, a retry and data, writes that event and
/// parses it back.
fn write_and_read_back(text: &str) {
    let mut fields = text.splitn(4, '\u{1}');
    let event = fields.next().filter(|e| !e.is_empty());
    let id = fields.next();
    let retry = fields.next().and_then(|r| r.parse::<u64>().ok());
    let data = fields.next().unwrap_or_default();
    let sent = SseEvent {
        event: event.map(str::to_owned),
        data: data.to_owned(),
        id: id.map(str::to_owned),
        retry,
    };
    let mut wire = BytesMut::new();
    if let Err(e) = sent.write_to(&mut wire) {
        let refused = event.is_some_and(|e| e.contains(['\r', '\n']))
            || id.is_some_and(|i| i.contains(['\r', '\n', '\0']));
        assert!(refused, "write refused {sent:?}: {e}");
        assert!(wire.is_empty(), "a refused event wrote {wire:?}");
        return;
    }
    let mut parser = SseParser::new();
    parser.feed(&wire);
    let items: Vec<Item> = std::iter::from_fn(|| parser.next_event()).collect();
    let expected = SseEvent {
        data: data.replace("\r\n", "\n").replace('\r', "\n"),
        ..sent.clone()
    };
    assert_eq!(items, vec![Ok(expected)], "wrote {sent:?} as {wire:?}");

    // A comment carries nothing, whatever its text; a retry block sets the retry only.
    let mut wire = BytesMut::new();
    sse::write_comment(&mut wire, text);
    sse::write_retry(&mut wire, 5);
    let mut parser = SseParser::new();
    parser.feed(&wire);
    let items: Vec<Item> = std::iter::from_fn(|| parser.next_event()).collect();
    assert!(
        items.is_empty(),
        "comment {text:?} written as {wire:?} gave {items:?}"
    );
    assert_eq!(parser.retry(), Some(5), "retry after the comment {wire:?}");
}
