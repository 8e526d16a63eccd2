// Small helpers to build the page's HTML as strings: every text from the peer is escaped.

const ESCAPES = {"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;"};

/** ``text`` safe inside HTML (element content or a quoted attribute). */
export function esc(text) {
  return String(text ?? "").replace(/[&<>"']/g, (c) => ESCAPES[c]);
}

/** A button that sends ``data`` (an object) when pressed; ``cls`` its classes. */
export function button(label, data, cls = "", extra = "") {
  const attrs = Object.entries(data).map(([k, v]) => ` data-${k}="${esc(v)}"`).join("");
  return `<button type="button" class="${esc(cls)}"${attrs}${extra}>${label}</button>`;
}

/** Lines of text as paragraphs; a verdict's ✓ or ✗ gets its class. */
export function lines(list, cls = "line") {
  return (list || []).map((line) => {
    const mark = line.startsWith("✓") ? " ok" : line.startsWith("✗") ? " bad" : "";
    return `<p class="${cls}${mark}">${esc(line) || "&nbsp;"}</p>`;
  }).join("");
}
