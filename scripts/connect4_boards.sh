#!/usr/bin/env bash
# Strong solves of the empty Connect Four board for every width 4..8 and height 4..7, each under
# a time limit, as markdown table rows: width, height, score (first player's view), outcome,
# first move, nodes, seconds. Usage: scripts/connect4_boards.sh [LIMIT_SECONDS] [HASH_MB] [THREADS]
# (defaults 1800, 1024, 2). A row whose solve ran out of time says so.
set -u
T=${TABULA:-target/release/tabula}
limit=${1:-1800}
hash=${2:-1024}
threads=${3:-2}
echo "| board (w x h) | score | outcome | first move | nodes | seconds |"
echo "|---|---|---|---|---|---|"
for h in 4 5 6 7; do
  for w in 4 5 6 7 8; do
    fen=$(printf "%s/" $(for _ in $(seq "$h"); do echo "$w"; done) | sed 's|/$||')" r 1"
    start=$(date +%s%N)
    out=$(timeout "$limit" "$T" solve --game connect4 --fen "$fen" --threads "$threads" --hash "$hash" 2>/dev/null | head -1)
    ms=$(( ($(date +%s%N) - start) / 1000000 ))
    if [ -z "$out" ]; then
      echo "| ${w}x${h} | - | not solved in ${limit} s | - | - | - |"
      continue
    fi
    # "<fen> <score> best <col> nodes <n> time <us> us"
    set -- $out
    shift $(( $# - 8 ))
    score=$1; best=$3; nodes=$5
    if [ "$score" -gt 0 ]; then outcome="first player wins"; elif [ "$score" -lt 0 ]; then outcome="second player wins"; else outcome="draw"; fi
    printf "| %sx%s | %s | %s | %s | %s | %d.%d |\n" "$w" "$h" "$score" "$outcome" "$best" "$nodes" $((ms / 1000)) $((ms % 1000 / 100))
  done
done
