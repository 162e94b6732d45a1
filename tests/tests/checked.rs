//! Checked forward passes: the first NaN or infinity is reported with the layer, block, sequence
//! and time step where it appears, and a finite pass returns exactly the unchecked output.

use geomattn::nalgebra::{Matrix3, SMatrix};
use geomattn::{
    Error, FieldPath, Identity, NonFinite, ResNetLayer, SequenceLayer, SkewSymmetric, SkewVpa,
    Transformer,
};

fn vpa() -> SkewVpa<f32, 3, 4> {
    SkewVpa::skew_sym(SkewSymmetric::from_packed(&[0.3, -0.2, 0.5]).unwrap())
}

fn sequence() -> SMatrix<f32, 3, 4> {
    SMatrix::from_fn(|i, j| (i + j + 1) as f32 / 4.0)
}

fn non_finite(result: Result<impl Sized, Error>) -> NonFinite {
    match result {
        Err(Error::NonFinite(found)) => found,
        Ok(_) => panic!("a non-finite value went unreported"),
        Err(other) => panic!("wrong error: {other}"),
    }
}

#[test]
fn finite_passes_equal_the_unchecked_ones() {
    let (layer, z) = (vpa(), sequence());
    assert_eq!(layer.forward_checked(&z).unwrap(), layer.forward(&z));
    let batch = [z, z * 2.0, -z];
    let mut checked = [SMatrix::zeros(); 3];
    let mut unchecked = [SMatrix::zeros(); 3];
    layer.forward_batch_checked(&batch, &mut checked).unwrap();
    layer.forward_batch(&batch, &mut unchecked).unwrap();
    assert_eq!(checked, unchecked);
}

#[test]
fn names_the_time_step_of_a_bad_input() {
    for (step, value) in [(0, f32::NAN), (2, f32::INFINITY), (3, f32::NEG_INFINITY)] {
        let mut z = sequence();
        z[(1, step)] = value;
        let found = non_finite(vpa().forward_checked(&z));
        assert_eq!(
            found,
            NonFinite {
                sequence: None,
                block: None,
                field: FieldPath::default(),
                layer: "input",
                step
            }
        );
    }
}

#[test]
fn names_the_layer_whose_output_overflows() {
    // x + W x with every entry of W = 3·10³⁸ overflows f32 for every nonzero column of positive
    // entries: the first column is zero, so the second is the first to overflow.
    let huge = ResNetLayer::<f32, 3, Identity>::new(Matrix3::from_element(3e38), None);
    let mut z = sequence();
    z.set_column(0, &SMatrix::<f32, 3, 1>::zeros());
    let found = non_finite(huge.forward_checked(&z));
    assert_eq!(
        (found.layer, found.step, found.block),
        ("ResNetLayer", 1, None)
    );
    assert_eq!(
        found.to_string(),
        "non-finite value at time step 1 in the output of ResNetLayer"
    );
}

#[test]
fn networks_name_the_block() {
    let calm = ResNetLayer::<f32, 3, Identity>::new(Matrix3::zeros(), None);
    let huge = ResNetLayer::<f32, 3, Identity>::new(Matrix3::from_element(1e38), None);
    let net = Transformer::new([(vpa(), calm), (vpa(), calm), (vpa(), huge)]);
    let found = non_finite(net.forward_checked(&sequence()));
    assert_eq!((found.layer, found.block), ("ResNetLayer", Some(2)));
    assert_eq!(
        found.to_string(),
        format!(
            "non-finite value at time step {} in the output of ResNetLayer (block 2)",
            found.step
        )
    );
    // The same network without the bad block is finite, and equals the unchecked pass.
    let fine = Transformer::new([(vpa(), calm), (vpa(), calm)]);
    assert_eq!(
        fine.forward_checked(&sequence()).unwrap(),
        fine.forward(&sequence())
    );
}

#[test]
fn batches_name_the_sequence() {
    let layer = vpa();
    let mut bad = sequence();
    bad[(2, 1)] = f32::NAN;
    let batch = [sequence(), sequence(), bad, sequence()];
    let mut outs = [SMatrix::zeros(); 4];
    let found = non_finite(layer.forward_batch_checked(&batch, &mut outs));
    assert_eq!(
        (found.sequence, found.step, found.layer),
        (Some(2), 1, "input")
    );
    // The sequences before the bad one are written.
    assert_eq!(outs[1], layer.forward(&sequence()));

    let flat: Vec<f32> = batch.iter().flat_map(|z| z.iter().copied()).collect();
    let mut flat_out = vec![0.0; flat.len()];
    let found = non_finite(layer.forward_flat_checked(&flat, &mut flat_out));
    assert_eq!((found.sequence, found.step), (Some(2), 1));
    assert!(matches!(
        layer.forward_flat_checked(&flat[..5], &mut flat_out[..5]),
        Err(Error::BatchShape { .. })
    ));
    assert_eq!(
        found.to_string(),
        "non-finite value at time step 1 of sequence 2 in the input"
    );
}
