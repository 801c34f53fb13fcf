//! The authoring API end to end over the in-memory transport: handlers of any extractors in
//! any order, shared state, `_meta`, derived schemas, typed results and errors with sources.

mod common;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use common::RawClient;
use mcp_server::{
    CompletionRequest, Context, HandlerError, Json, Meta, Prompt, PromptArguments, Resource,
    ResourceRequest, ResourceTemplate, Server, ServerError, State, Structured, Tool,
};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

const LATEST: &str = "2025-11-25";

/// What every handler shares: a call counter.
#[derive(Clone, Default)]
struct Counter(Arc<AtomicUsize>);

impl Counter {
    fn bump(&self) -> usize {
        self.0.fetch_add(1, Ordering::SeqCst) + 1
    }
}

/// Two numbers.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct Pair {
    /// The first.
    a: i64,
    /// The second, 0 to 10.
    #[schemars(range(min = 0, max = 10))]
    b: i64,
}

/// A sum.
#[derive(Serialize, JsonSchema)]
struct Sum {
    sum: i64,
    calls: usize,
}

#[derive(Debug, thiserror::Error)]
#[error("the lookup failed")]
struct Lookup(#[source] std::io::Error);

async fn add(args: Pair, State(counter): State<Counter>) -> Json<Sum> {
    Json(Sum {
        sum: args.a + args.b,
        calls: counter.bump(),
    })
}

/// Context first, state last, arguments in the middle: order is free.
async fn summed(ctx: Context, args: Pair, State(counter): State<Counter>) -> Structured<Sum> {
    let text = format!("{} + {} (request {})", args.a, args.b, ctx.request_id());
    let sum = args.a + args.b;
    Structured(
        text,
        Sum {
            sum,
            calls: counter.bump(),
        },
    )
}

async fn failing(Meta(meta): Meta) -> Result<String, HandlerError> {
    if meta.contains_key("refuse") {
        return Err(HandlerError::protocol(ServerError::InvalidParams(
            "refused by _meta".into(),
        )));
    }
    let io = std::io::Error::new(std::io::ErrorKind::NotFound, "no such key");
    Err(Lookup(io))?
}

fn server() -> Server {
    Server::builder("authoring", "1.0.0")
        .tool(Tool::new("ping", "Answers pong"), || async { "pong" })
        .state(Counter::default())
        .tool(Tool::new("add", "Adds"), add)
        .tool(Tool::new("summed", "Adds, with a summary"), summed)
        .tool(Tool::new("failing", "Fails"), failing)
        .tool(
            Tool::new("meta", "Echoes _meta").input_schema(json!({"type": "object"})),
            |Meta(meta): Meta| async move { Json(Value::Object(meta)) },
        )
        .resource_template(
            ResourceTemplate::new("count://{name}", "counts"),
            |req: ResourceRequest, State(counter): State<Counter>| async move {
                format!("{}: {}", req.var("name").unwrap_or("?"), counter.bump())
            },
        )
        .prompt(
            Prompt::new("greet", "Greets").argument("name", "Who", true),
            |args: PromptArguments, State(counter): State<Counter>| async move {
                format!("Hello {} ({})", args["name"], counter.bump())
            },
        )
        .prompt_completion("greet", "name", |req: CompletionRequest| async move {
            vec![format!("{}ice", req.value)]
        })
        .build()
}

#[tokio::test]
async fn schemas_are_derived_from_the_handler_types() {
    let mut client = RawClient::initialized(&server(), LATEST, json!({})).await;
    let tools = client.call("tools/list", json!({})).await;
    let tool = |name: &str| {
        tools["tools"]
            .as_array()
            .and_then(|t| t.iter().find(|t| t["name"] == name))
            .cloned()
            .unwrap_or_else(|| panic!("no tool {name} in {tools}"))
    };
    let add = tool("add");
    let input = &add["inputSchema"];
    assert_eq!(input["type"], "object", "{add}");
    assert_eq!(input["description"], "Two numbers.");
    assert_eq!(
        input["properties"]["b"]["description"],
        "The second, 0 to 10."
    );
    assert_eq!(input["properties"]["b"]["maximum"], 10);
    assert_eq!(input["additionalProperties"], false);
    assert_eq!(input["required"], json!(["a", "b"]));
    let text = add.to_string();
    for noise in ["$schema", "$ref", "int64", "\"title\""] {
        assert!(!text.contains(noise), "{noise} in {text}");
    }
    assert_eq!(add["outputSchema"]["properties"]["sum"]["type"], "integer");
    assert_eq!(tool("summed")["outputSchema"], add["outputSchema"]);
    // No arguments type: the default schema; a hand-written schema wins; no output schema
    // without a typed result.
    assert_eq!(tool("ping")["inputSchema"], json!({"type": "object"}));
    assert_eq!(tool("meta")["inputSchema"], json!({"type": "object"}));
    assert!(tool("ping").get("outputSchema").is_none());
    assert!(tool("failing").get("outputSchema").is_none());
}

#[tokio::test]
async fn extractors_in_any_order_share_state() {
    let mut client = RawClient::initialized(&server(), LATEST, json!({})).await;
    let r = client
        .call(
            "tools/call",
            json!({"name": "add", "arguments": {"a": 2, "b": 3}}),
        )
        .await;
    assert_eq!(r["structuredContent"], json!({"sum": 5, "calls": 1}), "{r}");
    let r = client
        .call(
            "tools/call",
            json!({"name": "summed", "arguments": {"a": 1, "b": 1}}),
        )
        .await;
    assert_eq!(r["structuredContent"], json!({"sum": 2, "calls": 2}), "{r}");
    assert!(
        r["content"][0]["text"]
            .as_str()
            .unwrap_or("")
            .starts_with("1 + 1 (request "),
        "{r}"
    );
    let r = client
        .call("resources/read", json!({"uri": "count://x"}))
        .await;
    assert_eq!(r["contents"][0]["text"], "x: 3", "{r}");
    let r = client
        .call(
            "prompts/get",
            json!({"name": "greet", "arguments": {"name": "Al"}}),
        )
        .await;
    assert_eq!(r["messages"][0]["content"]["text"], "Hello Al (4)", "{r}");
    let r = client
        .call(
            "completion/complete",
            json!({"ref": {"type": "ref/prompt", "name": "greet"}, "argument": {"name": "name", "value": "al"}}),
        )
        .await;
    assert_eq!(r["completion"]["values"], json!(["alice"]), "{r}");
    let r = client.call("tools/call", json!({"name": "ping"})).await;
    assert_eq!(r["content"][0]["text"], "pong", "{r}");
}

#[tokio::test]
async fn meta_reaches_the_handler() {
    let mut client = RawClient::initialized(&server(), LATEST, json!({})).await;
    let r = client
        .call(
            "tools/call",
            json!({"name": "meta", "arguments": {}, "_meta": {"trace": "abc", "progressToken": 7}}),
        )
        .await;
    assert_eq!(
        r["structuredContent"],
        json!({"trace": "abc", "progressToken": 7}),
        "{r}"
    );
    let r = client.call("tools/call", json!({"name": "meta"})).await;
    assert_eq!(r["structuredContent"], json!({}), "{r}");
    let e = client
        .call_err(
            "tools/call",
            json!({"name": "meta", "_meta": ["not", "an", "object"]}),
        )
        .await;
    assert_eq!(e["code"], -32602, "{e}");
}

#[tokio::test]
async fn tool_errors_keep_their_sources_and_protocol_errors_are_errors() {
    let mut client = RawClient::initialized(&server(), LATEST, json!({})).await;
    let r = client.call("tools/call", json!({"name": "failing"})).await;
    assert_eq!(r["isError"], true, "{r}");
    assert_eq!(
        r["content"][0]["text"], "the lookup failed: no such key",
        "{r}"
    );
    let e = client
        .call_err(
            "tools/call",
            json!({"name": "failing", "_meta": {"refuse": true}}),
        )
        .await;
    assert_eq!(e["code"], -32602, "{e}");
    assert_eq!(e["message"], "refused by _meta", "{e}");
}

#[tokio::test]
async fn arguments_are_checked_by_their_type() {
    let mut client = RawClient::initialized(&server(), LATEST, json!({})).await;
    let r = client
        .call(
            "tools/call",
            json!({"name": "add", "arguments": {"a": 1, "b": 2, "c": 3}}),
        )
        .await;
    assert_eq!(r["isError"], true, "{r}");
    let text = r["content"][0]["text"].as_str().unwrap_or_default();
    assert!(text.contains("unknown field `c`"), "{text}");
    let mut old = RawClient::initialized(&server(), "2025-06-18", json!({})).await;
    let e = old
        .call_err(
            "tools/call",
            json!({"name": "add", "arguments": {"a": "x"}}),
        )
        .await;
    assert_eq!(e["code"], -32602, "{e}");
}

/// An I/O error, as reading a missing file gives.
fn missing_file() -> std::io::Result<String> {
    Err(std::io::Error::new(
        std::io::ErrorKind::NotFound,
        "no such file",
    ))
}

async fn tool_reading() -> Result<String, HandlerError> {
    Ok(missing_file()?)
}

async fn resource_reading(_: ResourceRequest) -> std::io::Result<String> {
    missing_file()
}

async fn template_parsing(req: ResourceRequest) -> Result<String, HandlerError> {
    let n: u32 = req.var("n").unwrap_or_default().parse()?;
    Ok(n.to_string())
}

async fn prompt_parsing(args: PromptArguments) -> Result<String, HandlerError> {
    let n: u32 = args.get("n").map_or("", String::as_str).parse()?;
    Ok(n.to_string())
}

async fn completion_reading(_: CompletionRequest) -> Result<Vec<String>, HandlerError> {
    Ok(vec![missing_file()?])
}

/// Every kind of handler, each failing with `?` on a std error.
fn failing_server() -> Server {
    Server::builder("failing", "1.0.0")
        .tool(Tool::new("read", "Reads a missing file"), tool_reading)
        .resource(
            mcp_server::Resource::new("file:///missing", "missing"),
            resource_reading,
        )
        .resource(
            mcp_server::Resource::new("file:///gone", "gone"),
            |req: ResourceRequest| async move {
                Err::<String, _>(ServerError::ResourceNotFound(req.uri))
            },
        )
        .resource_template(
            ResourceTemplate::new("num://{n}", "numbers"),
            template_parsing,
        )
        .prompt(
            Prompt::new("num", "Parses n").argument("n", "A number", true),
            prompt_parsing,
        )
        .prompt_completion("num", "n", completion_reading)
        .build()
}

/// The code and message of the JSON-RPC error `method` is answered with.
async fn refusal(client: &mut RawClient, method: &str, params: Value) -> (i64, String) {
    let e = client.call_err(method, params).await;
    let message = e["message"].as_str().unwrap_or_default().to_owned();
    (e["code"].as_i64().unwrap_or_default(), message)
}

#[tokio::test]
async fn every_handler_kind_takes_any_error_with_question_mark() {
    let mut client = RawClient::initialized(&failing_server(), LATEST, json!({})).await;
    // A tool: an `isError` result the model can read.
    let r = client.call("tools/call", json!({"name": "read"})).await;
    assert_eq!(r["isError"], true, "{r}");
    assert_eq!(r["content"][0]["text"], "no such file", "{r}");
    // Resources, templates, prompts, completions: a JSON-RPC error with the message.
    let missing = json!({"uri": "file:///missing"});
    let (code, message) = refusal(&mut client, "resources/read", missing).await;
    assert_eq!((code, message.as_str()), (-32603, "no such file"));
    let bad_number = json!({"uri": "num://x"});
    let (code, message) = refusal(&mut client, "resources/read", bad_number).await;
    assert!(
        code == -32603 && message.contains("invalid digit"),
        "{message}"
    );
    let prompt = json!({"name": "num", "arguments": {"n": "x"}});
    let (code, message) = refusal(&mut client, "prompts/get", prompt).await;
    assert!(
        code == -32603 && message.contains("invalid digit"),
        "{message}"
    );
    let completion = json!({"ref": {"type": "ref/prompt", "name": "num"}, "argument": {"name": "n", "value": "1"}});
    let (code, message) = refusal(&mut client, "completion/complete", completion).await;
    assert_eq!((code, message.as_str()), (-32603, "no such file"));
    // The `Ok` side still answers; a returned `ServerError` keeps its code (not found).
    let r = client
        .call("resources/read", json!({"uri": "num://7"}))
        .await;
    assert_eq!(r["contents"][0]["text"], "7", "{r}");
    let e = client
        .call_err("resources/read", json!({"uri": "file:///gone"}))
        .await;
    assert_eq!(
        (e["code"].clone(), e["data"]["uri"].clone()),
        (json!(-32002), json!("file:///gone")),
        "{e}"
    );
}

#[test]
fn a_tool_whose_arguments_are_not_an_object_is_refused_at_registration() {
    let refused = Server::builder("s", "1")
        .tool(Tool::new("fine", "Takes an object"), |p: Pair| async move {
            (p.a + p.b).to_string()
        })
        .tool(
            Tool::new("shout", "Takes a string"),
            |s: String| async move { s.to_uppercase() },
        )
        .try_build();
    let error = refused.err().map(|e| e.to_string()).unwrap_or_default();
    assert!(error.contains("tool \"shout\""), "{error}");
    assert!(error.contains("String"), "{error}");
    assert!(!error.contains("fine"), "{error}");
}

#[test]
#[should_panic(expected = "tool \"sum\"")]
fn build_panics_on_a_tool_whose_arguments_are_a_list() {
    Server::builder("s", "1")
        .tool(Tool::new("sum", "Sums"), |n: Vec<i64>| async move {
            n.iter().sum::<i64>().to_string()
        })
        .build();
}

#[tokio::test]
async fn a_runtime_tool_whose_arguments_are_not_an_object_is_an_error() {
    let server = Server::builder("s", "1")
        .tool(Tool::new("none", "No arguments"), || async { "ok" })
        .build();
    let refused = server.add_tool(Tool::new("double", "Doubles"), |n: i64| async move {
        (2 * n).to_string()
    });
    let error = refused.err().map(|e| e.to_string()).unwrap_or_default();
    assert!(
        error.contains("tool \"double\"") && error.contains("i64"),
        "{error}"
    );
    // Not added; a tool with an object for arguments is.
    let added = server.add_tool(Tool::new("pair", "A pair"), |p: Pair| async move {
        (p.a + p.b).to_string()
    });
    assert!(added.is_ok());
    let mut client = RawClient::initialized(&server, LATEST, json!({})).await;
    let tools = client.call("tools/list", json!({})).await;
    let listed = tools["tools"].to_string();
    assert!(
        listed.contains("\"pair\"") && !listed.contains("double"),
        "{listed}"
    );
}

/// A second kind of shared state, beside [`Counter`].
#[derive(Clone)]
struct Greeting(&'static str);

#[tokio::test]
async fn state_reaches_handlers_registered_before_after_and_at_run_time() {
    let server = Server::builder("state", "1.0.0")
        .tool(
            Tool::new("early", "Registered before the state"),
            |State(counter): State<Counter>| async move { counter.bump().to_string() },
        )
        .prompt(
            Prompt::new("hello", "Greets"),
            |State(Greeting(g)): State<Greeting>, State(counter): State<Counter>| async move {
                format!("{g} {}", counter.bump())
            },
        )
        .state(Counter::default())
        .state(Greeting("hi"))
        .tool(
            Tool::new("late", "Registered after it"),
            |State(counter): State<Counter>| async move { counter.bump().to_string() },
        )
        .build();
    let at_run_time = server.add_tool(
        Tool::new("runtime", "Added while serving"),
        |State(counter): State<Counter>| async move { counter.bump().to_string() },
    );
    assert!(at_run_time.is_ok());
    let mut client = RawClient::initialized(&server, LATEST, json!({})).await;
    for (name, count) in [("early", "1"), ("late", "2"), ("runtime", "3")] {
        let r = client.call("tools/call", json!({"name": name})).await;
        assert_eq!(r["content"][0]["text"], count, "{name}: {r}");
    }
    let r = client.call("prompts/get", json!({"name": "hello"})).await;
    assert_eq!(r["messages"][0]["content"]["text"], "hi 4", "{r}");
}

/// Asserts `result` is the refusal of `handler` for taking a `State<Greeting>` never given.
fn refused_for_greeting<T>(result: Result<T, ServerError>, handler: &str) {
    let error = result.err().map(|e| e.to_string()).unwrap_or_default();
    assert!(
        error.contains(handler) && error.contains("State<authoring::Greeting>"),
        "{error}"
    );
}

#[tokio::test]
async fn a_handler_taking_state_never_given_is_refused_at_registration() {
    let greet = || Tool::new("greet", "Greets");
    let greeting = |State(Greeting(g)): State<Greeting>| async move { g };
    let built = Server::builder("s", "1")
        .state(Counter::default())
        .tool(greet(), greeting)
        .try_build();
    refused_for_greeting(built, "tool \"greet\"");
    let server = Server::builder("s", "1").state(Counter::default()).build();
    refused_for_greeting(server.add_tool(greet(), greeting), "tool \"greet\"");
    let template = ResourceTemplate::new("greeting://{who}", "greetings");
    let added = server.add_resource_template(template, greeting);
    refused_for_greeting(added, "template \"greeting://{who}\"");
    let added = server.add_resource(Resource::new("greeting://all", "all"), greeting);
    refused_for_greeting(added, "resource \"greeting://all\"");
    let added = server.add_prompt(Prompt::new("greet", "Greets"), greeting);
    refused_for_greeting(added, "prompt \"greet\"");
}
