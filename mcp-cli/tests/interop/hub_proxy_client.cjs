// Drives `mcp proxy` with the official TypeScript SDK client, for the CLI proxy tests.
// Usage: node hub_proxy_client.cjs stdio MCP_BIN CONFIG
//        node hub_proxy_client.cjs http URL
// Lists tools, resources and prompts, calls weather__get_weather and everything__echo, and
// prints one JSON line with what it saw. MCP_INTEROP_NODE_MODULES must point at node_modules.
"use strict";
const path = require("node:path");
const { createRequire } = require("node:module");

const modules = process.env.MCP_INTEROP_NODE_MODULES;
if (!modules) {
  console.error("MCP_INTEROP_NODE_MODULES is not set");
  process.exit(2);
}
const req = createRequire(path.join(modules, "resolve-from-here.js"));
const { Client } = req("@modelcontextprotocol/sdk/client/index.js");
const { StdioClientTransport } = req("@modelcontextprotocol/sdk/client/stdio.js");
const { StreamableHTTPClientTransport } = req("@modelcontextprotocol/sdk/client/streamableHttp.js");

function textOf(result) {
  return result.content.filter((c) => c.type === "text").map((c) => c.text).join("\n");
}

async function main() {
  const [mode, a, b] = process.argv.slice(2);
  let transport;
  if (mode === "stdio") {
    transport = new StdioClientTransport({
      command: a,
      args: ["--config", b, "proxy", "--stdio"],
      env: { ...process.env },
      stderr: "inherit",
    });
  } else {
    transport = new StreamableHTTPClientTransport(new URL(a));
  }
  const client = new Client({ name: "ts-proxy-test", version: "1.0.0" });
  await client.connect(transport);
  const tools = await client.listTools();
  const weather = await client.callTool({ name: "weather__get_weather", arguments: { city: "Shenzhen" } });
  const echo = await client.callTool({ name: "everything__echo", arguments: { message: "via proxy" } });
  const resources = await client.listResources();
  const prompts = await client.listPrompts();
  const read = await client.readResource({ uri: "weather://cities" });
  console.log(
    JSON.stringify({
      server: client.getServerVersion().name,
      tools: tools.tools.map((t) => t.name),
      weather: textOf(weather),
      echo: textOf(echo),
      resources: resources.resources.map((r) => r.uri),
      prompts: prompts.prompts.map((p) => p.name),
      readLength: read.contents[0].text.length,
    }),
  );
  await client.close();
}

main().catch((e) => {
  console.error(e && e.stack ? e.stack : String(e));
  process.exit(1);
});
