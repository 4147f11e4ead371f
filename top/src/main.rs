fn main() {
    eprintln!("cpu-usage-top: not yet wired");
    std::process::exit(2);
}
