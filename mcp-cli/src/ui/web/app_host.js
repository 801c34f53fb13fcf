// The host side of MCP Apps (io.modelcontextprotocol/ui, protocol 2026-01-26) for one view:
// the view is framed from the app origin with sandbox="allow-scripts" (no allow-same-origin)
// and the permissions its resource asked for, and speaks JSON-RPC with us over postMessage.
// Only messages whose source is this iframe's window are read. We answer ui/initialize with
// our host context, send tool input and results once the view said it is initialized, proxy
// tools/call (only its own server's tools that are visible to apps) and resources/read,
// show ui/message and log messages, ask the user before ui/open-link, switch display modes,
// and follow size changes.

export const APPS_PROTOCOL = "2026-01-26";
const HOST_INFO = { name: "mcp ui", version: "0.1.0" };
const DISPLAY_MODES = ["inline", "fullscreen"];
const MAX_HEIGHT = 2000;

const THEME_VARIABLES = {
  light: {
    "--color-background-primary": "#ffffff",
    "--color-background-secondary": "#f4f5f7",
    "--color-text-primary": "#1b1f24",
    "--color-text-secondary": "#57606a",
    "--color-border-primary": "#d0d7de",
    "--font-sans": "system-ui, sans-serif",
    "--font-mono": "ui-monospace, monospace",
  },
  dark: {
    "--color-background-primary": "#16181d",
    "--color-background-secondary": "#22262e",
    "--color-text-primary": "#e6e8eb",
    "--color-text-secondary": "#9aa4af",
    "--color-border-primary": "#3a414c",
    "--font-sans": "system-ui, sans-serif",
    "--font-mono": "ui-monospace, monospace",
  },
};

const ERR_METHOD = -32601;
const ERR_PARAMS = -32602;
const ERR_REFUSED = -32000;

class RpcError extends Error {
  constructor(code, message) {
    super(message);
    this.code = code;
  }
}

export class AppHost {
  /**
   * @param {object} o
   * @param {HTMLElement} o.container where the frame goes
   * @param {string} o.server the view's server
   * @param {object} o.tool the tool whose view this is (hub entry: {exposed, server, tool})
   * @param {object[]} o.serverTools the hub's tools of that server
   * @param {object} o.framed what /api/view answered: {url, allow, meta, policy}
   * @param {string} o.theme "light" or "dark"
   * @param {object} o.hooks callTool(exposed, args), readResource(uri), message(text, kind),
   *   confirmLink(url) → Promise<boolean>, recordAppCall(exposed, args) → done(outcome)
   */
  constructor({ container, server, tool, serverTools, framed, theme, hooks }) {
    this.server = server;
    this.tool = tool;
    this.serverTools = serverTools;
    this.hooks = hooks;
    this.theme = theme;
    this.displayMode = "inline";
    this.appModes = null;
    this.initialized = false;
    this.queue = [];
    this.nextId = 1;
    this.pending = new Map();
    this.shell = document.createElement("div");
    this.shell.className = "app-frame";
    if (framed.meta?.prefersBorder === false) this.shell.classList.add("borderless");
    const bar = document.createElement("div");
    bar.className = "app-bar";
    const title = document.createElement("span");
    title.textContent = `App of ${server}: ${framed.url.replace(/\/view\/.*/, "")} (sandboxed)`;
    this.exitButton = document.createElement("button");
    this.exitButton.type = "button";
    this.exitButton.textContent = "Exit fullscreen";
    this.exitButton.hidden = true;
    this.exitButton.addEventListener("click", () => this.setDisplayMode("inline"));
    bar.append(title, this.exitButton);
    this.iframe = document.createElement("iframe");
    this.iframe.setAttribute("sandbox", "allow-scripts");
    if (framed.allow) this.iframe.setAttribute("allow", framed.allow);
    this.iframe.setAttribute("referrerpolicy", "no-referrer");
    this.iframe.title = `${tool.exposed} app`;
    this.iframe.dataset.server = server;
    this.iframe.style.height = "320px";
    this.permissions = framed.meta?.permissions ?? {};
    this.csp = framed.meta?.csp ?? {};
    this.shell.append(bar, this.iframe);
    container.append(this.shell);
    this.listener = (event) => {
      if (event.source !== this.iframe.contentWindow) return;
      this.receive(event.data);
    };
    window.addEventListener("message", this.listener);
    this.iframe.src = framed.url;
  }

  post(message) {
    this.iframe.contentWindow?.postMessage(message, "*");
  }

  /** Sends a notification now if the view is initialized, else once it is. */
  notify(method, params) {
    const message = { jsonrpc: "2.0", method, params };
    if (this.initialized) this.post(message);
    else this.queue.push(message);
  }

  request(method, params) {
    const id = this.nextId++;
    this.post({ jsonrpc: "2.0", id, method, params });
    return new Promise((resolve) => {
      this.pending.set(id, resolve);
      setTimeout(() => this.pending.delete(id) && resolve(null), 2000);
    });
  }

  toolInput(args) {
    this.notify("ui/notifications/tool-input", { arguments: args });
  }

  toolResult(result) {
    this.notify("ui/notifications/tool-result", result);
  }

  toolCancelled(reason) {
    this.notify("ui/notifications/tool-cancelled", { reason });
  }

  setTheme(theme) {
    this.theme = theme;
    this.notify("ui/notifications/host-context-changed", { theme, styles: { variables: THEME_VARIABLES[theme] } });
  }

  setDisplayMode(mode) {
    this.displayMode = mode;
    this.shell.classList.toggle("fullscreen", mode === "fullscreen");
    this.exitButton.hidden = mode !== "fullscreen";
    this.notify("ui/notifications/host-context-changed", { displayMode: mode });
  }

