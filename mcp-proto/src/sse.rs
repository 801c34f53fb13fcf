//! Server-Sent Events: the parser and writer both HTTP transports share.
//!
//! [`SseParser`] interprets an `text/event-stream` body by the WHATWG HTML rules: it is fed byte
//! chunks of any size with [`SseParser::feed`] and hands out [`SseEvent`]s from
//! [`SseParser::next_event`]. Lines end in LF, CR or CRLF (a CRLF may be split across chunks), a
//! leading UTF-8 BOM is skipped, comments are ignored, invalid UTF-8 is replaced lossily. It never
//! searches a byte twice for a line end and it is bounded: an event larger than the configured
//! maximum is reported as [`SseError::EventTooLarge`] and skipped, and the stream goes on.
//!
//! The writer functions ([`write_event`], [`write_priming`], [`write_retry`], [`write_comment`])
//! append one complete block, ending in a blank line, to a [`BytesMut`] or a
//! `Vec<u8>`, so blocks can be concatenated in any order.
//!
//! This module is SSE framing only: no HTTP, no JSON-RPC. An event's `data` is one frame.

use std::borrow::Cow;

use bytes::{Buf, BufMut, BytesMut};

/// The default [`SseParser`] bound on one event's size: 16 MiB.
pub const DEFAULT_MAX_EVENT_SIZE: usize = 16 * 1024 * 1024;

/// The UTF-8 byte order mark a stream may start with.
const BOM: &[u8] = b"\xEF\xBB\xBF";

/// One dispatched Server-Sent Event.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct SseEvent {
    /// The `event` field; `None` (or an empty field) means the default type `message`.
    pub event: Option<String>,
    /// The `data` lines joined with `\n`.
    pub data: String,
    /// The `id` field this event carried, if any; `Some("")` resets the last event id.
    ///
    /// An event without an `id` line has `None` here even though the stream's last event id
    /// persists: ask [`SseParser::last_event_id`] for the value to resume from.
    pub id: Option<String>,
    /// The `retry` field (reconnection time in milliseconds) this event carried, if valid.
    pub retry: Option<u64>,
}

impl SseEvent {
    /// An event of the default type carrying `data`, the shape MCP sends JSON-RPC messages in.
    pub fn message(data: impl Into<String>) -> Self {
        SseEvent {
            data: data.into(),
            ..SseEvent::default()
        }
    }

    /// The event type as a listener sees it: the `event` field, or `message` when absent.
    pub fn event_type(&self) -> &str {
        match self.event.as_deref() {
            None | Some("") => "message",
            Some(name) => name,
        }
    }

    /// Whether this is a `message` event, the only type MCP transports carry JSON-RPC in.
    pub fn is_message(&self) -> bool {
        self.event_type() == "message"
    }

    /// Appends this event (with its `retry` field, if any) in wire form; see [`write_event`].
    pub fn write_to(&self, out: &mut impl BufMut) -> Result<(), SseError> {
        write_block(
            out,
            self.event.as_deref(),
            self.id.as_deref(),
            self.retry,
            self.data.as_str(),
        )
    }
}

/// What can go wrong reading or writing an event stream.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum SseError {
    /// An incoming event's field lines exceeded the parser's maximum; the event was skipped.
    #[error("SSE event exceeds the maximum size of {limit} bytes; skipped")]
    EventTooLarge {
        /// The parser's configured maximum event size in bytes.
        limit: usize,
    },
    /// An outgoing event name or id contains a character that would break the framing.
    #[error("SSE {field} must not contain {forbidden}")]
    InvalidField {
        /// The refused field: `event` or `id`.
        field: &'static str,
        /// The characters that field may not contain.
        forbidden: &'static str,
    },
}

/// A streaming, bounded `text/event-stream` parser.
///
/// Feed it chunks with [`feed`](Self::feed), then call [`next_event`](Self::next_event) until it
/// returns `None` before feeding more: bytes wait in the buffer only until `next_event` has looked
/// at them, which is what keeps the buffer within the event size bound.
///
/// The size of an event is the sum of the lengths of its field lines (name, colon and value, line
/// ends excluded); comment lines do not count and are never buffered whole. An event over the
/// maximum yields one [`SseError::EventTooLarge`] as soon as it is seen, then every line up to the
/// next blank line is dropped; the skipped event's `id` is not remembered (a `retry` it carried
/// before the limit was reached stays in effect).
#[derive(Debug)]
pub struct SseParser {
    /// Bytes received but not yet consumed; always starts at the beginning of a line.
    buf: BytesMut,
    /// How far into `buf` we have already searched for a line end.
    scan: usize,
    /// Whether the start of the stream has been checked for a byte order mark.
    bom_checked: bool,
    /// The last line ended with a CR at the end of the buffer: drop an LF that comes next.
    skip_lf: bool,
    /// The head of the current line was dropped (a comment or a skipped event): drop the rest.
    discarding_line: bool,
    /// The largest event accepted, in bytes.
    max_event_size: usize,
    /// The event under construction and the stream-wide state.
    state: EventState,
}

