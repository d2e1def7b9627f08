#!/usr/bin/env bash
# The reduce step: the job report from the per-rank summaries that stepscope_job_array.sh
# wrote. Submit it with --dependency=afterok:<the array's job id> so it starts only when every
# array task has succeeded (see stepscope_job_array.sh for the two sbatch lines).
#
# Environment: SUMMARY_DIR (required), OUT (required: writes OUT.json and OUT.html),
# STEPSCOPE (the command, default "stepscope").
#SBATCH --job-name=stepscope-merge
#SBATCH --ntasks=1
#SBATCH --cpus-per-task=1
#SBATCH --mem=4G
#SBATCH --time=00:15:00
#SBATCH --output=stepscope-merge-%j.out
set -euo pipefail

: "${SUMMARY_DIR:?set SUMMARY_DIR to the folder with the *.summary.json files}"
: "${OUT:?set OUT to the report path without extension}"
STEPSCOPE=${STEPSCOPE:-stepscope}

mapfile -d '' summaries < <(find "$SUMMARY_DIR" -maxdepth 1 -type f -name '*.summary.json' \
  -print0 | LC_ALL=C sort -z)
if ((${#summaries[@]} == 0)); then
  echo "stepscope_merge: no *.summary.json files in $SUMMARY_DIR" >&2
  exit 2
fi
"$STEPSCOPE" merge "${summaries[@]}" --json "$OUT.json" --html "$OUT.html"
"$STEPSCOPE" merge "${summaries[@]}"
