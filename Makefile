# For OpenBench and anyone who builds with make: `make` (or `make EXE=path/to/binary`) builds
# the release binary with cargo and copies it to $(EXE). OpenBench then runs `$(EXE) bench`,
# whose last line is `N nodes N nps`. `make EVALFILE=/abs/path/net.bin` embeds that weight file
# (a tuned evaluation or a network from `tabula train`) as the chess evaluation instead of
# weights/chess-nnue.bin, as OpenBench's builds of networks do.
# `make TUNE=1` builds the tuning build (cargo feature `tune`): the search's constants become
# UCI options, as OpenBench's SPSA workloads set them; `tabula tune` prints their SPSA lines.
EXE ?= tabula
EVALFILE ?=
TUNE ?=
FEATURES := $(if $(TUNE),--features tune,)

.PHONY: all clean

all:
	TABULA_EVALFILE="$(EVALFILE)" cargo build --release $(FEATURES)
	cp target/release/tabula $(EXE)

clean:
	cargo clean
