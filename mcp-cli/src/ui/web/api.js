// The page's client of mcp ui's API: every request carries the per-run token from the page's
// URL in the x-mcp-ui-token header. Tool calls come back as Server-Sent Events (progress,
// then the result), read from the fetch body since EventSource cannot POST.

const token = new URLSearchParams(location.search).get("token") ?? "";

function headers(json) {
  const h = { "x-mcp-ui-token": token };
  if (json) h["content-type"] = "application/json";
  return h;
}

async function request(method, path, body) {
  const response = await fetch(path, {
    method,
    headers: headers(body !== undefined),
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const data = await response.json().catch(() => ({ error: response.statusText }));
  if (!response.ok) throw new Error(data.error ?? response.statusText);
  return data;
}

/** Every server, tool, resource, template and prompt of the hub. */
export const getHub = () => request("GET", "/api/hub");

/** Reads a resource of a server. */
export const readResource = (server, uri) => request("POST", "/api/read", { server, uri });

/** Gets a prompt of a server with its (string) arguments. */
export const getPrompt = (server, name, args) => request("POST", "/api/prompt", { server, name, arguments: args });

/** Puts a view on the app origin: {url, policy, allow, meta}. */
export const openView = (server, uri) => request("POST", "/api/view", { server, uri });

/** One SSE block ("event: x\ndata: {...}") as {event, data}. */
function parseEvent(block) {
  let event = "message";
  const data = [];
  for (const line of block.split("\n")) {
    if (line.startsWith("event:")) event = line.slice(6).trim();
    else if (line.startsWith("data:")) data.push(line.slice(5).trimStart());
  }
  return { event, data: data.length ? JSON.parse(data.join("\n")) : null };
}

/**
 * Calls a tool by exposed name. `app` names the server whose view asks (the API then refuses
 * tools that view may not call). Resolves to the CallToolResult; rejects on errors.
 */
export async function callTool(name, args, { app, onProgress, signal } = {}) {
  const response = await fetch("/api/call", {
    method: "POST",
    headers: headers(true),
    body: JSON.stringify({ name, arguments: args, app }),
    signal,
  });
  if (!response.ok) {
    const data = await response.json().catch(() => ({}));
    throw new Error(data.error ?? response.statusText);
  }
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buffer += value;
    let cut;
    while ((cut = buffer.indexOf("\n\n")) >= 0) {
      const { event, data } = parseEvent(buffer.slice(0, cut));
      buffer = buffer.slice(cut + 2);
      if (event === "progress") onProgress?.(data);
      else if (event === "result") return data;
      else if (event === "error") throw new Error(data.message);
    }
  }
  throw new Error("the call ended without a result");
}
