//! `--explain CASE`: what a case checks, why (the specification's sentence) and how to fix a
//! failure. Each entry covers the cases whose id starts with its prefix; the longest prefix
//! wins, so an area has one entry and a case that needs its own gets one.

use crate::case::Case;

/// Why a requirement holds and what a server author does about a failure.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Explanation {
    /// The id prefix this entry covers.
    pub prefix: &'static str,
    /// The specification's sentence (or JSON-RPC 2.0's), quoted with its version and section.
    pub why: &'static str,
    /// What to change in the server when the case fails.
    pub fix: &'static str,
}

const fn e(prefix: &'static str, why: &'static str, fix: &'static str) -> Explanation {
    Explanation { prefix, why, fix }
}

/// Every entry, area by area.
pub const EXPLANATIONS: &[Explanation] = &[
    e("lifecycle",
      "2025-11-25 basic/lifecycle: \"The initialization phase MUST be the first interaction between client and server.\" \"If the server supports the requested protocol version, it MUST respond with the same version. Otherwise, the server MUST respond with another protocol version it supports. This SHOULD be the latest version supported by the server.\"",
      "Answer `initialize` with protocolVersion, capabilities and serverInfo{name, version}; echo the client's version when you speak it, else offer your latest."),
    e("lifecycle.ping-before-initialize",
      "2025-11-25 basic/lifecycle#initialization: \"The client SHOULD NOT send requests other than pings before the server has responded to the initialize request.\" Pings are the one request allowed before it, so a server answers them (basic/utilities/ping: \"The receiver MUST respond promptly with an empty response\").",
      "Let `ping` through your not-yet-initialized gate."),
    e("lifecycle.request-before-initialize",
      "2025-11-25 basic/lifecycle#initialization: \"The initialization phase MUST be the first interaction between client and server.\" A request other than ping before it has no negotiated version or capabilities to be served under.",
      "Answer requests before `initialize` with an error (e.g. -32600 \"not initialized\")."),
    e("lifecycle.second-initialize",
      "JSON-RPC 2.0 §5: \"When a rpc call is made, the Server MUST reply with a Response\" — once, whatever it thinks of a second `initialize`; the session it already has goes on.",
      "Answer a repeated `initialize` once (an error is fine) and keep serving the session."),
    e("jsonrpc",
      "2025-11-25 basic/index#messages: \"All messages between MCP clients and servers MUST follow the JSON-RPC 2.0 specification.\" JSON-RPC 2.0 §5: \"When a rpc call is made, the Server MUST reply with a Response, except for in the case of Notifications.\" §5.1 defines -32700 (parse error), -32600 (invalid request), -32601 (method not found), -32602 (invalid params); \"If there was an error in detecting the id in the Request object (e.g. Parse error/Invalid Request), it MUST be Null.\"",
      "Answer every malformed input with the matching error object (id null when the id could not be read) and keep the session going; never drop a line silently."),
    e("jsonrpc.string-id",
      "2025-11-25 basic/index#requests: \"Requests MUST include a string or integer ID.\" #responses: \"Responses MUST include the same ID as the request they correspond to.\"",
      "Echo the id exactly as received (type and value); do not coerce it to a number or a string."),
    e("jsonrpc.integer-id",
      "2025-11-25 basic/index#responses: \"Responses MUST include the same ID as the request they correspond to.\" 0 and negative integers are ids like any other.",
      "Do not test the id for truthiness: 0 is a valid id and must come back as 0, not null."),
    e("jsonrpc.large-id",
      "2025-11-25 basic/index#responses: \"Responses MUST include the same ID as the request they correspond to.\" 2^53-1 is the largest integer every JSON parser keeps exactly.",
      "Keep integer ids as integers of at least 53 bits; never round-trip them through a float that loses digits."),
    e("jsonrpc.notification-no-reply",
      "2025-11-25 basic/index#notifications: \"The receiver MUST NOT send a response.\"",
      "Never answer a message without an id, even an unknown notification."),
    e("jsonrpc.batch",
      "2025-03-26 basic/index#batching: \"MCP implementations MAY support sending JSON-RPC batches, but MUST support receiving JSON-RPC batches.\"",
      "Under 2025-03-26, accept a JSON array of requests and answer with an array of their responses."),
    e("jsonrpc.batch-refused",
      "2025-06-18 changelog: \"Remove support for JSON-RPC batching\"; a request must be a JSON object (basic/index#requests), so an array is an invalid request.",
      "From 2025-06-18 on, answer a JSON array with an error (-32600) instead of processing it."),
    e("jsonrpc.valid-output",
      "2025-11-25 basic/transports#stdio: \"The server MUST NOT write anything to its stdout that is not a valid MCP message.\"",
      "Send logs and banners to stderr; write only JSON-RPC messages to stdout."),
    e("ping",
      "2025-11-25 basic/utilities/ping: \"The receiver MUST respond promptly with an empty response\".",
      "Answer `ping` (with or without params) with the result {}."),
    e("cancellation",
      "2025-11-25 basic/utilities/cancellation: \"Receivers of cancellation notifications SHOULD: Stop processing the cancelled request; Free associated resources; Not send a response for the cancelled request\"; \"The receiver MAY ignore the cancellation notification if: The referenced request is unknown\".",
      "Track in-flight requests by id; on notifications/cancelled stop the work and send nothing for it; ignore unknown ids quietly."),
    e("progress",
      "2025-11-25 basic/utilities/progress: \"Progress notifications MUST only reference tokens that: Were provided in an active request; Are associated with an in-progress operation.\" \"The progress value MUST increase with each notification\".",
      "Send notifications/progress with the token exactly as received (string or integer), increasing progress, and none after the response."),
    e("concurrency",
      "JSON-RPC 2.0 §5: \"The Server MUST reply with a Response\" to each call; MCP lets requests overlap (basic/utilities/cancellation refers to in-flight requests), so a server that serializes them still answers each id exactly once.",
      "Answer every request once with its own id; run long tool calls off the loop that reads input."),
    e("tools",
      "2025-11-25 server/tools: tools/list returns tools with a name and an inputSchema (\"A JSON Schema object defining the expected parameters for the tool\"); schema/2025-11-25 gives inputSchema `type: \"object\"`.",
      "List every tool with a string name and an object inputSchema of type \"object\"."),
    e("tools.unknown-tool",
      "2025-11-25 server/tools#error-handling: \"Protocol Errors: Standard JSON-RPC errors for issues like: Unknown tools\"; the example error is -32602. Tool results with isError are for \"Tool Execution Errors\" (API failures, input validation, business logic).",
      "Answer a call to a tool you do not have with a JSON-RPC error (-32602), not with a tool result."),
    e("tools.bad-arguments",
      "2025-11-25 server/tools#error-handling: \"Tool Execution Errors: Reported in tool results with isError: true: ... Input validation errors\". Before 2025-11-25, invalid arguments were a protocol error (-32602).",
      "Under 2025-11-25 report missing or invalid arguments as a result with isError: true and a readable message."),
    e("tools.structured-content",
      "2025-06-18 server/tools#output-schema: \"If an output schema is provided: Servers MUST provide structured results that conform to this schema.\"",
      "Return structuredContent that validates against the tool's outputSchema."),
    e("tools.structured-text",
      "2025-06-18 server/tools#structured-content: \"For backwards compatibility, a tool that returns structured content SHOULD also return the serialized JSON in a TextContent block.\"",
      "Add a text block holding the structuredContent serialized as JSON."),
    e("tools.names",
      "2025-11-25 server/tools#tool-names: \"Tool names SHOULD be between 1 and 128 characters in length (inclusive).\" \"The following SHOULD be the only allowed characters: uppercase and lowercase ASCII letters (A-Z, a-z), digits (0-9), underscore (_), hyphen (-), and dot (.)\" \"Tool names SHOULD be unique within a server.\"",
      "Rename tools to 1-128 characters of [A-Za-z0-9_.-], each name once."),
    e("tools.output-schemas",
      "2025-06-18 server/tools#output-schema: outputSchema is \"A JSON Schema object defining the structure of the tool's output\"; schema/2025-06-18 gives it `type: \"object\"`.",
      "Give every outputSchema a root type \"object\" and make it a valid JSON Schema."),
    e("tools.input-schemas",
      "2025-11-25 basic/index#json-schema-usage: \"Schemas MUST be valid according to their declared or default dialect\" (2020-12 when `$schema` is absent).",
      "Make every inputSchema a valid JSON Schema of its dialect."),
    e("pagination",
      "2025-11-25 server/utilities/pagination#error-handling: \"Invalid cursors SHOULD result in an error with code -32602 (Invalid params).\"",
      "Validate the cursor you get back and answer a cursor you did not issue with -32602 instead of ignoring it."),
    e("tools.pagination",
      "2025-11-25 server/utilities/pagination: \"The cursor is an opaque string token, representing a position in the result set\"; following nextCursor must read every item once.",
      "Issue cursors that point exactly past the last item of the page; end with no nextCursor."),
    e("tools.schema-dialect",
      "2025-11-25 basic/index#json-schema-usage: \"Schemas MUST be valid according to their declared or default dialect\"; SEP-1613 (in 2025-11-25): \"Embedded JSON schemas within MCP messages MUST conform to JSON Schema 2020-12 when no $schema field is present.\" schema/2025-11-25 gives inputSchema and outputSchema `type: \"object\"` (\"Currently restricted to type: \\\"object\\\" at the root level\"; 2026-07-28 lifts it for outputSchema only). JSON Schema 2020-12 core §8.1.1: the value of `$schema` \"MUST be a URI (containing a scheme)\". server/tools#output-schema: \"Servers MUST provide structured results that conform to this schema.\"",
      "Declare `$schema` only with a dialect's URI and write the schema in that dialect; without `$schema`, write 2020-12 (e.g. `prefixItems`, not array-form `items`; numeric `exclusiveMinimum`, not a draft-04 boolean). Keep the root `type: \"object\"`."),
    e("tools.dynamic-registration",
      "2025-11-25 server/tools#list-changed-notification: \"When the list of available tools changes, servers that declared the listChanged capability SHOULD send a notification\" (notifications/tools/list_changed); the next tools/list is the client's way to see the change.",
      "After registering or removing a tool at run time, send notifications/tools/list_changed to every session (on Streamable HTTP, on the GET stream or the request's stream), and list the new set on the next tools/list."),
    e("pagination.cursor-walk",
      "2025-11-25 server/utilities/pagination: a page carries \"An optional nextCursor field if more results exist\"; \"The cursor is an opaque string token, representing a position in the result set\"; Servers SHOULD \"Provide stable cursors\". So following nextCursor from the first page ends, and lists each item once; each item has the shape schema/2025-11-25 gives it (Tool, Resource, ResourceTemplate, Prompt).",
      "Make each cursor point just past the page it ends, return no nextCursor on the last page, keep the order stable between pages, and give every item its required fields (name; uri and name; uriTemplate and name)."),
    e("unicode",
      "2025-11-25 basic/transports: \"JSON-RPC messages MUST be UTF-8 encoded.\" RFC 8259 §7: any character may be escaped (\\\\u00e9, a surrogate pair for characters beyond the BMP), and the escaped and raw forms are the same string. A name or URI the server lists is the identifier clients send back (server/resources#reading-resources: the client sends the resource's uri; server/prompts#getting-a-prompt: the prompt's name), so it must match byte for byte, percent-encoding included.",
      "Match resource URIs and prompt and tool names exactly as listed: do not percent-decode or normalize one side only. Read and write JSON as UTF-8, decode \\\\u escapes (surrogate pairs too), and never replace characters you cannot print."),
    e("http.session-expiry",
      "2025-11-25 basic/transports#session-management: \"The server MAY terminate the session at any time, after which it MUST respond to requests containing that session ID with HTTP 404 Not Found.\" \"When a client receives HTTP 404 in response to a request containing an Mcp-Session-Id, it MUST start a new session by sending a new InitializeRequest without a session ID attached.\" — so the server must keep answering 404 for the ended id and open a new session on that initialize.",
      "Forget ended sessions for good (404 for their id on every method, even after new sessions open), never reissue an ended id, and accept a fresh initialize without Mcp-Session-Id."),
    e("resources",
      "2025-11-25 server/resources: resources/list returns resources with uri and name; resources/read returns contents with uri and text or (base64) blob.",
      "List resources with string uri and name, and read each listed one back."),
    e("resources.not-found",
      "2025-11-25 server/resources#error-handling: \"Servers SHOULD return standard JSON-RPC errors for common failure cases: Resource not found: -32002\" (2026-07-28: -32602).",
      "Answer a read of an unknown URI with -32002 (2025 era) and data.uri."),
    e("resources.subscribe",
      "2025-11-25 server/resources#subscriptions: a server declaring `subscribe: true` supports resources/subscribe and resources/unsubscribe (\"The protocol supports optional subscriptions to resource changes\").",
      "Answer subscribe and unsubscribe with an empty result when you declare the capability."),
    e("prompts",
      "2025-11-25 server/prompts: prompts/get returns messages, each with a role (user|assistant) and content.",
      "Return messages [{role, content}] from prompts/get."),
    e("prompts.unknown",
      "2025-11-25 server/prompts#error-handling: \"Servers SHOULD return standard JSON-RPC errors for common failure cases: Invalid prompt name: -32602 (Invalid params)\".",
      "Answer an unknown prompt name with -32602."),
    e("prompts.missing-argument",
      "2025-11-25 server/prompts#error-handling: \"Servers SHOULD return standard JSON-RPC errors for common failure cases: ... Missing required arguments: -32602 (Invalid params)\".",
      "Check required prompt arguments and answer a missing one with -32602."),
    e("completion",
      "2025-11-25 server/utilities/completion: \"values: Array of completion suggestions (max 100 items)\"; \"Servers SHOULD return standard JSON-RPC errors for common failure cases: Method not found: -32601 (Capability not supported); Invalid prompt name: -32602 (Invalid params)\".",
      "Return completion{values (≤ 100 strings), total?, hasMore?}; -32602 for unknown prompts; -32601 when you do not declare completions."),
    e("logging",
      "2025-11-25 server/utilities/logging: levels follow RFC 5424 (debug … emergency); \"Servers SHOULD return standard JSON-RPC errors for common failure cases: Invalid log level: -32602 (Invalid params)\"; notifications/message carries level, optional logger, and data.",
      "Accept the eight levels with {}, answer others with -32602, and send notifications/message with a valid level and data."),
    e("tasks",
      "2025-11-25 basic/utilities/tasks: task-augmented requests, tasks/get, tasks/result, tasks/list and tasks/cancel as the tasks capability declares them.",
      "Follow the task state machine (working → completed | failed | cancelled | input_required) and answer the task methods you declare."),
    e("modern",
      "2026-07-28 basic/index#_meta: \"A request missing any required field is malformed; the server MUST reject it with JSON-RPC error code -32602 (Invalid params).\" basic/versioning: \"If the server does not implement the requested version ... it MUST respond with an UnsupportedProtocolVersionError\"; \"Servers MUST implement server/discover.\" basic/index#responses: \"The result MUST include a resultType field\".",
      "Serve each 2026-07-28 request from its own _meta, with resultType on every result, and the era's error codes."),
    e("modern.meta-missing-version",
      "2026-07-28 basic/index#_meta: \"A request missing any required field is malformed; the server MUST reject it with JSON-RPC error code -32602\". basic/versioning: \"A request carrying modern per-request _meta is served statelessly according to this revision. An initialize request selects legacy semantics\" — so a dual-era server may answer a request without the version as a legacy one (any error).",
      "Modern-only servers: answer -32602. Dual-era servers: never serve a request without a version as modern."),
    e("modern.removed-methods",
      "2026-07-28 removed ping, logging/setLevel and resources/(un)subscribe (\"an unknown method\": -32601). basic/versioning, compatibility matrix: a modern server \"rejects initialize with a JSON-RPC error; the exact code is implementation-defined\".",
      "Answer the removed methods with -32601 under 2026-07-28, and `initialize` sent as a modern request with an error."),
    e("http",
      "2025-11-25 basic/transports#streamable-http: the session rules (Mcp-Session-Id, 400 without it, 404 for an unknown one), Accept/Content-Type negotiation, 202 for notifications and responses, and the MCP-Protocol-Version header.",
      "Follow the Streamable HTTP status codes and headers exactly; see the failing case's expected text."),
    e("sse",
      "2024-11-05 basic/transports#http-with-sse: the server sends an `endpoint` event first, and answers POSTed requests on the SSE stream.",
      "Send the endpoint event first; deliver responses on the stream."),
];

