/* Sessions: a program that uses only sessions (MPI_Session_init, process sets and their information,
 * groups from them, MPI_Comm_create_from_group on the world, on itself and on a subgroup, traffic and
 * collectives on the results, a session's error handler (one made before anything is initialized, given
 * to MPI_Session_init and freed after MPI_Session_finalize) and info, its buffer for buffered sends, handle
 * conversion), or, with the argument "mixed", one that also calls MPI_Init and MPI_Finalize, finalizing
 * the world model before its session. Exits 0 only if every process passed. */
#include "check.h"

static int failures_in(MPI_Comm c) {
  int mine = checks_failed, all = 0;
  MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_SUM, c);
  return all;
}

static int handler_calls, handler_code;
static void on_error(MPI_Session *s, int *code, ...) {
  (void)s;
  ++handler_calls;
  handler_code = *code;
}

/* Everything a session offers; returns the communicator over mpi://WORLD it made (the caller frees it). */
static MPI_Comm use_session(MPI_Session s) {
  int n = -1;
  MPI_Session_get_num_psets(s, MPI_INFO_NULL, &n);
  CHECK(n >= 2, "%d process sets", n);
  int found_world = 0, found_self = 0;
  for (int i = 0; i < n; ++i) {
    int len = 0;
    MPI_Session_get_nth_pset(s, MPI_INFO_NULL, i, &len, NULL);
    char name[64] = "";
    CHECK(len > 1 && len <= (int)sizeof name, "pset %d length %d", i, len);
    MPI_Session_get_nth_pset(s, MPI_INFO_NULL, i, &len, name);
    CHECK((int)strlen(name) == len - 1, "pset %d name \"%s\" length %d", i, name, len);
    found_world |= strcmp(name, "mpi://WORLD") == 0;
    found_self |= strcmp(name, "mpi://SELF") == 0;
  }
  CHECK(found_world && found_self, "mpi://WORLD and mpi://SELF are listed");

  MPI_Group world, self;
  MPI_Group_from_session_pset(s, "mpi://WORLD", &world);
  MPI_Group_from_session_pset(s, "mpi://SELF", &self);
  int wsize, wrank, ssize;
  MPI_Group_size(world, &wsize);
  MPI_Group_rank(world, &wrank);
  MPI_Group_size(self, &ssize);
  MPI_Info pinfo;
  MPI_Session_get_pset_info(s, "mpi://WORLD", &pinfo);
  char val[32] = "";
  int vlen = sizeof val, flag = 0;
  MPI_Info_get_string(pinfo, "mpi_size", &vlen, val, &flag);
  CHECK(flag && atoi(val) == wsize && ssize == 1, "mpi_size %s, world group %d, self group %d", val, wsize,
        ssize);
  MPI_Info_free(&pinfo);

  MPI_Comm wc, sc;
  MPI_Comm_create_from_group(world, "org.pamir.test.world", MPI_INFO_NULL, MPI_ERRORS_RETURN, &wc);
  MPI_Comm_create_from_group(self, "org.pamir.test.self", MPI_INFO_NULL, MPI_ERRORS_RETURN, &sc);
  int size, rank, ssz;
  MPI_Comm_size(wc, &size);
  MPI_Comm_rank(wc, &rank);
  MPI_Comm_size(sc, &ssz);
  CHECK(size == wsize && rank == wrank && ssz == 1, "communicators of %d (rank %d) and %d", size, rank, ssz);
  long sum = 0, mine = rank + 1;
  MPI_Allreduce(&mine, &sum, 1, MPI_LONG, MPI_SUM, wc);
  CHECK(sum == (long)size * (size + 1) / 2, "allreduce over the session's world: %ld", sum);
  int from = -1;
  MPI_Sendrecv(&rank, 1, MPI_INT, (rank + 1) % size, 0, &from, 1, MPI_INT, (rank + size - 1) % size, 0, wc,
               MPI_STATUS_IGNORE);
  CHECK(from == (rank + size - 1) % size, "ring on the session's world: %d", from);

  /* A subgroup: the even ranks, which alone call. */
  MPI_Group evens;
  const int ranges[1][3] = {{0, size - 1, 2}};
  MPI_Group_range_incl(world, 1, (int(*)[3])ranges, &evens);
  if (rank % 2 == 0) {
    MPI_Comm ec;
    MPI_Comm_create_from_group(evens, "org.pamir.test.evens", MPI_INFO_NULL, MPI_ERRORS_RETURN, &ec);
    int esize, erank;
    MPI_Comm_size(ec, &esize);
    MPI_Comm_rank(ec, &erank);
    CHECK(esize == (size + 1) / 2 && erank == rank / 2, "evens: size %d rank %d", esize, erank);
    int x = rank, total = 0;
    MPI_Allreduce(&x, &total, 1, MPI_INT, MPI_SUM, ec);
    int want = 0;
    for (int r = 0; r < size; r += 2) want += r;
    CHECK(total == want, "evens allreduce %d, expected %d", total, want);
    MPI_Comm_free(&ec);
  }
  MPI_Group_free(&evens);

  /* The session's buffer serves buffered sends on its communicators. */
  int one;
  MPI_Pack_size(1, MPI_INT, wc, &one);
  char *buf = malloc((size_t)(one + MPI_BSEND_OVERHEAD));
  MPI_Session_attach_buffer(s, buf, one + MPI_BSEND_OVERHEAD);
  int out = rank * 3, in = -1;
  MPI_Bsend(&out, 1, MPI_INT, (rank + 1) % size, 4, wc);
  MPI_Recv(&in, 1, MPI_INT, (rank + size - 1) % size, 4, wc, MPI_STATUS_IGNORE);
  CHECK(in == ((rank + size - 1) % size) * 3, "buffered send through the session's buffer: %d", in);
  void *back;
  int back_size;
  MPI_Session_detach_buffer(s, &back, &back_size);
  CHECK(back == buf && back_size == one + MPI_BSEND_OVERHEAD, "session buffer detached");
  free(buf);

  /* The session's error handler, info and integer handle. */
  MPI_Errhandler eh;
  MPI_Session_create_errhandler(on_error, &eh);
  MPI_Session_set_errhandler(s, eh);
  MPI_Group g;
  const int rc = MPI_Group_from_session_pset(s, "nowhere://", &g);
  CHECK(handler_calls == 1 && err_class(handler_code) == MPI_ERR_ARG && err_class(rc) == MPI_ERR_ARG,
        "an unknown process set goes to the session's handler: %d calls, class %d", handler_calls,
        err_class(handler_code));
  MPI_Session_set_errhandler(s, MPI_ERRORS_RETURN);
  MPI_Errhandler_free(&eh);
  MPI_Info used;
  MPI_Session_get_info(s, &used);
  vlen = sizeof val;
  MPI_Info_get_string(used, "thread_level", &vlen, val, &flag);
  CHECK(flag && strncmp(val, "MPI_THREAD_", 11) == 0, "thread_level %s", flag ? val : "missing");
  MPI_Info_free(&used);
  CHECK(MPI_Session_fromint(MPI_Session_toint(s)) == s, "Session_toint/fromint round trip");

  MPI_Comm_free(&sc);
  MPI_Group_free(&world);
  MPI_Group_free(&self);
  return wc;
}

