fn main() {
    let _ = geomattn_macros::cayley!(0);
}
