//! The main job: instantiates geomattn's layers for a range of sizes with seeded weights, runs a
//! batch through them, and prints what they preserve, how they agree with the generic baselines,
//! and how long they take.

fn main() {
    println!("# geomattn report\n");
    println!("{}", geomattn_benches::report::cayley::table());
    println!("{}", geomattn_benches::report::vpa::table());
    println!("{}", geomattn_benches::report::attention::table());
    println!("{}", geomattn_benches::report::gml::table());
    println!("{}", geomattn_benches::report::supporting::table());
}
