//! Benchmarks and report.
