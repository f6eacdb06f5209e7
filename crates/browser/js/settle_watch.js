// The half of the settle watcher that must see the page's own functions, so it runs in
// the page's world: installed in every new document of a tab
// (Page.addScriptToEvaluateOnNewDocument), before the page's own scripts, and called
// directly on a document that predates it. It wraps the page's requestAnimationFrame,
// setTimeout and setInterval (and the clears) to note when the page last scheduled work
// for later and which timers it set while handling input, and answers candor's world
// (js/settle_quiet.js) about them through a synchronous event on the window. What the
// document changes is watched from candor's world (js/change_watch.js), where the page
// cannot reach it.
// Everything it calls later it takes now, before any page script can redefine it, and
// its state lives in its closure, under no global. A page can still ask or answer the
// question itself: that only changes how long a settle waits, which a page decides
// anyway (it can change itself whenever it likes). It changes nothing the page can see,
// and runs only when the page calls a timer or gets input. Wrappers are Proxies, so they
// still read as native.
function watchSettle() {
  const key = Symbol.for("candor.settle.timers");
  if (globalThis[key]) return false;
  Object.defineProperty(globalThis, key, { value: true, enumerable: false });
  const apply = Reflect.apply;
  const now = Performance.prototype.now;
  const clock = performance;
  const mapSet = Map.prototype.set;
  const mapDelete = Map.prototype.delete;
  const mapForEach = Map.prototype.forEach;
  const setTimeout = globalThis.setTimeout;
  const addEventListener = EventTarget.prototype.addEventListener;
  const detailOf = Object.getOwnPropertyDescriptor(CustomEvent.prototype, "detail").get;
  const preventDefault = Event.prototype.preventDefault;
  const toNumber = Number;
  const isFinite = Number.isFinite;
  const ProxyOf = Proxy;
  const listen = (type, listener, options) => apply(addEventListener, globalThis, [type, listener, options]);
  const time = () => apply(now, clock, []);

  // When the page last scheduled work for later (a frame callback, a timer): after an
  // action that scheduled nothing, nothing more can follow from it but what is already
  // visible.
  let scheduledAt = -Infinity;
  // Timers the page set while handling input (a search debounced 300 ms after the last
  // keystroke, a tooltip shown after a pause): id -> [set at, due]. A settle after an
  // action waits for those the action set (js/settle_quiet.js); a timer set from a timer
  // or a frame callback (a countdown re-arming itself) is not one. Each entry goes when
  // its timer runs or is cleared.
  const inputTimers = new Map();
  // True from an input event's dispatch until the next task: what the page's handlers
  // set meanwhile, they set while handling it. A capture listener on the window sees an
  // event before the page's own listeners, composed events from inside shadow roots
  // included (window.event would not say: it is unset for listeners in shadow trees).
  // Input only: not scroll or pointer moves, which a page's own motion also fires (a
  // debounce re-armed on every one would hold every settle to its budget).
  let handlingInput = false;
  const handled = () => {
    handlingInput = false;
  };
  const onInput = () => {
    if (handlingInput) return;
    handlingInput = true;
    apply(setTimeout, globalThis, [handled, 0]);
  };
  const inputs = [
    "keydown", "keypress", "keyup", "beforeinput", "input", "change", "compositionend",
    "pointerdown", "pointerup", "mousedown", "mouseup", "click", "dblclick", "contextmenu",
    "pointerover", "mouseover", "touchstart", "touchend", "wheel", "focus", "blur",
    "focusin", "focusout", "paste", "cut", "drop", "submit",
  ];
  for (let i = 0; i < inputs.length; i++) listen(inputs[i], onInput, { capture: true, passive: true });

  const wrap = (name, handler) => {
    const original = globalThis[name];
    if (typeof original !== "function") return;
    globalThis[name] = new ProxyOf(original, { apply: handler });
  };
  for (const name of ["requestAnimationFrame", "setInterval"]) {
    wrap(name, (target, self, args) => {
      scheduledAt = time();
      return apply(target, self, args);
    });
  }
  wrap("setTimeout", (target, self, args) => {
    const at = time();
    scheduledAt = at;
    const callback = args[0];
    if (!handlingInput || typeof callback !== "function") return apply(target, self, args);
    let id;
    const run = function () {
      apply(mapDelete, inputTimers, [id]);
      return apply(callback, this, arguments);
    };
    const passed = [run];
    for (let i = 1; i < args.length; i++) passed[i] = args[i];
    id = apply(target, self, passed);
    const delay = toNumber(args[1]);
    apply(mapSet, inputTimers, [id, [at, at + (isFinite(delay) && delay > 0 ? delay : 0)]]);
    return id;
  });
  for (const name of ["clearTimeout", "clearInterval"]) {
    wrap(name, (target, self, args) => {
      apply(mapDelete, inputTimers, [args[0]]);
      return apply(target, self, args);
    });
  }

  // candor's world asks, with `detail` ["scheduled", from] or ["timer", from, budgetMs]:
  // whether the page scheduled anything since `from`, or set while handling input since
  // `from` a timer due within the budget that has not run. Yes is the event cancelled.
  listen(
    "candor-settle-question",
    (event) => {
      const question = apply(detailOf, event, []);
      if (!question) return;
      const from = question[1];
      let yes = false;
      if (question[0] === "scheduled") {
        yes = scheduledAt >= from;
      } else if (question[0] === "timer") {
        const budget = question[2];
        apply(mapForEach, inputTimers, [
          (timer) => {
            if (timer[0] >= from && timer[1] - timer[0] <= budget) yes = true;
          },
        ]);
      }
      if (yes) apply(preventDefault, event, []);
    },
    { capture: true },
  );
  return true;
}
