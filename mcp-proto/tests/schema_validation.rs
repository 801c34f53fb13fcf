//! Every request, notification and result type, built with the fields each protocol version
//! knows, serialized, and validated against that version's official JSON Schema
//! (`shared/spec/schema/<version>/schema.json`). Skips with a note when the spec is absent.

use std::collections::{BTreeMap, HashMap};
use std::path::PathBuf;
use std::sync::{Arc, Mutex, OnceLock};

use mcp_proto::schema::modern::meta_keys;
use mcp_proto::schema::*;
use mcp_proto::{ProtocolVersion as V, RequestId};
use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::{json, Value};

// ---------------------------------------------------------------------------------------------
// The schemas and a validator cache.

struct Spec {
    docs: HashMap<V, (Value, &'static str)>,
    validators: Mutex<HashMap<(V, String), Arc<jsonschema::Validator>>>,
}

fn spec_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared/spec/schema")
}

fn spec() -> Option<&'static Spec> {
    static SPEC: OnceLock<Option<Spec>> = OnceLock::new();
    SPEC.get_or_init(|| {
        let dir = spec_dir();
        let mut docs = HashMap::new();
        for v in V::ALL {
            let path = dir.join(v.as_str()).join("schema.json");
            let Ok(text) = std::fs::read_to_string(&path) else {
                eprintln!(
                    "note: {} not found; skipping schema validation",
                    path.display()
                );
                return None;
            };
            let doc: Value = serde_json::from_str(&text).expect("schema.json is JSON");
            let key = if doc.get("$defs").is_some() {
                "$defs"
            } else {
                "definitions"
            };
            docs.insert(v, (doc, key));
        }
        Some(Spec {
            docs,
            validators: Mutex::new(HashMap::new()),
        })
    })
    .as_ref()
}

impl Spec {
    fn definition(&self, v: V, def: &str) -> Option<&Value> {
        let (doc, key) = &self.docs[&v];
        doc.get(*key)?.get(def)
    }

    fn has(&self, v: V, def: &str) -> bool {
        self.definition(v, def).is_some()
    }

    /// The fields a definition marks required.
    fn required(&self, v: V, def: &str) -> Vec<String> {
        self.definition(v, def)
            .and_then(|d| d.get("required"))
            .and_then(Value::as_array)
            .map(|a| {
                a.iter()
                    .filter_map(|s| s.as_str().map(str::to_owned))
                    .collect()
            })
            .unwrap_or_default()
    }

    fn validator(&self, v: V, def: &str) -> Arc<jsonschema::Validator> {
        let mut cache = self.validators.lock().unwrap();
        cache
            .entry((v, def.to_owned()))
            .or_insert_with(|| {
                let (doc, key) = &self.docs[&v];
                let mut schema = doc.clone();
                schema["$ref"] = Value::String(format!("#/{key}/{def}"));
                Arc::new(
                    jsonschema::validator_for(&schema).unwrap_or_else(|e| {
                        panic!("cannot compile {}#/{key}/{def}: {e}", v.as_str())
                    }),
                )
            })
            .clone()
    }

    fn errors(&self, v: V, def: &str, instance: &Value) -> Vec<String> {
        let validator = self.validator(v, def);
        validator
            .iter_errors(instance)
            .map(|e| format!("at {}: {}", e.instance_path, e))
            .collect()
    }
}

// ---------------------------------------------------------------------------------------------
// A report of checks and failures; it panics at the end with every failure listed.

struct Report {
    spec: &'static Spec,
    checks: usize,
    failures: Vec<String>,
    next_id: i64,
}

impl Report {
    fn new(spec: &'static Spec) -> Self {
        Report {
            spec,
            checks: 0,
            failures: Vec::new(),
            next_id: 0,
        }
    }

    fn validate(&mut self, v: V, def: &str, instance: &Value) {
        if !self.spec.has(v, def) {
            self.failures
                .push(format!("{}: no definition {def}", v.as_str()));
            return;
        }
        self.checks += 1;
        let errors = self.spec.errors(v, def, instance);
        if !errors.is_empty() {
            self.failures.push(format!(
                "{} {def}: {}\n    instance: {instance}",
                v.as_str(),
                errors.join("; ")
            ));
        }
    }

    fn validate_if_defined(&mut self, v: V, def: &str, instance: &Value) {
        if self.spec.has(v, def) {
            self.validate(v, def, instance);
        }
    }

    /// Decodes `value` as `T` and checks it encodes back to the same JSON.
    fn round_trip<T: Serialize + DeserializeOwned>(&mut self, what: &str, value: &Value) {
        self.checks += 1;
        match serde_json::from_value::<T>(value.clone()) {
            Ok(t) => {
                let back = serde_json::to_value(&t).unwrap();
                if &back != value {
                    self.failures
                        .push(format!("{what}: round trip changed {value} into {back}"));
                }
            }
            Err(e) => self
                .failures
                .push(format!("{what}: cannot decode {value}: {e}")),
        }
    }

    fn id(&mut self) -> Value {
        self.next_id += 1;
        if self.next_id % 2 == 0 {
            json!(self.next_id)
        } else {
            json!(format!("req-{}", self.next_id))
        }
    }

    /// Checks request params of `R` and the whole JSON-RPC request against `def`.
    fn request<R: RequestType>(&mut self, v: V, def: &str, params: Vec<R::Params>) {
        for p in params {
            let mut pv = serde_json::to_value(&p).unwrap();
            if v == V::V2026_07_28 && !is_input_request(R::METHOD) {
                add_request_meta(&mut pv);
            }
            self.round_trip::<R::Params>(&format!("{} params", R::METHOD), &pv);
            self.validate_if_defined(v, &format!("{def}Params"), &pv);
            let id = self.id();
            let msg = json!({"jsonrpc": "2.0", "id": id, "method": R::METHOD, "params": pv});
            self.validate(v, def, &msg);
            self.validate(v, "JSONRPCRequest", &msg);
        }
    }

