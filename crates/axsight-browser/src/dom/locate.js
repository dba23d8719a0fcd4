// Where element `id` (numbered by collect.js) is now, in CSS pixels of the top
// viewport, or null when it is gone. Elements in same-origin frames are found
// through the frame that holds them.
(id) => {
  const state = window.__axsight;
  const el = state && state.elements.get(id) && state.elements.get(id).deref();
  if (!el || !el.isConnected) return null;
  let r = el.getBoundingClientRect();
  let x = r.left, y = r.top;
  let win = el.ownerDocument.defaultView;
  while (win && win !== window && win.frameElement) {
    const frame = win.frameElement;
    const fr = frame.getBoundingClientRect();
    x += fr.left + frame.clientLeft;
    y += fr.top + frame.clientTop;
    win = frame.ownerDocument.defaultView;
  }
  return { x, y, width: r.width, height: r.height, dpr: window.devicePixelRatio };
}
