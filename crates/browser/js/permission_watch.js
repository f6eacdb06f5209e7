// Installed in every new document of a tab (Page.addScriptToEvaluateOnNewDocument), before
// the page's own scripts: reports each permission request the page makes through
// candor's binding, then lets the request go on to the browser, which denies it (a task's
// browser context grants no permission). The binding is taken off the global object
// first, so the page cannot call it. Wrappers are Proxies, so they still read as native.
function watchPermissions() {
  const binding = "__candorPermissionRequest";
  const send = globalThis[binding];
  if (typeof send !== "function") return;
  delete globalThis[binding];
  const report = (permission) => {
    try {
      send(JSON.stringify({ permission, origin: String(location.origin) }));
    } catch (_) {
      // Reporting must never break the page.
    }
  };
  const wrap = (owner, method, permissionsOf) => {
    if (!owner || typeof owner[method] !== "function") return;
    owner[method] = new Proxy(owner[method], {
      apply(target, self, args) {
        for (const permission of permissionsOf(args)) report(permission);
        return Reflect.apply(target, self, args);
      },
    });
  };
  const proto = (name) => globalThis[name] && globalThis[name].prototype;
  const media = (args) => {
    const constraints = args[0] || {};
    return [constraints.video && "camera", constraints.audio && "microphone"].filter(Boolean);
  };
  wrap(proto("Geolocation"), "getCurrentPosition", () => ["geolocation"]);
  wrap(proto("Geolocation"), "watchPosition", () => ["geolocation"]);
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