    /// Checks results of `R` against `def`, and wrapped in a JSON-RPC response.
    fn result<R: RequestType>(&mut self, v: V, def: &str, results: Vec<R::Result>) {
        for r in results {
            let mut rv = serde_json::to_value(&r).unwrap();
            if v == V::V2026_07_28 {
                self.add_modern_result_fields(v, def, &mut rv);
            }
            self.round_trip::<R::Result>(&format!("{} result", R::METHOD), &rv);
            self.validate(v, def, &rv);
            if v == V::V2026_07_28 && is_input_request(R::METHOD) {
                // In 2026-07-28 these answers travel inside `inputResponses`, not as responses.
                continue;
            }
            let id = self.id();
            let msg = json!({"jsonrpc": "2.0", "id": id, "result": rv});
            let response = if self.spec.has(v, "JSONRPCResultResponse") {
                "JSONRPCResultResponse"
            } else {
                "JSONRPCResponse"
            };
            self.validate(v, response, &msg);
            self.validate_if_defined(v, &format!("{def}Response"), &msg);
        }
    }

    /// Checks notification params of `N` and the whole JSON-RPC notification against `def`.
    fn notification<N: NotificationType>(&mut self, v: V, def: &str, params: Vec<N::Params>) {
        for p in params {
            let pv = serde_json::to_value(&p).unwrap();
            self.round_trip::<N::Params>(&format!("{} params", N::METHOD), &pv);
            self.validate_if_defined(v, &format!("{def}Params"), &pv);
            let msg = json!({"jsonrpc": "2.0", "method": N::METHOD, "params": pv});
            self.validate(v, def, &msg);
            self.validate(v, "JSONRPCNotification", &msg);
        }
    }

    /// Checks plain objects (content blocks, tools, capabilities...) against `def`.
    fn object<T: Serialize + DeserializeOwned>(&mut self, v: V, def: &str, items: Vec<T>) {
        for item in items {
            let value = serde_json::to_value(&item).unwrap();
            self.round_trip::<T>(def, &value);
            self.validate(v, def, &value);
        }
    }

    /// 2026-07-28 results need `resultType`, and cacheable ones `ttlMs`/`cacheScope`; set them
    /// through the typed accessors where the definition requires them.
    fn add_modern_result_fields(&self, v: V, def: &str, rv: &mut Value) {
        let required = self.spec.required(v, def);
        let Some(obj) = rv.as_object_mut() else {
            return;
        };
        if required.iter().any(|f| f == "resultType") && !obj.contains_key("resultType") {
            obj.insert("resultType".into(), json!("complete"));
        }
        if required.iter().any(|f| f == "ttlMs") && !obj.contains_key("ttlMs") {
            obj.insert("ttlMs".into(), json!(60_000));
            obj.insert("cacheScope".into(), json!("private"));
        }
    }

    fn finish(self, area: &str) {
        eprintln!(
            "{area}: {} checks, {} failures",
            self.checks,
            self.failures.len()
        );
        assert!(
            self.failures.is_empty(),
            "{area}: {} failures:\n{}",
            self.failures.len(),
            self.failures.join("\n")
        );
    }
}

/// Requests a 2026-07-28 server sends inside `input_required` results: no per-request `_meta`.
fn is_input_request(method: &str) -> bool {
    matches!(
        method,
        "sampling/createMessage" | "roots/list" | "elicitation/create"
    )
}

/// Puts the required 2026-07-28 per-request keys into `params._meta`, keeping what is there.
fn add_request_meta(params: &mut Value) {
    let mut meta = RequestMeta::new("2026-07-28", ClientCapabilities::default());
    meta.client_info = Some(Implementation::new("test-client", "1.0.0"));
    let obj = params.as_object_mut().expect("params are an object");
    let existing = obj.entry("_meta").or_insert_with(|| json!({}));
    for (k, val) in meta.to_meta() {
        existing[k.as_str()] = val;
    }
}

macro_rules! with_spec {
    () => {
        match spec() {
            Some(spec) => spec,
            None => {
                eprintln!("note: shared/spec not found beside the repository; test skipped");
                return;
            }
        }
    };
}

fn at_least(v: V, since: V) -> bool {
    v >= since
}

fn meta(pairs: Value) -> Option<Meta> {
    pairs.as_object().cloned()
}

fn progress_meta() -> Option<Meta> {
    meta(json!({"progressToken": "tok-1"}))
}

/// Versions that have the `initialize` handshake.
fn handshake_versions() -> impl Iterator<Item = V> {
    V::HANDSHAKE.into_iter()
}

// ---------------------------------------------------------------------------------------------
// Builders of instances, per version.

fn icons() -> Vec<Icon> {
    vec![
        Icon::new("https://example.com/icon.png"),
        Icon {
            mime_type: Some("image/svg+xml".into()),
            sizes: Some(vec!["any".into()]),
            theme: Some(IconTheme::Dark),
            ..Icon::new("data:image/svg+xml;base64,PHN2Zz48L3N2Zz4=")
        },
    ]
}

fn annotations(v: V) -> Annotations {
    Annotations {
        audience: Some(vec![Role::User, Role::Assistant]),
        priority: Some(0.5),
        last_modified: at_least(v, V::V2025_06_18).then(|| "2025-01-12T15:00:58Z".into()),
        ..Default::default()
    }
}

fn implementation(v: V) -> Vec<Implementation> {
    let mut out = vec![Implementation::new("impl", "1.2.3")];
    if at_least(v, V::V2025_06_18) {
        out.push(Implementation {
            title: Some("Impl".into()),
            ..Implementation::new("impl", "1")
        });
    }
    if at_least(v, V::V2025_11_25) {
        out.push(Implementation {
            title: Some("Impl".into()),
            description: Some("an implementation".into()),
            icons: Some(icons()),
            website_url: Some("https://example.com".into()),
            ..Implementation::new("impl", "1")
        });
    }
    out
}

