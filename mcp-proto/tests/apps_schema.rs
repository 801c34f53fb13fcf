//! The MCP Apps types (`schema::apps_extension`) against the extension's published JSON Schema,
//! `@modelcontextprotocol/ext-apps`'s `dist/src/generated/schema.json` (installed by
//! `scripts/interop-setup.sh` into `target/interop/apps`; the test skips with a note when it is
//! missing, unless `MCP_INTEROP_REQUIRED=1`).
//!
//! Each definition of the schema is matched by one of our types, built with every field set,
//! serialized and validated; every property the definition names must appear in what we wrote,
//! so a field we do not type fails the test; and every definition must be covered, so a new
//! one in a later release fails it too. Messages are checked with their method names from our
//! `RequestType`/`NotificationType` impls.

use std::collections::BTreeSet;
use std::path::PathBuf;

use mcp_proto::schema::apps_extension::*;
use mcp_proto::schema::{
    CallToolResult, Content, EmbeddedResource, EmptyParams, EmptyResult, Implementation,
    JsonObject, NotificationType, RequestType, ResourceContents, ResourceLink,
    TextResourceContents, Tool,
};
use mcp_proto::RequestId;
use serde::Serialize;
use serde_json::{json, Value};

fn schema_path() -> Option<PathBuf> {
    let modules = std::env::var_os("MCP_INTEROP_APPS_MODULES")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../target/interop/apps/node_modules")
        });
    let path = modules.join("@modelcontextprotocol/ext-apps/dist/src/generated/schema.json");
    if path.exists() {
        return Some(path);
    }
    if std::env::var("MCP_INTEROP_REQUIRED").as_deref() == Ok("1") {
        panic!(
            "{} is missing but MCP_INTEROP_REQUIRED=1; run scripts/interop-setup.sh",
            path.display()
        );
    }
    eprintln!(
        "skipped: {} not found; run `eval \"$(scripts/interop-setup.sh)\"` to enable",
        path.display()
    );
    None
}

fn value<T: Serialize>(t: &T) -> Value {
    serde_json::to_value(t).expect("serializes")
}

fn request<R: RequestType>(params: &R::Params) -> Value {
    json!({"method": R::METHOD, "params": value(params)})
}

fn notification<N: NotificationType>(params: &N::Params) -> Value {
    json!({"method": N::METHOD, "params": value(params)})
}

fn obj(v: Value) -> JsonObject {
    match v {
        Value::Object(map) => map,
        other => panic!("not an object: {other}"),
    }
}

fn csp() -> ResourceCsp {
    ResourceCsp {
        connect_domains: Some(vec!["https://api.example.com".into()]),
        resource_domains: Some(vec!["https://*.cdn.example".into()]),
        frame_domains: Some(vec!["https://www.youtube.com".into()]),
        base_uri_domains: Some(vec!["https://cdn.example.com".into()]),
        extra: JsonObject::new(),
    }
}

fn permissions() -> ResourcePermissions {
    ResourcePermissions {
        camera: Some(JsonObject::new()),
        microphone: Some(JsonObject::new()),
        geolocation: Some(JsonObject::new()),
        clipboard_write: Some(JsonObject::new()),
        extra: JsonObject::new(),
    }
}

fn modalities() -> ContentModalities {
    let on = || Some(JsonObject::new());
    ContentModalities {
        text: on(),
        image: on(),
        audio: on(),
        resource: on(),
        resource_link: on(),
        structured_content: on(),
    }
}

fn styles() -> HostStyles {
    HostStyles {
        // Every standard name: the published schema marks all of them required (its note says
        // any subset is fine, which is what the extension's text says too).
        variables: Some(
            STYLE_VARIABLES
                .iter()
                .map(|name| (name.to_string(), json!(format!("var(--host{name})"))))
                .collect(),
        ),
        css: Some(HostCss {
            fonts: Some("@font-face { font-family: \"X\"; src: url(\"https://f/x.otf\"); }".into()),
            extra: JsonObject::new(),
        }),
        extra: JsonObject::new(),
    }
}