/// The event being assembled plus what persists between events.
#[derive(Debug, Default)]
struct EventState {
    /// The event type buffer.
    event_type: String,
    /// The data buffer: every `data` value followed by `\n`.
    data: String,
    /// The `id` this event carried.
    event_id: Option<String>,
    /// The `retry` this event carried.
    event_retry: Option<u64>,
    /// Bytes of field lines in this event so far.
    size: usize,
    /// The current event overflowed: ignore lines until the next blank line.
    skipping: bool,
    /// The last event id buffer, set by `id` lines.
    id_buffer: String,
    /// The last event id string, committed from the buffer at each blank line.
    last_event_id: String,
    /// The stream's reconnection time, set by `retry` lines.
    reconnection_time: Option<u64>,
}

impl Default for SseParser {
    fn default() -> Self {
        Self::new()
    }
}

impl SseParser {
    /// A parser with the default maximum event size ([`DEFAULT_MAX_EVENT_SIZE`]).
    pub fn new() -> Self {
        Self::with_max_event_size(DEFAULT_MAX_EVENT_SIZE)
    }

    /// A parser refusing events whose field lines add up to more than `limit` bytes.
    pub fn with_max_event_size(limit: usize) -> Self {
        SseParser {
            buf: BytesMut::new(),
            scan: 0,
            bom_checked: false,
            skip_lf: false,
            discarding_line: false,
            max_event_size: limit,
            state: EventState::default(),
        }
    }

    /// The largest event this parser accepts, in bytes.
    pub fn max_event_size(&self) -> usize {
        self.max_event_size
    }

    /// The id to resume from (the `Last-Event-ID` header), or `None` if none was set or it was reset.
    ///
    /// Per the spec it persists across events and is committed when an event ends (blank line),
    /// whether or not that event had data.
    pub fn last_event_id(&self) -> Option<&str> {
        Some(self.state.last_event_id.as_str()).filter(|id| !id.is_empty())
    }

    /// The reconnection time in milliseconds from the latest valid `retry` field, if any.
    pub fn retry(&self) -> Option<u64> {
        self.state.reconnection_time
    }

    /// Appends a chunk of the stream; call [`next_event`](Self::next_event) until `None` next.
    pub fn feed(&mut self, chunk: &[u8]) {
        self.buf.extend_from_slice(chunk);
    }

    /// Starts over for a new connection: drops buffered bytes and any half-received event, keeps
    /// the last event id and the retry time, and accepts a byte order mark again.
    pub fn reset_stream(&mut self) {
        self.buf.clear();
        self.scan = 0;
        self.bom_checked = false;
        self.skip_lf = false;
        self.discarding_line = false;
        self.state.clear_event();
        self.state.skipping = false;
        self.state.id_buffer.clone_from(&self.state.last_event_id);
    }

    /// The next complete event or error from the bytes fed so far, or `None` if more are needed.
    pub fn next_event(&mut self) -> Option<Result<SseEvent, SseError>> {
        loop {
            if !self.bom_checked {
                let n = self.buf.len().min(BOM.len());
                if self.buf[..n] != BOM[..n] {
                    self.bom_checked = true;
                } else if n == BOM.len() {
                    self.buf.advance(n);
                    self.bom_checked = true;
                } else {
                    // Empty, or a prefix of the BOM: wait to see the rest.
                    return None;
                }
            }
            if self.skip_lf {
                let &first = self.buf.first()?;
                if first == b'\n' {
                    self.buf.advance(1);
                }
                self.skip_lf = false;
            }
            let Some(offset) = self.buf[self.scan..]
                .iter()
                .position(|&b| b == b'\n' || b == b'\r')
            else {
                return self.hold_partial_line();
            };
            let end = self.scan + offset;
            let terminator = if self.buf[end] == b'\r' {
                match self.buf.get(end + 1) {
                    Some(b'\n') => 2,
                    Some(_) => 1,
                    None => {
                        self.skip_lf = true;
                        1
                    }
                }
            } else {
                1
            };
            let item = if std::mem::take(&mut self.discarding_line) {
                None
            } else {
                self.state.line(&self.buf[..end], self.max_event_size)
            };
            self.buf.advance(end + terminator);
            self.scan = 0;
            if item.is_some() {
                return item;
            }
        }
    }

    /// Keeps an unterminated line for later, dropping it instead when it is ignored anyway or
    /// when it would take the event over the limit.
    fn hold_partial_line(&mut self) -> Option<Result<SseEvent, SseError>> {
        if self.buf.is_empty() {
            self.scan = 0;
            return None;
        }
        let ignored = self.discarding_line || self.state.skipping || self.buf[0] == b':';
        if ignored || self.state.size.saturating_add(self.buf.len()) > self.max_event_size {
            self.buf.clear();
            self.scan = 0;
            self.discarding_line = true;
            if ignored {
                return None;
            }
            return Some(Err(self.state.overflow(self.max_event_size)));
        }
        self.scan = self.buf.len();
        None
    }
}

