// A TypeScript-SDK (v1, experimental tasks, 2025-11-25) server for the client's task tests.
//   node tasks_ts_server.cjs          serves stdio
//   node tasks_ts_server.cjs --http   serves Streamable HTTP on 127.0.0.1:<free port>/mcp and
//                                     prints "LISTENING <port>"
//   node tasks_ts_server.cjs --http --stateless
//                                     the same without sessions: one task store shared by every
//                                     request, so a task outlives the connection that made it
// MCP_INTEROP_NODE_MODULES must point at node_modules.
// Tools (all run as tasks in the SDK's in-memory task store, pollInterval 50 ms):
//   count   {steps, delayMs}  taskSupport optional: counts, sends progress (under the call's
//                             progress token) and a status message per step, answers "counted N"
//   forever {}                taskSupport required: works until cancelled
//   ask     {}                taskSupport required: asks the client for a name (elicitation
//                             tied to the task, delivered through tasks/result), answers
//                             "hello NAME"
//   plain   {}                no task support: answers "plain"
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
const { StdioServerTransport } = req("@modelcontextprotocol/sdk/server/stdio.js");
const { StreamableHTTPServerTransport } = req("@modelcontextprotocol/sdk/server/streamableHttp.js");
const { InMemoryTaskStore, InMemoryTaskMessageQueue } = req(
  "@modelcontextprotocol/sdk/experimental/tasks/index.js",
);
const { RELATED_TASK_META_KEY } = req("@modelcontextprotocol/sdk/types.js");
const { z } = req("zod");

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

const stateless = process.argv.includes("--stateless");
const sharedStore = new InMemoryTaskStore();

function makeServer() {
  const taskStore = stateless ? sharedStore : new InMemoryTaskStore();
  const server = new McpServer(
    { name: "ts-tasks-interop", version: "1.0.0" },
    {
      capabilities: {
        tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } },
      },
      taskStore,
      taskMessageQueue: new InMemoryTaskMessageQueue(),
    },
  );

  // Runs `work` in the background for a new task; `work` gets (taskId, store, isCancelled).
  function taskTool(work) {
    return {
      createTask: async (first, second) => {
        // A tool with no input schema is called with (extra) only.
        const [args, extra] = second === undefined ? [{}, first] : [first, second];
        const task = await extra.taskStore.createTask({ ttl: 60000, pollInterval: 50 });
        // Without sessions the request (and its transport) is gone when the work goes on:
        // the work updates the shared store directly (no status notifications).
        const store = stateless ? sharedStore : extra.taskStore;
        const isCancelled = async () => {
          const t = await store.getTask(task.taskId).catch(() => null);
          return !t || t.status === "cancelled";
        };
        (async () => {
          try {
            const result = await work(args, extra, task.taskId, store, isCancelled);
            if (result && !(await isCancelled())) {
              await store.storeTaskResult(task.taskId, "completed", result);
            }
          } catch (e) {
            if (!(await isCancelled())) {
              await store
                .storeTaskResult(task.taskId, "failed", {
                  content: [{ type: "text", text: String(e && e.message) }],
                  isError: true,
                })
                .catch(() => {});
            }
          }
        })();
        return { task };
      },
      getTask: async (args, extra) => extra.taskStore.getTask(extra.taskId),
      getTaskResult: async (args, extra) => extra.taskStore.getTaskResult(extra.taskId),
    };
  }

  server.experimental.tasks.registerToolTask(
    "count",
    {
      description: "Counts to steps, one step every delayMs",
      inputSchema: { steps: z.number(), delayMs: z.number() },
      execution: { taskSupport: "optional" },
    },
    taskTool(async ({ steps, delayMs }, extra, taskId, store, isCancelled) => {
      const token = extra._meta && extra._meta.progressToken;
      for (let i = 1; i <= steps; i++) {
        await sleep(delayMs);
        if (await isCancelled()) return null;
        await store.updateTaskStatus(taskId, "working", `step ${i} of ${steps}`);
        if (token !== undefined) {
          // Best effort: without sessions the connection that could carry it is gone.
          await server.server
            .notification({
              method: "notifications/progress",
              params: {
                progressToken: token,
                progress: i,
                total: steps,
                _meta: { [RELATED_TASK_META_KEY]: { taskId } },
              },
            })
            .catch(() => {});
        }
      }
      return { content: [{ type: "text", text: `counted ${steps}` }] };
    }),
  );

  server.experimental.tasks.registerToolTask(
    "forever",
    { description: "Works until cancelled", execution: { taskSupport: "required" } },
    taskTool(async (_args, _extra, taskId, store, isCancelled) => {
      for (let i = 0; i < 6000; i++) {
        await sleep(20);
        if (await isCancelled()) return null;
      }
      return { content: [{ type: "text", text: "gave up waiting to be cancelled" }] };
    }),
  );

  server.experimental.tasks.registerToolTask(
    "ask",
    { description: "Asks the client for a name", execution: { taskSupport: "required" } },
    taskTool(async (_args, _extra, taskId, store) => {
      await store.updateTaskStatus(taskId, "input_required", "waiting for a name");
      const answer = await server.server.elicitInput(
        {
          mode: "form",
          message: "What is your name?",
          requestedSchema: {
            type: "object",
            properties: { name: { type: "string" } },
            required: ["name"],
          },
        },
        { relatedTask: { taskId } },
      );
      await store.updateTaskStatus(taskId, "working", "got an answer");
      const name = answer.action === "accept" && answer.content ? answer.content.name : "nobody";
      return { content: [{ type: "text", text: `hello ${name}` }] };
    }),
  );

  server.registerTool("plain", { description: "Not a task" }, async () => ({
    content: [{ type: "text", text: "plain" }],
  }));
  return server;
}

