// A TypeScript SDK v2 server (npm @modelcontextprotocol/server) for the conformance matrix
// (conformance/RESULTS.md). Dual-era: it serves the 2025 handshake and 2026-07-28 requests.
//   node ts_v2_server.cjs          stdio
//   node ts_v2_server.cjs http     Streamable HTTP at /mcp on 127.0.0.1, a free port; prints
//                                  "LISTENING <port>", ends when stdin closes
// Tools: add {a, b}; slow {duration, steps} (the runner's slow-tool convention, with progress).
// Prompt greet {who}; resource note://one; template note://{name}.
// For unicode.round-trip: tool echo {message}; resource note://caf%C3%A9%20%E2%98%95 (percent-encoded
// UTF-8); prompt grüße. Over stdio only (the HTTP mode builds a server per request, so its tool
// list cannot change), for tools.dynamic-registration: trigger_tool_change registers the tool `toggled`
// when absent and removes it when present.
// MCP_INTEROP_NODE_MODULES must point at the node_modules scripts/interop-setup.sh installs.
"use strict";
const path = require("node:path");
const http = require("node:http");
const { createRequire } = require("node:module");

const modules = process.env.MCP_INTEROP_NODE_MODULES;
if (!modules) {
  console.error("MCP_INTEROP_NODE_MODULES is not set");
  process.exit(2);
}
const req = createRequire(path.join(modules, "@modelcontextprotocol/server/package.json"));
const sdk = req("@modelcontextprotocol/server");
const { serveStdio } = req("@modelcontextprotocol/server/stdio");
const { z } = req("zod");
const { McpServer, ResourceTemplate, createMcpHandler } = sdk;

function makeServer(withTrigger = false) {
  const server = new McpServer({ name: "conformance-ts-v2", version: "2.4.0" });
  server.registerTool(
    "add",
    {
      description: "Adds two integers",
      inputSchema: z.object({ a: z.number().int().default(1), b: z.number().int().default(2) }),
      annotations: { readOnlyHint: true },
    },
    async ({ a, b }) => ({ content: [{ type: "text", text: String(a + b) }] }),
  );
  server.registerTool(
    "slow",
    {
      description: "Works for `duration` seconds in `steps` steps, reporting progress",
      inputSchema: z.object({ duration: z.number().default(1), steps: z.number().int().default(4) }),
      annotations: { readOnlyHint: true },
    },
    async ({ duration, steps }, ctx) => {
      const n = Math.max(1, steps);
      const token = ctx.mcpReq._meta?.progressToken;
      for (let i = 1; i <= n; i++) {
        await new Promise((r) => setTimeout(r, (duration * 1000) / n));
        if (ctx.mcpReq.signal.aborted) break;
        if (token !== undefined) {
          await ctx.mcpReq.notify({
            method: "notifications/progress",
            params: { progressToken: token, progress: i, total: n },
          });
        }
      }
      return { content: [{ type: "text", text: "done" }] };
    },
  );
  server.registerPrompt(
    "greet",
    { description: "Greets someone", argsSchema: z.object({ who: z.string() }) },
    async ({ who }) => ({ messages: [{ role: "user", content: { type: "text", text: `Hello, ${who}!` } }] }),
  );
  server.registerResource("one", "note://one", { mimeType: "text/plain" }, async (uri) => ({
    contents: [{ uri: uri.href, mimeType: "text/plain", text: "one" }],
  }));
  server.registerResource(
    "note",
    new ResourceTemplate("note://{name}", { list: undefined }),
    { mimeType: "text/plain" },
    async (uri, { name }) => ({ contents: [{ uri: uri.href, mimeType: "text/plain", text: `note ${name}` }] }),
  );
  server.registerTool(
    "echo",
    {
      description: "Echoes its message back",
      inputSchema: z.object({ message: z.string() }),
      annotations: { readOnlyHint: true },
    },
    async ({ message }) => ({ content: [{ type: "text", text: `Echo: ${message}` }] }),
  );
  server.registerResource("unicode", "note://caf%C3%A9%20%E2%98%95", { mimeType: "text/plain" }, async (uri) => ({
    contents: [{ uri: uri.href, mimeType: "text/plain", text: "Café ☕" }],
  }));
  server.registerPrompt("grüße", { description: "A prompt whose name is not ASCII" }, async () => ({
    messages: [{ role: "user", content: { type: "text", text: "Grüße! ☕" } }],
  }));
  if (withTrigger) {
    let toggled;
    server.registerTool(
      "trigger_tool_change",
      { description: "Registers the tool `toggled` when absent, removes it when present" },
      async () => {
        if (toggled) {
          toggled.remove();
          toggled = undefined;
        } else {
          toggled = server.registerTool("toggled", { description: "Appears and disappears" }, async () => ({
            content: [{ type: "text", text: "toggled" }],
          }));
        }
        return { content: [{ type: "text", text: "changed" }] };
      },
    );
  }
  return server;
}

function serveHttp() {
  const handler = createMcpHandler(() => makeServer(), { legacy: "serve" });
  const server = http.createServer(async (nodeReq, nodeRes) => {
    const chunks = [];
    for await (const chunk of nodeReq) chunks.push(chunk);
    const body = Buffer.concat(chunks);
    const abort = new AbortController();
    nodeRes.on("close", () => abort.abort());
    const headers = new Headers();
    for (const [k, v] of Object.entries(nodeReq.headers)) {
      if (Array.isArray(v)) v.forEach((x) => headers.append(k, x));
      else if (v !== undefined) headers.set(k, v);
    }
    const request = new Request(`http://${nodeReq.headers.host}${nodeReq.url}`, {
      method: nodeReq.method,
      headers,
      body: ["GET", "HEAD", "DELETE"].includes(nodeReq.method) ? undefined : body,
      signal: abort.signal,
    });
    try {
      const response = await handler.fetch(request);
      nodeRes.writeHead(response.status, Object.fromEntries(response.headers.entries()));
      if (response.body) {
        const reader = response.body.getReader();
        for (;;) {
          const { done, value } = await reader.read();
          if (done) break;
          nodeRes.write(value);
        }
      }
      nodeRes.end();
    } catch (e) {
      if (!nodeRes.headersSent) nodeRes.writeHead(500);
      nodeRes.end(String(e));
    }
  });
  server.listen(0, "127.0.0.1", () => console.log(`LISTENING ${server.address().port}`));
  process.stdin.resume();
  process.stdin.on("end", () => process.exit(0));
}

if (process.argv[2] === "http") serveHttp();
else serveStdio(() => makeServer(true), { legacy: "serve" });
