/* Collectives with derived datatypes: the data arrives where the types say, and the gaps between keep
 * what they held (a vector of every other double, the other doubles live data of the program). Bcast,
 * gather, scatter, allgather and alltoall (also in place) between vector and contiguous types; reductions
 * with MPI_SUM on a contiguous derived type and with a user operation on a vector type. */
#include "check.h"

#define GAP (-1.0)

static int rank, size;

/* v[i] for element i of a vector of every other double; the odd slots are gaps holding GAP. */
static double *vec_buffer(int n, double base) {
  double *b = malloc(sizeof(double) * (size_t)(2 * n + 2));
  for (int i = 0; i < 2 * n + 2; ++i) b[i] = (i % 2) ? GAP : base + i / 2;
  return b;
}

static int gaps_ok(const double *b, int n) {
  for (int i = 1; i < 2 * n; i += 2)
    if (b[i] != GAP) return 0;
  return 1;
}

static void user_sum(void *in, void *inout, int *len, MPI_Datatype *t) {
  /* Works on the vector layout it is given: element k has 3 doubles 2 apart. */
  (void)t;
  double *a = in, *b = inout;
  for (int k = 0; k < *len; ++k)
    for (int j = 0; j < 3; ++j) b[6 * k + 2 * j] += a[6 * k + 2 * j];
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int ns[] = {1, 7, 5000, 100000};
  for (int t = 0; t < 4; ++t) {
    const int n = ns[t];
    /* n doubles, every other one, spanning 2n doubles: blocks of consecutive elements interleave with the
     * gaps */
    MPI_Datatype vec0, vec;
    MPI_Type_vector(n, 1, 2, MPI_DOUBLE, &vec0);
    MPI_Type_create_resized(vec0, 0, 2 * n * (MPI_Aint)sizeof(double), &vec);
    MPI_Type_free(&vec0);
    MPI_Type_commit(&vec);
    /* bcast from the last rank: vector at the root, vector everywhere */
    double *b = vec_buffer(n, rank == size - 1 ? 100 : -5);
    MPI_Bcast(b, 1, vec, size - 1, MPI_COMM_WORLD);
    int bad = !gaps_ok(b, n);
    for (int i = 0; i < n; ++i) bad += b[2 * i] != 100 + i;
    CHECK(bad == 0, "bcast of a %d-double vector: %d wrong", n, bad);
    free(b);
    /* gather: each rank sends its vector, the root receives contiguous doubles */
    double *mine = vec_buffer(n, 1000.0 * rank);
    double *all = malloc(sizeof(double) * (size_t)n * (size_t)size);
    MPI_Gather(mine, 1, vec, all, n, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    if (rank == 0) {
      bad = 0;
      for (int r = 0; r < size; ++r)
        for (int i = 0; i < n; ++i) bad += all[(size_t)r * (size_t)n + (size_t)i] != 1000.0 * r + i;
      CHECK(bad == 0, "gather of %d-double vectors: %d wrong", n, bad);
    }
    /* scatter back: contiguous at the root, vector at each rank */
    double *got = vec_buffer(n, -7);
    MPI_Scatter(all, n, MPI_DOUBLE, got, 1, vec, 0, MPI_COMM_WORLD);
    bad = !gaps_ok(got, n);
    for (int i = 0; i < n && rank == 0; ++i) bad += got[2 * i] != i; /* the root's own block */
    if (rank != 0) {
      bad = !gaps_ok(got, n);
      for (int i = 0; i < n; ++i) bad += got[2 * i] != 1000.0 * rank + i;
    }
    CHECK(bad == 0, "scatter into %d-double vectors: %d wrong", n, bad);
    free(got);
    /* allgather in place into a vector of size * n doubles */
    double *ag = vec_buffer(n * size, -3);
    for (int i = 0; i < n; ++i) ag[2 * ((size_t)rank * (size_t)n + (size_t)i)] = 10.0 * rank + i;
    MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, ag, 1, vec, MPI_COMM_WORLD);
    bad = !gaps_ok(ag, n * size);
    for (int r = 0; r < size; ++r)
      for (int i = 0; i < n; ++i) bad += ag[2 * ((size_t)r * (size_t)n + (size_t)i)] != 10.0 * r + i;
    CHECK(bad == 0, "allgather in place of %d-double vectors: %d wrong", n, bad);
    /* alltoall: vector blocks out, contiguous in */
    double *to = vec_buffer(n * size, 0), *from = malloc(sizeof(double) * (size_t)n * (size_t)size);
    for (int r = 0; r < size; ++r)
      for (int i = 0; i < n; ++i) to[2 * ((size_t)r * (size_t)n + (size_t)i)] = 1e6 * rank + 1e3 * r + i;
    MPI_Alltoall(to, 1, vec, from, n, MPI_DOUBLE, MPI_COMM_WORLD);
    bad = 0;
    for (int r = 0; r < size; ++r)
      for (int i = 0; i < n; ++i) bad += from[(size_t)r * (size_t)n + (size_t)i] != 1e6 * r + 1e3 * rank + i;
    CHECK(bad == 0, "alltoall of %d-double vectors: %d wrong", n, bad);
    free(to);
    free(from);
    free(ag);
    free(mine);
    free(all);
    MPI_Type_free(&vec);
  }
  /* MPI_SUM on a contiguous derived type reduces as its basic type */
  {
    MPI_Datatype four;
    MPI_Type_contiguous(4, MPI_DOUBLE, &four);
    MPI_Type_commit(&four);
    double in[8], out[8];
    for (int i = 0; i < 8; ++i) in[i] = rank + i;
    MPI_Allreduce(in, out, 2, four, MPI_SUM, MPI_COMM_WORLD);
    int bad = 0;
    for (int i = 0; i < 8; ++i) bad += out[i] != size * (size - 1) / 2.0 + size * i;
    CHECK(bad == 0, "allreduce MPI_SUM on contiguous(4, MPI_DOUBLE): %d wrong", bad);
    MPI_Type_free(&four);
  }
  /* A user operation on a vector type: the gaps of the receive buffer stay as they were. */
  {
    MPI_Datatype v3, ev;
    MPI_Type_vector(3, 1, 2, MPI_DOUBLE, &v3);
    MPI_Type_create_resized(v3, 0, 6 * sizeof(double), &ev);
    MPI_Type_commit(&ev);
    MPI_Op op;
    MPI_Op_create(user_sum, 1, &op);
    enum { K = 50 };
    double in[6 * K], out[6 * K];
    for (int i = 0; i < 6 * K; ++i) {
      in[i] = (i % 2) ? -9 : rank + i;
      out[i] = (i % 2) ? GAP : 0;
    }
    MPI_Allreduce(in, out, K, ev, op, MPI_COMM_WORLD);
    int bad = 0;
    for (int i = 0; i < 6 * K; ++i)
      bad += (i % 2) ? out[i] != GAP : out[i] != size * (size - 1) / 2.0 + size * i;
    CHECK(bad == 0, "allreduce with a user op on a vector type: %d wrong", bad);
    for (int i = 0; i < 6 * K; ++i) out[i] = (i % 2) ? GAP : 0;
    MPI_Reduce(in, out, K, ev, op, size - 1, MPI_COMM_WORLD);
    if (rank == size - 1) {
      bad = 0;
      for (int i = 0; i < 6 * K; ++i)
        bad += (i % 2) ? out[i] != GAP : out[i] != size * (size - 1) / 2.0 + size * i;
      CHECK(bad == 0, "reduce with a user op on a vector type: %d wrong", bad);
    }
    MPI_Op_free(&op);
    MPI_Type_free(&v3);
    MPI_Type_free(&ev);
  }
  return finish("dt_coll");
}
