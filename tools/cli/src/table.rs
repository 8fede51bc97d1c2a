//! Plain-text tables for people: every column as wide as its widest cell, so long names never
//! push the columns after them out of line; a cell past its column's bound keeps its end
//! (a path's file name, a workspace key's hash) behind an ellipsis.

/// How a column aligns its cells.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Align {
    /// Text.
    Left,
    /// Numbers.
    Right,
}

/// One column: its header, alignment and the widest a cell may be (in characters).
#[derive(Clone, Copy, Debug)]
pub struct Column {
    /// The header.
    pub header: &'static str,
    /// How cells align.
    pub align: Align,
    /// The most characters a cell shows; a longer one is cut at its start.
    pub max: usize,
}

impl Column {
    /// A left-aligned column of at most `max` characters.
    pub const fn text(header: &'static str, max: usize) -> Column {
        Column {
            header,
            align: Align::Left,
            max,
        }
    }

    /// A right-aligned column (numbers are never cut).
    pub const fn number(header: &'static str) -> Column {
        Column {
            header,
            align: Align::Right,
            max: usize::MAX,
        }
    }
}

/// `text` cut to `max` characters, keeping its end behind a leading `…`.
pub fn fit(text: &str, max: usize) -> String {
    let len = text.chars().count();
    if len <= max || max == 0 {
        return text.to_string();
    }
    let keep: String = text.chars().skip(len - (max - 1)).collect();
    format!("…{keep}")
}

/// A cell as a terminal may show it: a key or path from another machine's file may hold
/// control characters (an escape sequence, a newline), which are written escaped.
fn visible(cell: &str) -> std::borrow::Cow<'_, str> {
    if docsuggest_schema::text::has_invisible(cell) {
        std::borrow::Cow::Owned(docsuggest_schema::text::bounded(cell, usize::MAX))
    } else {
        std::borrow::Cow::Borrowed(cell)
    }
}

/// The table of `rows` under `columns`, each line indented by `indent` and ended by a newline,
/// with no trailing spaces. Laid out by comfy-table with no lines and one space between
/// columns; the cells are cut and escaped here first, so a column is never wider than its
/// bound and nothing wraps.
pub fn render(columns: &[Column], rows: &[Vec<String>], indent: &str) -> String {
    use comfy_table::{CellAlignment, ContentArrangement, Table};
    let mut table = Table::new();
    table
        .load_preset(comfy_table::presets::NOTHING)
        .set_content_arrangement(ContentArrangement::Disabled)
        .set_header(columns.iter().map(|c| c.header));
    for row in rows {
        table.add_row(
            row.iter()
                .zip(columns)
                .map(|(cell, c)| fit(&visible(cell), c.max)),
        );
    }
    for (column, c) in table.column_iter_mut().zip(columns) {
        // One space after every column parts them (the preset draws no lines at all); the
        // last one's is trimmed with the line's end.
        column.set_padding((0, 1));
        column.set_cell_alignment(match c.align {
            Align::Left => CellAlignment::Left,
            Align::Right => CellAlignment::Right,
        });
    }
    let mut out = String::new();
    for line in table.lines() {
        out.push_str(indent);
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_cells_never_break_the_columns() {
        let columns = [
            Column::text("name", 12),
            Column::number("n"),
            Column::text("note", 40),
        ];
        let rows = vec![
            vec!["a".into(), "1".into(), "x".into()],
            vec!["docs/very/long/name.md".into(), "200".into(), "".into()],
        ];
        assert_eq!(
            render(&columns, &rows, "  "),
            "  name           n note\n  a              1 x\n  …ong/name.md 200\n"
        );
        let rows = vec![vec!["a\u{1b}[2Jb\nc".into(), "1".into(), "".into()]];
        let shown = render(&columns, &rows, "");
        assert!(
            !shown.contains('\u{1b}') && shown.lines().count() == 2,
            "{shown:?}"
        );
    }

    #[test]
    fn fit_keeps_the_end() {
        assert_eq!(fit("abcdef", 6), "abcdef");
        assert_eq!(fit("abcdefg", 4), "…efg");
        assert_eq!(fit("ééééé", 3), "…éé");
    }
}
