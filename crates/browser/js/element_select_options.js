// Selects the options of a <select> given by value or by label; nothing changes unless
// every one is found. Fires input and change like a user's choice.
function elementSelectOptions(wanted) {
  if (!this.tagName || this.tagName.toLowerCase() !== "select") {
    return { error: "not-select" };
  }
  const options = Array.from(this.options);
  const chosen = [];
  const missing = [];
  for (const want of wanted) {
    const option =
      options.find((o) => o.value === want) ||
      options.find((o) => o.label.trim() === want.trim()) ||
      options.find((o) => o.textContent.trim().toLowerCase() === want.trim().toLowerCase());
    if (option) chosen.push(option);
    else missing.push(want);
  }
  if (missing.length) {
    // The first 20 options, each as far as 100 characters: enough to choose by.
    const clip = (text) => (text.length > 100 ? text.slice(0, 100) + "…" : text);
    return { error: "missing", missing, available: options.slice(0, 20).map((o) => clip(o.label.trim() || o.value)) };
  }
  if (chosen.length > 1 && !this.multiple) {
    return { error: "single" };
  }
  for (const option of options) option.selected = chosen.includes(option);
  this.dispatchEvent(new Event("input", { bubbles: true, composed: true }));
  this.dispatchEvent(new Event("change", { bubbles: true }));
  return {
    selected: Array.from(this.selectedOptions).map((o) => ({ value: o.value, label: o.label.trim() })),
  };
}
