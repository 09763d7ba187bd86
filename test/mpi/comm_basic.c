/* Communicators: MPI_COMM_WORLD/SELF, dup, dup_with_info, split, split_type, create, create_group,
 * compare, free, names, info hints; isolation of contexts (the same tag on a duplicate never matches
 * the parent's messages); context ids unique across many live communicators and reusable over 5000
 * create/free cycles; concurrent creation from two threads (MPI_THREAD_MULTIPLE); error handlers and
 * error classes; info objects; handle <-> integer conversion; error paths under MPI_ERRORS_RETURN.
 * Runs with 1 to 4 ranks. */
#include <pthread.h>
#include <string.h>

#include "check.h"

static int rank, size;

/* Rank 0 of `a` sends tag 7 on `a` then on `b` (same members, any order) to every other process; the
 * receivers take b's first: with separate contexts each receive gets its own communicator's message. */
static void isolation(MPI_Comm a, MPI_Comm b, const char *what) {
  int ra = 0, n = 0;
  MPI_Comm_rank(a, &ra);
  MPI_Comm_size(a, &n);
  if (n < 2) return;
  if (ra == 0) {
    MPI_Group ga, gb;
    MPI_Comm_group(a, &ga);
    MPI_Comm_group(b, &gb);
    for (int p = 1; p < n; ++p) {
      int pb = -1, va = 1000 + p, vb = 2000 + p;
      MPI_Group_translate_ranks(ga, 1, &p, gb, &pb);
      MPI_Send(&va, 1, MPI_INT, p, 7, a);
      MPI_Send(&vb, 1, MPI_INT, pb, 7, b);
    }
    MPI_Group_free(&ga);
    MPI_Group_free(&gb);
  } else {
    int vb = -1, va = -1;
    MPI_Status st;
    MPI_Recv(&vb, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, b, &st);
    CHECK(vb == 2000 + ra && st.MPI_TAG == 7, "%s: second communicator got %d (tag %d)", what, vb,
          st.MPI_TAG);
    MPI_Recv(&va, 1, MPI_INT, 0, 7, a, MPI_STATUS_IGNORE);
    CHECK(va == 1000 + ra, "%s: first communicator got %d", what, va);
  }
}

static void world_and_self(void) {
  int n = 0, r = -1, len = 0, flag = 1;
  char name[MPI_MAX_OBJECT_NAME];
  MPI_Comm_size(MPI_COMM_SELF, &n);
  MPI_Comm_rank(MPI_COMM_SELF, &r);
  CHECK(n == 1 && r == 0, "MPI_COMM_SELF size %d rank %d", n, r);
  MPI_Comm_get_name(MPI_COMM_WORLD, name, &len);
  CHECK(strcmp(name, "MPI_COMM_WORLD") == 0 && len == 14, "world name \"%s\" (%d)", name, len);
  MPI_Comm_get_name(MPI_COMM_SELF, name, &len);
  CHECK(strcmp(name, "MPI_COMM_SELF") == 0, "self name \"%s\"", name);
  /* MPI 4.1: the null handles have names. */
  MPI_Comm_get_name(MPI_COMM_NULL, name, &len);
  CHECK(strcmp(name, "MPI_COMM_NULL") == 0 && len == 13, "null communicator's name \"%s\" (%d)", name, len);
  MPI_Type_get_name(MPI_DATATYPE_NULL, name, &len);
  CHECK(strcmp(name, "MPI_DATATYPE_NULL") == 0 && len == 17, "null datatype's name \"%s\" (%d)", name, len);
  MPI_Comm_test_inter(MPI_COMM_WORLD, &flag);
  CHECK(flag == 0, "world is not an inter-communicator");
  int res = -1;
  MPI_Comm_compare(MPI_COMM_WORLD, MPI_COMM_WORLD, &res);
  CHECK(res == MPI_IDENT, "compare(world, world) = %d", res);
  MPI_Comm_compare(MPI_COMM_WORLD, MPI_COMM_SELF, &res);
  CHECK(res == (size == 1 ? MPI_CONGRUENT : MPI_UNEQUAL), "compare(world, self) = %d", res);
  MPI_Comm parent = MPI_COMM_WORLD;
  MPI_Comm_get_parent(&parent);
  CHECK(parent == MPI_COMM_NULL, "no parent");
}

