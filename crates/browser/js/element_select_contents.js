// Selects everything in a text field or contenteditable so the next typed text
// replaces it. Focus must already be on the element.
function elementSelectContents() {
  if (typeof this.select === "function" && (this.tagName === "INPUT" || this.tagName === "TEXTAREA")) {
    try {
      this.select();
      return true;
    } catch (e) {
      // Some input types (email, number) do not support selection ranges; select() works
      // on them, but guard anyway.
    }
  }
  if (this.isContentEditable) {
    const range = document.createRange();
    range.selectNodeContents(this);
    const selection = window.getSelection();
    selection.removeAllRanges();
    selection.addRange(range);
    return true;
  }
  return false;
}
