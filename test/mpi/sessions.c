/* Sessions: a program that uses only sessions (MPI_Session_init, process sets and their information,
 * groups from them, "pamir://node" holding this node's processes, MPI_Comm_create_from_group on the world,
 * on itself and on a subgroup, traffic and collectives on the results, a session's error handler (one made
 * before anything is initialized, given to MPI_Session_init and freed after MPI_Session_finalize; got back
 * with MPI_Session_get_errhandler; MPI_Session_call_errhandler with it and with MPI_ERRORS_RETURN) and info,
 * its buffer for buffered sends, flushed by MPI_Session_flush_buffer and MPI_Session_iflush_buffer with
 * sends in flight, handle conversion), or, with the argument "mixed", one that also calls MPI_Init and
 * MPI_Finalize, finalizing the world model before its session. Exits 0 only if every process passed. */
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

/* A buffer for one message of n ints attached to the session, a buffered send in flight to the right (n =
 * 64 Ki goes by rendezvous), then the session's flush, blocking or not: after it the buffer has room for a
 * second message as large, and both arrive. */
static void flush_session(MPI_Session s, MPI_Comm wc, int n, int nonblocking) {
  int rank, size, bytes;
  MPI_Comm_rank(wc, &rank);
  MPI_Comm_size(wc, &size);
  const int right = (rank + 1) % size, left = (rank + size - 1) % size;
  MPI_Pack_size(n, MPI_INT, wc, &bytes);
  char *buf = malloc((size_t)(bytes + MPI_BSEND_OVERHEAD));
  int *out = malloc(sizeof(int) * (size_t)n), *in = malloc(sizeof(int) * 2 * (size_t)n);
  for (int i = 0; i < n; ++i) out[i] = rank * 1000003 + i;
  for (int i = 0; i < 2 * n; ++i) in[i] = -1;
  MPI_Session_attach_buffer(s, buf, bytes + MPI_BSEND_OVERHEAD);
  MPI_Request r[3];
  MPI_Irecv(in, n, MPI_INT, left, 7, wc, &r[0]);
  MPI_Irecv(in + n, n, MPI_INT, left, 8, wc, &r[1]);
  MPI_Bsend(out, n, MPI_INT, right, 7, wc);
  int rc;
  if (nonblocking) {
    rc = MPI_Session_iflush_buffer(s, &r[2]);
    if (rc == MPI_SUCCESS) rc = MPI_Wait(&r[2], MPI_STATUS_IGNORE);
  } else {
    rc = MPI_Session_flush_buffer(s);
  }
  CHECK(rc == MPI_SUCCESS, "%s of %d ints: %d", nonblocking ? "iflush" : "flush", n, rc);
  for (int i = 0; i < n; ++i) out[i] = -rank * 1000003 - i;
  rc = MPI_Bsend(out, n, MPI_INT, right, 8, wc);
  CHECK(rc == MPI_SUCCESS, "a second buffered send of %d ints after the %s: %d", n,
        nonblocking ? "iflush" : "flush", rc);
  MPI_Waitall(2, r, MPI_STATUSES_IGNORE);
  int bad = 0;
  for (int i = 0; i < n && !bad; ++i) bad = in[i] != left * 1000003 + i || in[n + i] != -left * 1000003 - i;
  CHECK(!bad, "the messages buffered around the %s of %d ints arrived", nonblocking ? "iflush" : "flush", n);
  void *back;
  int back_size;
  MPI_Session_detach_buffer(s, &back, &back_size);
  free(buf);
  free(out);
  free(in);
}