static void dup_and_names(void) {
  MPI_Comm d;
  MPI_Comm_dup(MPI_COMM_WORLD, &d);
  int r = -1, n = -1, res = -1, len = -1;
  MPI_Comm_rank(d, &r);
  MPI_Comm_size(d, &n);
  CHECK(r == rank && n == size, "dup rank %d size %d", r, n);
  MPI_Comm_compare(MPI_COMM_WORLD, d, &res);
  CHECK(res == MPI_CONGRUENT, "compare(world, dup) = %d", res);
  char name[MPI_MAX_OBJECT_NAME];
  MPI_Comm_get_name(d, name, &len);
  CHECK(len == 0 && name[0] == 0, "a duplicate has no name (\"%s\")", name);
  MPI_Comm_set_name(d, "my duplicate");
  MPI_Comm_get_name(d, name, &len);
  CHECK(strcmp(name, "my duplicate") == 0 && len == 12, "name \"%s\"", name);
  isolation(MPI_COMM_WORLD, d, "dup");
  isolation(d, MPI_COMM_WORLD, "dup reversed");
  MPI_Comm dd;
  MPI_Comm_dup(d, &dd);
  isolation(d, dd, "dup of dup");
  MPI_Comm_compare(d, dd, &res);
  CHECK(res == MPI_CONGRUENT, "compare(dup, dup of dup) = %d", res);
  MPI_Comm_free(&dd);
  CHECK(dd == MPI_COMM_NULL, "free sets MPI_COMM_NULL");
  MPI_Comm_free(&d);

  /* Info hints: set, get, copied by dup, replaced by dup_with_info. */
  MPI_Comm a, b, c;
  MPI_Comm_dup(MPI_COMM_WORLD, &a);
  MPI_Info in, out;
  MPI_Info_create(&in);
  MPI_Info_set(in, "mpi_assert_no_any_tag", "true");
  MPI_Info_set(in, "pamir_test_hint", "42");
  MPI_Comm_set_info(a, in);
  MPI_Info_free(&in);
  MPI_Comm_get_info(a, &out);
  char v[64];
  int buflen = sizeof v;
  int flag = 0;
  MPI_Info_get_string(out, "pamir_test_hint", &buflen, v, &flag);
  CHECK(flag && strcmp(v, "42") == 0, "hint after set_info: flag %d value \"%s\"", flag, flag ? v : "");
  MPI_Info_free(&out);
  MPI_Comm_dup(a, &b);
  MPI_Comm_get_info(b, &out);
  buflen = sizeof v;
  MPI_Info_get_string(out, "pamir_test_hint", &buflen, v, &flag);
  CHECK(flag && strcmp(v, "42") == 0, "dup copies the hints (flag %d)", flag);
  MPI_Info_free(&out);
  MPI_Info_create(&in);
  MPI_Info_set(in, "other", "x");
  MPI_Comm_dup_with_info(a, in, &c);
  MPI_Info_free(&in);
  MPI_Comm_get_info(c, &out);
  buflen = sizeof v;
  MPI_Info_get_string(out, "pamir_test_hint", &buflen, v, &flag);
  CHECK(!flag, "dup_with_info does not keep the parent's hints");
  buflen = sizeof v;
  MPI_Info_get_string(out, "other", &buflen, v, &flag);
  CHECK(flag && strcmp(v, "x") == 0, "dup_with_info sets the given hints");
  MPI_Info_free(&out);
  isolation(a, c, "dup_with_info");
  /* MPI_INFO_NULL: no hints (Open MPI and MPICH accept it). */
  MPI_Comm e = MPI_COMM_NULL;
  MPI_Comm_set_errhandler(a, MPI_ERRORS_RETURN);
  const int rc = MPI_Comm_dup_with_info(a, MPI_INFO_NULL, &e);
  CHECK(rc == MPI_SUCCESS && e != MPI_COMM_NULL, "dup_with_info(MPI_INFO_NULL): error class %d",
        err_class(rc));
  if (e != MPI_COMM_NULL) {
    MPI_Comm_get_info(e, &out);
    buflen = sizeof v;
    MPI_Info_get_string(out, "pamir_test_hint", &buflen, v, &flag);
    CHECK(!flag, "dup_with_info(MPI_INFO_NULL) keeps none of the parent's hints");
    MPI_Info_free(&out);
    isolation(a, e, "dup_with_info(MPI_INFO_NULL)");
    MPI_Comm_free(&e);
  }
  MPI_Comm_free(&a);
  MPI_Comm_free(&b);
  MPI_Comm_free(&c);
}

static void splits(void) {
  /* Same color, reversed keys: ranks reversed, the same members (SIMILAR unless one process). */
  MPI_Comm rev;
  MPI_Comm_split(MPI_COMM_WORLD, 3, size - rank, &rev);
  int r = -1, n = -1, res = -1;
  MPI_Comm_rank(rev, &r);
  MPI_Comm_size(rev, &n);
  CHECK(r == size - 1 - rank && n == size, "reversed split: rank %d size %d", r, n);
  MPI_Comm_compare(MPI_COMM_WORLD, rev, &res);
  CHECK(res == (size == 1 ? MPI_CONGRUENT : MPI_SIMILAR), "compare(world, reversed) = %d", res);
  isolation(MPI_COMM_WORLD, rev, "split");
  MPI_Comm_free(&rev);

  /* Equal keys keep the old order; two colors. */
  MPI_Comm half;
  MPI_Comm_split(MPI_COMM_WORLD, rank % 2, 0, &half);
  MPI_Comm_rank(half, &r);
  MPI_Comm_size(half, &n);
  CHECK(r == rank / 2 && n == (size + 1 - rank % 2) / 2, "parity split: rank %d size %d", r, n);
  /* Its members are the world ranks of its parity, in order. */
  int *mine = malloc(sizeof(int) * (size_t)n), me = rank;
  MPI_Allgather(&me, 1, MPI_INT, mine, 1, MPI_INT, half);
  for (int i = 0; i < n; ++i)
    CHECK(mine[i] == 2 * i + rank % 2, "parity member %d is world rank %d", i, mine[i]);
  free(mine);
  MPI_Comm_free(&half);

  /* MPI_UNDEFINED gives MPI_COMM_NULL. */
  MPI_Comm some;
  MPI_Comm_split(MPI_COMM_WORLD, rank == 0 ? 0 : MPI_UNDEFINED, 0, &some);
  CHECK((rank == 0) == (some != MPI_COMM_NULL), "undefined color gives MPI_COMM_NULL");
  if (some != MPI_COMM_NULL) {
    MPI_Comm_size(some, &n);
    CHECK(n == 1, "one-member split size %d", n);
    MPI_Comm_free(&some);
  }

  /* split_type: every rank of this test runs on one node. */
  MPI_Comm node;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, -rank, MPI_INFO_NULL, &node);
  MPI_Comm_size(node, &n);
  MPI_Comm_rank(node, &r);
  CHECK(n == size && r == size - 1 - rank, "shared split: size %d rank %d", n, r);
  isolation(MPI_COMM_WORLD, node, "split_type");
  MPI_Comm_free(&node);
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_UNDEFINED, 0, MPI_INFO_NULL, &node);
  CHECK(node == MPI_COMM_NULL, "split_type MPI_UNDEFINED");
  MPI_Info hw;
  MPI_Info_create(&hw);
  MPI_Info_set(hw, "mpi_hw_resource_type", "mpi_shared_memory");
  /* The hint names the node's shared memory under HW_GUIDED, and the same resource under RESOURCE_GUIDED. */
  const int guided[2] = {MPI_COMM_TYPE_HW_GUIDED, MPI_COMM_TYPE_RESOURCE_GUIDED};
  for (int g = 0; g < 2; ++g) {
    MPI_Comm_split_type(MPI_COMM_WORLD, guided[g], 0, hw, &node);
    CHECK(node != MPI_COMM_NULL, "split type %d with shared memory gives a communicator", guided[g]);
    if (node != MPI_COMM_NULL) {
      MPI_Comm_size(node, &n);
      CHECK(n == size, "split type %d: size %d", guided[g], n);
      MPI_Comm_free(&node);
    }
  }
  MPI_Info_set(hw, "mpi_hw_resource_type", "pamir_no_such_resource");
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_HW_GUIDED, 0, hw, &node);
  CHECK(node == MPI_COMM_NULL, "hw_guided with an unknown resource gives MPI_COMM_NULL");
  MPI_Info_free(&hw);
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_HW_UNGUIDED, 0, MPI_INFO_NULL, &node);
  CHECK(node == MPI_COMM_NULL, "hw_unguided on one node gives MPI_COMM_NULL");
}

