// A TypeScript SDK v2 (@modelcontextprotocol/server 2.4.0) server for the 2026-07-28 interop
// tests of our client.
//   node modern_ts_server.cjs stdio        dual-era server on stdin/stdout
//   node modern_ts_server.cjs stdio-modern 2026-07-28 only on stdin/stdout (refuses `initialize`)
//   node modern_ts_server.cjs http         modern-only Streamable HTTP on 127.0.0.1 (refuses
//                                          `initialize`: legacy: "reject"), prints "LISTENING <port>"
// Tools: echo {message}; confirm {action} asks through MRTR (elicitation) whether to go on;
// regional {region (x-mcp-header Region), text} echoes both; grow announces a tool list change
// and an update of note://hello (stdio: it really adds tool `extra`). Prompt greet {name}; resource
// note://hello. MCP_INTEROP_NODE_MODULES must point at node_modules.
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
const { McpServer, createMcpHandler, inputRequired, acceptedContent } = sdk;

// `notify` tells listeners that the tools changed and that note://hello was updated (HTTP: the
// handler's bus; stdio: the pinned instance's own notifications, routed to the listen streams).
function makeServer(notify) {
  const server = new McpServer(
    { name: "ts-modern", version: "2.4.0" },
    { capabilities: { resources: { subscribe: true, listChanged: true } } },
  );
  server.registerTool(
    "grow",
    { description: "Adds a tool and touches note://hello", inputSchema: z.object({}) },
    async () => {
      if (notify) notify();
      else {
        server.registerTool("extra", { description: "Added later", inputSchema: z.object({}) }, async () => ({
          content: [{ type: "text", text: "extra" }],
        }));
        await server.server.sendResourceUpdated({ uri: "note://hello" });
      }
      return { content: [{ type: "text", text: "grown" }] };
    },
  );
  server.registerTool(
    "echo",
    { description: "Echoes its message", inputSchema: z.object({ message: z.string() }) },
    async ({ message }) => ({ content: [{ type: "text", text: `echo: ${message}` }] }),
  );
  server.registerTool(
    "confirm",
    { description: "Asks the user before it acts", inputSchema: z.object({ action: z.string() }) },
    async ({ action }, ctx) => {
      const answer = acceptedContent(ctx.mcpReq.inputResponses, "ok");
      if (answer === undefined) {
        return inputRequired({
          inputRequests: {
            ok: inputRequired.elicit({
              message: `Really ${action}?`,
              requestedSchema: z.object({ confirm: z.boolean() }),
            }),
          },
        });
      }
      return { content: [{ type: "text", text: `${action}: ${answer.confirm ? "done" : "skipped"}` }] };
    },
  );
  server.registerTool(
    "regional",
    {
      description: "Echoes a region sent as a header",
      inputSchema: z.object({
        region: z.string().meta({ "x-mcp-header": "Region" }),
        text: z.string(),
      }),
    },
    async ({ region, text }) => ({ content: [{ type: "text", text: `${region}/${text}` }] }),
  );
  server.registerPrompt(
    "greet",
    { description: "Greets someone", argsSchema: z.object({ name: z.string() }) },
    async ({ name }) => ({
      messages: [{ role: "user", content: { type: "text", text: `Hello, ${name}!` } }],
    }),
  );
  server.registerResource(
    "hello",
    "note://hello",
    { mimeType: "text/plain" },
    async (uri) => ({ contents: [{ uri: uri.href, mimeType: "text/plain", text: "hello from ts" }] }),
  );
  return server;
}

async function serveHttp() {
  let handler;
  const notify = () => {
    handler.notify.toolsChanged();
    handler.notify.resourceUpdated("note://hello");
  };
  handler = createMcpHandler(() => makeServer(notify), { legacy: "reject" });
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
      body: ["GET", "HEAD"].includes(nodeReq.method) ? undefined : body,
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
  server.listen(0, "127.0.0.1", () => {
    console.log(`LISTENING ${server.address().port}`);
  });
}

async function main() {
  const mode = process.argv[2] || "stdio";
  if (mode === "http") return serveHttp();
  serveStdio(() => makeServer(), { legacy: mode === "stdio-modern" ? "reject" : "serve" });
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
