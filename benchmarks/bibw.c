/*
 * Bi-directional bandwidth between rank 0 and rank 1, OSU osu_bibw compatible.
 * The code is bw.c's; see there.
 */
#define BENCH_BIDIRECTIONAL 1
#include "bw.c"