int main(int argc, char **argv) {
  const int mixed = argc > 1 && strcmp(argv[1], "mixed") == 0;
  /* The handler MPI_Session_init takes is made before anything is initialized, and freed after. */
  MPI_Errhandler first = MPI_ERRHANDLER_NULL;
  const int made = MPI_Session_create_errhandler(on_error, &first);
  if (mixed) MPI_Init(&argc, &argv);
  MPI_Session s;
  MPI_Info info;
  MPI_Info_create(&info);
  MPI_Info_set(info, "thread_level", "MPI_THREAD_SINGLE");
  MPI_Session_init(info, first, &s);
  MPI_Info_free(&info);
  CHECK(made == MPI_SUCCESS, "MPI_Session_create_errhandler before initialization: %d", made);
  MPI_Session_call_errhandler(s, MPI_ERR_OTHER);
  CHECK(handler_calls == 1 && handler_code == MPI_ERR_OTHER, "the handler given to MPI_Session_init: %d calls",
        handler_calls);
  handler_calls = 0;
  MPI_Session_set_errhandler(s, MPI_ERRORS_RETURN);
  MPI_Comm wc = use_session(s);
  if (mixed) {
    /* Both models at once: MPI_COMM_WORLD and the session's world are different communicators. */
    int result = -1;
    MPI_Comm_compare(wc, MPI_COMM_WORLD, &result);
    CHECK(result == MPI_CONGRUENT, "the session's world and MPI_COMM_WORLD compare %d", result);
  }
  const int failed = failures_in(wc);
  int rank;
  MPI_Comm_rank(wc, &rank);
  if (rank == 0)
    printf("sessions%s: %d checks passed on rank 0, %d failed in all\n", mixed ? " (mixed)" : "",
           checks_passed, failed);
  MPI_Comm_free(&wc);
  if (mixed) MPI_Finalize(); /* the open session keeps the library running */
  MPI_Session_finalize(&s);
  const int freed = MPI_Errhandler_free(&first);
  if (freed != MPI_SUCCESS || first != MPI_ERRHANDLER_NULL) {
    printf("sessions: MPI_Errhandler_free after MPI_Session_finalize returned %d\n", freed);
    return 1;
  }
  return failed ? 1 : 0;
}
