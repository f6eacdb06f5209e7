// Installed in every new document of a tab (Page.addScriptToEvaluateOnNewDocument), before
// the page's own scripts: reports each permission request the page makes through
// candor's binding and holds it until candor releases it to the browser, which answers by
// what the task's browser context grants (nothing while the agent is alone; during a
// hand-off, what the person chose). The binding is taken off the global object
// first, so the page cannot call it. Wrappers are Proxies, so they still read as native.
// It runs in the page's own world, not candor's, because what it wraps are the page's own
// functions; so what it sends is not taken on trust: candor takes which origin asked from
// the browser (the context that called the binding, see permission.rs), not from here.
// Everything the watcher uses after this script has run (JSON.stringify, String,
// Reflect.apply, Map's and Promise's methods) is taken now, before the page's scripts, so a
// page that replaces a built-in cannot make the watcher call its code nor let itself out.
// The report is an object without a prototype, so no `toJSON` the page adds is heard.
function watchPermissions() {
  const binding = "__candorPermissionRequest";
  const send = globalThis[binding];
  if (typeof send !== "function") return;
  delete globalThis[binding];
  const apply = Reflect.apply;
  const stringify = JSON.stringify;
  const toText = String;
  const create = Object.create;
  const NativePromise = Promise;
  const then = Promise.prototype.then;
  const mapGet = Map.prototype.get;
  const mapSet = Map.prototype.set;
  const mapDelete = Map.prototype.delete;
  // Requests wait here until candor lets them go on: at once while the agent is alone;
  // during a hand-off, once the person has chosen (permission.rs).
  const held = new Map();
  let next = 1;
  const release = (id) => {
    const go = apply(mapGet, held, [id]);
    apply(mapDelete, held, [id]);
    if (go) go();
  };
  Object.defineProperty(globalThis, Symbol.for("candor.permissions"), {
    value: Object.freeze({ release }),
    enumerable: false,
  });
  const report = (permission, id) => {
    try {
      const message = create(null);
      message.permission = permission;
      // `location` and its `origin` are unforgeable: no page script can redefine them.
      message.origin = toText(location.origin);
      message.id = id;
      apply(send, globalThis, [apply(stringify, JSON, [message])]);
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
        if (!permissions.length) return apply(target, self, args);
        const id = next++;
        const released = new NativePromise((resolve) => apply(mapSet, held, [id, resolve]));
        // Indexed: an array's iterator is the page's to replace.
        for (let i = 0; i < permissions.length; i += 1) report(permissions[i], returns ? id : 0);
        if (!returns) {
          apply(mapDelete, held, [id]);
          return apply(target, self, args);
        }
        const result = apply(then, released, [() => apply(target, self, args)]);
        // Callback APIs (getCurrentPosition) answer nothing themselves.
        return method === "getCurrentPosition" ? undefined : result;
      },
    });
  };
  const proto = (name) => globalThis[name] && globalThis[name].prototype;
  const media = (args) => {
    const constraints = args[0] || {};
    const asked = [];
    if (constraints.video) asked[asked.length] = "camera";
    if (constraints.audio) asked[asked.length] = "microphone";
    return asked;
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
