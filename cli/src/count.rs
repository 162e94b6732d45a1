//! The counts a user gives on the command line (`rollout --states`, `check --samples`): whole
//! numbers from 1 to a documented maximum, checked by clap before anything runs, so that a typo
//! (`2^64 − 1`, a wrapped `−1`, `1e12`) is one line and exit code 2 instead of hours of work or
//! an allocation that aborts.
//!
//! The maxima are where a count stops being a request and becomes a typo, not what memory could
//! hold (a rollout streams, a check draws its inputs one by one):
//! - [`MAX_STATES`], 10⁹ states: already tens of gigabytes of CSV (about 60 bytes a state of
//!   `dim = 3`) and hours of forward passes; a plot shows at most [`crate::plot::MAX_POINTS`]
//!   of them anyway.
//! - [`MAX_TRAIN`], 10⁹ epochs or windows per minibatch for `train`.
//! - [`MAX_SAMPLES`], 10⁶ random inputs: each is an exact Jacobian (`dim·seq` backward
//!   passes); a million take minutes on the bundled networks, while the default 100 already
//!   find the worst case to the digit the table shows.

/// The most states `rollout --states` writes.
pub const MAX_STATES: usize = 1_000_000_000;

/// The most random inputs `check --samples` measures (the library's bound).
pub const MAX_SAMPLES: usize = geomattn_networks::structure::MAX_SAMPLES;

/// clap's parser of `--states`.
///
/// # Errors
/// The reason, for clap's one-line message.
pub fn states(text: &str) -> Result<usize, String> {
    within(text, MAX_STATES)
}

/// clap's parser of `--samples`.
///
/// # Errors
/// The reason, for clap's one-line message.
pub fn samples(text: &str) -> Result<usize, String> {
    within(text, MAX_SAMPLES)
}

/// The most epochs and the largest minibatch `train` takes: beyond them a count is a typo.
pub const MAX_TRAIN: usize = 1_000_000_000;

/// clap's parser of `train --epochs`.
///
/// # Errors
/// The reason, for clap's one-line message.
pub fn epochs(text: &str) -> Result<u64, String> {
    within(text, MAX_TRAIN).map(|n| n as u64)
}

/// clap's parser of `train --batch`.
///
/// # Errors
/// The reason, for clap's one-line message.
pub fn batch(text: &str) -> Result<usize, String> {
    within(text, MAX_TRAIN)
}

/// `text` as a whole number in `1..=max` (digits only).
fn within(text: &str, max: usize) -> Result<usize, String> {
    text.parse::<usize>()
        .ok()
        .filter(|count| (1..=max).contains(count))
        .ok_or_else(|| format!("expected a whole number from 1 to {max} (digits only)"))
}

#[cfg(test)]
mod tests {
    use super::within;

    #[test]
    fn counts_are_whole_numbers_from_one_to_the_maximum() {
        assert_eq!(within("1", 10), Ok(1));
        assert_eq!(within("10", 10), Ok(10));
        for bad in [
            "0",
            "11",
            "-1",
            "1e12",
            "2.5",
            "",
            " 3",
            "18446744073709551615",
            "18446744073709551616",
        ] {
            let error = within(bad, 10).unwrap_err();
            assert!(error.contains("from 1 to 10"), "{bad}: {error}");
        }
    }
}