impl EventState {
    /// Interprets one line (without its line end).
    fn line(&mut self, line: &[u8], max: usize) -> Option<Result<SseEvent, SseError>> {
        if line.is_empty() {
            return self.dispatch().map(Ok);
        }
        if self.skipping || line[0] == b':' {
            return None;
        }
        if self.size.saturating_add(line.len()) > max {
            return Some(Err(self.overflow(max)));
        }
        self.size += line.len();
        let (name, value) = match line.iter().position(|&b| b == b':') {
            Some(colon) => {
                let value = &line[colon + 1..];
                (&line[..colon], value.strip_prefix(b" ").unwrap_or(value))
            }
            None => (line, &[][..]),
        };
        match name {
            b"event" => {
                self.event_type.clear();
                self.event_type.push_str(&lossy(value));
            }
            b"data" => {
                self.data.push_str(&lossy(value));
                self.data.push('\n');
            }
            // An id containing NUL is ignored, as the spec says.
            b"id" if !value.contains(&0) => {
                let id = lossy(value).into_owned();
                self.id_buffer.clone_from(&id);
                self.event_id = Some(id);
            }
            b"retry" => {
                if let Some(millis) = parse_retry(value) {
                    self.reconnection_time = Some(millis);
                    self.event_retry = Some(millis);
                }
            }
            _ => {}
        }
        None
    }

    /// Ends the current event at a blank line, returning it unless its data buffer is empty.
    fn dispatch(&mut self) -> Option<SseEvent> {
        if std::mem::take(&mut self.skipping) {
            self.clear_event();
            return None;
        }
        self.last_event_id.clone_from(&self.id_buffer);
        if self.data.is_empty() {
            self.clear_event();
            return None;
        }
        self.data.pop();
        let event = SseEvent {
            event: Some(std::mem::take(&mut self.event_type)).filter(|name| !name.is_empty()),
            data: std::mem::take(&mut self.data),
            id: self.event_id.take(),
            retry: self.event_retry.take(),
        };
        self.clear_event();
        Some(event)
    }

    /// Starts skipping the current event, forgetting what it set so far.
    fn overflow(&mut self, limit: usize) -> SseError {
        self.clear_event();
        self.skipping = true;
        self.id_buffer.clone_from(&self.last_event_id);
        SseError::EventTooLarge { limit }
    }

    /// Empties the per-event buffers.
    fn clear_event(&mut self) {
        self.event_type.clear();
        self.data.clear();
        self.event_id = None;
        self.event_retry = None;
        self.size = 0;
    }
}

/// Decodes field bytes as UTF-8, replacing invalid sequences.
fn lossy(bytes: &[u8]) -> Cow<'_, str> {
    String::from_utf8_lossy(bytes)
}

/// A `retry` value: ASCII digits only (and fitting in a `u64`), else `None`.
fn parse_retry(value: &[u8]) -> Option<u64> {
    if value.is_empty() || !value.iter().all(u8::is_ascii_digit) {
        return None;
    }
    value.iter().try_fold(0u64, |acc, &digit| {
        acc.checked_mul(10)?.checked_add(u64::from(digit - b'0'))
    })
}

/// Appends one event: `event` (omitted when `None` or empty), `id`, then one `data` line per line
/// of `data`, and a blank line.
///
/// CR, LF and CRLF in `data` all split lines, so the receiver sees them as `\n`. An event name
/// containing CR or LF, or an id containing CR, LF or NUL, is refused with
/// [`SseError::InvalidField`] and nothing is written: a line break would corrupt the framing and a
/// receiver ignores an id with NUL, which would silently break resumption.
pub fn write_event(
    out: &mut impl BufMut,
    event: Option<&str>,
    id: Option<&str>,
    data: &str,
) -> Result<(), SseError> {
    write_block(out, event, id, None, data)
}

/// Appends a priming event, `id: X\ndata:\n\n`: an id with empty data, which MCP 2025-11-25
/// Streamable HTTP sends first so the client has an id to resume from.
pub fn write_priming(out: &mut impl BufMut, id: &str) -> Result<(), SseError> {
    write_block(out, None, Some(id), None, "")
}

/// Appends `retry: MILLIS` and a blank line, telling the client how long to wait before reconnecting.
pub fn write_retry(out: &mut impl BufMut, millis: u64) {
    put_retry(out, millis);
    out.put_u8(b'\n');
}

/// Appends a comment block (`: text`, one comment line per line of `text`), used as a keep-alive.
pub fn write_comment(out: &mut impl BufMut, text: &str) {
    for line in Lines::new(text) {
        out.put_u8(b':');
        if !line.is_empty() {
            out.put_u8(b' ');
            out.put_slice(line.as_bytes());
        }
        out.put_u8(b'\n');
    }
    out.put_u8(b'\n');
}

/// Validates, then appends every field of one event and its closing blank line.
fn write_block(
    out: &mut impl BufMut,
    event: Option<&str>,
    id: Option<&str>,
    retry: Option<u64>,
    data: &str,
) -> Result<(), SseError> {
    if event.is_some_and(|name| name.contains(['\r', '\n'])) {
        return Err(SseError::InvalidField {
            field: "event",
            forbidden: "CR or LF",
        });
    }
    if id.is_some_and(|id| id.contains(['\r', '\n', '\0'])) {
        return Err(SseError::InvalidField {
            field: "id",
            forbidden: "CR, LF or NUL",
        });
    }
    if let Some(name) = event.filter(|name| !name.is_empty()) {
        put_field(out, b"event", name);
    }
    if let Some(id) = id {
        put_field(out, b"id", id);
    }
    if let Some(millis) = retry {
        put_retry(out, millis);
    }
    for line in Lines::new(data) {
        put_field(out, b"data", line);
    }
    out.put_u8(b'\n');
    Ok(())
}