static void creates(void) {
  MPI_Group world, evens;
  MPI_Comm_group(MPI_COMM_WORLD, &world);
  int ranges[1][3] = {{0, size - 1, 2}};
  MPI_Group_range_incl(world, 1, ranges, &evens);
  MPI_Comm ce;
  MPI_Comm_create(MPI_COMM_WORLD, evens, &ce);
  CHECK((rank % 2 == 0) == (ce != MPI_COMM_NULL), "create: member %d got %s", rank,
        ce == MPI_COMM_NULL ? "MPI_COMM_NULL" : "a communicator");
  if (ce != MPI_COMM_NULL) {
    int r, n;
    MPI_Comm_rank(ce, &r);
    MPI_Comm_size(ce, &n);
    CHECK(r == rank / 2 && n == (size + 1) / 2, "create: rank %d size %d", r, n);
    MPI_Group g;
    int res;
    MPI_Comm_group(ce, &g);
    MPI_Group_compare(g, evens, &res);
    CHECK(res == MPI_IDENT, "the created communicator's group is the group (%d)", res);
    MPI_Group_free(&g);
    MPI_Comm_free(&ce);
  }
  /* MPI-2.2 form: disjoint groups, one per process set, in one call. */
  MPI_Group odds;
  MPI_Group_difference(world, evens, &odds);
  MPI_Comm mine;
  MPI_Comm_create(MPI_COMM_WORLD, rank % 2 ? odds : evens, &mine);
  CHECK(mine != MPI_COMM_NULL, "disjoint create gives everyone a communicator");
  if (mine != MPI_COMM_NULL) {
    int n;
    MPI_Comm_size(mine, &n);
    CHECK(n == (rank % 2 ? size / 2 : (size + 1) / 2), "disjoint create size %d", n);
    int sum = 0, one = 1;
    MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, mine);
    CHECK(sum == n, "allreduce on the created communicator %d", sum);
    MPI_Comm_free(&mine);
  }

  /* create_group: only the members call it. The others wait for a message that a member sends after
   * its call returned: if create_group needed them, this would hang. */
  int members = (size + 1) / 2;
  MPI_Group low;
  int lr[1][3] = {{0, members - 1, 1}};
  MPI_Group_range_incl(world, 1, (void *)lr, &low);
  if (rank < members) {
    MPI_Comm cg;
    MPI_Comm_create_group(MPI_COMM_WORLD, low, 99, &cg);
    CHECK(cg != MPI_COMM_NULL, "create_group member got a communicator");
    int n = -1, r = -1;
    MPI_Comm_size(cg, &n);
    MPI_Comm_rank(cg, &r);
    CHECK(n == members && r == rank, "create_group size %d rank %d", n, r);
    int sum = 0;
    MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, cg);
    CHECK(sum == members * (members - 1) / 2, "create_group allreduce %d", sum);
    if (rank + members < size) MPI_Send(&sum, 1, MPI_INT, rank + members, 5, MPI_COMM_WORLD);
    MPI_Comm_free(&cg);
  } else {
    int got = -1;
    MPI_Recv(&got, 1, MPI_INT, rank - members, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    CHECK(got == members * (members - 1) / 2, "non-member got %d", got);
  }
  /* Two disjoint groups with the same tag at the same time. */
  MPI_Comm cg2;
  MPI_Comm_create_group(MPI_COMM_WORLD, rank % 2 ? odds : evens, 3, &cg2);
  if (cg2 != MPI_COMM_NULL) {
    int n = -1;
    MPI_Comm_size(cg2, &n);
    CHECK(n == (rank % 2 ? size / 2 : (size + 1) / 2), "disjoint create_group size %d", n);
    MPI_Comm_free(&cg2);
  } else {
    CHECK(0, "disjoint create_group gave MPI_COMM_NULL");
  }
  MPI_Group_free(&odds);
  MPI_Group_free(&low);
  MPI_Group_free(&evens);
  MPI_Group_free(&world);
}

