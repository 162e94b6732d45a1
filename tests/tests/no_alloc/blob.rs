//! Reading and writing blobs allocates nothing (the blob itself is made outside the count).

use geomattn::{
    AddConnection, MultiHeadAttention, Tanh, VolumePreservingFeedForward, blob_len, read_blob,
    read_blob_into, to_blob, write_blob,
};
use rand::SeedableRng;
use rand::rngs::SmallRng;

use crate::Probe;

pub fn check(probe: &mut Probe) {
    type Vpff = VolumePreservingFeedForward<f64, 3, 6, 1, Tanh>;
    let net: Vpff = geomattn::gml::load_file(geomattn_testkit::fixture(
        "transformer_rigid_body_nn_vpff.h5",
    ))
    .unwrap();
    let blob = to_blob(&net).unwrap();
    probe.run("read_blob (VolumePreservingFeedForward)", || {
        let back: Vpff = read_blob(&blob).unwrap();
        std::hint::black_box(back);
    });
    let mut slot = core::mem::MaybeUninit::<Vpff>::uninit();
    probe.run("read_blob_into (VolumePreservingFeedForward)", || {
        std::hint::black_box(read_blob_into(&mut slot, &blob).unwrap());
    });
    let mut out = [0_u8; blob_len::<Vpff>()];
    probe.run("write_blob (VolumePreservingFeedForward)", || {
        write_blob(&net, &mut out).unwrap();
    });
    type Mha = MultiHeadAttention<f32, 4, 2, 2, AddConnection>;
    let mha = Mha::glorot(&mut SmallRng::seed_from_u64(1));
    let blob = to_blob(&mha).unwrap();
    probe.run("read_blob (MultiHeadAttention)", || {
        std::hint::black_box(read_blob::<Mha>(&blob).unwrap());
    });
}
