"""The fixture app shows what tests/fixtures/README.md promises, as the AT-SPI
tree reports it. These check the test bed (scripts/with-desktop, the fixture),
not axsight itself."""
import pyatspi

from conftest import SECRET, poll


def walk(acc):
    yield acc
    for i in range(acc.childCount):
        child = acc.getChildAtIndex(i)
        if child is not None:
            yield from walk(child)


def find(root, role, name):
    return pyatspi.findDescendant(root, lambda a: a.getRoleName() == role and a.name == name)


def frame_of(app, fixture_app):
    frames = [w for w in app if w is not None and w.getRoleName() == "frame"]
    assert [f.name for f in frames] == [fixture_app.title]
    return frames[0]


def test_fixture_tree_has_every_widget(atspi_app, fixture_app):
    assert atspi_app.name == "axsight-fixture"
    frame = frame_of(atspi_app, fixture_app)
    nodes = {(a.getRoleName(), a.name) for a in walk(frame)}
    expected = {
        ("menu bar", ""), ("menu", "File"), ("menu item", "Open"), ("menu", "Export"),
        ("menu item", "PDF"), ("menu item", "PNG"), ("menu item", "Quit"),
        ("push button", "Save"), ("push button", "Cancel"),
        ("push button", "Open dialog later"), ("push button", "Rename me"),
        ("text", "Name"), ("password text", "Password"), ("label", "Name"),
        ("check box", "Remember me"),
        ("radio button", "Small"), ("radio button", "Medium"), ("radio button", "Large"),
        ("combo box", "Colour"), ("menu item", "Red"), ("menu item", "Green"),
        ("menu item", "Blue"),
        ("table", "Fruits"), ("table column header", "Fruit"),
        ("page tab list", ""), ("page tab", "General"), ("page tab", "Advanced"),
        ("drawing area", "Canvas"), ("scroll pane", "Long list"), ("label", "Ready"),
    }
    expected |= {("table cell", f) for f in ("Apple", "Banana", "Cherry", "Date", "Elderberry")}
    expected |= {("label", f"Row item {i}") for i in range(1, 41)}
    assert expected - nodes == set()


def test_canvas_has_no_children(atspi_app):
    canvas = find(atspi_app, "drawing area", "Canvas")
    assert canvas.childCount == 0
    extents = canvas.queryComponent().getExtents(pyatspi.DESKTOP_COORDS)
    assert (extents.width, extents.height) == (300, 120)


def test_long_list_rows_past_the_view_are_not_showing(atspi_app):
    def showing(name):
        return find(atspi_app, "label", name).getState().contains(pyatspi.STATE_SHOWING)

    assert showing("Row item 1")
    assert not showing("Row item 40")


def test_password_text_does_not_expose_the_secret(atspi_app):
    entry = find(atspi_app, "password text", "Password")
    text = entry.queryText().getText(0, -1)
    assert len(text) == len(SECRET) and SECRET not in text


def test_rename_me_renames_itself(atspi_app):
    button = find(atspi_app, "push button", "Rename me")
    button.queryAction().doAction(0)
    assert poll(lambda: button.name == "Renamed 1")


def test_dialog_opens_late(atspi_app):
    def dialog():
        return next((w for w in atspi_app if w is not None and w.getRoleName() == "dialog"), None)

    find(atspi_app, "push button", "Open dialog later").queryAction().doAction(0)
    assert dialog() is None  # not there at once
    d = poll(dialog, timeout=5)
    assert d is not None and d.name == "Delayed dialog"
    ok = find(d, "push button", "OK")
    ok.queryAction().doAction(0)
    assert poll(lambda: dialog() is None)
