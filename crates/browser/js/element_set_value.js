// Sets the value of an input whose value has its own format (date, time, colour, range,
// number…) through the native setter — so frameworks that track the value see the
// change —, as the browser's own picker would, and fires input and change. The value
// arrives already in the input's value format (keyboard/typed_value.rs).
function elementSetValue(value) {
  const proto = this.tagName === "TEXTAREA" ? HTMLTextAreaElement.prototype : HTMLInputElement.prototype;
  const setter = Object.getOwnPropertyDescriptor(proto, "value").set;
  setter.call(this, value);
  this.dispatchEvent(new Event("input", { bubbles: true, composed: true }));
  this.dispatchEvent(new Event("change", { bubbles: true }));
  return this.value;
}
