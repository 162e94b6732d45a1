fn main() {
    let _ = geomattn_macros::cayley!(4, method = elimination);
}
