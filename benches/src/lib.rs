//! Benchmarks of geomattn, under `benches/`: divan timings of the Cayley kernels
//! (`benches/cayley.rs`) and their callgrind instruction counts (`benches/cayley_callgrind.rs`,
//! feature `callgrind`). The library itself is empty; the tables of the layers are the
//! `geomattn-report` program (`report/`).
