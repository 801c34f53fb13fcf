//! The HTTP+SSE driver (2024-11-05): GET the URL, wait for the `endpoint` event, resolve
//! it against the URL, POST every frame there and read the answers from the stream.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use bytes::Bytes;
use hyper::{Method, StatusCode, Uri};
use tokio::sync::mpsc;
use tokio::task::JoinHandle;

use super::http::{media_type, parse_url, pump_sse, read_body, HttpClient};
use super::{BoxFuture, Connector, Frame, Journal, Kind, Session, Transport};
use crate::error::Error;

/// A HTTP+SSE endpoint (`http://127.0.0.1:PORT/sse`).
#[derive(Clone, Debug)]
pub struct SseTarget {
    /// The stream's URL.
    pub url: Uri,
    /// The client with the run's extra headers.
    pub client: HttpClient,
}

/// An open stream: its `endpoint` event, resolved, and the reader feeding `frames`.
pub struct OpenStream {
    /// The `endpoint` event's data as sent.
    pub endpoint_data: String,
    /// It resolved against the stream's URL.
    pub endpoint: Uri,
    /// The `message` events' data.
    pub frames: mpsc::Receiver<Frame>,
    /// The reader task.
    pub reader: JoinHandle<()>,
}

/// Resolves an `endpoint` event's data against the stream URL (absolute URL, absolute path,
/// or a path relative to the stream's directory).
pub fn resolve(base: &Uri, reference: &str) -> Result<Uri, Error> {
    let reference = reference.trim();
    if reference.starts_with("http://") || reference.starts_with("https://") {
        return reference
            .parse()
            .map_err(|e| Error::Protocol(format!("endpoint {reference:?} is not a URL: {e}")));
    }
    let scheme = base.scheme_str().unwrap_or("http");
    let authority = base.authority().map(|a| a.as_str()).unwrap_or_default();
    let path = if reference.starts_with('/') {
        reference.to_owned()
    } else {
        let dir = base.path().rsplit_once('/').map(|(d, _)| d).unwrap_or("");
        format!("{dir}/{reference}")
    };
    format!("{scheme}://{authority}{path}")
        .parse()
        .map_err(|e| Error::Protocol(format!("endpoint {reference:?} does not resolve: {e}")))
}

impl SseTarget {
    /// A target at `url` sending `headers` on every request.
    pub fn new(url: &str, headers: &[(String, String)]) -> Result<Self, Error> {
        Ok(SseTarget {
            url: parse_url(url)?,
            client: HttpClient::new(headers)?,
        })
    }

    /// GETs the stream and waits (up to `wait`) for its `endpoint` event.
    pub async fn open_stream(&self, wait: Duration) -> Result<OpenStream, Error> {
        let response = self
            .client
            .send(
                Method::GET,
                &self.url,
                &[("accept", "text/event-stream")],
                Bytes::new(),
            )
            .await?;
        if response.status() != StatusCode::OK
            || media_type(response.headers()) != "text/event-stream"
        {
            let status = response.status().as_u16();
            let ct = media_type(response.headers());
            let body = read_body(response.into_body(), self.client.timeout)
                .await
                .unwrap_or_default();
            let text: String = String::from_utf8_lossy(&body).chars().take(200).collect();
            return Err(Error::Protocol(format!(
                "GET {} answered HTTP {status} ({ct}) {text}, not an event stream",
                self.url
            )));
        }
        let (tx, frames) = mpsc::channel(1024);
        let (etx, mut erx) = mpsc::channel(16);
        let reader = tokio::spawn(pump_sse(response.into_body(), tx, Some(etx)));
        let endpoint_data = loop {
            match tokio::time::timeout(wait, erx.recv()).await {
                Ok(Some(event)) if event.event_type() == "endpoint" => break event.data,
                Ok(Some(_)) => continue,
                Ok(None) => {
                    reader.abort();
                    return Err(Error::Protocol(
                        "the stream ended without an `endpoint` event".into(),
                    ));
                }
                Err(_) => {
                    reader.abort();
                    return Err(Error::Timeout {
                        what: "`endpoint` event".into(),
                        timeout: wait,
                    });
                }
            }
        };
        let endpoint = match resolve(&self.url, &endpoint_data) {
            Ok(e) => e,
            Err(e) => {
                reader.abort();
                return Err(e);
            }
        };
        Ok(OpenStream {
            endpoint_data,
            endpoint,
            frames,
            reader,
        })
    }

