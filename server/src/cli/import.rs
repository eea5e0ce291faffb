//! `tracescope import`: a trace file stored as a run in a database.

use anyhow::Context as _;

use crate::db;

/// What `tracescope import --json` prints.
#[derive(serde::Serialize)]
struct ImportReport {
    id: String,
    name: String,
    format: &'static str,
    events: u64,
    messages: u64,
    source_bytes: u64,
    delete_token: String,
    db: String,
}

pub fn command(
    file: &std::path::Path,
    db: &db::Target,
    blobs: &crate::blobs::BlobStore,
    name: Option<String>,
    format: Option<shared::formats::Format>,
    json: bool,
    options: &shared::formats::ImportOptions,
) -> anyhow::Result<()> {
    let budget = &options.budget;
    if file.is_dir() {
        anyhow::bail!(
            "{} is a folder; import takes one file: pack an OTF2 archive with `tar czf trace.tar.gz -C {} .`",
            file.display(),
            file.display()
        );
    }
    let mut opened = super::files::open_trace(file, budget)?;
    let file_name = file
        .file_name()
        .map_or_else(|| "trace".to_owned(), |n| n.to_string_lossy().into_owned());
    let mut prepared =
        crate::ingest::prepare_file(&mut opened, &file_name, format, options, &|_| {})?;
    if let Some(name) = name {
        prepared.summary.name = name;
    }
    let runtime = tokio::runtime::Runtime::new().context("starting the async runtime")?;
    let stored = runtime.block_on(async {
        let pool = db::open(db.clone()).await?;
        let stored = crate::ingest::store(&pool, blobs, prepared).await?;
        pool.close().await;
        anyhow::Ok(stored)
    })?;
    let s = &stored.run.summary;
    let report = ImportReport {
        id: stored.run.id.clone(),
        name: s.name.clone(),
        format: s.format.name(),
        events: s.events,
        messages: s.messages,
        source_bytes: stored.run.source_bytes,
        delete_token: stored.delete_token.clone(),
        db: db.to_string(),
    };
    if json {
        println!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        println!(
            "stored run {} ({}, {}, {} events, {} messages) in {}\ndelete token: {}",
            report.id,
            report.name,
            report.format,
            report.events,
            report.messages,
            report.db,
            report.delete_token
        );
    }
    Ok(())
}
