#!/usr/bin/env python3
"""Checks a table made by scripts/domineering_boards.sh against the published outcomes of
rectangular Domineering boards that are proved for whole families (rows x columns, Vertical
moves first):

- Uiterwijk, "The impact of safe moves on perfectly solving Domineering boards, part 3:
  theorems and conjectures", ICGA Journal 37(4), 2014 (extending Lachmann, Moore and
  Rapaport, "Who wins Domineering on rectangular boards?", 2002): Vertical wins every
  2k x n board for n = 3, 5, 7, 9, 11, and 2k x 13 from k = 3; Horizontal wins every
  m x 2k board for m = 5, 9, 13, for m = 3 and 7 from k = 2, for m = 11 from k = 6.
- Uiterwijk, "11x11 Domineering is solved: the first player wins", CG 2016: Vertical wins
  8x15, 11x9, 12x8, 14x8; Horizontal wins 8x12, 9x11, 11x10.

Each row "| RxC | W_V | W_H | ..." gives the winner with Vertical first on R x C and, from
the winner with Horizontal first, the one with Vertical first on the transpose C x R.
Usage: scripts/domineering_published.py TABLE.md [MORE.md ...]; exits 1 on a disagreement.
"""
import re
import sys

SINGLE = {(8, 15): "V", (11, 9): "V", (12, 8): "V", (14, 8): "V",
          (8, 12): "H", (9, 11): "H", (11, 10): "H"}


def published(r, c):
    """The published winner with Vertical first on r x c, or None."""
    if r % 2 == 0 and (c in (3, 5, 7, 9, 11) or (c == 13 and r >= 6)):
        return "V"
    if c % 2 == 0 and (r in (5, 9, 13) or (r in (3, 7) and c >= 4) or (r == 11 and c >= 12)):
        return "H"
    return SINGLE.get((r, c))


def main():
    swap = {"V": "H", "H": "V"}
    found = {}
    for path in sys.argv[1:]:
        for line in open(path, encoding="utf-8"):
            m = re.match(r"\| (\d+)x(\d+) \| (\S+) \| (\S+) \|", line)
            if not m:
                continue
            r, c, wv, wh = int(m[1]), int(m[2]), m[3], m[4]
            if wv in ("V", "H"):
                found[(r, c)] = wv
            if wh in ("V", "H"):
                found[(c, r)] = swap[wh]
    agree = differ = 0
    for (r, c), w in sorted(found.items()):
        p = published(r, c)
        if p is None:
            continue
        same = p == w
        agree += same
        differ += not same
        print(f"{r}x{c}, Vertical first: tabula {w}, published {p}{'' if same else '  DIFFER'}")
    print(f"{agree} agree, {differ} differ, {len(found)} boards in the table(s)")
    sys.exit(1 if differ else 0)


if __name__ == "__main__":
    main()
