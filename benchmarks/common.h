/*
 * Shared helpers for Pamir's OSU-compatible benchmarks (latency, bw, bibw, multi_lat, mbw_mr;
 * the collectives allreduce, barrier, bcast, reduce, allgather, alltoall and the non-blocking
 * iallreduce) and the derived-datatype ones (latency -D, halo, dt_commit).
 *
 * Plain MPI + C99 + POSIX: no Pamir-specific calls, so the same sources build with any MPI's mpicc.
 * Output follows OSU micro-benchmarks 7.4 (header lines, "# Size" column 10 wide, values 18 wide with
 * two decimals), so scripts that parse OSU output parse ours too.
 *
 * Options (as OSU's): -m [MIN:]MAX  message sizes, -i ITER  timed iterations, -x WARMUP  untimed
 * iterations, -W WINDOW (bandwidth tests), -f  min/max/iterations columns (collectives; for
 * iallreduce OSU's full set of timing columns), -t CALLS  MPI_Test calls during iallreduce's dummy
 * compute (OSU's -t/--num_test_calls, default 0), -c  validate every received byte or reduced
 * element (prints a Validation column; exit status 1 when any size fails; barrier: see barrier.c),
 * -v version, -h help, and for latency -D/--ddt TYPE (OSU 7.x's derived-datatype mode:
 * "vect:STRIDE:BLOCK" or "cont", see latency.c). Not in OSU: --precision N prints
 * N decimals instead of 2 (sub-microsecond latencies need 3 for a meaningful ratio), and
 * --iterations-large N / --warmup-large N set the counts above 8 KiB alone (-i and -x set both).
 * barrier has no sizes: it accepts -m and ignores it, as OSU's osu_barrier does, and ignores the
 * "large" counts. halo takes -m [MIN:]MAX as the range of the cube edge N (not bytes) and its "large" counts
 * apply above N = 64; dt_commit takes no -m (see the programs). The one-sided benchmarks (one_sided.c; kinds
 * BENCH_RMA_LAT and BENCH_RMA_BW) also take OSU's -w/--win-options WIN and -s/--sync-option SYNC; the program
 * checks the values and sets bench_usage_extra, the lines about them in -h.
 */
#ifndef PAMIR_BENCH_COMMON_H
#define PAMIR_BENCH_COMMON_H

#define _POSIX_C_SOURCE 200809L

#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define BENCH_VERSION "v1.0 (OSU 7.4 compatible)"
#define BENCH_FIELD_WIDTH 18 /* OSU's point-to-point value column */
#define BENCH_SIZE_WIDTH 10
#define BENCH_PRECISION 2 /* OSU's; --precision changes it */
static int bench_precision = BENCH_PRECISION;
#define BENCH_MAX_SIZE ((size_t)1 << 22) /* 4 MiB, OSU's MAX_MESSAGE_SIZE */
#define BENCH_LARGE_SIZE ((size_t)8192)  /* above this, the "large" loop counts apply */

enum bench_kind {
  BENCH_LATENCY,
  BENCH_BW,
  BENCH_BIBW,
  BENCH_MULTI_LAT,
  BENCH_MBW_MR,
  BENCH_ALLREDUCE,
  BENCH_HALO,      /* halo.c: sizes are the cube edge N, 16..256 */
  BENCH_DT_COMMIT, /* dt_commit.c: no sizes; -i/-x count the later transfers */
  /* OSU's other collectives: barrier (no sizes), bcast/allgather/alltoall (MPI_CHAR, 1 B..1 MiB),
   * reduce and the non-blocking iallreduce (MPI_FLOAT, 4 B..1 MiB, like allreduce) */
  BENCH_BARRIER,
  BENCH_BCAST,
  BENCH_REDUCE,
  BENCH_ALLGATHER,
  BENCH_ALLTOALL,
  BENCH_IALLREDUCE,
  /* one_sided.c: OSU's one-sided latency-type programs (osu_put_latency, osu_get_latency,
   * osu_acc_latency, osu_fop_latency, osu_cas_latency, osu_get_acc_latency: 1 B..4 MiB, latency loop
   * counts) and bandwidth-type ones (osu_put_bw, osu_get_bw, osu_put_bibw: window of 64) */
  BENCH_RMA_LAT,
  BENCH_RMA_BW
};