/// Appends `name: value\n`, or `name:\n` for an empty value.
fn put_field(out: &mut impl BufMut, name: &[u8], value: &str) {
    out.put_slice(name);
    out.put_u8(b':');
    if !value.is_empty() {
        out.put_u8(b' ');
        out.put_slice(value.as_bytes());
    }
    out.put_u8(b'\n');
}

/// Appends `retry: MILLIS\n` without allocating.
fn put_retry(out: &mut impl BufMut, millis: u64) {
    let mut digits = [0u8; 20];
    let mut start = digits.len();
    let mut rest = millis;
    loop {
        start -= 1;
        // `rest % 10` is below 10, so the cast cannot truncate.
        digits[start] = b'0' + (rest % 10) as u8;
        rest /= 10;
        if rest == 0 {
            break;
        }
    }
    out.put_slice(b"retry: ");
    out.put_slice(&digits[start..]);
    out.put_u8(b'\n');
}

/// The lines of a text split at CR, LF or CRLF; an empty text is one empty line.
struct Lines<'a> {
    /// What is left to split, or `None` after the last line.
    rest: Option<&'a str>,
}

impl<'a> Lines<'a> {
    /// Splits `text`.
    fn new(text: &'a str) -> Self {
        Lines { rest: Some(text) }
    }
}

impl<'a> Iterator for Lines<'a> {
    type Item = &'a str;

