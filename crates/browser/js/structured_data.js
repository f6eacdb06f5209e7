// The page's structured data, as the page states it: the text of each JSON-LD block
// (parsed by candor, so a broken block is reported on its own), the top-level microdata
// items with their properties (nested items as objects), and the <meta> properties and
// names (OpenGraph, Twitter, description…) with the canonical link. Each list is capped.
function structuredData(maxItems, maxChars) {
  const clip = (text) => (text.length > maxChars ? text.slice(0, maxChars) : text);
  const jsonLd = Array.from(document.querySelectorAll('script[type="application/ld+json"]'))
    .slice(0, maxItems)
    .map((script) => clip(script.textContent || ""));
  const value = (element) => {
    if (element.hasAttribute("itemscope")) return item(element);
    const tag = element.localName;
    if (element.hasAttribute("content")) return element.getAttribute("content");
    if (tag === "a" || tag === "link" || tag === "area") return element.href;
    if (tag === "img" || tag === "audio" || tag === "video" || tag === "source") return element.src;
    if (tag === "time") return element.getAttribute("datetime") || element.textContent.trim();
    if (tag === "meta") return element.getAttribute("content") || "";
    return clip((element.textContent || "").replace(/\s+/g, " ").trim());
  };
  const item = (scope, depth = 0) => {
    const properties = {};
    if (depth > 5) return { type: scope.getAttribute("itemtype"), properties };
    const walk = (node) => {
      for (const child of node.children) {
        if (child.hasAttribute("itemprop")) {
          for (const name of child.getAttribute("itemprop").split(/\s+/).filter(Boolean)) {
            const v = child.hasAttribute("itemscope") ? item(child, depth + 1) : value(child);
            (properties[name] = properties[name] || []).push(v);
          }
        }
        if (!child.hasAttribute("itemscope")) walk(child);
      }
    };
    walk(scope);
    return { type: scope.getAttribute("itemtype"), properties };
  };
  const microdata = Array.from(document.querySelectorAll("[itemscope]:not([itemprop])"))
    .slice(0, maxItems)
    .map((scope) => item(scope));
  const meta = Array.from(document.querySelectorAll("meta[property], meta[name]"))
    .slice(0, maxItems)
    .map((m) => ({
      key: m.getAttribute("property") || m.getAttribute("name"),
      content: clip(m.getAttribute("content") || ""),
    }));
  const canonical = document.querySelector('link[rel="canonical"]');
  if (canonical) meta.push({ key: "canonical", content: canonical.href });
  return { jsonLd, microdata, meta };
}