/* OSU 7.x -D/--ddt (latency only): none, "cont" (MPI_Type_contiguous of the size) or
 * "vect:STRIDE:BLOCK" (MPI_Type_vector(size / STRIDE, BLOCK, STRIDE, MPI_CHAR)). */
enum bench_ddt { BENCH_DDT_NONE, BENCH_DDT_CONT, BENCH_DDT_VECT };

#define BENCH_HALO_MIN_N 16
#define BENCH_HALO_MAX_N 256
#define BENCH_HALO_LIMIT_N 400 /* (N+2)^3 doubles must stay addressable by the -c pattern */
#define BENCH_HALO_LARGE_N 64  /* above this N, the "large" loop counts apply */

/* Loop counts and sizes as OSU 7.4: latency-type (osu_latency, osu_multi_lat), bandwidth-type
 * (osu_bw, osu_bibw, osu_mbw_mr: window of 64) and collective (osu_allreduce: up to 1 MiB). */
static inline int bench_kind_latency(enum bench_kind k) {
  return k == BENCH_LATENCY || k == BENCH_MULTI_LAT;
}
static inline int bench_kind_window(enum bench_kind k) {
  return k == BENCH_BW || k == BENCH_BIBW || k == BENCH_MBW_MR || k == BENCH_RMA_BW;
}
static inline int bench_kind_rma(enum bench_kind k) {
  return k == BENCH_RMA_LAT || k == BENCH_RMA_BW;
}
/* Printed at the end of -h's option list when set (one_sided.c: its -w and -s). */
static const char *bench_usage_extra = NULL;
#define BENCH_COLL_MAX_SIZE ((size_t)1 << 20)    /* 1 MiB, OSU's MAX_MSG_SIZE_COLL */
#define BENCH_COLL_MEM_LIMIT ((size_t)512 << 20) /* OSU's MAX_MEM_LIMIT: size * ranks at most */
static inline int bench_kind_coll(enum bench_kind k) {
  return k == BENCH_ALLREDUCE || k == BENCH_BARRIER || k == BENCH_BCAST || k == BENCH_REDUCE ||
         k == BENCH_ALLGATHER || k == BENCH_ALLTOALL || k == BENCH_IALLREDUCE;
}
/* The collectives on MPI_FLOAT elements: sizes below 4 bytes are skipped, so they start at 4. */
static inline int bench_kind_float(enum bench_kind k) {
  return k == BENCH_ALLREDUCE || k == BENCH_REDUCE || k == BENCH_IALLREDUCE;
}

struct bench_options {
  size_t min_size;
  size_t max_size;
  long iterations;       /* size <= BENCH_LARGE_SIZE */
  long skip;             /* warm-up, size <= BENCH_LARGE_SIZE */
  long iterations_large; /* size > BENCH_LARGE_SIZE */
  long skip_large;
  int window;
  int validate;
  int full;             /* -f (collectives): also min, max and iterations */
  int num_tests;        /* -t (iallreduce): MPI_Test calls during the dummy compute, OSU's default 0 */
  enum bench_ddt ddt;   /* -D (latency) */
  long ddt_stride;      /* bytes, vect only */
  long ddt_block;       /* bytes, vect only */
  const char *rma_win;  /* -w (one-sided kinds), unchecked; NULL: the program's default */
  const char *rma_sync; /* -s (one-sided kinds), unchecked; NULL: the program's default */
};

