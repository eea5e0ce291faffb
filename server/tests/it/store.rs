//! The store a test runs on: a fresh SQLite file (always), or a fresh database on a real
//! PostgreSQL when `TRACESCOPE_TEST_ENGINE=postgres` — then `TRACESCOPE_TEST_POSTGRES` is the
//! server's URL (`cargo xtask test` starts one, and runs the server's tests a second time so).

use std::path::Path;
use std::sync::atomic::{AtomicU32, Ordering};

use server::db::{self, Target};

/// Which engine this test process runs on.
pub fn on_postgres() -> bool {
    match std::env::var("TRACESCOPE_TEST_ENGINE").as_deref() {
        Ok("postgres") => true,
        Ok("sqlite") | Err(_) => false,
        Ok(other) => panic!("TRACESCOPE_TEST_ENGINE is sqlite or postgres, not {other:?}"),
    }
}

/// The PostgreSQL server's URL (a database on it that its user may create others from).
fn admin_url() -> String {
    std::env::var("TRACESCOPE_TEST_POSTGRES").expect(
        "TRACESCOPE_TEST_ENGINE=postgres needs TRACESCOPE_TEST_POSTGRES (`cargo xtask test` sets both)",
    )
}

/// A fresh, empty store, removed when dropped (a PostgreSQL database with its connections).
pub struct TestStore {
    /// What `--db` and [`db::open`] take.
    pub target: Target,
    /// The PostgreSQL database's name, when on PostgreSQL.
    database: Option<String>,
}

/// Runs `future` to its end on a thread and runtime of its own (so a test may call this from
/// inside or outside an async runtime).
fn blocking<T: Send + 'static>(future: impl std::future::Future<Output = T> + Send + 'static) -> T {
    std::thread::spawn(move || {
        tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("a runtime")
            .block_on(future)
    })
    .join()
    .expect("the admin thread")
}

/// A connection to the server's own database.
async fn admin_connection() -> sqlx::PgConnection {
    use sqlx::Connection as _;
    sqlx::PgConnection::connect(&admin_url())
        .await
        .expect("the test PostgreSQL answers")
}

/// Runs a few statements on the server's own database.
fn admin(statements: Vec<String>) {
    blocking(async move {
        let mut connection = admin_connection().await;
        for sql in statements {
            sqlx::query(sqlx::AssertSqlSafe(sql))
                .execute(&mut connection)
                .await
                .expect("the statement runs");
        }
    });
}

impl TestStore {
    /// A store for a test whose files live in `dir`: `dir/<file>` on SQLite, a new database on
    /// PostgreSQL.
    pub fn new(dir: &Path, file: &str) -> TestStore {
        if !on_postgres() {
            return TestStore {
                target: Target::File(dir.join(file)),
                database: None,
            };
        }
        static NEXT: AtomicU32 = AtomicU32::new(0);
        let database = format!(
            "test_{}_{}",
            std::process::id(),
            NEXT.fetch_add(1, Ordering::Relaxed)
        );
        admin(vec![format!("CREATE DATABASE {database}")]);
        let url = admin_url();
        let base = url.rsplit_once('/').map_or(url.as_str(), |(base, _)| base);
        TestStore {
            target: Target::Postgres(format!("{base}/{database}")),
            database: Some(database),
        }
    }

    /// What `--db` takes.
    pub fn arg(&self) -> String {
        match &self.target {
            Target::File(path) => path.to_string_lossy().into_owned(),
            Target::Postgres(url) => url.clone(),
        }
    }

    /// Opens (and migrates) the store.
    pub async fn open(&self) -> db::Pool {
        db::open(self.target.clone())
            .await
            .expect("the store opens")
    }
}

impl Drop for TestStore {
    fn drop(&mut self) {
        if let Some(database) = self.database.take()
            && !std::thread::panicking()
        {
            admin(vec![format!("DROP DATABASE {database} WITH (FORCE)")]);
        }
    }
}

impl TestStore {
    /// On PostgreSQL, whether a connection to this store is inside a transaction that has
    /// begun storing a run (`None` on SQLite, which cannot be asked from outside).
    pub fn storing_a_run(&self) -> Option<bool> {
        let database = self.database.clone()?;
        let open = blocking(async move {
            let open: i64 = sqlx::query_scalar(
                "SELECT COUNT(*) FROM pg_stat_activity
                 WHERE datname = $1 AND xact_start IS NOT NULL AND query LIKE 'INSERT INTO run%'",
            )
            .bind(database)
            .fetch_one(&mut admin_connection().await)
            .await
            .expect("pg_stat_activity");
            open > 0
        });
        Some(open)
    }
}

/// `sql` (with `$1`, `$2`, … bound to `binds`) answers one integer.
pub async fn count(pool: &db::Pool, sql: &'static str, binds: &[&str]) -> i64 {
    server::on_engine!(pool, |pool| {
        let mut query = sqlx::query_scalar::<_, i64>(sql);
        for bind in binds {
            query = query.bind(*bind);
        }
        query.fetch_one(pool).await.expect("the count")
    })
}
