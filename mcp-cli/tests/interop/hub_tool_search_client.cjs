// Drives `mcp proxy --stdio --tool-search` with the official TypeScript SDK client.
// Usage: node hub_tool_search_client.cjs MCP_BIN CONFIG
// Lists the tools, searches for a forecast tool, calls it through call_tool, calls a filtered
// tool through call_tool, and prints one JSON line with what it saw. MCP_INTEROP_NODE_MODULES
// must point at node_modules.
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

function textOf(result) {
  return result.content.filter((c) => c.type === "text").map((c) => c.text).join("\n");
}

async function main() {
  const [bin, config] = process.argv.slice(2);
  const transport = new StdioClientTransport({
    command: bin,
    args: ["--config", config, "proxy", "--stdio", "--tool-search"],
    env: { ...process.env },
    stderr: "inherit",
  });
  const client = new Client({ name: "ts-tool-search-test", version: "1.0.0" });
  await client.connect(transport);
  const tools = await client.listTools();
  const search = await client.callTool({
    name: "search_tools",
    arguments: { query: "daily weather forecast for a city", limit: 3 },
  });
  const found = search.structuredContent.tools;
  const call = await client.callTool({
    name: "call_tool",
    arguments: { name: found[0].name, arguments: { city: "Shenzhen", days: 2 } },
  });
  const filtered = await client.callTool({
    name: "call_tool",
    arguments: { name: "weather__list_cities", arguments: {} },
  });
  console.log(
    JSON.stringify({
      tools: tools.tools.map((t) => t.name),
      found: found.map((t) => t.name),
      foundSchema: found[0].inputSchema,
      call: textOf(call),
      callError: call.isError === true,
      filtered: textOf(filtered),
      filteredError: filtered.isError === true,
    })
  );
  await client.close();
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
