// Sets a checkbox, or checks a radio, that already shows `checked`, so that the page and
// its framework hear it all the same: the browser refills a form it brings back through
// history without any event, so a framework (React) may hold the other state and render
// it back at its next update. The element is set the other way through the prototype's
// own setter, then clicked — a click is the one event React takes a checkbox's change
// from — so the click lands on `checked` and the browser fires click, input and change;
// a page that cancels the click gets the property set and input, change. A restore does
// the same for every box it sets (checkpoint.js). Returns what the element holds after,
// or null for anything else (a radio is never clicked off; an ARIA switch has no
// property to set).
function elementSetChecked(checked) {
  const box = this.localName === "input" && (this.type === "checkbox" || (this.type === "radio" && checked));
  if (!box) return null;
  const setter = Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, "checked").set;
  setter.call(this, !checked);
  this.click();
  if (this.checked !== checked) {
    setter.call(this, checked);
    this.dispatchEvent(new Event("input", { bubbles: true, composed: true }));
    this.dispatchEvent(new Event("change", { bubbles: true }));
  }
  return this.checked;
}