/// Content blocks valid in a `ContentBlock` position of version `v`.
fn content_blocks(v: V) -> Vec<Content> {
    let mut out = vec![
        Content::text("hello"),
        Content::text("annotated").with_annotations(annotations(v)),
        Content::image("iVBORw0KGgo=", "image/png"),
        Content::embedded_text("file:///a.txt", "text"),
        Content::resource(BlobResourceContents::new("file:///a.bin", "AAEC").with_mime_type("x/y")),
        Content::resource(
            TextResourceContents::new("file:///b.md", "# b").with_mime_type("text/md"),
        )
        .with_annotations(annotations(v)),
    ];
    if at_least(v, V::V2025_03_26) {
        out.push(Content::audio("UklGRg==", "audio/wav"));
    }
    if at_least(v, V::V2025_06_18) {
        out.push(Content::resource_link("file:///c.rs", "c.rs"));
        out.push(Content::ResourceLink(ResourceLink {
            title: Some("C".into()),
            description: Some("source".into()),
            mime_type: Some("text/x-rust".into()),
            size: Some(12),
            annotations: Some(annotations(v)),
            meta: meta(json!({"k": "v"})),
            icons: at_least(v, V::V2025_11_25).then(icons),
            ..ResourceLink::new("file:///c.rs", "c.rs")
        }));
        out.push(Content::Text(TextContent {
            meta: meta(json!({"x": 1})),
            ..TextContent::new("m")
        }));
    }
    out
}

fn tools(v: V) -> Vec<Tool> {
    let mut out = vec![
        Tool::new("no_args", "Takes nothing"),
        Tool {
            description: None,
            ..Tool::new("min", "").with_input_schema(json!({"type": "object"}))
        },
        Tool::new("weather", "Get weather").with_input_schema(json!({
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "type": "object",
            "properties": {
                "city": {"type": "string"},
                "units": {"$ref": "#/$defs/units"}
            },
            "required": ["city"],
            "additionalProperties": false,
            "$defs": {"units": {"enum": ["c", "f"]}}
        })),
    ];
    if at_least(v, V::V2025_03_26) {
        out.push(
            Tool::new("annotated", "d").with_annotations(ToolAnnotations {
                title: Some("Annotated".into()),
                read_only_hint: Some(true),
                destructive_hint: Some(false),
                idempotent_hint: Some(true),
                open_world_hint: Some(false),
                ..Default::default()
            }),
        );
    }
    if at_least(v, V::V2025_06_18) {
        out.push(
            Tool::new("structured", "d")
                .with_title("Structured")
                .with_output_schema(
                    json!({"type": "object", "properties": {"t": {"type": "number"}}}),
                )
                .with_input_schema(json!({"type": "object", "properties": {}})),
        );
    }
    if at_least(v, V::V2025_11_25) {
        let mut t = Tool::new("fancy", "d");
        t.icons = Some(icons());
        t.meta = meta(json!({"com.example/x": true}));
        if v == V::V2025_11_25 {
            t.execution = Some(ToolExecution {
                task_support: Some(TaskSupport::Optional),
                ..Default::default()
            });
        }
        out.push(t);
    }
    out
}

fn resources(v: V) -> Vec<Resource> {
    let mut out = vec![
        Resource::new("file:///a", "a"),
        Resource {
            size: Some(10),
            annotations: Some(annotations(v)),
            ..Resource::new("file:///b", "b")
                .with_description("B")
                .with_mime_type("text/plain")
        },
    ];
    if at_least(v, V::V2025_06_18) {
        out.push(Resource {
            title: Some("C".into()),
            meta: meta(json!({"k": 1})),
            icons: at_least(v, V::V2025_11_25).then(icons),
            ..Resource::new("file:///c", "c")
        });
    }
    out
}

fn templates(v: V) -> Vec<ResourceTemplate> {
    let mut out = vec![
        ResourceTemplate::new("file:///{path}", "files"),
        ResourceTemplate {
            description: Some("d".into()),
            mime_type: Some("text/plain".into()),
            annotations: Some(annotations(v)),
            ..ResourceTemplate::new("db://{table}/{id}", "rows")
        },
    ];
    if at_least(v, V::V2025_06_18) {
        out.push(ResourceTemplate {
            title: Some("T".into()),
            icons: at_least(v, V::V2025_11_25).then(icons),
            meta: meta(json!({"k": 1})),
            ..ResourceTemplate::new("x://{y}", "x")
        });
    }
    out
}

fn prompts(v: V) -> Vec<Prompt> {
    let mut out = vec![
        Prompt::new("plain"),
        Prompt::new("review")
            .with_description("Review code")
            .with_argument(PromptArgument::new("code", true))
            .with_argument(PromptArgument {
                description: Some("style".into()),
                ..PromptArgument::new("style", false)
            }),
    ];
    if at_least(v, V::V2025_06_18) {
        let mut p = Prompt::new("titled").with_argument(PromptArgument {
            title: Some("Code".into()),
            ..PromptArgument::new("code", true)
        });
        p.title = Some("Titled".into());
        p.meta = meta(json!({"k": 1}));
        if at_least(v, V::V2025_11_25) {
            p.icons = Some(icons());
        }
        out.push(p);
    }
    out
}

fn client_capabilities(v: V) -> Vec<ClientCapabilities> {
    let mut out = vec![
        ClientCapabilities::default(),
        ClientCapabilities {
            roots: Some(RootsCapability {
                list_changed: Some(true),
                ..Default::default()
            }),
            sampling: Some(SamplingCapability::default()),
            experimental: meta(json!({"x": {"y": 1}})),
            ..Default::default()
        },
    ];
    if at_least(v, V::V2025_06_18) {
        out.push(ClientCapabilities {
            elicitation: Some(ElicitationCapability::default()),
            ..Default::default()
        });
    }
    if v == V::V2025_11_25 {
        out.push(ClientCapabilities {
            elicitation: Some(ElicitationCapability {
                form: Some(JsonObject::new()),
                url: Some(JsonObject::new()),
                ..Default::default()
            }),
            sampling: Some(SamplingCapability {
                context: Some(JsonObject::new()),
                tools: Some(JsonObject::new()),
                ..Default::default()
            }),
            tasks: Some(ClientTasksCapability {
                list: Some(JsonObject::new()),
                cancel: Some(JsonObject::new()),
                requests: Some(ClientTaskRequests {
                    sampling: Some(SamplingTaskRequests {
                        create_message: Some(JsonObject::new()),
                        ..Default::default()
                    }),
                    elicitation: Some(ElicitationTaskRequests {
                        create: Some(JsonObject::new()),
                        ..Default::default()
                    }),
                    ..Default::default()
                }),
                ..Default::default()
            }),
            ..Default::default()
        });
    }
    if v == V::V2026_07_28 {
        out.push(ClientCapabilities {
            extensions: meta(json!({"io.modelcontextprotocol/ui": {"mimeTypes": ["text/html"]}})),
            ..Default::default()
        });
    }
    out
}

