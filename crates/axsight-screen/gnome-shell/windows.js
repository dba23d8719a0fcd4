// The part of axsight's GNOME Shell extension that both generations share (see
// imports/ for GNOME 42 to 44 and modules/ for GNOME 45 on): the windows' places,
// and focus, move, resize, maximize, minimize and close, and the clipboard's text,
// at /io/github/axsight/Shell on the session bus (name org.gnome.Shell). Nothing
// else: no input, no pixels. `axsight gnome-extension` writes it into the
// generation's extension.js where the line `// @windows.js` stands; Gio, GLib, Meta
// and St come from there.

const IFACE = `
<node>
  <interface name="io.github.axsight.Shell1">
    <method name="ListWindows">
      <arg type="s" direction="out" name="windows"/>
    </method>
    <method name="Activate">
      <arg type="t" direction="in" name="id"/>
    </method>
    <method name="Close">
      <arg type="t" direction="in" name="id"/>
    </method>
    <method name="MoveResize">
      <arg type="t" direction="in" name="id"/>
      <arg type="i" direction="in" name="x"/>
      <arg type="i" direction="in" name="y"/>
      <arg type="i" direction="in" name="width"/>
      <arg type="i" direction="in" name="height"/>
    </method>
    <method name="Maximize">
      <arg type="t" direction="in" name="id"/>
      <arg type="b" direction="in" name="on"/>
    </method>
    <method name="Minimize">
      <arg type="t" direction="in" name="id"/>
      <arg type="b" direction="in" name="on"/>
    </method>
    <method name="GetClipboard">
      <arg type="s" direction="out" name="text"/>
    </method>
    <method name="SetClipboard">
      <arg type="s" direction="in" name="text"/>
    </method>
    <property name="Version" type="u" access="read"/>
  </interface>
</node>`;

function rect(r) {
    return [r.x, r.y, r.width, r.height];
}

// Both ways: mutter 49 has is_maximized() and argument-less maximize().
function maximized(w) {
    if (typeof w.is_maximized === 'function')
        return w.is_maximized();
    return w.get_maximized() === Meta.MaximizeFlags.BOTH;
}

function setMaximized(w, on) {
    const flags = w.is_maximized === undefined ? [Meta.MaximizeFlags.BOTH] : [];
    if (on)
        w.maximize(...flags);
    else
        w.unmaximize(...flags);
}

class Windows {
    get Version() {
        return 1;
    }

    // Bottom first, as the compositor stacks them.
    ListWindows() {
        const workspace = global.workspace_manager.get_active_workspace();
        const windows = global.get_window_actors()
            .map(actor => actor.meta_window)
            .filter(w => w && !w.is_override_redirect());
        return JSON.stringify(windows.map(w => ({
            id: w.get_id(),
            pid: w.get_pid(),
            title: w.get_title() || '',
            class: w.get_wm_class() || '',
            frame: rect(w.get_frame_rect()),
            buffer: rect(w.get_buffer_rect()),
            focused: w.has_focus(),
            minimized: w.minimized,
            maximized: maximized(w),
            fullscreen: w.is_fullscreen(),
            shown: !w.minimized && w.located_on_workspace(workspace),
            xwayland: w.get_client_type() === Meta.WindowClientType.X11,
        })));
    }

    _window(id) {
        const found = global.get_window_actors()
            .map(actor => actor.meta_window)
            .find(w => w && w.get_id() === id);
        if (!found)
            throw new Error(`no window ${id}`);
        return found;
    }

    Activate(id) {
        const w = this._window(id);
        if (w.minimized)
            w.unminimize();
        w.activate(global.get_current_time());
    }

    Close(id) {
        this._window(id).delete(global.get_current_time());
    }

    MoveResize(id, x, y, width, height) {
        const w = this._window(id);
        if (maximized(w))
            setMaximized(w, false);
        w.move_resize_frame(true, x, y, width, height);
    }

    Maximize(id, on) {
        setMaximized(this._window(id), on);
    }

    // The shell reads the clipboard asynchronously: the call is answered then.
    GetClipboardAsync(_params, invocation) {
        St.Clipboard.get_default().get_text(St.ClipboardType.CLIPBOARD, (_clipboard, text) => {
            invocation.return_value(new GLib.Variant('(s)', [text || '']));
        });
    }

    SetClipboard(text) {
        St.Clipboard.get_default().set_text(St.ClipboardType.CLIPBOARD, text);
    }

    Minimize(id, on) {
        const w = this._window(id);
        if (on)
            w.minimize();
        else
            w.unminimize();
    }
}
