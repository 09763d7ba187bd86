/* MPI_Isendrecv and MPI_Isendrecv_replace and their large-count forms MPI_Isendrecv_c and
 * MPI_Isendrecv_replace_c (contiguous and strided, eager and rendezvous sizes, every element checked; with
 * MPI_PROC_NULL partners, statuses checked), and MPI_Request_get_status_all, _any and _some, which must
 * report completion without freeing or deactivating anything. */
#include "check.h"

static int rank, size;

static void isendrecv_ring(int n, int large) {
  const int right = (rank + 1) % size, left = (rank + size - 1) % size;
  int *out = malloc(sizeof(int) * (size_t)n), *in = malloc(sizeof(int) * (size_t)n);
  for (int i = 0; i < n; ++i) {
    out[i] = rank * 1000003 + i;
    in[i] = -1;
  }
  MPI_Request r;
  if (large)
    MPI_Isendrecv_c(out, n, MPI_INT, right, 5, in, n, MPI_INT, left, 5, MPI_COMM_WORLD, &r);
  else
    MPI_Isendrecv(out, n, MPI_INT, right, 5, in, n, MPI_INT, left, 5, MPI_COMM_WORLD, &r);
  int flag = 0;
  for (int spins = 0; spins < 3 && !flag; ++spins) MPI_Test(&r, &flag, MPI_STATUS_IGNORE);
  MPI_Status st;
  if (!flag) MPI_Wait(&r, &st);
  CHECK(r == MPI_REQUEST_NULL, "the request is freed at completion");
  if (!flag) {
    MPI_Count count = -1;
    MPI_Get_count_c(&st, MPI_INT, &count);
    CHECK(st.MPI_SOURCE == left && st.MPI_TAG == 5 && count == n, "status: source %d tag %d count %lld",
          st.MPI_SOURCE, st.MPI_TAG, (long long)count);
  }
  int bad = -1; /* the first element received wrong */
  for (int i = 0; i < n && bad < 0; ++i)
    if (in[i] != left * 1000003 + i) bad = i;
  CHECK(bad < 0, "Isendrecv%s of %d ints from %d: element %d is %d", large ? "_c" : "", n, left, bad,
        bad < 0 ? 0 : in[bad]);
  free(out);
  free(in);
}

/* A strided buffer exchanged in place around the ring: the outgoing data leaves before the incoming
 * data overwrites it, and the gaps stay as they were. The large-count form takes n of an int resized to
 * two, the other one vector of n. */
static void isendrecv_replace_ring(int n, int large) {
  const int right = (rank + 1) % size, left = (rank + size - 1) % size;
  MPI_Datatype every_other;
  if (large)
    MPI_Type_create_resized(MPI_INT, 0, 2 * sizeof(int), &every_other);
  else
    MPI_Type_vector(n, 1, 2, MPI_INT, &every_other);
  MPI_Type_commit(&every_other);
  int *buf = malloc(sizeof(int) * (size_t)(2 * n));
  for (int i = 0; i < 2 * n; ++i) buf[i] = i % 2 ? -7 : rank * 1000003 + i / 2;
  MPI_Request r;
  if (large)
    MPI_Isendrecv_replace_c(buf, n, every_other, right, 9, left, 9, MPI_COMM_WORLD, &r);
  else
    MPI_Isendrecv_replace(buf, 1, every_other, right, 9, left, 9, MPI_COMM_WORLD, &r);
  MPI_Status st;
  MPI_Wait(&r, &st);
  int bad = -1; /* the first int wrong, an element or a gap */
  for (int i = 0; i < 2 * n && bad < 0; ++i)
    if (buf[i] != (i % 2 ? -7 : left * 1000003 + i / 2)) bad = i;
  CHECK(bad < 0, "Isendrecv_replace%s of %d strided ints from %d: int %d is %d", large ? "_c" : "", n, left,
        bad, bad < 0 ? 0 : buf[bad]);
  CHECK(st.MPI_SOURCE == left && st.MPI_TAG == 9, "replace status: source %d tag %d", st.MPI_SOURCE,
        st.MPI_TAG);
  free(buf);
  MPI_Type_free(&every_other);
}

/* A line, not a ring: the ends exchange with MPI_PROC_NULL on one side. */
static void isendrecv_proc_null(void) {
  const int right = rank + 1 < size ? rank + 1 : MPI_PROC_NULL, left = rank > 0 ? rank - 1 : MPI_PROC_NULL;
  int out = rank, in = -1;
  MPI_Request r;
  MPI_Status st;
  MPI_Isendrecv(&out, 1, MPI_INT, right, 3, &in, 1, MPI_INT, left, 3, MPI_COMM_WORLD, &r);
  MPI_Wait(&r, &st);
  if (left == MPI_PROC_NULL) {
    int count = -1;
    MPI_Get_count(&st, MPI_INT, &count);
    CHECK(in == -1 && st.MPI_SOURCE == MPI_PROC_NULL && st.MPI_TAG == MPI_ANY_TAG && count == 0,
          "from MPI_PROC_NULL: in %d source %d tag %d count %d", in, st.MPI_SOURCE, st.MPI_TAG, count);
  } else {
    CHECK(in == left && st.MPI_SOURCE == left, "line: got %d from %d", in, st.MPI_SOURCE);
  }
  /* Both partners MPI_PROC_NULL: complete at once. */
  MPI_Isendrecv(&out, 1, MPI_INT, MPI_PROC_NULL, 3, &in, 1, MPI_INT, MPI_PROC_NULL, 3, MPI_COMM_WORLD, &r);
  int flag = 0;
  MPI_Test(&r, &flag, &st);
  CHECK(flag && st.MPI_SOURCE == MPI_PROC_NULL, "Isendrecv with no partners completes at once");
}

