-- PostgreSQL twin of ../sqlite/0010_report_diagnostic_counts.sql.
DELETE FROM run_analyses;
