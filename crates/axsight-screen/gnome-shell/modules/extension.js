// axsight's GNOME Shell extension for GNOME 45 and later, which load extensions
// as ES modules; the windows it serves are in ../windows.js.
import Gio from 'gi://Gio';
import GLib from 'gi://GLib';
import Meta from 'gi://Meta';
import St from 'gi://St';
import {Extension} from 'resource:///org/gnome/shell/extensions/extension.js';

// @windows.js

export default class AxsightExtension extends Extension {
    enable() {
        this._object = Gio.DBusExportedObject.wrapJSObject(IFACE, new Windows());
        this._object.export(Gio.DBus.session, '/io/github/axsight/Shell');
    }

    disable() {
        this._object.unexport();
        this._object = null;
    }
}
