// The official TypeScript SDK client (v1) holds one 2025-era session through nginx in front of
// several weather-server replicas while the test kills and restarts them: it calls get_weather
// every 50 ms and listens on its standalone GET stream for notifications/resources/updated.
// Usage: node ts_scale_sessions.mjs <node_modules dir> <url> <duration ms>
// Prints "READY" once subscribed (the test then starts killing), then one line
// "RESULT <json>": calls ok/failed (with errors), the ids of every GET-stream event with data
// in arrival order, and how many GETs resumed with Last-Event-ID.
import { createRequire } from "node:module";
import path from "node:path";

const [nodeModules, url, durationMs] = process.argv.slice(2);
const require = createRequire(path.join(nodeModules, "..", "package.json"));
const { Client } = require("@modelcontextprotocol/sdk/client/index.js");
const { StreamableHTTPClientTransport } = require("@modelcontextprotocol/sdk/client/streamableHttp.js");
const { ResourceUpdatedNotificationSchema } = require("@modelcontextprotocol/sdk/types.js");

const timer = setTimeout(() => {
  console.error("the scale-out driver timed out");
  process.exit(3);
}, Number(durationMs) + 80000);

const ids = [];
let resumes = 0;
let gets = 0;

// Reads a GET stream's copy and records the id of every event that carries data.
async function recordIds(body) {
  const reader = body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      buffer += value;
      let end;
      while ((end = buffer.indexOf("\n\n")) >= 0) {
        const event = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        let id;
        let data = "";
        for (const line of event.split("\n")) {
          if (line.startsWith("id:")) id = line.slice(3).trim();
          if (line.startsWith("data:")) data += line.slice(5).trim();
        }
        if (id !== undefined && data !== "") ids.push(id);
      }
    }
  } catch {
    // The connection was cut (a replica was killed): the SDK reconnects.
  }
}

async function recordingFetch(input, init) {
  const response = await fetch(input, init);
  if ((init?.method ?? "GET") === "GET" && response.ok && response.body) {
    gets += 1;
    const headers = new Headers(init?.headers);
    if (headers.get("last-event-id")) resumes += 1;
    const [mine, theirs] = response.body.tee();
    recordIds(mine);
    return new Response(theirs, { status: response.status, headers: response.headers });
  }
  return response;
}

const transport = new StreamableHTTPClientTransport(new URL(url), {
  fetch: recordingFetch,
  reconnectionOptions: {
    initialReconnectionDelay: 100,
    maxReconnectionDelay: 1000,
    reconnectionDelayGrowFactor: 1.5,
    maxRetries: 50,
  },
});
transport.onerror = () => {};
const client = new Client({ name: "ts-scale-sessions", version: "1.0.0" }, { capabilities: {} });
let updates = 0;
client.setNotificationHandler(ResourceUpdatedNotificationSchema, () => {
  updates += 1;
});
await client.connect(transport);
await client.subscribeResource({ uri: "weather://current/paris" });
console.log("READY");

let ok = 0;
const errors = [];
const until = Date.now() + Number(durationMs);
while (Date.now() < until) {
  try {
    const result = await client.callTool({ name: "get_weather", arguments: { city: "Paris" } });
    if (result.isError) errors.push(JSON.stringify(result.content));
    else ok += 1;
  } catch (e) {
    errors.push(String(e));
  }
  await new Promise((r) => setTimeout(r, 50));
}
// Let the last events arrive.
await new Promise((r) => setTimeout(r, 1500));
console.log(
  "RESULT " +
    JSON.stringify({ ok, failed: errors.length, errors, ids, updates, gets, resumes, session: transport.sessionId }),
);
clearTimeout(timer);
await client.close();
process.exit(0);