/* Many live communicators at once: each must have its own context. */
enum { LIVE = 120 };
static void unique_contexts(void) {
  MPI_Comm comms[LIVE];
  MPI_Group wg;
  MPI_Comm_group(MPI_COMM_WORLD, &wg);
  for (int i = 0; i < LIVE; ++i) {
    MPI_Comm base = i == 0 ? MPI_COMM_WORLD : comms[i - 1];
    if (i % 3 == 0)
      MPI_Comm_dup(base, &comms[i]);
    else if (i % 3 == 1)
      MPI_Comm_split(base, 0, rank, &comms[i]);
    else
      MPI_Comm_create(base, wg, &comms[i]);
  }
  MPI_Group_free(&wg);
  int peer = (rank + 1) % size, from = (rank + size - 1) % size;
  /* Send the index on every communicator with one tag, receive in reverse order. */
  /* A freed send's buffer stays untouched until the send is done, which nothing here can tell: each
     message has a value of its own for as long as the program runs. */
  static int sent[LIVE];
  MPI_Request reqs[LIVE];
  for (int i = 0; i < LIVE; ++i) {
    MPI_Request s;
    sent[i] = i;
    MPI_Isend(&sent[i], 1, MPI_INT, peer, 11, comms[i], &s);
    MPI_Request_free(&s);
  }
  int got[LIVE];
  for (int i = LIVE - 1; i >= 0; --i) MPI_Irecv(&got[i], 1, MPI_INT, from, 11, comms[i], &reqs[i]);
  MPI_Waitall(LIVE, reqs, MPI_STATUSES_IGNORE);
  int bad = 0;
  for (int i = 0; i < LIVE; ++i) bad += got[i] != i;
  CHECK(bad == 0, "%d of %d communicators received another communicator's message", bad, LIVE);
  for (int i = LIVE - 1; i >= 0; --i) MPI_Comm_free(&comms[i]);
}

/* 5000 create/free cycles never run out of context ids. */
static void recycle(void) {
  int failures = 0;
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  for (int i = 0; i < 5000; ++i) {
    MPI_Comm c = MPI_COMM_NULL;
    int rc = i % 2 ? MPI_Comm_dup(MPI_COMM_WORLD, &c) : MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &c);
    if (rc != MPI_SUCCESS || c == MPI_COMM_NULL) {
      ++failures;
      break;
    }
    if (i % 1000 == 1) isolation(MPI_COMM_WORLD, c, "recycled"); /* a duplicate */
    MPI_Comm_free(&c);
  }
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
  CHECK(failures == 0, "creating communicators failed after recycling");
}

/* Two threads creating communicators at once, each from its own parent (and create_group on the same
 * parent with different tags); every communicator made must still be isolated from all the others. */
enum { THREAD_ROUNDS = 40 };
static MPI_Comm parents[2];
static MPI_Comm made[2][THREAD_ROUNDS];
static int thread_errors;
static pthread_mutex_t thread_lock = PTHREAD_MUTEX_INITIALIZER;

static void *creator(void *arg) {
  int t = (int)(long)arg, errs = 0;
  MPI_Group wg;
  MPI_Comm_group(MPI_COMM_WORLD, &wg);
  for (int i = 0; i < THREAD_ROUNDS; ++i) {
    int rc;
    if (i % 3 == 2)
      rc = MPI_Comm_create_group(MPI_COMM_WORLD, wg, 100 + t, &made[t][i]);
    else if (i % 3 == 1)
      rc = MPI_Comm_split(parents[t], 1, rank, &made[t][i]);
    else
      rc = MPI_Comm_dup(parents[t], &made[t][i]);
    errs += rc != MPI_SUCCESS;
  }
  MPI_Group_free(&wg);
  pthread_mutex_lock(&thread_lock);
  thread_errors += errs;
  pthread_mutex_unlock(&thread_lock);
  return NULL;
}

static void threaded_creation(int provided) {
  if (provided != MPI_THREAD_MULTIPLE) return;
  MPI_Comm_dup(MPI_COMM_WORLD, &parents[0]);
  MPI_Comm_dup(MPI_COMM_WORLD, &parents[1]);
  pthread_t th[2];
  for (long t = 0; t < 2; ++t) pthread_create(&th[t], NULL, creator, (void *)t);
  for (int t = 0; t < 2; ++t) pthread_join(th[t], NULL);
  CHECK(thread_errors == 0, "%d concurrent creations failed", thread_errors);
  /* Every communicator of both threads, plus the parents: one message each, received in reverse. */
  enum { N = 2 * THREAD_ROUNDS + 2 };
  MPI_Comm all[N];
  int k = 0;
  for (int t = 0; t < 2; ++t) {
    all[k++] = parents[t];
    for (int i = 0; i < THREAD_ROUNDS; ++i) all[k++] = made[t][i];
  }
  int peer = (rank + 1) % size, from = (rank + size - 1) % size, got[N];
  MPI_Request rq[N];
  for (int i = N - 1; i >= 0; --i) MPI_Irecv(&got[i], 1, MPI_INT, from, 1, all[i], &rq[i]);
  for (int i = 0; i < N; ++i) MPI_Send(&i, 1, MPI_INT, peer, 1, all[i]);
  MPI_Waitall(N, rq, MPI_STATUSES_IGNORE);
  int bad = 0;
  for (int i = 0; i < N; ++i) bad += got[i] != i;
  CHECK(bad == 0, "%d of %d concurrently made communicators share a context", bad, N);
  for (int i = 0; i < N; ++i) MPI_Comm_free(&all[i]);
}

/* A user error handler. */
static int handler_calls, handler_code;
static MPI_Comm handler_comm;
static void on_error(MPI_Comm *comm, int *code, ...) {
  ++handler_calls;
  handler_code = *code;
  handler_comm = *comm;
}

