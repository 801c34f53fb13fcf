// The official TypeScript SDK v1 client's experimental tasks (2025-11-25) against
// conformance-server over stdio: callToolStream with a task, input asked for from inside the
// task (elicitation over tasks/result), getTask / listTasks / cancelTask.
// Usage: node ts_tasks_client.mjs <node_modules dir> <server binary>
// Prints "OK <summary>" on success; exits non-zero with a message otherwise.
import { createRequire } from "node:module";
import path from "node:path";

const [nodeModules, serverBin] = process.argv.slice(2);
const require = createRequire(path.join(nodeModules, "..", "package.json"));
const { Client } = require("@modelcontextprotocol/sdk/client/index.js");
const { StdioClientTransport } = require("@modelcontextprotocol/sdk/client/stdio.js");
const { CallToolResultSchema, ElicitRequestSchema } = require("@modelcontextprotocol/sdk/types.js");

function check(cond, what) {
  if (!cond) {
    throw new Error(`check failed: ${what}`);
  }
}

async function collect(stream) {
  const seen = [];
  for await (const message of stream) {
    seen.push(message);
  }
  return seen;
}

const transport = new StdioClientTransport({ command: serverBin, args: ["--stdio"], stderr: "inherit" });
const client = new Client(
  { name: "ts-tasks-interop", version: "1.0.0" },
  { capabilities: { elicitation: { form: {} } }, defaultTaskPollInterval: 50 },
);
const elicited = [];
client.setRequestHandler(ElicitRequestSchema, async (request) => {
  elicited.push(request.params);
  return { action: "accept", content: { confirm: true } };
});
await client.connect(transport);
const caps = client.getServerCapabilities();
check(caps.tasks && caps.tasks.requests && caps.tasks.requests.tools && caps.tasks.requests.tools.call,
  `tasks capability ${JSON.stringify(caps.tasks)}`);
const tools = (await client.listTools()).tools;
const slow = tools.find((t) => t.name === "slow_compute");
check(slow && slow.execution && slow.execution.taskSupport === "optional", `slow_compute ${JSON.stringify(slow)}`);

// A task that runs to its end.
const plain = await collect(client.experimental.tasks.callToolStream(
  { name: "slow_compute", arguments: { seconds: 0.2, label: "ts" } }, CallToolResultSchema, { task: { ttl: 60000 } }));
const kinds = plain.map((m) => m.type);
check(kinds[0] === "taskCreated", `first message ${kinds}`);
const result = plain.find((m) => m.type === "result");
check(result && result.result.content[0].text === "Computed ts in 0.2s", `result ${JSON.stringify(plain)}`);
const taskId = plain[0].task.taskId;

// A task that asks for input: the elicitation arrives over tasks/result, with the related task.
const confirm = await collect(client.experimental.tasks.callToolStream(
  { name: "confirm_delete", arguments: { filename: "important.txt" } }, CallToolResultSchema, { task: { ttl: 60000 } }));
const confirmed = confirm.find((m) => m.type === "result");
check(confirmed && confirmed.result.content[0].text === "Deleted important.txt", `confirm ${JSON.stringify(confirm)}`);
check(elicited.length === 1, `one elicitation, got ${elicited.length}`);
const related = elicited[0]._meta && elicited[0]._meta["io.modelcontextprotocol/related-task"];
check(related && related.taskId === confirm[0].task.taskId, `related-task ${JSON.stringify(elicited[0])}`);

// getTask, listTasks, cancelTask.
const got = await client.experimental.tasks.getTask(taskId);
check(got.status === "completed", `getTask ${JSON.stringify(got)}`);
const long = await client.request(
  { method: "tools/call", params: { name: "slow_compute", arguments: { seconds: 30 }, task: { ttl: 60000 } } },
  (await import(path.join(nodeModules, "@modelcontextprotocol/sdk/dist/esm/types.js"))).CreateTaskResultSchema,
);
const cancelled = await client.experimental.tasks.cancelTask(long.task.taskId);
check(cancelled.status === "cancelled", `cancelTask ${JSON.stringify(cancelled)}`);
const listed = await client.experimental.tasks.listTasks();
const ids = listed.tasks.map((t) => t.taskId);
check(ids.includes(taskId) && ids.includes(long.task.taskId), `listTasks ${ids}`);

await client.close();
console.log(`OK ts sdk tasks: ${kinds.join(",")}; elicitation over tasks/result; ${listed.tasks.length} listed; cancel`);