/// The entry for case `id`: the one with the longest matching prefix.
pub fn explanation(id: &str) -> Option<&'static Explanation> {
    EXPLANATIONS
        .iter()
        .filter(|e| id == e.prefix || id.starts_with(&format!("{}.", e.prefix)))
        .max_by_key(|e| e.prefix.len())
}

/// The specification page a case's section names, as a link: the section's own version when
/// it names one, else `version`.
pub fn spec_link(section: &str, version: &str) -> String {
    let (version, page) = match section.split_once(' ') {
        Some((v, page)) if v.len() == 10 && v.as_bytes()[4] == b'-' => (v, page),
        _ => (version, section),
    };
    format!("https://modelcontextprotocol.io/specification/{version}/{page}")
}

/// The text `--explain` prints for `case`.
pub fn render(case: &Case) -> String {
    let mut out = format!(
        "{}  [{}, {}]\n\nchecks: {}\nspec:   {}\n",
        case.id,
        case.level,
        case.versions,
        case.title,
        spec_link(case.section, "2025-11-25"),
    );
    match explanation(case.id) {
        Some(e) => {
            out.push_str(&format!("why:    {}\nfix:    {}\n", e.why, e.fix));
        }
        None => out.push_str("why:    see the section linked above\n"),
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_case_has_an_explanation() {
        for case in crate::cases::all() {
            assert!(explanation(case.id).is_some(), "{}", case.id);
        }
    }

    #[test]
    fn longest_prefix_wins_and_links_carry_the_version() {
        assert_eq!(
            explanation("tools.unknown-tool").map(|e| e.prefix),
            Some("tools.unknown-tool")
        );
        assert_eq!(explanation("tools.list").map(|e| e.prefix), Some("tools"));
        assert!(explanation("toolsx").is_none());
        assert_eq!(
            spec_link("2026-07-28 basic/lifecycle#server-discover", "2025-11-25"),
            "https://modelcontextprotocol.io/specification/2026-07-28/basic/lifecycle#server-discover"
        );
        assert_eq!(
            spec_link("server/tools#error-handling", "2025-06-18"),
            "https://modelcontextprotocol.io/specification/2025-06-18/server/tools#error-handling"
        );
    }
}
