//! JSON-RPC robustness (`basic/index`, JSON-RPC 2.0): malformed JSON, invalid request shapes,
//! unknown methods, wrong param types, id forms (string, integer, large, unicode, repeated),
//! large messages, notifications, batches, and the validity of everything the server wrote.

use mcp_proto::jsonrpc::error_codes::{
    INVALID_PARAMS, INVALID_REQUEST, METHOD_NOT_FOUND, PARSE_ERROR,
};
use mcp_proto::ProtocolVersion;
use serde_json::{json, Value};

use super::{expect_code, expect_codes, first_failure, is_http_rejection, still_alive};
use crate::case;
use crate::case::{Case, CaseResult, Outcome, Versions};
use crate::context::Ctx;
use crate::driver::{Reply, Session};

const BASE: &str = "basic/index#messages";

/// The JSON-RPC cases that run early.
pub fn cases() -> Vec<Case> {
    vec![
        case!("jsonrpc.parse-error", Must, Versions::ALL, Shared, BASE,
            "malformed JSON gets error -32700 with a null id, and the session goes on", parse_error),
        case!("jsonrpc.invalid-request.no-jsonrpc", Must, Versions::ALL, Shared, BASE,
            "a request without \"jsonrpc\":\"2.0\" gets error -32600", no_jsonrpc),
        case!("jsonrpc.invalid-request.method-type", Must, Versions::ALL, Shared, BASE,
            "a request whose method is not a string gets error -32600", method_type),
        case!("jsonrpc.invalid-request.null-id", Must, Versions::ALL, Shared, BASE,
            "a request with a null id gets error -32600, not a result", null_id),
        case!("jsonrpc.invalid-request.not-object", Must, Versions::ALL, Shared, BASE,
            "a JSON value that is not an object gets error -32600", not_object),
        case!("jsonrpc.invalid-request.params-type", Must, Versions::ALL, Shared, BASE,
            "params that are neither object nor array get error -32600 or -32602", params_type),
        case!("jsonrpc.unknown-method", Must, Versions::ALL, Shared, BASE,
            "an unknown method gets error -32601 with the request's id", unknown_method),
        case!("jsonrpc.wrong-param-types", Must, Versions::ALL, Shared, BASE,
            "params of the wrong type (a number for a name or uri) get error -32602", wrong_param_types),
        case!("jsonrpc.string-id", Must, Versions::ALL, Shared, BASE,
            "a string id comes back identical", string_id),
        case!("jsonrpc.integer-id", Must, Versions::ALL, Shared, BASE,
            "integer ids (0 and negative) come back identical", integer_id),
        case!("jsonrpc.large-id", Must, Versions::ALL, Shared, BASE,
            "the id 9007199254740991 (2^53-1) comes back identical", large_id),
        case!("jsonrpc.huge-id", Should, Versions::ALL, Shared, BASE,
            "the id 9223372036854775807 (2^63-1) comes back identical", huge_id),
        case!("jsonrpc.unicode-id", Must, Versions::ALL, Shared, BASE,
            "a string id with non-ASCII characters and escapes comes back identical", unicode_id),
        case!("jsonrpc.escaped-method", Must, Versions::ALL, Shared, BASE,
            "a method name written with \\u escapes is the same method", escaped_method),
        case!("jsonrpc.repeated-id", Should, Versions::ALL, Shared, BASE,
            "two in-flight requests with the same id are each answered with that id, and the session goes on",
            repeated_id),
        case!("jsonrpc.large-message", Should, Versions::ALL, Shared, "basic/transports#stdio",
            "a 1 MiB request is read and answered", large_message),
        case!("jsonrpc.notification-no-reply", Must, Versions::ALL, Shared, BASE,
            "notifications (known and unknown) get no reply", notification_no_reply),
        case!("jsonrpc.batch", Must, Versions::only(ProtocolVersion::V2025_03_26), Own,
            "basic/index#batching", "a batch of two pings is answered for both ids", batch),
        case!("jsonrpc.batch-refused", Should, Versions::since(ProtocolVersion::V2025_06_18), Shared,
            "basic/index#messages", "after 2025-03-26 a batch array gets an answer (an error, or its responses), and the session goes on",
            batch_refused),
    ]
}