if (!process.argv.includes("--http")) {
  makeServer()
    .connect(new StdioServerTransport())
    .catch((e) => {
      console.error(e);
      process.exit(1);
    });
} else {
  const sessions = new Map();
  const readBody = (request) =>
    new Promise((resolve, reject) => {
      const chunks = [];
      request.on("data", (c) => chunks.push(c));
      request.on("end", () => {
        const text = Buffer.concat(chunks).toString("utf8");
        try {
          resolve(text ? JSON.parse(text) : undefined);
        } catch (e) {
          reject(e);
        }
      });
      request.on("error", reject);
    });
  const handle = async (request, response) => {
    const url = new URL(request.url, "http://127.0.0.1");
    if (url.pathname !== "/mcp") {
      response.writeHead(404);
      return response.end();
    }
    const sid = request.headers["mcp-session-id"];
    const body = request.method === "POST" ? await readBody(request) : undefined;
    if (stateless) {
      if (request.method !== "POST") {
        response.writeHead(405);
        return response.end();
      }
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
      const server = makeServer();
      response.on("close", () => {
        transport.close();
        server.close();
      });
      await server.connect(transport);
      return transport.handleRequest(request, response, body);
    }
    if (sid) {
      const t = sessions.get(sid);
      if (!t) {
        response.writeHead(404);
        return response.end("Session not found");
      }
      return t.handleRequest(request, response, body);
    }
    if (request.method !== "POST" || !body || body.method !== "initialize") {
      response.writeHead(400);
      return response.end("Missing session id");
    }
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => sessions.set(id, transport),
    });
    transport.onclose = () => transport.sessionId && sessions.delete(transport.sessionId);
    await makeServer().connect(transport);
    await transport.handleRequest(request, response, body);
  };
  const httpServer = http.createServer((request, response) => {
    handle(request, response).catch((e) => {
      console.error("handler failed:", e);
      if (!response.headersSent) response.writeHead(500);
      response.end();
    });
  });
  httpServer.listen(0, "127.0.0.1", () => console.log(`LISTENING ${httpServer.address().port}`));
  process.stdin.on("end", () => process.exit(0));
  process.stdin.resume();
}
