// axsight's click-listener tracker: run in each new document before the page's
// own scripts (CDP's Page.addScriptToEvaluateOnNewDocument, BiDi's
// script.addPreloadScript). It notes every element that gets a click-like
// listener, so collect.js can list a plain div with a listener as clickable.
// It changes nothing the page can see but one non-enumerable property.
(() => {
  if (window.__axsightClicks) return;
  const clicks = new WeakSet();
  Object.defineProperty(window, '__axsightClicks', { value: clicks });
  const kinds = new Set(['click', 'dblclick', 'mousedown', 'mouseup', 'pointerdown',
    'pointerup', 'touchstart', 'touchend']);
  const add = EventTarget.prototype.addEventListener;
  EventTarget.prototype.addEventListener = function (type, listener, options) {
    if (kinds.has(type) && this instanceof Element) clicks.add(this);
    return add.call(this, type, listener, options);
  };
})();