    /// Opens an uninitialized session.
    pub async fn open(&self, journal: Arc<Journal>) -> Result<Session, Error> {
        let stream = self.open_stream(self.client.timeout).await?;
        let (tx, rx) = mpsc::channel(1024);
        let mut frames = stream.frames;
        let forward = tokio::spawn({
            let tx = tx.clone();
            async move {
                while let Some(frame) = frames.recv().await {
                    if tx.send(frame).await.is_err() {
                        return;
                    }
                }
            }
        });
        let transport = SseTransport {
            client: self.client.clone(),
            endpoint: stream.endpoint,
            tx,
            notes: Arc::new(Mutex::new(Vec::new())),
            tasks: vec![stream.reader, forward],
        };
        Ok(Session::new(Box::new(transport), rx, journal))
    }
}

impl Connector for SseTarget {
    fn connect(&self, journal: Arc<Journal>) -> BoxFuture<'_, Result<Session, Error>> {
        Box::pin(self.open(journal))
    }

    fn describe(&self) -> String {
        format!("sse: {}", self.url)
    }

    fn kind(&self) -> Kind {
        Kind::Sse(self.clone())
    }
}

struct SseTransport {
    client: HttpClient,
    endpoint: Uri,
    tx: mpsc::Sender<Frame>,
    notes: Arc<Mutex<Vec<String>>>,
    tasks: Vec<JoinHandle<()>>,
}

impl Transport for SseTransport {
    fn send_frame<'a>(&'a mut self, frame: &'a [u8]) -> BoxFuture<'a, Result<(), Error>> {
        Box::pin(async move {
            let response = self
                .client
                .send(
                    Method::POST,
                    &self.endpoint,
                    &[("content-type", "application/json")],
                    Bytes::copy_from_slice(frame),
                )
                .await?;
            let status = response.status();
            let ct = media_type(response.headers());
            let body = read_body(response.into_body(), self.client.timeout).await?;
            if !status.is_success() {
                let text: String = String::from_utf8_lossy(&body).chars().take(300).collect();
                let mut notes = match self.notes.lock() {
                    Ok(g) => g,
                    Err(p) => p.into_inner(),
                };
                notes.push(format!("POST: HTTP {} {ct} {text}", status.as_u16()));
                if notes.len() > 32 {
                    notes.remove(0);
                }
            }
            // Errors the server could not route to the stream (unparseable input) come back
            // in the POST answer; hand them to the session like stream messages.
            if ct == "application/json" && !body.is_empty() {
                let _ = self.tx.send(Frame::Data(body)).await;
            }
            Ok(())
        })
    }

    fn diagnostics(&self) -> String {
        match self.notes.lock() {
            Ok(g) => g.join("\n"),
            Err(p) => p.into_inner().join("\n"),
        }
    }

    fn close(&mut self) -> BoxFuture<'_, ()> {
        Box::pin(async move {
            for task in self.tasks.drain(..) {
                task.abort();
            }
        })
    }
}

impl Drop for SseTransport {
    fn drop(&mut self) {
        for task in &self.tasks {
            task.abort();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resolves_endpoints() -> Result<(), Error> {
        let base: Uri = "http://127.0.0.1:9/sse"
            .parse()
            .map_err(|_| Error::Usage(String::new()))?;
        assert_eq!(
            resolve(&base, "/messages?sessionId=a")?.to_string(),
            "http://127.0.0.1:9/messages?sessionId=a"
        );
        assert_eq!(
            resolve(&base, "messages?x=1")?.to_string(),
            "http://127.0.0.1:9/messages?x=1"
        );
        assert_eq!(
            resolve(&base, "http://127.0.0.1:10/m")?.to_string(),
            "http://127.0.0.1:10/m"
        );
        Ok(())
    }
}
