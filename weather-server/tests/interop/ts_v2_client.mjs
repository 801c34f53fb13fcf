// The TypeScript SDK v2 client (@modelcontextprotocol/client 2.4.0) against the weather server in
// the 2026-07-28 era: lists, calls, reads, gets a prompt and completes.
// Usage: node ts_v2_client.mjs <node_modules dir> <auto|pin> stdio <server binary> <args...>
//        node ts_v2_client.mjs <node_modules dir> <auto|pin> http <url>
// Prints "OK <summary>" on success; exits non-zero with a message otherwise.
import { createRequire } from "node:module";
import path from "node:path";

const [nodeModules, negotiation, mode, target, ...args] = process.argv.slice(2);
const require = createRequire(path.join(nodeModules, "..", "package.json"));
const { Client, StreamableHTTPClientTransport } = require("@modelcontextprotocol/client");
const { StdioClientTransport } = require("@modelcontextprotocol/client/stdio");

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
const versionNegotiation = {
  mode: negotiation === "pin" ? { pin: "2026-07-28" } : "auto",
};
const client = new Client(
  { name: "ts-v2-weather-interop", version: "1.0.0" },
  { capabilities: {}, versionNegotiation },
);
await client.connect(transport);

const version = client.getNegotiatedProtocolVersion();
check(version === "2026-07-28", `negotiated ${version}`);
const era = client.getProtocolEra();
check(era === "modern", `era ${era}`);
const server = client.getServerVersion();
check(server?.name === "weather-server", `server ${JSON.stringify(server)}`);

const { tools } = await client.listTools();
const names = tools.map((t) => t.name);
check(names.includes("get_weather") && names.includes("get_forecast"), `tools ${names}`);

const result = await client.callTool({ name: "get_weather", arguments: { city: "Shenzhen" } });
check(!result.isError, `isError ${JSON.stringify(result)}`);
const text = result.content[0].text;
check(text.includes("thunderstorms"), `text ${text}`);

const unknown = await client.callTool({ name: "get_weather", arguments: { city: "Atlantis" } });
check(unknown.isError === true, "unknown city is a tool error");

const { resources } = await client.listResources();
check(resources.some((r) => r.uri === "weather://cities"), `resources ${JSON.stringify(resources)}`);
const read = await client.readResource({ uri: "weather://cities" });
check(read.contents[0].text.includes("Shenzhen"), "the cities resource names Shenzhen");
const { resourceTemplates } = await client.listResourceTemplates();
check(resourceTemplates.some((t) => t.uriTemplate === "weather://current/{city}"), "template");

const { prompts } = await client.listPrompts();
check(prompts.some((p) => p.name === "weather_report"), `prompts ${JSON.stringify(prompts)}`);
const prompt = await client.getPrompt({ name: "weather_report", arguments: { city: "Shenzhen" } });
check(prompt.messages.length > 0, "prompt messages");

const completion = await client.complete({
  ref: { type: "ref/prompt", name: "weather_report" },
  argument: { name: "style", value: "fr" },
});
check(completion.completion.values.includes("friendly"), `completion ${JSON.stringify(completion)}`);

await client.close();
clearTimeout(timer);
console.log(`OK ${mode} ${negotiation} era=${era} version=${version}: ${text}`);