static inline void bench_usage(const char *name, enum bench_kind kind) {
  const int lat = bench_kind_latency(kind) || kind == BENCH_RMA_LAT, coll = bench_kind_coll(kind);
  const int rma = bench_kind_rma(kind);
  const int halo = kind == BENCH_HALO, dtc = kind == BENCH_DT_COMMIT, bar = kind == BENCH_BARRIER;
  printf("Usage: %s [options]\n", name);
  printf("Options:\n");
  if (halo)
    printf("  -m, --message-size [MIN:]MAX  cube edges N = MIN..MAX in powers of two (default 16:256)\n");
  else if (bar)
    printf("  -m, --message-size [MIN:]MAX  accepted and ignored (no sizes), as OSU's osu_barrier\n");
  else if (!dtc && !bar)
    printf("  -m, --message-size [MIN:]MAX  sizes MIN..MAX bytes in powers of two (default %s)%s\n",
           lat && !rma              ? "0:4194304"
           : bench_kind_float(kind) ? "4:1048576"
           : coll                   ? "1:1048576"
                                    : "1:4194304",
           kind == BENCH_ALLGATHER || kind == BENCH_ALLTOALL
               ? ";\n                                the size each rank sends to each rank"
               : "");
  if (dtc) {
    printf("  -i, --iterations ITER         timed later transfers (default 1000)\n");
    printf(
        "  -x, --warmup WARMUP           untimed transfers between the first and the timed ones\n"
        "                                (default 10)\n");
  } else if (bar) {
    printf("  -i, --iterations ITER         timed barriers (default 1000)\n");
    printf("  -x, --warmup WARMUP           untimed barriers before them (default 100)\n");
  } else if (halo) {
    printf("  -i, --iterations ITER         timed exchanges per N (default 1000, 100 above N = 64)\n");
    printf("  -x, --warmup WARMUP           untimed exchanges per N (default 100, 10 above N = 64)\n");
  } else {
    printf("  -i, --iterations ITER         timed iterations per size (default %s)\n",
           lat    ? "10000, 1000 above 8 KiB"
           : coll ? "1000, 100 above 8 KiB"
                  : "100, 20 above 8 KiB");
    printf("  -x, --warmup WARMUP           untimed warm-up iterations per size (default %s)\n",
           lat    ? "100, 10 above 8 KiB"
           : coll ? "100, 10 above 8 KiB"
                  : "10, 2 above 8 KiB");
  }
  if (kind == BENCH_LATENCY)
    printf(
        "  -D, --ddt TYPE                send and receive one derived datatype per message, as OSU\n"
        "                                7.x: vect:STRIDE:BLOCK = MPI_Type_vector(size / STRIDE,\n"
        "                                BLOCK, STRIDE, MPI_CHAR); cont = MPI_Type_contiguous(size,\n"
        "                                MPI_CHAR); adds a Transmit Size column (bytes moved)\n");
  if (bench_kind_window(kind))
    printf("  -W, --window-size WINDOW      messages in flight per iteration (default 64)\n");
  if (kind == BENCH_IALLREDUCE) {
    printf(
        "  -t, --num_test_calls CALLS    MPI_Test calls interleaved with the dummy compute\n"
        "                                (default 0, as OSU: compute, then MPI_Wait)\n");
    printf(
        "  -f, --full                    also print the Coll. Init, MPI_Test and MPI_Wait times and\n"
        "                                the min and max pure communication time over the ranks\n");
  } else if (coll)
    printf(
        "  -f, --full                    also print min and max latency over the ranks and the\n"
        "                                iteration count\n");
  if (bar)
    printf(
        "  -c, --validation              check that no rank leaves a barrier before every rank has\n"
        "                                entered it (one rank enters late); adds a Validation column\n");
  else if (rma)
    printf(
        "  -c, --validation              check every byte each operation puts, gets, accumulates or\n"
        "                                fetches, and the whole target window after each size; adds\n"
        "                                a Validation column\n");
  else
    printf("  -c, --validation              check every received %s; adds a Validation column\n",
           bench_kind_float(kind) ? "element of the result"
           : coll                 ? "byte (and that the send buffer is unchanged)"
           : halo                 ? "halo element (and the untouched rest)"
                                  : "byte (and, with a datatype, that the gaps are untouched)");
  printf("      --precision N             decimals in the value column (default 2, as OSU)\n");
  if (!dtc && !bar) {
    printf("      --iterations-large N      timed iterations above %s only (after -i)\n",
           halo ? "N = 64" : "8 KiB");
    printf("      --warmup-large N          warm-up iterations above %s only (after -x)\n",
           halo ? "N = 64" : "8 KiB");
  }
  if (bench_usage_extra) printf("%s", bench_usage_extra);
  printf("  -v, --version                 print the version and exit\n");
  printf("  -h, --help                    print this help and exit\n");
  fflush(stdout);
}

