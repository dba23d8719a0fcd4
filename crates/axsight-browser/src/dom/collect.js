// axsight's DOM reader: run in the page with Runtime.evaluate. Returns what an
// agent can act on or read, with boxes in CSS pixels of the top viewport.
// Elements get numbers that stay theirs while they live (a WeakMap on the
// page), so the same button keeps its handle across reads. A number carries
// its document's random key, so no later document of the tab reuses it.
//
// What a user can click is found the way a browser-automation expert looks for
// it, not by tag alone: interactive roles, an onclick handler, a click listener
// (where a tracker ran before the page's scripts and left
// `window.__axsightClicks`), a tabindex of 0 or more, contenteditable, and a
// pointer cursor that starts at the element. A clickable element without a role of its own is a `button`.
// `presentation` and `none` elements get no role and no name, a container is
// never named after text that an element inside it is listed with, and text
// inside a listed control is its name, not an element of its own.
(budget) => {
  const state = window.__axsight || (window.__axsight = {
    ids: new WeakMap(), elements: new Map(), next: 1,
    document: Math.floor(Math.random() * 2 ** 32),
  });
  const idOf = (el) => {
    let id = state.ids.get(el);
    if (id === undefined) {
      id = state.document * 1e6 + state.next++;
      state.ids.set(el, id);
      state.elements.set(id, new WeakRef(el));
    }
    return id;
  };
  const ROLES = {
    A: 'link', BUTTON: 'button', SELECT: 'combobox', TEXTAREA: 'textbox',
    H1: 'heading', H2: 'heading', H3: 'heading', H4: 'heading', H5: 'heading',
    H6: 'heading', IMG: 'image', CANVAS: 'canvas', SUMMARY: 'button',
    LABEL: 'label', OPTION: 'option', P: 'text', LI: 'listitem', TD: 'cell', TH: 'header',
  };
  const INPUT_ROLES = {
    button: 'button', submit: 'button', reset: 'button', image: 'button',
    checkbox: 'checkbox', radio: 'radio', range: 'slider', number: 'spinbutton',
    search: 'searchbox', file: 'button', color: 'button',
  };
  const INTERACTIVE = new Set(['link', 'button', 'combobox', 'textbox', 'searchbox',
    'checkbox', 'radio', 'slider', 'spinbutton', 'tab', 'menuitem', 'option', 'switch',
    'listbox', 'menuitemcheckbox', 'menuitemradio', 'treeitem']);
  const listened = window.__axsightClicks || null;
  const roleOf = (el) => {
    const explicit = el.getAttribute('role');
    if (explicit) {
      const first = explicit.trim().split(/\s+/)[0];
      if (first === 'presentation' || first === 'none') return null;
      if (first) return first;
    }
    if (el.tagName === 'INPUT') return INPUT_ROLES[(el.type || 'text').toLowerCase()] || 'textbox';
    if (el.tagName === 'A' && !el.hasAttribute('href')) return null;
    if (el.isContentEditable && el.parentElement && !el.parentElement.isContentEditable) return 'textbox';
    return ROLES[el.tagName] || null;
  };
  const clean = (text) => (text || '').replace(/\s+/g, ' ').trim().slice(0, 120);
  const textOfIds = (root, ids) => ids.split(/\s+/).map((id) => {
    const node = root.getElementById ? root.getElementById(id) : null;
    return node ? node.textContent : '';
  }).join(' ');
  const nameOf = (el, role, root) => {
    const labelledBy = el.getAttribute('aria-labelledby');
    if (labelledBy) {
      const text = clean(textOfIds(root, labelledBy));
      if (text) return text;
    }
    const label = el.getAttribute('aria-label');
    if (label && label.trim()) return clean(label);
    if (el.labels && el.labels.length) {
      return clean(Array.from(el.labels).map((l) => l.textContent).join(' '));
    }
    if (el.tagName === 'IMG') return clean(el.alt);
    if (el.tagName === 'INPUT' && ['button', 'submit', 'reset'].includes(el.type)) {
      return clean(el.value || (el.type === 'submit' ? 'Submit' : ''));
    }
    if (['textbox', 'searchbox', 'combobox', 'slider', 'spinbutton'].includes(role)) {
      return clean(el.getAttribute('title') || '');
    }
    return clean(el.innerText || el.textContent || el.getAttribute('title') || '');
  };
  // Text of its own: a text node child that is not blank.
  const ownText = (el) => Array.from(el.childNodes).some(
    (n) => n.nodeType === Node.TEXT_NODE && n.textContent.trim());
  const ownTextOf = (el) => clean(Array.from(el.childNodes)
    .filter((n) => n.nodeType === Node.TEXT_NODE).map((n) => n.textContent).join(' '));
  // Whether a user can click it though its tag and role do not say so.
  const clickable = (el, style) => {
    if (el.hasAttribute('onclick') || typeof el.onclick === 'function') return true;
    if (listened && listened.has(el)) return true;
    if (el.hasAttribute('tabindex') && el.tabIndex >= 0) return true;
    if (style.cursor === 'pointer') {
      const parent = el.parentElement;
      return !parent || getComputedStyle(parent).cursor !== 'pointer';
    }
    return false;
  };
  const hasInteractiveInside = (el) => el.querySelector(
    'a[href],button,input,select,textarea,[role=button],[role=link],[onclick],[tabindex]') !== null;
  const out = [];
  // Controls listed so far: text inside one is its name, not an element of its own.
  const controls = new Set();
  const insideControl = (el) => {
    for (let up = el.parentElement; up; up = up.parentElement) {
      if (controls.has(up)) return true;
    }
    return false;
  };
  let more = 0;
  const viewWidth = window.innerWidth;
  const viewHeight = window.innerHeight;
  const walk = (root, dx, dy, frame) => {
    const all = root.querySelectorAll('*');
    for (const el of all) {
      if (el.shadowRoot) walk(el.shadowRoot, dx, dy, frame);
      if (el.tagName === 'IFRAME' || el.tagName === 'FRAME') {
        let doc = null;
        try { doc = el.contentDocument; } catch (e) { doc = null; }
        if (doc) {
          const r = el.getBoundingClientRect();
          walk(doc, dx + r.left + el.clientLeft, dy + r.top + el.clientTop, frame + 1);
        }
        continue;
      }
      if (el.tagName === 'SCRIPT' || el.tagName === 'STYLE' || el.tagName === 'NOSCRIPT'
          || el.tagName === 'TITLE' || el.tagName === 'HTML' || el.tagName === 'BODY') continue;
      const r = el.getBoundingClientRect();
      if (r.width < 1 || r.height < 1) continue;
      const style = getComputedStyle(el);
      if (style.visibility === 'hidden' || style.display === 'none' || style.opacity === '0') continue;
      let role = roleOf(el);
      const presentation = !role && el.hasAttribute('role');
      let interactive = role && INTERACTIVE.has(role);
      const clicks = !interactive && !presentation && clickable(el, style);
      if (clicks && !role && !hasInteractiveInside(el)) {
        role = 'button';
        interactive = true;
      }
      const readable = !interactive && !presentation && (role || ownText(el) || clicks)
        && !insideControl(el);
      if (!interactive && !readable) continue;
      const x = r.left + dx, y = r.top + dy;
      if (x + r.width <= 0 || y + r.height <= 0 || x >= viewWidth || y >= viewHeight) {
        more++;
        continue;
      }
      if (out.length >= budget) { more++; continue; }
      const secret = el.tagName === 'INPUT' && el.type === 'password';
      // A container that is not itself a control is named by its own text only:
      // what its children say, they say themselves.
      const name = interactive || (role && role !== 'text') ? nameOf(el, role, root) : ownTextOf(el);
      const item = {
        id: idOf(el), role: role || 'text', name,
        x, y, width: r.width, height: r.height, frame,
      };
      if (clicks) item.clickable = true;
      if (!item.name && !interactive) continue;
      if (interactive) controls.add(el);
      if (secret) item.secret = true;
      if (!secret && (el.tagName === 'INPUT' || el.tagName === 'TEXTAREA')
          && !['button', 'submit', 'reset', 'image', 'checkbox', 'radio', 'file'].includes(el.type)) {
        item.value = el.value.slice(0, 200);
      }
      if (el.tagName === 'SELECT' && el.selectedOptions.length) {
        item.value = clean(el.selectedOptions[0].textContent);
      }
      if (el.placeholder) item.placeholder = clean(el.placeholder);
      if (el.type === 'checkbox' || el.type === 'radio') item.checked = !!el.checked;
      if (el.disabled) item.disabled = true;
      out.push(item);
    }
  };
  walk(document, 0, 0, 0);
  return {
    elements: out, more, dpr: window.devicePixelRatio,
    viewport: [viewWidth, viewHeight], url: location.href, title: document.title,
  };
}
