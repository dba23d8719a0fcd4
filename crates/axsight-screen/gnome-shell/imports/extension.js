// axsight's GNOME Shell extension for GNOME 42 to 44, which load extensions as
// scripts with `imports`; the windows it serves are in ../windows.js.
/* exported init */
const { Gio, GLib, Meta, St } = imports.gi;

// @windows.js

class Extension {
    enable() {
        this._object = Gio.DBusExportedObject.wrapJSObject(IFACE, new Windows());
        this._object.export(Gio.DBus.session, '/io/github/axsight/Shell');
    }

    disable() {
        this._object.unexport();
        this._object = null;
    }
}

function init() {
    return new Extension();
}
