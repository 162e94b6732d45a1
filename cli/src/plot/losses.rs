//! The plot of a training's loss per epoch: one framed panel, the epoch on the x axis, the loss
//! on a logarithmic axis labelled at powers of ten.

use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use super::legend::Line;
use super::scale::{decades, power_of_ten, tick};
use super::{FONT, PANEL_HEIGHT, TITLE_HEIGHT, WIDTH, chart, frame};

/// The SVG text of the plot of `losses` (the loss of epoch `k + 1` at index `k`); losses that
/// are not positive and finite have no place on the axis and are left out.
pub fn losses_svg(losses: &[f64], title: &str) -> String {
    let mut text = String::new();
    {
        let height = TITLE_HEIGHT + 2 * PANEL_HEIGHT;
        let root = SVGBackend::with_string(&mut text, (WIDTH, height)).into_drawing_area();
        // Drawing into a string cannot fail on I/O: an error would be a bug, and leaves an
        // incomplete plot rather than a panic.
        let _ = draw(&root, losses, title);
        let _ = root.present();
    }
    text
}

fn draw<'a>(root: &super::Area<'a>, losses: &[f64], title: &str) -> super::Drawn<'a> {
    root.fill(&WHITE)?;
    let (head, body) = root.split_vertically(TITLE_HEIGHT);
    head.draw(&Text::new(
        title.to_owned(),
        (i32::try_from(WIDTH / 2)?, i32::try_from(TITLE_HEIGHT / 2)?),
        TextStyle::from((FONT, 16).into_font()).pos(Pos::new(HPos::Center, VPos::Center)),
    ))?;
    #[allow(clippy::cast_precision_loss)]
    let points: Vec<(f64, f64)> = losses
        .iter()
        .enumerate()
        .map(|(k, &loss)| ((k + 1) as f64, loss))
        .filter(|&(_, loss)| loss > 0.0 && loss.is_finite())
        .collect();
    #[allow(clippy::cast_precision_loss)]
    let last = losses.len().max(2) as f64;
    let (low, high) = decades(points.iter().map(|p| p.1));
    let labels = (high / low).log10().round() as usize + 1;
    // As the rollout's error axis: the range starts a hair below its bottom decade so that
    // plotters keeps that decade's label.
    let axis = (low * (1.0 - 1e-9)..high).log_scale().base(10.0);
    let mut chart = chart(&body, true).build_cartesian_2d(1.0..last, axis)?;
    let x_tick = |t: &f64| tick(*t, last);
    chart
        .configure_mesh()
        .bold_line_style(BLACK.mix(0.15))
        .light_line_style(BLACK.mix(0.05))
        .x_max_light_lines(0)
        .x_label_formatter(&x_tick)
        .label_style((FONT, 13))
        .axis_desc_style((FONT, 14))
        .y_labels(labels.min(9))
        .y_label_formatter(&power_of_ten)
        .x_desc("epoch")
        .y_desc("loss ‖NN(X) − Y‖ / ‖Y‖ (mean over minibatches)")
        .draw()?;
    frame(&mut chart, (1.0, low), (last, high))?;
    chart.draw_series(LineSeries::new(points, Line::Network.style()))?;
    Ok(())
}