/* A handler that, the first time, calls a procedure failing on the same communicator. */
static int nest_calls, nest_depth, nest_deepest, nest_inner_rc;
static void nests_once(MPI_Comm *comm, int *code, ...) {
  (void)code;
  ++nest_calls;
  if (++nest_depth > nest_deepest) nest_deepest = nest_depth;
  if (nest_calls == 1) {
    int n = 0, x = 0;
    MPI_Comm_size(*comm, &n);
    nest_inner_rc = MPI_Send(&x, 1, MPI_INT, n + 5, 0, *comm);
  }
  --nest_depth;
}

static void errhandlers(void) {
  MPI_Errhandler eh, got;
  MPI_Comm_create_errhandler(on_error, &eh);
  MPI_Comm d;
  MPI_Comm_dup(MPI_COMM_WORLD, &d);
  MPI_Comm_set_errhandler(d, eh);
  MPI_Comm_get_errhandler(d, &got);
  CHECK(got == eh, "get_errhandler returns the handler set");
  MPI_Errhandler_free(&got);
  CHECK(got == MPI_ERRHANDLER_NULL, "free sets MPI_ERRHANDLER_NULL");
  MPI_Errhandler_free(&eh); /* d still uses it */
  int rc = MPI_Comm_call_errhandler(d, MPI_ERR_OTHER);
  CHECK(rc == MPI_SUCCESS && handler_calls == 1 && handler_code == MPI_ERR_OTHER && handler_comm == d,
        "call_errhandler: rc %d calls %d code %d", rc, handler_calls, handler_code);
  /* A real error goes to it too, with a detailed code of the right class. */
  int dummy = 0;
  rc = MPI_Send(&dummy, 1, MPI_INT, size + 5, 0, d);
  CHECK(handler_calls == 2 && err_class(handler_code) == MPI_ERR_RANK && err_class(rc) == MPI_ERR_RANK,
        "send to a bad rank: calls %d class %d", handler_calls, err_class(handler_code));
  char text[MPI_MAX_ERROR_STRING];
  int len = 0;
  MPI_Error_string(rc, text, &len);
  CHECK(strstr(text, "MPI_Send") != NULL && (int)strlen(text) == len, "error string \"%s\"", text);
  /* The same failure again gets the same code. */
  const int rc_again = MPI_Send(&dummy, 1, MPI_INT, size + 5, 0, d);
  CHECK(rc_again == rc && handler_calls == 3, "the same failure twice: codes %d and %d", rc, rc_again);
  /* A handler may call a procedure that fails on the same communicator: the handler runs again for it,
   * nested, and each call returns. */
  MPI_Errhandler nest_eh, kept;
  MPI_Comm_get_errhandler(d, &kept);
  MPI_Comm_create_errhandler(nests_once, &nest_eh);
  MPI_Comm_set_errhandler(d, nest_eh);
  MPI_Errhandler_free(&nest_eh);
  rc = MPI_Send(&dummy, 1, MPI_INT, size + 5, 0, d);
  CHECK(nest_calls == 2 && nest_deepest == 2 && err_class(nest_inner_rc) == MPI_ERR_RANK &&
            err_class(rc) == MPI_ERR_RANK,
        "nested: calls %d, depth %d, inner class %d, outer class %d", nest_calls, nest_deepest,
        err_class(nest_inner_rc), err_class(rc));
  MPI_Comm_set_errhandler(d, kept);
  MPI_Errhandler_free(&kept);
  /* A duplicate inherits the handler. */
  MPI_Comm dd;
  MPI_Comm_dup(d, &dd);
  MPI_Comm_call_errhandler(dd, MPI_ERR_ARG);
  CHECK(handler_calls == 4 && handler_comm == dd, "the duplicate inherited the handler");
  MPI_Comm_free(&dd);
  MPI_Comm_free(&d);
  /* Predefined handlers. */
  MPI_Comm_get_errhandler(MPI_COMM_WORLD, &got);
  CHECK(got == MPI_ERRORS_ARE_FATAL, "world's default handler");
  MPI_Errhandler_free(&got);
  CHECK(got == MPI_ERRHANDLER_NULL, "freeing a predefined handler's handle");

  /* Error classes and codes. */
  int cls = -1, code = -1, c2 = -1, lastused = 0, flag = 0;
  MPI_Add_error_class(&cls);
  CHECK(cls > MPI_ERR_LASTCODE, "new class %d", cls);
  MPI_Add_error_code(cls, &code);
  MPI_Error_class(code, &c2);
  CHECK(c2 == cls, "class of the new code %d", c2);
  MPI_Add_error_string(code, "pamir test error");
  MPI_Error_string(code, text, &len);
  CHECK(strcmp(text, "pamir test error") == 0, "new code's string \"%s\"", text);
  int *lu;
  MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_LASTUSEDCODE, &lu, &flag);
  lastused = flag ? *lu : -1;
  CHECK(lastused >= code, "MPI_LASTUSEDCODE %d < %d", lastused, code);
  MPI_Error_class(MPI_ERR_TRUNCATE, &c2);
  CHECK(c2 == MPI_ERR_TRUNCATE, "a class is its own class");
  MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
  rc = MPI_Remove_error_class(cls);
  CHECK(err_class(rc) == MPI_ERR_ARG, "removing a class that has codes: class %d", err_class(rc));
  rc = MPI_Remove_error_code(code);
  CHECK(rc == MPI_SUCCESS, "remove code %d", rc);
  rc = MPI_Remove_error_class(cls);
  CHECK(rc == MPI_SUCCESS, "remove class %d", rc);
  rc = MPI_Error_class(code, &c2);
  CHECK(err_class(rc) == MPI_ERR_ARG, "a removed code is no longer valid");
  rc = MPI_Add_error_string(MPI_ERR_OTHER, "no");
  CHECK(err_class(rc) == MPI_ERR_ARG, "a predefined class's string cannot be changed");
  /* Removed values are handed out again: 100,000 cycles of add and remove never run out (before, the
   * values passed the detailed codes' range and MPI_Add_error_code refused the new classes). */
  int cycles_ok = 0, highest = 0;
  for (int i = 0; i < 100000; ++i) {
    int k = -1, kc = -1, kk = -1;
    const int r1 = MPI_Add_error_class(&k), r2 = MPI_Add_error_code(k, &kc);
    MPI_Error_class(kc, &kk);
    cycles_ok += r1 == MPI_SUCCESS && r2 == MPI_SUCCESS && kk == k;
    if (kc > highest) highest = kc;
    MPI_Remove_error_code(kc);
    MPI_Remove_error_class(k);
  }
  MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_LASTUSEDCODE, &lu, &flag);
  CHECK(cycles_ok == 100000 && flag && *lu >= highest && highest < 0x10000,
        "%d of 100000 add/remove cycles worked; largest code %d, MPI_LASTUSEDCODE %d", cycles_ok, highest,
        flag ? *lu : -1);
  MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_ARE_FATAL);
}

