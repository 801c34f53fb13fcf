// Our weather app in the official host: a small test page whose host side is the official
// `AppBridge` of `@modelcontextprotocol/ext-apps`, in Debian's Chromium driven by playwright-core,
// with weather-server behind it over Streamable HTTP through the official TypeScript SDK v2 client.
//
// Usage: node apps_host.mjs <apps node_modules> <weather-server /mcp URL> <chromium> <artifacts dir>
//                            [<tool name prefix> <view URI>]
// The last two name the tools and the view as a proxy in front of weather-server offers them
// (`weather__`, `ui://weather/weather/app.html` for `mcp proxy`); the view still calls its
// server's tools by their own names.
//
// 1. Both eras (2025 `initialize`, 2026-07-28 per request): the client declares the extension,
//    the server declares it back; get_weather and get_forecast name the view (checked with the
//    official getToolUiResourceUri); the view is a text/html;profile=mcp-app resource, whose
//    read under 2026-07-28 carries ttlMs 3600000 and cacheScope "public".
// 2. The "model" calls get_weather for Lisbon; the page renders the view in a sandboxed iframe
//    on another origin, served under the extension's restrictive default CSP, and the bridge
//    sends it the tool input and result after the view's ui/initialize.
// 3. The card shows Lisbon and the forecast chart (the view's own tools/call of get_forecast);
//    the picker, filled by a tools/call of list_cities, switches to Shenzhen (tools/call of
//    get_weather and get_forecast, reaching weather-server); a host-context change turns the
//    view dark; the view asks for fullscreen and gets it. Screenshots go to the artifacts dir.
// Prints "OK <summary>" on success; exits non-zero with a message otherwise.
import { createRequire } from "node:module";
import { pathToFileURL } from "node:url";
import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";

const [nodeModules, serverUrl, chromiumPath, artifacts, prefix = "", viewUri] = process.argv.slice(2);
const require = createRequire(path.join(nodeModules, "..", "package.json"));
const { Client, StreamableHTTPClientTransport } = require("@modelcontextprotocol/client");
const { chromium } = require("playwright-core");
const bridgeModule = path.join(nodeModules, "@modelcontextprotocol/ext-apps/dist/src/app-bridge.js");
const {
  getToolUiResourceUri,
  isToolVisibilityAppOnly,
  McpUiResourceMetaSchema,
  McpUiToolMetaSchema,
  RESOURCE_MIME_TYPE,
} = await import(
  pathToFileURL(bridgeModule).href
);

const timer = setTimeout(() => {
  console.error("the apps host driver timed out");
  process.exit(3);
}, 55000);

function check(cond, what) {
  if (!cond) throw new Error(`check failed: ${what}`);
}

const UI = "io.modelcontextprotocol/ui";
const VIEW = viewUri ?? "ui://weather/app.html";

// ---- 1. The extension in both eras ---------------------------------------------------------

async function connect(mode) {
  const client = new Client(
    { name: "apps-test-host", version: "1.0.0" },
    {
      capabilities: { extensions: { [UI]: { mimeTypes: [RESOURCE_MIME_TYPE] } } },
      versionNegotiation: { mode },
    },
  );
  await client.connect(new StreamableHTTPClientTransport(new URL(serverUrl)));
  const declared = client.getServerCapabilities()?.extensions?.[UI];
  check(declared?.mimeTypes?.includes(RESOURCE_MIME_TYPE), `${JSON.stringify(mode)}: server extensions ${JSON.stringify(client.getServerCapabilities())}`);
  const { tools } = await client.listTools();
  for (const name of [`${prefix}get_weather`, `${prefix}get_forecast`]) {
    const tool = tools.find((t) => t.name === name);
    check(getToolUiResourceUri(tool) === VIEW, `${name} names the view: ${JSON.stringify(tool?._meta)}`);
    check(!isToolVisibilityAppOnly(tool), `${name} is the model's too`);
    // The package's own (Zod) schema of a tool's _meta.ui accepts ours.
    McpUiToolMetaSchema.parse(tool._meta.ui);
  }
  const { resources } = await client.listResources();
  const listed = resources.find((r) => r.uri === VIEW);
  check(listed?.mimeType === RESOURCE_MIME_TYPE, `the view is listed: ${JSON.stringify(resources)}`);
  const read = await client.readResource({ uri: VIEW });
  const contents = read.contents[0];
  check(contents.mimeType === RESOURCE_MIME_TYPE && contents.text.startsWith("<!doctype html>"), "the view reads as HTML");
  McpUiResourceMetaSchema.parse(contents._meta?.ui ?? {});
  McpUiResourceMetaSchema.parse(listed._meta?.ui ?? {});
  return { client, tools, contents, read };
}

