fn main() {
    let args: Vec<String> = std::env::args().collect();
    let b = std::fs::read(&args[1]).unwrap();
    let n: usize = args[2].parse().unwrap();
    for _ in 0..n {
        roving::validate(std::hint::black_box(&b)).unwrap();
    }
}
