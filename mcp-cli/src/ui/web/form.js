// A form generated from a tool's input schema (JSON Schema): a field per property, required
// ones marked, enums as selects, defaults filled in, nested objects as nested fieldsets,
// arrays of plain values one item per line, anything else as JSON. `read()` turns the form
// back into the arguments object, or throws a FormError listing what is wrong.

import { el } from "./dom.js";

/** What is wrong with the form, field by field. */
export class FormError extends Error {
  constructor(problems) {
    super(problems.join("; "));
    this.problems = problems;
  }
}


/** Follows a local `$ref` (#/$defs/…, #/definitions/…) and reduces nullable unions. */
function resolve(schema, root, depth = 0) {
  if (!schema || typeof schema !== "object" || depth > 16) return schema ?? {};
  if (typeof schema.$ref === "string" && schema.$ref.startsWith("#/")) {
    let target = root;
    for (const part of schema.$ref.slice(2).split("/")) target = target?.[part.replace(/~1/g, "/").replace(/~0/g, "~")];
    const { $ref, ...rest } = schema;
    return resolve({ ...(target ?? {}), ...rest }, root, depth + 1);
  }
  for (const key of ["anyOf", "oneOf"]) {
    const options = schema[key];
    if (Array.isArray(options)) {
      const real = options.filter((o) => o?.type !== "null");
      if (real.length === 1) {
        const { [key]: _, ...rest } = schema;
        return resolve({ ...real[0], ...rest }, root, depth + 1);
      }
    }
  }
  if (Array.isArray(schema.type)) {
    const real = schema.type.filter((t) => t !== "null");
    if (real.length === 1) return { ...schema, type: real[0] };
  }
  return schema;
}

function kind(schema) {
  if (Array.isArray(schema.enum)) return "enum";
  if (schema.const !== undefined) return "const";
  if (schema.type === "object" && schema.properties) return "object";
  if (schema.type === "array") {
    const items = schema.items ?? {};
    const plain = ["string", "number", "integer"].includes(items.type) && !items.properties;
    return plain ? "list" : "json";
  }
  if (["string", "number", "integer", "boolean"].includes(schema.type)) return schema.type;
  return "json";
}

