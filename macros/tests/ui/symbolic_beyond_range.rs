fn main() {
    let _ = geomattn_macros::cayley!(9, strategy = symbolic);
}
