/* Partitioned communication: every rank sends to the next one around a ring (itself at 1 rank) and
 * receives from the previous one. Partitions made ready in reverse or shuffled order, and the receiver
 * polling MPI_Parrived, are checked partition by partition over several starts of the same requests;
 * the two sides partitioned differently (MPI_Pready_range and _list); more partitions than one message
 * carries; non-contiguous types on both sides; partitions large enough for the rendezvous; the _c
 * forms; a point-to-point receive of any source and tag posted meanwhile, which must not take any
 * partition; byte totals that differ (MPI_ERR_TRUNCATE on both sides); and wrong arguments. */
#include "check.h"

static int rank, size, next, prev;

/* One start of a send of `sparts` partitions and a receive of `rparts`, `scount`/`rcount` elements
 * each, every partition's elements valued base + its index in the whole buffer. */
static void exchange(MPI_Request s, MPI_Request r, int sparts, int *sbuf, int total, int *rbuf, int rparts,
                     int rcount, int base, int order) {
  for (int i = 0; i < total; ++i) sbuf[i] = base + i, rbuf[i] = -1;
  MPI_Start(&r);
  MPI_Start(&s);
  /* The partitions in the order asked: 0 ascending, 1 descending, 2 a stride. */
  for (int k = 0; k < sparts; ++k) {
    const int q = order == 0 ? k : order == 1 ? sparts - 1 - k : (k * 7) % sparts;
    MPI_Pready(q, s);
  }
  /* Poll the arrivals; each partition that has arrived holds its values already. */
  int seen = 0, polls = 0;
  char *arrived = calloc((size_t)rparts, 1);
  while (seen < rparts && polls++ < 1000000) {
    for (int q = 0; q < rparts; ++q) {
      int flag = 0;
      if (arrived[q]) continue;
      MPI_Parrived(r, q, &flag);
      if (!flag) continue;
      arrived[q] = 1;
      ++seen;
      int bad = 0;
      for (int i = q * rcount; i < (q + 1) * rcount; ++i) bad += rbuf[i] != base - rank + prev + i;
      CHECK(bad == 0, "partition %d arrived with %d wrong elements", q, bad);
    }
  }
  CHECK(seen == rparts, "%d of %d partitions arrived", seen, rparts);
  MPI_Status st;
  MPI_Wait(&r, &st);
  MPI_Wait(&s, MPI_STATUS_IGNORE);
  CHECK(st.MPI_SOURCE == prev, "status source %d", st.MPI_SOURCE);
  int bad = 0;
  for (int i = 0; i < total; ++i) bad += rbuf[i] != base - rank + prev + i;
  CHECK(bad == 0, "%d of %d elements wrong after the wait", bad, total);
  free(arrived);
}

static void same_and_different(void) {
  /* The receiver's partitions: 8 of 1000 ints, and then 4 of 30 against the sender's 6 of 20. */
  const struct {
    int sparts, scount, rparts, rcount;
  } shapes[] = {
      {8, 1000, 8, 1000}, {6, 20, 4, 30}, {3, 0, 5, 0}, {4, 65536, 2, 131072}, {10000, 1, 100, 100}};
  for (size_t k = 0; k < sizeof shapes / sizeof shapes[0]; ++k) {
    const int total = shapes[k].sparts * shapes[k].scount;
    int *sbuf = malloc(sizeof(int) * (size_t)(total + 1)), *rbuf = malloc(sizeof(int) * (size_t)(total + 1));
    MPI_Request s, r;
    MPI_Precv_init(rbuf, shapes[k].rparts, shapes[k].rcount, MPI_INT, prev, (int)k, MPI_COMM_WORLD,
                   MPI_INFO_NULL, &r);
    MPI_Psend_init(sbuf, shapes[k].sparts, shapes[k].scount, MPI_INT, next, (int)k, MPI_COMM_WORLD,
                   MPI_INFO_NULL, &s);
    for (int it = 0; it < 4; ++it)
      exchange(s, r, shapes[k].sparts, sbuf, total, rbuf, shapes[k].rparts, shapes[k].rcount,
               rank + 1000 * it, it % 3);
    MPI_Request_free(&s);
    MPI_Request_free(&r);
    free(sbuf);
    free(rbuf);
  }
}

