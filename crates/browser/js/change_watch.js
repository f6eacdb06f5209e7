// Installed in candor's world of every new document of a tab
// (Page.addScriptToEvaluateOnNewDocument with candor's world), before the page's own
// scripts, and called directly on a document that predates it: remembers the last DOM
// mutations of the document (nodes added or removed, attributes — `style` and `class`
// included —, text) in a fixed ring of (time, node, kind), so that after an action candor
// can tell whether the page has stopped changing (js/settle_quiet.js), and when each
// node's current run of changes began; counts the document's content revision; and keeps
// the elements the page scrolled. It runs in candor's world, so the page can neither
// read nor change what it keeps. The page's timers are watched in the page's own world
// (js/settle_watch.js). It changes nothing the page can see, and runs only when the page
// changes or scrolls: nothing of it runs in an idle tab.
function watchChanges() {
  const key = Symbol.for("candor.settle");
  if (globalThis[key]) return false;
  const size = 512;
  const state = {
    times: new Float64Array(size),
    nodes: new Array(size),
    kinds: new Array(size),
    next: 0,
    count: 0,
    // Counts changes of the document's content (nodes added or removed, text changed)
    // but not of what keeps changing on its own (a ticking clock, once settle_quiet has
    // found it perpetual): the page's revision for coverage (see coverage.rs).
    revision: 0,
    // node -> Map(kind -> [start, last]): the node+kind's current run of changes — those
    // less than a second apart — so a settle can tell motion that began with a command
    // from motion already going before it, however many changes ago that was. A second,
    // not a frame or two: a renderer starved for a moment must not make a marquee that
    // ran from the load look begun by the action.
    runs: new WeakMap(),
  };
  // What candor itself adds for a moment (the overlay of a screenshot's marks,
  // js/marks_draw.js) is no change of the page.
  const own = (globalThis[Symbol.for("candor.own")] ||= new WeakSet());
  const ours = (record) =>
    record.type === "childList" &&
    record.addedNodes.length + record.removedNodes.length > 0 &&
    [...record.addedNodes, ...record.removedNodes].every((node) => own.has(node));
  const observer = new MutationObserver((records) => {
    const now = performance.now();
    for (const record of records) {
      if (ours(record)) continue;
      const kind = record.type === "attributes" ? "a:" + record.attributeName : record.type;
      state.times[state.next] = now;
      state.nodes[state.next] = record.target;
      state.kinds[state.next] = kind;
      state.next = (state.next + 1) % size;
      state.count += 1;
      let runs = state.runs.get(record.target);
      if (!runs) state.runs.set(record.target, (runs = new Map()));
      const run = runs.get(kind);
      if (run && now - run[1] <= 1000) run[1] = now;
      else runs.set(kind, [now, now]);
      if (record.type !== "attributes") {
        const perpetual = state.perpetual && state.perpetual.get(record.target);
        if (!(perpetual && perpetual.has(record.type))) state.revision += 1;
      }
    }
  });
  // Elements the page scrolled (by hand or by script), for checkpoints (checkpoint.js):
  // finding scroll containers otherwise costs a layout read of every element. Scroll
  // events inside shadow roots do not reach the document; checkpoint.js looks there.
  state.scrolled = new Set();
  document.addEventListener(
    "scroll",
    (event) => {
      if (event.target && event.target.nodeType === 1) state.scrolled.add(event.target);
    },
    { capture: true, passive: true },
  );
  observer.observe(document, {
    subtree: true,
    childList: true,
    attributes: true,
    characterData: true,
  });
  // Whether a running animation or transition can change what a snapshot reads: where an
  // element is or how big (its place, size, margins, a translation, a scale), or whether
  // it is seen (visibility, display, an opacity that reaches 0). What only repaints — a
  // colour, a shadow, a filter, an opacity between seen and seen — cannot, nor an
  // icon-sized element turning in place (an expander's chevron): its box stays where it
  // was. The one rule of motion for a settle (js/settle_quiet.js) and for an element
  // about to be acted on (js/element_motion.js).
  const placeOrSight =
    /^(transform|translate|rotate|scale|left|top|right|bottom|inset|width|height|minwidth|minheight|maxwidth|maxheight|margin|padding|border.*width|fontsize|lineheight|flex|grid|zoom|offset|opacity|visibility|display|all)/;
  const timing = new Set(["offset", "computedoffset", "easing", "composite"]);
  const rotation = /^(none|rotatez?\([^()]*\))$/;
  const ICON = 64;
  const turnsInPlace = (target, frames, property) => {
    if (!target || !(target.offsetWidth <= ICON && target.offsetHeight <= ICON)) return false;
    if (property === "rotate") return true;
    return frames.every((frame) => frame.transform === undefined ||
      rotation.test(String(frame.transform).trim().toLowerCase()));
  };
  state.movesOrShows = (animation) => {
    const effect = animation.effect;
    if (!effect || typeof effect.getKeyframes !== "function") return false;
    const frames = effect.getKeyframes();
    const properties = typeof animation.transitionProperty === "string"
      ? [animation.transitionProperty]
      : frames.flatMap((frame) => Object.keys(frame));
    for (const property of properties) {
      const p = String(property).replace(/-/g, "").toLowerCase();
      if (timing.has(p) || !placeOrSight.test(p)) continue;
      if (p === "opacity" && frames.every((frame) => !(Number(frame.opacity) <= 0))) continue;
      if ((p === "transform" || p === "rotate") && turnsInPlace(effect.target, frames, p)) continue;
      return true;
    }
    return false;
  };
  Object.defineProperty(globalThis, key, { value: state, enumerable: false });
  return true;
}
