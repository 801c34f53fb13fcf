// A stdio server on the official TypeScript SDK (v1) for `mcp ui`'s browser tests: a tool with
// a nested-object input, a tool that fails, and a probe app whose view tries to leave its
// sandbox and to call tools its visibility forbids, writing what happened into its DOM.
// Usage: node ui_fixture_server.mjs <node_modules with @modelcontextprotocol/sdk and zod>
import { createRequire } from "node:module";

const require = createRequire(process.argv[2] + "/");
const { McpServer } = require("@modelcontextprotocol/sdk/server/mcp.js");
const { StdioServerTransport } = require("@modelcontextprotocol/sdk/server/stdio.js");
const { z } = require("zod");

const VIEW = "ui://probe/app.html";
const MIME = "text/html;profile=mcp-app";
const server = new McpServer({ name: "ui-fixture", version: "1.0.0" });

server.registerTool("configure", {
  description: "Echoes a nested configuration back",
  inputSchema: {
    name: z.string().describe("The configuration's name"),
    mode: z.enum(["fast", "safe"]).default("safe"),
    limits: z.object({
      cpu: z.number().int().describe("Cores"),
      memory: z.number().optional().describe("MiB"),
    }),
    tags: z.array(z.string()).optional(),
  },
}, async (args) => ({
  content: [{ type: "text", text: JSON.stringify(args) }],
  structuredContent: args,
}));

server.registerTool("fail", { description: "Always fails", inputSchema: {} }, async () => {
  throw new Error("this tool always fails");
});

server.registerTool("probe", {
  description: "Shows the probe app",
  inputSchema: { target: z.string().describe("A URL the app must not reach") },
  _meta: { ui: { resourceUri: VIEW }, "ui/resourceUri": VIEW },
}, async ({ target }) => ({ content: [{ type: "text", text: `probing ${target}` }] }));

server.registerTool("model_only", {
  description: "A tool only the model may call",
  inputSchema: {},
  _meta: { ui: { visibility: ["model"] } },
}, async () => ({ content: [{ type: "text", text: "model_only ran" }] }));

server.registerTool("app_echo", {
  description: "A tool only the app may call",
  inputSchema: { text: z.string() },
  _meta: { ui: { resourceUri: VIEW, visibility: ["app"] } },
}, async ({ text }) => ({ content: [{ type: "text", text: `app_echo: ${text}` }] }));

const PROBE = `<!doctype html><html><head><meta charset="utf-8"><title>probe</title></head>
<body><h1>probe</h1><pre id="report"></pre><script>
const lines = [];
const report = (line) => { lines.push(line); document.getElementById("report").textContent = lines.join("\\n"); };
let next = 1;
const waiting = new Map();
function request(method, params) {
  const id = next++;
  window.parent.postMessage({ jsonrpc: "2.0", id, method, params }, "*");
  return new Promise((resolve) => waiting.set(id, resolve));
}
let gotInput;
const input = new Promise((resolve) => (gotInput = resolve));
window.addEventListener("message", (event) => {
  if (event.source !== window.parent) return;
  const m = event.data;
  if (m && m.id !== undefined && waiting.has(m.id)) { waiting.get(m.id)(m); waiting.delete(m.id); }
  else if (m && m.method === "ui/notifications/tool-input") gotInput(m.params.arguments);
});
async function tryIt(name, action) {
  try { const r = await action(); report(name + ": REACHED " + r); } catch (e) { report(name + ": blocked (" + (e && e.name) + ")"); }
}
(async () => {
  const init = await request("ui/initialize", { appInfo: { name: "probe", version: "1" }, appCapabilities: {}, protocolVersion: "2026-01-26" });
  report("initialize: " + (init.result ? init.result.hostInfo.name + " theme " + init.result.hostContext.theme : "error"));
  if (init.result) report("granted: " + Object.keys(init.result.hostCapabilities.sandbox.permissions).join(",") + " connect " + init.result.hostCapabilities.sandbox.csp.connectDomains);
  window.parent.postMessage({ jsonrpc: "2.0", method: "ui/notifications/initialized", params: {} }, "*");
  const args = await input;
  report("origin: " + window.origin);
  await tryIt("parent-dom", async () => window.parent.document.title);
  await tryIt("parent-location", async () => window.parent.location.href);
  await tryIt("storage", async () => String(window.localStorage.length));
  await tryIt("cookie", async () => document.cookie + "|");
  await tryIt("fetch-api", async () => (await fetch(args.target + "/api/hub")).status);
  const refused = await request("tools/call", { name: "model_only", arguments: {} });
  report("model_only: " + (refused.error ? "refused " + refused.error.message : "ALLOWED"));
  const cross = await request("tools/call", { name: "get_weather", arguments: { city: "Paris" } });
  report("cross-server: " + (cross.error ? "refused " + cross.error.message : "ALLOWED"));
  const echo = await request("tools/call", { name: "app_echo", arguments: { text: "from the app" } });
  report("app_echo: " + (echo.result ? echo.result.content[0].text : "error " + JSON.stringify(echo.error)));
  document.body.dataset.done = "1";
})();
</script></body></html>`;

// The view asks for one origin to fetch from and for clipboard writes; the host must apply both.
const UI_META = {
  ui: {
    csp: { connectDomains: ["https://api.example.com"] },
    permissions: { clipboardWrite: {} },
    prefersBorder: true,
  },
};
server.registerResource("probe app", VIEW, { mimeType: MIME }, async () => ({
  contents: [{ uri: VIEW, mimeType: MIME, text: PROBE, _meta: UI_META }],
}));

await server.connect(new StdioServerTransport());