/* MPI_Pready_range and _list, with the _c forms. */
static void range_and_list(void) {
  int sbuf[24], rbuf[24];
  MPI_Request s, r;
  MPI_Precv_init_c(rbuf, 3, (MPI_Count)8, MPI_INT, prev, 40, MPI_COMM_WORLD, MPI_INFO_NULL, &r);
  MPI_Psend_init_c(sbuf, 6, (MPI_Count)4, MPI_INT, next, 40, MPI_COMM_WORLD, MPI_INFO_NULL, &s);
  for (int i = 0; i < 24; ++i) sbuf[i] = 100 * rank + i, rbuf[i] = -1;
  MPI_Start(&s);
  MPI_Start(&r);
  const int list[3] = {5, 0, 3};
  MPI_Pready_list(3, list, s);
  MPI_Pready_range(1, 2, s);
  MPI_Pready(4, s);
  MPI_Wait(&s, MPI_STATUS_IGNORE);
  MPI_Wait(&r, MPI_STATUS_IGNORE);
  int bad = 0;
  for (int i = 0; i < 24; ++i) bad += rbuf[i] != 100 * prev + i;
  CHECK(bad == 0, "range and list: %d wrong", bad);
  MPI_Request_free(&s);
  MPI_Request_free(&r);
}

/* Non-contiguous types on both sides: the sender's partitions are columns of a 2-wide vector, the
 * receiver's a resized type with a gap after every int, which must stay untouched. */
static void noncontiguous(void) {
  enum { N = 64 };
  int sbuf[2 * N], rbuf[2 * N];
  MPI_Datatype every_other, gapped;
  MPI_Type_vector(N / 4, 1, 2, MPI_INT, &every_other); /* a partition: N/4 ints, every other one */
  MPI_Type_commit(&every_other);
  MPI_Type_create_resized(MPI_INT, 0, 2 * (MPI_Aint)sizeof(int), &gapped);
  MPI_Type_commit(&gapped);
  MPI_Request s, r;
  /* Sender: 4 partitions of one vector each, whose extent ends at its last int: partition q starts
   * q * extent further, which interleaves nothing (the extent is (N/4 - 1) * 2 + 1 ints). */
  MPI_Aint lb, extent;
  MPI_Type_get_extent(every_other, &lb, &extent);
  MPI_Psend_init(sbuf, 4, 1, every_other, next, 41, MPI_COMM_WORLD, MPI_INFO_NULL, &s);
  MPI_Precv_init(rbuf, 8, N / 8, gapped, prev, 41, MPI_COMM_WORLD, MPI_INFO_NULL, &r);
  for (int i = 0; i < 2 * N; ++i) sbuf[i] = rank * 10000 + i, rbuf[i] = -9;
  MPI_Start(&r);
  MPI_Start(&s);
  for (int q = 3; q >= 0; --q) MPI_Pready(q, s);
  MPI_Wait(&s, MPI_STATUS_IGNORE);
  MPI_Wait(&r, MPI_STATUS_IGNORE);
  /* The k-th int sent: partition q = k / (N/4), element j = k % (N/4), at q * extent + 2j ints. */
  int bad = 0, gaps = 0;
  const int ext_ints = (int)(extent / (MPI_Aint)sizeof(int));
  for (int k = 0; k < N; ++k) {
    const int q = k / (N / 4), j = k % (N / 4);
    bad += rbuf[2 * k] != prev * 10000 + q * ext_ints + 2 * j;
    gaps += rbuf[2 * k + 1] != -9;
  }
  CHECK(bad == 0 && gaps == 0, "non-contiguous: %d wrong, %d gaps written", bad, gaps);
  MPI_Request_free(&s);
  MPI_Request_free(&r);
  MPI_Type_free(&every_other);
  MPI_Type_free(&gapped);
}

/* A receive of any source and any tag, posted before the partitioned traffic, gets only the
 * point-to-point message sent after it. */
static void apart_from_p2p(void) {
  int got = -1, sbuf[4] = {1, 2, 3, 4}, rbuf[4];
  MPI_Request any, s, r;
  MPI_Irecv(&got, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &any);
  MPI_Precv_init(rbuf, 2, 2, MPI_INT, prev, 42, MPI_COMM_WORLD, MPI_INFO_NULL, &r);
  MPI_Psend_init(sbuf, 1, 4, MPI_INT, next, 42, MPI_COMM_WORLD, MPI_INFO_NULL, &s);
  MPI_Start(&r);
  MPI_Start(&s);
  MPI_Pready(0, s);
  MPI_Wait(&s, MPI_STATUS_IGNORE);
  MPI_Wait(&r, MPI_STATUS_IGNORE);
  const int v = 777 + rank;
  MPI_Send(&v, 1, MPI_INT, next, 3, MPI_COMM_WORLD);
  MPI_Status st;
  MPI_Wait(&any, &st);
  CHECK(got == 777 + prev && st.MPI_TAG == 3 && st.MPI_SOURCE == prev,
        "the any-source receive got %d (tag %d from %d), not the point-to-point message", got, st.MPI_TAG,
        st.MPI_SOURCE);
  CHECK(rbuf[0] == 1 && rbuf[3] == 4, "partitioned values %d %d", rbuf[0], rbuf[3]);
  MPI_Request_free(&s);
  MPI_Request_free(&r);
}

