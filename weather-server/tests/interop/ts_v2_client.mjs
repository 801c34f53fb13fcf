// The TypeScript SDK v2 client (`@modelcontextprotocol/client`) against the weather server in the
// 2026-07-28 era: negotiation `auto` (probe server/discover) or pinned to 2026-07-28.
// Usage: node ts_v2_client.mjs <node_modules dir> <auto|pin> stdio <server binary> <args...>
//        node ts_v2_client.mjs <node_modules dir> <auto|pin> http <url>
// It lists, calls (with structured output), answers an elicitation through MRTR, reads a
// resource and a templated one, gets a prompt and completes an argument.
// Prints "OK <summary>" on success; exits non-zero with a message otherwise.
import { createRequire } from "node:module";
import path from "node:path";

const [nodeModules, negotiation, transportKind, target, ...args] = process.argv.slice(2);
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

const mode = negotiation === "pin" ? { pin: "2026-07-28" } : "auto";
const transport =
  transportKind === "stdio"
    ? new StdioClientTransport({ command: target, args, stderr: "inherit" })
    : new StreamableHTTPClientTransport(new URL(target));
const client = new Client(
  { name: "ts-v2-weather-interop", version: "1.0.0" },
  { capabilities: { elicitation: {} }, versionNegotiation: { mode } },
);
const asked = [];
client.setRequestHandler("elicitation/create", async (request) => {
  asked.push(request.params.message);
  const choices = request.params.requestedSchema.properties.city.enum;
  return { action: "accept", content: { city: choices.find((c) => c.endsWith("Missouri")) } };
});
await client.connect(transport);

const version = client.getProtocolVersion?.() ?? client.getNegotiatedProtocolVersion?.();
check(version === "2026-07-28", `negotiated ${version}`);
check(client.getServerVersion()?.name === "weather-server", `server ${JSON.stringify(client.getServerVersion())}`);

const { tools } = await client.listTools();
const names = tools.map((t) => t.name);
check(names.includes("get_weather") && names.includes("get_forecast"), `tools ${names}`);

// callTool also validates structuredContent against the tool's outputSchema.
const result = await client.callTool({ name: "get_weather", arguments: { city: "Shenzhen" } });
check(!result.isError, `isError ${JSON.stringify(result)}`);
check(result.structuredContent?.condition === "thunderstorms", "structured condition");

// "Springfield" is ambiguous: the server answers input_required, the SDK asks our handler and
// retries with the answer.
const springfield = await client.callTool({ name: "get_weather", arguments: { city: "Springfield" } });
check(!springfield.isError, `Springfield ${JSON.stringify(springfield)}`);
check(springfield.content[0].text.startsWith("Springfield, Missouri:"), `MRTR ${springfield.content[0].text}`);
check(asked.length === 1 && asked[0].includes("Springfield"), `asked ${JSON.stringify(asked)}`);

const { resources } = await client.listResources();
check(resources.some((r) => r.uri === "weather://cities"), "cities resource");
const cities = await client.readResource({ uri: "weather://cities" });
check(cities.contents[0].text.includes("Shenzhen"), "cities contents");
const current = await client.readResource({ uri: "weather://current/shenzhen" });
check(current.contents[0].text.includes("thunderstorms"), "templated resource");

const prompt = await client.getPrompt({ name: "weather_report", arguments: { city: "Shenzhen" } });
check(prompt.messages.length > 0, "prompt messages");
const completion = await client.complete({
  ref: { type: "ref/prompt", name: "weather_report" },
  argument: { name: "city", value: "Shen" },
});
check(completion.completion.values.includes("Shenzhen"), `completion ${completion.completion.values}`);

await client.close();
clearTimeout(timer);
console.log(`OK ${version} ${names.length} tools; ${result.content[0].text}; ${springfield.content[0].text}`);
