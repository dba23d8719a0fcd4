// axsight's KWin script library (KWin 5.27 and 6): the windows, as axsight's
// GNOME Shell extension lists them, and the window operations. Each question
// axsight asks is this library and a line that calls one of these and answers.
// Nothing else: no input, no pixels.

function axsightAll() {
    return typeof workspace.windowList === 'function'
        ? workspace.windowList() : workspace.clientList();
}

function axsightActive() {
    return workspace.activeWindow !== undefined ? workspace.activeWindow : workspace.activeClient;
}

// A number from the window's UUID: 52 bits, which a JavaScript number holds exactly.
function axsightId(w) {
    return parseInt(String(w.internalId).replace(/[{}-]/g, '').slice(0, 13), 16);
}

function axsightRect(r) {
    return [Math.round(r.x), Math.round(r.y), Math.round(r.width), Math.round(r.height)];
}

function axsightOnCurrentDesktop(w) {
    if (w.onAllDesktops)
        return true;
    if (w.desktops !== undefined) // KWin 6: desktop objects
        return Array.from(w.desktops).some(d => d === workspace.currentDesktop ||
            (d && workspace.currentDesktop && d.id === workspace.currentDesktop.id));
    return w.desktop === workspace.currentDesktop;
}

function axsightMaximized(w) {
    const area = axsightRect(workspace.clientArea(KWin.MaximizeArea, w));
    const frame = axsightRect(w.frameGeometry);
    return frame.every((v, i) => v === area[i]);
}

function axsightToplevels() {
    return axsightAll()
        .filter(w => !w.deleted && !w.desktopWindow && !w.dock && !w.splash &&
            !w.notification && !w.criticalNotification && !w.onScreenDisplay &&
            !w.popupWindow && !w.dropdownMenu && !w.popupMenu && !w.tooltip)
        .sort((a, b) => a.stackingOrder - b.stackingOrder);
}

// Bottom first, as KWin stacks them.
function axsightList() {
    const active = axsightActive();
    return axsightToplevels().map(w => ({
        id: axsightId(w),
        uuid: String(w.internalId),
        pid: w.pid,
        title: w.caption || '',
        class: w.resourceClass ? String(w.resourceClass) : '',
        frame: axsightRect(w.frameGeometry),
        buffer: axsightRect(w.bufferGeometry),
        focused: w === active || w.active === true,
        minimized: w.minimized,
        maximized: axsightMaximized(w),
        fullscreen: w.fullScreen,
        shown: !w.minimized && axsightOnCurrentDesktop(w),
        xwayland: typeof w.windowId === 'number' && w.windowId !== 0,
    }));
}

function axsightWindow(id) {
    const found = axsightToplevels().find(w => axsightId(w) === id);
    if (!found)
        throw new Error(`no window ${id}`);
    return found;
}

function axsightActivate(id) {
    const w = axsightWindow(id);
    if (w.minimized)
        w.minimized = false;
    if (workspace.activeWindow !== undefined)
        workspace.activeWindow = w;
    else
        workspace.activeClient = w;
}

function axsightClose(id) {
    axsightWindow(id).closeWindow();
}

function axsightMoveResize(id, x, y, width, height) {
    const w = axsightWindow(id);
    if (axsightMaximized(w))
        w.setMaximize(false, false);
    w.frameGeometry = {x: x, y: y, width: width, height: height};
}

function axsightMaximize(id, on) {
    axsightWindow(id).setMaximize(on, on);
}

function axsightMinimize(id, on) {
    axsightWindow(id).minimized = on;
}
