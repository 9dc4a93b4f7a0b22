#!/usr/bin/env bash
# Builds the seed corpora from the recorded sessions in protocol/sessions/: each session's
# sent lines become one protocol_session input (first byte: the game), and each sent line one
# parsers input. Run from the repository root: bash fuzz/seed.sh
set -euo pipefail
cd "$(dirname "$0")"
mkdir -p corpus/protocol_session corpus/parsers
i=0
for f in ../protocol/sessions/*.txt; do
  i=$((i + 1))
  case "$f" in
    *connect4*) g='\x01' ;;
    *othello*) g='\x02' ;;
    *domineering*) g='\x03' ;;
    *) g='\x00' ;;
  esac
  { printf "$g"; grep '^> ' "$f" | sed 's/^> //'; } > "corpus/protocol_session/session$i"
  grep '^> ' "$f" | sed 's/^> //' | while IFS= read -r line; do
    printf '%s' "$line" > "corpus/parsers/$(printf '%s' "$line" | md5sum | cut -c1-16)"
  done
done
echo "seeded: $(ls corpus/protocol_session | wc -l) sessions, $(ls corpus/parsers | wc -l) lines"