/// Every field but `containerDimensions` (see `container_dimensions_match_the_ts_type`).
fn host_context() -> HostContext {
    let mut tool = Tool::new("get_weather", "Current conditions and forecast");
    tool.title = Some("Weather".into());
    HostContext {
        tool_info: Some(ToolInfo {
            id: Some(RequestId::Number(7)),
            tool,
        }),
        theme: Some(Theme::Dark),
        styles: Some(styles()),
        display_mode: Some(DisplayMode::Inline),
        available_display_modes: Some(vec![
            DisplayMode::Inline,
            DisplayMode::Fullscreen,
            DisplayMode::Pip,
        ]),
        container_dimensions: None,
        locale: Some("en-GB".into()),
        time_zone: Some("Europe/London".into()),
        user_agent: Some("mcp-rs-test".into()),
        platform: Some(Platform::Web),
        device_capabilities: Some(DeviceCapabilities {
            touch: Some(false),
            hover: Some(true),
        }),
        safe_area_insets: Some(SafeAreaInsets {
            top: 0.0,
            right: 0.0,
            bottom: 12.0,
            left: 0.0,
        }),
        extra: JsonObject::new(),
    }
}

fn host_capabilities() -> HostCapabilities {
    HostCapabilities {
        experimental: Some(obj(json!({"x.example/feature": {}}))),
        open_links: Some(JsonObject::new()),
        download_file: Some(JsonObject::new()),
        server_tools: Some(ListCapability {
            list_changed: Some(true),
        }),
        server_resources: Some(ListCapability {
            list_changed: Some(false),
        }),
        logging: Some(JsonObject::new()),
        sandbox: Some(HostSandbox {
            permissions: Some(permissions()),
            csp: Some(csp()),
        }),
        update_model_context: Some(modalities()),
        message: Some(modalities()),
        sampling: Some(HostSampling {
            tools: Some(JsonObject::new()),
        }),
        extra: JsonObject::new(),
    }
}

fn app_capabilities() -> AppCapabilities {
    AppCapabilities {
        experimental: Some(obj(json!({"x.example/feature": {}}))),
        tools: Some(ListCapability {
            list_changed: Some(true),
        }),
        available_display_modes: Some(vec![DisplayMode::Inline, DisplayMode::Fullscreen]),
        extra: JsonObject::new(),
    }
}

fn resource_meta() -> UiResourceMeta {
    UiResourceMeta {
        csp: Some(csp()),
        permissions: Some(permissions()),
        domain: Some("a904794854a047f6.example-content.com".into()),
        prefers_border: Some(true),
        extra: JsonObject::new(),
    }
}

fn action_result() -> UiActionResult {
    UiActionResult {
        is_error: Some(false),
        extra: JsonObject::new(),
    }
}

