// Sets [key, value] pairs in localStorage and sessionStorage, only when the document is
// of `want.origin` (otherwise nothing is written). The values come under `secretItems`,
// a key every recorder redacts. Answers the origin and how many of each were set.
function storageWrite(want) {
  if (location.origin !== want.origin) {
    return { origin: location.origin, local: 0, session: 0 };
  }
  const write = (name, items) => {
    const area = globalThis[name];
    for (const [key, value] of items) area.setItem(key, value);
    return items.length;
  };
  return {
    origin: location.origin,
    local: write("localStorage", want.secretItems.local),
    session: write("sessionStorage", want.secretItems.session),
  };
}
