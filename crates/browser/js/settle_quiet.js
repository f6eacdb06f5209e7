// Waits until the page has stopped changing: two consecutive animation frames with no DOM
// mutation in the document or its same-origin frames and no running finite CSS/Web
// animation — or `budgetMs` passes. Changes count from `sinceMs` ago. Infinite animations
// (spinners) never hold it. `mode` "action" (after input): what was repeating before the
// action and still going at it is not waited for — the action cannot have caused it (a
// ticking clock, a marquee) —, and if one frame after the action nothing has changed
// and nothing animates, the page is quiet. `mode` "read" (before a snapshot): what has
// been changing for over a second is not waited for, and if nothing changed in the last
// `sinceMs` the page is quiet at once. A negative `sinceMs` (a watcher just installed,
// nothing known before) always watches two frames.
// Returns `{quiet, waitedMs, region}` (`region` names what was still changing), or
// `{unwatched: true}` when the document has no watcher (js/settle_watch.js) yet.
async function settleQuiet(budgetMs, sinceMs, mode) {
  const key = Symbol.for("candor.settle");
  if (!globalThis[key]) return { unwatched: true };
  const start = performance.now();
  const from = start - sinceMs;
  const docs = [document];
  for (const frame of document.querySelectorAll("iframe")) {
    try {
      if (frame.contentDocument) docs.push(frame.contentDocument);
    } catch (_) {
      // Cross-origin: not readable from here.
    }
  }
  const states = docs.map((doc) => doc.defaultView && doc.defaultView[key]).filter(Boolean);
  // Every recorded change in [lo, hi): [time, node, kind]. A frame's clock is its own;
  // same-origin frames share the agent's, closely enough for frames of 16 ms.
  const changes = (lo, hi) => {
    const out = [];
    for (const state of states) {
      const n = Math.min(state.count, state.times.length);
      for (let i = 0; i < n; i++) {
        const t = state.times[i];
        if (t >= lo && t < hi) out.push([t, state.nodes[i], state.kinds[i]]);
      }
    }
    return out;
  };
  // Changes the action (or the read) cannot be waiting on, as node → kinds. After an
  // action: what was repeating before it and still is. Before a read: what
  // has been changing for over a second and still is (a clock, a marquee) — a
  // transition ends sooner.
  const ignored = new Map();
  const ignore = (node, kind) => {
    if (!ignored.has(node)) ignored.set(node, new Set());
    ignored.get(node).add(kind);
  };
  if (mode === "action") {
    // Repeating before the action and still going at it: three or more changes in the
    // second before, the last no later than its usual interval (a finished fade is not
    // going on; a clock between ticks is).
    const times = new Map();
    for (const [t, node, kind] of changes(from - 1000, from)) {
      let kinds = times.get(node);
      if (!kinds) times.set(node, (kinds = new Map()));
      if (!kinds.has(kind)) kinds.set(kind, []);
      kinds.get(kind).push(t);
    }
    for (const [node, kinds] of times) {
      for (const [kind, list] of kinds) {
        const distinct = [...new Set(list.map(Math.round))].sort((a, b) => a - b);
        if (distinct.length < 3) continue;
        let gap = 0;
        for (let i = 1; i < distinct.length; i++) gap = Math.max(gap, distinct[i] - distinct[i - 1]);
        if (from - distinct[distinct.length - 1] <= gap * 1.5 + 20) ignore(node, kind);
      }
    }
  }
  // Both: what has been changing for over a second and still is, as of `now`.
  const longRunning = (now) => {
    const first = new Map();
    for (const [t, node, kind] of changes(now - 2000, now - 250)) {
      const k = first.get(node) || new Map();
      if (!k.has(kind)) k.set(kind, t);
      first.set(node, k);
    }
    for (const [, node, kind] of changes(now - 250, now)) {
      const began = first.get(node) && first.get(node).get(kind);
      if (began !== undefined && began <= now - 1000) ignore(node, kind);
    }
  };
  longRunning(start);
  const changedSince = (lo) =>
    changes(lo, Infinity)
      .filter(([, node, kind]) => !(ignored.get(node) && ignored.get(node).has(kind)))
      .map(([, node]) => node);
  const animating = () => {
    const out = [];
    for (const doc of docs) {
      if (typeof doc.getAnimations !== "function") continue;
      for (const animation of doc.getAnimations()) {
        if (animation.playState !== "running") continue;
        const timing = animation.effect && animation.effect.getComputedTiming();
        if (!timing || !Number.isFinite(timing.endTime)) continue;
        out.push(animation.effect.target || null);
      }
    }
    return out;
  };
  const label = (node) => {
    const el = node && node.nodeType === 1 ? node : node && node.parentElement;
    if (!el) return "the document";
    let text = el.tagName.toLowerCase();
    if (el.id) text += "#" + el.id;
    else if (typeof el.className === "string" && el.className.trim())
      text += "." + el.className.trim().split(/\s+/).slice(0, 2).join(".");
    return text;
  };
  const frame = () =>
    new Promise((resolve) => {
      // A hidden page renders no frames and gets ticks instead; a visible one's first
      // frames can be late, and a frame that did not come proves nothing.
      const timer = setTimeout(resolve, document.visibilityState === "hidden" ? 20 : 500);
      requestAnimationFrame(() => {
        clearTimeout(timer);
        resolve();
      });
    });
  // After an action, one frame first: what the action scheduled for the next frame has
  // then run. If nothing changed since and nothing animates, the page is quiet.
  if (mode === "action") await frame();
  if (sinceMs >= 0 && changedSince(from).length === 0 && animating().length === 0) {
    return { quiet: true, waitedMs: 0, region: null };
  }
  if (mode !== "action") await frame();
  let mark = performance.now();
  for (;;) {
    await frame();
    const now = performance.now();
    longRunning(now);
    const changed = changedSince(mark);
    const running = animating();
    if (changed.length === 0 && running.length === 0) {
      return { quiet: true, waitedMs: Math.max(1, Math.round(now - start)), region: null };
    }
    mark = now;
    if (now - start >= budgetMs) {
      const last = changed.length > 0 ? changed[changed.length - 1] : running[0];
      return { quiet: false, waitedMs: Math.round(now - start), region: label(last) };
    }
  }
}
