#!/bin/sh
# Calibration matches for UCI_Elo (protocol/strength.md).
#
#   scripts/strength_calibration.sh [TABULA] [ROUNDS]
# tabula at several UCI_Elo settings against Glaurung 2.2 (Debian `glaurung`), and the lower
# settings against the next one up (a ladder anchored on Glaurung); rounds 1-4.
#
#   scripts/strength_calibration.sh network TABULA REFERENCE [ROUNDS] [BOOK]
# round 5: each UCI_Elo setting of TABULA (its default evaluation, the network) against the
# same setting of REFERENCE with the tuned evaluation (EvalFile=<hce>), REFERENCE being a build
# with the table that rounds 1-4 measured with that evaluation (commit 9ffec7e, say). Both sides
# are node-bound at 60 s + 0.6 s, so the machine's load does not matter.
#
#   scripts/strength_calibration.sh stockfish TABULA [ROUNDS] [BOOK]
# round 6, the table now used: each UCI_Elo setting of TABULA against Stockfish 15.1 (Debian
# `stockfish`) at the same rating on Stockfish 16's scale (CCRL Blitz, anchored on the Stash
# engine's versions; 1320 is its floor, so 1000 and 1250 play its 1320). Stockfish 15.1 is set
# to the level that scale gives (its own UCI_Elo that maps to that level) and searched to the
# depth at which it picks its weakened move, 1 + int(level): both sides are node- or
# depth-bound, so neither depends on the machine or its load. 1350 is 15.1's floor (level 0.02):
# the 1347 that level 0 maps back to is refused, and 15.1 kept its default, 1350, before.
FC=${FASTCHESS:-../shared/tools/bin/fastchess}
LIMIT="option.UCI_LimitStrength=true"
if [ "$1" = stockfish ]; then
    T=$2
    R=${3:-50}
    BOOK=${4:-scripts/chess-openings-77001.epd}
    O="-openings file=$BOOK format=epd order=random -repeat -rounds $R -games 2 -concurrency 2"
    # setting, Stockfish 15.1's UCI_Elo for Stockfish 16's level at that rating, pick depth
    for row in "1000 1350 1" "1250 1350 1" "1500 1544 2" "2000 1801 5" "2400 1964 7" "2800 2279 11"; do
        set -- $row
        echo "== UCI_Elo $1 vs Stockfish 15.1 at $2 (Stockfish 16's level for $(( $1 < 1320 ? 1320 : $1 ))), depth $3"
        nice $FC -engine cmd="$T" name=elo$1 $LIMIT option.UCI_Elo=$1 tc=60+0.6 \
            -engine cmd=/usr/games/stockfish name=sf$2 $LIMIT option.UCI_Elo=$2 option.Threads=1 \
            option.Hash=16 depth=$3 $O
    done
    exit
fi
if [ "$1" = network ]; then
    T=$2
    REF=$3
    R=${4:-50}
    BOOK=${5:-scripts/openings.epd}
    O="-openings file=$BOOK format=epd order=random -repeat -rounds $R -concurrency 1 -each tc=60+0.6"
    for e in 1000 1250 1500 2000 2400 2800; do
        echo "== UCI_Elo $e: network ($T) vs tuned evaluation ($REF)"
        nice $FC -engine cmd="$T" name=net$e $LIMIT option.UCI_Elo=$e \
            -engine cmd="$REF" name=hce$e $LIMIT option.UCI_Elo=$e "option.EvalFile=<hce>" $O
    done
    exit
fi
T=${1:-target/release/tabula}
R=${2:-10}
O="-openings file=scripts/openings.epd format=epd order=random -repeat -rounds $R -concurrency 1 -each tc=2+0.02"
elo() { echo "-engine cmd=$T name=elo$1 $LIMIT option.UCI_Elo=$1"; }
# Glaurung defaults to two threads, pondering and its own book: all three switched off.
G="-engine cmd=/usr/games/glaurung name=glaurung option.Threads=1 option.Ponder=false option.OwnBook=false"
for e in 2800 2400; do
    echo "== UCI_Elo $e vs Glaurung 2.2"
    nice $FC $(elo $e) $G $O
done
echo "== UCI_Elo 2000 vs UCI_Elo 2400"
nice $FC $(elo 2000) $(elo 2400) $O
echo "== UCI_Elo 1500 vs UCI_Elo 2000"
nice $FC $(elo 1500) $(elo 2000) $O
echo "== UCI_Elo 1000 vs UCI_Elo 1500"
nice $FC $(elo 1000) $(elo 1500) $O
echo "== UCI_Elo 1250 vs UCI_Elo 1500"
nice $FC $(elo 1250) $(elo 1500) $O
echo "== UCI_Elo 1000 vs UCI_Elo 1250"
nice $FC $(elo 1000) $(elo 1250) $O