/// The run-wide check that runs after every other case.
pub fn final_cases() -> Vec<Case> {
    vec![case!(
        "jsonrpc.valid-output",
        Must,
        Versions::ALL,
        Own,
        "basic/transports#stdio",
        "everything the server wrote during the run was a valid JSON-RPC 2.0 message",
        valid_output
    )]
}

/// Sends a raw line and expects an error with one of `codes`, addressed to `id` or to null.
async fn raw_expect(
    cx: &mut Ctx,
    line: &str,
    id: Option<&Value>,
    codes: &[i64],
    what: &str,
) -> CaseResult {
    let session = cx.shared().await?;
    session.send_line(line).await?;
    let timeout = session.timeout;
    let placeholder = json!("\u{0}no id\u{0}");
    let got = session
        .wait_reply_or_idless(id.unwrap_or(&placeholder), timeout)
        .await;
    let outcome = match got {
        // On HTTP the status alone may answer input the server cannot accept.
        Ok((_, reply)) if is_http_rejection(&reply) => Outcome::Pass,
        Ok((_, reply)) => expect_codes(&reply, codes, what),
        Err(e) => Outcome::fail(format!("{what}: an error reply"), e.to_string()),
    };
    let alive = still_alive(session, what).await?;
    Ok(first_failure(outcome, alive))
}

