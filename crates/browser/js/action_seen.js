// Reads and ends the watch action_watch.js started (`this`): `{replaced}` — a press whose
// element (or what the mousedown reached) was gone from the document by its mouseup, and
// no click reached the element —, `{missed}` — the element the mousedown reached (`tag#id`
// or `tag.class`) when it is neither the element, inside it, nor around it, both still in
// the document, and no click reached the element: the press landed beside it (it moved,
// or something came over it, between the check of its point and the press); `null`
// otherwise —, `{changed}` — whether anything the watch sees changed:
// the DOM, the scroll, the URL, the element's value or checked state, or the focus (a
// focus that only came to the element clicked counts for a text field, which now takes
// typing, and for nothing else: every click focuses what it lands on) —, and `{opaque}`
// for an element whose effect may show where the watch does not look (a select's list, a
// file, colour or date chooser, a canvas, a video, an embedded frame) or in a frame of
// another origin than the top document's, whose "nothing changed" would say nothing.
function actionSeen() {
  const watch = this;
  for (const observer of watch.observers) {
    watch.mutations += observer.takeRecords().length;
    observer.disconnect();
  }
  for (const [type, listener] of watch.listeners) {
    watch.view.removeEventListener(type, listener, true);
  }
  const target = watch.target;
  const tag = target.localName;
  const type = tag === "input" ? String(target.type).toLowerCase() : "";
  const active = watch.deepActive();
  const editable = target.isContentEditable || tag === "textarea" ||
    (tag === "input" && !/^(button|submit|reset|checkbox|radio|image|range|color|file|hidden)$/.test(type));
  const focusMoved = active !== watch.active && (active !== target || editable);
  const drawn = "canvas, video, audio, iframe, embed, object";
  const opaque = !watch.topSeen || tag === "select" || /^(file|color|date|datetime-local|month|week|time)$/.test(type) ||
    target.matches(drawn) || target.querySelector(drawn) !== null;
  const changed = watch.mutations > 0 || watch.scrolled || focusMoved ||
    watch.view.location.href !== watch.url ||
    target.value !== watch.value || target.checked !== watch.checked;
  // Whether `node` is `other` or inside it, across shadow roots.
  const within = (node, other) => {
    for (let n = node; n; n = n.parentNode || n.host || null) if (n === other) return true;
    return false;
  };
  const down = watch.down && watch.down.nodeType === 1 ? watch.down : null;
  const beside = down !== null && !watch.reached && !watch.replaced && down.isConnected &&
    target.isConnected && !within(down, target) && !within(target, down);
  let missed = null;
  if (beside) {
    missed = down.localName;
    if (down.id) missed += "#" + down.id;
    else if (typeof down.className === "string" && down.className.trim())
      missed += "." + down.className.trim().split(/\s+/).slice(0, 2).join(".");
  }
  return { replaced: watch.replaced && !watch.reached, missed, changed, opaque };
}
