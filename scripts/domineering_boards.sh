#!/usr/bin/env bash
# Solves every empty Domineering board R x C with R <= C <= MAX (rows x columns; Vertical
# dominoes span two rows), both first movers, each solve under a time limit, and prints
# markdown table rows: board, winner with Vertical first, winner with Horizontal first,
# outcome class (V, H, N: the first player wins, P: the second player wins), the class of the
# transposed board C x R (the same game with the players' roles swapped: V and H trade places),
# nodes and seconds of each solve. A square board with Horizontal first is the transpose of
# itself with Vertical first: it is not solved again (its column is marked "(transpose)").
# With OBSEQUI=/path/to/Obsequi (Bullock's solver, an independent oracle) every board is
# solved by it too, under OBSEQUI_LIMIT seconds (default: the same limit), and a last column
# says whether the winners agree.
# Usage: scripts/domineering_boards.sh [MAX] [LIMIT_SECONDS] [THREADS] [HASH_MB]
# (defaults 10, 300, 2, 0 = tabula's default table). A solve out of time shows "-".
# FROM=C starts at column C (the boards R x C' with C' >= C only, to extend a table already
# made); SKIP_AFTER=K gives up on the rest of a row once K boards in a row of it ran out of
# time with both first movers (the boards only grow along a row), marking them "skipped".
# The Obsequi check is only asked where tabula answered.
set -u
T=${TABULA:-target/release/tabula}
max=${1:-10}
limit=${2:-300}
threads=${3:-2}
hash=${4:-0}
obs=${OBSEQUI:-}
obs_limit=${OBSEQUI_LIMIT:-$limit}
from=${FROM:-1}
skip_after=${SKIP_AFTER:-0}

# solve ROWS COLS FIRST(v|h) -> "winner nodes seconds" (winner V, H or -)
solve() {
  local start out ms w n
  start=$(date +%s%N)
  out=$(timeout "$limit" "$T" solve --game domineering --rows "$1" --cols "$2" --first "$3" \
    --threads "$threads" --hash "$hash" 2>/dev/null | tail -1)
  ms=$(( ($(date +%s%N) - start) / 1000000 ))
  w=$(echo "$out" | sed -n 's/.*: \(Vertical\|Horizontal\) wins.*/\1/p' | cut -c1)
  n=$(echo "$out" | sed -n 's/.*nodes \([0-9]*\);.*/\1/p')
  if [ -z "$w" ]; then echo "- - -"; else printf "%s %s %d.%d\n" "$w" "$n" $((ms / 1000)) $((ms % 1000 / 100)); fi
}

# oracle ROWS COLS FIRST(V|H) -> winner (V, H or -)
oracle() {
  local w
  w=$(echo "solve rows $1 cols $2 bits 24 $3" | timeout "$obs_limit" "$obs" 2>/dev/null \
    | sed -n 's/^winner \([VH]\).*/\1/p')
  echo "${w:--}"
}

head="| board | Vertical first | Horizontal first | class | transpose | nodes (V first / H first) | seconds (V / H) |"
rule="|---|---|---|---|---|---|---|"
if [ -n "$obs" ]; then head="$head Obsequi (V / H) |"; rule="$rule---|"; fi
echo "$head"
echo "$rule"
swap() { case "$1" in V) echo H ;; H) echo V ;; *) echo "$1" ;; esac; }
for r in $(seq "$max"); do
  failed=0
  start_col=$r
  if [ "$from" -gt "$start_col" ]; then start_col=$from; fi
  for c in $(seq "$start_col" "$max"); do
    if [ "$skip_after" -gt 0 ] && [ "$failed" -ge "$skip_after" ]; then
      line="| ${r}x${c} | skipped | skipped | - | ${c}x${r}: - | - | - |"
      if [ -n "$obs" ]; then line="$line - |"; fi
      echo "$line"
      continue
    fi
    read -r wv nv sv <<<"$(solve "$r" "$c" v)"
    if [ "$r" = "$c" ]; then
      wh=$(swap "$wv"); nh="(transpose)"; sh="-"
    else
      read -r wh nh sh <<<"$(solve "$r" "$c" h)"
    fi
    if [ "$wv" = - ] && [ "$wh" = - ]; then failed=$((failed + 1)); else failed=0; fi
    if [ "$wv" = - ] || [ "$wh" = - ]; then class=-
    elif [ "$wv" = "$wh" ]; then class=$wv
    elif [ "$wv" = V ]; then class=N
    else class=P; fi
    line="| ${r}x${c} | $wv | $wh | $class | ${c}x${r}: $(swap "$class") | $nv / $nh | $sv / $sh |"
    if [ -n "$obs" ]; then
      ov=-; oh=-
      if [ "$wv" != - ]; then ov=$(oracle "$r" "$c" V); fi
      if [ "$wh" != - ] && [ "$r" != "$c" ]; then oh=$(oracle "$r" "$c" H); fi
      if [ "$r" = "$c" ]; then oh=$(swap "$ov"); fi
      if [ "$ov" = - ] || [ "$oh" = - ] || [ "$wv" = - ] || [ "$wh" = - ]; then agree="$ov / $oh"
      elif [ "$ov" = "$wv" ] && [ "$oh" = "$wh" ]; then agree="$ov / $oh, agree"
      else agree="$ov / $oh, DIFFER"; fi
      line="$line $agree |"
    fi
    echo "$line"
  done
done
