// What a page shows, as one string, and how long nothing in it has changed (ms).
// Installs, once per document (the page's and each same-origin frame's), a
// counter of the changes that move boxes without an accessibility event: DOM
// mutations, scrolling, resizing (a zoom resizes the layout viewport),
// visibility (a tab swap), input, animations. A page that is animating or holds
// a frame it cannot see into (cross-origin, a plug-in) is never quiet.
(() => {
  const key = Symbol.for("axsight.changes");
  let seen = window[key];
  if (!seen) {
    seen = { count: 0, last: performance.now() };
    Object.defineProperty(window, key, { value: seen });
  }
  const bump = () => {
    seen.count += 1;
    seen.last = performance.now();
  };
  const kinds = ["scroll", "resize", "visibilitychange", "input", "change", "toggle", "load",
    "animationstart", "animationend", "transitionrun", "transitionend", "fullscreenchange"];
  let blind = false;
  let running = false;
  const watch = (win) => {
    let doc;
    try {
      doc = win.document;
    } catch (_) {
      blind = true;
      return;
    }
    if (!doc) {
      blind = true;
      return;
    }
    if (!doc[key]) {
      Object.defineProperty(doc, key, { value: true });
      new win.MutationObserver(bump).observe(doc, {
        subtree: true, childList: true, attributes: true, characterData: true,
      });
      for (const kind of kinds) {
        win.addEventListener(kind, bump, { capture: true, passive: true });
      }
      if (win.visualViewport) {
        win.visualViewport.addEventListener("resize", bump);
        win.visualViewport.addEventListener("scroll", bump);
      }
      bump();
    }
    if (typeof doc.getAnimations === "function"
        && doc.getAnimations().some((a) => a.playState === "running")) {
      running = true;
    }
    if (doc.querySelector("embed, object") !== null) blind = true;
    for (const frame of doc.querySelectorAll("iframe, frame")) {
      if (frame.contentWindow) watch(frame.contentWindow);
      else blind = true;
    }
  };
  watch(window);
  const v = window.visualViewport;
  const mark = [location.href, performance.timeOrigin, document.visibilityState, seen.count,
    innerWidth, innerHeight, outerWidth, outerHeight, screenX, screenY, devicePixelRatio,
    v ? [v.scale, v.offsetLeft, v.offsetTop, v.width, v.height].join(",") : "",
    scrollX, scrollY].join("|");
  const quiet = running || blind ? 0 : performance.now() - seen.last;
  return { mark, quiet };
})()
