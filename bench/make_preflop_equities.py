"""Make ``arena/luck/preflop_equities.bin``: every heads-up pre-flop class's exact counts.

Run: ``.venv/bin/python bench/make_preflop_equities.py`` (needs ``gcc``; ``--jobs 2`` on
two cores; ``--check N`` counts N random classes again in Python, by the evaluator's own
ranks, and stops at the first difference).

For every class of two hole hands (:func:`every_class`) a small C
program goes over all 1,712,304 boards of the 48 other cards and counts the boards the
class's first hand wins and ties. It ranks a hand by the evaluator's own tables, laid out
for the loop: the non-flush class of the seven ranks by the pair of hole ranks and the
board's rank multiset (a 2 MB table made here from ``engine._eval_tables``), and a flush
(five or more cards of one suit among seven, which nothing else beats) by the
evaluator's flush table over the suit's rank bits. The file is the sorted keys with their
counts; the estimator's name hashes it.
"""

from __future__ import annotations

import argparse
import random
import subprocess
import sys
import tempfile
import time
from array import array
from itertools import combinations, combinations_with_replacement
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from arena.luck.preflop import BOARDS, TABLE_FILE, cards_of, class_key  # noqa: E402
from engine._eval_tables import (  # noqa: E402
    FLUSH_CLASSES,
    NONFLUSH_CLASSES,
    RANK_KEYS,
    fill_tables,
)
from engine.cards import FULL_DECK  # noqa: E402
from engine.evaluator import rank_class  # noqa: E402

RANKS = 13

C_SOURCE = r"""
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define MULTISETS %(multisets)d
static int32_t IDX[13 * 13 * 13 * 13 * 13];  /* board ranks (sorted) -> multiset */
static uint16_t NONFLUSH[169][MULTISETS];   /* hole ranks, multiset -> class */
static uint16_t FLUSH[8192];                 /* suited rank bits -> class */

static void read_all(FILE *f, void *into, size_t size) {
    if (fread(into, 1, size, f) != size) { fprintf(stderr, "short tables\n"); exit(2); }
}

int main(int argc, char **argv) {
    FILE *f = fopen(argv[1], "rb");
    read_all(f, IDX, sizeof IDX);
    read_all(f, NONFLUSH, sizeof NONFLUSH);
    read_all(f, FLUSH, sizeof FLUSH);
    fclose(f);
    uint32_t key;
    while (fread(&key, 4, 1, stdin) == 1) {
        int hole[4], live[48], n = 0;
        for (int k = 0; k < 4; k++) hole[k] = (key >> (18 - 6 * k)) & 63;
        for (int c = 0; c < 52; c++)
            if (c != hole[0] && c != hole[1] && c != hole[2] && c != hole[3]) live[n++] = c;
        int hp[2], hcount[2][4] = {{0}}, hbits[2][4] = {{0}};
        for (int p = 0; p < 2; p++) {
            int a = hole[2 * p], b = hole[2 * p + 1];
            hp[p] = (a >> 2) * 13 + (b >> 2);
            hcount[p][a & 3]++; hcount[p][b & 3]++;
            hbits[p][a & 3] |= 1 << (a >> 2); hbits[p][b & 3] |= 1 << (b >> 2);
        }
        const uint16_t *n0 = NONFLUSH[hp[0]], *n1 = NONFLUSH[hp[1]];
        int count[4] = {0}, bits[4] = {0};
        uint32_t wins = 0, ties = 0;
        for (int i0 = 0; i0 < 48; i0++) {
            int c0 = live[i0]; count[c0 & 3]++; bits[c0 & 3] ^= 1 << (c0 >> 2);
            int p0 = c0 >> 2;
            for (int i1 = i0 + 1; i1 < 48; i1++) {
                int c1 = live[i1]; count[c1 & 3]++; bits[c1 & 3] ^= 1 << (c1 >> 2);
                int p1 = p0 * 13 + (c1 >> 2);
                for (int i2 = i1 + 1; i2 < 48; i2++) {
                    int c2 = live[i2]; count[c2 & 3]++; bits[c2 & 3] ^= 1 << (c2 >> 2);
                    int p2 = p1 * 13 + (c2 >> 2);
                    for (int i3 = i2 + 1; i3 < 48; i3++) {
                        int c3 = live[i3]; count[c3 & 3]++; bits[c3 & 3] ^= 1 << (c3 >> 2);
                        int p3 = p2 * 13 + (c3 >> 2);
                        for (int i4 = i3 + 1; i4 < 48; i4++) {
                            int c4 = live[i4], s4 = c4 & 3;
                            count[s4]++; bits[s4] ^= 1 << (c4 >> 2);
                            int m = IDX[p3 * 13 + (c4 >> 2)];
                            int v0 = n0[m], v1 = n1[m];
                            int fs = count[0] >= 3 ? 0 : count[1] >= 3 ? 1
                                   : count[2] >= 3 ? 2 : count[3] >= 3 ? 3 : -1;
                            if (fs >= 0) {
                                int b = bits[fs], k = count[fs];
                                if (k + hcount[0][fs] >= 5) v0 = FLUSH[b | hbits[0][fs]];
                                if (k + hcount[1][fs] >= 5) v1 = FLUSH[b | hbits[1][fs]];
                            }
                            wins += v0 < v1; ties += v0 == v1;
                            count[s4]--; bits[s4] ^= 1 << (c4 >> 2);
                        }
                        count[c3 & 3]--; bits[c3 & 3] ^= 1 << (c3 >> 2);
                    }
                    count[c2 & 3]--; bits[c2 & 3] ^= 1 << (c2 >> 2);
                }
                count[c1 & 3]--; bits[c1 & 3] ^= 1 << (c1 >> 2);
            }
            count[c0 & 3]--; bits[c0 & 3] ^= 1 << (c0 >> 2);
        }
        uint32_t out[3] = {key, wins, ties};
        fwrite(out, 4, 3, stdout);
    }
    return 0;
}
"""


