#!/usr/bin/env bash
# The fuzzing campaign behind the table in README.md: each importer forced in turn, seeded from
# corpus/<format>/ (see README.md), with the budget of a 1 MiB-upload server in force, until
# 10 M executions or SECONDS_PER_FORMAT seconds. Logs go to logs/<format>.log.
set -u
cd "$(dirname "$0")"
seconds=${SECONDS_PER_FORMAT:-600}
mkdir -p logs artifacts
for format in ${FORMATS:-tracescope-json tracescope-binary tmon chrome-json paraver shiviz paje otf2}; do
    mkdir -p "corpus/$format" "artifacts/$format"
    TRACESCOPE_FUZZ_FORMAT=$format cargo +nightly fuzz run -O import_format "corpus/$format" -- \
        -runs=10000000 -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
        -max_len=65536 -print_final_stats=1 -artifact_prefix="artifacts/$format/" \
        > "logs/$format.log" 2>&1
    echo "$format: exit $?"
done