static inline int bench_parse_size(const char *s, size_t *out) {
  char *end = NULL;
  unsigned long long v;
  if (s == NULL || *s == '\0') return 0;
  v = strtoull(s, &end, 10);
  if (*end != '\0') return 0;
  *out = (size_t)v;
  return 1;
}

static inline int bench_parse_long(const char *s, long *out, long min) {
  char *end = NULL;
  long v;
  if (s == NULL || *s == '\0') return 0;
  v = strtol(s, &end, 10);
  if (*end != '\0' || v < min) return 0;
  *out = v;
  return 1;
}

/* Maps the long spellings OSU accepts to the short ones, so argv can go to getopt unchanged. */
static inline const char *bench_long_to_short(const char *arg) {
  static const char *map[][2] = {
      {"--message-size", "-m"}, {"--iterations", "-i"},     {"--warmup", "-x"},      {"--window-size", "-W"},
      {"--validation", "-c"},   {"--version", "-v"},        {"--help", "-h"},        {"--full", "-f"},
      {"--ddt", "-D"},          {"--num_test_calls", "-t"}, {"--win-options", "-w"}, {"--sync-option", "-s"},
  };
  size_t i;
  for (i = 0; i < sizeof map / sizeof map[0]; i++)
    if (strcmp(arg, map[i][0]) == 0) return map[i][1];
  return arg;
}

/*
 * Returns 0 to run, 1 to exit successfully (help/version printed), -1 for a bad option.
 * Only rank 0 prints.
 */
