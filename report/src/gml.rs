//! Networks trained in GeometricMachineLearning.jl, loaded from its HDF5 files, against the free
//! rigid body integrated with the implicit midpoint rule: error of one prediction, error of a
//! rollout to 60 states, and time per prediction.

use geomattn::SequenceLayer;
use geomattn::Tanh;
use geomattn::gml::load_file;
use geomattn::nalgebra::{SMatrix, Vector3};
use geomattn::{MultiHeadAttention, NoConnection, Schema};
use geomattn::{
    StandardTransformerIntegrator, VolumePreservingFeedForward, VolumePreservingTransformer,
    iterate,
};
use geomattn_networks::rigid_body;
use geomattn_testkit::fixture;
use std::hint::black_box;

use super::{Table, nanos, sci, time_per_call};

/// States in a rollout, the initial ones included.
const N_POINTS: usize = 60;

/// The table, one row per fixture network (f64).
pub fn table() -> Table {
    let mut table = Table::new(
        "GML-trained networks on the rigid body (z₀ = (0, sin 1.1, cos 1.1), h = 0.2, f64)",
        &[
            "network",
            "layers",
            "next prediction error",
            "rollout error (60 states)",
            "ns/prediction",
        ],
    );
    row::<VolumePreservingTransformer<f64, 3, 3, 2, 1, 3, Tanh>, 3, 3>(
        &mut table,
        "VolumePreservingTransformer",
        "transformer_rigid_body_nn_vpt.h5",
    );
    row::<
        StandardTransformerIntegrator<
            f64,
            3,
            MultiHeadAttention<f64, 3, 1, 3, NoConnection>,
            2,
            3,
            Tanh,
        >,
        3,
        3,
    >(
        &mut table,
        "StandardTransformerIntegrator",
        "transformer_rigid_body_nn_st.h5",
    );
    row::<VolumePreservingFeedForward<f64, 3, 6, 1, Tanh>, 1, 1>(
        &mut table,
        "VolumePreservingFeedForward",
        "transformer_rigid_body_nn_vpff.h5",
    );
    table
}

fn row<N, const T: usize, const P: usize>(table: &mut Table, name: &str, file: &str)
where
    N: Schema<Scalar = f64> + SequenceLayer<f64, 3, T>,
{
    let path = fixture(file);
    let net: N = match load_file(&path) {
        Ok(net) => net,
        Err(error) => {
            let failed = format!("cannot load: {error}");
            table.row(vec![
                name.into(),
                failed,
                "—".into(),
                "—".into(),
                "—".into(),
            ]);
            return;
        }
    };
    let mut states = [Vector3::zeros(); N_POINTS];
    rigid_body::trajectory(&rigid_body::initial_state(1.1), rigid_body::H, &mut states);
    let window = SMatrix::<f64, 3, T>::from_columns(&states[..T]);
    let next = SMatrix::<f64, 3, T>::from_columns(&states[T..2 * T]);
    let error = (net.forward(&window) - next).amax();
    let mut rollout = [Vector3::zeros(); N_POINTS];
    iterate::<f64, 3, T, P, N>(&net, &window, &mut rollout);
    let roll = rollout
        .iter()
        .zip(&states)
        .map(|(a, b)| (a - b).amax())
        .fold(0.0, f64::max);
    let time = time_per_call(2000, 7, || {
        black_box(net.forward(black_box(&window)));
    });
    table.row(vec![
        name.into(),
        N::LAYERS.to_string(),
        sci(error),
        sci(roll),
        nanos(time),
    ]);
}