async fn parse_error(cx: &mut Ctx) -> CaseResult {
    let session = cx.shared().await?;
    session
        .send_line(r#"{"jsonrpc": "2.0", "id": 9001, "method": "ping""#)
        .await?;
    let timeout = session.timeout;
    let expected = "error -32700 with id null (or, from 2025-11-25, no id)";
    let outcome = match session.wait_reply_or_idless(&json!(9001), timeout).await {
        Ok((Some(id), _)) if !id.is_null() => {
            Outcome::fail(expected, format!("a reply with id {id}"))
        }
        Ok((_, reply)) if is_http_rejection(&reply) => Outcome::Pass,
        Ok((_, reply)) => expect_code(&reply, PARSE_ERROR, "malformed JSON"),
        Err(e) => Outcome::fail(expected, e.to_string()),
    };
    let alive = still_alive(session, "malformed JSON").await?;
    Ok(first_failure(outcome, alive))
}

async fn no_jsonrpc(cx: &mut Ctx) -> CaseResult {
    raw_expect(
        cx,
        r#"{"id": 9002, "method": "ping"}"#,
        Some(&json!(9002)),
        &[INVALID_REQUEST],
        "a request without \"jsonrpc\"",
    )
    .await
}

async fn method_type(cx: &mut Ctx) -> CaseResult {
    raw_expect(
        cx,
        r#"{"jsonrpc": "2.0", "id": 9003, "method": 42}"#,
        Some(&json!(9003)),
        &[INVALID_REQUEST],
        "a numeric method",
    )
    .await
}

async fn null_id(cx: &mut Ctx) -> CaseResult {
    raw_expect(
        cx,
        r#"{"jsonrpc": "2.0", "id": null, "method": "ping"}"#,
        None,
        &[INVALID_REQUEST],
        "a request with a null id",
    )
    .await
}

async fn not_object(cx: &mut Ctx) -> CaseResult {
    raw_expect(cx, "42", None, &[INVALID_REQUEST], "the JSON value 42").await
}

async fn params_type(cx: &mut Ctx) -> CaseResult {
    raw_expect(
        cx,
        r#"{"jsonrpc": "2.0", "id": 9004, "method": "ping", "params": "oops"}"#,
        Some(&json!(9004)),
        &[INVALID_REQUEST, INVALID_PARAMS],
        "string params",
    )
    .await
}

async fn unknown_method(cx: &mut Ctx) -> CaseResult {
    let session = cx.shared().await?;
    let reply = session
        .request("conformance/no-such-method", Some(json!({})))
        .await?;
    let mut outcome = expect_code(&reply, METHOD_NOT_FOUND, "an unknown method");
    if let (Outcome::Pass, Reply::Error(e)) = (&outcome, &reply) {
        if e.message.is_none() {
            outcome = Outcome::fail("an error object with a string `message`", reply.describe());
        }
    }
    Ok(outcome)
}

async fn wrong_param_types(cx: &mut Ctx) -> CaseResult {
    let (method, params) = if cx.capability("tools").await?.is_some() {
        ("tools/call", json!({"name": 12345, "arguments": {}}))
    } else if cx.capability("prompts").await?.is_some() {
        ("prompts/get", json!({"name": 12345}))
    } else if cx.capability("resources").await?.is_some() {
        ("resources/read", json!({"uri": 12345}))
    } else {
        return Ok(Outcome::skip(
            "the server declares none of tools, prompts, resources",
        ));
    };
    let reply = cx.request(method, Some(params.clone())).await?;
    let outcome = expect_code(
        &reply,
        INVALID_PARAMS,
        &format!("`{method}` with params {params}"),
    );
    let alive = still_alive(cx.shared().await?, "params of the wrong type").await?;
    Ok(first_failure(outcome, alive))
}

/// Sends a ping with exactly this id text and checks that the reply's id equals `expected`.
async fn id_roundtrip(session: &mut Session, id_text: &str, expected: &Value) -> CaseResult {
    session
        .send_line(&format!(
            r#"{{"jsonrpc":"2.0","id":{id_text},"method":"ping"}}"#
        ))
        .await?;
    let timeout = session.timeout;
    Ok(match session.wait_reply(expected, timeout).await {
        Ok(Reply::Result(_)) => Outcome::Pass,
        Ok(other) => Outcome::fail(format!("a result for id {id_text}"), other.describe()),
        Err(_) => {
            let strays = session
                .responses_within(session.quiet)
                .await
                .unwrap_or_default();
            let got = match strays.first() {
                Some((Some(id), _)) => format!("a reply with id {id} instead"),
                Some((None, reply)) => format!("a reply without id: {}", reply.describe()),
                None => format!("no reply within {timeout:?}"),
            };
            Outcome::fail(format!("a reply with id {id_text}"), got)
        }
    })
}

async fn string_id(cx: &mut Ctx) -> CaseResult {
    id_roundtrip(cx.shared().await?, r#""conf-id-7""#, &json!("conf-id-7")).await
}

async fn integer_id(cx: &mut Ctx) -> CaseResult {
    let session = cx.shared().await?;
    let zero = id_roundtrip(session, "0", &json!(0)).await?;
    if zero != Outcome::Pass {
        return Ok(zero);
    }
    id_roundtrip(session, "-7", &json!(-7)).await
}

async fn large_id(cx: &mut Ctx) -> CaseResult {
    id_roundtrip(
        cx.shared().await?,
        "9007199254740991",
        &json!(9_007_199_254_740_991i64),
    )
    .await
}

async fn huge_id(cx: &mut Ctx) -> CaseResult {
    id_roundtrip(cx.shared().await?, "9223372036854775807", &json!(i64::MAX)).await
}

async fn unicode_id(cx: &mut Ctx) -> CaseResult {
    let text = r#""ü-\u00e9-😀-\"q\"-\\-\n-\u2028""#;
    let expected = json!("ü-é-😀-\"q\"-\\-\n-\u{2028}");
    id_roundtrip(cx.shared().await?, text, &expected).await
}

async fn escaped_method(cx: &mut Ctx) -> CaseResult {
    let session = cx.shared().await?;
    session
        .send_line(r#"{"jsonrpc":"2.0","id":9010,"method":"p\u0069ng"}"#)
        .await?;
    let timeout = session.timeout;
    Ok(match session.wait_reply(&json!(9010), timeout).await {
        Ok(Reply::Result(_)) => Outcome::Pass,
        Ok(other) => Outcome::fail("the `ping` result", other.describe()),
        Err(e) => Outcome::fail("the `ping` result", e.to_string()),
    })
}

async fn repeated_id(cx: &mut Ctx) -> CaseResult {
    let slow = cx.slow_tool().await?;
    let session = cx.shared().await?;
    let id = json!("conf-repeated");
    match &slow {
        Some(tool) => {
            let params = json!({"name": tool.name, "arguments": tool.args(1.0, 2)});
            session
                .send_request_with_id(id.clone(), "tools/call", Some(params))
                .await?;
        }
        None => {
            session
                .send_request_with_id(id.clone(), "ping", None)
                .await?
        }
    }
    session
        .send_request_with_id(id.clone(), "ping", None)
        .await?;
    let timeout = session.timeout;
    let first = session.wait_reply(&id, timeout).await;
    let outcome = match first {
        Err(e) => Outcome::fail("a reply with the repeated id", e.to_string()),
        Ok(_) => Outcome::Pass,
    };
    // Any second reply may take as long as the slow call; let it arrive before moving on.
    let _ = session
        .responses_within(std::time::Duration::from_millis(1500))
        .await?;
    let alive = still_alive(session, "a repeated in-flight id").await?;
    Ok(first_failure(outcome, alive))
}

async fn large_message(cx: &mut Ctx) -> CaseResult {
    let session = cx.shared().await?;
    let pad = "x".repeat(1024 * 1024);
    let reply = session
        .request(
            "ping",
            Some(json!({"_meta": {"dev.conformance/padding": pad}})),
        )
        .await;
    Ok(match reply {
        Ok(Reply::Result(_)) => Outcome::Pass,
        Ok(other) => Outcome::fail("the `ping` result", other.describe()),
        Err(e) => Outcome::fail("the `ping` result", e.to_string()),
    })
}

async fn notification_no_reply(cx: &mut Ctx) -> CaseResult {
    let session = cx.shared().await?;
    session
        .notify("notifications/conformance/unknown", Some(json!({"x": 1})))
        .await?;
    session.notify("notifications/initialized", None).await?;
    session
        .notify(
            "notifications/cancelled",
            Some(json!({"requestId": "conf-never-sent"})),
        )
        .await?;
    let outcome = super::no_reply_within_quiet(session, "no reply to notifications").await?;
    let alive = still_alive(session, "notifications").await?;
    Ok(first_failure(outcome, alive))
}

async fn batch(cx: &mut Ctx) -> CaseResult {
    let version = ProtocolVersion::V2025_03_26.as_str();
    let mut session = cx.fresh_at(version).await?;
    if session.negotiated_version() != Some(version) {
        let got = session.negotiated_version().unwrap_or("?").to_owned();
        session.close().await;
        return Ok(Outcome::skip(format!(
            "the server does not speak {version} (answered {got:?})"
        )));
    }
    session
        .send_line(r#"[{"jsonrpc":"2.0","id":"conf-b1","method":"ping"},{"jsonrpc":"2.0","id":"conf-b2","method":"ping"}]"#)
        .await?;
    let timeout = session.timeout;
    let mut outcome = Outcome::Pass;
    for id in ["conf-b1", "conf-b2"] {
        match session.wait_reply(&json!(id), timeout).await {
            Ok(Reply::Result(_)) => {}
            Ok(other) => {
                outcome = Outcome::fail(format!("a result for {id}"), other.describe());
                break;
            }
            Err(e) => {
                outcome = Outcome::fail(format!("a result for {id}"), e.to_string());
                break;
            }
        }
    }
    session.close().await;
    Ok(outcome)
}

async fn batch_refused(cx: &mut Ctx) -> CaseResult {
    let session = cx.shared().await?;
    session
        .send_line(r#"[{"jsonrpc":"2.0","id":"conf-b3","method":"ping"}]"#)
        .await?;
    let timeout = session.timeout;
    // 2025-06-18 removed batching, but no sentence makes a server refuse one: an error
    // (e.g. -32600) and the batch's own responses both answer it; silence does not
    // (JSON-RPC 2.0 §5: "the Server MUST reply with a Response").
    let expected = "an answer to the batch: an error (e.g. -32600), or its responses";
    let outcome = match session
        .wait_reply_or_idless(&json!("conf-b3"), timeout)
        .await
    {
        Ok(_) => Outcome::Pass,
        Err(e) => Outcome::fail(expected, e.to_string()),
    };
    let alive = still_alive(session, "a batch").await?;
    Ok(first_failure(outcome, alive))
}

async fn valid_output(cx: &mut Ctx) -> CaseResult {
    let (frames, count) = cx.journal.invalid_frames();
    Ok(match frames.first() {
        None => Outcome::Pass,
        Some(first) => Outcome::fail(
            "only JSON-RPC 2.0 messages on the server's output",
            format!("{count} invalid frame(s); the first: {first}"),
        ),
    })
}
