//! The few HTTP requests OAuth makes (metadata GETs, form and JSON POSTs), over the same
//! hyper client the MCP transports use, with bounded bodies and clear errors. These requests
//! never carry the MCP server's bearer token.

use std::time::Duration;

use bytes::Bytes;
use hyper::header::{HeaderName, HeaderValue, ACCEPT, AUTHORIZATION, CONTENT_TYPE};
use hyper::{Method, StatusCode, Uri};
use serde_json::Value;

use crate::http::body;
use crate::http::connection::Connection;
use crate::http::HttpClientConfig;

/// The largest metadata or token response read.
const MAX_BODY: usize = 256 * 1024;

/// An answer: status, content type, body.
pub(crate) struct Answer {
    pub(crate) status: StatusCode,
    pub(crate) content_type: String,
    pub(crate) body: Bytes,
    /// The `Location` header, for redirects.
    pub(crate) location: Option<String>,
}

impl Answer {
    /// The body as a JSON object, or why not (an HTML page, say).
    pub(crate) fn json(&self) -> Result<serde_json::Map<String, Value>, String> {
        let is_json = self.content_type.is_empty()
            || self.content_type.contains("json")
            || self.content_type.starts_with("text/plain");
        if !is_json {
            return Err(format!(
                "expected JSON, got content type {:?}{}",
                self.content_type,
                snippet(&self.body)
            ));
        }
        match serde_json::from_slice::<Value>(&self.body) {
            Ok(Value::Object(map)) => Ok(map),
            Ok(_) => Err("the JSON body is not an object".into()),
            Err(e) => Err(format!("the body is not JSON ({e}){}", snippet(&self.body))),
        }
    }
}

fn snippet(body: &[u8]) -> String {
    let text: String = String::from_utf8_lossy(body)
        .chars()
        .take(80)
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    if text.trim().is_empty() {
        String::new()
    } else {
        format!(": {}", text.trim())
    }
}

/// The HTTP client of the OAuth code.
#[derive(Clone)]
pub(crate) struct AuthHttp {
    conn: Connection,
}

impl AuthHttp {
    /// A client with a 10 s connect and 30 s response limit.
    pub(crate) fn new() -> Result<Self, String> {
        let mut config = HttpClientConfig::new("http://127.0.0.1/");
        config.response_timeout = Some(Duration::from_secs(30));
        let conn = Connection::new(&config).map_err(|e| e.to_string())?;
        Ok(AuthHttp { conn })
    }

    async fn send(
        &self,
        method: Method,
        url: &str,
        headers: Vec<(HeaderName, HeaderValue)>,
        body: Bytes,
    ) -> Result<Answer, String> {
        let uri: Uri = url.parse().map_err(|e| format!("bad URL: {e}"))?;
        let request = self.conn.request(method, &uri, &headers, body);
        let response = self.conn.send(request).await.map_err(|e| e.to_string())?;
        let status = response.status();
        let content_type = body::content_type(&response).to_ascii_lowercase();
        let location = response
            .headers()
            .get(hyper::header::LOCATION)
            .and_then(|v| v.to_str().ok())
            .map(str::to_owned);
        let body = body::read_limited(response.into_body(), MAX_BODY).await?;
        Ok(Answer {
            status,
            content_type,
            body,
            location,
        })
    }

    /// GET `url` accepting JSON.
    pub(crate) async fn get(&self, url: &str) -> Result<Answer, String> {
        let headers = vec![(ACCEPT, HeaderValue::from_static("application/json"))];
        self.send(Method::GET, url, headers, Bytes::new()).await
    }

    /// POST a form, with HTTP Basic client authentication when `basic` is given.
    pub(crate) async fn post_form(
        &self,
        url: &str,
        form: String,
        basic: Option<String>,
    ) -> Result<Answer, String> {
        let mut headers = vec![
            (
                CONTENT_TYPE,
                HeaderValue::from_static("application/x-www-form-urlencoded"),
            ),
            (ACCEPT, HeaderValue::from_static("application/json")),
        ];
        if let Some(basic) = basic {
            let mut value = HeaderValue::from_str(&format!("Basic {basic}"))
                .map_err(|e| format!("bad client credentials: {e}"))?;
            value.set_sensitive(true);
            headers.push((AUTHORIZATION, value));
        }
        self.send(Method::POST, url, headers, Bytes::from(form))
            .await
    }

    /// POST a JSON document.
    pub(crate) async fn post_json(&self, url: &str, json: &Value) -> Result<Answer, String> {
        let headers = vec![
            (CONTENT_TYPE, HeaderValue::from_static("application/json")),
            (ACCEPT, HeaderValue::from_static("application/json")),
        ];
        self.send(Method::POST, url, headers, Bytes::from(json.to_string()))
            .await
    }
}
