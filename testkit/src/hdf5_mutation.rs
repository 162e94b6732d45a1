//! Mutations of HDF5 files that get past their checksums: HDF5 1.10+ metadata (superblock v2/v3,
//! object headers v2 `OHDR`, their continuation chunks `OCHK`, B-tree v2 nodes, fractal heap
//! headers) ends with a Jenkins lookup3 checksum of the bytes before it, which hdf5-pure verifies.
//! The structures are found by their signatures ([`blocks`]), and a mutation inside one is
//! re-stamped ([`restamp`]) so that it reaches the parser. Used by the loader's mutation test and
//! by the campaign through every reader of the command (`tests/tests/campaign.rs`).

use crate::seeded::XorShift;

// ---------------------------------------------------------------------------------------------
// Jenkins lookup3 (`hashlittle`, initial value 0), as HDF5 uses it for metadata checksums.

fn mix(a: &mut u32, b: &mut u32, c: &mut u32) {
    *a = a.wrapping_sub(*c) ^ c.rotate_left(4);
    *c = c.wrapping_add(*b);
    *b = b.wrapping_sub(*a) ^ a.rotate_left(6);
    *a = a.wrapping_add(*c);
    *c = c.wrapping_sub(*b) ^ b.rotate_left(8);
    *b = b.wrapping_add(*a);
    *a = a.wrapping_sub(*c) ^ c.rotate_left(16);
    *c = c.wrapping_add(*b);
    *b = b.wrapping_sub(*a) ^ a.rotate_left(19);
    *a = a.wrapping_add(*c);
    *c = c.wrapping_sub(*b) ^ b.rotate_left(4);
    *b = b.wrapping_add(*a);
}

fn final_mix(a: &mut u32, b: &mut u32, c: &mut u32) {
    *c = (*c ^ *b).wrapping_sub(b.rotate_left(14));
    *a = (*a ^ *c).wrapping_sub(c.rotate_left(11));
    *b = (*b ^ *a).wrapping_sub(a.rotate_left(25));
    *c = (*c ^ *b).wrapping_sub(b.rotate_left(16));
    *a = (*a ^ *c).wrapping_sub(c.rotate_left(4));
    *b = (*b ^ *a).wrapping_sub(a.rotate_left(14));
    *c = (*c ^ *b).wrapping_sub(b.rotate_left(24));
}

/// Jenkins lookup3 (`hashlittle`, initial value 0) of `data`: HDF5's metadata checksum.
pub fn lookup3(data: &[u8]) -> u32 {
    let word = |bytes: &[u8]| {
        let mut w = [0; 4];
        w[..bytes.len()].copy_from_slice(bytes);
        u32::from_le_bytes(w)
    };
    let init = 0xdead_beef_u32.wrapping_add(data.len() as u32);
    let (mut a, mut b, mut c) = (init, init, init);
    let mut rest = data;
    while rest.len() > 12 {
        a = a.wrapping_add(word(&rest[0..4]));
        b = b.wrapping_add(word(&rest[4..8]));
        c = c.wrapping_add(word(&rest[8..12]));
        mix(&mut a, &mut b, &mut c);
        rest = &rest[12..];
    }
    if rest.is_empty() {
        return c;
    }
    // The last 1 … 12 bytes, zero-padded (adding zeros is what lookup3's byte-wise tail does).
    let mut tail = [0; 12];
    tail[..rest.len()].copy_from_slice(rest);
    a = a.wrapping_add(word(&tail[0..4]));
    b = b.wrapping_add(word(&tail[4..8]));
    c = c.wrapping_add(word(&tail[8..12]));
    final_mix(&mut a, &mut b, &mut c);
    c
}

// ---------------------------------------------------------------------------------------------
// The checksummed structures of a file.

/// A checksummed structure: `bytes[start..end]`, its checksum in the last 4 bytes.
#[derive(Debug, Clone, Copy)]
pub struct Block {
    /// Where the signature begins.
    pub start: usize,
    /// Past its checksum.
    pub end: usize,
}

/// The signatures of the checksummed structures.
pub const SIGNATURES: [&[u8]; 9] = [
    b"\x89HDF\r\n\x1a\n",
    b"OHDR",
    b"OCHK",
    b"BTHD",
    b"BTIN",
    b"BTLF",
    b"FRHP",
    b"FSHD",
    b"FSSE",
];

/// The largest structure looked for.
pub const MAX_BLOCK: usize = 4096;

