//! A throw-away PostgreSQL server for the test command: Debian's `postgresql` (installed when
//! missing), a cluster made by `initdb` in a temporary directory with trust authentication,
//! started by `pg_ctl` on a free loopback port, and stopped (its directory removed) when the
//! tests are done. As root it runs as the `postgres` user: PostgreSQL refuses to run as root.

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context as _, bail};

/// A running test server; stopped when dropped.
pub struct TestPostgres {
    bin: PathBuf,
    data: PathBuf,
    as_postgres: bool,
    /// The server's URL, for `TRACESCOPE_TEST_POSTGRES`.
    pub url: String,
}

/// The newest installed PostgreSQL's `bin` folder, if any.
fn installed() -> Option<PathBuf> {
    let mut versions: Vec<(u32, PathBuf)> = std::fs::read_dir("/usr/lib/postgresql")
        .ok()?
        .flatten()
        .filter_map(|e| {
            let version = e.file_name().to_string_lossy().parse().ok()?;
            let bin = e.path().join("bin");
            bin.join("initdb").is_file().then_some((version, bin))
        })
        .collect();
    versions.sort();
    versions.pop().map(|(_, bin)| bin)
}

/// A free loopback port (free when asked; the server binds it a moment later).
fn free_port() -> anyhow::Result<u16> {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").context("finding a free port")?;
    Ok(listener.local_addr()?.port())
}

impl TestPostgres {
    /// Installs (when missing), creates and starts the server.
    pub fn start() -> anyhow::Result<TestPostgres> {
        let bin = match installed() {
            Some(bin) => bin,
            None => {
                super::apt_install(&["postgresql"])?;
                installed()
                    .context("postgresql installed, but no initdb under /usr/lib/postgresql")?
            }
        };
        let as_postgres = super::is_root();
        let data = std::env::temp_dir().join(format!("tracescope-test-pg-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&data);
        std::fs::create_dir_all(&data).with_context(|| format!("creating {}", data.display()))?;
        let mut server = TestPostgres {
            bin,
            data,
            as_postgres,
            url: String::new(),
        };
        if as_postgres {
            server.run(
                "chown",
                &["-R", "postgres:postgres", &server.data_arg()],
                false,
            )?;
        }
        let data = server.data_arg();
        server.run(
            "initdb",
            &[
                "-D",
                &data,
                "-U",
                "tracescope",
                "--auth=trust",
                "-E",
                "UTF8",
                "--no-sync",
            ],
            true,
        )?;
        let port = free_port()?;
        let options = format!(
            "-p {port} -k {data} -c listen_addresses=127.0.0.1 -c max_connections=200 -c fsync=off -c synchronous_commit=off -c full_page_writes=off"
        );
        let log = format!("{data}/server.log");
        server.run(
            "pg_ctl",
            &["-D", &data, "-l", &log, "-w", "-o", &options, "start"],
            true,
        )?;
        server.url = format!("postgres://tracescope@127.0.0.1:{port}/postgres");
        eprintln!("xtask: PostgreSQL for the tests at {}", server.url);
        Ok(server)
    }

    fn data_arg(&self) -> String {
        self.data.to_string_lossy().into_owned()
    }

    /// Runs a program (one of PostgreSQL's when `postgres_tool`), as `postgres` when root.
    fn run(&self, program: &str, args: &[&str], postgres_tool: bool) -> anyhow::Result<()> {
        let program_path = if postgres_tool {
            self.bin.join(program).to_string_lossy().into_owned()
        } else {
            program.to_owned()
        };
        let mut command = if self.as_postgres && postgres_tool {
            let mut c = Command::new("runuser");
            c.args(["-u", "postgres", "--", &program_path]);
            c
        } else {
            Command::new(&program_path)
        };
        eprintln!("xtask: $ {program} {}", args.join(" "));
        let status = command
            .args(args)
            .current_dir(Path::new("/"))
            .status()
            .with_context(|| format!("starting {program}"))?;
        if !status.success() {
            bail!("`{program} {}` failed ({status})", args.join(" "));
        }
        Ok(())
    }
}

impl Drop for TestPostgres {
    fn drop(&mut self) {
        let data = self.data_arg();
        let _ = self.run(
            "pg_ctl",
            &["-D", &data, "-m", "immediate", "-w", "stop"],
            true,
        );
        let _ = std::fs::remove_dir_all(&self.data);
    }
}