static inline int bench_parse_options(int argc, char **argv, enum bench_kind kind, int rank,
                                      const char *title, struct bench_options *o) {
  int i;
  const char *name = argv[0] ? argv[0] : "benchmark";
  o->min_size = bench_kind_latency(kind) ? 0 : bench_kind_float(kind) ? 4 : 1; /* one-sided: 1 */
  o->max_size = bench_kind_coll(kind) ? BENCH_COLL_MAX_SIZE : BENCH_MAX_SIZE;
  if (kind == BENCH_HALO) {
    o->min_size = BENCH_HALO_MIN_N;
    o->max_size = BENCH_HALO_MAX_N;
  }
  if (kind == BENCH_DT_COMMIT) {
    o->iterations = o->iterations_large = 1000;
    o->skip = o->skip_large = 10;
  } else if (bench_kind_latency(kind) || kind == BENCH_RMA_LAT) {
    o->iterations = 10000;
    o->skip = 100;
    o->iterations_large = 1000;
    o->skip_large = 10;
  } else if (bench_kind_coll(kind) || kind == BENCH_HALO) {
    o->iterations = 1000;
    o->skip = 100;
    o->iterations_large = 100;
    o->skip_large = 10;
  } else {
    o->iterations = 100;
    o->skip = 10;
    o->iterations_large = 20;
    o->skip_large = 2;
  }
  o->window = 64;
  o->validate = 0;
  o->full = 0;
  o->num_tests = 0;
  o->ddt = BENCH_DDT_NONE;
  o->ddt_stride = o->ddt_block = 0;
  o->rma_win = o->rma_sync = NULL;

  for (i = 1; i < argc; i++) {
    const char *a = bench_long_to_short(argv[i]);
    const char *val = NULL;
    char opt;
    if (strcmp(argv[i], "--precision") == 0) {
      long p;
      if (i + 1 >= argc || !bench_parse_long(argv[i + 1], &p, 0) || p > 9) {
        if (rank == 0) fprintf(stderr, "%s: --precision needs a number 0..9\n", name);
        return -1;
      }
      bench_precision = (int)p;
      i++;
      continue;
    }
    if (strcmp(argv[i], "--iterations-large") == 0 || strcmp(argv[i], "--warmup-large") == 0) {
      const int warm = argv[i][2] == 'w';
      if (i + 1 >= argc ||
          !bench_parse_long(argv[i + 1], warm ? &o->skip_large : &o->iterations_large, warm ? 0 : 1)) {
        if (rank == 0) fprintf(stderr, "%s: %s needs a count\n", name, argv[i]);
        return -1;
      }
      i++;
      continue;
    }
    if (a[0] != '-' || a[1] == '\0' || (a[2] != '\0')) {
      if (rank == 0) fprintf(stderr, "%s: unexpected argument '%s'\n", name, argv[i]);
      return -1;
    }
    opt = a[1];
    if (opt == 'm' || opt == 'i' || opt == 'x' || opt == 'W' || opt == 'D' || opt == 't' ||
        (bench_kind_rma(kind) && (opt == 'w' || opt == 's'))) {
      if (i + 1 >= argc) {
        if (rank == 0) fprintf(stderr, "%s: option -%c needs a value\n", name, opt);
        return -1;
      }
      val = argv[++i];
    }
    switch (opt) {
      case 'm': {
        const char *colon = strchr(val, ':');
        int ok;
        if (kind == BENCH_DT_COMMIT) {
          if (rank == 0) fprintf(stderr, "%s: option -m does not apply (no message sizes)\n", name);
          return -1;
        }
        if (colon) {
          char buf[64];
          size_t n = (size_t)(colon - val);
          if (n >= sizeof buf) n = sizeof buf - 1;
          memcpy(buf, val, n);
          buf[n] = '\0';
          ok = bench_parse_size(buf, &o->min_size) && bench_parse_size(colon + 1, &o->max_size);
        } else {
          ok = bench_parse_size(val, &o->max_size);
        }
        if (!ok || o->min_size > o->max_size ||
            (kind == BENCH_HALO && (o->min_size < 1 || o->max_size > BENCH_HALO_LIMIT_N))) {
          if (rank == 0)
            fprintf(stderr, "%s: invalid %s range '%s'\n", name,
                    kind == BENCH_HALO ? "N (1..400)" : "message size", val);
          return -1;
        }
        break;
      }
      case 'D': {
        /* OSU 7.x omb_ddt_process_options: "vect:STRIDE:BLOCK", "cont" ("indx:FILE" not here). */
        long st = 0, bl = 0;
        char buf[64], *c2;
        if (kind != BENCH_LATENCY) {
          if (rank == 0) fprintf(stderr, "%s: unknown option '%s'\n", name, argv[i]);
          return -1;
        }
        if (strcmp(val, "cont") == 0) {
          o->ddt = BENCH_DDT_CONT;
          break;
        }
        if (strncmp(val, "vect:", 5) == 0 && strlen(val + 5) < sizeof buf) {
          strcpy(buf, val + 5);
          c2 = strchr(buf, ':');
          if (c2) {
            *c2 = '\0';
            if (bench_parse_long(buf, &st, 1) && bench_parse_long(c2 + 1, &bl, 1) && bl <= st &&
                st <= (long)BENCH_MAX_SIZE) {
              o->ddt = BENCH_DDT_VECT;
              o->ddt_stride = st;
              o->ddt_block = bl;
              break;
            }
          }
        }
        if (rank == 0)
          fprintf(stderr,
                  "%s: invalid datatype '%s' (vect:STRIDE:BLOCK with 1 <= BLOCK <= STRIDE, "
                  "or cont)\n",
                  name, val);
        return -1;
      }
      case 'i':
        if (!bench_parse_long(val, &o->iterations, 1)) {
          if (rank == 0) fprintf(stderr, "%s: invalid iteration count '%s'\n", name, val);
          return -1;
        }
        o->iterations_large = o->iterations;
        break;
      case 'x':
        if (!bench_parse_long(val, &o->skip, 0)) {
          if (rank == 0) fprintf(stderr, "%s: invalid warm-up count '%s'\n", name, val);
          return -1;
        }
        o->skip_large = o->skip;
        break;
      case 'W': {
        long w;
        if (!bench_kind_window(kind) || !bench_parse_long(val, &w, 1) || w > 1000) {
          if (rank == 0) fprintf(stderr, "%s: invalid window size '%s'\n", name, val);
          return -1;
        }
        o->window = (int)w;
        break;
      }
      case 't': {
        long t;
        if (kind != BENCH_IALLREDUCE) {
          if (rank == 0) fprintf(stderr, "%s: unknown option '%s'\n", name, argv[i - 1]);
          return -1;
        }
        if (!bench_parse_long(val, &t, 0) || t > 1000000) {
          if (rank == 0) fprintf(stderr, "%s: invalid number of MPI_Test calls '%s'\n", name, val);
          return -1;
        }
        o->num_tests = (int)t;
        break;
      }
      case 'w':
      case 's':
        if (!bench_kind_rma(kind)) {
          if (rank == 0) fprintf(stderr, "%s: unknown option '%s'\n", name, argv[i]);
          return -1;
        }
        if (opt == 'w')
          o->rma_win = val;
        else
          o->rma_sync = val;
        break;
      case 'c':
        o->validate = 1;
        break;
      case 'f':
        if (!bench_kind_coll(kind)) {
          if (rank == 0) fprintf(stderr, "%s: unknown option '%s'\n", name, argv[i]);
          return -1;
        }
        o->full = 1;
        break;
      case 'v':
        if (rank == 0) printf("# %s %s\n", title, BENCH_VERSION);
        return 1;
      case 'h':
        if (rank == 0) bench_usage(name, kind);
        return 1;
      default:
        if (rank == 0) {
          fprintf(stderr, "%s: unknown option '%s'\n", name, argv[i]);
          bench_usage(name, kind);
        }
        return -1;
    }
  }
  return 0;
}