/// Every signature followed, within [`MAX_BLOCK`] bytes, by the checksum of the bytes from the
/// signature to it.
pub fn blocks(bytes: &[u8]) -> Vec<Block> {
    let mut found = Vec::new();
    for start in 0..bytes.len() {
        if !SIGNATURES.iter().any(|s| bytes[start..].starts_with(s)) {
            continue;
        }
        let last = bytes.len().min(start + MAX_BLOCK);
        if let Some(end) = (start + 8..=last)
            .find(|&end| bytes[end - 4..end] == lookup3(&bytes[start..end - 4]).to_le_bytes())
        {
            found.push(Block { start, end });
        }
    }
    found
}

/// Writes the checksum of `block` anew.
pub fn restamp(bytes: &mut [u8], block: Block) {
    let checksum = lookup3(&bytes[block.start..block.end - 4]);
    bytes[block.end - 4..block.end].copy_from_slice(&checksum.to_le_bytes());
}

/// Re-stamps every block that contains `at`.
pub fn restamp_at(bytes: &mut [u8], blocks: &[Block], at: usize) {
    for block in blocks.iter().filter(|b| (b.start..b.end - 4).contains(&at)) {
        restamp(bytes, *block);
    }
}

/// Runs of 1 … 16 random bytes or of one repeated byte (0x00, 0xff) written over a random place
/// (inside a structure, re-stamped, three times in four).
pub fn overwrite(bytes: &[u8], blocks: &[Block], rng: &mut XorShift) -> (String, Vec<u8>) {
    let mut mutated = bytes.to_vec();
    let len = 1 + rng.below(16);
    let (at, block) = if rng.below(4) == 0 {
        (rng.below(bytes.len()), None)
    } else {
        let block = blocks[rng.below(blocks.len())];
        let at = block.start + 4 + rng.below((block.end - block.start - 8).max(1));
        (at, Some(block))
    };
    let fill = rng.below(3);
    let end = (at + len).min(bytes.len());
    for byte in &mut mutated[at..end] {
        *byte = match fill {
            0 => 0x00,
            1 => 0xff,
            _ => rng.next_u64() as u8,
        };
    }
    if let Some(block) = block {
        restamp(&mut mutated, block);
    }
    (format!("overwrote {at}..{end} ({fill})"), mutated)
}

/// One random mutation of `bytes`, and what it did: 1 … 4 bit flips anywhere (re-stamped half
/// the time), a cut, an [`overwrite`], or one byte of a checksummed structure set to another
/// value (0x00, 0xff, 0x02, or its low bit flipped) and re-stamped.
///
/// ```
/// use geomattn_testkit::hdf5_mutation::{blocks, mutation};
/// use geomattn_testkit::seeded::XorShift;
/// let bytes = std::fs::read(geomattn_testkit::fixture("transformer_rigid_body_nn_vpt.h5"))?;
/// let (what, mutated) = mutation(&bytes, &blocks(&bytes), &mut XorShift(7));
/// assert!(mutated != bytes, "{what}");
/// # Ok::<(), std::io::Error>(())
/// ```
pub fn mutation(bytes: &[u8], blocks: &[Block], rng: &mut XorShift) -> (String, Vec<u8>) {
    let mut mutated = bytes.to_vec();
    match rng.below(4) {
        0 => {
            let mut what = String::from("flipped");
            let restamped = rng.below(2) == 0;
            for _ in 0..=rng.below(4) {
                let (at, bit) = (rng.below(bytes.len()), rng.below(8));
                mutated[at] ^= 1 << bit;
                if restamped {
                    restamp_at(&mut mutated, blocks, at);
                }
                what += &format!(" {at}.{bit}");
            }
            (what, mutated)
        }
        1 => {
            let keep = rng.below(bytes.len());
            mutated.truncate(keep);
            (format!("cut to {keep}"), mutated)
        }
        2 => overwrite(bytes, blocks, rng),
        _ => {
            let block = blocks[rng.below(blocks.len())];
            let at = block.start + 4 + rng.below((block.end - block.start - 8).max(1));
            let value = [0x00, 0xff, 0x02, bytes[at] ^ 1][rng.below(4)];
            let value = if value == bytes[at] {
                value ^ 0x80
            } else {
                value
            };
            mutated[at] = value;
            restamp(&mut mutated, block);
            (format!("byte {at} = {value:#04x}"), mutated)
        }
    }
}

/// The message of a panic caught by `catch_unwind` (`panic!`'s text, or empty).
pub fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    payload
        .downcast_ref::<&str>()
        .map(|s| (*s).to_owned())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_default()
}
