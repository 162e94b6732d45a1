//! The SVG plot of a rollout (plotters): one panel per state component, the prediction against
//! the reference, and a last panel with the error against the step.

use plotters::prelude::*;

use crate::rollout::Row;

const PANEL_HEIGHT: u32 = 220;
const WIDTH: u32 = 900;

/// The most states a plot keeps of a longer trajectory (it keeps every k-th, and the last).
pub const MAX_POINTS: usize = 10_000;

/// The rows a plot keeps of a trajectory of up to `total` states, handed over one by one: every
/// `stride`-th, with the stride such that at most [`MAX_POINTS`] are kept (every row of a
/// trajectory of up to [`MAX_POINTS`] states), and the last row handed over.
pub struct Kept {
    stride: usize,
    rows: Vec<Row>,
    last: Option<Row>,
}

impl Kept {
    /// Nothing kept yet, of a trajectory of up to `total` states.
    pub fn new(total: usize) -> Self {
        Self {
            stride: total.div_ceil(MAX_POINTS).max(1),
            rows: Vec::new(),
            last: None,
        }
    }

    /// The next row.
    pub fn push(&mut self, row: Row) {
        if row.step.is_multiple_of(self.stride) {
            self.rows.push(row);
            self.last = None;
        } else {
            self.last = Some(row);
        }
    }

    /// The rows kept, in order.
    pub fn rows(mut self) -> Vec<Row> {
        self.rows.extend(self.last);
        self.rows
    }
}

/// The plot of `rows` (in order of their steps) as SVG text.
pub fn svg(rows: &[Row], title: &str) -> String {
    let dim = rows.first().map_or(0, |row| row.state.len());
    let errors: Option<Vec<(usize, f64)>> = rows
        .iter()
        .map(|row| Some((row.step, row.error()?)))
        .collect();
    let errors = errors.filter(|e| !e.is_empty());
    let panels = dim + usize::from(errors.is_some());
    let height = PANEL_HEIGHT * u32::try_from(panels.max(1)).unwrap_or(1) + 40;
    let mut text = String::new();
    {
        let root = SVGBackend::with_string(&mut text, (WIDTH, height)).into_drawing_area();
        // Drawing into a string cannot fail on I/O; a plotting error would be a bug here, and
        // leaves an incomplete plot rather than a panic.
        let _ = draw(&root, rows, errors.as_deref(), title, dim, panels);
        let _ = root.present();
    }
    text
}

type Area<'a> = DrawingArea<SVGBackend<'a>, plotters::coord::Shift>;

fn draw<'a>(
    root: &Area<'a>,
    rows: &[Row],
    errors: Option<&[(usize, f64)]>,
    title: &str,
    dim: usize,
    panels: usize,
) -> Result<(), Box<dyn std::error::Error + 'a>> {
    root.fill(&WHITE)?;
    let root = root.titled(title, ("sans-serif", 16))?;
    let areas = root.split_evenly((panels.max(1), 1));
    let steps = rows.last().map_or(0, |row| row.step);
    for (component, area) in areas.iter().enumerate().take(dim) {
        let prediction: Vec<(usize, f64)> = rows
            .iter()
            .map(|row| (row.step, row.state[component]))
            .collect();
        let reference: Option<Vec<(usize, f64)>> = rows
            .iter()
            .map(|row| Some((row.step, row.reference.as_ref()?[component])))
            .collect();
        let all = prediction
            .iter()
            .chain(reference.iter().flatten())
            .map(|p| p.1);
        let name = format!("z{}", component + 1);
        let mut chart = panel(area, &name, steps, range(all))?;
        chart
            .draw_series(LineSeries::new(prediction, &BLUE))?
            .label("network")
            .legend(|(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], BLUE));
        if let Some(reference) = reference {
            chart
                .draw_series(LineSeries::new(reference, &RED))?
                .label("reference")
                .legend(|(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], RED));
        }
        chart.configure_series_labels().border_style(BLACK).draw()?;
    }
    if let (Some(errors), Some(area)) = (errors, areas.get(dim)) {
        let mut chart = panel(
            area,
            "error (max norm)",
            steps,
            range(errors.iter().map(|e| e.1)),
        )?;
        chart
            .draw_series(LineSeries::new(errors.iter().copied(), &BLACK))?
            .label("error")
            .legend(|(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], BLACK));
        chart.configure_series_labels().border_style(BLACK).draw()?;
    }
    Ok(())
}

type Chart<'a, 'b> = ChartContext<
    'a,
    SVGBackend<'b>,
    Cartesian2d<plotters::coord::types::RangedCoordusize, plotters::coord::types::RangedCoordf64>,
>;

fn panel<'a, 'b>(
    area: &'a Area<'b>,
    name: &str,
    steps: usize,
    (low, high): (f64, f64),
) -> Result<Chart<'a, 'b>, Box<dyn std::error::Error + 'b>> {
    let mut chart = ChartBuilder::on(area)
        .margin(8)
        .x_label_area_size(30)
        .y_label_area_size(60)
        .build_cartesian_2d(0..steps.max(1), low..high)?;
    chart.configure_mesh().x_desc("step").y_desc(name).draw()?;
    Ok(chart)
}

/// The range of `values`, padded by 5 % (and never empty).
fn range(values: impl Iterator<Item = f64>) -> (f64, f64) {
    let (low, high) = values.fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), x| {
        (lo.min(x), hi.max(x))
    });
    if !low.is_finite() || !high.is_finite() {
        return (0.0, 1.0);
    }
    let pad = ((high - low) * 0.05).max(1e-12);
    (low - pad, high + pad)
}

#[cfg(test)]
mod tests {
    use super::{Kept, MAX_POINTS};
    use crate::rollout::Row;

    fn kept(total: usize, handed: usize) -> Vec<usize> {
        let mut kept = Kept::new(total);
        for step in 0..handed {
            kept.push(Row {
                step,
                state: vec![0.0],
                reference: None,
            });
        }
        kept.rows().iter().map(|row| row.step).collect()
    }

    #[test]
    fn a_short_trajectory_is_kept_whole() {
        assert_eq!(kept(5, 5), [0, 1, 2, 3, 4]);
        assert_eq!(kept(MAX_POINTS, MAX_POINTS).len(), MAX_POINTS);
    }

    #[test]
    fn a_long_one_keeps_every_kth_state_and_the_last() {
        let steps = kept(25 * MAX_POINTS + 7, 25 * MAX_POINTS + 7);
        assert!(steps.len() <= MAX_POINTS + 1, "{}", steps.len());
        assert_eq!(steps[..3], [0, 26, 52]);
        assert_eq!(steps.last(), Some(&(25 * MAX_POINTS + 6)));
        // One that diverged early ends at its last finite state.
        assert_eq!(kept(25 * MAX_POINTS, 60).last(), Some(&59));
    }
}