static inline void *bench_alloc(size_t bytes) {
  void *p = NULL;
  long page = sysconf(_SC_PAGESIZE);
  if (page <= 0) page = 4096;
  if (bytes == 0) bytes = 1;
  if (posix_memalign(&p, (size_t)page, bytes) != 0) return NULL;
  memset(p, 0, bytes); /* touch every page before timing, as OSU does */
  return p;
}

/* The byte at offset j of message `tag` (size, iteration, slot, sender folded into one seed). */
static inline uint32_t bench_seed(size_t size, long iter, int slot, int sender) {
  uint32_t h = 2166136261u;
  uint32_t parts[4];
  int k;
  parts[0] = (uint32_t)size;
  parts[1] = (uint32_t)iter;
  parts[2] = (uint32_t)slot;
  parts[3] = (uint32_t)sender;
  for (k = 0; k < 4; k++) {
    h ^= parts[k];
    h *= 16777619u;
  }
  return h;
}

/* Word k of the pattern; any byte out of place, stale or missing changes some word. */
static inline uint64_t bench_word(uint32_t seed, size_t k) {
  uint64_t x = ((uint64_t)seed << 32 | seed) ^ ((uint64_t)k * 0x9E3779B97F4A7C15ull);
  return x ^ (x >> 29);
}

static inline void bench_fill(unsigned char *buf, size_t n, uint32_t seed) {
  size_t k, words = n / 8;
  uint64_t w;
  for (k = 0; k < words; k++) {
    w = bench_word(seed, k);
    memcpy(buf + 8 * k, &w, 8);
  }
  w = bench_word(seed, words);
  memcpy(buf + 8 * words, &w, n - 8 * words);
}

/* Returns the number of wrong 8-byte words (or tail). */
static inline size_t bench_check(const unsigned char *buf, size_t n, uint32_t seed) {
  size_t k, words = n / 8, bad = 0;
  uint64_t w;
  for (k = 0; k < words; k++) {
    w = bench_word(seed, k);
    if (memcmp(buf + 8 * k, &w, 8) != 0) bad++;
  }
  w = bench_word(seed, words);
  if (memcmp(buf + 8 * words, &w, n - 8 * words) != 0) bad++;
  return bad;
}

