// Polls one wait condition inside the page (docs/waiting.md#waits) for at most `sliceMs` (0: check
// once), waking every 20 ms on a timer and at once on DOM mutations, and resolves
// {met, actual} with the evidence last seen; a check still running when the slice ends
// gets `graceMs` more. A selector the page cannot parse resolves {invalidSelector: reason},
// and an expression that does not compile {invalidExpression: {class, message}}, before
// any polling. The engine calls it again with the time that is left, in the same
// document or, after a navigation, in the new one.
//
// `condition` is data built by the engine: {kind: "selector", selector, state} |
// {kind: "text", text} | {kind: "url", url} | {kind: "urlMatches", regex} |
// {kind: "js", expression, matcher: {kind, value}}. A `js` expression is the caller's
// code, compiled here as an expression (or, if and only if that is a SyntaxError, as a
// function body); an exception it throws while polling counts as "not yet" and is the
// evidence ({met: false, actual: {threw}, threw: {class, message}}), so a value that only
// exists later can be waited for.
async function waitFor(condition, sliceMs, graceMs) {
  const TICK_MS = 20;
  // Mutations come in bursts; at most one extra check per this many ms.
  const MUTATION_GAP_MS = 5;
  const EVIDENCE_CHARS = 300;
  const VALUE_CHARS = 2000;

  const clip = (text, max) => (text.length > max ? text.slice(0, max) + "…" : text);
  const collapse = (text) => String(text).replace(/\s+/g, " ");

  function visible(element) {
    const box = element.getBoundingClientRect();
    if (!(box.width > 0 && box.height > 0)) return false;
    return getComputedStyle(element).visibility !== "hidden";
  }

  function selectorCheck() {
    const { selector, state } = condition;
    try {
      document.querySelector(selector);
    } catch (error) {
      return { refused: { invalidSelector: String((error && error.message) || error) } };
    }
    return () => {
      const matches = document.querySelectorAll(selector);
      let shown = 0;
      for (const element of matches) if (visible(element)) shown += 1;
      const actual = { matched: matches.length, visible: shown };
      const met = state === "attached" ? matches.length > 0
        : state === "hidden" ? shown === 0
        : shown > 0;
      return { met, actual };
    };
  }

  function textCheck() {
    const wanted = collapse(condition.text).trim();
    return () => {
      const root = document.body || document.documentElement;
      const text = collapse(root ? root.innerText : "").trim();
      const at = text.indexOf(wanted);
      if (at >= 0) {
        const from = Math.max(0, at - 100);
        const to = Math.min(text.length, at + wanted.length + 100);
        const excerpt = (from > 0 ? "…" : "") + text.slice(from, to) + (to < text.length ? "…" : "");
        return { met: true, actual: excerpt };
      }
      const tail = text.length > EVIDENCE_CHARS ? "…" + text.slice(text.length - EVIDENCE_CHARS) : text;
      return { met: false, actual: tail };
    };
  }

  function describe(error) {
    if (error instanceof Error) {
      return { class: (error.constructor && error.constructor.name) || error.name || "Error", message: String(error.message) };
    }
    return { class: error === null ? "null" : typeof error, message: String(error) };
  }

  function jsCheck() {
    const AsyncFunction = (async function () {}).constructor;
    const code = condition.expression;
    let compiled;
    try {
      // A trailing semicolon still makes an expression.
      compiled = new AsyncFunction("return (\n" + code.replace(/;\s*$/, "") + "\n);");
    } catch (asExpression) {
      try {
        if (!(asExpression instanceof SyntaxError)) throw asExpression;
        compiled = new AsyncFunction("\n" + code + "\n");
      } catch (asBody) {
        return { refused: { invalidExpression: describe(asBody) } };
      }
    }
    const { kind, value: expected } = condition.matcher;
    return async () => {
      let raw;
      try {
        raw = await compiled.call(window);
      } catch (error) {
        const threw = describe(error);
        return { met: false, actual: { threw: threw.class + ": " + threw.message }, threw };
      }
      const value = plain(raw);
      return { met: matches(kind, raw, value, expected), actual: evidence(value) };
    };
  }

  // The value as JSON would carry it (undefined and what JSON cannot hold become null).
  function plain(raw) {
    if (raw === undefined) return null;
    try {
      const text = JSON.stringify(raw);
      return text === undefined ? null : JSON.parse(text);
    } catch (error) {
      return String(raw);
    }
  }

  function evidence(value) {
    const text = JSON.stringify(value);
    return text.length > VALUE_CHARS ? clip(text, VALUE_CHARS) : value;
  }

  function same(a, b) {
    if (a === b) return true;
    if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
    if (Array.isArray(a) !== Array.isArray(b)) return false;
    if (Array.isArray(a)) return a.length === b.length && a.every((item, i) => same(item, b[i]));
    const keys = Object.keys(a);
    return keys.length === Object.keys(b).length
      && keys.every((key) => Object.prototype.hasOwnProperty.call(b, key) && same(a[key], b[key]));
  }

  function number(value) {
    if (typeof value === "number") return value;
    if (typeof value === "string" && value.trim() !== "" && Number.isFinite(Number(value))) return Number(value);
    return NaN;
  }

  function matches(kind, raw, value, expected) {
    switch (kind) {
      case "truthy": return !!raw;
      case "equals": return same(value, expected);
      case "notEquals": return !same(value, expected);
      case "contains":
        if (typeof value === "string" && typeof expected === "string") return value.includes(expected);
        if (Array.isArray(value)) return value.some((item) => same(item, expected));
        return false;
      case "min": return number(value) >= expected;
      case "max": return number(value) <= expected;
      default: return false;
    }
  }

  let check;
  switch (condition.kind) {
    case "selector": check = selectorCheck(); break;
    case "text": check = textCheck(); break;
    case "url": check = () => ({ met: location.href === condition.url, actual: location.href }); break;
    case "urlMatches": {
      const pattern = new RegExp(condition.regex);
      check = () => ({ met: pattern.test(location.href), actual: location.href });
      break;
    }
    case "js": check = jsCheck(); break;
    default: throw new Error("unknown wait condition " + condition.kind);
  }
  if (check.refused) return check.refused;

  return await new Promise((resolve) => {
    const end = Date.now() + Math.max(0, sliceMs);
    let last = { met: false, actual: { pending: "no check had finished" } };
    let done = false;
    let running = false;
    let lastCheck = 0;
    let timer = null;
    let observer = null;

    const finish = () => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      clearTimeout(endTimer);
      if (observer) observer.disconnect();
      resolve(last);
    };

    const tick = async () => {
      if (done || running) return;
      running = true;
      lastCheck = Date.now();
      try {
        last = await check();
      } catch (error) {
        last = { met: false, actual: { threw: String((error && error.message) || error) } };
      } finally {
        running = false;
      }
      if (last.met || Date.now() >= end) return finish();
      clearTimeout(timer);
      timer = setTimeout(tick, Math.min(TICK_MS, Math.max(0, end - Date.now())));
    };

    // The slice ends even if a check (a slow promise in a js condition) has not.
    const endTimer = setTimeout(finish, Math.max(0, sliceMs) + Math.max(TICK_MS, graceMs));
    if (sliceMs > 0 && typeof MutationObserver === "function") {
      observer = new MutationObserver(() => {
        if (Date.now() - lastCheck >= MUTATION_GAP_MS) tick();
      });
      observer.observe(document, { subtree: true, childList: true, attributes: true, characterData: true });
    }
    tick();
  });
}