const legacy = await connect("legacy");
const modern = await connect({ pin: "2026-07-28" });
// Under 2026-07-28 the view is cacheable by anyone, so a host fetches it once.
check(modern.read.ttlMs === 3600000 && modern.read.cacheScope === "public", `cache hints ${JSON.stringify({ ttlMs: modern.read.ttlMs, cacheScope: modern.read.cacheScope })}`);
const versions = [legacy.client, modern.client].map((c) => c.getProtocolVersion?.() ?? c.getNegotiatedProtocolVersion?.());
check(versions[0] !== "2026-07-28" && versions[1] === "2026-07-28", `eras ${versions}`);
await legacy.client.close();
const { client, tools, contents } = modern;

// The model's call, whose input and result the host hands to the view.
const toolInput = { city: "Lisbon" };
const toolResult = await client.callTool({ name: `${prefix}get_weather`, arguments: toolInput });
check(!toolResult.isError && toolResult.structuredContent?.city === "Lisbon", "get_weather Lisbon");

// ---- 2. The page, the view and the calls the view makes ------------------------------------

// The extension's restrictive default, widened only by what the view's _meta.ui.csp declares.
const csp = contents._meta?.ui?.csp ?? {};
const list = (domains, fallback) => (domains?.length ? domains.join(" ") : fallback);
const policy = [
  "default-src 'none'",
  `script-src 'self' 'unsafe-inline' ${list(csp.resourceDomains, "")}`,
  `style-src 'self' 'unsafe-inline' ${list(csp.resourceDomains, "")}`,
  `img-src 'self' data: ${list(csp.resourceDomains, "")}`,
  `media-src 'self' data: ${list(csp.resourceDomains, "")}`,
  `connect-src ${list(csp.connectDomains, "'none'")}`,
  `frame-src ${list(csp.frameDomains, "'none'")}`,
  "object-src 'none'",
  `base-uri ${list(csp.baseUriDomains, "'self'")}`,
].join("; ");

