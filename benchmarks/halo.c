/*
 * Halo exchange with subarray datatypes: every rank holds an (N+2)^3 array of doubles (an N^3
 * interior with a one-element halo on each side, C order a[z][y][x]) and per exchange sends its six
 * interior faces (N x N each) to its six neighbours and receives theirs into its halo: six
 * MPI_Irecv, six MPI_Isend, one MPI_Waitall, each message count 1 of an
 * MPI_Type_create_subarray(3, {N+2, N+2, N+2}, face, start, MPI_ORDER_C, MPI_DOUBLE) face type
 * (the x faces are N^2 single doubles N+2 apart, the y faces N runs of N doubles, the z faces N
 * runs of N doubles with a gap of 2). Only faces: edges and corners of the halo are not exchanged.
 *
 * Ranks: any number, in a periodic 3-D grid shaped as MPI_Dims_create(nranks, 3) shapes it (as
 * balanced as the factors allow, non-increasing; computed here, since Pamir has no
 * MPI_Dims_create yet, and no communicator is made); grid dimension d is array dimension d, as
 * MPI_Cart_create users have it.
 * With 2 ranks the grid is 2 x 1 x 1: the two z faces go to the other rank, the x and y faces
 * wrap around to the rank itself (periodic, still through MPI with the same datatypes).
 *
 * Reported value: time per exchange in microseconds (each rank's mean over the timed exchanges,
 * averaged over the ranks; an MPI_Barrier starts each N). The size column is the edge N (not
 * bytes): N = 16, 32, ..., 256 by default (-m MIN:MAX). The last column is the bytes each rank sends
 * per exchange (6 * N^2 * 8). Loop counts: 1000 timed and 100 untimed exchanges, 100 and 10 above
 * N = 64 (-i, -x, --iterations-large, --warmup-large).
 *
 * With -c, before each exchange every interior element gets a value unique to (rank, element,
 * iteration) and every halo element a sentinel; after it the whole array is checked: each halo
 * face element must hold the neighbour's value from the opposite interior face (same position),
 * the halo edges and corners must still hold the sentinel, the interior must be unchanged.
 */
#include "common.h"

/* Element (z, y, x) of an (n+2)^3 array. */
#define HALO_IDX(n, z, y, x) \
  ((((size_t)(z) * (size_t)((n) + 2)) + (size_t)(y)) * (size_t)((n) + 2) + (size_t)(x))
#define HALO_SENTINEL (-1.0)

/* The value of interior element idx of rank r in iteration it: a whole number below 2^46. */
static double halo_value(int r, long it, size_t idx) {
  const uint64_t v =
      ((((uint64_t)it & 1023u) << 10 | ((uint64_t)r & 1023u)) << 26) | (idx & ((1u << 26) - 1));
  return (double)v;
}

/* MPI_Dims_create(n, 3, dims) with dims all 0: each prime factor, largest first, goes to the
 * smallest dimension so far; then non-increasing order. */
static void halo_dims(int n, int dims[3]) {
  int f[32], nf = 0, p, k, t;
  for (p = 2; n > 1 && nf < 32; p++)
    while (n % p == 0 && nf < 32) {
      f[nf++] = p;
      n /= p;
    }
  dims[0] = dims[1] = dims[2] = 1;
  for (k = nf - 1; k >= 0; k--) {
    int m = 0;
    if (dims[1] < dims[m]) m = 1;
    if (dims[2] < dims[m]) m = 2;
    dims[m] *= f[k];
  }
  for (k = 0; k < 2; k++)
    for (p = 0; p < 2 - k; p++)
      if (dims[p] < dims[p + 1]) {
        t = dims[p];
        dims[p] = dims[p + 1];
        dims[p + 1] = t;
      }
}

/* Face type: plane `plane` (0..n+1) of dimension `dim`, the n x n interior of the other two. */
static void halo_face(int n, int dim, int plane, MPI_Datatype *t) {
  int sizes[3], sub[3], starts[3], d;
  for (d = 0; d < 3; d++) {
    sizes[d] = n + 2;
    sub[d] = n;
    starts[d] = 1;
  }
  sub[dim] = 1;
  starts[dim] = plane;
  MPI_Type_create_subarray(3, sizes, sub, starts, MPI_ORDER_C, MPI_DOUBLE, t);
  MPI_Type_commit(t);
}

static void halo_fill(double *a, int n, int rank, long it) {
  const int e = n + 2;
  int z, y, x;
  for (z = 0; z < e; z++)
    for (y = 0; y < e; y++)
      for (x = 0; x < e; x++) {
        const size_t idx = HALO_IDX(n, z, y, x);
        const int interior = z >= 1 && z <= n && y >= 1 && y <= n && x >= 1 && x <= n;
        a[idx] = interior ? halo_value(rank, it, idx) : HALO_SENTINEL;
      }
}

/* Counts the wrong elements after exchange `it`. nbr[d][0] / nbr[d][1]: the low / high neighbour. */
static long halo_check(const double *a, int n, int rank, long it, int nbr[3][2]) {
  const int e = n + 2;
  int c[3];
  long bad = 0;
  for (c[0] = 0; c[0] < e; c[0]++)
    for (c[1] = 0; c[1] < e; c[1]++)
      for (c[2] = 0; c[2] < e; c[2]++) {
        int d, outer = 0, od = -1;
        double want;
        for (d = 0; d < 3; d++)
          if (c[d] == 0 || c[d] == n + 1) {
            outer++;
            od = d;
          }
        if (outer == 0) {
          want = halo_value(rank, it, HALO_IDX(n, c[0], c[1], c[2]));
        } else if (outer == 1) {
          /* Low halo (plane 0) holds the low neighbour's plane n, high halo its high one's plane 1. */
          int src[3];
          const int low = c[od] == 0;
          src[0] = c[0];
          src[1] = c[1];
          src[2] = c[2];
          src[od] = low ? n : 1;
          want = halo_value(nbr[od][low ? 0 : 1], it, HALO_IDX(n, src[0], src[1], src[2]));
        } else {
          want = HALO_SENTINEL;
        }
        if (a[HALO_IDX(n, c[0], c[1], c[2])] != want) bad++;
      }
  return bad;
}