fn server_capabilities(v: V) -> Vec<ServerCapabilities> {
    let mut out = vec![
        ServerCapabilities::default(),
        ServerCapabilities {
            logging: Some(JsonObject::new()),
            prompts: Some(PromptsCapability {
                list_changed: Some(true),
                ..Default::default()
            }),
            resources: Some(ResourcesCapability {
                subscribe: Some(true),
                list_changed: Some(false),
                ..Default::default()
            }),
            tools: Some(ToolsCapability::default()),
            experimental: meta(json!({"x": {}})),
            ..Default::default()
        },
    ];
    if at_least(v, V::V2025_03_26) {
        out.push(ServerCapabilities {
            completions: Some(JsonObject::new()),
            ..Default::default()
        });
    }
    if v == V::V2025_11_25 {
        out.push(ServerCapabilities {
            tasks: Some(ServerTasksCapability {
                list: Some(JsonObject::new()),
                cancel: Some(JsonObject::new()),
                requests: Some(ServerTaskRequests {
                    tools: Some(ToolsTaskRequests {
                        call: Some(JsonObject::new()),
                        ..Default::default()
                    }),
                    ..Default::default()
                }),
                ..Default::default()
            }),
            ..Default::default()
        });
    }
    if v == V::V2026_07_28 {
        out.push(ServerCapabilities {
            extensions: meta(json!({"io.modelcontextprotocol/tasks": {}})),
            ..Default::default()
        });
    }
    out
}

fn sampling_messages(v: V) -> Vec<SamplingMessage> {
    let mut out = vec![
        SamplingMessage::user_text("What is 2+2?"),
        SamplingMessage::new(Role::Assistant, Content::image("iVBORw0KGgo=", "image/png")),
    ];
    if at_least(v, V::V2025_03_26) {
        out.push(SamplingMessage::new(
            Role::User,
            Content::audio("UklGRg==", "audio/wav"),
        ));
    }
    if at_least(v, V::V2025_11_25) {
        let input = json!({"city": "Paris"})
            .as_object()
            .cloned()
            .unwrap_or_default();
        out.push(SamplingMessage::new(
            Role::Assistant,
            vec![Content::tool_use("call-1", "weather", input)],
        ));
        out.push(SamplingMessage {
            meta: meta(json!({"k": 1})),
            ..SamplingMessage::new(
                Role::User,
                vec![Content::ToolResult(ToolResultContent {
                    structured_content: Some(json!({"t": 20})),
                    is_error: Some(false),
                    ..match Content::tool_result("call-1", vec![Content::text("20C")]) {
                        Content::ToolResult(r) => r,
                        _ => unreachable!(),
                    }
                })],
            )
        });
    }
    out
}

fn task(status: TaskStatus, ttl: Option<u64>) -> Task {
    Task::new("task-1", status, "2025-11-25T10:00:00Z", ttl)
}

fn modern_meta_map() -> Meta {
    let mut m = RequestMeta::new("2026-07-28", ClientCapabilities::default());
    m.log_level = Some(LoggingLevel::Info);
    m.to_meta()
}

// ---------------------------------------------------------------------------------------------
// The checks, one test per area.

#[test]
fn lifecycle_and_ping() {
    let spec = with_spec!();
    let mut r = Report::new(spec);
    for v in handshake_versions() {
        let params: Vec<InitializeParams> = client_capabilities(v)
            .into_iter()
            .zip(implementation(v).into_iter().cycle())
            .map(|(caps, info)| InitializeParams::new(v.as_str(), caps, info))
            .chain([InitializeParams {
                meta: progress_meta(),
                ..InitializeParams::new(
                    v.as_str(),
                    Default::default(),
                    Implementation::new("c", "1"),
                )
            }])
            .collect();
        r.request::<Initialize>(v, "InitializeRequest", params);
        let results: Vec<InitializeResult> = server_capabilities(v)
            .into_iter()
            .zip(implementation(v).into_iter().cycle())
            .map(|(caps, info)| InitializeResult::new(v.as_str(), caps, info))
            .chain([InitializeResult {
                instructions: Some("Use the tools.".into()),
                meta: meta(json!({"k": 1})),
                ..InitializeResult::new(
                    v.as_str(),
                    Default::default(),
                    Implementation::new("s", "1"),
                )
            }])
            .collect();
        r.result::<Initialize>(v, "InitializeResult", results);
        r.notification::<Initialized>(
            v,
            "InitializedNotification",
            vec![
                EmptyParams::default(),
                EmptyParams {
                    meta: meta(json!({"k": 1})),
                    ..Default::default()
                },
            ],
        );
        r.request::<Ping>(
            v,
            "PingRequest",
            vec![
                EmptyParams::default(),
                EmptyParams {
                    meta: progress_meta(),
                    ..Default::default()
                },
            ],
        );
        r.result::<Ping>(
            v,
            "EmptyResult",
            vec![
                EmptyResult::default(),
                EmptyResult {
                    meta: meta(json!({"k": 1})),
                    ..Default::default()
                },
            ],
        );
    }
    for v in V::ALL {
        r.object(v, "Implementation", implementation(v));
        r.object(v, "ClientCapabilities", client_capabilities(v));
        r.object(v, "ServerCapabilities", server_capabilities(v));
    }
    r.finish("lifecycle");
}