/* Everything a session offers; returns the communicator over mpi://WORLD it made (the caller frees it). */
static MPI_Comm use_session(MPI_Session s) {
  int n = -1;
  MPI_Session_get_num_psets(s, MPI_INFO_NULL, &n);
  CHECK(n >= 2, "%d process sets", n);
  int found_world = 0, found_self = 0, found_node = 0;
  for (int i = 0; i < n; ++i) {
    int len = 0;
    MPI_Session_get_nth_pset(s, MPI_INFO_NULL, i, &len, NULL);
    char name[64] = "";
    CHECK(len > 1 && len <= (int)sizeof name, "pset %d length %d", i, len);
    MPI_Session_get_nth_pset(s, MPI_INFO_NULL, i, &len, name);
    CHECK((int)strlen(name) == len - 1, "pset %d name \"%s\" length %d", i, name, len);
    found_world |= strcmp(name, "mpi://WORLD") == 0;
    found_self |= strcmp(name, "mpi://SELF") == 0;
    found_node |= strcmp(name, "pamir://node") == 0;
  }
  CHECK(found_world && found_self && found_node, "mpi://WORLD, mpi://SELF and pamir://node are listed");

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

  /* pamir://node: the processes that share memory with this one, as MPI_Comm_split_type finds them. */
  MPI_Group node, shared_group;
  MPI_Comm shared;
  MPI_Group_from_session_pset(s, "pamir://node", &node);
  MPI_Comm_split_type(wc, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &shared);
  MPI_Comm_group(shared, &shared_group);
  int nsize = -1, shsize = -2, nrank = -1, cmp = MPI_UNEQUAL;
  MPI_Group_size(node, &nsize);
  MPI_Group_rank(node, &nrank);
  MPI_Comm_size(shared, &shsize);
  MPI_Group_compare(node, shared_group, &cmp);
  CHECK(nsize == shsize && nrank != MPI_UNDEFINED && (cmp == MPI_IDENT || cmp == MPI_SIMILAR),
        "pamir://node has %d processes (rank %d), this node %d; compare %d", nsize, nrank, shsize, cmp);
  MPI_Session_get_pset_info(s, "pamir://node", &pinfo);
  vlen = sizeof val;
  MPI_Info_get_string(pinfo, "mpi_size", &vlen, val, &flag);
  CHECK(flag && atoi(val) == shsize, "pamir://node's mpi_size %s", flag ? val : "missing");
  MPI_Info_free(&pinfo);
  MPI_Group_free(&node);
  MPI_Group_free(&shared_group);
  MPI_Comm_free(&shared);

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
  for (int nb = 0; nb < 2; ++nb) {
    flush_session(s, wc, 1, nb);
    flush_session(s, wc, 65536, nb);
  }

  /* The session's error handler (a reference got back is freed apart from the session's), info and
   * integer handle. */
  MPI_Errhandler eh, got = MPI_ERRHANDLER_NULL;
  MPI_Session_create_errhandler(on_error, &eh);
  MPI_Session_set_errhandler(s, eh);
  int grc = MPI_Session_get_errhandler(s, &got);
  CHECK(grc == MPI_SUCCESS && got == eh, "Session_get_errhandler: rc %d, the handler set %d", grc, got == eh);
  MPI_Errhandler_free(&got);
  CHECK(got == MPI_ERRHANDLER_NULL, "the handle got back is freed");
  MPI_Group g;
  const int rc = MPI_Group_from_session_pset(s, "nowhere://", &g);
  CHECK(handler_calls == 1 && err_class(handler_code) == MPI_ERR_ARG && err_class(rc) == MPI_ERR_ARG,
        "an unknown process set goes to the session's handler: %d calls, class %d", handler_calls,
        err_class(handler_code));
  MPI_Session_set_errhandler(s, MPI_ERRORS_RETURN);
  MPI_Errhandler_free(&eh);
  grc = MPI_Session_get_errhandler(s, &got);
  CHECK(grc == MPI_SUCCESS && got == MPI_ERRORS_RETURN, "Session_get_errhandler gives MPI_ERRORS_RETURN");
  MPI_Errhandler_free(&got);
  grc = MPI_Session_call_errhandler(s, MPI_ERR_OTHER);
  CHECK(grc == MPI_SUCCESS && handler_calls == 1,
        "Session_call_errhandler, MPI_ERRORS_RETURN: rc %d, %d calls", grc, handler_calls);
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
  MPI_Errhandler given = MPI_ERRHANDLER_NULL;
  MPI_Session_get_errhandler(s, &given);
  CHECK(given == first, "Session_get_errhandler gives the handler given to MPI_Session_init");
  MPI_Errhandler_free(&given);
  MPI_Session_call_errhandler(s, MPI_ERR_OTHER);
  CHECK(handler_calls == 1 && handler_code == MPI_ERR_OTHER,
        "the handler given to MPI_Session_init: %d calls", handler_calls);
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