const appCallable = Object.fromEntries(
  tools.map((t) => [t.name, (t._meta?.ui?.visibility ?? ["model", "app"]).includes("app")]),
);
const reached = []; // the calls from the view that reached weather-server
const importMap = {
  imports: {
    "@modelcontextprotocol/ext-apps/app-bridge": "/nm/@modelcontextprotocol/ext-apps/dist/src/app-bridge.js",
    "@modelcontextprotocol/client": "/nm/@modelcontextprotocol/client/dist/index.mjs",
    "@modelcontextprotocol/client/_shims": "/nm/@modelcontextprotocol/client/dist/shimsBrowser.mjs",
    "@modelcontextprotocol/core": "/nm/@modelcontextprotocol/core/dist/index.mjs",
    "@modelcontextprotocol/core/internal": "/nm/@modelcontextprotocol/core/dist/internal.mjs",
    "zod/v4": "/nm/zod/v4/index.js",
    "eventsource": "/nm/eventsource/dist/index.js",
    "eventsource-parser": "/nm/eventsource-parser/dist/index.js",
    "eventsource-parser/stream": "/nm/eventsource-parser/dist/stream.js",
    "pkce-challenge": "/nm/pkce-challenge/dist/index.browser.js",
    "jose": "/nm/jose/dist/webapi/index.js",
  },
};
const hostPage = `<!doctype html><html><head><meta charset="utf-8"><title>apps test host</title>
<script type="importmap">${JSON.stringify(importMap)}</script></head>
<body style="margin:8px;background:#fff"><script type="module">
import { AppBridge, PostMessageTransport } from "@modelcontextprotocol/ext-apps/app-bridge";
const boot = await (await fetch("/boot")).json();
const log = (window.hostLog = { initialized: false, sizes: [], calls: [], refused: [], modes: [] });
const iframe = document.createElement("iframe");
iframe.sandbox = "allow-scripts";
iframe.style.cssText = "width:480px;height:240px;border:0;display:block";
document.body.append(iframe);
const bridge = new AppBridge(null, { name: "apps-test-host", version: "1.0.0" },
  { serverTools: {}, openLinks: {}, logging: {} },
  { hostContext: { theme: "light", displayMode: "inline", availableDisplayModes: ["inline", "fullscreen"],
                   platform: "web", locale: "en-US", toolInfo: { tool: boot.tool } } });
bridge.oncalltool = async (params) => {
  if (!boot.appCallable[params.name]) {
    log.refused.push(params.name);
    throw new Error("the app may not call " + params.name);
  }
  log.calls.push(params.name);
  const response = await fetch("/call", { method: "POST", body: JSON.stringify(params) });
  if (!response.ok) throw new Error(await response.text());
  return response.json();
};
bridge.onsizechange = ({ width, height }) => {
  log.sizes.push({ width, height });
  if (height) iframe.style.height = height + "px";
};
bridge.onrequestdisplaymode = async ({ mode }) => {
  log.modes.push(mode);
  bridge.sendHostContextChange({ displayMode: mode });
  return { mode };
};
bridge.oninitialized = async () => {
  log.initialized = true;
  await bridge.sendToolInput({ arguments: boot.toolInput });
  await bridge.sendToolResult(boot.toolResult);
};
window.setTheme = (theme) => bridge.sendHostContextChange({ theme });
await bridge.connect(new PostMessageTransport(iframe.contentWindow, iframe.contentWindow));
iframe.src = boot.viewUrl;
</script></body></html>`;

const types = { ".js": "text/javascript", ".mjs": "text/javascript", ".json": "application/json" };
const server = http.createServer(async (req, res) => {
  const send = (status, type, body, headers = {}) => {
    res.writeHead(status, { "content-type": type, "cache-control": "no-store", ...headers });
    res.end(body);
  };
  try {
    const url = new URL(req.url, "http://127.0.0.1");
    if (url.pathname === "/favicon.ico") return send(204, "image/x-icon", "");
    if (url.pathname === "/host") return send(200, "text/html; charset=utf-8", hostPage);
    if (url.pathname === "/view") {
      return send(200, "text/html; charset=utf-8", contents.text, { "content-security-policy": policy });
    }
    if (url.pathname === "/boot") {
      const viewUrl = `http://localhost:${server.address().port}/view`;
      const tool = tools.find((t) => t.name === `${prefix}get_weather`);
      return send(200, "application/json", JSON.stringify({ viewUrl, tool, toolInput, toolResult, appCallable }));
    }
    if (url.pathname === "/call" && req.method === "POST") {
      let body = "";
      for await (const chunk of req) body += chunk;
      const params = JSON.parse(body);
      const result = await client.callTool({ name: params.name, arguments: params.arguments });
      reached.push({ name: params.name, arguments: params.arguments, isError: !!result.isError });
      return send(200, "application/json", JSON.stringify(result));
    }
    if (url.pathname.startsWith("/nm/")) {
      const file = path.resolve(nodeModules, decodeURIComponent(url.pathname.slice(4)));
      if (!file.startsWith(path.resolve(nodeModules) + path.sep)) return send(403, "text/plain", "no");
      const type = types[path.extname(file)] ?? "application/octet-stream";
      return send(200, type, await fs.promises.readFile(file));
    }
    send(404, "text/plain", "not found");
  } catch (e) {
    send(500, "text/plain", String(e?.stack ?? e));
  }
});
await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
const hostUrl = `http://127.0.0.1:${server.address().port}/host`;

