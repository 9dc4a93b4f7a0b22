# For OpenBench and anyone who builds with make: `make` (or `make EXE=path/to/binary`) builds
# the release binary with cargo and copies it to $(EXE). OpenBench then runs `$(EXE) bench`,
# whose last line is `N nodes N nps`.
EXE ?= tabula

.PHONY: all clean

all:
	cargo build --release
	cp target/release/tabula $(EXE)

clean:
	cargo clean
