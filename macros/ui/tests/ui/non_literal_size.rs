fn transform<const T: usize>(c: &geomattn::nalgebra::SMatrix<f64, T, T>) {
    let _ = geomattn::cayley!(T)(c);
}

fn main() {}
