// What an element holds now: its value (inputs, textareas, selects, contenteditable),
// whether it is checked, and what kind of field it is.
function elementValue() {
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
  return {
    tag,
    type,
    value,
    checked: tag === "input" && (type === "checkbox" || type === "radio") ? this.checked : ariaChecked === null ? null : ariaChecked === "true",
    editable: tag === "textarea" || (tag === "input" && !["checkbox", "radio", "button", "submit", "reset", "file", "image", "range", "color"].includes(type)) || !!this.isContentEditable,
    connected: this.isConnected,
  };
}
