//! The trajectories a network is trained on: GML's rigid-body data, or a CSV file.

use std::collections::{HashMap, HashSet};

use crate::error::Error;
use crate::rigid_body;

/// Trajectories of equal length, each a list of states of `dim` values, in `f64`.
#[derive(Debug, Clone, PartialEq)]
pub struct Data {
    dim: usize,
    length: usize,
    /// Every state of every trajectory, trajectory after trajectory.
    values: Vec<f64>,
}

/// The `k` of a state column's name `zk` (`k` from 1, digits only).
fn state_index(name: &str) -> Option<usize> {
    let digits = name.strip_prefix('z')?;
    if digits.starts_with('0') || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    digits.parse().ok()
}

impl Data {
    /// `count` trajectories of `length` states of the free rigid body GML's tutorial trains its
    /// volume-preserving transformer on ([`rigid_body`]: implicit midpoint, `h = 0.2`). The
    /// initial states are the tutorial's, `(sin α, 0, cos α)` and `(0, sin α, cos α)` for
    /// `α = 0.1, 0.11, …` (`0.1:0.01:2π`, 619 values), taken alternately; `count` above 1 238
    /// (both families) repeats them. `Data::rigid_body(1238, 101)` is the tutorial's data set.
    pub fn rigid_body(count: usize, length: usize) -> Self {
        let alphas = 619;
        let mut values = Vec::with_capacity(count * length * 3);
        for k in 0..count {
            #[allow(clippy::cast_precision_loss)]
            let alpha = 0.1 + 0.01 * ((k / 2) % alphas) as f64;
            let (sin, cos) = alpha.sin_cos();
            let mut z = if k % 2 == 0 {
                geomattn::nalgebra::Vector3::new(sin, 0.0, cos)
            } else {
                geomattn::nalgebra::Vector3::new(0.0, sin, cos)
            };
            for _ in 0..length {
                values.extend(z.iter());
                z = rigid_body::step(&z, rigid_body::H);
            }
        }
        Self {
            dim: 3,
            length,
            values,
        }
    }

    /// The trajectories of a CSV file (`file` names it in errors).
    ///
    /// The first line is a header. The columns `z1 … zd` hold the state; a column `trajectory`,
    /// if there is one, says which trajectory a row belongs to (the rows of one trajectory in
    /// time order, trajectories one after the other, all of the same length); without it the
    /// file is one trajectory. Other columns are ignored, so the CSV `geomattn rollout` writes
    /// (`step, z1 … zd`, and perhaps the reference) is a one-trajectory file.
    ///
    /// ```
    /// use geomattn_networks::train::Data;
    /// let csv = "trajectory,z1,z2\n0,1,0\n0,0.9,0.1\n1,0,1\n1,0.1,0.9\n";
    /// let data = Data::from_csv(csv, "data.csv")?;
    /// assert_eq!((data.count(), data.length(), data.dim()), (2, 2, 2));
    /// # Ok::<(), geomattn_networks::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::Data`] naming the line: no `z1` column, columns `z1 … zd` with a gap, a value
    /// that is not a finite number, a row with too few fields, trajectories of different lengths,
    /// a trajectory that comes back after another, or no rows.
    pub fn from_csv(text: &str, file: &str) -> Result<Self, Error> {
        let error = |line: usize, reason: String| Error::Data {
            file: file.into(),
            line,
            reason,
        };
        // A byte-order mark (what spreadsheet programs put before UTF-8 text) is not part of the
        // first column's name.
        let text = text.strip_prefix('\u{feff}').unwrap_or(text);
        let mut lines = text.lines().enumerate().map(|(k, l)| (k + 1, l.trim()));
        let (_, header) = lines
            .find(|(_, l)| !l.is_empty())
            .ok_or_else(|| error(1, "the file is empty".into()))?;
        let names: Vec<&str> = header.split(',').map(str::trim).collect();
        // Each column `zk` by its k, in one pass over the header (a search per k was quadratic
        // in the number of columns).
        let mut state_column = HashMap::new();
        for (at, name) in names.iter().enumerate() {
            if let Some(k) = state_index(name) {
                state_column.entry(k).or_insert(at);
            }
        }
        let state_columns: Vec<usize> =
            (1..).map_while(|k| state_column.get(&k).copied()).collect();
        if state_columns.is_empty() {
            return Err(error(1, "the header has no column `z1`".into()));
        }
        if let Some(extra) = names
            .iter()
            .find(|n| state_index(n).is_some_and(|k| k > state_columns.len()))
        {
            return Err(error(
                1,
                format!(
                    "the header has `{extra}` but no `z{}`: the state columns are z1 … zd without a gap",
                    state_columns.len() + 1
                ),
            ));
        }
        let trajectory_column = names.iter().position(|n| *n == "trajectory");
        let mut values = Vec::new();
        let mut lengths: Vec<(String, usize)> = Vec::new();
        let mut seen = HashSet::new();
        for (number, line) in lines.filter(|(_, l)| !l.is_empty()) {
            let fields: Vec<&str> = line.split(',').map(str::trim).collect();
            if fields.len() < names.len() {
                return Err(error(
                    number,
                    format!("{} fields, the header has {}", fields.len(), names.len()),
                ));
            }
            let id = trajectory_column.map_or("", |c| fields[c]);
            match lengths.last_mut() {
                Some((last, n)) if last == id => *n += 1,
                _ => {
                    if !seen.insert(id) {
                        return Err(error(
                            number,
                            format!(
                                "trajectory `{id}` comes back after another: keep its rows together"
                            ),
                        ));
                    }
                    lengths.push((id.into(), 1));
                }
            }
            for &c in &state_columns {
                let value: f64 = fields[c].parse().map_err(|_| {
                    error(
                        number,
                        format!("`{}` (column z) is not a number", fields[c]),
                    )
                })?;
                if !value.is_finite() {
                    return Err(error(number, format!("`{}` is not finite", fields[c])));
                }
                values.push(value);
            }
        }
        let Some((_, length)) = lengths.first() else {
            return Err(error(1, "the file has a header but no rows".into()));
        };
        if let Some((id, other)) = lengths.iter().find(|(_, n)| n != length) {
            return Err(error(
                1,
                format!(
                    "trajectory `{id}` has {other} states, the first has {length}: GML's loader \
                     needs trajectories of one length"
                ),
            ));
        }
        Ok(Self {
            dim: state_columns.len(),
            length: *length,
            values,
        })
    }