  async teardown() {
    if (this.initialized) await this.request("ui/resource-teardown", {});
    window.removeEventListener("message", this.listener);
    this.shell.remove();
  }

  hostContext() {
    return {
      toolInfo: { tool: this.tool.tool },
      theme: this.theme,
      styles: { variables: THEME_VARIABLES[this.theme] },
      displayMode: this.displayMode,
      availableDisplayModes: DISPLAY_MODES,
      containerDimensions: { width: this.iframe.clientWidth || 600, maxHeight: MAX_HEIGHT },
      locale: navigator.language,
      timeZone: Intl.DateTimeFormat().resolvedOptions().timeZone,
      userAgent: `${HOST_INFO.name}/${HOST_INFO.version}`,
      platform: "web",
      deviceCapabilities: { touch: navigator.maxTouchPoints > 0, hover: matchMedia("(hover: hover)").matches },
    };
  }

  async receive(message) {
    if (!message || message.jsonrpc !== "2.0") return;
    const { id, method, params } = message;
    if (method === undefined) {
      const resolve = this.pending.get(id);
      if (resolve) {
        this.pending.delete(id);
        resolve(message.result ?? null);
      }
      return;
    }
    if (id === undefined || id === null) {
      this.onNotification(method, params ?? {});
      return;
    }
    try {
      const result = await this.onRequest(method, params ?? {});
      this.post({ jsonrpc: "2.0", id, result });
    } catch (e) {
      const code = e instanceof RpcError ? e.code : -32603;
      this.post({ jsonrpc: "2.0", id, error: { code, message: e.message } });
    }
  }

  onNotification(method, params) {
    switch (method) {
      case "ui/notifications/initialized":
        this.initialized = true;
        for (const message of this.queue.splice(0)) this.post(message);
        this.shell.dataset.initialized = "true";
        break;
      case "ui/notifications/size-changed":
        if (typeof params.height === "number" && params.height > 0) {
          this.iframe.style.height = `${Math.min(Math.ceil(params.height), MAX_HEIGHT)}px`;
        }
        break;
      case "notifications/message":
        this.hooks.message(`${params.level ?? "info"}: ${typeof params.data === "string" ? params.data : JSON.stringify(params.data)}`, "log", this.server);
        break;
      case "ui/notifications/request-teardown":
        this.teardown();
        break;
      default:
        break;
    }
  }

  async onRequest(method, params) {
    switch (method) {
      case "ui/initialize":
        this.appModes = params.appCapabilities?.availableDisplayModes ?? null;
        return {
          protocolVersion: APPS_PROTOCOL,
          hostInfo: HOST_INFO,
          hostCapabilities: {
            openLinks: {},
            serverTools: {},
            serverResources: {},
            logging: {},
            message: { text: {} },
            updateModelContext: { text: {}, structuredContent: {} },
            sandbox: { permissions: this.permissions, csp: this.csp },
          },
          hostContext: this.hostContext(),
        };
      case "ping":
        return {};
      case "tools/call":
        return this.callTool(params);
      case "resources/read":
        if (typeof params.uri !== "string") throw new RpcError(ERR_PARAMS, "resources/read needs a uri");
        return this.hooks.readResource(params.uri);
      case "ui/message": {
        const text = (params.content ?? []).map((c) => (c.type === "text" ? c.text : `[${c.type}]`)).join("\n");
        this.hooks.message(text, "message", this.server);
        return {};
      }
      case "ui/update-model-context":
        this.hooks.message(JSON.stringify(params.structuredContent ?? params.content ?? {}), "context", this.server);
        return {};
      case "ui/open-link": {
        let url;
        try {
          url = new URL(params.url);
        } catch {
          throw new RpcError(ERR_PARAMS, "ui/open-link needs an absolute URL");
        }
        if (url.protocol !== "https:" && url.protocol !== "http:") return { isError: true };
        const yes = await this.hooks.confirmLink(url.href);
        if (!yes) return { isError: true };
        window.open(url.href, "_blank", "noopener,noreferrer");
        return {};
      }
      case "ui/request-display-mode": {
        const wanted = params.mode;
        const allowed = DISPLAY_MODES.includes(wanted) && (!this.appModes || this.appModes.includes(wanted));
        if (allowed && wanted !== this.displayMode) this.setDisplayMode(wanted);
        return { mode: this.displayMode };
      }
      default:
        throw new RpcError(ERR_METHOD, `mcp ui does not handle ${method}`);
    }
  }

  /** tools/call from the view: its own server's tools only, and only those visible to apps. */
  async callTool(params) {
    const name = params.name;
    if (typeof name !== "string") throw new RpcError(ERR_PARAMS, "tools/call needs a name");
    const entry = this.serverTools.find((t) => t.tool.name === name);
    if (!entry) throw new RpcError(ERR_PARAMS, `${this.server} has no tool ${name}; a view may call only its own server's tools`);
    if (!entry.callableByApp) {
      this.hooks.message(`refused: the app asked for ${entry.exposed}, which is not visible to apps`, "refused", this.server);
      throw new RpcError(ERR_REFUSED, `${name} is not visible to apps (its visibility leaves out "app")`);
    }
    const done = this.hooks.recordAppCall(entry.exposed, params.arguments ?? {});
    try {
      const result = await this.hooks.callTool(entry.exposed, params.arguments ?? {});
      done(result.isError ? "error" : "ok");
      return result;
    } catch (e) {
      done("failed");
      throw new RpcError(ERR_REFUSED, e.message);
    }
  }
}