/* The number of 8-byte words (or tail) in which a and b differ. */
static inline size_t bench_diff(const unsigned char *a, const unsigned char *b, size_t n) {
  size_t k, words = n / 8, bad = 0;
  for (k = 0; k < words; k++)
    if (memcmp(a + 8 * k, b + 8 * k, 8) != 0) bad++;
  if (n > 8 * words && memcmp(a + 8 * words, b + 8 * words, n - 8 * words) != 0) bad++;
  return bad;
}

static inline int bench_count_ok(const MPI_Status *st, size_t size) {
  int count = -1;
  MPI_Get_count(st, MPI_CHAR, &count);
  return count >= 0 && (size_t)count == size;
}

/* With `extra` (OSU's "Transmit Size" of -D, say) a last column after Validation, as OSU puts it;
 * `datatype` is the "# Datatype:" line's text, `size_column` the first column's heading. */
static inline void bench_print_header_ex(const char *title, const char *datatype, const char *size_column,
                                         const char *column, int validate, const char *extra) {
  printf("# %s %s\n", title, BENCH_VERSION);
  printf("# Datatype: %s.\n", datatype);
  printf("%-*s%*s", BENCH_SIZE_WIDTH, size_column, BENCH_FIELD_WIDTH, column);
  if (validate) printf("%*s", BENCH_FIELD_WIDTH, "Validation");
  if (extra) printf("%*s", BENCH_FIELD_WIDTH, extra);
  printf("\n");
  fflush(stdout);
}

static inline void bench_print_header(const char *title, const char *column, int validate) {
  bench_print_header_ex(title, "MPI_CHAR", "# Size", column, validate, NULL);
}

/* extra < 0: no extra column. */
static inline void bench_print_row_ex(size_t size, double value, int validate, int failed, long long extra) {
  printf("%-*zu%*.*f", BENCH_SIZE_WIDTH, size, BENCH_FIELD_WIDTH, bench_precision, value);
  if (validate) printf("%*s", BENCH_FIELD_WIDTH, failed ? "Fail" : "Pass");
  if (extra >= 0) printf("%*lld", BENCH_FIELD_WIDTH, extra);
  printf("\n");
  fflush(stdout);
}

static inline void bench_print_row(size_t size, double value, int validate, int failed) {
  bench_print_row_ex(size, value, validate, failed, -1);
}

/*
 * The two-rank synchronisation and reductions the benchmarks need, done with point-to-point calls
 * only, so that the programs measure (and need) nothing but point-to-point messaging.
 */
#define BENCH_TAG_SYNC 999

