// The page's content revision, counted by the change watcher in candor's world
// (js/change_watch.js): it changes when nodes are added or removed or text changes. Null
// in a document the watcher is not in.
function pageRevision() {
  const state = globalThis[Symbol.for("candor.settle")];
  return state ? state.revision : null;
}
