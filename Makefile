# For OpenBench and anyone who builds with make: `make` (or `make EXE=path/to/binary`) builds
# the release binary with cargo and copies it to $(EXE). OpenBench then runs `$(EXE) bench`,
# whose last line is `N nodes N nps`. `make EVALFILE=/abs/path/net.bin` embeds that weight file
# (a tuned evaluation or a network from `tabula train`) as the chess evaluation instead of
# weights/chess-nnue.bin, as OpenBench's builds of networks do.
# `make TUNE=1` builds the tuning build (cargo feature `tune`): the search's constants become
# UCI options, as OpenBench's SPSA workloads set them; `tabula tune` prints their SPSA lines.
# Without the browser board (the cargo feature `serve`, a default one: its HTTP stack, axum,
# hyper and tokio, is not compiled), which the engine OpenBench runs does not need;
# `make SERVE=1` builds it in.
EXE ?= tabula
EVALFILE ?=
TUNE ?=
SERVE ?=
FEATURES := $(if $(SERVE),,--no-default-features) $(if $(TUNE),--features tune,)

.PHONY: all clean

# TABULA_EVALFILE is set only when EVALFILE is given: build.rs reruns when the variable changes,
# so an empty one would rebuild a binary already made.
EVALENV := $(if $(EVALFILE),TABULA_EVALFILE="$(EVALFILE)",)

all:
	$(EVALENV) cargo build --release $(FEATURES)
	cp target/release/tabula $(EXE)

clean:
	cargo clean