/// Each definition of the published schema and the instance our types write for it.
fn cases() -> Vec<(&'static str, Value)> {
    let text = Content::text("Sunny, 21 °C in Lisbon");
    let embedded = Content::from(EmbeddedResource {
        resource: ResourceContents::from(
            TextResourceContents::new("file:///forecast.csv", "day,max\nMon,21\n")
                .with_mime_type("text/csv"),
        ),
        annotations: None,
        meta: None,
        extra: JsonObject::new(),
    });
    let link = Content::from(ResourceLink::new("file:///forecast.pdf", "forecast.pdf"));
    let mut result = CallToolResult::text("Sunny, 21 °C");
    result.structured_content = Some(json!({"city": "Lisbon", "temperature": 21}));
    vec![
        ("McpUiClientCapabilities", value(&AppsSettings::html())),
        (
            "McpUiToolMeta",
            value(
                &UiToolMeta::view("ui://weather/app.html")
                    .with_visibility(&[ToolVisibility::Model, ToolVisibility::App]),
            ),
        ),
        ("McpUiToolVisibility", value(&ToolVisibility::App)),
        ("McpUiResourceMeta", value(&resource_meta())),
        ("McpUiResourceCsp", value(&csp())),
        ("McpUiResourcePermissions", value(&permissions())),
        ("McpUiTheme", value(&Theme::Light)),
        ("McpUiDisplayMode", value(&DisplayMode::Pip)),
        ("McpUiHostContext", value(&host_context())),
        ("McpUiHostStyles", value(&styles())),
        ("McpUiHostCss", value(&styles().css)),
        ("McpUiStyles", value(&styles().variables)),
        ("McpUiStyleVariableKey", json!("--color-background-primary")),
        ("McpUiHostCapabilities", value(&host_capabilities())),
        ("McpUiAppCapabilities", value(&app_capabilities())),
        ("McpUiSupportedContentBlockModalities", value(&modalities())),
        (
            "McpUiInitializeRequest",
            request::<UiInitialize>(&UiInitializeParams {
                app_info: Implementation::new("weather-app", "1.0.0"),
                app_capabilities: app_capabilities(),
                protocol_version: APPS_PROTOCOL_VERSION.into(),
            }),
        ),
        (
            "McpUiInitializeResult",
            value(&UiInitializeResult {
                protocol_version: APPS_PROTOCOL_VERSION.into(),
                host_info: Implementation::new("mcp-rs-test-host", "1.0.0"),
                host_capabilities: host_capabilities(),
                host_context: host_context(),
                extra: JsonObject::new(),
            }),
        ),
        (
            "McpUiOpenLinkRequest",
            request::<UiOpenLink>(&OpenLinkParams {
                url: "https://example.com/forecast".into(),
            }),
        ),
        ("McpUiOpenLinkResult", value(&action_result())),
        (
            "McpUiDownloadFileRequest",
            request::<UiDownloadFile>(&DownloadFileParams {
                contents: vec![embedded, link],
            }),
        ),
        ("McpUiDownloadFileResult", value(&action_result())),
        (
            "McpUiMessageRequest",
            request::<UiMessage>(&UiMessageParams {
                role: UiMessageRole::User,
                content: vec![text.clone()],
            }),
        ),
        ("McpUiMessageResult", value(&action_result())),
        (
            "McpUiRequestDisplayModeRequest",
            request::<UiRequestDisplayMode>(&DisplayModeParams {
                mode: DisplayMode::Fullscreen,
            }),
        ),
        (
            "McpUiRequestDisplayModeResult",
            value(&DisplayModeResult {
                mode: DisplayMode::Inline,
                extra: JsonObject::new(),
            }),
        ),
        (
            "McpUiUpdateModelContextRequest",
            request::<UiUpdateModelContext>(&ModelContextParams {
                content: Some(vec![text]),
                structured_content: Some(obj(json!({"city": "Lisbon"}))),
            }),
        ),
        (
            "McpUiResourceTeardownRequest",
            request::<UiResourceTeardown>(&EmptyParams::default()),
        ),
        (
            "McpUiResourceTeardownResult",
            value(&EmptyResult::default()),
        ),
        (
            "McpUiInitializedNotification",
            notification::<UiInitialized>(&EmptyParams::default()),
        ),
        (
            "McpUiToolInputNotification",
            notification::<UiToolInput>(&ToolInputParams {
                arguments: Some(obj(json!({"city": "Lisbon"}))),
            }),
        ),
        (
            "McpUiToolInputPartialNotification",
            notification::<UiToolInputPartial>(&ToolInputParams {
                arguments: Some(obj(json!({"city": "Lis"}))),
            }),
        ),
        (
            "McpUiToolResultNotification",
            notification::<UiToolResult>(&result),
        ),
        (
            "McpUiToolCancelledNotification",
            notification::<UiToolCancelled>(&ToolCancelledParams {
                reason: Some("user action".into()),
            }),
        ),
        (
            "McpUiSizeChangedNotification",
            notification::<UiSizeChanged>(&SizeChangedParams {
                width: Some(480.0),
                height: Some(312.5),
            }),
        ),
        (
            "McpUiHostContextChangedNotification",
            notification::<UiHostContextChanged>(&host_context()),
        ),
        (
            "McpUiRequestTeardownNotification",
            notification::<UiRequestTeardown>(&EmptyParams::default()),
        ),
        (
            "McpUiSandboxProxyReadyNotification",
            notification::<UiSandboxProxyReady>(&EmptyParams::default()),
        ),
        (
            "McpUiSandboxResourceReadyNotification",
            notification::<UiSandboxResourceReady>(&SandboxResourceParams {
                html: "<!doctype html><p>hi</p>".into(),
                sandbox: Some("allow-scripts".into()),
                csp: Some(csp()),
                permissions: Some(permissions()),
            }),
        ),
    ]
}

/// Paths of properties that are core MCP types (checked against the MCP schema elsewhere), or
/// that the extension forbids (`not: {}`), or that the published schema cannot express.
fn not_ours(path: &str) -> bool {
    const CORE: [&str; 5] = [
        ".toolInfo.tool",
        ".appInfo",
        ".hostInfo",
        ".contents",
        ".content",
    ];
    CORE.iter().any(|p| path.ends_with(p))
        // The intersection of two unions of closed objects admits only `{}` in the published
        // schema; `container_dimensions_match_the_ts_type` checks the field instead.
        || path.ends_with(".containerDimensions")
        // A `CallToolResult` (core) as the notification's params.
        || path.starts_with("McpUiToolResultNotification.params")
}

