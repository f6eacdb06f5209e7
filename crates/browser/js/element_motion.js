// Whether a finite animation or transition (CSS or Web Animations) that moves, resizes
// or hides something is running on the element or one of its ancestors, so that its box
// or its visibility may still change. A colour transition changes neither, nor an icon
// turning in place; infinite
// animations (spinners, pulsing buttons) never end, so waiting for them is pointless:
// neither is counted.
function elementMotion() {
  const doc = this.ownerDocument || document;
  const animations = typeof doc.getAnimations === "function" ? doc.getAnimations() : [];
  // What counts as motion is the change watcher's rule (js/change_watch.js); in a
  // document it does not watch yet, every finite animation counts.
  const watcher = globalThis[Symbol.for("candor.settle")];
  const moves = watcher && typeof watcher.movesOrShows === "function"
    ? watcher.movesOrShows
    : () => true;
  for (const animation of animations) {
    if (animation.playState !== "running" || !animation.effect) continue;
    const timing = animation.effect.getComputedTiming();
    if (timing.iterations === Infinity || timing.endTime === Infinity) continue;
    const target = animation.effect.target;
    if (!target || !(target === this || target.contains(this))) continue;
    if (moves(animation)) return true;
  }
  return false;
}
