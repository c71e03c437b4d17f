#!/usr/bin/env bash
# The full end-to-end LoCoMo QA run of
# docs/notes/benchmark-history.md#end-to-end-answers-on-locomo-bundled-reader-all-1986-questions,
# as two parts in parallel
# (one reader thread each: a 2-core machine answers two questions at a time), then
# one merged table. Resumable: after an interruption run the same command again;
# every finished (engine, conversation) block is kept, in either part's file.
#
#   scripts/locomo_qa_full.sh path/to/locomo10.json [engines] [out-folder]
#
# Environment: REMEM_BENCH (the remem-bench command, words split on spaces; default
# remem-bench), LLM (reader, default local), PART_A and PART_B (the conversations of each part; together, every conversation).
set -euo pipefail
data=${1:?usage: $0 path/to/locomo10.json [engines] [out-folder]}
engines=${2:-hybrid,synapse}
out=${3:-bench-out}
read -ra bench <<< "${REMEM_BENCH:-remem-bench}"
part_a=${PART_A:-conv-26,conv-30,conv-41,conv-42,conv-43}
part_b=${PART_B:-conv-44,conv-47,conv-48,conv-49,conv-50}
a="$out/qa-full.jsonl"
b="$out/qa-full-b.jsonl"
mkdir -p "$out"
run=("${bench[@]}" locomo --data "$data" --answer --llm "${LLM:-local}" --llm-threads 1
     --engines "$engines" --resume)
# each part also keeps the blocks the other file holds complete, so blocks that
# ended up in the "wrong" file in an earlier split are never answered twice
"${run[@]}" --conversations "$part_a" --jsonl "$a" --resume-from "$b" > "$out/qa-full.txt" 2> "$out/qa-full.err" &
pid_a=$!
"${run[@]}" --conversations "$part_b" --jsonl "$b" --resume-from "$a" > "$out/qa-full-b.txt" 2> "$out/qa-full-b.err" &
pid_b=$!
wait "$pid_a"
wait "$pid_b"
# every block is complete in one of the files: this runs nothing and writes the table
"${run[@]}" --jsonl "$a" --resume-from "$b" --json "$out/qa-full.json" --markdown "$out/qa-full.md"
