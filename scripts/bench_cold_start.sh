#!/usr/bin/env bash
# Cold start of one-shot CLI calls: wall time and peak RSS of `remem add` and
# `remem search` (hybrid engine: the MiniLM embedder loads), each a fresh process,
# REPEAT times, plus the heaviest imports of one `search` (python -X importtime).
#   scripts/bench_cold_start.sh [REMEM] [REPEAT]     (REMEM defaults to `remem` on PATH)
set -euo pipefail
REMEM=${1:-remem}
REPEAT=${2:-5}
PY=$(head -1 "$(command -v "$REMEM")" | sed 's/^#!//')
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
db="$tmp/x.db"
echo "load: $(uptime | sed 's/.*load average/load average/')"
run() {  # label, then the command; prints wall seconds and peak RSS in MB
    local label=$1; shift
    /usr/bin/time -f "%e %M" -o "$tmp/t" "$@" > /dev/null
    read -r wall kb < "$tmp/t"
    printf '%-8s %6.2f s  %5d MB\n' "$label" "$wall" $((kb / 1024))
}
"$REMEM" --db "$db" add "warm-up: the first add creates the file" --user u0 > /dev/null
for i in $(seq 1 "$REPEAT"); do
    run add "$REMEM" --db "$db" add "I moved to Lisbon in May, turn $i" --user u1 --speaker Ana
    run search "$REMEM" --db "$db" search "where did Ana move?" --user u1 -k 5
done
run version "$REMEM" --version
echo "heaviest imports of one search (cumulative, ms):"
"$PY" -X importtime -c 'import sys; from remem.cli import main; sys.argv[0] = "remem"; main(sys.argv[1:])' \
    --db "$db" search "where did Ana move?" --user u1 > /dev/null 2> "$tmp/imports"
grep -E '\|\s+(onnxruntime|numpy|scipy|tokenizers|bm25s|nltk|rich|xllamacpp|remem\.[a-z_.]+)$' "$tmp/imports" \
    | awk -F'|' '{gsub(/ /, "", $2); print $2 / 1000, $3}' | sort -rn | head -12
