//! Measurements of geomattn: the report printed by the `report` binary (the project's main job)
//! and the benchmarks under `benches/`.
pub mod report;
