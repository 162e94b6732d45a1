fn main() {
    let _ = geomattn::cayley!(4, strategy = cholesky);
}
