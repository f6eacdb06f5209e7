// Installed in every new document of a tab (Page.addScriptToEvaluateOnNewDocument), before
// the page's own scripts: reports each permission request the page makes through
// candor's binding and holds it until candor releases it to the browser, which answers by
// what the task's browser context grants (nothing while the agent is alone; during a
// hand-off, what the person chose). The binding is taken off the global object
// first, so the page cannot call it. Wrappers are Proxies, so they still read as native.
// It runs in the page's own world, not candor's, because what it wraps are the page's own
// functions; so what it sends is not taken on trust: candor takes which origin asked from
// the browser (the context that called the binding, see permission.rs), not from here.
function watchPermissions() {
  const binding = "__candorPermissionRequest";
  const send = globalThis[binding];
  if (typeof send !== "function") return;
  delete globalThis[binding];
  // Requests wait here until candor lets them go on: at once while the agent is alone;
  // during a hand-off, once the person has chosen (permission.rs).
  const held = new Map();
  let next = 1;
  Object.defineProperty(globalThis, Symbol.for("candor.permissions"), {
    value: Object.freeze({
      release(id) {
        const go = held.get(id);
        held.delete(id);
        if (go) go();
      },
    }),
    enumerable: false,
  });
  const report = (permission, id) => {
    try {
      send(JSON.stringify({ permission, origin: String(location.origin), id }));
    } catch (_) {
      // Reporting must never break the page.
    }
  };
  // `returns`: the API answers with a promise, so the request can wait for candor; one
  // that answers at once (watchPosition's id) is reported and goes on.
  const wrap = (owner, method, permissionsOf, returns = true) => {
    if (!owner || typeof owner[method] !== "function") return;
    owner[method] = new Proxy(owner[method], {
      apply(target, self, args) {
        const permissions = permissionsOf(args);
        if (!permissions.length) return Reflect.apply(target, self, args);
        const id = next++;
        const released = new Promise((resolve) => held.set(id, resolve));
        for (const permission of permissions) report(permission, returns ? id : 0);
        if (!returns) {
          held.delete(id);
          return Reflect.apply(target, self, args);
        }
        const result = released.then(() => Reflect.apply(target, self, args));
        // Callback APIs (getCurrentPosition) answer nothing themselves.
        return method === "getCurrentPosition" ? undefined : result;
      },
    });
  };
  const proto = (name) => globalThis[name] && globalThis[name].prototype;
  const media = (args) => {
    const constraints = args[0] || {};
    return [constraints.video && "camera", constraints.audio && "microphone"].filter(Boolean);
  };
  wrap(proto("Geolocation"), "getCurrentPosition", () => ["geolocation"]);
  wrap(proto("Geolocation"), "watchPosition", () => ["geolocation"], false);
  wrap(globalThis.Notification, "requestPermission", () => ["notifications"]);
  wrap(proto("PushManager"), "subscribe", () => ["notifications"]);
  wrap(proto("MediaDevices"), "getUserMedia", media);
  wrap(proto("MediaDevices"), "getDisplayMedia", () => ["display-capture"]);
  wrap(proto("Navigator"), "requestMIDIAccess", () => ["midi"]);
  wrap(proto("Clipboard"), "read", () => ["clipboard-read"]);
  wrap(proto("Clipboard"), "readText", () => ["clipboard-read"]);
  wrap(globalThis.IdleDetector, "requestPermission", () => ["idle-detection"]);
  wrap(globalThis, "getScreenDetails", () => ["window-management"]);
  wrap(globalThis, "queryLocalFonts", () => ["local-fonts"]);
  wrap(proto("Document"), "requestStorageAccess", () => ["storage-access"]);
}