    /// Values per state.
    pub fn dim(&self) -> usize {
        self.dim
    }

    /// States per trajectory.
    pub fn length(&self) -> usize {
        self.length
    }

    /// The number of trajectories.
    pub fn count(&self) -> usize {
        self.values.len() / (self.dim * self.length).max(1)
    }

    /// Trajectory `k`'s values, state after state.
    pub(crate) fn trajectory(&self, k: usize) -> &[f64] {
        let len = self.dim * self.length;
        &self.values[k * len..(k + 1) * len]
    }

    /// Each trajectory's values, state after state.
    pub fn iter(&self) -> impl Iterator<Item = &[f64]> {
        self.values.chunks_exact((self.dim * self.length).max(1))
    }
}

#[cfg(test)]
mod tests {
    use super::Data;

    /// A byte-order mark before the header (as spreadsheet programs write UTF-8) hid the
    /// `trajectory` column: 2 trajectories were read as one of 4 states.
    #[test]
    fn a_byte_order_mark_does_not_hide_the_first_column() {
        let csv = "\u{feff}trajectory,z1,z2\n0,1,0\n0,0.9,0.1\n1,0,1\n1,0.1,0.9\n";
        let data = Data::from_csv(csv, "bom.csv").unwrap();
        assert_eq!((data.count(), data.length(), data.dim()), (2, 2, 2));
    }

    /// Columns in any order, `z` names that are no state columns (`z01`, `z`, `zeta`) ignored, and
    /// 20 000 state columns read in one pass over the header (a search per column was quadratic:
    /// 100 000 columns took past 90 s).
    #[test]
    fn state_columns_are_found_by_name_in_one_pass() {
        let data = Data::from_csv("z2,z01,zeta,z,z1\n2,7,7,7,1\n", "order.csv").unwrap();
        assert_eq!(data.iter().next().unwrap(), [1.0, 2.0]);
        let n = 20_000;
        let header: Vec<String> = (1..=n).rev().map(|k| format!("z{k}")).collect();
        let row: Vec<String> = (1..=n).rev().map(|k| k.to_string()).collect();
        let csv = format!("{}\n{}\n", header.join(","), row.join(","));
        let data = Data::from_csv(&csv, "wide.csv").unwrap();
        assert_eq!(data.dim(), n);
        #[allow(clippy::cast_precision_loss)]
        let expected: Vec<f64> = (1..=n).map(|k| k as f64).collect();
        assert_eq!(data.iter().next().unwrap(), expected);
    }

    /// A trajectory whose rows come back after another's is refused, with 10 000 trajectories
    /// (each new one was compared with every one before it).
    #[test]
    fn a_trajectory_that_comes_back_is_refused() {
        let mut csv = String::from("trajectory,z1\n");
        for k in 0..10_000 {
            csv += &format!("{k},1\n{k},2\n");
        }
        assert_eq!(Data::from_csv(&csv, "many.csv").unwrap().count(), 10_000);
        csv += "5,1\n5,2\n";
        let error = Data::from_csv(&csv, "many.csv").unwrap_err().to_string();
        assert!(error.contains("trajectory `5` comes back"), "{error}");
    }
}
