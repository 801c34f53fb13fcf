// mcp ui's page: the hub seen. Servers with status, era and counts; tools with forms; a call
// shows progress, then its result, and, for a tool with an app, the app; every call lands
// in the history with its `mcp call` line.

import { el } from "./dom.js";
import { getHub, callTool, readResource, openView, getPrompt } from "./api.js";
import { buildForm, FormError } from "./form.js";
import { renderResult, renderError, renderPrompt, resourceContents } from "./render.js";
import { recordCall } from "./history.js";
import { AppHost } from "./app_host.js";

const $ = (selector) => document.querySelector(selector);
let hub = { servers: [], tools: [] };
const hosts = new Set();


function showServers() {
  const list = $("#servers");
  list.replaceChildren();
  for (const s of hub.servers) {
    const counts = s.connected ? `${s.counts.tools} tools · ${s.counts.resources} resources · ${s.counts.prompts} prompts` : "";
    list.append(
      el("li", { class: `server ${s.connected ? "up" : "down"}`, "data-server": s.name },
        el("div", {}, el("strong", { text: s.name }), el("span", { class: "status", text: ` ${s.status.split("\n")[0]}` })),
        el("div", { class: "meta", text: [s.transport, s.era && `${s.era} ${s.protocolVersion}`].filter(Boolean).join(" · ") }),
        el("div", { class: "counts", text: counts })));
  }
  const up = hub.servers.filter((s) => s.connected).length;
  $("#summary").textContent = `${up} of ${hub.servers.length} servers connected, ${hub.tools.length} tools`;
}

function showTools() {
  const filter = $("#filter").value.trim().toLowerCase();
  const list = $("#tools");
  list.replaceChildren();
  for (const t of hub.tools) {
    const text = `${t.exposed} ${t.tool.title ?? ""} ${t.tool.description ?? ""}`.toLowerCase();
    if (filter && !text.includes(filter)) continue;
    const button = el("button", { type: "button", class: "tool", "data-tool": t.exposed }, el("span", { class: "name", text: t.exposed }));
    if (t.view) button.append(el("span", { class: "badge app", text: "app" }));
    if (!t.visibleToModel) button.append(el("span", { class: "badge app-only", text: "app-only" }));
    button.addEventListener("click", () => showTool(t));
    list.append(el("li", {}, button));
  }
}

/** The entries of the list `selector`, one button each. */
function listEntries(selector, entries) {
  const list = $(selector);
  list.replaceChildren();
  for (const { key, label, title, open } of entries) {
    const button = el("button", { type: "button", class: "tool", "data-key": key, title }, el("span", { class: "name", text: label }));
    button.addEventListener("click", open);
    list.append(el("li", {}, button));
  }
}

function showResources() {
  listEntries("#resources", hub.resources.map((r) => ({
    key: `${r.server} ${r.resource.uri}`,
    label: `${r.server}: ${r.resource.title ?? r.resource.name ?? r.resource.uri}`,
    title: r.resource.uri,
    open: () => showResource(r),
  })));
}

function showPrompts() {
  listEntries("#prompts", hub.prompts.map((p) => ({
    key: p.exposed,
    label: p.exposed,
    title: p.prompt.description ?? "",
    open: () => showPrompt(p),
  })));
}

async function showResource(r) {
  await closeApps();
  const panel = $("#tool-panel");
  const contents = el("div", { id: "result" });
  panel.replaceChildren(
    el("h2", { text: r.resource.title ?? r.resource.name ?? r.resource.uri }),
    el("div", { class: "meta", text: `${r.resource.uri} · server ${r.server}${r.resource.mimeType ? ` · ${r.resource.mimeType}` : ""}` }),
    el("p", { class: "description", text: r.resource.description ?? "" }),
    contents);
  try {
    const read = await readResource(r.server, r.resource.uri);
    contents.replaceChildren(el("div", { class: "result" }, resourceContents(read.contents)));
  } catch (e) {
    contents.replaceChildren(renderError(e.message));
  }
}

async function showPrompt(p) {
  await closeApps();
  const args = p.prompt.arguments ?? [];
  const schema = {
    type: "object",
    properties: Object.fromEntries(args.map((a) => [a.name, { type: "string", description: a.description }])),
    required: args.filter((a) => a.required).map((a) => a.name),
  };
  const form = buildForm(schema);
  const problems = el("div", { id: "form-problems", class: "field-error" });
  const result = el("div", { id: "result" });
  const formEl = el("form", { id: "tool-form", novalidate: "" }, form.element, problems,
    el("div", { class: "actions" }, el("button", { type: "submit", id: "call", text: "Get prompt" })));
  $("#tool-panel").replaceChildren(
    el("h2", { text: p.prompt.title ?? p.prompt.name }),
    el("div", { class: "meta", text: `${p.exposed} · server ${p.server}` }),
    el("p", { class: "description", text: p.prompt.description ?? "" }),
    formEl, result);
  formEl.addEventListener("submit", async (event) => {
    event.preventDefault();
    try {
      const values = form.read();
      problems.textContent = "";
      const got = await getPrompt(p.server, p.prompt.name, values);
      result.replaceChildren(renderPrompt(got, (uri) => readResource(p.server, uri)));
    } catch (e) {
      if (e instanceof FormError) problems.textContent = e.problems.join("\n");
      else result.replaceChildren(renderError(e.message));
    }
  });
}

