//! `mcp proxy --log-calls FILE`: an audit log of every tool call the proxy forwards, one JSON
//! object a line: time, client, server, tool, duration, outcome, and the sizes of arguments and
//! result; their contents only with `--log-contents`.
//!
//! Lines go through a bounded queue to one writer thread, so a slow disk never blocks a call:
//! when the queue is full a line is dropped and counted, and the count is written with the
//! next line that fits (`"dropped_before": N`).

use std::fs::{File, OpenOptions};
use std::io::{BufWriter, Write};
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{sync_channel, Receiver, SyncSender, TrySendError};
use std::sync::Arc;

use mcp_hub::{CallObserver, CallRecord};
use mcp_proto::timestamp::rfc3339_millis;
use serde_json::{json, Map, Value};

/// How many lines may wait for the writer.
pub const QUEUE: usize = 4096;

/// An open audit log; [`observer`](Self::observer) gives the hub what records into it.
#[derive(Debug, Clone)]
pub struct CallLog {
    lines: SyncSender<String>,
    dropped: Arc<AtomicU64>,
    contents: bool,
}

impl CallLog {
    /// Opens (appending to) `path` and starts its writer thread. `contents`: also log the
    /// arguments and results.
    pub fn open(path: &Path, contents: bool) -> std::io::Result<CallLog> {
        let file = OpenOptions::new().create(true).append(true).open(path)?;
        let (lines, rx) = sync_channel(QUEUE);
        std::thread::Builder::new()
            .name("mcp-call-log".into())
            .spawn(move || write_lines(rx, BufWriter::new(file)))?;
        Ok(CallLog {
            lines,
            dropped: Arc::new(AtomicU64::new(0)),
            contents,
        })
    }

    /// The hub observer that logs each call; `client` names the caller of the call being
    /// recorded (the proxy's client), read in the calling task.
    pub fn observer(
        &self,
        client: impl Fn() -> Option<String> + Send + Sync + 'static,
    ) -> CallObserver {
        let log = self.clone();
        let observer = CallObserver::new(move |record| log.record(&record, client()));
        if self.contents {
            observer.with_contents()
        } else {
            observer
        }
    }

    fn record(&self, record: &CallRecord, client: Option<String>) {
        let mut line = to_json(record, client);
        let dropped = self.dropped.swap(0, Ordering::AcqRel);
        if dropped > 0 {
            line.insert("dropped_before".into(), dropped.into());
        }
        let text = Value::Object(line).to_string();
        match self.lines.try_send(text) {
            Ok(()) => {}
            Err(TrySendError::Full(_)) => {
                self.dropped.fetch_add(dropped + 1, Ordering::AcqRel);
            }
            Err(TrySendError::Disconnected(_)) => {}
        }
    }
}

/// One record as its log line.
pub fn to_json(record: &CallRecord, client: Option<String>) -> Map<String, Value> {
    let mut line = Map::new();
    line.insert("time".into(), rfc3339_millis(record.at).into());
    line.insert("client".into(), client.map_or(Value::Null, Value::from));
    line.insert(
        "server".into(),
        record.server.clone().map_or(Value::Null, Value::from),
    );
    line.insert(
        "tool".into(),
        record.tool.clone().map_or(Value::Null, Value::from),
    );
    line.insert("called".into(), record.called.clone().into());
    let micros = record.duration.as_micros() as f64;
    line.insert("duration_ms".into(), json!(micros / 1000.0));
    line.insert("outcome".into(), record.outcome.into());
    if let Some(error) = &record.error {
        line.insert("error".into(), error.clone().into());
    }
    line.insert("argument_bytes".into(), record.argument_bytes.into());
    line.insert(
        "result_bytes".into(),
        record.result_bytes.map_or(Value::Null, Value::from),
    );
    if let Some(arguments) = &record.arguments {
        line.insert("arguments".into(), arguments.clone());
    }
    if let Some(result) = &record.result {
        line.insert("result".into(), result.clone());
    }
    line
}

/// The writer thread: writes what is queued, flushes when the queue is empty, ends when every
/// sender is gone.
fn write_lines(rx: Receiver<String>, mut out: BufWriter<File>) {
    while let Ok(line) = rx.recv() {
        let mut ok = writeln!(out, "{line}").is_ok();
        while let Ok(more) = rx.try_recv() {
            ok &= writeln!(out, "{more}").is_ok();
        }
        if !(ok && out.flush().is_ok()) {
            eprintln!("mcp proxy: could not write the call log");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::{Duration, UNIX_EPOCH};

    #[test]
    fn a_line_has_sizes_and_no_contents_unless_kept() {
        let record = CallRecord {
            at: UNIX_EPOCH,
            server: Some("weather".into()),
            tool: Some("get_weather".into()),
            called: "weather__get_weather".into(),
            duration: Duration::from_micros(1500),
            outcome: "ok",
            error: None,
            argument_bytes: 19,
            result_bytes: Some(80),
            arguments: None,
            result: None,
        };
        let line = Value::Object(to_json(&record, Some("claude 1.0".into())));
        assert_eq!(line["server"], "weather");
        assert_eq!(line["tool"], "get_weather");
        assert_eq!(line["client"], "claude 1.0");
        assert_eq!(line["duration_ms"], 1.5);
        assert_eq!(line["argument_bytes"], 19);
        assert_eq!(line["result_bytes"], 80);
        assert!(line.get("arguments").is_none());
    }
}