static void get_status(void) {
  const int right = (rank + 1) % size, left = (rank + size - 1) % size;
  int in[2] = {-1, -1}, out[2] = {rank, rank + 100};
  MPI_Request r[4] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL, MPI_REQUEST_NULL, MPI_REQUEST_NULL};
  /* r[0], r[1]: receives from the left, whose sends come after the barrier; r[2] stays null; r[3] an
   * inactive persistent request, which counts as null. */
  MPI_Irecv(&in[0], 1, MPI_INT, left, 20, MPI_COMM_WORLD, &r[0]);
  MPI_Irecv(&in[1], 1, MPI_INT, left, 21, MPI_COMM_WORLD, &r[1]);
  MPI_Recv_init(&in[0], 1, MPI_INT, left, 99, MPI_COMM_WORLD, &r[3]);
  int flag = -1, index = -2, outcount = -2, indices[4];
  MPI_Status st, sts[4];
  MPI_Request_get_status_all(4, r, &flag, sts);
  CHECK(flag == 0, "get_status_all before any send: flag %d", flag);
  MPI_Request_get_status_any(4, r, &index, &flag, &st);
  CHECK(flag == 0 && index == MPI_UNDEFINED, "get_status_any before any send: flag %d index %d", flag, index);
  MPI_Request_get_status_some(4, r, &outcount, indices, sts);
  CHECK(outcount == 0, "get_status_some before any send: outcount %d", outcount);
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Send(&out[1], 1, MPI_INT, right, 21, MPI_COMM_WORLD);
  /* The second receive completes; get_status_any reports it and leaves the handle. */
  do MPI_Request_get_status_any(4, r, &index, &flag, &st);
  while (!flag);
  CHECK(index == 1 && st.MPI_SOURCE == left && st.MPI_TAG == 21 && in[1] == left + 100,
        "get_status_any: index %d source %d tag %d value %d", index, st.MPI_SOURCE, st.MPI_TAG, in[1]);
  CHECK(r[1] != MPI_REQUEST_NULL, "get_status_any left the request");
  MPI_Request_get_status_some(4, r, &outcount, indices, sts);
  CHECK(outcount == 1 && indices[0] == 1 && sts[0].MPI_TAG == 21, "get_status_some: outcount %d index %d",
        outcount, indices[0]);
  MPI_Request_get_status_all(4, r, &flag, sts);
  CHECK(flag == 0, "get_status_all with one receive pending: flag %d", flag);
  MPI_Barrier(MPI_COMM_WORLD); /* every rank has looked at its one pending receive */
  MPI_Send(&out[0], 1, MPI_INT, right, 20, MPI_COMM_WORLD);
  do MPI_Request_get_status_all(4, r, &flag, sts);
  while (!flag);
  CHECK(sts[0].MPI_SOURCE == left && sts[0].MPI_TAG == 20 && sts[1].MPI_TAG == 21 &&
            sts[2].MPI_SOURCE == MPI_ANY_SOURCE && sts[3].MPI_SOURCE == MPI_ANY_SOURCE && in[0] == left,
        "get_status_all: tags %d %d, null and inactive statuses empty, value %d", sts[0].MPI_TAG,
        sts[1].MPI_TAG, in[0]);
  CHECK(r[0] != MPI_REQUEST_NULL && r[1] != MPI_REQUEST_NULL, "get_status_all left the requests");
  /* Waitall still finds them, complete, with the same statuses. */
  MPI_Waitall(2, r, sts);
  CHECK(r[0] == MPI_REQUEST_NULL && r[1] == MPI_REQUEST_NULL && sts[0].MPI_TAG == 20 && sts[1].MPI_TAG == 21,
        "Waitall after get_status_all");
  /* Only null and inactive requests: any says flag 1 with MPI_UNDEFINED, some MPI_UNDEFINED. */
  MPI_Request_get_status_any(4, r, &index, &flag, &st);
  CHECK(flag == 1 && index == MPI_UNDEFINED, "get_status_any of nothing active: flag %d index %d", flag,
        index);
  MPI_Request_get_status_some(4, r, &outcount, indices, sts);
  CHECK(outcount == MPI_UNDEFINED, "get_status_some of nothing active: %d", outcount);
  MPI_Request_free(&r[3]);
}

static void errors(void) {
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  int x = 0, y = 0;
  CHECK(err_class(MPI_Isendrecv(&x, 1, MPI_INT, 0, 0, &y, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, NULL)) ==
            MPI_ERR_REQUEST,
        "a NULL request");
  MPI_Request r;
  CHECK(err_class(MPI_Isendrecv(&x, 1, MPI_INT, size, 0, &y, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, &r)) ==
            MPI_ERR_RANK,
        "a destination outside the communicator");
  /* A receive part too small: the request's error is MPI_ERR_TRUNCATE. */
  int two[2] = {1, 2}, one = 0;
  MPI_Isendrecv(two, 2, MPI_INT, rank, 4, &one, 1, MPI_INT, rank, 4, MPI_COMM_WORLD, &r);
  CHECK(err_class(MPI_Wait(&r, MPI_STATUS_IGNORE)) == MPI_ERR_TRUNCATE, "truncation reported");
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  for (int n = 1; n <= 1 << 20; n *= 16)
    for (int large = 0; large < 2; ++large) {
      isendrecv_ring(n, large);
      isendrecv_replace_ring(n, large);
    }
  isendrecv_proc_null();
  get_status();
  errors();
  return finish("requests_more");
}
