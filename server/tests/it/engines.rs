//! The two engines' migrations (`migrations/sqlite`, `migrations/postgres`) make the same
//! tables with the same columns, in the same order, with the same nullability and kinds of
//! value — against a real PostgreSQL, the one `cargo xtask test` starts
//! (`TRACESCOPE_TEST_POSTGRES`).

use sqlx::Connection as _;

/// Runs one statement built here (a database name this test chose).
async fn statement(connection: &mut sqlx::PgConnection, sql: String) {
    sqlx::query(sqlx::AssertSqlSafe(sql))
        .execute(connection)
        .await
        .expect("the statement runs");
}

/// A column: table, name, kind of value (`integer`, `text` or `bytes`), nullable.
type Column = (String, String, &'static str, bool);

fn kind(declared: &str) -> &'static str {
    match declared.to_ascii_lowercase().as_str() {
        "integer" | "bigint" => "integer",
        "text" => "text",
        "blob" | "bytea" => "bytes",
        _ => "other",
    }
}

async fn sqlite_columns() -> Vec<Column> {
    let dir = tempfile::tempdir().expect("temp dir");
    let server::db::Pool::Sqlite(pool) = server::db::open(&dir.path().join("engines.db"))
        .await
        .expect("SQLite migrates")
    else {
        panic!("a file path opens SQLite");
    };
    let tables: Vec<String> = sqlx::query_scalar(
        "SELECT name FROM sqlite_master WHERE type = 'table'
           AND name NOT LIKE '\\_sqlx%' ESCAPE '\\' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\'
         ORDER BY name",
    )
    .fetch_all(&pool)
    .await
    .expect("tables");
    let mut columns = Vec::new();
    for table in tables {
        let rows: Vec<(String, String, i64)> =
            sqlx::query_as("SELECT name, type, \"notnull\" FROM pragma_table_info(?) ORDER BY cid")
                .bind(&table)
                .fetch_all(&pool)
                .await
                .expect("columns");
        columns.extend(rows.into_iter().map(|(name, declared, not_null)| {
            (table.clone(), name, kind(&declared), not_null == 0)
        }));
    }
    columns
}

async fn postgres_columns(url: &str) -> Vec<Column> {
    // A database of its own, dropped afterwards.
    let database = format!("engines_{}", std::process::id());
    let mut admin = sqlx::PgConnection::connect(url)
        .await
        .expect("PostgreSQL answers");
    statement(&mut admin, format!("DROP DATABASE IF EXISTS {database}")).await;
    statement(&mut admin, format!("CREATE DATABASE {database}")).await;
    let own_url = format!(
        "{}/{database}",
        url.rsplit_once('/').map_or(url, |(base, _)| base)
    );
    // Opened as the server opens its store, which migrates it.
    let server::db::Pool::Postgres(pool) = server::db::open(server::db::Target::parse(&own_url))
        .await
        .expect("PostgreSQL migrates")
    else {
        panic!("a postgres:// URL opens PostgreSQL");
    };
    let rows: Vec<(String, String, String, String)> = sqlx::query_as(
        "SELECT table_name::text, column_name::text, data_type::text, is_nullable::text
         FROM information_schema.columns
         WHERE table_schema = 'public' AND table_name NOT LIKE '\\_sqlx%'
         ORDER BY table_name, ordinal_position",
    )
    .fetch_all(&pool)
    .await
    .expect("columns");
    pool.close().await;
    statement(&mut admin, format!("DROP DATABASE {database}")).await;
    rows.into_iter()
        .map(|(table, name, declared, nullable)| (table, name, kind(&declared), nullable == "YES"))
        .collect()
}

#[tokio::test]
async fn both_engines_migrate_to_the_same_tables_and_columns() {
    let Ok(url) = std::env::var("TRACESCOPE_TEST_POSTGRES") else {
        // `cargo xtask test` starts a PostgreSQL when it can (and says when it cannot).
        eprintln!("TRACESCOPE_TEST_POSTGRES is not set: PostgreSQL's migrations not compared");
        return;
    };
    let sqlite = sqlite_columns().await;
    assert!(sqlite.len() > 40, "{sqlite:?}");
    assert!(sqlite.iter().all(|c| c.2 != "other"), "{sqlite:?}");
    let postgres = postgres_columns(&url).await;
    assert_eq!(postgres, sqlite);
}