#[test]
fn content_blocks_validate() {
    let spec = with_spec!();
    let mut r = Report::new(spec);
    for v in V::ALL {
        for block in content_blocks(v) {
            let def = match &block {
                Content::Text(_) => "TextContent",
                Content::Image(_) => "ImageContent",
                Content::Audio(_) => "AudioContent",
                Content::Resource(_) => "EmbeddedResource",
                Content::ResourceLink(_) => "ResourceLink",
                Content::ToolUse(_) => "ToolUseContent",
                Content::ToolResult(_) => "ToolResultContent",
            };
            r.object(v, def, vec![block.clone()]);
            r.validate_if_defined(v, "ContentBlock", &serde_json::to_value(&block).unwrap());
        }
        if at_least(v, V::V2025_11_25) {
            r.object(v, "Icon", icons());
        }
        r.object(
            v,
            "TextResourceContents",
            vec![TextResourceContents::new("file:///a", "x").with_mime_type("text/plain")],
        );
        r.object(
            v,
            "BlobResourceContents",
            vec![BlobResourceContents::new("file:///a", "AA==")],
        );
    }
    r.finish("content");
}

#[test]
fn tools_validate() {
    let spec = with_spec!();
    let mut r = Report::new(spec);
    for v in V::ALL {
        r.object(v, "Tool", tools(v));
        r.request::<ListTools>(
            v,
            "ListToolsRequest",
            vec![PaginatedParams::default(), PaginatedParams::after("c2")],
        );
        r.result::<ListTools>(
            v,
            "ListToolsResult",
            vec![
                ListToolsResult::new(tools(v)),
                ListToolsResult {
                    next_cursor: Some("next".into()),
                    ..ListToolsResult::new(vec![])
                },
            ],
        );
        let mut calls = vec![
            CallToolParams::new("no_args"),
            CallToolParams::new("weather")
                .with_arguments(json!({"city": "Paris", "n": [1, {"a": null}]})),
            CallToolParams {
                meta: progress_meta(),
                ..CallToolParams::new("x")
            },
        ];
        if v == V::V2025_11_25 {
            calls.push(CallToolParams {
                task: Some(TaskMetadata {
                    ttl: Some(60_000),
                    ..Default::default()
                }),
                ..CallToolParams::new("slow")
            });
            calls.push(CallToolParams {
                task: Some(TaskMetadata::default()),
                ..CallToolParams::new("slow")
            });
        }
        if v == V::V2026_07_28 {
            let mut responses = InputResponses::new();
            responses.insert(
                "confirm".into(),
                InputResponse::Elicitation(ElicitResult::accept(meta(json!({"ok": true})))),
            );
            responses.insert(
                "roots".into(),
                InputResponse::Roots(ListRootsResult::new(vec![Root::new("file:///p", None)])),
            );
            responses.insert(
                "llm".into(),
                InputResponse::Sampling(CreateMessageResult::text("m", "hi")),
            );
            calls.push(CallToolParams {
                input_responses: Some(responses),
                request_state: Some("opaque".into()),
                ..CallToolParams::new("retry")
            });
        }
        r.request::<CallTool>(v, "CallToolRequest", calls);
        let mut results = vec![
            CallToolResult::text("ok"),
            CallToolResult::error("failed: bad input"),
            CallToolResult::new(content_blocks(v)),
            CallToolResult {
                meta: meta(json!({"k": 1})),
                is_error: Some(false),
                ..CallToolResult::default()
            },
        ];
        if at_least(v, V::V2025_06_18) {
            results.push(CallToolResult::structured(json!({"t": 20.5, "c": "sunny"})));
        }
        if v == V::V2026_07_28 {
            results.push(CallToolResult::structured(json!([1, 2, 3])));
        }
        r.result::<CallTool>(v, "CallToolResult", results);
        r.notification::<ToolListChanged>(
            v,
            "ToolListChangedNotification",
            vec![EmptyParams::default()],
        );
    }
    r.finish("tools");
}

#[test]
fn resources_validate() {
    let spec = with_spec!();
    let mut r = Report::new(spec);
    for v in V::ALL {
        r.object(v, "Resource", resources(v));
        r.object(v, "ResourceTemplate", templates(v));
        r.request::<ListResources>(
            v,
            "ListResourcesRequest",
            vec![PaginatedParams::default(), PaginatedParams::after("c")],
        );
        r.result::<ListResources>(
            v,
            "ListResourcesResult",
            vec![
                ListResourcesResult {
                    resources: resources(v),
                    ..Default::default()
                },
                ListResourcesResult {
                    next_cursor: Some("n".into()),
                    ..Default::default()
                },
            ],
        );
        r.request::<ListResourceTemplates>(
            v,
            "ListResourceTemplatesRequest",
            vec![PaginatedParams::default()],
        );
        r.result::<ListResourceTemplates>(
            v,
            "ListResourceTemplatesResult",
            vec![
                ListResourceTemplatesResult {
                    resource_templates: templates(v),
                    ..Default::default()
                },
                ListResourceTemplatesResult {
                    next_cursor: Some("n".into()),
                    ..Default::default()
                },
            ],
        );
        r.request::<ReadResource>(
            v,
            "ReadResourceRequest",
            vec![
                ReadResourceParams::new("file:///a"),
                ReadResourceParams {
                    meta: progress_meta(),
                    ..ReadResourceParams::new("file:///b")
                },
            ],
        );
        r.result::<ReadResource>(
            v,
            "ReadResourceResult",
            vec![
                ReadResourceResult::text("file:///a", "x"),
                ReadResourceResult::new(vec![
                    TextResourceContents::new("file:///a", "x")
                        .with_mime_type("text/plain")
                        .into(),
                    BlobResourceContents::new("file:///b", "AAEC")
                        .with_mime_type("x/y")
                        .into(),
                ]),
                ReadResourceResult::default(),
            ],
        );
        r.notification::<ResourceListChanged>(
            v,
            "ResourceListChangedNotification",
            vec![EmptyParams::default()],
        );
        r.notification::<ResourceUpdated>(
            v,
            "ResourceUpdatedNotification",
            vec![ResourceUriParams::new("file:///a")],
        );
        if v != V::V2026_07_28 {
            r.request::<Subscribe>(
                v,
                "SubscribeRequest",
                vec![ResourceUriParams::new("file:///a")],
            );
            r.result::<Subscribe>(v, "EmptyResult", vec![EmptyResult::default()]);
            r.request::<Unsubscribe>(
                v,
                "UnsubscribeRequest",
                vec![ResourceUriParams::new("file:///a")],
            );
        }
    }
    r.finish("resources");
}

