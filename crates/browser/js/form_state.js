// Reads every form control in scope (docs/observation.md#form-state, browser_form_state): inside the elements
// `scope` matches (a CSS selector; null: the whole document), open shadow roots included,
// in document order. For each: what the DOM holds (`domValue`), what the user sees
// (`displayValue`), selected options, checked state, validity; for a custom combobox, the
// popup found through aria-controls/aria-owns and its aria-selected options. Secret fields
// (those `secret`, the CSS selector of the one definition of a secret field, matches:
// passwords, card numbers, one-time codes…) are masked here, so their values never leave
// the page.
//
// Returns {controls, total, hiddenInputs, scopeMatched}, or {invalidSelector: reason}.
// Reading changes nothing: validity is read, never checked (checkValidity fires events).
function formState(scope, limit, valueChars, secret) {
  const SKIPPED_TYPES = ["submit", "button", "reset", "image"];
  const ARIA_CONTROLS = ["combobox", "listbox", "checkbox", "switch", "radio", "textbox", "searchbox", "slider", "spinbutton"];
  const MASK = "[masked]";
  const clip = (text, max) => {
    const value = String(text);
    return value.length > max ? value.slice(0, max) + "…" : value;
  };
  const squash = (text) => String(text || "").replace(/\s+/g, " ").trim();
  const shown = (element) => squash(element.innerText !== undefined ? element.innerText : element.textContent);

  let roots = [document];
  let scopeMatched = null;
  if (scope != null) {
    try {
      roots = Array.from(document.querySelectorAll(scope));
    } catch (error) {
      return { invalidSelector: String((error && error.message) || error) };
    }
    scopeMatched = roots.length;
  }

  const found = [];
  const seen = new Set();
  let hiddenInputs = 0;
  function visit(element, inShadow) {
    if (seen.has(element)) return;
    seen.add(element);
    const tag = element.localName;
    const role = (element.getAttribute("role") || "").trim().split(/\s+/)[0];
    if (tag === "input" && element.type === "hidden") hiddenInputs += 1;
    else if (tag === "input" && !SKIPPED_TYPES.includes(element.type)) found.push([element, inShadow]);
    else if (tag === "select" || tag === "textarea") found.push([element, inShadow]);
    else if (ARIA_CONTROLS.includes(role)) found.push([element, inShadow]);
    else if (element.isContentEditable && !(element.parentElement && element.parentElement.isContentEditable)) {
      found.push([element, inShadow]);
    }
    if (element.shadowRoot) walk(element.shadowRoot, true);
  }
  function walk(root, inShadow) {
    if (root.nodeType === 1) visit(root, inShadow);
    for (const element of root.querySelectorAll("*")) visit(element, inShadow);
  }
  for (const root of roots) walk(root, root.nodeType === 1 && root.getRootNode() instanceof ShadowRoot);

  function byId(element, id) {
    const root = element.getRootNode();
    return (root.getElementById && root.getElementById(id)) || document.getElementById(id);
  }
  function idrefs(element, attribute) {
    return (element.getAttribute(attribute) || "").split(/\s+/).filter(Boolean)
      .map((id) => byId(element, id)).filter(Boolean);
  }
  function label(element) {
    const labelledBy = idrefs(element, "aria-labelledby").map(shown).join(" ");
    if (labelledBy) return clip(labelledBy, 100);
    const aria = squash(element.getAttribute("aria-label"));
    if (aria) return clip(aria, 100);
    if (element.labels && element.labels.length) return clip(Array.from(element.labels).map(shown).join(" "), 100);
    const fallback = squash(element.getAttribute("placeholder") || element.getAttribute("title"));
    return fallback ? clip(fallback, 100) : null;
  }
  function option(element) {
    const value = element.getAttribute("data-value") || element.getAttribute("value") || element.id || null;
    return { value, label: clip(shown(element), 100) };
  }
  function unique(selector) {
    try {
      return document.querySelectorAll(selector).length === 1;
    } catch (error) {
      return false;
    }
  }
  // A selector that names this one element in the document, for act and wait.
  function selectorOf(element) {
    if (element.id && unique("#" + CSS.escape(element.id))) return "#" + CSS.escape(element.id);
    const name = element.getAttribute("name");
    if (name) {
      const byName = element.localName + "[name=\"" + CSS.escape(name) + "\"]";
      if (unique(byName)) return byName;
    }
    const steps = [];
    for (let node = element; node && node.nodeType === 1; node = node.parentElement) {
      if (node.id && unique("#" + CSS.escape(node.id))) {
        steps.unshift("#" + CSS.escape(node.id));
        break;
      }
      if (node.localName === "body") {
        steps.unshift("body");
        break;
      }
      let nth = 1;
      for (let sibling = node.previousElementSibling; sibling; sibling = sibling.previousElementSibling) {
        if (sibling.localName === node.localName) nth += 1;
      }
      steps.unshift(node.localName + ":nth-of-type(" + nth + ")");
    }
    return steps.join(" > ");
  }
  function ariaChecked(element) {
    const value = element.getAttribute("aria-checked");
    return value === "true" ? true : value === "false" ? false : value === "mixed" ? "mixed" : null;
  }
  function popupOf(element) {
    const ids = ((element.getAttribute("aria-controls") || "") + " " + (element.getAttribute("aria-owns") || ""))
      .split(/\s+/).filter(Boolean);
    if (ids.length === 0) return null;
    const popup = ids.map((id) => byId(element, id)).find(Boolean);
    if (!popup) return { id: ids[0], found: false };
    const options = Array.from(popup.querySelectorAll("[role=option]"));
    const active = element.getAttribute("aria-activedescendant");
    const activeOption = active ? byId(element, active) : null;
    const box = popup.getBoundingClientRect();
    return {
      id: popup.id || ids[0],
      found: true,
      role: popup.getAttribute("role") || popup.localName,
      visible: box.width > 0 && box.height > 0 && getComputedStyle(popup).visibility !== "hidden",
      options: options.length,
      selected: options.filter((o) => o.getAttribute("aria-selected") === "true").map(option),
      active: activeOption ? option(activeOption) : null,
    };
  }

  const popups = new Set();
  const controls = [];
  for (const [element, inShadow] of found) {
    const tag = element.localName;
    const role = (element.getAttribute("role") || "").trim().split(/\s+/)[0] || null;
    const type = tag === "input" ? element.type : tag === "select" || tag === "textarea" ? tag : role || "textbox";
    const native = tag === "input" || tag === "select" || tag === "textarea";
    const masked = type === "password" || element.matches(secret);
    const control = {
      tag,
      type,
      role,
      name: element.getAttribute("name"),
      id: element.id || null,
      label: label(element),
      selector: inShadow ? null : selectorOf(element),
      inShadowRoot: inShadow,
      domValue: null,
      displayValue: null,
      selectedOptions: null,
      checked: null,
      validationMessage: null,
      invalid: false,
      disabled: !!(element.disabled || element.getAttribute("aria-disabled") === "true"),
      required: !!(element.required || element.getAttribute("aria-required") === "true"),
      readOnly: !!(element.readOnly || element.getAttribute("aria-readonly") === "true"),
      masked,
      popup: null,
    };
    if (native) {
      control.domValue = element.value;
      if (tag === "select") {
        const selected = Array.from(element.selectedOptions).map((o) => ({ value: o.value, label: clip(squash(o.label || o.text), 100) }));
        control.selectedOptions = selected;
        control.displayValue = selected.map((o) => o.label).join(", ");
      } else if (type === "checkbox" || type === "radio") {
        control.checked = element.indeterminate ? "mixed" : element.checked;
      } else if (type === "file") {
        control.displayValue = Array.from(element.files || []).map((file) => file.name).join(", ");
      } else {
        control.displayValue = element.value;
      }
      control.invalid = element.willValidate && !element.validity.valid;
      control.validationMessage = element.validationMessage || null;
    } else if (role === "checkbox" || role === "switch" || role === "radio") {
      control.checked = ariaChecked(element);
    } else if (role === "slider" || role === "spinbutton") {
      control.domValue = element.getAttribute("aria-valuenow");
      control.displayValue = element.getAttribute("aria-valuetext") || control.domValue;
    } else if (role === "listbox") {
      control.selectedOptions = Array.from(element.querySelectorAll("[role=option]"))
        .filter((o) => o.getAttribute("aria-selected") === "true").map(option);
      control.displayValue = control.selectedOptions.map((o) => o.label).join(", ");
    } else {
      control.displayValue = shown(element);
    }
    if (role === "combobox") {
      const popup = popupOf(element);
      control.popup = popup;
      if (popup && popup.found) {
        popups.add(byId(element, popup.id));
        if (tag !== "select") control.selectedOptions = popup.selected;
      }
      control.checked = null;
    }
    const ariaInvalid = element.getAttribute("aria-invalid");
    if (ariaInvalid && ariaInvalid !== "false") {
      control.invalid = true;
      const message = idrefs(element, "aria-errormessage").map(shown).join(" ");
      if (message && !control.validationMessage) control.validationMessage = clip(message, 200);
    }
    if (masked) {
      control.domValue = element.value ? MASK : "";
      control.displayValue = control.domValue;
      // A select's chosen option is its value (a card's expiry month).
      control.selectedOptions = null;
    }
    if (typeof control.domValue === "string") control.domValue = clip(control.domValue, valueChars);
    if (typeof control.displayValue === "string") control.displayValue = clip(control.displayValue, valueChars);
    controls.push([element, control]);
  }
  // A combobox's popup listbox is reported with its combobox, not again on its own.
  const listed = controls.filter(([element]) => !popups.has(element)).map(([, control]) => control);
  return {
    controls: listed.slice(0, limit),
    total: listed.length,
    hiddenInputs,
    scopeMatched,
  };
}
