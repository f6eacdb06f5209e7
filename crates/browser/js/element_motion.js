// Whether a finite animation or transition (CSS or Web Animations) is running on the
// element or one of its ancestors, so that its box may still move or change. Infinite
// ones (spinners, pulsing buttons) never end, so waiting for them is pointless: they are
// not counted.
function elementMotion() {
  const doc = this.ownerDocument || document;
  const animations = typeof doc.getAnimations === "function" ? doc.getAnimations() : [];
  for (const animation of animations) {
    if (animation.playState !== "running" || !animation.effect) continue;
    const timing = animation.effect.getComputedTiming();
    if (timing.iterations === Infinity || timing.endTime === Infinity) continue;
    const target = animation.effect.target;
    if (target && (target === this || target.contains(this))) return true;
  }
  return false;
}
