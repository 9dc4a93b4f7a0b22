# For OpenBench and anyone who builds with make: `make` (or `make EXE=path/to/binary`) builds
# the release binary with cargo and copies it to $(EXE). OpenBench then runs `$(EXE) bench`,
# whose last line is `N nodes N nps`. `make EVALFILE=/abs/path/net.bin` embeds that weight file
# (a tuned evaluation or a network from `tabula train`) as the chess evaluation instead of
# weights/chess-hce.bin, as OpenBench's builds of networks do.
EXE ?= tabula
EVALFILE ?=

.PHONY: all clean

all:
	TABULA_EVALFILE="$(EVALFILE)" cargo build --release
	cp target/release/tabula $(EXE)

clean:
	cargo clean
