//! The trajectories a network is trained on: GML's rigid-body data, or a CSV file.

use crate::Error;
use crate::rigid_body;

/// Trajectories of equal length, each a list of states of `dim` values, in `f64`.
#[derive(Debug, Clone, PartialEq)]
pub struct Data {
    dim: usize,
    length: usize,
    /// Every state of every trajectory, trajectory after trajectory.
    values: Vec<f64>,
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
    /// use geomattn_spec::train::Data;
    /// let csv = "trajectory,z1,z2\n0,1,0\n0,0.9,0.1\n1,0,1\n1,0.1,0.9\n";
    /// let data = Data::from_csv(csv, "data.csv")?;
    /// assert_eq!((data.count(), data.length(), data.dim()), (2, 2, 2));
    /// # Ok::<(), geomattn_spec::Error>(())
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
        let mut lines = text.lines().enumerate().map(|(k, l)| (k + 1, l.trim()));
        let (_, header) = lines
            .find(|(_, l)| !l.is_empty())
            .ok_or_else(|| error(1, "the file is empty".into()))?;
        let names: Vec<&str> = header.split(',').map(str::trim).collect();
        let mut state_columns = Vec::new();
        while let Some(at) = names
            .iter()
            .position(|n| *n == format!("z{}", state_columns.len() + 1))
        {
            state_columns.push(at);
        }
        if state_columns.is_empty() {
            return Err(error(1, "the header has no column `z1`".into()));
        }
        if let Some(extra) = names.iter().find(|n| {
            n.strip_prefix('z')
                .and_then(|k| k.parse::<usize>().ok())
                .is_some_and(|k| k > state_columns.len())
        }) {
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
                    if lengths.iter().any(|(seen, _)| seen == id) {
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
