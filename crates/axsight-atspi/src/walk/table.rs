//! The drawn part of a container too big to read whole. A spreadsheet's sheet
//! claims 2^31 cells; listing them (`GetChildren`) keeps LibreOffice busy for
//! minutes and gigabytes. So a table's corner cells on screen are found by point,
//! and only the cells between them are asked for, by row and column; any other
//! such container gives its first children by index. Empty cells are counted,
//! not kept, and a gap says what was left out.

use futures_util::future::join_all;

use super::{abort, Abort, Quirks, RawNode, Walker, MAX_CHILDREN};
use crate::dbus::{self, ObjRef};
use crate::states;

pub(super) use crate::dbus::TABLE;

/// Cells glanced at together, batch after batch.
const IN_FLIGHT: usize = 64;

/// A cell's place: row and column, from 0.
type Place = (usize, usize);

impl Walker<'_> {
    /// The cells of `table` that are on screen, by rows, without the empty ones.
    pub(super) async fn read_drawn_cells(
        &self,
        table: &ObjRef,
        name: &str,
        depth: usize,
    ) -> Result<Vec<RawNode>, Abort> {
        let conn = self.conn;
        let count = |property: &'static str| async move {
            dbus::property::<i32>(conn, table, TABLE, property)
                .await
                .ok()
                .and_then(|n| usize::try_from(n).ok())
                .unwrap_or(0)
        };
        let (extents, rows, columns) = futures_util::join!(
            dbus::call::<_, (i32, i32, i32, i32)>(
                conn,
                table,
                dbus::COMPONENT,
                "GetExtents",
                (self.quirks.extent_coords(),),
            ),
            count("NRows"),
            count("NColumns"),
        );
        let what = match name.trim() {
            "" => "a table".to_string(),
            name => format!("table {name:?}"),
        };
        if rows == 0 || columns == 0 {
            self.note_cut(table, format!(
                "{what} has too many children to read and says it has no rows or columns; none were read"
            ));
            return Ok(Vec::new());
        }
        // The cells under the table's first and last pixels bound what is drawn;
        // where no cell lies there (a short list), the table's own ends do.
        let (first, last) = match extents {
            Ok((x, y, width, height)) if width > 2 && height > 2 => {
                futures_util::join!(
                    self.cell_at(table, x.saturating_add(1), y.saturating_add(1)),
                    self.cell_at(
                        table,
                        x.saturating_add(width - 2),
                        y.saturating_add(height - 2)
                    )
                )
            }
            _ => (None, None),
        };
        let (top, left) = first.unwrap_or((0, 0));
        let (bottom, right) = last.unwrap_or((rows - 1, columns - 1));
        let (bottom, right) = (bottom.clamp(top, rows - 1), right.clamp(left, columns - 1));
        let drawn = (bottom - top + 1).saturating_mul(right - left + 1);
        let take = self.reserve(drawn.min(MAX_CHILDREN));
        let places: Vec<Place> = (top..=bottom)
            .flat_map(|row| (left..=right).map(move |column| (row, column)))
            .take(take)
            .collect();
        // Not all at once: a call waits its turn in the app, and a thousand
        // queued ahead of it would eat its whole timeout.
        let mut looks = Vec::with_capacity(places.len());
        for batch in places.chunks(IN_FLIGHT) {
            looks.extend(join_all(batch.iter().map(|&place| self.glance(table, place))).await);
        }
        let mut found = Vec::with_capacity(looks.len());
        let mut blank = 0;
        for (look, place) in looks.into_iter().zip(places) {
            match look {
                Ok((_, Glance::Blank)) => blank += 1,
                Ok((cell, Glance::Unknown)) => found.push((cell, place)),
                Err(aborted) if aborted.ends_the_read() => return Err(aborted),
                Err(aborted) => self.note_gap(format!(
                    "a cell of {what} could not be found ({}: {})",
                    aborted.method, aborted.error
                )),
            }
        }
        // Merged cells answer for several places: each is read once, and known
        // by its place, since its object changes from one read to the next.
        let fresh = self.not_seen(found.iter().map(|(cell, _)| cell.clone()).collect());
        let reads = found
            .into_iter()
            .filter(|(cell, _)| fresh.contains(cell))
            .map(|(cell, (row, column))| async move {
                let mut node = self.read_with(cell, false, true, depth).await?;
                node.id = Some(table.cell_id(row, column));
                Ok(node)
            });
        let cells = self
            .keep_read(join_all(reads).await)
            .map_err(|aborted| *aborted)?;
        let names = futures_util::join!(
            self.name_at(table, (top, left)),
            self.name_at(table, (bottom, right))
        );
        let span = match names {
            (Some(first), Some(last)) => format!("{first} to {last}"),
            _ => format!(
                "rows {}–{}, columns {}–{}",
                top + 1,
                bottom + 1,
                left + 1,
                right + 1
            ),
        };
        let read = blank + cells.len();
        let shown: Vec<RawNode> = cells
            .into_iter()
            .filter(|cell| !shows_nothing(cell, self.quirks))
            .collect();
        let empty = match (read.saturating_sub(shown.len()), self.quirks.libreoffice) {
            (0, _) => String::new(),
            (n, false) => format!(", {n} of them empty and not listed"),
            // Its Name Box (the Edit that shows the cursor's address) goes anywhere.
            (n, true) => format!(
                ", {n} of them empty and not listed (to go to one, type its address into the Name Box, the Edit showing the cursor's address, or click it)"
            ),
        };
        let on_screen = match take < drawn {
            true => format!("only {take} of the {drawn} cells on screen were read"),
            false => format!("only the {read} cells on screen were read"),
        };
        self.note_cut(
            table,
            format!(
                "{what} has {rows} rows and {columns} columns; {on_screen} ({span}){empty}; scroll it to read others"
            ),
        );
        let mut kept = self.column_headers(table, left..=right, depth).await?;
        kept.extend(shown);
        Ok(kept)
    }

    /// The headers of the table's `columns`, where it has them (a GTK tree view's
    /// are its first children; LibreOffice's sheet has none).
    async fn column_headers(
        &self,
        table: &ObjRef,
        columns: std::ops::RangeInclusive<usize>,
        depth: usize,
    ) -> Result<Vec<RawNode>, Abort> {
        let asks = columns.map(|column| {
            let column = i32::try_from(column).unwrap_or(i32::MAX);
            dbus::call::<_, ObjRef>(self.conn, table, TABLE, "GetColumnHeader", (column,))
        });
        let headers: Vec<ObjRef> = join_all(asks)
            .await
            .into_iter()
            .filter_map(Result::ok)
            .collect();
        let headers = self.not_seen(headers);
        let take = self.reserve(headers.len());
        self.read_all(headers.into_iter().take(take).collect(), depth)
            .await
    }

    /// The first children of a container with `count` children (unknown: as many
    /// as are read at most), by index.
    pub(super) async fn read_first_children(
        &self,
        parent: &ObjRef,
        count: Option<usize>,
        depth: usize,
    ) -> Result<Vec<RawNode>, Abort> {
        let wanted = count.unwrap_or(MAX_CHILDREN).min(MAX_CHILDREN);
        let take = self.reserve(wanted);
        let reads = (0..take).map(|index| async move {
            let index = i32::try_from(index).unwrap_or(i32::MAX);
            dbus::call::<_, ObjRef>(
                self.conn,
                parent,
                dbus::ACCESSIBLE,
                "GetChildAtIndex",
                (index,),
            )
            .await
            .map_err(|e| abort("GetChildAtIndex", e))
        });
        let mut refs = Vec::with_capacity(take);
        for child in join_all(reads).await {
            match child {
                Ok(child) => refs.push(child),
                Err(aborted) if aborted.ends_the_read() => return Err(aborted),
                Err(_) => {}
            }
        }
        let total = count.map_or_else(|| "too many".to_string(), |n| n.to_string());
        self.note_cut(
            parent,
            format!(
                "an element has {total} children; only the first {} were read",
                refs.len()
            ),
        );
        self.read_all(self.not_seen(refs), depth).await
    }

    /// The row and column of the cell of `table` at the point, if any.
    async fn cell_at(&self, table: &ObjRef, x: i32, y: i32) -> Option<Place> {
        let conn = self.conn;
        let cell: ObjRef = dbus::call(
            conn,
            table,
            dbus::COMPONENT,
            "GetAccessibleAtPoint",
            (x, y, self.quirks.extent_coords()),
        )
        .await
        .ok()
        .filter(|cell: &ObjRef| !cell.is_null())?;
        let index: i32 = dbus::call(conn, &cell, dbus::ACCESSIBLE, "GetIndexInParent", ())
            .await
            .ok()?;
        let (row, column) = futures_util::join!(
            dbus::call::<_, i32>(conn, table, TABLE, "GetRowAtIndex", (index,)),
            dbus::call::<_, i32>(conn, table, TABLE, "GetColumnAtIndex", (index,)),
        );
        Some((
            usize::try_from(row.ok()?).ok()?,
            usize::try_from(column.ok()?).ok()?,
        ))
    }

    /// The cell of `table` at `place`, and whether a glance shows it blank. Most
    /// cells on screen are empty, and a whole read costs seven calls: for
    /// LibreOffice, whose cells are named by their address, two calls (its text's
    /// length and its states) tell an empty, unmarked cell.
    async fn glance(&self, table: &ObjRef, place: Place) -> Result<(ObjRef, Glance), Abort> {
        let cell = self.cell(table, place).await?;
        if !self.quirks.libreoffice {
            return Ok((cell, Glance::Unknown));
        }
        let conn = self.conn;
        let (length, state) = futures_util::join!(
            dbus::property::<i32>(conn, &cell, dbus::TEXT, "CharacterCount"),
            dbus::call::<_, Vec<u32>>(conn, &cell, dbus::ACCESSIBLE, "GetState", ()),
        );
        let state = state.map_err(|e| abort("GetState", e))?;
        let blank = length.is_ok_and(|n| n == 0) && !is_marked(states::mask_of(&state));
        Ok((
            cell,
            if blank {
                Glance::Blank
            } else {
                Glance::Unknown
            },
        ))
    }

    /// The name of the cell at `place`, if it has one.
    async fn name_at(&self, table: &ObjRef, place: Place) -> Option<String> {
        let cell = self.cell(table, place).await.ok()?;
        dbus::property::<String>(self.conn, &cell, dbus::ACCESSIBLE, "Name")
            .await
            .ok()
            .map(|name| name.trim().to_string())
            .filter(|name| !name.is_empty())
    }

    /// The cell of `table` at `place`.
    async fn cell(&self, table: &ObjRef, (row, column): Place) -> Result<ObjRef, Abort> {
        let at = |n: usize| i32::try_from(n).unwrap_or(i32::MAX);
        dbus::call(
            self.conn,
            table,
            TABLE,
            "GetAccessibleAt",
            (at(row), at(column)),
        )
        .await
        .map_err(|e| abort("GetAccessibleAt", e))
    }
}

