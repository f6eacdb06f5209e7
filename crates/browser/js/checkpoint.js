// Checkpoints (docs/faces.md#checkpoints): reads the page's restorable state in one pass — form fields,
// `<details>`, contenteditable, the page's and scroll containers' scroll positions —
// in the document, its open shadow roots and its same-origin frames, in document order.
// Secret fields (those `secret`, the CSS selector of the one definition of a secret
// field, matches: passwords, card numbers, one-time codes…) and file inputs are never
// read: they are listed as omitted, with why. Each field carries its identity (scope, kind, id, name, label,
// path) so it can be found again by the Rust side (`checkpoint/verdict.rs`), never by position
// alone. Scroll containers are the ones the page has scrolled (the change watcher keeps
// them): one never scrolled is at its start.
//
// `limits` holds the limits, and `wanted`: containers to read wherever they are scrolled
// ({scope, id, path}, a restore's). With a `plan` ({fields: [{index, expect, state}], scrolls: [{index, x, y}]}, indices
// into the list this pass finds), the plan is applied first — each field only if the
// element at its index still has the identity `expect` names, set so the page's
// listeners and its framework hear it (see `set`) — and the state read again for the
// reply after two frames, so a framework has re-rendered from what it heard. Returns
// {fields, scrolls, omitted, moreOmitted, dropped, applied}.
async function checkpoint(plan, limits, secret) {
  const SKIPPED_TYPES = ["submit", "button", "reset", "image", "hidden"];
  const OMITTED_LISTED = 50;
  const squash = (text) => String(text || "").replace(/\s+/g, " ").trim();
  const clip = (text, max) => (text.length > max ? text.slice(0, max) : text);
  // Labels by their text content: stable between capture and restore, and far cheaper
  // than the rendered text on a page with hundreds of them.
  const shown = (element) => squash(element.textContent);

  function byId(element, id) {
    const root = element.getRootNode();
    return (root.getElementById && root.getElementById(id)) || element.ownerDocument.getElementById(id);
  }
  function label(element) {
    const labelledBy = (element.getAttribute("aria-labelledby") || "").split(/\s+/).filter(Boolean)
      .map((id) => byId(element, id)).filter(Boolean).map(shown).join(" ");
    if (labelledBy) return clip(labelledBy, 100);
    const aria = squash(element.getAttribute("aria-label"));
    if (aria) return clip(aria, 100);
    if (element.localName === "details") {
      const summary = element.querySelector(":scope > summary");
      return summary ? clip(shown(summary), 100) : "";
    }
    if (element.labels && element.labels.length) return clip(Array.from(element.labels).map(shown).join(" "), 100);
    return clip(squash(element.getAttribute("placeholder") || element.getAttribute("title")), 100);
  }
  // tag:n (nth of its tag among its siblings) from the scope's root down; each parent's
  // children are counted once (pages hold hundreds of fields under one parent).
  const paths = new Map();
  const numbers = new Map();
  function nth(node) {
    const parent = node.parentNode;
    if (!parent) return 1;
    let counted = numbers.get(parent);
    if (!counted) {
      counted = new Map();
      const seen = {};
      for (const child of parent.children) {
        seen[child.localName] = (seen[child.localName] || 0) + 1;
        counted.set(child, seen[child.localName]);
      }
      numbers.set(parent, counted);
    }
    return counted.get(node) || 1;
  }
  function path(element) {
    let known = paths.get(element);
    if (known !== undefined) return known;
    const parent = element.parentElement;
    const own = element.localName + ":" + nth(element);
    known = parent ? path(parent) + ">" + own : own;
    paths.set(element, known);
    return known;
  }
  // The element at `path` under `root`, or null.
  function resolve(root, steps) {
    let node = root;
    for (const step of steps.split(">")) {
      const [tag, n] = step.split(":");
      node = Array.from(node.children).filter((child) => child.localName === tag)[Number(n) - 1];
      if (!node) return null;
    }
    return node;
  }
  // A shadow host or frame element as a step of a scope: its id, else its path.
  const step = (element) => (element.id ? element.localName + "#" + element.id : path(element));
  function kindOf(element) {
    const tag = element.localName;
    if (tag === "textarea") return "textarea";
    if (tag === "select") return "select";
    if (tag === "details") return "details";
    if (tag === "input") {
      const type = element.type;
      if (type === "checkbox" || type === "radio") return type;
      if (type === "password" || type === "file") return type;
      if (SKIPPED_TYPES.includes(type)) return null;
      return "text";
    }
    if (element.hasAttribute("contenteditable") && element.isContentEditable &&
        !(element.parentElement && element.parentElement.isContentEditable)) return "editable";
    return null;
  }
  function stateOf(kind, element) {
    if (kind === "checkbox" || kind === "radio") return { checked: element.checked };
    if (kind === "details") return { open: element.open };
    if (kind === "select") return { selected: Array.from(element.selectedOptions, (o) => o.value) };
    if (kind === "editable") return { value: element.innerText };
    return { value: element.value };
  }
  const tooLong = (state) => (state.value !== undefined && state.value.length > limits.valueChars) ||
    (state.selected !== undefined && state.selected.join("").length > limits.valueChars);

  function read() {
    const fields = [];
    const elements = [];
    const scrolls = [];
    const scrollers = [];
    const omitted = [];
    let moreOmitted = 0;
    const dropped = { fields: 0, scrolls: 0, values: 0, frames: 0 };
    function omit(entry) {
      if (omitted.length < OMITTED_LISTED) omitted.push(entry);
      else moreOmitted += 1;
    }
    function scroller(element, scope, x, y, page) {
      if (scrolls.length >= limits.scrolls) {
        dropped.scrolls += 1;
        return;
      }
      scrolls.push({ scope, id: element.id || "", path: page ? "" : path(element), x, y, page });
      scrollers.push(element);
    }
    function container(element, scope) {
      if (element === element.ownerDocument.scrollingElement) return;
      const style = getComputedStyle(element);
      if (/auto|scroll|overlay/.test(style.overflowY + style.overflowX)) {
        scroller(element, scope, element.scrollLeft, element.scrollTop, false);
      }
    }
    function field(element, scope) {
      const kind = kindOf(element);
      if (!kind) return;
      const identity = {
        scope,
        kind,
        id: element.id || "",
        name: element.getAttribute("name") || "",
        label: label(element),
      };
      if (kind === "password" || kind === "file" || element.matches(secret)) {
        omit({ ...identity, reason: kind === "file" ? "file inputs are never captured" : "secret fields are never captured" });
        return;
      }
      if (fields.length >= limits.fields) {
        dropped.fields += 1;
        return;
      }
      const state = stateOf(kind, element);
      if (tooLong(state)) {
        dropped.values += 1;
        omit({ ...identity, reason: "its value is longer than " + limits.valueChars + " characters" });
        return;
      }
      fields.push({
        ...identity,
        path: path(element),
        option: kind === "checkbox" || kind === "radio" ? element.getAttribute("value") || "" : "",
        required: Boolean(element.required) || element.getAttribute("aria-required") === "true",
        state,
      });
      elements.push(element);
    }
    // One document or shadow root: its fields and frames by selector (native, cheap);
    // its scroll containers from the change watcher's record of what scrolled (a layout
    // read of every element costs a large page tens of milliseconds), or, in a shadow
    // root, which the watcher cannot see into, by looking; shadow hosts by looking.
    function walk(root, scope) {
      const all = root.querySelectorAll("*");
      const shadow = root.nodeType === 11;
      const watcher = !shadow && root.defaultView && root.defaultView[Symbol.for("candor.settle")];
      for (const element of root.querySelectorAll("input,textarea,select,details,[contenteditable]")) {
        field(element, scope);
      }
      // Containers a restore looks for (the new page has not scrolled them yet).
      for (const wanted of limits.wanted || []) {
        if (wanted.scope !== scope) continue;
        const element = wanted.id ? root.getElementById(wanted.id) : resolve(root, wanted.path);
        if (element && !scrollers.includes(element)) container(element, scope);
      }
      if (watcher && watcher.scrolled) {
        for (const element of Array.from(watcher.scrolled)) {
          if (!element.isConnected) watcher.scrolled.delete(element);
          else if (element.getRootNode() === root && !scrollers.includes(element)) container(element, scope);
        }
      }
      for (const element of all) {
        if ((shadow || !watcher) && (element.scrollTop || element.scrollLeft)) container(element, scope);
        if (element.shadowRoot) walk(element.shadowRoot, scope + "/shadow:" + step(element));
      }
      for (const element of root.querySelectorAll("iframe,frame")) {
        let inner = null;
        try {
          inner = element.contentDocument;
        } catch (error) {
          inner = null;
        }
        if (inner && inner.documentElement) {
          const frameScope = scope + "/frame:" + step(element);
          const view = inner.defaultView;
          scroller(inner.scrollingElement || inner.documentElement, frameScope, view.scrollX, view.scrollY, true);
          walk(inner, frameScope);
        } else {
          dropped.frames += 1;
        }
      }
    }
    scroller(document.scrollingElement || document.documentElement, "", window.scrollX, window.scrollY, true);
    walk(document, "");
    return { fields, elements, scrolls, scrollers, omitted, moreOmitted, dropped };
  }

  // Sets a field so that the page and its framework both hear it: the value goes through
  // the prototype's own setter — a framework that wraps the element's property (React's
  // value tracker) then finds the element's value unlike the one it last rendered and
  // takes it as the user's — and `input` then `change` follow. Always, even when the
  // element already shows the value: the browser refills a form it brings back through
  // history without any event, so a page can show a value its framework never heard of
  // and would render its own over at its next update.
  function set(element, kind, state) {
    const native = (proto, property, value) =>
      Object.getOwnPropertyDescriptor(proto, property).set.call(element, value);
    const announce = () => {
      element.dispatchEvent(new Event("input", { bubbles: true, composed: true }));
      element.dispatchEvent(new Event("change", { bubbles: true }));
    };
    if (kind === "details") {
      element.open = state.open;
      return;
    }
    if (kind === "checkbox" || kind === "radio") {
      // A click is how a person sets these, and the one event React takes a checkbox's
      // change from: it is set the other way first, so the click lands on the saved
      // state and fires click, input and change as the browser's own (check does the
      // same, element_set_checked.js). A radio is never clicked off (the one checked in
      // its group is restored by its own entry).
      const was = element.checked;
      if (kind === "checkbox" || state.checked) {
        native(HTMLInputElement.prototype, "checked", !state.checked);
        element.click();
      }
      // A page that cancelled the click, or a radio to clear: the property and the events
      // only — a radio left unchecked hears nothing (a `change` there reads as choosing it).
      if (element.checked !== state.checked) {
        native(HTMLInputElement.prototype, "checked", state.checked);
        if (kind === "checkbox" || was) announce();
      }
      return;
    }
    if (kind === "select") {
      if (element.multiple) {
        for (const option of element.options) {
          Object.getOwnPropertyDescriptor(HTMLOptionElement.prototype, "selected").set
            .call(option, state.selected.includes(option.value));
        }
      } else {
        const index = Array.from(element.options).findIndex((o) => state.selected.includes(o.value));
        native(HTMLSelectElement.prototype, "selectedIndex", index);
      }
    } else if (kind === "editable") {
      element.innerText = state.value;
    } else {
      native(kind === "textarea" ? HTMLTextAreaElement.prototype : HTMLInputElement.prototype, "value", state.value);
    }
    announce();
  }

  let current = read();
  const applied = [];
  if (plan) {
    for (const entry of plan.fields || []) {
      const field = current.fields[entry.index];
      const element = current.elements[entry.index];
      const same = field && field.kind === entry.expect.kind && field.id === entry.expect.id &&
        field.name === entry.expect.name && field.label === entry.expect.label;
      if (!same) {
        applied.push({ index: entry.index, done: false, reason: "the page changed while it was being restored" });
        continue;
      }
      // A field the page has since made read-only or disabled is the page's to keep: it
      // is reported as not restored, never written over.
      const locked = element.matches(":disabled") ? "it is disabled now"
        : element.readOnly === true ? "it is read-only now"
        : field.kind === "editable" && !element.isContentEditable ? "it is no longer editable"
        : null;
      if (locked) {
        applied.push({ index: entry.index, done: false, reason: locked + "; left as the page has it" });
        continue;
      }
      try {
        set(element, field.kind, entry.state);
        applied.push({ index: entry.index, done: true, reason: null });
      } catch (error) {
        applied.push({ index: entry.index, done: false, reason: "setting it threw " + String((error && error.name) || error) });
      }
    }
    const scrolls = plan.scrolls || [];
    for (const entry of scrolls) {
      const element = current.scrollers[entry.index];
      if (!element) continue;
      if (current.scrolls[entry.index].page) {
        element.ownerDocument.defaultView.scrollTo({ left: entry.x, top: entry.y, behavior: "instant" });
      } else {
        element.scrollTo({ left: entry.x, top: entry.y, behavior: "instant" });
      }
    }
    if (scrolls.length || (plan.fields || []).length) {
      // Two frames for the page to lay out a scroll and for a framework to render what it
      // heard. candor's world's own frames, not the page's (see settle_watch.js); a hidden
      // tab gets no frames, so a timer stands in.
      await new Promise((resolve) => {
        requestAnimationFrame(() => requestAnimationFrame(resolve));
        setTimeout(resolve, 100);
      });
    }
    current = read();
  }
  return {
    fields: current.fields,
    scrolls: current.scrolls,
    omitted: current.omitted,
    moreOmitted: current.moreOmitted,
    dropped: current.dropped,
    applied,
  };
}
