// A TypeScript-SDK MCP server for the HTTP client interop tests, on node:http.
//   /mcp            Streamable HTTP, stateful, resumable (in-memory event store, retry 300 ms)
//   /sse, /messages the HTTP+SSE transport (POST /sse answers 405, as an old server does)
//   POST /admin/expire  forgets every Streamable HTTP session (their ids then get 404)
// Usage: node http_ts_server.cjs   (MCP_INTEROP_NODE_MODULES must point at node_modules)
// Binds 127.0.0.1 on a free port and prints "LISTENING <port>".
"use strict";
const path = require("node:path");
const http = require("node:http");
const { randomUUID } = require("node:crypto");
const { createRequire } = require("node:module");

const modules = process.env.MCP_INTEROP_NODE_MODULES;
if (!modules) {
  console.error("MCP_INTEROP_NODE_MODULES is not set");
  process.exit(2);
}
const req = createRequire(path.join(modules, "resolve-from-here.js"));
const { McpServer } = req("@modelcontextprotocol/sdk/server/mcp.js");
const { StreamableHTTPServerTransport } = req("@modelcontextprotocol/sdk/server/streamableHttp.js");
const { SSEServerTransport } = req("@modelcontextprotocol/sdk/server/sse.js");
const { InMemoryEventStore } = req("@modelcontextprotocol/sdk/examples/shared/inMemoryEventStore.js");
const { z } = req("zod");

function makeServer() {
  const server = new McpServer({ name: "ts-http-interop", version: "1.0.0" });
  server.registerTool(
    "add",
    { description: "Adds two numbers", inputSchema: { a: z.number(), b: z.number() } },
    async ({ a, b }) => ({ content: [{ type: "text", text: String(a + b) }] }),
  );
  server.registerTool(
    "echo",
    { description: "Echoes the text", inputSchema: { text: z.string() } },
    async ({ text }) => ({ content: [{ type: "text", text }] }),
  );
  server.registerTool(
    "progress",
    { description: "Reports progress three times, then answers", inputSchema: { steps: z.number() } },
    async ({ steps }, extra) => {
      const token = extra._meta && extra._meta.progressToken;
      for (let i = 1; i <= steps; i++) {
        if (token !== undefined) {
          await extra.sendNotification({
            method: "notifications/progress",
            params: { progressToken: token, progress: i, total: steps },
          });
        }
        await new Promise((r) => setTimeout(r, 20));
      }
      return { content: [{ type: "text", text: `done ${steps}` }] };
    },
  );
  server.registerTool(
    "drop_stream",
    { description: "Closes its own SSE stream, then answers 200 ms later (for resumption)" },
    async (extra) => {
      if (extra.closeSSEStream) extra.closeSSEStream();
      await new Promise((r) => setTimeout(r, 200));
      return { content: [{ type: "text", text: "answered after the drop" }] };
    },
  );
  return server;
}

const streamable = new Map(); // session id -> transport
const legacy = new Map(); // session id -> SSE transport

function readBody(request) {
  return new Promise((resolve, reject) => {
    const chunks = [];
    request.on("data", (c) => chunks.push(c));
    request.on("end", () => {
      const text = Buffer.concat(chunks).toString("utf8");
      if (!text) return resolve(undefined);
      try {
        resolve(JSON.parse(text));
      } catch (e) {
        reject(e);
      }
    });
    request.on("error", reject);
  });
}

function isInitialize(body) {
  return body && !Array.isArray(body) && body.method === "initialize";
}

async function handleMcp(request, response) {
  const sid = request.headers["mcp-session-id"];
  if (request.method === "POST") {
    const body = await readBody(request);
    if (sid) {
      const t = streamable.get(sid);
      if (!t) {
        response.writeHead(404, { "content-type": "application/json" });
        response.end(JSON.stringify({ jsonrpc: "2.0", error: { code: -32001, message: "Session not found" }, id: null }));
        return;
      }
      await t.handleRequest(request, response, body);
      return;
    }
    if (!isInitialize(body)) {
      response.writeHead(400, { "content-type": "application/json" });
      response.end(JSON.stringify({ jsonrpc: "2.0", error: { code: -32000, message: "Bad Request: No valid session ID provided" }, id: null }));
      return;
    }
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      eventStore: new InMemoryEventStore(),
      retryInterval: 300,
      onsessioninitialized: (id) => streamable.set(id, transport),
    });
    transport.onclose = () => {
      if (transport.sessionId) streamable.delete(transport.sessionId);
    };
    await makeServer().connect(transport);
    await transport.handleRequest(request, response, body);
    return;
  }
  if (request.method === "GET" || request.method === "DELETE") {
    const t = sid && streamable.get(sid);
    if (!t) {
      response.writeHead(sid ? 404 : 400);
      response.end(sid ? "Session not found" : "Missing session id");
      return;
    }
    await t.handleRequest(request, response);
    return;
  }
  response.writeHead(405);
  response.end();
}

async function handle(request, response) {
  const url = new URL(request.url, "http://127.0.0.1");
  if (url.pathname === "/mcp") return handleMcp(request, response);
  if (url.pathname === "/sse" && request.method === "GET") {
    const transport = new SSEServerTransport("/messages", response);
    legacy.set(transport.sessionId, transport);
    transport.onclose = () => legacy.delete(transport.sessionId);
    await makeServer().connect(transport);
    return;
  }
  if (url.pathname === "/sse") {
    response.writeHead(405, { allow: "GET" });
    response.end("Method Not Allowed");
    return;
  }
  if (url.pathname === "/messages" && request.method === "POST") {
    const t = legacy.get(url.searchParams.get("sessionId"));
    if (!t) {
      response.writeHead(404);
      response.end("Unknown session");
      return;
    }
    await t.handlePostMessage(request, response);
    return;
  }
  if (url.pathname === "/admin/expire" && request.method === "POST") {
    const n = streamable.size;
    streamable.clear();
    response.writeHead(200, { "content-type": "text/plain" });
    response.end(String(n));
    return;
  }
  response.writeHead(404);
  response.end("Not Found");
}

const httpServer = http.createServer((request, response) => {
  handle(request, response).catch((e) => {
    console.error("handler failed:", e);
    if (!response.headersSent) {
      response.writeHead(500);
    }
    response.end();
  });
});
httpServer.listen(0, "127.0.0.1", () => {
  console.log(`LISTENING ${httpServer.address().port}`);
});
// Exit when the test that started us goes away.
process.stdin.on("end", () => process.exit(0));
process.stdin.resume();
