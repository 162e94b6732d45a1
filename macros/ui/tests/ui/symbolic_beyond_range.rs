fn main() {
    let _ = geomattn::cayley!(9, strategy = symbolic);
}
