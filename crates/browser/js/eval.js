// Runs the caller's JavaScript for browser_eval (docs/observation.md#eval). `code` is data: it is compiled
// here as an expression, and if and only if that is a SyntaxError, as a function body
// (an async one, so `await` works in both). Newlines around the code keep a trailing
// `// comment` from swallowing the wrapper. It runs at most once: a runtime error is
// reported, never retried. A promise is awaited for at most `settleMs`.
//
// Resolves one of:
//   {ran: false, threw: {class, message}}      not valid JavaScript either way; nothing ran
//   {ran: true, threw: {class, message}}       it threw, or its promise rejected
//   {ran: true, pending: true}                 its promise had not settled in time
//   {ran: true, mode, type, value, truncated}  its value, as JSON, at most `maxChars` long
async function evaluate(code, settleMs, maxChars) {
  const AsyncFunction = (async function () {}).constructor;

  function describe(error) {
    if (error instanceof Error || (typeof DOMException === "function" && error instanceof DOMException)) {
      const name = error instanceof DOMException ? error.name
        : (error.constructor && error.constructor.name) || error.name || "Error";
      return { class: name, message: String(error.message) };
    }
    return { class: error === null ? "null" : typeof error, message: String(error) };
  }

  let compiled;
  let mode = "expression";
  try {
    // A trailing semicolon still makes an expression.
    compiled = new AsyncFunction("return (\n" + code.replace(/;\s*$/, "") + "\n);");
  } catch (asExpression) {
    if (!(asExpression instanceof SyntaxError)) return { ran: false, threw: describe(asExpression) };
    try {
      compiled = new AsyncFunction("\n" + code + "\n");
      mode = "body";
    } catch (asBody) {
      return { ran: false, threw: describe(asBody) };
    }
  }

  const PENDING = {};
  let raw;
  let timer;
  try {
    const late = new Promise((resolve) => { timer = setTimeout(() => resolve(PENDING), settleMs); });
    raw = await Promise.race([compiled.call(window), late]);
  } catch (error) {
    return { ran: true, mode, threw: describe(error) };
  } finally {
    clearTimeout(timer);
  }
  if (raw === PENDING) return { ran: true, mode, pending: true };

  // What JSON cannot carry is described: nodes by their tag, id and classes, functions by
  // name; an object met again (a cycle) is "[seen above]".
  function nodeName(node) {
    if (node.nodeType !== 1) return node.nodeName.toLowerCase();
    let name = "<" + node.tagName.toLowerCase();
    if (node.id) name += "#" + node.id;
    for (const cls of node.classList) name += "." + cls;
    return name + ">";
  }
  const seen = new WeakSet();
  function replace(key, value) {
    if (typeof value === "bigint") return value.toString();
    if (typeof value === "function") return "[function " + (value.name || "anonymous") + "]";
    if (typeof value === "symbol") return value.toString();
    if (value === undefined) return null;
    if (typeof value !== "object" || value === null) return value;
    if (typeof Node === "function" && value instanceof Node) return nodeName(value);
    if (value instanceof Error) return describe(value);
    if (seen.has(value)) return "[seen above]";
    seen.add(value);
    if (value instanceof Map) return Object.fromEntries(value);
    if (value instanceof Set) return Array.from(value);
    if (typeof NodeList === "function" && (value instanceof NodeList || value instanceof HTMLCollection)) {
      return Array.from(value);
    }
    return value;
  }

  const type = raw === null ? "null"
    : Array.isArray(raw) ? "array"
    : typeof Node === "function" && raw instanceof Node ? "node"
    : typeof raw;
  let json;
  try {
    json = JSON.stringify(raw === undefined ? null : raw, replace);
  } catch (error) {
    json = JSON.stringify(String(raw));
  }
  if (json === undefined) json = "null";
  if (json.length > maxChars) {
    return { ran: true, mode, type, value: json.slice(0, maxChars), truncated: true, chars: json.length };
  }
  return { ran: true, mode, type, value: JSON.parse(json), truncated: false, chars: json.length };
}
