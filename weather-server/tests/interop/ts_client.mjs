// The official TypeScript SDK client calls the weather server's get_weather for Shenzhen.
// Usage: node ts_client.mjs <node_modules dir> stdio <server binary> <args...>
//        node ts_client.mjs <node_modules dir> http <url>
// Prints "OK <summary>" on success; exits non-zero with a message otherwise.
import { createRequire } from "node:module";
import path from "node:path";

const [nodeModules, mode, target, ...args] = process.argv.slice(2);
const require = createRequire(path.join(nodeModules, "..", "package.json"));
const { Client } = require("@modelcontextprotocol/sdk/client/index.js");
const { StdioClientTransport } = require("@modelcontextprotocol/sdk/client/stdio.js");
const { StreamableHTTPClientTransport } = require("@modelcontextprotocol/sdk/client/streamableHttp.js");

const timer = setTimeout(() => {
  console.error("the interop driver timed out");
  process.exit(3);
}, 30000);

function check(cond, what) {
  if (!cond) {
    throw new Error(`check failed: ${what}`);
  }
}

const transport =
  mode === "stdio"
    ? new StdioClientTransport({ command: target, args, stderr: "inherit" })
    : new StreamableHTTPClientTransport(new URL(target));
const client = new Client({ name: "ts-weather-interop", version: "1.0.0" }, { capabilities: {} });
await client.connect(transport);

const server = client.getServerVersion();
check(server.name === "weather-server", `server name ${JSON.stringify(server)}`);
const { tools } = await client.listTools();
const names = tools.map((t) => t.name);
check(names.includes("get_weather"), `tools ${names}`);
const getWeather = tools.find((t) => t.name === "get_weather");
check(getWeather.annotations?.readOnlyHint === true, "read-only hint");

// callTool also validates structuredContent against the tool's outputSchema.
const result = await client.callTool({ name: "get_weather", arguments: { city: "Shenzhen" } });
check(!result.isError, `isError ${JSON.stringify(result)}`);
const text = result.content[0].text;
check(text.includes("thunderstorms"), `text ${text}`);
check(result.structuredContent?.condition === "thunderstorms", "structured condition");

const unknown = await client.callTool({ name: "get_weather", arguments: { city: "Atlantis" } });
check(unknown.isError === true, "unknown city is a tool error");

const progress = [];
const forecast = await client.callTool(
  { name: "get_forecast", arguments: { city: "深圳", days: 4 } },
  undefined,
  { onprogress: (p) => progress.push(p.progress) },
);
check(forecast.structuredContent?.days?.length === 4, "four days");
check(progress.join(",") === "1,2,3,4", `progress ${progress}`);

if (mode !== "stdio") {
  await transport.terminateSession();
}
await client.close();
clearTimeout(timer);
console.log(`OK ${mode}: ${text}`);