#[test]
fn prompts_validate() {
    let spec = with_spec!();
    let mut r = Report::new(spec);
    for v in V::ALL {
        r.object(v, "Prompt", prompts(v));
        r.request::<ListPrompts>(
            v,
            "ListPromptsRequest",
            vec![PaginatedParams::default(), PaginatedParams::after("c")],
        );
        r.result::<ListPrompts>(
            v,
            "ListPromptsResult",
            vec![ListPromptsResult {
                prompts: prompts(v),
                next_cursor: Some("n".into()),
                ..Default::default()
            }],
        );
        let mut args = BTreeMap::new();
        args.insert("code".to_owned(), "fn main() {}".to_owned());
        r.request::<GetPrompt>(
            v,
            "GetPromptRequest",
            vec![
                GetPromptParams::new("plain"),
                GetPromptParams {
                    arguments: Some(args),
                    ..GetPromptParams::new("review")
                },
            ],
        );
        let messages: Vec<PromptMessage> = content_blocks(v)
            .into_iter()
            .map(|c| PromptMessage::new(Role::User, c))
            .collect();
        r.result::<GetPrompt>(
            v,
            "GetPromptResult",
            vec![
                GetPromptResult::new(vec![
                    PromptMessage::user("hi"),
                    PromptMessage::assistant("hello"),
                ])
                .with_description("d"),
                GetPromptResult::new(messages),
            ],
        );
        r.notification::<PromptListChanged>(
            v,
            "PromptListChangedNotification",
            vec![EmptyParams::default()],
        );
    }
    r.finish("prompts");
}

#[test]
fn sampling_and_roots_validate() {
    let spec = with_spec!();
    let mut r = Report::new(spec);
    for v in V::ALL {
        let mut params = vec![
            CreateMessageParams::new(sampling_messages(v), 100),
            CreateMessageParams {
                model_preferences: Some(ModelPreferences {
                    hints: Some(vec![ModelHint {
                        name: Some("claude".into()),
                        ..Default::default()
                    }]),
                    cost_priority: Some(0.2),
                    speed_priority: Some(0.5),
                    intelligence_priority: Some(0.9),
                    ..Default::default()
                }),
                system_prompt: Some("be brief".into()),
                include_context: Some(IncludeContext::ThisServer),
                temperature: Some(0.7),
                stop_sequences: Some(vec!["\n\n".into()]),
                metadata: Some(json!({"provider": "x"})),
                ..CreateMessageParams::new(vec![SamplingMessage::user_text("hi")], 10)
            },
        ];
        if at_least(v, V::V2025_11_25) {
            params.push(CreateMessageParams {
                tools: Some(tools(v)),
                tool_choice: Some(ToolChoice {
                    mode: Some(ToolChoiceMode::Auto),
                    ..Default::default()
                }),
                task: (v == V::V2025_11_25).then(TaskMetadata::default),
                ..CreateMessageParams::new(vec![SamplingMessage::user_text("weather?")], 50)
            });
        }
        r.request::<CreateMessage>(v, "CreateMessageRequest", params);
        let mut results = vec![
            CreateMessageResult::text("model-x", "4"),
            CreateMessageResult {
                stop_reason: None,
                content: Content::image("iVBORw0KGgo=", "image/png").into(),
                meta: meta(json!({"k": 1})),
                ..CreateMessageResult::text("m", "")
            },
        ];
        if at_least(v, V::V2025_11_25) {
            let input = json!({"city": "Paris"})
                .as_object()
                .cloned()
                .unwrap_or_default();
            results.push(CreateMessageResult {
                stop_reason: Some("toolUse".into()),
                content: vec![
                    Content::tool_use("c1", "weather", input.clone()),
                    Content::tool_use("c2", "weather", input),
                ]
                .into(),
                ..CreateMessageResult::text("m", "")
            });
        }
        r.result::<CreateMessage>(v, "CreateMessageResult", results);
        r.object(v, "SamplingMessage", sampling_messages(v));

        r.request::<ListRoots>(v, "ListRootsRequest", vec![EmptyParams::default()]);
        r.result::<ListRoots>(
            v,
            "ListRootsResult",
            vec![
                ListRootsResult::new(vec![]),
                ListRootsResult::new(vec![
                    Root::new("file:///home/p", Some("p".into())),
                    Root::new("file:///tmp", None),
                ]),
            ],
        );
        if v != V::V2026_07_28 {
            r.notification::<RootsListChanged>(
                v,
                "RootsListChangedNotification",
                vec![EmptyParams::default()],
            );
        }
    }
    r.finish("sampling and roots");
}

#[test]
fn elicitation_validate() {
    let spec = with_spec!();
    let mut r = Report::new(spec);
    for v in V::ALL.into_iter().filter(|v| at_least(*v, V::V2025_06_18)) {
        let mut schema = json!({
            "type": "object",
            "properties": {
                "name": {"type": "string", "title": "Name", "minLength": 1, "maxLength": 50},
                "email": {"type": "string", "format": "email"},
                "age": {"type": "integer", "minimum": 0, "maximum": 150},
                "ok": {"type": "boolean", "default": true},
                "color": {"type": "string", "enum": ["red", "green"], "enumNames": ["Red", "Green"]}
            },
            "required": ["name"]
        });
        if at_least(v, V::V2025_11_25) {
            schema["properties"]["size"] =
                json!({"type": "string", "oneOf": [{"const": "s", "title": "Small"}]});
            schema["properties"]["tags"] =
                json!({"type": "array", "items": {"type": "string", "enum": ["a", "b"]}});
            schema["$schema"] = json!("https://json-schema.org/draft/2020-12/schema");
        }
        let mut params = vec![
            ElicitParams::form("Who are you?", schema.clone()),
            ElicitParams::form("Nothing", json!({"type": "object", "properties": {}})),
        ];
        if at_least(v, V::V2025_11_25) {
            params.push(match ElicitParams::form("Explicit mode", schema) {
                ElicitParams::Form(f) => ElicitParams::Form(ElicitFormParams {
                    mode: Some(FormMode::Form),
                    ..f
                }),
                other => other,
            });
            let url = ElicitParams::url("Log in", "https://example.com/login", "el-1");
            params.push(match (v, url) {
                (V::V2026_07_28, ElicitParams::Url(u)) => ElicitParams::Url(ElicitUrlParams {
                    elicitation_id: None,
                    ..u
                }),
                (_, other) => other,
            });
        }
        r.request::<Elicit>(v, "ElicitRequest", params);
        r.result::<Elicit>(
            v,
            "ElicitResult",
            vec![
                ElicitResult::accept(meta(json!({"name": "Ann", "age": 3, "ok": true}))),
                ElicitResult::decline(),
                ElicitResult::cancel(),
                ElicitResult::accept(None),
            ],
        );
        if v == V::V2025_11_25 {
            r.notification::<ElicitationComplete>(
                v,
                "ElicitationCompleteNotification",
                vec![ElicitationCompleteParams {
                    elicitation_id: "el-1".into(),
                    meta: None,
                    extra: Default::default(),
                }],
            );
        }
    }
    r.finish("elicitation");
}

