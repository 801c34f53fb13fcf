// The official TypeScript SDK clients against examples/axum.rs (MCP mounted at /mcp in an axum
// app whose middleware checks bearer tokens).
// usage: node axum_ts_client.mjs <node_modules> streamable|sse|modern <url> <token>
//   streamable: SDK v1 (@modelcontextprotocol/sdk) over Streamable HTTP, the 2025 handshake;
//   sse:        SDK v1 over the HTTP+SSE transport (the URL is the SSE one);
//   modern:     SDK v2 (@modelcontextprotocol/client) pinned to 2026-07-28.
// Each first checks that connecting without the token fails, then lists the tools and calls
// `whoami` with it. Prints one JSON line with what it saw; exits non-zero on any failure.
// The test bounds the run and kills the driver when it overruns.
import assert from "node:assert/strict";
import { createRequire } from "node:module";
import path from "node:path";

const [nodeModules, mode, url, token] = process.argv.slice(2);
const require = createRequire(path.join(nodeModules, "..", "package.json"));

async function connect(headers) {
  if (mode === "modern") {
    const { Client, StreamableHTTPClientTransport } = require("@modelcontextprotocol/client");
    const client = new Client(
      { name: "ts-v2-axum", version: "1.0.0" },
      { versionNegotiation: { mode: { pin: "2026-07-28" } } },
    );
    const transport = new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } });
    await client.connect(transport);
    return { client, transport, version: client.getProtocolVersion?.() ?? client.getNegotiatedProtocolVersion?.() };
  }
  const sdk = path.join(nodeModules, "@modelcontextprotocol/sdk/dist/esm");
  const { Client } = await import(`${sdk}/client/index.js`);
  const { StreamableHTTPClientTransport } = await import(`${sdk}/client/streamableHttp.js`);
  const { SSEClientTransport } = await import(`${sdk}/client/sse.js`);
  const client = new Client({ name: "ts-axum", version: "1.0.0" });
  const transport =
    mode === "sse"
      ? new SSEClientTransport(new URL(url), { requestInit: { headers } })
      : new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } });
  await client.connect(transport);
  return { client, transport, version: transport.protocolVersion ?? null };
}

let refused = null;
try {
  const { client } = await connect({});
  await client.listTools();
  await client.close();
} catch (e) {
  refused = String(e?.message ?? e);
}
assert.notEqual(refused, null, "connecting without a token fails");

const { client, transport, version } = await connect({ Authorization: `Bearer ${token}` });
const { tools } = await client.listTools();
assert.ok(tools.some((t) => t.name === "whoami"), `tools ${tools.map((t) => t.name)}`);
const result = await client.callTool({ name: "whoami", arguments: {} });
assert.ok(!result.isError, `isError ${JSON.stringify(result)}`);
const out = {
  mode,
  version,
  refused,
  tools: tools.map((t) => t.name),
  text: result.content[0].text,
  sessionId: transport.sessionId ?? null,
};
await client.close();
console.log(JSON.stringify(out));
