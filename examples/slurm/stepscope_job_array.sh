#!/usr/bin/env bash
# The map step of a many-rank stepscope analysis on Slurm: one array task per slice of the
# trace files, each writing small per-rank summaries; stepscope_merge.sh (submitted with
# --dependency=afterok:<this array's job id>) makes the job report from them.
#
#   N=$(find "$PWD/traces" -maxdepth 1 -type f \( -name '*.json' -o -name '*.json.gz' \) | wc -l)
#   jid=$(sbatch --parsable --array=0-$((N - 1))%64 \
#           --export=ALL,TRACE_DIR="$PWD/traces",SUMMARY_DIR="$PWD/summaries" \
#           examples/slurm/stepscope_job_array.sh)
#   sbatch --dependency=afterok:"${jid%%;*}" \
#           --export=ALL,SUMMARY_DIR="$PWD/summaries",OUT="$PWD/job" \
#           examples/slurm/stepscope_merge.sh
#
# Task T of an array of K tasks (--array=0-(K-1)) summarises the files T, T+K, T+2K, ... of the
# sorted list of TRACE_DIR's *.json / *.json.gz files, so K may be smaller than the number of
# ranks (--array=0-63 for 1024 traces: 16 files per task). Any file name works (spaces,
# several dots): summaries are named "<trace file name>.summary.json".
#
# Environment: TRACE_DIR (required), SUMMARY_DIR (required; created), STEPSCOPE (the command,
# default "stepscope"), SLURM_ARRAY_TASK_ID and SLURM_ARRAY_TASK_COUNT (set by Slurm; without a
# count the task does only file number SLURM_ARRAY_TASK_ID).
#SBATCH --job-name=stepscope-summarize
#SBATCH --ntasks=1
#SBATCH --cpus-per-task=2
#SBATCH --mem=8G
#SBATCH --time=00:30:00
#SBATCH --output=stepscope-summarize-%A_%a.out
set -euo pipefail

: "${TRACE_DIR:?set TRACE_DIR to the folder with one trace per rank}"
: "${SUMMARY_DIR:?set SUMMARY_DIR to the folder for the summaries}"
: "${SLURM_ARRAY_TASK_ID:?run as a Slurm array task (sbatch --array=...)}"
STEPSCOPE=${STEPSCOPE:-stepscope}
task=$SLURM_ARRAY_TASK_ID
count=${SLURM_ARRAY_TASK_COUNT:-0}

mapfile -d '' files < <(find "$TRACE_DIR" -maxdepth 1 -type f \
  \( -name '*.json' -o -name '*.json.gz' \) ! -name '.*' ! -name '*.summary.json' -print0 |
  LC_ALL=C sort -z)
if ((${#files[@]} == 0)); then
  echo "stepscope_job_array: no *.json or *.json.gz files in $TRACE_DIR" >&2
  exit 2
fi
if ((task >= ${#files[@]})); then
  echo "stepscope_job_array: task $task has no file (${#files[@]} traces)"
  exit 0
fi
mkdir -p "$SUMMARY_DIR"

step=$((count > 0 ? count : ${#files[@]}))
for ((i = task; i < ${#files[@]}; i += step)); do
  trace=${files[i]}
  "$STEPSCOPE" summarize "$trace" -o "$SUMMARY_DIR/${trace##*/}.summary.json"
done