#[test]
fn logging_completion_progress_validate() {
    let spec = with_spec!();
    let mut r = Report::new(spec);
    for v in V::ALL {
        if v != V::V2026_07_28 {
            r.request::<SetLevel>(
                v,
                "SetLevelRequest",
                LoggingLevel::ALL
                    .into_iter()
                    .map(SetLevelParams::new)
                    .collect(),
            );
            r.result::<SetLevel>(v, "EmptyResult", vec![EmptyResult::default()]);
        }
        r.notification::<LoggingMessage>(
            v,
            "LoggingMessageNotification",
            vec![
                LoggingMessageParams::new(LoggingLevel::Error, "boom"),
                LoggingMessageParams::new(LoggingLevel::Debug, json!({"k": [1, 2]}))
                    .with_logger("db"),
            ],
        );
        let mut complete = vec![CompleteParams::new(
            CompletionReference::prompt("review"),
            "lang",
            "ru",
        )];
        if at_least(v, V::V2025_06_18) {
            let mut args = BTreeMap::new();
            args.insert("owner".to_owned(), "me".to_owned());
            complete.push(CompleteParams {
                context: Some(CompletionContext {
                    arguments: Some(args),
                    ..Default::default()
                }),
                ..CompleteParams::new(
                    CompletionReference::resource("git://{owner}/{repo}"),
                    "repo",
                    "m",
                )
            });
        } else {
            complete.push(CompleteParams::new(
                CompletionReference::resource("git://{owner}/{repo}"),
                "repo",
                "m",
            ));
        }
        r.request::<Complete>(v, "CompleteRequest", complete);
        r.result::<Complete>(
            v,
            "CompleteResult",
            vec![
                CompleteResult::new(vec!["rust".into(), "ruby".into()]),
                CompleteResult::new((0..120).map(|i| format!("v{i}")).collect()),
                CompleteResult::new(vec![]),
            ],
        );
        let mut progress = vec![
            ProgressParams::new(RequestId::from("tok"), 1.0, None),
            ProgressParams::new(RequestId::from(7), 0.5, Some(1.0)),
        ];
        if at_least(v, V::V2025_03_26) {
            progress.push(
                ProgressParams::new(RequestId::from(8), 2.0, Some(4.0)).with_message("halfway"),
            );
        }
        r.notification::<Progress>(v, "ProgressNotification", progress);
        r.notification::<Cancelled>(
            v,
            "CancelledNotification",
            vec![
                CancelledParams::new(RequestId::from(3), None),
                CancelledParams::new(RequestId::from("abc"), Some("user asked".into())),
            ],
        );
    }
    r.finish("logging, completion, progress");
}

#[test]
fn tasks_validate() {
    let spec = with_spec!();
    let mut r = Report::new(spec);
    let v = V::V2025_11_25;
    let tasks = vec![
        task(TaskStatus::Working, Some(60_000)),
        task(TaskStatus::InputRequired, None),
        Task {
            status_message: Some("done".into()),
            poll_interval: Some(500),
            ..task(TaskStatus::Completed, Some(1))
        },
        task(TaskStatus::Failed, None),
        task(TaskStatus::Cancelled, None),
    ];
    r.object(v, "Task", tasks.clone());
    r.object(
        v,
        "CreateTaskResult",
        vec![CreateTaskResult {
            task: tasks[0].clone(),
            meta: meta(json!({meta_keys::RELATED_TASK: {"taskId": "task-1"}})),
            extra: Default::default(),
        }],
    );
    r.request::<GetTask>(v, "GetTaskRequest", vec![TaskIdParams::new("task-1")]);
    r.result::<GetTask>(
        v,
        "GetTaskResult",
        tasks.iter().cloned().map(TaskState::from).collect(),
    );
    r.request::<GetTaskPayload>(
        v,
        "GetTaskPayloadRequest",
        vec![TaskIdParams::new("task-1")],
    );
    let payload: TaskPayloadResult = serde_json::from_value(json!({
        "content": [{"type": "text", "text": "done"}],
        "_meta": {meta_keys::RELATED_TASK: {"taskId": "task-1"}}
    }))
    .unwrap();
    r.result::<GetTaskPayload>(v, "GetTaskPayloadResult", vec![payload.clone()]);
    r.validate(
        v,
        "CallToolResult",
        &serde_json::to_value(&payload).unwrap(),
    );
    r.request::<ListTasks>(
        v,
        "ListTasksRequest",
        vec![PaginatedParams::default(), PaginatedParams::after("c")],
    );
    r.result::<ListTasks>(
        v,
        "ListTasksResult",
        vec![
            ListTasksResult {
                tasks: tasks.clone(),
                next_cursor: Some("n".into()),
                ..Default::default()
            },
            ListTasksResult::default(),
        ],
    );
    r.request::<CancelTask>(v, "CancelTaskRequest", vec![TaskIdParams::new("task-1")]);
    r.result::<CancelTask>(
        v,
        "CancelTaskResult",
        vec![task(TaskStatus::Cancelled, None).into()],
    );
    r.notification::<TaskStatusNotification>(
        v,
        "TaskStatusNotification",
        tasks.into_iter().map(TaskState::from).collect(),
    );
    r.finish("tasks");
}

