//! The `tracescope` binary: `serve` the app, `import`, `analyze` and `convert` traces,
//! `simulate` a transputer network. The commands are in `server::cli`.

use std::process::ExitCode;

use clap::Parser as _;

fn main() -> ExitCode {
    match server::cli::run(server::cli::Cli::parse()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::FAILURE
        }
    }
}
