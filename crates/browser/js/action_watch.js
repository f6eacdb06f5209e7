// Watches what a click on an element (`this`) does, from just before its press until
// action_seen.js reads the watch (the object answered, kept in the page by candor):
// - the press: the element the mousedown reached, whether it or the element was gone
//   from the document by the mouseup (a re-render replaced them under the press), and
//   whether a click reached the element;
// - the effect: DOM changes (nodes, attributes, text) in the element's document, the top
//   document (one of another origin leaves the effect unknown), and every shadow root around the element and its
//   own; scrolling anywhere in the document; and, for action_seen.js to compare, the
//   URL, the focused element, the element's value and checked state.
// Only trusted events count (candor's input). It changes nothing the page can see.
function actionWatch() {
  const target = this;
  const doc = target.ownerDocument;
  const view = doc.defaultView;
  const deepActive = () => {
    let active = doc.activeElement;
    while (active && active.shadowRoot && active.shadowRoot.activeElement) {
      active = active.shadowRoot.activeElement;
    }
    return active;
  };
  const watch = {
    target,
    view,
    url: view.location.href,
    active: deepActive(),
    deepActive,
    value: target.value,
    checked: target.checked,
    mutations: 0,
    scrolled: false,
    down: null,
    replaced: false,
    reached: false,
    observers: [],
    listeners: [],
  };
  const roots = new Set([doc]);
  // Another origin's top document cannot be watched: what the click changes there is
  // unknown, and action_seen.js says so.
  watch.topSeen = false;
  try {
    if (view.top && view.top.document) {
      roots.add(view.top.document);
      watch.topSeen = true;
    }
  } catch (_) {
    // Left unseen.
  }
  for (let root = target.getRootNode(); root.nodeType === 11 && root.host; root = root.host.getRootNode()) {
    roots.add(root);
  }
  if (target.shadowRoot) roots.add(target.shadowRoot);
  for (const root of roots) {
    const observer = new view.MutationObserver((records) => {
      watch.mutations += records.length;
    });
    observer.observe(root, { subtree: true, childList: true, attributes: true, characterData: true });
    watch.observers.push(observer);
  }
  const listen = (type, handler) => {
    const trusted = (event) => {
      if (event.isTrusted) handler(event);
    };
    view.addEventListener(type, trusted, true);
    watch.listeners.push([type, trusted]);
  };
  listen("mousedown", (event) => {
    if (!watch.down) watch.down = event.composedPath()[0] || event.target;
  });
  listen("mouseup", () => {
    if (watch.down && (!watch.down.isConnected || !target.isConnected)) watch.replaced = true;
  });
  listen("click", (event) => {
    if (event.composedPath().includes(target)) watch.reached = true;
  });
  listen("scroll", () => {
    watch.scrolled = true;
  });
  return watch;
}
