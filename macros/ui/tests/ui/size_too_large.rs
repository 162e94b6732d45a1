fn main() {
    let _ = geomattn::cayley!(13, strategy = elimination);
}