#[test]
fn modern_era_validates() {
    let spec = with_spec!();
    let mut r = Report::new(spec);
    let v = V::V2026_07_28;
    r.request::<Discover>(v, "DiscoverRequest", vec![EmptyParams::default()]);
    let mut full = DiscoverResult::new(
        vec!["2026-07-28".into(), "2025-11-25".into()],
        server_capabilities(v).remove(1),
    );
    full.instructions = Some("Use get_weather.".into());
    full.ttl_ms = Some(3_600_000);
    full.cache_scope = Some(CacheScope::Public);
    full.meta = Some(ResultMeta {
        server_info: Some(Implementation::new("s", "1")),
        ..Default::default()
    })
    .and_then(|m| serde_json::to_value(m).ok())
    .and_then(|m| m.as_object().cloned());
    r.result::<Discover>(
        v,
        "DiscoverResult",
        vec![
            DiscoverResult::new(vec!["2026-07-28".into()], Default::default()),
            full,
        ],
    );

    // The typed accessors produce what the schema requires.
    let listed = ListToolsResult::new(tools(v))
        .with_result_type(ResultType::Complete)
        .with_cache(300_000, CacheScope::Public)
        .with_server_info(&Implementation::new("s", "1"));
    r.validate(
        v,
        "ListToolsResult",
        &serde_json::to_value(&listed).unwrap(),
    );
    let done = CallToolResult::text("ok").with_result_type(ResultType::Complete);
    r.validate(v, "CallToolResult", &serde_json::to_value(&done).unwrap());
    let done = ModernResult::Complete(CallToolResult::text("ok"));
    r.validate(v, "CallToolResult", &serde_json::to_value(&done).unwrap());

    let mut requests = InputRequests::new();
    requests.insert(
        "login".into(),
        InputRequest::Elicit(ElicitParams::form(
            "user?",
            json!({"type": "object", "properties": {"u": {"type": "string"}}}),
        )),
    );
    requests.insert(
        "llm".into(),
        InputRequest::CreateMessage(CreateMessageParams::new(
            vec![SamplingMessage::user_text("2+2?")],
            10,
        )),
    );
    requests.insert("roots".into(), InputRequest::ListRoots(None));
    let input_required = vec![
        InputRequiredResult::new(requests.clone(), Some("state".into())),
        InputRequiredResult::new(InputRequests::new(), Some("only-state".into())),
    ];
    for ir in &input_required {
        let value = serde_json::to_value(ir).unwrap();
        r.round_trip::<InputRequiredResult>("InputRequiredResult", &value);
        r.validate(v, "InputRequiredResult", &value);
        let msg = json!({"jsonrpc": "2.0", "id": 1, "result": value});
        r.validate(v, "CallToolResultResponse", &msg);
        r.round_trip::<ModernResult<CallToolResult>>("ModernResult", &msg["result"]);
    }
    r.validate(
        v,
        "InputRequests",
        &serde_json::to_value(&requests).unwrap(),
    );

    let filter = SubscriptionFilter {
        tools_list_changed: Some(true),
        prompts_list_changed: Some(false),
        resources_list_changed: Some(true),
        resource_subscriptions: Some(vec!["file:///a".into()]),
        ..Default::default()
    };
    r.request::<SubscriptionsListen>(
        v,
        "SubscriptionsListenRequest",
        vec![
            SubscriptionsListenParams {
                notifications: filter.clone(),
                ..Default::default()
            },
            SubscriptionsListenParams::default(),
        ],
    );
    let listen_meta = ResultMeta {
        subscription_id: Some(RequestId::from("listen-1")),
        ..Default::default()
    };
    r.result::<SubscriptionsListen>(
        v,
        "SubscriptionsListenResult",
        vec![SubscriptionsListenResult {
            meta: serde_json::to_value(listen_meta)
                .ok()
                .and_then(|m| m.as_object().cloned()),
            ..Default::default()
        }],
    );
    let note_meta = NotificationMeta {
        subscription_id: Some(RequestId::from(4)),
        ..Default::default()
    };
    let note_meta = serde_json::to_value(note_meta)
        .ok()
        .and_then(|m| m.as_object().cloned());
    r.notification::<SubscriptionsAcknowledged>(
        v,
        "SubscriptionsAcknowledgedNotification",
        vec![SubscriptionsAcknowledgedParams {
            notifications: filter,
            meta: note_meta.clone(),
            ..Default::default()
        }],
    );
    r.notification::<ToolListChanged>(
        v,
        "ToolListChangedNotification",
        vec![EmptyParams {
            meta: note_meta,
            ..Default::default()
        }],
    );
    r.validate(
        v,
        "RequestMetaObject",
        &serde_json::Value::Object(modern_meta_map()),
    );
    r.finish("modern");
}

/// The harness is not vacuous: instances the schemas forbid are rejected in every version.
#[test]
fn validator_rejects_what_the_schemas_forbid() {
    let spec = with_spec!();
    for v in V::ALL {
        assert!(!spec
            .errors(v, "CallToolResult", &json!({"content": "not a list"}))
            .is_empty());
        assert!(!spec
            .errors(v, "TextContent", &json!({"type": "text"}))
            .is_empty());
        assert!(!spec.errors(v, "Tool", &json!({"name": "t"})).is_empty());
        let bad_level = json!({"jsonrpc": "2.0", "method": "notifications/message",
                               "params": {"level": "verbose", "data": 1}});
        assert!(!spec
            .errors(v, "LoggingMessageNotification", &bad_level)
            .is_empty());
    }
    // Audio content did not exist in 2024-11-05, so a tool result carrying it is invalid there.
    let audio = serde_json::to_value(CallToolResult::new(vec![Content::audio(
        "AA==",
        "audio/wav",
    )]))
    .unwrap();
    assert!(!spec
        .errors(V::V2024_11_05, "CallToolResult", &audio)
        .is_empty());
    assert!(spec
        .errors(V::V2025_03_26, "CallToolResult", &audio)
        .is_empty());
    // 2026-07-28 results need resultType.
    let plain = serde_json::to_value(CallToolResult::text("x")).unwrap();
    assert!(!spec
        .errors(V::V2026_07_28, "CallToolResult", &plain)
        .is_empty());
}
