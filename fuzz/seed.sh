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
# The loaders' targets start from real files: the committed tables, a shard of each kind,
# the book, the weights, checkpoints of both solvers, the PGN and .obf test files.
tabula=../target/release/tabula
[ -x "$tabula" ] || (cd .. && cargo build --release)
mkdir -p corpus/tables corpus/shards corpus/book corpus/weights corpus/checkpoints corpus/records
i=0
for stem in KBNvK KBvK KNvK KPvK KQvK KQvKR KRvK KRvKB KRvKN KRvKP KRvKR; do
  { printf "\\x$(printf %02x $i)"; cat "../tests/data/syzygy/$stem.rtbw"; } > "corpus/tables/$stem.rtbw"
  { printf "\\x$(printf %02x $((i + 128)))"; cat "../tests/data/syzygy/$stem.rtbz"; } > "corpus/tables/$stem.rtbz"
  i=$((i + 1))
done
tmp=$(mktemp -d)
"$tabula" datagen --game chess --games 3 --nodes 300 --seed 1 --threads 1 --out corpus/shards/chess.bin >/dev/null 2>&1
"$tabula" --game othello datagen --games 2 --nodes 300 --seed 1 --threads 1 --out corpus/shards/othello.bin >/dev/null 2>&1
cp ../src/games/othello/book.bin corpus/book/book.bin
cp ../weights/chess-hce.bin ../weights/chess-nnue.bin corpus/weights/
echo 4444 | "$tabula" solve --game connect4 --hash 1 --checkpoint corpus/checkpoints/connect4.ckpt >/dev/null 2>&1
"$tabula" solve --game domineering --rows 4 --cols 4 --hash 1 --checkpoint corpus/checkpoints/domineering.ckpt >/dev/null 2>&1
cp ../tests/data/game.pgn corpus/records/
cp ../tests/data/othello-midgame.obf corpus/records/
cp ../tests/data/fforum-1-19.obf corpus/records/
rm -rf "$tmp"
for t in tables shards book weights checkpoints records; do
  echo "seeded $t: $(ls corpus/$t | wc -l) files"
done
echo "seeded: $(ls corpus/protocol_session | wc -l) sessions, $(ls corpus/parsers | wc -l) lines"
