//! The plot of a training's loss per epoch: one framed panel, the epoch on the x axis, the loss
//! on a logarithmic axis labelled at powers of ten.

use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use super::legend::Line;
use super::{FONT, PANEL_HEIGHT, TITLE_HEIGHT, WIDTH, log_chart};

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
    let mut chart = log_chart(
        &body,
        (1.0, last),
        points.iter().map(|p| p.1),
        "epoch".into(),
        "loss ‖NN(X) − Y‖ / ‖Y‖ (mean over minibatches)",
    )?;
    chart.draw_series(LineSeries::new(points, Line::Network.style()))?;
    Ok(())
}
