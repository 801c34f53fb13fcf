// Building DOM nodes: `el(tag, attributes, ...children)`. Attribute values go through
// setAttribute and `text` through textContent, so nothing from a server is ever parsed as HTML;
// `undefined`, `null` and `false` leave an attribute out, `true` sets it empty.

export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === null || v === false) continue;
    if (k === "text") node.textContent = v;
    else node.setAttribute(k, v === true ? "" : v);
  }
  node.append(...children);
  return node;
}