static inline void bench_sync(int rank) {
  char token = 0;
  const int peer = 1 - rank;
  if (rank == 0) {
    MPI_Send(&token, 1, MPI_CHAR, peer, BENCH_TAG_SYNC, MPI_COMM_WORLD);
    MPI_Recv(&token, 1, MPI_CHAR, peer, BENCH_TAG_SYNC, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  } else {
    MPI_Recv(&token, 1, MPI_CHAR, peer, BENCH_TAG_SYNC, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Send(&token, 1, MPI_CHAR, peer, BENCH_TAG_SYNC, MPI_COMM_WORLD);
  }
}

/* Both ranks' values summed on both ranks. */
static inline double bench_sum2(int rank, double mine) {
  double theirs = 0.0;
  const int peer = 1 - rank;
  if (rank == 0) {
    MPI_Send(&mine, 1, MPI_DOUBLE, peer, BENCH_TAG_SYNC, MPI_COMM_WORLD);
    MPI_Recv(&theirs, 1, MPI_DOUBLE, peer, BENCH_TAG_SYNC, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  } else {
    MPI_Recv(&theirs, 1, MPI_DOUBLE, peer, BENCH_TAG_SYNC, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Send(&mine, 1, MPI_DOUBLE, peer, BENCH_TAG_SYNC, MPI_COMM_WORLD);
  }
  return mine + theirs;
}

static inline size_t bench_next_size(size_t size) {
  return size ? size * 2 : 1;
}

/*
 * The blocking collectives' output (OSU 7.x print_only_header / print_stats): "# Datatype:" line
 * (none for barrier, datatype NULL), then "# Size" and "Avg Latency(us)", with -f the lowest and
 * highest of the ranks' means and the iteration count, with -c a Validation column. Without a size
 * column (barrier) the header is "# Avg Latency(us)" and the value is 17 wide, as OSU prints it.
 */
static inline void bench_coll_header(const char *title, const char *datatype, const struct bench_options *o) {
  printf("# %s %s\n", title, BENCH_VERSION);
  if (datatype) {
    printf("# Datatype: %s.\n", datatype);
    printf("%-*s%*s", BENCH_SIZE_WIDTH, "# Size", BENCH_FIELD_WIDTH, "Avg Latency(us)");
  } else {
    printf("# Avg Latency(us)");
  }
  if (o->full)
    printf("%*s%*s%*s", BENCH_FIELD_WIDTH, "Min Latency(us)", BENCH_FIELD_WIDTH, "Max Latency(us)", 12,
           "Iterations");
  if (o->validate) printf("%*s", BENCH_FIELD_WIDTH, "Validation");
  printf("\n");
  fflush(stdout);
}

/* Collective over MPI_COMM_WORLD: `latency` is this rank's mean in microseconds; `errors` this
 * rank's failed checks. Rank 0 prints the row (show_size 0: barrier's row without a size). Returns
 * the number of failed checks over all ranks. */
static inline int bench_coll_report(int rank, int nranks, int show_size, size_t size, double latency,
                                    long iters, int errors, const struct bench_options *o) {
  double lat_sum = 0.0, lat_min = 0.0, lat_max = 0.0;
  int errors_all = 0;
  MPI_Reduce(&latency, &lat_min, 1, MPI_DOUBLE, MPI_MIN, 0, MPI_COMM_WORLD);
  MPI_Reduce(&latency, &lat_max, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  MPI_Reduce(&latency, &lat_sum, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
  if (o->validate) MPI_Allreduce(&errors, &errors_all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0) {
    if (show_size)
      printf("%-*zu%*.*f", BENCH_SIZE_WIDTH, size, BENCH_FIELD_WIDTH, bench_precision,
             lat_sum / (double)nranks);
    else
      printf("%*.*f", 17, bench_precision, lat_sum / (double)nranks);
    if (o->full)
      printf("%*.*f%*.*f%*ld", BENCH_FIELD_WIDTH, bench_precision, lat_min, BENCH_FIELD_WIDTH,
             bench_precision, lat_max, 12, iters);
    if (o->validate) printf("%*s", BENCH_FIELD_WIDTH, errors_all ? "Fail" : "Pass");
    printf("\n");
    fflush(stdout);
  }
  return errors_all;
}

/* OSU's check_mem_limit for the collectives whose buffers hold one block per rank. */
static inline void bench_coll_mem_limit(int rank, int nranks, struct bench_options *o) {
  if (o->max_size > BENCH_COLL_MEM_LIMIT / (size_t)nranks) {
    o->max_size = BENCH_COLL_MEM_LIMIT / (size_t)nranks;
    if (rank == 0)
      fprintf(stderr, "Warning! Limiting max message size to: %zu (%zu bytes per rank at most)\n",
              o->max_size, BENCH_COLL_MEM_LIMIT);
  }
}

/* A whole number 1..64 for element k of rank r's contribution in iteration i (the reductions'
 * -c pattern: sums of such numbers are exact in float whatever the order of the additions). */
static inline float bench_contribution(int r, long i, size_t k) {
  uint32_t h = (uint32_t)k * 2654435761u ^ (uint32_t)i * 2246822519u ^ (uint32_t)(r + 1) * 3266489917u;
  h ^= h >> 15;
  h *= 2246822519u;
  h ^= h >> 13;
  return (float)(1u + (h & 63u));
}

#endif