/* A partition leaves as soon as it is ready: every rank makes its partition 0 ready, then waits for
 * the previous rank's partition 0 to arrive before making partition 1 ready. A library that held the
 * partitions until all were ready would never deliver it (the poll gives up and fails). */
static void early_partition(void) {
  int sbuf[2] = {rank, -rank}, rbuf[2] = {-1, -1};
  MPI_Request s, r;
  MPI_Precv_init(rbuf, 2, 1, MPI_INT, prev, 43, MPI_COMM_WORLD, MPI_INFO_NULL, &r);
  MPI_Psend_init(sbuf, 2, 1, MPI_INT, next, 43, MPI_COMM_WORLD, MPI_INFO_NULL, &s);
  for (int it = 0; it < 3; ++it) {
    MPI_Start(&r);
    MPI_Start(&s);
    MPI_Pready(0, s);
    int flag = 0;
    for (long polls = 0; !flag && polls < 50000000L; ++polls) MPI_Parrived(r, 0, &flag);
    CHECK(flag && rbuf[0] == prev, "partition 0 arrived before partition 1 was ready (flag %d, value %d)",
          flag, rbuf[0]);
    MPI_Pready(1, s);
    MPI_Wait(&s, MPI_STATUS_IGNORE);
    MPI_Wait(&r, MPI_STATUS_IGNORE);
    CHECK(rbuf[1] == -prev, "partition 1: %d", rbuf[1]);
    rbuf[0] = rbuf[1] = -1;
  }
  MPI_Request_free(&s);
  MPI_Request_free(&r);
}

static void errors(void) {
  MPI_Comm c;
  MPI_Comm_dup(MPI_COMM_WORLD, &c);
  MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN);
  int sbuf[8] = {0}, rbuf[8];
  MPI_Request s, r;
  CHECK(
      err_class(MPI_Precv_init(rbuf, 2, 4, MPI_INT, MPI_ANY_SOURCE, 0, c, MPI_INFO_NULL, &r)) == MPI_ERR_RANK,
      "MPI_ANY_SOURCE");
  CHECK(err_class(MPI_Psend_init(sbuf, -1, 4, MPI_INT, next, 0, c, MPI_INFO_NULL, &s)) == MPI_ERR_ARG,
        "negative partitions");
  MPI_Precv_init(rbuf, 2, 4, MPI_INT, prev, 4, c, MPI_INFO_NULL, &r);
  MPI_Psend_init(sbuf, 2, 4, MPI_INT, next, 4, c, MPI_INFO_NULL, &s);
  CHECK(err_class(MPI_Pready(0, s)) == MPI_ERR_REQUEST, "Pready before the start");
  int flag = 0;
  CHECK(err_class(MPI_Parrived(s, 0, &flag)) == MPI_ERR_REQUEST, "Parrived on a send");
  CHECK(err_class(MPI_Parrived(r, 2, &flag)) == MPI_ERR_ARG, "Parrived of a partition out of range");
  MPI_Start(&r);
  MPI_Start(&s);
  CHECK(err_class(MPI_Pready(2, s)) == MPI_ERR_ARG, "partition out of range");
  MPI_Pready(0, s);
  CHECK(err_class(MPI_Pready(0, s)) == MPI_ERR_ARG, "a partition made ready twice");
  MPI_Pready(1, s);
  CHECK(MPI_Wait(&r, MPI_STATUS_IGNORE) == MPI_SUCCESS && MPI_Wait(&s, MPI_STATUS_IGNORE) == MPI_SUCCESS,
        "the waits");
  MPI_Request_free(&s);
  MPI_Request_free(&r);
  /* Totals that differ: both sides fail with MPI_ERR_TRUNCATE. */
  MPI_Precv_init(rbuf, 2, 3, MPI_INT, prev, 5, c, MPI_INFO_NULL, &r);
  MPI_Psend_init(sbuf, 2, 4, MPI_INT, next, 5, c, MPI_INFO_NULL, &s);
  MPI_Start(&r);
  MPI_Start(&s);
  MPI_Pready_range(0, 1, s);
  CHECK(err_class(MPI_Wait(&r, MPI_STATUS_IGNORE)) == MPI_ERR_TRUNCATE, "receive of another total");
  CHECK(err_class(MPI_Wait(&s, MPI_STATUS_IGNORE)) == MPI_ERR_TRUNCATE, "send of another total");
  MPI_Request_free(&s);
  MPI_Request_free(&r);
  MPI_Comm_free(&c);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  next = (rank + 1) % size;
  prev = (rank + size - 1) % size;
  same_and_different();
  range_and_list();
  noncontiguous();
  apart_from_p2p();
  early_partition();
  errors();
  return finish("partitioned");
}
