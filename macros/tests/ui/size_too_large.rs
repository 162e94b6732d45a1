fn main() {
    let _ = geomattn_macros::cayley!(13, strategy = elimination);
}
