-- What the importer said about a run's trace (values it read other than written, records it
-- skipped, files it left unread), as a JSON array of sentences, shown on the run's page.
ALTER TABLE runs ADD COLUMN notes_json TEXT NOT NULL DEFAULT '[]';
