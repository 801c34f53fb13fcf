// A tool's result as DOM: text, images, audio, resource links (read on a click) and embedded
// resources, structured content as a tree; results with isError and failed calls as errors.
// Everything from a server is put in as text or data: URLs, never as HTML.

import { el } from "./dom.js";

const SAFE_MEDIA = /^(image|audio)\/[a-z0-9.+-]+$/i;

/** A JSON value as a tree of <details>, objects and arrays open two levels deep. */
export function tree(value, key = null, depth = 0) {
  const label = key === null ? [] : [el("span", { class: "key", text: key }), ": "];
  if (value !== null && typeof value === "object") {
    const entries = Array.isArray(value) ? value.map((v, i) => [String(i), v]) : Object.entries(value);
    const summary = Array.isArray(value) ? `[${entries.length}]` : `{${entries.length}}`;
    const node = el("details", { class: "tree-node" }, el("summary", {}, ...label, el("span", { class: "count", text: summary })));
    node.open = depth < 2;
    for (const [k, v] of entries) node.append(tree(v, k, depth + 1));
    return node;
  }
  const type = value === null ? "null" : typeof value;
  return el("div", { class: "tree-leaf" }, ...label, el("span", { class: `value ${type}`, text: JSON.stringify(value) }));
}

/** A resource's contents (a `resources/read` result's `contents`). */
export function resourceContents(contents) {
  const box = el("div", { class: "resource-contents" });
  for (const c of contents ?? []) {
    box.append(el("div", { class: "uri", text: `${c.uri}${c.mimeType ? ` (${c.mimeType})` : ""}` }));
    if (typeof c.text === "string") box.append(el("pre", { class: "text", text: c.text }));
    else if (typeof c.blob === "string") {
      if (SAFE_MEDIA.test(c.mimeType ?? "") && c.mimeType.startsWith("image/")) {
        box.append(el("img", { src: `data:${c.mimeType};base64,${c.blob}`, alt: c.uri }));
      } else box.append(el("div", { class: "blob", text: `binary, ${Math.floor((c.blob.length * 3) / 4)} bytes` }));
    }
  }
  return box;
}

function block(item, readResource) {
  switch (item?.type) {
    case "text":
      return el("pre", { class: "text" , text: item.text ?? "" });
    case "image":
    case "audio": {
      const mime = SAFE_MEDIA.test(item.mimeType ?? "") ? item.mimeType : null;
      if (!mime) return el("div", { class: "blob", text: `${item.type} of type ${item.mimeType ?? "?"}` });
      const src = `data:${mime};base64,${item.data}`;
      return item.type === "image" ? el("img", { src, alt: "image from the tool" }) : el("audio", { src, controls: "" });
    }
    case "resource_link": {
      const link = el("button", { type: "button", class: "link", text: item.title ?? item.name ?? item.uri });
      const box = el("div", { class: "resource-link" }, "🔗 ", link, el("span", { class: "uri", text: ` ${item.uri}` }));
      if (item.description) box.append(el("small", { class: "description", text: ` ${item.description}` }));
      link.addEventListener("click", async () => {
        link.disabled = true;
        try {
          box.append(resourceContents((await readResource(item.uri)).contents));
        } catch (e) {
          box.append(renderError(e.message));
        }
      });
      return box;
    }
    case "resource":
      return el("div", { class: "embedded" }, resourceContents([item.resource]));
    default:
      return el("div", { class: "unknown" }, tree(item, "content"));
  }
}

/** The rendering of a CallToolResult; `readResource(uri)` reads a linked resource. */
export function renderResult(result, readResource) {
  const box = el("div", { class: result.isError ? "result is-error" : "result" });
  if (result.isError) box.append(el("div", { class: "badge error", text: "Error (isError)" }));
  for (const item of result.content ?? []) box.append(block(item, readResource));
  if (result.structuredContent !== undefined) {
    box.append(el("div", { class: "structured" }, el("h4", { text: "Structured content" }), tree(result.structuredContent)));
  }
  return box;
}

/** A prompt's messages (a `prompts/get` result), each with its role. */
export function renderPrompt(result, readResource) {
  const box = el("div", { class: "result prompt" });
  if (result.description) box.append(el("p", { class: "description", text: result.description }));
  for (const message of result.messages ?? []) {
    const contents = Array.isArray(message.content) ? message.content : [message.content];
    box.append(el("div", { class: `message-role ${message.role}`, text: message.role }));
    for (const item of contents) box.append(block(item, readResource));
  }
  return box;
}

/** A failed call (protocol or transport error). */
export function renderError(message) {
  return el("div", { class: "result is-error" }, el("div", { class: "badge error", text: "Error" }), el("pre", { class: "text", text: message }));
}