// ---- 3. Chromium -----------------------------------------------------------------------------

const profile = fs.mkdtempSync(path.join(os.tmpdir(), "apps-chromium-"));
const browser = await chromium.launchPersistentContext(profile, {
  executablePath: chromiumPath,
  headless: true,
  args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync"],
  viewport: { width: 520, height: 420 },
});
const problems = [];
try {
  const page = await browser.newPage();
  page.on("console", (m) => {
    if (m.type() === "error" || /Content Security Policy/i.test(m.text())) problems.push(`console: ${m.text()}`);
  });
  page.on("pageerror", (e) => problems.push(`page error: ${e.message}`));
  page.on("requestfailed", (r) => problems.push(`request failed: ${r.url()}`));
  page.on("response", (r) => r.status() >= 400 && problems.push(`HTTP ${r.status()}: ${r.url()}`));
  await page.goto(hostUrl);
  const view = page.frameLocator("iframe");
  const html = view.locator("html");
  const wait = { timeout: 15000 };

  // The card for the model's call, and the chart from the view's own get_forecast call.
  await view.locator("#place").filter({ hasText: "Lisbon, Portugal" }).waitFor(wait);
  await view.locator("#chart polyline.max").waitFor(wait);
  check((await view.locator("#chart circle.max").count()) === 5, "five days charted");
  await page.waitForFunction(() => window.hostLog.initialized && window.hostLog.sizes.length > 0, null, wait);
  fs.mkdirSync(artifacts, { recursive: true });
  await page.locator("iframe").screenshot({ path: path.join(artifacts, "weather-app-light.png") });

  // The picker, filled through tools/call of list_cities, switches city through the host.
  await page.waitForFunction(() => window.hostLog.calls.includes("list_cities"), null, wait);
  await view.locator("#picker option[value='Shenzhen']").waitFor({ state: "attached", ...wait });
  await view.locator("#picker").selectOption("Shenzhen");
  await view.locator("#place").filter({ hasText: "Shenzhen, China" }).waitFor(wait);
  await view.locator("#temp").filter({ hasText: "34 °C" }).waitFor(wait);
  const deadline = Date.now() + 10000;
  while (!reached.some((c) => c.name === "get_forecast" && c.arguments?.city === "Shenzhen") && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 50));
  }
  for (const name of ["get_weather", "get_forecast"]) {
    check(reached.some((c) => c.name === name && c.arguments?.city === "Shenzhen" && !c.isError), `${name} Shenzhen reached weather-server: ${JSON.stringify(reached)}`);
  }

  // The host turns dark: the view follows.
  const light = await view.locator("body").evaluate((b) => getComputedStyle(b).backgroundColor);
  await page.evaluate(() => window.setTheme("dark"));
  await view.locator("html[data-theme='dark']").waitFor({ state: "attached", ...wait });
  const dark = await view.locator("body").evaluate((b) => getComputedStyle(b).backgroundColor);
  check(light !== dark, `background follows the theme: ${light} then ${dark}`);
  await page.locator("iframe").screenshot({ path: path.join(artifacts, "weather-app-dark.png") });

  // Display mode: the view offers fullscreen (the host lists it) and the host grants it.
  await view.locator("#mode").click();
  await view.locator("html[data-mode='fullscreen']").waitFor({ state: "attached", ...wait });
  const log = await page.evaluate(() => window.hostLog);
  check(log.modes.includes("fullscreen"), "display mode asked");
  check(log.refused.length === 0, `no call refused: ${log.refused}`);
  check(problems.length === 0, problems.join("\n"));
  const themeAttr = await html.getAttribute("data-theme");
  console.log(
    `OK weather app in the official AppBridge host: eras ${versions.join(" and ")}; ` +
      `calls from the view ${log.calls.join(", ")}; sizes reported ${log.sizes.length}; ` +
      `theme ${themeAttr}; background ${light} -> ${dark}; screenshots in ${artifacts}`,
  );
} finally {
  await browser.close();
  server.close();
  await client.close();
  fs.rmSync(profile, { recursive: true, force: true });
  clearTimeout(timer);
}
