// Reads and ends the watch action_watch.js started (`this`): `{replaced}` — a press whose
// element (or what the mousedown reached) was gone from the document by its mouseup, and
// no click reached the element —, `{changed}` — whether anything the watch sees changed:
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
  return { replaced: watch.replaced && !watch.reached, changed, opaque };
}
