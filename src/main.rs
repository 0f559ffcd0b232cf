//! The `gomoku-cli` binary: parse the command line, run, map the outcome to an exit code.

fn main() {
    println!("gomoku-cli {}", env!("CARGO_PKG_VERSION"));
}
