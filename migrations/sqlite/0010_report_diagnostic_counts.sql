-- Reports now count diagnostics by kind and severity and keep only the first few of each kind
-- (the whole list made one report 83 MB), and the severities changed (issue 44): reports kept
-- before are dropped, and each is computed again on its next request.
DELETE FROM run_analyses;