static void infos(void) {
  MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
  MPI_Info info, dup;
  MPI_Info_create(&info);
  MPI_Info_set(info, "b", "2");
  MPI_Info_set(info, "a", "1");
  MPI_Info_set(info, "b", "22"); /* replaced in place */
  int n = -1, flag = 0, len = 0;
  MPI_Info_get_nkeys(info, &n);
  char key[MPI_MAX_INFO_KEY], val[8];
  MPI_Info_get_nthkey(info, 0, key);
  CHECK(n == 2 && strcmp(key, "b") == 0, "nkeys %d first key %s", n, key);
  MPI_Info_get_valuelen(info, "b", &len, &flag);
  CHECK(flag && len == 2, "valuelen %d", len);
  int buflen = 2;
  MPI_Info_get_string(info, "b", &buflen, val, &flag);
  CHECK(flag && buflen == 3 && strcmp(val, "2") == 0, "truncated get_string: buflen %d \"%s\"", buflen, val);
  MPI_Info_dup(info, &dup);
  MPI_Info_delete(info, "b");
  MPI_Info_get_nkeys(info, &n);
  CHECK(n == 1, "nkeys after delete %d", n);
  MPI_Info_get(dup, "b", sizeof val - 1, val, &flag);
  CHECK(flag && strcmp(val, "22") == 0, "the duplicate kept b (\"%s\")", val);
  int rc = MPI_Info_delete(info, "nope");
  CHECK(err_class(rc) == MPI_ERR_INFO_NOKEY, "deleting a missing key: class %d", err_class(rc));
  char longkey[MPI_MAX_INFO_KEY + 10];
  memset(longkey, 'k', sizeof longkey - 1);
  longkey[sizeof longkey - 1] = 0;
  rc = MPI_Info_set(info, longkey, "v");
  CHECK(err_class(rc) == MPI_ERR_INFO_KEY, "too long a key: class %d", err_class(rc));
  rc = MPI_Info_get_nthkey(info, 5, key);
  CHECK(err_class(rc) == MPI_ERR_ARG, "nthkey out of range: class %d", err_class(rc));
  MPI_Info_free(&info);
  MPI_Info_free(&dup);
  CHECK(info == MPI_INFO_NULL, "free sets MPI_INFO_NULL");
  rc = MPI_Info_set(info, "a", "b");
  CHECK(err_class(rc) == MPI_ERR_INFO, "MPI_INFO_NULL: class %d", err_class(rc));
  char host[256];
  buflen = sizeof host;
  MPI_Info_get_string(MPI_INFO_ENV, "host", &buflen, host, &flag);
  CHECK(flag && buflen > 1, "MPI_INFO_ENV has host");
  buflen = sizeof host;
  MPI_Info_get_string(MPI_INFO_ENV, "command", &buflen, host, &flag);
  CHECK(flag && strstr(host, "comm_basic") != NULL, "MPI_INFO_ENV command \"%s\"", flag ? host : "");
  MPI_Info env;
  MPI_Info_create_env(0, NULL, &env);
  MPI_Info_get_nkeys(env, &n);
  CHECK(n >= 3, "MPI_Info_create_env has %d keys", n);
  MPI_Info_free(&env);

  /* The ABI's queries. */
  int major = -1, minor = -1;
  MPI_Abi_get_version(&major, &minor);
  CHECK(major == 1 && minor == 0, "ABI version %d.%d", major, minor);
  MPI_Info abi;
  MPI_Abi_get_info(&abi);
  buflen = sizeof val;
  MPI_Info_get_string(abi, "mpi_aint_size", &buflen, val, &flag);
  CHECK(flag && strcmp(val, "8") == 0, "mpi_aint_size %s", flag ? val : "missing");
  MPI_Info_free(&abi);
  MPI_Info fi;
  MPI_Abi_get_fortran_info(&fi);
  CHECK(fi == MPI_INFO_NULL, "no Fortran information registered yet");
  MPI_Info_create(&fi);
  MPI_Info_set(fi, "mpi_integer_size", "4");
  CHECK(MPI_Abi_set_fortran_info(fi) == MPI_SUCCESS, "set_fortran_info");
  rc = MPI_Abi_set_fortran_info(fi);
  CHECK(err_class(rc) == MPI_ERR_ABI, "a second set_fortran_info: class %d", err_class(rc));
  MPI_Info_free(&fi);
  MPI_Abi_get_fortran_info(&fi);
  buflen = sizeof val;
  MPI_Info_get_string(fi, "mpi_integer_size", &buflen, val, &flag);
  CHECK(flag && strcmp(val, "4") == 0, "fortran info kept");
  MPI_Info_free(&fi);
  int t = 1, f = 0, is_set = 1, gt = -1, gf = -1;
  MPI_Abi_get_fortran_booleans(4, &gt, &gf, &is_set);
  CHECK(!is_set, "booleans not set yet");
  MPI_Abi_set_fortran_booleans(4, &t, &f);
  MPI_Abi_get_fortran_booleans(4, &gt, &gf, &is_set);
  CHECK(is_set && gt == 1 && gf == 0, "booleans %d %d set %d", gt, gf, is_set);
  rc = MPI_Abi_set_fortran_booleans(3, &t, &f);
  CHECK(err_class(rc) == MPI_ERR_ARG, "logical size 3: class %d", err_class(rc));
  MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_ARE_FATAL);
}