/// The properties `schema` names that `instance` lacks, recursively through objects and
/// arrays (the first item stands for all).
fn missing(schema: &Value, instance: &Value, path: &str, out: &mut Vec<String>) {
    if not_ours(path) {
        return;
    }
    if let (Some(props), Some(map)) = (
        schema.get("properties").and_then(Value::as_object),
        instance.as_object(),
    ) {
        for (key, sub) in props {
            let at = format!("{path}.{key}");
            if sub.get("not").is_some() || not_ours(&at) {
                continue;
            }
            match map.get(key) {
                Some(v) => missing(sub, v, &at, out),
                None => out.push(at),
            }
        }
    }
    if let (Some(items), Some(first)) = (
        schema.get("items"),
        instance.as_array().and_then(|a| a.first()),
    ) {
        missing(items, first, &format!("{path}[0]"), out);
    }
}

#[test]
fn every_definition_matches_our_types_field_for_field() {
    let Some(path) = schema_path() else { return };
    let doc: Value =
        serde_json::from_str(&std::fs::read_to_string(&path).expect("readable")).expect("JSON");
    let defs = doc["$defs"].as_object().expect("$defs");
    let mut failures = Vec::new();
    let mut covered = BTreeSet::new();
    for (name, instance) in cases() {
        covered.insert(name);
        let Some(def) = defs.get(name) else {
            failures.push(format!("{name}: not in the published schema"));
            continue;
        };
        // Each definition is a whole schema (its own `$defs`, `#/$defs/...` refs to them).
        let validator =
            jsonschema::validator_for(def).unwrap_or_else(|e| panic!("cannot compile {name}: {e}"));
        for e in validator.iter_errors(&instance) {
            failures.push(format!("{name} at {}: {e}", e.instance_path));
        }
        let mut absent = Vec::new();
        missing(def, &instance, name, &mut absent);
        for field in absent {
            failures.push(format!(
                "{field}: named by the schema, not written by our type"
            ));
        }
    }
    for name in defs.keys() {
        if !covered.contains(name.as_str()) {
            failures.push(format!("{name}: a definition no test case covers"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn our_types_read_what_the_schema_describes() {
    let Some(path) = schema_path() else { return };
    let doc: Value =
        serde_json::from_str(&std::fs::read_to_string(&path).expect("readable")).expect("JSON");
    // Wrong shapes are refused by the schema, so the validation above is not vacuous.
    let tool_meta = jsonschema::validator_for(&doc["$defs"]["McpUiToolMeta"]).unwrap();
    assert!(!tool_meta.is_valid(&json!({"visibility": ["agent"]})));
    assert!(
        !tool_meta.is_valid(&json!({"resourceUri": "ui://x", "csp": {}})),
        "csp belongs on the resource"
    );
    // And what our types write round-trips through them unchanged.
    for (name, instance) in cases() {
        let back = match name {
            "McpUiToolMeta" => {
                value(&serde_json::from_value::<UiToolMeta>(instance.clone()).unwrap())
            }
            "McpUiResourceMeta" => {
                value(&serde_json::from_value::<UiResourceMeta>(instance.clone()).unwrap())
            }
            "McpUiHostContext" => {
                value(&serde_json::from_value::<HostContext>(instance.clone()).unwrap())
            }
            "McpUiHostCapabilities" => {
                value(&serde_json::from_value::<HostCapabilities>(instance.clone()).unwrap())
            }
            "McpUiInitializeResult" => {
                value(&serde_json::from_value::<UiInitializeResult>(instance.clone()).unwrap())
            }
            _ => continue,
        };
        assert_eq!(back, instance, "{name} round trip");
    }
}

#[test]
fn container_dimensions_match_the_ts_type() {
    // `({height} | {maxHeight?}) & ({width} | {maxWidth?})` in spec.types.ts: each pair has one
    // member set, and those four names are all there is.
    for v in [
        json!({"height": 600, "width": 400}),
        json!({"maxHeight": 600, "width": 400}),
        json!({"height": 600, "maxWidth": 800}),
        json!({}),
    ] {
        let d: ContainerDimensions = serde_json::from_value(v.clone()).unwrap();
        let back = value(&d);
        for key in v.as_object().unwrap().keys() {
            assert!(back.get(key).is_some(), "{key} kept");
        }
    }
}