int main(int argc, char **argv) {
  const char *title = "Pamir MPI Halo Exchange Test";
  struct bench_options o;
  int rank, nranks, rc, failed_any = 0;
  int dims[3], coord[3], nbr[3][2], d, s;
  size_t n;
  char line[160];

  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nranks);

  rc = bench_parse_options(argc, argv, BENCH_HALO, rank, title, &o);
  if (rc != 0) {
    MPI_Finalize();
    return rc < 0 ? 1 : 0;
  }

  /* Periodic grid, rank = (coord[0] * dims[1] + coord[1]) * dims[2] + coord[2] (C order). */
  halo_dims(nranks, dims);
  coord[0] = rank / (dims[1] * dims[2]);
  coord[1] = rank / dims[2] % dims[1];
  coord[2] = rank % dims[2];
  for (d = 0; d < 3; d++)
    for (s = 0; s < 2; s++) {
      int c[3];
      c[0] = coord[0];
      c[1] = coord[1];
      c[2] = coord[2];
      c[d] = (c[d] + (s ? 1 : dims[d] - 1)) % dims[d];
      nbr[d][s] = (c[0] * dims[1] + c[1]) * dims[2] + c[2];
    }

  if (rank == 0) {
    snprintf(line, sizeof line,
             "MPI_DOUBLE, 6 MPI_Type_create_subarray faces of N x N; %d ranks, periodic grid %d x %d x %d",
             nranks, dims[0], dims[1], dims[2]);
    bench_print_header_ex(title, line, "# N", "Avg Time(us)", o.validate, "Bytes/rank");
  }

  for (n = o.min_size; n <= o.max_size; n = bench_next_size(n)) {
    const int nn = (int)n;
    const int large = nn > BENCH_HALO_LARGE_N;
    const long iters = large ? o.iterations_large : o.iterations;
    const long skip = large ? o.skip_large : o.skip;
    const size_t elems = (size_t)(nn + 2) * (size_t)(nn + 2) * (size_t)(nn + 2);
    /* send[d][s]: interior plane next to side s of dimension d; recv[d][s]: the halo plane there. */
    MPI_Datatype send[3][2], recv[3][2];
    MPI_Request req[12];
    MPI_Status sts[12];
    double *a, t_start = 0.0, t_end, t, sum;
    long i, errors = 0;

    a = bench_alloc(elems * sizeof(double));
    if (a == NULL) {
      fprintf(stderr, "rank %d: cannot allocate %zu bytes\n", rank, elems * sizeof(double));
      MPI_Abort(MPI_COMM_WORLD, 1);
    }
    halo_fill(a, nn, rank, 0);
    for (d = 0; d < 3; d++) {
      halo_face(nn, d, 1, &send[d][0]);
      halo_face(nn, d, nn, &send[d][1]);
      halo_face(nn, d, 0, &recv[d][0]);
      halo_face(nn, d, nn + 1, &recv[d][1]);
    }

    MPI_Barrier(MPI_COMM_WORLD);
    for (i = 0; i < iters + skip; i++) {
      int k = 0;
      if (i == skip) t_start = MPI_Wtime();
      if (o.validate) halo_fill(a, nn, rank, i);
      /* Tag 2d + 1: travelling towards +d (received into the low halo), 2d: towards -d. */
      for (d = 0; d < 3; d++) {
        MPI_Irecv(a, 1, recv[d][0], nbr[d][0], 2 * d + 1, MPI_COMM_WORLD, &req[k++]);
        MPI_Irecv(a, 1, recv[d][1], nbr[d][1], 2 * d, MPI_COMM_WORLD, &req[k++]);
      }
      for (d = 0; d < 3; d++) {
        MPI_Isend(a, 1, send[d][1], nbr[d][1], 2 * d + 1, MPI_COMM_WORLD, &req[k++]);
        MPI_Isend(a, 1, send[d][0], nbr[d][0], 2 * d, MPI_COMM_WORLD, &req[k++]);
      }
      MPI_Waitall(k, req, sts); /* not MPI_STATUSES_IGNORE: gcc 12 warns about MPICH's */
      if (o.validate) errors += halo_check(a, nn, rank, i, nbr);
    }
    t_end = MPI_Wtime();
    t = iters > 0 ? (t_end - t_start) * 1e6 / (double)iters : 0.0;

    MPI_Allreduce(&t, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    if (o.validate) {
      long total = 0;
      MPI_Allreduce(&errors, &total, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
      errors = total;
      if (errors) failed_any = 1;
    }
    if (rank == 0)
      bench_print_row_ex(n, sum / nranks, o.validate, errors != 0, 6LL * nn * nn * (long long)sizeof(double));

    for (d = 0; d < 3; d++)
      for (s = 0; s < 2; s++) {
        MPI_Type_free(&send[d][s]);
        MPI_Type_free(&recv[d][s]);
      }
    free(a);
  }

  MPI_Finalize();
  return failed_any ? 1 : 0;
}