/** One field: {element, read(problems) → value or undefined}. */
function field(name, path, raw, required, root) {
  const schema = resolve(raw, root);
  const label = el("label", { for: `f-${path}` }, el("span", { class: "name", text: name }));
  if (required) label.append(el("span", { class: "required", title: "required", text: " *" }));
  const help = schema.description ? el("small", { class: "description", text: schema.description }) : null;
  const wrap = el("div", { class: "field", "data-path": path });
  const error = el("div", { class: "field-error" });
  const hasDefault = schema.default !== undefined;
  const k = kind(schema);
  let input;
  let read;
  const complain = (problems, message) => {
    wrap.classList.add("invalid");
    error.textContent = message;
    problems.push(`${path}: ${message}`);
    return undefined;
  };
  const missing = (problems) => (required ? complain(problems, "is required") : undefined);

  if (k === "object") {
    const set = el("fieldset", { class: "object", "data-path": path }, el("legend", {}, ...label.childNodes));
    if (help) set.append(help);
    const needed = new Set(schema.required ?? []);
    const children = Object.entries(schema.properties).map(([child, s]) => {
      const f = field(child, `${path}.${child}`, s, needed.has(child), root);
      set.append(f.element);
      return [child, f];
    });
    return {
      element: set,
      read(problems) {
        const out = {};
        for (const [child, f] of children) {
          const v = f.read(problems);
          if (v !== undefined) out[child] = v;
        }
        if (Object.keys(out).length === 0 && !required && !needed.size) return undefined;
        return out;
      },
    };
  }

  if (k === "enum" || k === "const") {
    const values = k === "enum" ? schema.enum : [schema.const];
    input = el("select", { id: `f-${path}`, name: path });
    if (!required || !hasDefault) input.append(el("option", { value: "", text: required ? "— choose —" : "—" }));
    values.forEach((v, i) => {
      const option = el("option", { value: String(i), text: typeof v === "string" ? v : JSON.stringify(v) });
      if (hasDefault && JSON.stringify(v) === JSON.stringify(schema.default)) option.selected = true;
      input.append(option);
    });
    read = (problems) => (input.value === "" ? missing(problems) : values[Number(input.value)]);
  } else if (k === "boolean") {
    input = el("input", { id: `f-${path}`, name: path, type: "checkbox" });
    input.checked = schema.default === true;
    let touched = false;
    input.addEventListener("change", () => (touched = true));
    read = () => (required || hasDefault || touched ? input.checked : undefined);
  } else if (k === "number" || k === "integer") {
    input = el("input", {
      id: `f-${path}`, name: path, type: "number",
      step: k === "integer" ? "1" : "any",
      min: schema.minimum, max: schema.maximum,
    });
    if (hasDefault) input.value = String(schema.default);
    read = (problems) => {
      if (input.value.trim() === "") return missing(problems);
      const n = Number(input.value);
      if (!Number.isFinite(n)) return complain(problems, "is not a number");
      if (k === "integer" && !Number.isInteger(n)) return complain(problems, "must be a whole number");
      return n;
    };
  } else if (k === "string") {
    const long = (schema.maxLength ?? 0) > 200 || schema.format === "textarea";
    input = el(long ? "textarea" : "input", { id: `f-${path}`, name: path, type: long ? undefined : "text" });
    if (Array.isArray(schema.examples) && schema.examples.length) input.placeholder = String(schema.examples[0]);
    if (hasDefault) input.value = String(schema.default);
    read = (problems) => (input.value === "" ? missing(problems) : input.value);
  } else if (k === "list") {
    const itemType = schema.items.type;
    input = el("textarea", { id: `f-${path}`, name: path, rows: "3", placeholder: "one item per line" });
    if (Array.isArray(schema.default)) input.value = schema.default.join("\n");
    read = (problems) => {
      const lines = input.value.split("\n").map((l) => l.trim()).filter((l) => l !== "");
      if (lines.length === 0) return missing(problems);
      if (itemType === "string") return lines;
      const numbers = lines.map(Number);
      if (numbers.some((n) => !Number.isFinite(n))) return complain(problems, "has an item that is not a number");
      return numbers;
    };
  } else {
    input = el("textarea", { id: `f-${path}`, name: path, rows: "3", class: "json", placeholder: "JSON" });
    if (hasDefault) input.value = JSON.stringify(schema.default);
    read = (problems) => {
      if (input.value.trim() === "") return missing(problems);
      try {
        return JSON.parse(input.value);
      } catch (e) {
        return complain(problems, `is not valid JSON (${e.message})`);
      }
    };
  }
  input.addEventListener("input", () => {
    wrap.classList.remove("invalid");
    error.textContent = "";
  });
  wrap.append(label, input);
  if (help) wrap.append(help);
  wrap.append(error);
  return { element: wrap, read };
}

/** The form of `schema` (a tool's inputSchema): {element, read() → arguments}. */
export function buildForm(schema) {
  const root = schema ?? {};
  const element = el("div", { class: "fields" });
  const needed = new Set(root.required ?? []);
  const properties = resolve(root, root).properties ?? {};
  const fields = Object.entries(properties).map(([name, s]) => {
    const f = field(name, name, s, needed.has(name), root);
    element.append(f.element);
    return [name, f];
  });
  if (fields.length === 0) element.append(el("p", { class: "hint", text: "This tool takes no arguments." }));
  return {
    element,
    read() {
      for (const node of element.querySelectorAll(".invalid")) node.classList.remove("invalid");
      const problems = [];
      const args = {};
      for (const [name, f] of fields) {
        const v = f.read(problems);
        if (v !== undefined) args[name] = v;
      }
      if (problems.length) throw new FormError(problems);
      return args;
    },
  };
}
