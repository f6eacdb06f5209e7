// What an element holds now: its value (inputs, textareas, selects, contenteditable),
// whether it is checked, and what kind of field it is. A secret field's value (one that
// `secret`, the CSS selector of the one definition of a secret field, matches) comes
// as `secretValue`, never `value`: every record of what passed (a tape) drops a key so
// named, and the engine never echoes it.
function elementValue(secret) {
  const tag = this.tagName ? this.tagName.toLowerCase() : "";
  const type = tag === "input" ? (this.type || "text").toLowerCase() : "";
  let value;
  if (tag === "input" || tag === "textarea" || tag === "select") {
    value = this.value;
  } else if (this.isContentEditable) {
    value = this.innerText;
  } else {
    value = null;
  }
  const ariaChecked = this.getAttribute ? this.getAttribute("aria-checked") : null;
  const reply = {
    tag,
    type,
    value,
    checked: tag === "input" && (type === "checkbox" || type === "radio") ? this.checked : ariaChecked === null ? null : ariaChecked === "true",
    editable: tag === "textarea" || (tag === "input" && !["checkbox", "radio", "button", "submit", "reset", "file", "image", "range", "color"].includes(type)) || !!this.isContentEditable,
    connected: this.isConnected,
  };
  if (value !== null && this.matches && this.matches(secret)) {
    reply.secretValue = value;
    reply.value = null;
  }
  return reply;
}
