// Waits until the page has stopped changing: two consecutive animation frames with no DOM
// mutation in the document or its same-origin frames and no running finite CSS/Web
// animation that moves, resizes or hides something — or `budgetMs` passes. Changes count from `sinceMs` ago. Infinite animations
// (spinners) and perpetual changes (see below) never hold it. `mode` "action" (after
// input): if one frame after the action nothing has changed and nothing animates, the
// page is quiet; a timer the action set within the budget is waited for. `mode` "read"
// (before a snapshot): if nothing changed in the last `sinceMs` (nor since the document
// finished loading, if that is later) the page is quiet at once. A negative `sinceMs` (a watcher just installed, nothing known before) always
// watches two frames. A verdict of quiet is remembered in the watcher's state
// (`quietAt`, `perpetual`) for the next call, and an action's span (`lastAction`).
// Returns `{quiet, waitedMs, region, unchanged}` (`region` names what was still changing:
// motion the command began is named even when it is not waited for; `unchanged`: quiet,
// and nothing that counts changed or animated from this call's start to its verdict, so a
// read the renderer ran right after the call began shows the page as it settled), or
// `{unwatched: true}` when the document has no watcher (js/change_watch.js) yet.
// Runs in candor's world, beside the change watcher; what the page scheduled it asks the
// page's world (js/settle_watch.js), and its own frames and timers are not the page's.
async function settleQuiet(budgetMs, sinceMs, mode) {
  const key = Symbol.for("candor.settle");
  if (!globalThis[key]) return { unwatched: true };
  const start = performance.now();
  // A read does not wait for the document's own making: what the parser and the page's
  // scripts changed before its load event ended is over once the document has loaded.
  const navigation = performance.getEntriesByType("navigation")[0];
  const loadedAt = mode === "read" && document.readyState === "complete" && navigation &&
    navigation.loadEventEnd > 0 ? navigation.loadEventEnd : -Infinity;
  const from = Math.max(start - sinceMs, loadedAt);
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
  // Perpetual changes are not waited for: a node+kind that changes on without a pause
  // (no gap over 300 ms) — a ticking clock, a marquee. It counts as perpetual (unless an
  // action began it: see `span` below) once it has run on for a second since the page
  // was last found quiet, or, after an action, when it was already repeating (three
  // changes or more) since then and still is at the action (the action cannot have
  // caused it), or when an earlier verdict found it perpetual and it has not paused
  // since. A transition ends, and what ran before the page was last found quiet (a
  // calendar that faded in) is over: its node's next change (the calendar fading out) is
  // news.
  const self = globalThis[key];
  const quietAt = self.quietAt || -Infinity;
  if (!self.perpetual) self.perpetual = new Map(); // node -> Set(kind)
  const GAP = 300;
  // The command's own motion: a node+kind whose current run of changes (the watcher's
  // `runs`) began after the action began. An action never takes it for perpetual: a
  // panel opening for 3 s is waited for up to the budget and named at it. A read takes
  // as the command's what the document's last action began before its verdict
  // (`lastAction`): it does not wait for it once it has run on for a second, but names
  // it while it runs on. What was already going before (a marquee since the load) is
  // left unnamed.
  const span =
    mode === "action" ? (sinceMs >= 0 ? [from, Infinity] : null) : self.lastAction || null;
  const runOf = (node, kind) => {
    for (const state of states) {
      const runs = state.runs && state.runs.get(node);
      if (runs) return runs.get(kind) || null;
    }
    return null;
  };
  const commands = (node, kind) => {
    if (!span) return false;
    const run = runOf(node, kind);
    return !!run && run[0] >= span[0] && run[0] <= span[1];
  };
  const series = (lo, hi) => {
    const by = new Map(); // node -> Map(kind -> sorted times)
    for (const [t, node, kind] of changes(lo, hi)) {
      let kinds = by.get(node);
      if (!kinds) by.set(node, (kinds = new Map()));
      if (!kinds.has(kind)) kinds.set(kind, []);
      kinds.get(kind).push(t);
    }
    for (const kinds of by.values()) for (const list of kinds.values()) list.sort((a, b) => a - b);
    return by;
  };
  // Whether `times` run on without a pause from `lo` up to `hi`.
  const runsOn = (times, lo, hi) => {
    if (times.length < 3 || times[0] - lo > GAP || hi - times[times.length - 1] > GAP) return false;
    for (let i = 1; i < times.length; i++) if (times[i] - times[i - 1] > GAP) return false;
    return true;
  };
  const ignored = new Map();
  const ignore = (node, kind) => {
    if (!ignored.has(node)) ignored.set(node, new Set());
    ignored.get(node).add(kind);
  };
  const isIgnored = (node, kind) => ignored.has(node) && ignored.get(node).has(kind);
  const judge = (now) => {
    const lo = Math.max(now - 2000, quietAt);
    for (const [node, kinds] of series(lo, now)) {
      for (const [kind, times] of kinds) {
        if (mode === "action" && commands(node, kind)) continue;
        const known = self.perpetual.has(node) && self.perpetual.get(node).has(kind);
        const longRunning = times[0] <= now - 1000 && runsOn(times, times[0], now);
        const knownGoing = known && runsOn(times, lo, now);
        if (longRunning || knownGoing) ignore(node, kind);
      }
    }
  };
  if (mode === "action") {
    // Repeating before the action and still going at it.
    for (const [node, kinds] of series(Math.max(from - 1000, quietAt), from)) {
      for (const [kind, times] of kinds) {
        if (runsOn(times, times[0], from)) ignore(node, kind);
      }
    }
  }
  judge(start);
  // A verdict of quiet remembers what it did not wait for.
  const remember = () => {
    self.perpetual = new Map();
    for (const [node, kinds] of ignored) self.perpetual.set(node, new Set(kinds));
  };
  const changedSince = (lo) =>
    changes(lo, Infinity)
      .filter(([, node, kind]) => !isIgnored(node, kind))
      .map(([, node]) => node);
  // The command's own motion a read does not wait for (it has run on for a second)
  // that still runs on: what a read names.
  const commandsGoing = (now) => {
    const out = [];
    for (const [node, kinds] of ignored) {
      for (const kind of kinds) {
        const run = commands(node, kind) && runOf(node, kind);
        if (run && now - run[1] <= GAP) out.push(node);
      }
    }
    return out;
  };
  // The command's own motion since `lo`.
  const commandsSince = (lo) =>
    changes(lo, Infinity)
      .filter(([, node, kind]) => commands(node, kind))
      .map(([, node]) => node);
  // The node of the command's own motion that changed last since `lo`, if any.
  const lastCommand = (lo) => {
    let last = null;
    let at = -Infinity;
    for (const [t, node, kind] of changes(lo, Infinity)) {
      if (t >= at && commands(node, kind)) [last, at] = [node, t];
    }
    return last;
  };
  // Asks the page's world of `doc` about its timers (js/settle_watch.js): a synchronous
  // event its watcher cancels to say yes. No watcher there, no yes.
  const ask = (doc, question) => {
    const view = doc.defaultView;
    if (!view) return false;
    return !view.dispatchEvent(
      new CustomEvent("candor-settle-question", { detail: question, cancelable: true }),
    );
  };
  // A timer the action set while handling its input (a search debounced after the last
  // keystroke), due within the budget and not yet run: the page is not quiet before it
  // has run. Timers set before the action, or for longer than the budget, are not.
  const timerPending = () => {
    if (mode !== "action" || sinceMs < 0) return false;
    return docs.some((doc) => ask(doc, ["timer", from, budgetMs]));
  };
  // Finite animations that can change what a snapshot reads (the watcher's rule, see
  // js/change_watch.js): a colour fading or a chevron turning is not waited for.
  const animating = () => {
    const out = [];
    for (const doc of docs) {
      if (typeof doc.getAnimations !== "function") continue;
      for (const animation of doc.getAnimations()) {
        if (animation.playState !== "running") continue;
        const timing = animation.effect && animation.effect.getComputedTiming();
        if (!timing || !Number.isFinite(timing.endTime)) continue;
        if (!self.movesOrShows(animation)) continue;
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
  // candor's own waits use candor's world's functions, which the page's watcher does not
  // see, so they are not counted as work the page scheduled.
  // One animation frame, or 500 ms without one: whether it came. A hidden page renders
  // no frames and gets ticks instead; a visible one's first frames can be late.
  const hidden = document.visibilityState === "hidden";
  const frame = () =>
    new Promise((resolve) => {
      const timer = setTimeout(() => resolve(hidden), hidden ? 20 : 500);
      requestAnimationFrame(() => {
        clearTimeout(timer);
        resolve(true);
      });
    });
  // Ends the wait. An action's span (its start to its verdict) is kept for the reads
  // after it. Quiet by what is waited for, the page is still not quiet while motion the
  // command began changes on.
  const finish = (verdict) => {
    if (mode === "action" && span) self.lastAction = [from, performance.now()];
    return verdict;
  };
  // Whether nothing animated at this call's start (set below, before its first wait).
  let stillAtStart = false;
  const settled = (lo, now, waitedMs) => {
    const named = [...commandsGoing(now), ...commandsSince(lo)];
    if (named.length > 0) {
      return finish({ quiet: false, waitedMs, region: label(named[named.length - 1]) });
    }
    self.quietAt = now;
    remember();
    const unchanged = stillAtStart && changedSince(start).length === 0;
    return finish({ quiet: true, waitedMs, region: null, unchanged });
  };
  // After an action that scheduled nothing for later (no frame callback, no timer since
  // it began) and with no finite animation running, what it changed is all there will
  // be: the page is quiet at once. Otherwise one frame first: what the action scheduled
  // for the next frame has then run; if nothing changed since and nothing animates, the
  // page is quiet.
  stillAtStart = animating().length === 0;
  const scheduledSince = mode === "action" && ask(document, ["scheduled", from]);
  if (mode === "action" && sinceMs >= 0 && !scheduledSince && animating().length === 0) {
    return settled(Infinity, performance.now(), 0);
  }
  if (mode === "action") await frame();
  if (sinceMs >= 0 && !scheduledSince && changedSince(from).length === 0 && animating().length === 0) {
    return settled(from, performance.now(), 0);
  }
  if (mode !== "action") await frame();
  let mark = performance.now();
  for (;;) {
    const came = await frame();
    const now = performance.now();
    judge(now);
    const changed = changedSince(mark);
    const running = animating();
    const waitedMs = Math.max(1, Math.round(now - start));
    // A frame that did not come (a starved renderer) does not show the command's own
    // motion, still going at the last frame, to have stopped.
    const stalled = !came && commandsSince(mark - GAP).length > 0;
    if (changed.length === 0 && running.length === 0 && !timerPending() && !stalled) {
      return settled(mark, now, waitedMs);
    }
    if (now - start >= budgetMs) {
      const command = commandsGoing(now)[0] || lastCommand(Math.min(from, start));
      const region = command
        ? label(command)
        : changed.length > 0
          ? label(changed[changed.length - 1])
          : running.length > 0
            ? label(running[0])
            : timerPending()
              ? "a timer the action set"
              : label(null);
      return finish({ quiet: false, waitedMs, region });
    }
    mark = now;
  }
}