static void handle_ints(void) {
  CHECK(MPI_Comm_toint(MPI_COMM_WORLD) == 257, "toint(MPI_COMM_WORLD) = %d", MPI_Comm_toint(MPI_COMM_WORLD));
  CHECK(MPI_Comm_fromint(257) == MPI_COMM_WORLD, "fromint(257)");
  CHECK(MPI_Type_toint(MPI_INT) == (int)(intptr_t)MPI_INT, "toint(MPI_INT)");
  CHECK(MPI_Group_fromint(MPI_Group_toint(MPI_GROUP_EMPTY)) == MPI_GROUP_EMPTY, "MPI_GROUP_EMPTY round trip");
  CHECK(MPI_Info_toint(MPI_INFO_NULL) == (int)(intptr_t)MPI_INFO_NULL, "toint(MPI_INFO_NULL)");
  MPI_Comm d;
  MPI_Comm_dup(MPI_COMM_WORLD, &d);
  int i = MPI_Comm_toint(d);
  CHECK(i >= 1024 && MPI_Comm_toint(d) == i && MPI_Comm_fromint(i) == d, "user communicator %d", i);
  MPI_Comm_free(&d);
  CHECK(MPI_Comm_fromint(i) == MPI_COMM_NULL, "a freed communicator's integer gives MPI_COMM_NULL");
  MPI_Info info;
  MPI_Info_create(&info);
  int ii = MPI_Info_toint(info);
  CHECK(ii >= 1024 && MPI_Info_fromint(ii) == info, "info integer %d", ii);
  MPI_Info_free(&info);
  MPI_Request req;
  int v = 1, w = 0;
  MPI_Irecv(&w, 1, MPI_INT, 0, 77, MPI_COMM_SELF, &req);
  int ri = MPI_Request_toint(req);
  CHECK(ri >= 1024 && MPI_Request_fromint(ri) == req, "request integer %d", ri);
  MPI_Send(&v, 1, MPI_INT, 0, 77, MPI_COMM_SELF);
  MPI_Wait(&req, MPI_STATUS_IGNORE);
  CHECK(MPI_Request_toint(MPI_REQUEST_NULL) == (int)(intptr_t)MPI_REQUEST_NULL, "toint(MPI_REQUEST_NULL)");
}

static void errors(void) {
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
  int r, rc;
  MPI_Comm d, keep;
  MPI_Comm_dup(MPI_COMM_WORLD, &d);
  keep = d;
  MPI_Comm_free(&d);
  rc = MPI_Comm_rank(keep, &r);
  CHECK(err_class(rc) == MPI_ERR_COMM, "a freed communicator: class %d", err_class(rc));
  /* Long after: enough communicators made and freed since that its memory holds another one now. The
   * stale handle must still be refused, never taken for the newer communicator. */
  for (int i = 0; i < 300; ++i) {
    MPI_Comm t;
    MPI_Comm_dup(MPI_COMM_SELF, &t);
    rc = MPI_Comm_rank(keep, &r);
    if (err_class(rc) != MPI_ERR_COMM) break;
    MPI_Comm_free(&t);
  }
  CHECK(err_class(rc) == MPI_ERR_COMM, "a freed communicator after its memory was reused: class %d",
        err_class(rc));
  char text[MPI_MAX_ERROR_STRING];
  int len = 0;
  MPI_Error_string(rc, text, &len);
  CHECK(strstr(text, "freed") != NULL, "the reason names a freed communicator: %s", text);
  rc = MPI_Comm_size(MPI_COMM_NULL, &r);
  CHECK(err_class(rc) == MPI_ERR_COMM, "MPI_COMM_NULL: class %d", err_class(rc));
  MPI_Comm w = MPI_COMM_WORLD;
  rc = MPI_Comm_free(&w);
  CHECK(err_class(rc) == MPI_ERR_COMM && w == MPI_COMM_WORLD, "freeing MPI_COMM_WORLD: class %d",
        err_class(rc));
  MPI_Comm s = MPI_COMM_SELF;
  rc = MPI_Comm_free(&s);
  CHECK(err_class(rc) == MPI_ERR_COMM, "freeing MPI_COMM_SELF: class %d", err_class(rc));
  MPI_Comm out;
  rc = MPI_Comm_split(MPI_COMM_WORLD, -5, 0, &out);
  CHECK(err_class(rc) == MPI_ERR_ARG, "negative color: class %d", err_class(rc));
  rc = MPI_Comm_split_type(MPI_COMM_WORLD, 12345, 0, MPI_INFO_NULL, &out);
  CHECK(err_class(rc) == MPI_ERR_ARG, "bad split type: class %d", err_class(rc));
  rc = MPI_Comm_remote_size(MPI_COMM_WORLD, &r);
  CHECK(err_class(rc) == MPI_ERR_COMM, "remote_size of an intra-communicator: class %d", err_class(rc));
  MPI_Group wg;
  MPI_Comm_group(MPI_COMM_WORLD, &wg);
  rc = MPI_Comm_create_group(MPI_COMM_WORLD, wg, -1, &out);
  CHECK(err_class(rc) == MPI_ERR_TAG, "create_group with tag -1: class %d", err_class(rc));
  rc = MPI_Comm_create(MPI_COMM_WORLD, MPI_GROUP_NULL, &out);
  CHECK(err_class(rc) == MPI_ERR_GROUP, "create with MPI_GROUP_NULL: class %d", err_class(rc));
  if (size > 1) {
    /* A group with processes outside the communicator. */
    MPI_Comm one;
    MPI_Comm_split(MPI_COMM_WORLD, rank, 0, &one);
    rc = MPI_Comm_create(one, wg, &out);
    CHECK(err_class(rc) == MPI_ERR_GROUP, "create with a group larger than the communicator: class %d",
          err_class(rc));
    MPI_Comm_free(&one);
  }
  MPI_Group_free(&wg);
  MPI_Errhandler bad = MPI_ERRHANDLER_NULL;
  rc = MPI_Comm_set_errhandler(MPI_COMM_WORLD, bad);
  CHECK(err_class(rc) == MPI_ERR_ERRHANDLER, "MPI_ERRHANDLER_NULL: class %d", err_class(rc));
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
  MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_ARE_FATAL);
}

