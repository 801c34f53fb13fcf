// Drives `mcp ui` in Debian's Chromium with playwright-core: the official example apps and our
// weather app in our host, server-everything's tools through generated forms, the security
// checks, and screenshots. Prints one line per finding and `OK mcp ui` at the end; the Rust
// test (tests/ui_browser.rs) then checks which calls reached the servers.
// Usage: node ui_browser.mjs <apps node_modules> <mcp ui URL> <chromium> <artifacts dir>
import { createRequire } from "node:module";
import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";

const [nodeModules, uiUrl, chromiumPath, artifacts] = process.argv.slice(2);
const require = createRequire(path.join(nodeModules, "noop.js"));
const { chromium } = require("playwright-core");
const origin = new URL(uiUrl).origin;
const token = new URL(uiUrl).searchParams.get("token");
fs.mkdirSync(artifacts, { recursive: true });
const wait = { timeout: 20000 };
const say = (line) => console.log(line);
function check(ok, what) {
  if (!ok) throw new Error(`failed: ${what}`);
  say(`ok: ${what}`);
}

const profile = fs.mkdtempSync(path.join(os.tmpdir(), "mcp-ui-chromium-"));
const browser = await chromium.launchPersistentContext(profile, {
  executablePath: chromiumPath,
  headless: true,
  args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync"],
  viewport: { width: 1280, height: 860 },
});
const pageErrors = [];
let evil;
try {
  const page = await browser.newPage();
  page.on("pageerror", (e) => pageErrors.push(`page error: ${e.message}`));
  await page.goto(uiUrl);
  await page.locator("body[data-ready=true]").waitFor(wait);
  const summary = await page.locator("#summary").textContent();
  check(/5 of 5 servers connected/.test(summary), `the page shows the hub (${summary})`);
  await page.locator("#refresh").click();
  await page.locator('#tools button[data-tool="basic__get-time"]').waitFor(wait);
  const basicServer = page.locator('#servers li[data-server="basic"]');
  const basicText = await basicServer.textContent();
  check(/connected/.test(basicText) && /legacy 2025-11-25/.test(basicText) && /1 tools · 1 resources · 0 prompts/.test(basicText),
    `a server's status, era and counts (${basicText.trim()})`);
  const weatherText = await page.locator('#servers li[data-server="weather"]').textContent();
  check(/modern 2026-07-28/.test(weatherText), "weather-server is in the modern era");

  const pick = async (tool) => {
    await page.locator(`#tools button[data-tool="${tool}"]`).click();
    await page.locator("#tool-form").waitFor(wait);
  };
  const callAndWait = async () => {
    await page.locator("#call").click();
    await page.locator("#result .result").waitFor(wait);
  };

  // ---- 1. the official example apps and ours, in our host ----------------------------------
  await pick("basic__get-time");
  await callAndWait();
  const basic = page.frameLocator(".app-frame iframe");
  await basic.locator("#server-time").filter({ hasText: /\d{4}-\d\d-\d\dT/ }).waitFor(wait);
  const shown = await basic.locator("#server-time").textContent();
  const resultText = await page.locator("#result pre.text").first().textContent();
  check(resultText.includes(shown.trim()), `basic-vanillajs shows the tool result's time in its view (${shown.trim()})`);
  const sandbox = await page.locator(".app-frame iframe").getAttribute("sandbox");
  check(sandbox === "allow-scripts", `the view is framed with sandbox="${sandbox}"`);
  const frameSrc = await page.locator(".app-frame iframe").getAttribute("src");
  check(new URL(frameSrc).origin !== origin, `the view comes from another origin (${new URL(frameSrc).origin})`);
  // The view calls get-time itself (tools/call through the host).
  await basic.locator("#get-time-btn").click();
  await page.locator('#history li[data-tool="basic__get-time"].ok').nth(1).waitFor(wait);
  check(true, "basic-vanillajs's own tools/call went through the host");
  // ui/message and a log message.
  await basic.locator("#message-text").fill("hello from the view");
  await basic.locator("#send-message-btn").click();
  await page.locator("#messages li.message", { hasText: "hello from the view" }).waitFor(wait);
  check(true, "ui/message reached the page");
  // ui/open-link asks the user; cancelling refuses it.
  await basic.locator("#link-url").fill("https://modelcontextprotocol.io/");
  await basic.locator("#open-link-btn").click();
  await page.locator("#link-dialog[open]").waitFor(wait);
  const asked = await page.locator("#link-url").textContent();
  check(asked === "https://modelcontextprotocol.io/", `ui/open-link asks the user first (${asked})`);
  await page.screenshot({ path: path.join(artifacts, "mcp-ui-open-link.png") });
  await page.locator("#link-cancel").click();
  // Agreeing opens it, in a new window without an opener.
  await basic.locator("#link-url").fill(`${origin}/style.css`);
  const popup = browser.waitForEvent("page", wait);
  await basic.locator("#open-link-btn").click();
  await page.locator("#link-dialog[open]").waitFor(wait);
  await page.locator("#link-open").click();
  const opened = await popup;
  await opened.waitForLoadState();
  const hasOpener = await opened.evaluate(() => window.opener !== null);
  check(opened.url() === `${origin}/style.css` && !hasOpener, `ui/open-link opens the link once the user agrees (${opened.url()})`);
  await opened.close();
  await page.screenshot({ path: path.join(artifacts, "mcp-ui-basic-vanillajs.png") });

  await pick("monitor__get-system-info");
  await callAndWait();
  const monitor = page.frameLocator(".app-frame iframe");
  await monitor.locator("#info-hostname").filter({ hasText: /\S/ }).waitFor(wait);
  const hostname = (await monitor.locator("#info-hostname").textContent()).trim();
  check(hostname === os.hostname(), `system-monitor shows this machine's hostname (${hostname})`);
  await page.locator('#history li[data-tool="monitor__poll-system-stats"].ok').first().waitFor(wait);
  check(true, "system-monitor called its app-only poll-system-stats through the host");
  await page.screenshot({ path: path.join(artifacts, "mcp-ui-system-monitor.png") });

  await pick("weather__get_weather");
  await page.locator('[name="city"]').fill("Lisbon");
  await callAndWait();
  const weather = page.frameLocator(".app-frame iframe");
  await weather.locator("#place").filter({ hasText: "Lisbon" }).waitFor(wait);
  check(true, "the weather app shows Lisbon's card");
  await page.waitForFunction(() => document.querySelector(".app-frame iframe").style.height !== "320px", null, wait);
  const height = await page.locator(".app-frame iframe").evaluate((f) => f.style.height);
  check(true, `the iframe follows the view's size-changed (${height})`);
  await page.locator('#history li[data-tool="weather__get_forecast"].ok').first().waitFor(wait);
  check(true, "the weather app fetched its forecast through the host");
  const viewTheme = () => weather.locator("html").getAttribute("data-theme");
  check(await viewTheme() === "light", "the weather view starts in the host's light theme");
  await page.locator("#theme").selectOption("dark");
  await weather.locator("html[data-theme=dark]").waitFor(wait);
  check(true, "the weather view follows the host's switch to dark (host-context-changed)");
  await page.screenshot({ path: path.join(artifacts, "mcp-ui-weather-dark.png") });
  await page.locator("#theme").selectOption("light");
  await weather.locator("html[data-theme=light]").waitFor(wait);
  // Display modes: the view asks for fullscreen, the host grants it, and back.
  await weather.locator("#mode").click();
  await page.locator(".app-frame.fullscreen").waitFor(wait);
  await weather.locator("#mode", { hasText: "Inline" }).waitFor(wait);
  check(true, "ui/request-display-mode: the view went fullscreen");
  await page.screenshot({ path: path.join(artifacts, "mcp-ui-weather-fullscreen.png") });
  await weather.locator("#mode").click();
  await page.locator(".app-frame:not(.fullscreen)").waitFor(wait);
  check(true, "and back inline");
  // The view's own picker: another city through tools/call from the view.
  const cities = await weather.locator("#picker option").allTextContents();
  const city = cities.find((c) => /Tokyo/.test(c)) ?? cities.find((c) => !/Lisbon/.test(c));
  await weather.locator("#picker").selectOption({ label: city });
  await weather.locator("#place").filter({ hasText: city.split(",")[0] }).waitFor(wait);
  check(true, `the view's picker switched to ${city} through the host`);
  await page.locator('#history li[data-tool="weather__get_forecast"].ok').nth(1).waitFor(wait);
  await page.screenshot({ path: path.join(artifacts, "mcp-ui.png") });
  await page.locator(".app-frame").screenshot({ path: path.join(artifacts, "mcp-ui-weather-card.png") });

  // ---- 2. forms on server-everything's tools and the fixture's nested object ------------------
  await pick("everything__echo");
  await page.locator("#call").click();
  const problems = await page.locator("#form-problems").textContent();
  check(/message: is required/.test(problems), `a required field left empty stops the call (${problems})`);
  check(await page.locator('#history li[data-tool="everything__echo"]').count() === 0, "no call was made for it");
  await page.locator('[name="message"]').fill("hello forms");
  await callAndWait();
  check((await page.locator("#result").textContent()).includes("Echo: hello forms"), "echo through its form");

  await pick("everything__get-structured-content");
  const options = await page.locator('select[name="location"] option').allTextContents();
  check(options.includes("Chicago") && options.includes("New York"), `an enum is a select (${options.join(", ")})`);
  await page.locator('select[name="location"]').selectOption({ label: "Chicago" });
  await callAndWait();
  const tree = await page.locator("#result .structured").textContent();
  check(/temperature/.test(tree), "structured content is shown as a tree");

  await pick("everything__get-annotated-message");
  await page.locator('select[name="messageType"]').selectOption({ label: "success" });
  await page.locator('[name="includeImage"]').check();
  await callAndWait();
  check(await page.locator("#result img").count() > 0, "an image in the result is shown");

  await pick("everything__get-sum");
  await page.locator('[name="a"]').fill("2");
  await page.locator('[name="b"]').fill("3.5");
  await callAndWait();
  check((await page.locator("#result").textContent()).includes("5.5"), "numbers through the form (2 + 3.5)");

  await pick("everything__trigger-long-running-operation");
  const duration = await page.locator('[name="duration"]').inputValue();
  check(duration === "10", `defaults fill the form (duration ${duration})`);
  await page.locator('[name="duration"]').fill("2");
  await page.locator('[name="steps"]').fill("4");
  await page.locator("#call").click();
  await page.locator("#progress-text", { hasText: /[1-4] \/ 4/ }).waitFor(wait);
  const bar = await page.locator("#progress").evaluate((p) => `${p.value}/${p.max}`);
  check(/^[1-4]\/4$/.test(bar), `progress is shown as a bar (${bar})`);
  await page.locator("#result .result").waitFor(wait);
  // Cancel: the page drops the stream, mcp ui cancels the call at the server.
  await page.locator('[name="duration"]').fill("20");
  await page.locator('[name="steps"]').fill("20");
  await page.locator("#call").click();
  await page.locator("#progress-text", { hasText: /1 \/ 20/ }).waitFor(wait);
  await page.locator("#cancel").click();
  await page.locator("#result .result.is-error", { hasText: "cancelled" }).waitFor(wait);
  await page.locator('#history li[data-tool="everything__trigger-long-running-operation"].cancelled').waitFor(wait);
  check(true, "Cancel stops a call in flight");

  await pick("everything__get-resource-links");
  await page.locator('[name="count"]').fill("2");
  await callAndWait();
  await page.locator("#result .resource-link button.link").first().click();
  await page.locator("#result .resource-contents").first().waitFor(wait);
  check(true, "a resource link is read when clicked");

  await pick("fixture__configure");
  const modeDefault = await page.locator('select[name="mode"] option:checked').textContent();
  check(modeDefault === "safe", `an enum's default is selected (${modeDefault})`);
  check(await page.locator('fieldset.object[data-path="limits"]').count() === 1, "a nested object is a fieldset");
  await page.locator('[name="name"]').fill("nightly");
  await page.locator('select[name="mode"]').selectOption({ label: "fast" });
  await page.locator('[name="limits.cpu"]').fill("4");
  await page.locator('[name="tags"]').fill("a\nb");
  await callAndWait();
  const echoed = JSON.parse(await page.locator("#result pre.text").first().textContent());
  check(JSON.stringify(echoed) === JSON.stringify({ name: "nightly", mode: "fast", limits: { cpu: 4 }, tags: ["a", "b"] }),
    `the nested object arrives as one (${JSON.stringify(echoed)})`);
  await page.screenshot({ path: path.join(artifacts, "mcp-ui-forms.png") });

  // Resources and prompts.
  await page.locator('#resources button[data-key="everything demo://resource/static/document/features.md"]').click();
  await page.locator("#result .resource-contents pre.text").waitFor(wait);
  check(/features\.md/.test(await page.locator("#tool-panel .meta").textContent()), "a resource is read from the list");
  await page.locator('#prompts button[data-key="everything__args-prompt"]').click();
  await page.locator("#tool-form").waitFor(wait);
  await page.locator("#call").click();
  check(/city: is required/.test(await page.locator("#form-problems").textContent()), "a prompt's required argument is asked for");
  await page.locator('[name="city"]').fill("Lisbon");
  await page.locator("#call").click();
  await page.locator("#result .prompt").waitFor(wait);
  const promptText = await page.locator("#result .prompt").textContent();
  check(/user/.test(promptText) && /Lisbon/.test(promptText), "a prompt's messages are shown with their roles");

  await pick("fixture__fail");
  await callAndWait();
  check(await page.locator("#result .result.is-error").count() === 1, "an error result is shown as an error");
  const line = await page.locator('#history li[data-tool="fixture__configure"] code.command').textContent();
  check(line === `mcp call fixture__configure '{"name":"nightly","mode":"fast","limits":{"cpu":4},"tags":["a","b"]}'`, `the history has the mcp call line (${line})`);

  // ---- 3. security ---------------------------------------------------------------------------
  await pick("fixture__probe");
  await page.locator('[name="target"]').fill(origin);
  await callAndWait();
  const probe = page.frameLocator(".app-frame iframe");
  await probe.locator("body[data-done='1']").waitFor(wait);
  const report = await probe.locator("#report").textContent();
  for (const l of report.split("\n")) say(`probe: ${l}`);
  check(/initialize: mcp ui theme light/.test(report), "the probe app initialized with our host context");
  check(/origin: null/.test(report), "the view's origin is opaque");
  check(/granted: clipboardWrite connect https:\/\/api.example.com/.test(report), "the host tells the view what it granted");
  const probeFrame = page.locator(".app-frame iframe");
  const allow = await probeFrame.getAttribute("allow");
  check(allow === "clipboard-write", `the view's permissions are the iframe's allow attribute (${allow})`);
  const served = await fetch(await probeFrame.getAttribute("src"));
  const csp = served.headers.get("content-security-policy");
  check(/connect-src https:\/\/api.example.com;/.test(csp) && /default-src 'none'/.test(csp) && /object-src 'none'/.test(csp),
    `the view is served with its declared CSP (${csp})`);
  for (const what of ["parent-dom", "parent-location", "storage", "cookie", "fetch-api"]) {
    check(new RegExp(`${what}: blocked`).test(report), `the view cannot reach ${what}`);
  }
  check(/model_only: refused/.test(report), "the app cannot call a tool its visibility forbids");
  check(/cross-server: refused/.test(report), "the app cannot call another server's tool");
  check(/app_echo: app_echo: from the app/.test(report), "the app can call its app-only tool");
  await page.locator("#messages li.refused").first().waitFor(wait);
  // The API itself refuses too, even for the page with the token.
  const direct = await page.evaluate(async ([t]) => {
    const r = await fetch("/api/call", { method: "POST", headers: { "x-mcp-ui-token": t, "content-type": "application/json" },
      body: JSON.stringify({ name: "fixture__model_only", arguments: {}, app: "fixture" }) });
    return `${r.status} ${(await r.json()).error}`;
  }, [token]);
  check(direct.startsWith("403 "), `the API refuses a view's call to a model-only tool (${direct})`);

  // Without the token, with a wrong Host: refused.
  const tokenless = await fetch(`${origin}/api/hub`);
  check(tokenless.status === 401, `a request without the token is refused (${tokenless.status})`);
  const pageless = await fetch(`${origin}/`);
  check(pageless.status === 401, `the page without the token is refused (${pageless.status})`);
  const rebound = await new Promise((resolve) => {
    http.get(`${origin}/api/hub`, { headers: { host: "attacker.example", "x-mcp-ui-token": token } }, (r) => resolve(r.statusCode)).on("error", () => resolve(0));
  });
  check(rebound === 403, `a request for another Host is refused (${rebound})`);

  // A page on another origin, even one that knows the token, cannot use the API.
  evil = http.createServer((req, res) => {
    res.writeHead(200, { "content-type": "text/html" });
    res.end(`<!doctype html><body><pre id="out"></pre><script>
      const out = []; const put = (l) => { out.push(l); document.getElementById("out").textContent = out.join("\\n"); };
      (async () => {
        try { const r = await fetch(${JSON.stringify(origin)} + "/api/hub", { headers: { "x-mcp-ui-token": ${JSON.stringify(token)} } }); put("read: REACHED " + r.status); }
        catch (e) { put("read: blocked"); }
        try { await fetch(${JSON.stringify(origin)} + "/api/call", { method: "POST", mode: "no-cors", body: JSON.stringify({ name: "fixture__model_only" }) }); put("blind-post: sent"); }
        catch (e) { put("blind-post: blocked"); }
        document.body.dataset.done = "1";
      })();
    </script></body>`);
  });
  await new Promise((resolve) => evil.listen(0, "127.0.0.1", resolve));
  const other = await browser.newPage();
  await other.goto(`http://127.0.0.1:${evil.address().port}/`);
  await other.locator("body[data-done='1']").waitFor(wait);
  const evilOut = await other.locator("#out").textContent();
  say(`other origin: ${evilOut.replace(/\n/g, "; ")}`);
  check(/read: blocked/.test(evilOut), "a page on another origin cannot read the API");
  await other.close();

  check(pageErrors.length === 0, `no errors on the page ${pageErrors.join(" | ")}`);
  say("OK mcp ui");
} catch (e) {
  console.log(`FAILED ${e.message}`);
  for (const p of pageErrors) console.log(p);
  try {
    const pages = browser.pages();
    if (pages[0]) await pages[0].screenshot({ path: path.join(artifacts, "mcp-ui-failure.png") });
  } catch {}
  process.exitCode = 1;
} finally {
  evil?.close();
  await browser.close();
  fs.rmSync(profile, { recursive: true, force: true });
}
