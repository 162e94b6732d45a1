//! A Markdown table with aligned columns.

use std::fmt;

/// Rows of strings under a header, printed as a Markdown table (a title, the header, its
/// separator row, the rows) with right-aligned columns.
pub struct Table {
    title: String,
    header: Vec<String>,
    rows: Vec<Vec<String>>,
}

impl Table {
    /// An empty table.
    pub fn new(title: &str, header: &[&str]) -> Self {
        Self {
            title: title.to_owned(),
            header: header.iter().map(|h| escape(h)).collect(),
            rows: Vec::new(),
        }
    }

    /// Appends a row; it must have one cell per column. A `|` in a cell (`|det J − 1|`) is
    /// escaped, so that it does not end the cell in Markdown.
    pub fn row(&mut self, cells: Vec<String>) {
        let cells: Vec<String> = cells.iter().map(|c| escape(c)).collect();
        assert_eq!(
            cells.len(),
            self.header.len(),
            "row width differs from the header"
        );
        self.rows.push(cells);
    }
}

fn escape(cell: &str) -> String {
    cell.replace('|', "\\|")
}

impl fmt::Display for Table {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let widths: Vec<usize> = (0..self.header.len())
            .map(|c| {
                self.rows
                    .iter()
                    .map(|r| r[c].chars().count())
                    .chain([self.header[c].chars().count()])
                    .max()
                    .unwrap_or(0)
            })
            .collect();
        writeln!(f, "## {}\n", self.title)?;
        // Each cell is ` text ` (width + 2); the separator is `-…-:` (right-aligned), as wide.
        let separator: Vec<String> = widths.iter().map(|w| "-".repeat(*w)).collect();
        for (index, line) in [&self.header].into_iter().chain(&self.rows).enumerate() {
            let cells: Vec<String> = line
                .iter()
                .zip(&widths)
                .map(|(cell, width)| format!("{cell:>width$}"))
                .collect();
            writeln!(f, "| {} |", cells.join(" | "))?;
            if index == 0 {
                writeln!(f, "|-{}:|", separator.join(":|-"))?;
            }
        }
        Ok(())
    }
}
