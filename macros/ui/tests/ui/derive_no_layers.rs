#[derive(geomattn::Network)]
struct Net {}

fn main() {}