function message(text, kind, server) {
  $("#messages").prepend(el("li", { class: `message ${kind}`, "data-server": server }, el("strong", { text: `${server} (${kind}) ` }), el("span", { text })));
}

function confirmLink(url) {
  const dialog = $("#link-dialog");
  $("#link-url").textContent = url;
  dialog.returnValue = "";
  dialog.showModal();
  return new Promise((resolve) => dialog.addEventListener("close", () => resolve(dialog.returnValue === "open"), { once: true }));
}

async function closeApps() {
  const closing = [...hosts];
  hosts.clear();
  await Promise.all(closing.map((h) => h.teardown()));
}

async function showTool(t) {
  await closeApps();
  document.querySelectorAll("#tools .tool.selected").forEach((b) => b.classList.remove("selected"));
  document.querySelector(`#tools .tool[data-tool="${CSS.escape(t.exposed)}"]`)?.classList.add("selected");
  const panel = $("#tool-panel");
  const form = buildForm(t.tool.inputSchema);
  const call = el("button", { type: "submit", id: "call", text: "Call" });
  const cancel = el("button", { type: "button", id: "cancel", text: "Cancel", disabled: "" });
  const progress = el("progress", { id: "progress", max: "1", value: "0", hidden: "" });
  const progressText = el("span", { id: "progress-text" });
  const problems = el("div", { id: "form-problems", class: "field-error" });
  const result = el("div", { id: "result" });
  const app = el("div", { id: "app" });
  const formEl = el("form", { id: "tool-form", novalidate: "" }, form.element, problems, el("div", { class: "actions" }, call, cancel, progress, progressText));
  panel.replaceChildren(
    el("h2", { text: t.tool.title ?? t.tool.name }),
    el("div", { class: "meta", text: `${t.exposed} · server ${t.server}${t.view ? ` · app ${t.view}` : ""}${t.visibleToModel ? "" : " · app-only"}` }),
    el("p", { class: "description", text: t.tool.description ?? "" }),
    formEl, result, app);
  formEl.addEventListener("submit", async (event) => {
    event.preventDefault();
    let args;
    try {
      args = form.read();
      problems.textContent = "";
    } catch (e) {
      if (e instanceof FormError) {
        problems.textContent = e.problems.join("\n");
        return;
      }
      throw e;
    }
    await run(t, args, { call, cancel, progress, progressText, result, app });
  });
}

async function run(t, args, ui) {
  await closeApps();
  ui.result.replaceChildren();
  let host = null;
  if (t.view) {
    try {
      const framed = await openView(t.server, t.view);
      host = new AppHost({
        container: ui.app,
        server: t.server,
        tool: t,
        serverTools: hub.tools.filter((x) => x.server === t.server),
        framed,
        theme: $("#theme").value,
        hooks: {
          callTool: (exposed, a) => callTool(exposed, a, { app: t.server }),
          readResource: (uri) => readResource(t.server, uri),
          message,
          confirmLink,
          recordAppCall: (exposed, a) => recordCall($("#history"), { name: exposed, args: a, by: t.server }),
        },
      });
      hosts.add(host);
      host.toolInput(args);
    } catch (e) {
      ui.app.replaceChildren(renderError(`the app could not be shown: ${e.message}`));
    }
  }
  const done = recordCall($("#history"), { name: t.exposed, args });
  const abort = new AbortController();
  ui.call.disabled = true;
  ui.cancel.disabled = false;
  ui.cancel.onclick = () => abort.abort();
  ui.progress.hidden = false;
  ui.progress.removeAttribute("value");
  ui.progressText.textContent = "";
  try {
    const result = await callTool(t.exposed, args, {
      signal: abort.signal,
      onProgress: (p) => {
        ui.progress.max = p.total ?? 1;
        ui.progress.value = p.total ? p.progress : 0;
        ui.progress.dataset.progress = String(p.progress);
        ui.progressText.textContent = `${p.progress}${p.total ? ` / ${p.total}` : ""}${p.message ? ` ${p.message}` : ""}`;
      },
    });
    ui.result.replaceChildren(renderResult(result, (uri) => readResource(t.server, uri)));
    host?.toolResult(result);
    done(result.isError ? "error" : "ok");
  } catch (e) {
    const cancelled = abort.signal.aborted;
    ui.result.replaceChildren(renderError(cancelled ? "cancelled" : e.message));
    host?.toolCancelled(cancelled ? "cancelled by the user" : e.message);
    done(cancelled ? "cancelled" : "failed");
  } finally {
    ui.call.disabled = false;
    ui.cancel.disabled = true;
    ui.progress.hidden = true;
  }
}

function setTheme(theme) {
  document.documentElement.dataset.theme = theme;
  for (const h of hosts) h.setTheme(theme);
}

/** Lists the hub again (servers reconnect, tools change) without leaving the tool shown. */
async function refresh() {
  try {
    hub = await getHub();
  } catch (e) {
    $("#summary").textContent = `cannot reach mcp ui: ${e.message}`;
    return false;
  }
  showServers();
  showTools();
  showResources();
  showPrompts();
  return true;
}

async function start() {
  const dark = matchMedia("(prefers-color-scheme: dark)").matches;
  $("#theme").value = dark ? "dark" : "light";
  setTheme($("#theme").value);
  $("#theme").addEventListener("change", () => setTheme($("#theme").value));
  $("#filter").addEventListener("input", showTools);
  $("#refresh").addEventListener("click", refresh);
  document.body.dataset.ready = (await refresh()) ? "true" : "error";
}

start();