/// Whether a cell shows nothing worth a line: no text, nothing inside, neither
/// focused nor selected. LibreOffice names every cell by its address (`A1`), which
/// is not content; elsewhere a named cell is kept.
fn shows_nothing(cell: &RawNode, quirks: Quirks) -> bool {
    cell.value.as_deref().is_none_or(|v| v.trim().is_empty())
        && cell.children.is_empty()
        && !is_marked(cell.state_mask)
        && (quirks.libreoffice || cell.name.trim().is_empty())
}

/// What a glance at a cell told.
enum Glance {
    /// Empty, neither focused nor selected: not read further.
    Blank,
    /// To be read.
    Unknown,
}

/// Whether a cell with the state `mask` is focused or selected.
fn is_marked(mask: u64) -> bool {
    [states::FOCUSED, states::SELECTED]
        .into_iter()
        .any(|bit| states::has_bit(mask, bit))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cell(name: &str, value: Option<&str>, mask: u64) -> RawNode {
        RawNode {
            role: 56,
            name: name.into(),
            value: value.map(str::to_string),
            state_mask: mask,
            ..RawNode::default()
        }
    }

    #[test]
    fn empty_unmarked_cells_show_nothing() {
        let office = Quirks::of_application("soffice", "gtk", "3.24.38");
        let gtk = Quirks::of_toolkit("gtk", "3.24.38");
        // LibreOffice's cells are named by their address: the text decides.
        assert!(shows_nothing(&cell("B7", Some(""), 0), office));
        assert!(shows_nothing(&cell("B7", Some("  "), 0), office));
        assert!(!shows_nothing(&cell("B7", Some("6"), 0), office));
        // The cursor's cell and a selected one are kept, empty or not.
        assert!(!shows_nothing(
            &cell("A1", Some(""), 1 << states::FOCUSED),
            office
        ));
        assert!(!shows_nothing(
            &cell("A1", Some(""), 1 << states::SELECTED),
            office
        ));
        // Elsewhere a cell's name is its text.
        assert!(!shows_nothing(&cell("Apple", None, 0), gtk));
        assert!(shows_nothing(&cell("", None, 0), gtk));
        let mut holder = cell("", None, 0);
        holder.children.push(cell("Apple", None, 0));
        assert!(!shows_nothing(&holder, gtk));
    }
}
