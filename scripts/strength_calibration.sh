#!/bin/sh
# Calibration matches for UCI_Elo (protocol/strength.md): tabula at several UCI_Elo settings
# against Glaurung 2.2 (Debian `glaurung`), and the lower settings against the next one up
# (a ladder anchored on Glaurung). Usage: scripts/strength_calibration.sh [TABULA] [ROUNDS]
T=${1:-target/release/tabula}
R=${2:-10}
FC=${FASTCHESS:-../shared/tools/bin/fastchess}
O="-openings file=scripts/openings.epd format=epd order=random -repeat -rounds $R -concurrency 1 -each tc=2+0.02"
elo() { echo "-engine cmd=$T name=elo$1 option.UCI_LimitStrength=true option.UCI_Elo=$1"; }
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
