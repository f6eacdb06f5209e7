// Proves the page can run script; returns 1.
function ping() {
  return 1;
}
