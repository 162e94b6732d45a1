fn main() {
    let _ = geomattn::cayley!(0);
}
