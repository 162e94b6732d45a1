fn main() {
    let _ = geomattn_macros::cayley!(11, strategy = elimination);
}
