//! The SVG plot of a rollout (plotters): one panel per state component, the prediction against
//! the reference, and a last panel with the error against the step.

use plotters::prelude::*;

use crate::rollout::Trajectory;

const PANEL_HEIGHT: u32 = 220;
const WIDTH: u32 = 900;

/// The plot as SVG text.
pub fn svg(trajectory: &Trajectory, title: &str) -> String {
    let dim = trajectory.states.first().map_or(0, Vec::len);
    let errors = trajectory.errors();
    let panels = dim + usize::from(errors.is_some());
    let height = PANEL_HEIGHT * u32::try_from(panels.max(1)).unwrap_or(1) + 40;
    let mut text = String::new();
    {
        let root = SVGBackend::with_string(&mut text, (WIDTH, height)).into_drawing_area();
        // Drawing into a string cannot fail on I/O; a plotting error would be a bug here, and
        // leaves an incomplete plot rather than a panic.
        let _ = draw(&root, trajectory, errors.as_deref(), title, dim, panels);
        let _ = root.present();
    }
    text
}

type Area<'a> = DrawingArea<SVGBackend<'a>, plotters::coord::Shift>;

fn draw<'a>(
    root: &Area<'a>,
    trajectory: &Trajectory,
    errors: Option<&[f64]>,
    title: &str,
    dim: usize,
    panels: usize,
) -> Result<(), Box<dyn std::error::Error + 'a>> {
    root.fill(&WHITE)?;
    let root = root.titled(title, ("sans-serif", 16))?;
    let areas = root.split_evenly((panels.max(1), 1));
    let steps = trajectory.states.len().saturating_sub(1);
    for (component, area) in areas.iter().enumerate().take(dim) {
        let prediction: Vec<(usize, f64)> = trajectory
            .states
            .iter()
            .enumerate()
            .map(|(step, z)| (step, z[component]))
            .collect();
        let reference: Option<Vec<(usize, f64)>> = trajectory.reference.as_ref().map(|r| {
            r.iter()
                .enumerate()
                .map(|(step, z)| (step, z[component]))
                .collect()
        });
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
            range(errors.iter().copied()),
        )?;
        chart
            .draw_series(LineSeries::new(errors.iter().copied().enumerate(), &BLACK))?
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
