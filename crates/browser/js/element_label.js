// A short description of an element for messages: tag#id.class "text".
function elementLabel() {
  const element = this.nodeType === 1 ? this : this.parentElement;
  if (!element) return "a node";
  let label = element.tagName.toLowerCase();
  if (element.id) label += "#" + element.id;
  const classes = typeof element.className === "string" ? element.className.trim().split(/\s+/).filter(Boolean) : [];
  if (classes.length) label += "." + classes.slice(0, 3).join(".");
  const text = (element.innerText || element.getAttribute("aria-label") || "").trim().replace(/\s+/g, " ");
  if (text) label += ' "' + (text.length > 40 ? text.slice(0, 40) + "…" : text) + '"';
  return label;
}
