#!/usr/bin/env bash
# Repeated end-to-end LoCoMo QA runs that differ only in the reader's sampling seed,
# then their spread
# (docs/notes/benchmark-history.md#repeated-runs-with-sampled-decoding). Greedy decoding repeats exactly, so the
# default run's reruns have no spread; these runs sample the reader's replies
# (temperature TEMPERATURE) with one seed each, on the same questions and memories.
# Two seeds run at a time (one reader thread each). Resumable: run it again after
# an interruption and every finished (engine, conversation) block is kept.
#
#   scripts/locomo_qa_seeds.sh path/to/locomo10.json [engines] [out-folder]
#
# Environment: REMEM_BENCH (the remem-bench command, words split on spaces; default
# remem-bench), LLM (reader, default local), SEEDS (default "1 2 3 4"), TEMPERATURE (default 0.7), LIMIT (questions per conversation, default
# 20; "all" for every question).
set -euo pipefail
data=${1:?usage: $0 path/to/locomo10.json [engines] [out-folder]}
engines=${2:-hybrid,synapse}
out=${3:-bench-out/seeds}
read -ra bench <<< "${REMEM_BENCH:-remem-bench}"
read -r -a seeds <<< "${SEEDS:-1 2 3 4}"
limit=()
[ "${LIMIT:-20}" = all ] || limit=(--limit "${LIMIT:-20}")
mkdir -p "$out"
one() {
  "${bench[@]}" locomo --data "$data" --answer --llm "${LLM:-local}" --llm-threads 1 \
    --engines "$engines" "${limit[@]}" --llm-seed "$1" \
    --answer-option "temperature=${TEMPERATURE:-0.7}" --resume \
    --jsonl "$out/seed-$1.jsonl" --json "$out/seed-$1.json" --markdown "$out/seed-$1.md" \
    > "$out/seed-$1.txt" 2> "$out/seed-$1.err"
}
for ((i = 0; i < ${#seeds[@]}; i += 2)); do
  one "${seeds[i]}" &
  first=$!
  if ((i + 1 < ${#seeds[@]})); then one "${seeds[i + 1]}"; fi
  wait "$first"
done
runs=()
for s in "${seeds[@]}"; do runs+=("$out/seed-$s.jsonl"); done
"${bench[@]}" spread "${runs[@]}" --json "$out/spread.json" --markdown "$out/spread.md"
