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
FC=${FASTCHESS:-../shared/tools/bin/fastchess}
LIMIT="option.UCI_LimitStrength=true"
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