/* Every context-id pair that communicators may take can be taken; the next creation fails
 * cleanly with MPI_ERR_OTHER, and freeing gives the ids back. */
static void exhaustion(void) {
  /* 32768 pairs but MPI_COMM_WORLD's, MPI_COMM_SELF's and the one no communicator takes (context_id.h). */
  enum { PAIRS = 32768 - 3 };
  MPI_Comm *all = malloc(sizeof(MPI_Comm) * PAIRS);
  MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
  int made = 0, rc = MPI_SUCCESS;
  while (made < PAIRS && (rc = MPI_Comm_dup(MPI_COMM_SELF, &all[made])) == MPI_SUCCESS) ++made;
  /* The creation expected to fail gets an output handle of its own: a failing MPI_Comm_dup sets it to
   * MPI_COMM_NULL, which would lose a live communicator stored there (all[0] once was, and leaked). */
  MPI_Comm extra = MPI_COMM_SELF;
  if (made == PAIRS) rc = MPI_Comm_dup(MPI_COMM_SELF, &extra);
  CHECK(made == PAIRS && err_class(rc) == MPI_ERR_OTHER && extra == MPI_COMM_NULL,
        "made %d communicators, then class %d", made, err_class(rc));
  if (rc == MPI_SUCCESS) MPI_Comm_free(&extra);
  int free_errors = 0;
  for (int i = 0; i < made; ++i) free_errors += MPI_Comm_free(&all[i]) != MPI_SUCCESS;
  CHECK(free_errors == 0, "%d of %d communicators could not be freed", free_errors, made);
  MPI_Comm again;
  rc = MPI_Comm_dup(MPI_COMM_SELF, &again);
  CHECK(rc == MPI_SUCCESS, "a creation after freeing them all: class %d", err_class(rc));
  if (rc == MPI_SUCCESS) MPI_Comm_free(&again);
  MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_ARE_FATAL);
  free(all);
}

/* MPI_Info_create_env before MPI_Init: the keys (and maxprocs, the job's size) it gives then are the
 * ones it gives after. */
static char env_before[16][MPI_MAX_INFO_KEY + 1];
static char maxprocs_before[32];
static int nenv_before = -1;

static void env_before_init(void) {
  MPI_Info env;
  if (MPI_Info_create_env(0, NULL, &env) != MPI_SUCCESS) return;
  MPI_Info_get_nkeys(env, &nenv_before);
  for (int k = 0; k < nenv_before && k < 16; ++k) MPI_Info_get_nthkey(env, k, env_before[k]);
  int len = sizeof maxprocs_before, flag = 0;
  MPI_Info_get_string(env, "maxprocs", &len, maxprocs_before, &flag);
  if (!flag) maxprocs_before[0] = 0;
  MPI_Info_free(&env);
}

static void env_after_init(void) {
  MPI_Info env;
  MPI_Info_create_env(0, NULL, &env);
  int n = -1;
  MPI_Info_get_nkeys(env, &n);
  CHECK(n == nenv_before, "MPI_Info_create_env: %d keys before MPI_Init, %d after", nenv_before, n);
  for (int k = 0; k < n && k < nenv_before && k < 16; ++k) {
    char key[MPI_MAX_INFO_KEY + 1];
    MPI_Info_get_nthkey(env, k, key);
    CHECK(strcmp(key, env_before[k]) == 0, "key %d: %s before MPI_Init, %s after", k, env_before[k], key);
  }
  char want[32];
  snprintf(want, sizeof want, "%d", size);
  CHECK(strcmp(maxprocs_before, want) == 0, "maxprocs before MPI_Init: \"%s\", the job has %s",
        maxprocs_before, want);
  char val[32];
  int len = sizeof val, flag = 0;
  MPI_Info_get_string(MPI_INFO_ENV, "maxprocs", &len, val, &flag);
  CHECK(flag && strcmp(val, want) == 0, "MPI_INFO_ENV maxprocs \"%s\"", flag ? val : "");
  MPI_Info_free(&env);
}

int main(int argc, char **argv) {
  int provided = 0;
  env_before_init();
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  env_after_init();
  world_and_self();
  dup_and_names();
  splits();
  creates();
  unique_contexts();
  recycle();
  threaded_creation(provided);
  errhandlers();
  infos();
  handle_ints();
  errors();
  exhaustion();
  return finish("comm_basic");
}