def every_class() -> list[int]:
    """Every class's key (:func:`arena.luck.preflop.class_key`), sorted: from all 812,175
    pairs of hands (a few seconds)."""
    holes = list(combinations(FULL_DECK, 2))
    keys = set()
    for index, first in enumerate(holes):
        for second in holes[index + 1 :]:
            if first[0] not in second and first[1] not in second:
                keys.add(class_key(first, second)[0])
    return sorted(keys)


def loop_tables() -> tuple[int, bytes]:
    """The C loop's tables from the evaluator's: how many board rank multisets, and the
    bytes of IDX, NONFLUSH and FLUSH (see the C source)."""
    fill_tables()
    seven = NONFLUSH_CLASSES[7]
    multisets = [
        ranks
        for ranks in combinations_with_replacement(range(RANKS), 5)
        if max(ranks.count(r) for r in ranks) <= 4
    ]
    index = array("i", [-1]) * RANKS**5
    nonflush = array("H", [0]) * (RANKS * RANKS * len(multisets))
    for number, ranks in enumerate(multisets):
        place = 0
        for rank in ranks:
            place = place * RANKS + rank
        index[place] = number
        for high in range(RANKS):
            for low in range(RANKS):
                together = (*ranks, high, low)
                if max(together.count(r) for r in (high, low)) <= 4:
                    total = sum(RANK_KEYS[r] for r in together)
                    nonflush[(high * RANKS + low) * len(multisets) + number] = seven[total]
    flush = array("H", [0]) * 8192
    for bits, rank in FLUSH_CLASSES.items():
        flush[bits] = rank
    return len(multisets), index.tobytes() + nonflush.tobytes() + flush.tobytes()


def count_in_python(key: int) -> tuple[int, int]:
    """The class's wins and ties counted board by board with ``rank_class`` (seconds)."""
    first, second = cards_of(key)
    live = [card for card in FULL_DECK if card not in first + second]
    wins = ties = 0
    for board in combinations(live, 5):
        a, b = rank_class(first + board), rank_class(second + board)
        wins += a < b
        ties += a == b
    return wins, ties


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, default=1, help="C processes side by side")
    parser.add_argument("--check", type=int, default=2, help="classes counted again in Python")
    parser.add_argument("--limit", type=int, default=None, help="only the first N classes")
    parser.add_argument("--out", type=Path, default=TABLE_FILE)
    args = parser.parse_args()
    started = time.perf_counter()
    keys = every_class()[: args.limit]
    print(f"{len(keys)} classes ({time.perf_counter() - started:.1f} s)", flush=True)
    multisets, tables = loop_tables()
    with tempfile.TemporaryDirectory() as work:
        folder = Path(work)
        (folder / "count.c").write_text(C_SOURCE % {"multisets": multisets})
        subprocess.run(
            ["gcc", "-O3", "-march=native", "-o", str(folder / "count"), str(folder / "count.c")],
            check=True,
        )
        (folder / "tables").write_bytes(tables)
        # Each job's keys and counts go through files: pipes would block both ends.
        processes = []
        for job in range(args.jobs):
            (folder / f"keys{job}").write_bytes(array("I", keys[job :: args.jobs]).tobytes())
            with (
                open(folder / f"keys{job}", "rb") as given,
                open(folder / f"counts{job}", "wb") as counted,
            ):
                processes.append(
                    subprocess.Popen(
                        [str(folder / "count"), str(folder / "tables")],
                        stdin=given,
                        stdout=counted,
                    )
                )
        if any(process.wait() != 0 for process in processes):
            raise SystemExit("the counting program failed")
        outputs = [(folder / f"counts{job}").read_bytes() for job in range(args.jobs)]
    numbers = array("I")
    for output in outputs:
        numbers.frombytes(output)
    rows = sorted(zip(numbers[0::3], numbers[1::3], numbers[2::3], strict=True))
    if [row[0] for row in rows] != keys:
        raise SystemExit("the counts do not cover every class")
    print(f"counted in {time.perf_counter() - started:.1f} s", flush=True)
    for key in random.Random(1).sample(keys, min(args.check, len(keys))):
        by_row = {row[0]: row[1:] for row in rows}
        wins, ties = by_row[key]
        if count_in_python(key) != (wins, ties):
            raise SystemExit(f"class {key:#x}: C {wins, ties} != Python {count_in_python(key)}")
        print(f"class {key:#x} {cards_of(key)}: {wins} wins, {ties} ties of {BOARDS}: as in Python")
    flat = array("I", [number for row in rows for number in row])
    if sys.byteorder != "little":  # pragma: no cover
        flat.byteswap()
    args.out.write_bytes(flat.tobytes())
    print(f"wrote {args.out} ({len(rows)} classes, {time.perf_counter() - started:.1f} s)")


if __name__ == "__main__":
    main()
