// The main frame's origin and its localStorage and sessionStorage, as [key, value]
// pairs. The values go under `secretItems`, a key every recorder redacts (a tape keeps
// no saved value). An origin with no storage (about:blank, data:) reads as empty.
function storageRead() {
  const read = (name) => {
    try {
      const area = globalThis[name];
      const items = [];
      for (let i = 0; i < area.length; i++) {
        const key = area.key(i);
        items.push([key, area.getItem(key)]);
      }
      return items;
    } catch {
      return [];
    }
  };
  return {
    origin: location.origin,
    secretItems: { local: read("localStorage"), session: read("sessionStorage") },
  };
}
