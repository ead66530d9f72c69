/* The C reference for `python -m benchmarks.counting`: a classic single-threaded bitboard counter with
 * full symmetry, written for this project (not nqcsp's algorithm, and not built into the package).
 *
 * One board per symmetry class: either a corner queen (turned to the top left, the row-1 queen in column
 * `bound1`, column 1 closed above row `bound1` so that of a board and its transpose only one is searched;
 * classes of 8), or none (the edge queen nearest a corner on the top row at distance `bound1`; the side
 * columns closed above row `bound1` and forced by row `bound2`, the bottom queen kept at least `bound1`
 * from the corners; at a leaf the smallest of the rotations that also qualify is kept and weighed by the
 * size of its class). Recursive, as the classic counters are.
 *
 * Usage: count_symmetry N   ->   prints "N total fundamental cpu_seconds"
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

typedef uint64_t u64;

static int n, last, bound1, bound2;
static u64 full, sidemask, lastmask;
static int col[64];
static long long classes_of_2, classes_of_4, classes_of_8;

static int compare(const int *a, const int *b) {
    for (int r = 0; r < n; r++)
        if (a[r] != b[r]) return a[r] < b[r] ? -1 : 1;
    return 0;
}

static void leaf(void) {
    int image[64];
    int weight = 8;
    if (col[last] == last - bound1) {                 /* a half turn keeps the bottom queen's distance */
        for (int r = 0; r < n; r++) image[r] = last - col[last - r];
        int order = compare(col, image);
        if (order > 0) return;
        if (order == 0) weight = 4;
    }
    if (col[bound1] == last) {                        /* a quarter turn counterclockwise */
        for (int r = 0; r < n; r++) image[last - col[r]] = r;
        int order = compare(col, image);
        if (order > 0) return;
        if (order == 0) weight = 2;
    }
    if (col[last - bound1] == 0) {                    /* a quarter turn clockwise */
        for (int r = 0; r < n; r++) image[col[r]] = last - r;
        int order = compare(col, image);
        if (order > 0) return;
        if (order == 0) weight = 2;
    }
    if (weight == 8) classes_of_8++;
    else if (weight == 4) classes_of_4++;
    else classes_of_2++;
}

static void corner(int y, u64 left, u64 down, u64 right) {
    u64 open = full & ~(left | down | right);
    if (y == last) {
        if (open) classes_of_8++;
        return;
    }
    if (y < bound1) open &= ~(u64)2;
    while (open) {
        u64 bit = open & -open;
        open ^= bit;
        corner(y + 1, (left | bit) << 1, down | bit, (right | bit) >> 1);
    }
}

static void edge(int y, u64 left, u64 down, u64 right) {
    u64 open = full & ~(left | down | right);
    if (y == last) {
        if (open && !(open & lastmask)) {
            col[y] = __builtin_ctzll(open);
            leaf();
        }
        return;
    }
    if (y < bound1) {
        open &= ~sidemask;
    } else if (y == bound2) {
        if (!(down & sidemask)) return;
        if ((down & sidemask) != sidemask) open &= sidemask;
    }
    while (open) {
        u64 bit = open & -open;
        open ^= bit;
        col[y] = __builtin_ctzll(bit);
        edge(y + 1, (left | bit) << 1, down | bit, (right | bit) >> 1);
    }
}

int main(int argc, char **argv) {
    if (argc != 2 || (n = atoi(argv[1])) < 5 || n > 63) {
        fprintf(stderr, "usage: count_symmetry N (5 <= N <= 63)\n");
        return 2;
    }
    last = n - 1;
    full = ((u64)1 << n) - 1;
    clock_t started = clock();
    col[0] = 0;
    for (bound1 = 2; bound1 < last; bound1++) {
        u64 bit = (u64)1 << bound1;
        col[1] = bound1;
        corner(2, (2 | bit) << 1, 1 | bit, bit >> 1);
    }
    sidemask = lastmask = 1 | ((u64)1 << last);
    for (bound1 = 1, bound2 = last - 1; bound1 < bound2; bound1++, bound2--) {
        u64 bit = (u64)1 << bound1;
        col[0] = bound1;
        edge(1, bit << 1, bit, bit >> 1);
        lastmask = (lastmask | (lastmask >> 1) | (lastmask << 1)) & full;
    }
    double seconds = (double)(clock() - started) / CLOCKS_PER_SEC;
    printf("%d %lld %lld %.3f\n", n, 2 * classes_of_2 + 4 * classes_of_4 + 8 * classes_of_8,
           classes_of_2 + classes_of_4 + classes_of_8, seconds);
    return 0;
}
