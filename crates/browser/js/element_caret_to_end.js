// Puts the caret at the end of a text field or contenteditable, so typing appends.
function elementCaretToEnd() {
  if ((this.tagName === "INPUT" || this.tagName === "TEXTAREA") && typeof this.setSelectionRange === "function") {
    try {
      const end = this.value.length;
      this.setSelectionRange(end, end);
      return true;
    } catch (e) {
      return false; // types without selection (email, number) keep their caret
    }
  }
  if (this.isContentEditable) {
    const range = document.createRange();
    range.selectNodeContents(this);
    range.collapse(false);
    const selection = window.getSelection();
    selection.removeAllRanges();
    selection.addRange(range);
    return true;
  }
  return false;
}
