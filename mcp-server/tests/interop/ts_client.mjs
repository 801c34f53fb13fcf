// Drives the Rust test server with the official TypeScript SDK client over stdio.
// Usage: node ts_client.mjs <node_modules dir> <server binary>
// Prints "OK <summary>" on success; exits non-zero with a message otherwise.
import { createRequire } from "node:module";
import path from "node:path";

const [nodeModules, serverBin] = process.argv.slice(2);
const require = createRequire(path.join(nodeModules, "..", "package.json"));
const { Client } = require("@modelcontextprotocol/sdk/client/index.js");
const { StdioClientTransport } = require("@modelcontextprotocol/sdk/client/stdio.js");
const { LoggingMessageNotificationSchema } = require("@modelcontextprotocol/sdk/types.js");

function check(cond, what) {
  if (!cond) {
    throw new Error(`check failed: ${what}`);
  }
}

const transport = new StdioClientTransport({ command: serverBin, args: [], stderr: "inherit" });
const client = new Client({ name: "ts-interop", version: "1.0.0" }, { capabilities: {} });
const logs = [];
client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => logs.push(n.params));

await client.connect(transport);
const version = client.getServerVersion();
check(version.name === "mcp-test-server", `server name ${JSON.stringify(version)}`);
check(client.getInstructions() === "A server for tests.", "instructions");
const caps = client.getServerCapabilities();
check(caps.tools && caps.resources && caps.prompts && caps.logging, `capabilities ${JSON.stringify(caps)}`);

const tools = await client.listTools();
const names = tools.tools.map((t) => t.name);
check(names.includes("echo") && names.includes("add") && names.includes("slow"), `tools ${names}`);

const echo = await client.callTool({ name: "echo", arguments: { text: "hi from ts" } });
check(echo.content[0].text === "hi from ts", `echo ${JSON.stringify(echo)}`);

const add = await client.callTool({ name: "add", arguments: { a: 2, b: 40 } });
check(add.structuredContent && add.structuredContent.sum === 42, `add ${JSON.stringify(add)}`);

const bad = await client.callTool({ name: "add", arguments: { a: "x" } });
check(bad.isError === true, `bad args ${JSON.stringify(bad)}`);

const fail = await client.callTool({ name: "fail", arguments: {} });
check(fail.isError === true, "fail isError");

const res = await client.readResource({ uri: "test://static" });
check(res.contents[0].text === "hello from a static resource", `static ${JSON.stringify(res)}`);
const item = await client.readResource({ uri: "test://item/7" });
check(item.contents[0].text === "item 7", `item ${JSON.stringify(item)}`);
const templates = await client.listResourceTemplates();
check(templates.resourceTemplates[0].uriTemplate === "test://item/{id}", "templates");
let notFound = null;
try {
  await client.readResource({ uri: "test://nothing" });
} catch (e) {
  notFound = e;
}
check(notFound && notFound.code === -32002, `not found ${notFound}`);

const prompt = await client.getPrompt({ name: "greet", arguments: { name: "Ada" } });
check(prompt.messages[0].content.text.includes("Ada"), `prompt ${JSON.stringify(prompt)}`);
const completion = await client.complete({ ref: { type: "ref/prompt", name: "greet" }, argument: { name: "name", value: "al" } });
check(completion.completion.values.join(",") === "alice,albert", `complete ${JSON.stringify(completion)}`);

await client.setLoggingLevel("info");
const progress = [];
const slow = await client.callTool(
  { name: "slow", arguments: { steps: 3, delay_ms: 20 } },
  undefined,
  { onprogress: (p) => progress.push(p.progress) },
);
check(slow.content[0].text === "done after 3 steps", `slow ${JSON.stringify(slow)}`);
// The TS SDK handles notifications in a microtask but responses at once, and drops a request's
// progress handler when its response arrives: a final progress update that shares a read chunk
// with the response is lost on the client side. Steps 1 and 2 arrive alone (20 ms apart).
check(progress.length >= 2 && "1,2,3".startsWith(progress.join(",")), `progress ${progress}`);
// Log notifications are sent before the response; give the event loop a moment.
await new Promise((r) => setTimeout(r, 50));
check(logs.filter((l) => String(l.data).startsWith("slow: step")).length === 3, `logs ${JSON.stringify(logs)}`);

await client.close();
console.log(`OK tools=${names.length} progress=${progress.length} logs=${logs.length}`);