    fn next(&mut self) -> Option<&'a str> {
        let rest = self.rest?;
        match rest.find(['\r', '\n']) {
            None => {
                self.rest = None;
                Some(rest)
            }
            Some(end) => {
                let next = if rest[end..].starts_with("\r\n") {
                    end + 2
                } else {
                    end + 1
                };
                self.rest = Some(&rest[next..]);
                Some(&rest[..end])
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    type Item = Result<SseEvent, SseError>;

    /// Drains every item the parser has ready.
    fn drain(parser: &mut SseParser) -> Vec<Item> {
        std::iter::from_fn(|| parser.next_event()).collect()
    }

    /// Parses `input` fed in the given chunks, with the given limit.
    fn parse_chunks<'a>(chunks: impl IntoIterator<Item = &'a [u8]>, limit: usize) -> Vec<Item> {
        let mut parser = SseParser::with_max_event_size(limit);
        let mut items = Vec::new();
        for chunk in chunks {
            parser.feed(chunk);
            items.extend(drain(&mut parser));
        }
        items
    }

    /// Parses `input` fed whole.
    fn parse(input: &[u8]) -> Vec<Item> {
        parse_chunks([input], DEFAULT_MAX_EVENT_SIZE)
    }

    /// Parses `input` fed one byte at a time.
    fn parse_bytewise(input: &[u8], limit: usize) -> Vec<Item> {
        parse_chunks(input.chunks(1), limit)
    }

    /// Parses `input` whole, expecting no errors.
    fn events(input: &[u8]) -> Vec<SseEvent> {
        parse(input)
            .into_iter()
            .map(|item| item.expect("unexpected parse error"))
            .collect()
    }

    /// An event with the given fields.
    fn ev(event: Option<&str>, data: &str, id: Option<&str>, retry: Option<u64>) -> SseEvent {
        SseEvent {
            event: event.map(str::to_owned),
            data: data.to_owned(),
            id: id.map(str::to_owned),
            retry,
        }
    }

    #[test]
    fn single_message_event() {
        assert_eq!(
            events(b"data: {\"jsonrpc\":\"2.0\"}\n\n"),
            [SseEvent::message("{\"jsonrpc\":\"2.0\"}")]
        );
    }

    #[test]
    fn event_id_retry_and_data_together() {
        assert_eq!(
            events(b"event: ping\nid: 7\nretry: 250\ndata: x\n\n"),
            [ev(Some("ping"), "x", Some("7"), Some(250))]
        );
    }

    #[test]
    fn multi_line_data_is_joined_with_lf() {
        assert_eq!(
            events(b"data: one\ndata: two\ndata:\ndata: four\n\n"),
            [SseEvent::message("one\ntwo\n\nfour")]
        );
    }

    #[test]
    fn cr_lf_and_crlf_all_end_lines() {
        let lf = events(b"data: a\ndata: b\n\nevent: e\ndata: c\n\n");
        let cr = events(b"data: a\rdata: b\r\revent: e\rdata: c\r\r");
        let crlf = events(b"data: a\r\ndata: b\r\n\r\nevent: e\r\ndata: c\r\n\r\n");
        let mixed = events(b"data: a\rdata: b\r\n\nevent: e\ndata: c\n\r");
        let expected = [SseEvent::message("a\nb"), ev(Some("e"), "c", None, None)];
        assert_eq!(lf, expected);
        assert_eq!(cr, expected);
        assert_eq!(crlf, expected);
        assert_eq!(mixed, expected);
    }

    #[test]
    fn crlf_split_across_chunks_is_one_line_end() {
        let mut parser = SseParser::new();
        parser.feed(b"data: a\r");
        assert_eq!(parser.next_event(), None);
        parser.feed(b"\ndata: b\n\n");
        assert_eq!(drain(&mut parser), [Ok(SseEvent::message("a\nb"))]);
    }

    #[test]
    fn cr_at_chunk_end_followed_by_other_byte() {
        let mut parser = SseParser::new();
        parser.feed(b"data: a\r");
        assert_eq!(parser.next_event(), None);
        parser.feed(b"data: b\r");
        assert_eq!(parser.next_event(), None);
        parser.feed(b"\r");
        assert_eq!(drain(&mut parser), [Ok(SseEvent::message("a\nb"))]);
    }

    #[test]
    fn cr_dispatches_without_waiting_for_next_byte() {
        let mut parser = SseParser::new();
        parser.feed(b"data: a\r\r");
        assert_eq!(parser.next_event(), Some(Ok(SseEvent::message("a"))));
    }

    #[test]
    fn leading_bom_is_skipped() {
        assert_eq!(events(b"\xEF\xBB\xBFdata: x\n\n"), [SseEvent::message("x")]);
        let split = parse_chunks(
            [&b"\xEF"[..], b"\xBB", b"\xBF", b"data: x\n\n"],
            DEFAULT_MAX_EVENT_SIZE,
        );
        assert_eq!(split, [Ok(SseEvent::message("x"))]);
    }

    #[test]
    fn bom_only_at_stream_start() {
        // A second BOM is part of the field name, so the field is unknown and ignored.
        assert_eq!(events(b"\xEF\xBB\xBF\xEF\xBB\xBFdata: x\n\n"), []);
        assert_eq!(
            events(b"data: a\n\n\xEF\xBB\xBFdata: b\n\ndata: c\n\n"),
            [SseEvent::message("a"), SseEvent::message("c")]
        );
        // A truncated BOM is just bytes.
        assert_eq!(
            events(b"\xEF\xBBdata: x\n\ndata: y\n\n"),
            [SseEvent::message("y")]
        );
    }

    #[test]
    fn comments_produce_no_events() {
        assert_eq!(events(b": keep-alive\n\n:\n\n: another\n"), []);
        assert_eq!(
            events(b": hello\ndata: a\n: in between\ndata: b\n\n"),
            [SseEvent::message("a\nb")]
        );
    }

    #[test]
    fn field_without_colon_has_empty_value() {
        assert_eq!(events(b"data\n\n"), [SseEvent::message("")]);
        assert_eq!(events(b"data\ndata\n\n"), [SseEvent::message("\n")]);
        assert_eq!(
            events(b"event: x\nevent\ndata: y\n\n"),
            [SseEvent::message("y")]
        );
        let mut parser = SseParser::new();
        parser.feed(b"id: 3\ndata: a\n\nid\ndata: b\n\n");
        assert_eq!(
            drain(&mut parser),
            [
                Ok(ev(None, "a", Some("3"), None)),
                Ok(ev(None, "b", Some(""), None))
            ]
        );
        assert_eq!(parser.last_event_id(), None);
    }

    #[test]
    fn only_one_space_after_colon_is_stripped() {
        assert_eq!(events(b"data:x\n\n"), [SseEvent::message("x")]);
        assert_eq!(events(b"data:  x\n\n"), [SseEvent::message(" x")]);
        assert_eq!(events(b"data: x \n\n"), [SseEvent::message("x ")]);
        assert_eq!(events(b"data:\tx\n\n"), [SseEvent::message("\tx")]);
        assert_eq!(events(b"data: a:b\n\n"), [SseEvent::message("a:b")]);
    }

    #[test]
    fn field_names_are_exact() {
        assert_eq!(events(b"Data: x\n\n"), []);
        assert_eq!(events(b"data : x\n\n"), []);
        assert_eq!(events(b"foo: x\ndata: y\n\n"), [SseEvent::message("y")]);
    }

    #[test]
    fn retry_digits_only() {
        let mut parser = SseParser::new();
        parser.feed(b"retry: 3000\n\n");
        assert_eq!(drain(&mut parser), []);
        assert_eq!(parser.retry(), Some(3000));
        for bad in [
            &b"retry: 30x0\n\n"[..],
            b"retry: -1\n\n",
            b"retry: 1.5\n\n",
            b"retry: \n\n",
            b"retry\n\n",
            b"retry:  5\n\n",
            b"retry: +5\n\n",
            b"retry: 99999999999999999999999\n\n",
        ] {
            parser.feed(bad);
            assert_eq!(drain(&mut parser), []);
            assert_eq!(parser.retry(), Some(3000), "{bad:?}");
        }
        parser.feed(b"retry:0\ndata: x\n\n");
        assert_eq!(drain(&mut parser), [Ok(ev(None, "x", None, Some(0)))]);
        assert_eq!(parser.retry(), Some(0));
        parser.feed(b"retry: 12x\ndata: y\n\n");
        assert_eq!(drain(&mut parser), [Ok(SseEvent::message("y"))]);
        assert_eq!(parser.retry(), Some(0));
    }

    #[test]
    fn last_event_id_persists_across_events() {
        let mut parser = SseParser::new();
        assert_eq!(parser.last_event_id(), None);
        parser.feed(b"id: 1\ndata: a\n\ndata: b\n\nid: 2\n\ndata: c\n\n");
        assert_eq!(
            drain(&mut parser),
            [
                Ok(ev(None, "a", Some("1"), None)),
                Ok(SseEvent::message("b")),
                Ok(SseEvent::message("c")),
            ]
        );
        assert_eq!(parser.last_event_id(), Some("2"));
        parser.feed(b"id:\n\n");
        assert_eq!(drain(&mut parser), []);
        assert_eq!(parser.last_event_id(), None);
    }

    #[test]
    fn last_event_id_is_committed_at_the_blank_line() {
        let mut parser = SseParser::new();
        parser.feed(b"id: 5\ndata: x\n");
        assert_eq!(drain(&mut parser), []);
        assert_eq!(parser.last_event_id(), None);
        parser.feed(b"\n");
        assert_eq!(drain(&mut parser), [Ok(ev(None, "x", Some("5"), None))]);
        assert_eq!(parser.last_event_id(), Some("5"));
    }

    #[test]
    fn id_with_nul_is_ignored() {
        let mut parser = SseParser::new();
        parser.feed(b"id: good\ndata: a\n\nid: b\0d\ndata: b\n\n");
        assert_eq!(
            drain(&mut parser),
            [
                Ok(ev(None, "a", Some("good"), None)),
                Ok(SseEvent::message("b"))
            ]
        );
        assert_eq!(parser.last_event_id(), Some("good"));
    }

    #[test]
    fn empty_data_buffer_is_not_dispatched() {
        let mut parser = SseParser::new();
        parser.feed(b"event: x\nid: 9\nretry: 100\n\n\n\n");
        assert_eq!(drain(&mut parser), []);
        assert_eq!(parser.last_event_id(), Some("9"));
        assert_eq!(parser.retry(), Some(100));
        // The event type of the undispatched event does not leak into the next.
        parser.feed(b"data: y\n\n");
        assert_eq!(drain(&mut parser), [Ok(SseEvent::message("y"))]);
    }

    #[test]
    fn priming_event_is_dispatched_with_empty_data() {
        let mut parser = SseParser::new();
        parser.feed(b"id: X\ndata:\n\n");
        assert_eq!(drain(&mut parser), [Ok(ev(None, "", Some("X"), None))]);
        assert_eq!(parser.last_event_id(), Some("X"));
    }

    #[test]
    fn unterminated_event_at_end_is_not_dispatched() {
        assert_eq!(events(b"data: a\n"), []);
        assert_eq!(events(b"data: a"), []);
    }

    #[test]
    fn invalid_utf8_is_replaced() {
        assert_eq!(
            events(b"event: \xFFx\ndata: a\xC3\ndata: \xE2\x82\n\n"),
            [ev(Some("\u{FFFD}x"), "a\u{FFFD}\n\u{FFFD}", None, None)]
        );
    }

    #[test]
    fn oversized_event_is_skipped_and_the_next_parsed() {
        let input = b"data: 0123456789abcdef\nid: x\n\ndata: ok\n\n";
        for items in [parse_chunks([&input[..]], 16), parse_bytewise(input, 16)] {
            assert_eq!(
                items,
                [
                    Err(SseError::EventTooLarge { limit: 16 }),
                    Ok(SseEvent::message("ok"))
                ]
            );
        }
        let mut parser = SseParser::with_max_event_size(16);
        parser.feed(b"id: 1\ndata: a\n\nid: 2\ndata: 0123456789abcdef\n\ndata: b\n\n");
        assert_eq!(
            drain(&mut parser),
            [
                Ok(ev(None, "a", Some("1"), None)),
                Err(SseError::EventTooLarge { limit: 16 }),
                Ok(SseEvent::message("b")),
            ]
        );
        // The skipped event's id is not remembered.
        assert_eq!(parser.last_event_id(), Some("1"));
    }

    #[test]
    fn many_small_lines_add_up() {
        // Each line is 7 bytes; the third takes the event to 21 > 20.
        let items = parse_chunks(
            [&b"data: a\ndata: b\ndata: c\ndata: d\n\ndata: e\n\n"[..]],
            20,
        );
        assert_eq!(
            items,
            [
                Err(SseError::EventTooLarge { limit: 20 }),
                Ok(SseEvent::message("e"))
            ]
        );
        // Exactly at the limit is fine.
        assert_eq!(
            parse_chunks([&b"data: a\ndata: b\n\n"[..]], 14),
            [Ok(SseEvent::message("a\nb"))]
        );
    }

    #[test]
    fn unterminated_long_line_is_reported_early_and_not_buffered() {
        let mut parser = SseParser::with_max_event_size(64);
        parser.feed(b"data: ");
        assert_eq!(parser.next_event(), None);
        let mut reported = 0;
        for _ in 0..1000 {
            parser.feed(&[b'x'; 100]);
            while let Some(item) = parser.next_event() {
                assert_eq!(item, Err(SseError::EventTooLarge { limit: 64 }));
                reported += 1;
            }
            assert!(parser.buf.len() <= 64);
        }
        assert_eq!(reported, 1);
        parser.feed(b"\nid: 3\ndata: still skipped\n\ndata: next\n\n");
        assert_eq!(drain(&mut parser), [Ok(SseEvent::message("next"))]);
        assert_eq!(parser.last_event_id(), None);
    }

    #[test]
    fn long_comments_are_neither_counted_nor_buffered() {
        let mut parser = SseParser::with_max_event_size(16);
        parser.feed(b"data: a\n:");
        for _ in 0..100 {
            parser.feed(&[b'c'; 100]);
            assert_eq!(drain(&mut parser), []);
            assert!(parser.buf.is_empty());
        }
        parser.feed(b"\n: short\ndata: b\n\n");
        assert_eq!(drain(&mut parser), [Ok(SseEvent::message("a\nb"))]);
    }

    #[test]
    fn reset_stream_keeps_id_and_retry_and_drops_the_partial_event() {
        let mut parser = SseParser::new();
        parser.feed(b"retry: 500\nid: 4\ndata: a\n\nid: 5\ndata: half");
        assert_eq!(
            drain(&mut parser),
            [Ok(ev(None, "a", Some("4"), Some(500)))]
        );
        parser.reset_stream();
        parser.feed(b"\xEF\xBB\xBFdata: b\n\n");
        assert_eq!(drain(&mut parser), [Ok(SseEvent::message("b"))]);
        assert_eq!(parser.last_event_id(), Some("4"));
        assert_eq!(parser.retry(), Some(500));
    }

    /// Streams exercising every rule, for the chunking-invariance test.
    const STREAMS: &[&[u8]] = &[
        b"data: a\n\n",
        b"\xEF\xBB\xBFdata: bom\r\n\r\n",
        b"event: e\rid: 1\rretry: 10\rdata: x\rdata: y\r\r",
        b"data: a\r\n\r\ndata: b\r\rdata: c\n\r\n",
        b": comment\ndata\ndata:x\ndata:  y\n\nid: \0\ndata: z\n\n",
        b"id: 1\ndata: 1\n\ndata: 2\n\nid\ndata: 3\n\n",
        b"data: \xFF\xFE\ndata: \xE2\x82\xAC\n\nretry: x\n\n",
        b"data: 0123456789012345678901234567890123456789\ndata: x\n\ndata: fits\n\n",
        b"data: 01234567890123456789\rdata: 01234567890123456789\r\rdata: ok\r\r",
        b":\r:\r\n\r\n\n\r\rdata: after blank lines\r\n\r\n",
        b"\xEF\xBB",
    ];

    #[test]
    fn byte_by_byte_equals_whole() {
        for &stream in STREAMS {
            for limit in [32, DEFAULT_MAX_EVENT_SIZE] {
                let whole = parse_chunks([stream], limit);
                assert_eq!(parse_bytewise(stream, limit), whole, "{stream:?}");
                for split in 0..=stream.len() {
                    let (head, tail) = stream.split_at(split);
                    assert_eq!(
                        parse_chunks([head, tail], limit),
                        whole,
                        "{stream:?} @ {split}"
                    );
                }
            }
        }
    }

    #[test]
    fn writer_output_is_exact() {
        let mut out = Vec::new();
        write_event(&mut out, Some("x"), Some("1"), "a\nb").unwrap();
        assert_eq!(out, b"event: x\nid: 1\ndata: a\ndata: b\n\n");

        let mut out = BytesMut::new();
        write_event(&mut out, None, None, "").unwrap();
        write_event(&mut out, Some(""), None, "a\r\nb\rc\n").unwrap();
        assert_eq!(&out[..], b"data:\n\ndata: a\ndata: b\ndata: c\ndata:\n\n");

        let mut out = Vec::new();
        write_priming(&mut out, "X").unwrap();
        assert_eq!(out, b"id: X\ndata:\n\n");

        let mut out = Vec::new();
        write_retry(&mut out, 1500);
        write_retry(&mut out, 0);
        write_retry(&mut out, u64::MAX);
        assert_eq!(
            out,
            b"retry: 1500\n\nretry: 0\n\nretry: 18446744073709551615\n\n"
        );

        let mut out = Vec::new();
        write_comment(&mut out, "keep-alive");
        write_comment(&mut out, "");
        write_comment(&mut out, "two\r\nlines");
        assert_eq!(out, b": keep-alive\n\n:\n\n: two\n: lines\n\n");
    }

    #[test]
    fn writer_refuses_line_breaks_in_names_and_ids() {
        let mut out = Vec::new();
        for (event, id, field) in [
            (Some("a\nb"), None, "event"),
            (Some("a\rb"), None, "event"),
            (None, Some("1\n2"), "id"),
            (None, Some("1\r"), "id"),
            (None, Some("1\0"), "id"),
        ] {
            let error = write_event(&mut out, event, id, "data").unwrap_err();
            assert!(matches!(error, SseError::InvalidField { field: f, .. } if f == field));
        }
        assert!(write_priming(&mut out, "a\nb").is_err());
        assert!(out.is_empty(), "nothing is written on refusal");
        // NUL is fine in an event name.
        write_event(&mut out, Some("a\0b"), None, "x").unwrap();
    }

    #[test]
    fn written_events_parse_back() {
        let sent = [
            ev(Some("update"), "{\"a\": 1}", Some("42"), None),
            ev(None, "line one\nline two\n\nline four", None, None),
            ev(None, "", Some("prime"), None),
            ev(
                None,
                "  leading spaces and trailing  ",
                Some(""),
                Some(3000),
            ),
            ev(Some("ünïcødé ✓"), "日本語\n😀 emoji", Some("id-✓"), None),
            ev(None, ": not a comment\ndata: not a field", None, None),
            ev(None, "\n", None, None),
        ];
        let mut out = BytesMut::new();
        write_comment(&mut out, "hello");
        for event in &sent {
            event.write_to(&mut out).unwrap();
            write_comment(&mut out, "keep-alive");
        }
        write_retry(&mut out, 10);
        let mut parser = SseParser::new();
        parser.feed(&out);
        assert_eq!(
            drain(&mut parser),
            sent.iter().cloned().map(Ok).collect::<Vec<_>>()
        );
        assert_eq!(parser.retry(), Some(10));
        assert_eq!(parser.last_event_id(), Some("id-✓"));
        assert_eq!(
            parse_bytewise(&out, DEFAULT_MAX_EVENT_SIZE).len(),
            sent.len()
        );
    }

    #[test]
    fn cr_in_written_data_reads_back_as_lf() {
        let mut out = Vec::new();
        write_event(&mut out, None, None, "a\rb\r\nc\n\rd").unwrap();
        assert_eq!(events(&out), [SseEvent::message("a\nb\nc\n\nd")]);
    }

    #[test]
    fn is_message_and_event_type() {
        assert!(SseEvent::message("x").is_message());
        assert!(ev(Some("message"), "x", None, None).is_message());
        assert!(ev(Some(""), "x", None, None).is_message());
        assert!(!ev(Some("endpoint"), "/messages", None, None).is_message());
        assert_eq!(
            ev(Some("endpoint"), "", None, None).event_type(),
            "endpoint"
        );
        assert_eq!(SseEvent::default().event_type(), "message");
    }

    /// Splits `bytes` at the given cut points (taken modulo its length).
    fn split_at_cuts<'a>(bytes: &'a [u8], cuts: &[usize]) -> Vec<&'a [u8]> {
        let mut points: Vec<usize> = cuts.iter().map(|cut| cut % (bytes.len() + 1)).collect();
        points.sort_unstable();
        let mut chunks = Vec::new();
        let mut start = 0;
        for point in points {
            chunks.push(&bytes[start..point]);
            start = point;
        }
        chunks.push(&bytes[start..]);
        chunks
    }

    /// Bytes drawn mostly from the characters SSE gives meaning to.
    fn sse_ish_bytes() -> impl Strategy<Value = Vec<u8>> {
        let byte = prop_oneof![
            4 => prop::sample::select(b"\r\n: dataevntirydx0123456789\0\xEF\xBB\xBF".to_vec()),
            1 => any::<u8>(),
        ];
        prop::collection::vec(byte, 0..400)
    }

    proptest! {
        #[test]
        fn random_data_round_trips(
            items in prop::collection::vec(
                (
                    any::<String>(),
                    prop::option::of("[^\r\n]{0,12}"),
                    prop::option::of("[^\r\n\u{0}]{0,12}"),
                ),
                1..6,
            ),
            cuts in prop::collection::vec(any::<usize>(), 0..8),
        ) {
            let mut out = BytesMut::new();
            let mut expected = Vec::new();
            for (data, event, id) in &items {
                write_event(&mut out, event.as_deref(), id.as_deref(), data).unwrap();
                expected.push(Ok(SseEvent {
                    event: event.clone().filter(|name| !name.is_empty()),
                    data: data.replace("\r\n", "\n").replace('\r', "\n"),
                    id: id.clone(),
                    retry: None,
                }));
            }
            prop_assert_eq!(&parse(&out), &expected);
            prop_assert_eq!(&parse_chunks(split_at_cuts(&out, &cuts), DEFAULT_MAX_EVENT_SIZE), &expected);
        }

        #[test]
        fn random_bytes_never_panic_and_chunking_does_not_matter(
            bytes in prop_oneof![sse_ish_bytes(), prop::collection::vec(any::<u8>(), 0..400)],
            cuts in prop::collection::vec(any::<usize>(), 0..16),
            limit in prop_oneof![Just(DEFAULT_MAX_EVENT_SIZE), 0usize..48],
        ) {
            let whole = parse_chunks([&bytes[..]], limit);
            prop_assert_eq!(&parse_chunks(split_at_cuts(&bytes, &cuts), limit), &whole);
            prop_assert_eq!(&parse_bytewise(&bytes, limit), &whole);
        }
    }
}
