fn main() {
    let _ = geomattn_macros::cayley!(17, strategy = elimination);
}
