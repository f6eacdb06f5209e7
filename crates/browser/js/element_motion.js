// Whether a finite animation or transition (CSS or Web Animations) that moves, resizes
// or fades something is running on the element or one of its ancestors, so that its box
// or its visibility may still change. A colour transition changes neither; infinite
// animations (spinners, pulsing buttons) never end, so waiting for them is pointless:
// neither is counted.
function elementMotion() {
  const doc = this.ownerDocument || document;
  const animations = typeof doc.getAnimations === "function" ? doc.getAnimations() : [];
  const changesPlaceOrSight = (property) => {
    const p = String(property).replace(/-/g, "").toLowerCase();
    return /^(transform|translate|rotate|scale|left|top|right|bottom|inset|width|height|minwidth|minheight|maxwidth|maxheight|margin|padding|border.*width|fontsize|lineheight|flex|grid|zoom|offset|opacity|visibility|display|all)/.test(p);
  };
  for (const animation of animations) {
    if (animation.playState !== "running" || !animation.effect) continue;
    const timing = animation.effect.getComputedTiming();
    if (timing.iterations === Infinity || timing.endTime === Infinity) continue;
    const target = animation.effect.target;
    if (!target || !(target === this || target.contains(this))) continue;
    const properties = typeof animation.transitionProperty === "string"
      ? [animation.transitionProperty]
      : animation.effect.getKeyframes().flatMap((frame) => Object.keys(frame));
    const ignored = new Set(["offset", "computedOffset", "easing", "composite"]);
    if (properties.some((p) => !ignored.has(p) && changesPlaceOrSight(p))) return true;
  }
  return false;
}
