/* Persistent point-to-point requests (MPI 4.1 section 3.9) on 2 or more ranks: rank 0 and rank 1 talk,
 * others only check the local rules.
 *
 * - Send_init/Recv_init started 50 times, with the contents changed before every start (the request
 *   must send the buffer as it is at the start, not as it was at init), small and 1 MiB (rendezvous),
 *   and a vector type freed right after init (the request keeps it);
 * - a persistent send matched by MPI_Recv, MPI_Isend matched by a persistent receive, and ordinary
 *   sends with the same envelope between two starts, received in order, and a start and an ordinary
 *   send in flight together, in both orders; a replayed receive beside ordinary sends and receives
 *   (also MPI_ANY_TAG, and after MPI_Probe) of its envelope, in every order;
 * - every mode: Ssend_init, Rsend_init (the receive is posted before a barrier), Bsend_init with an
 *   attached buffer;
 * - the inactive state: Wait and Test return at once with an empty status and leave the handle;
 *   Waitany and Waitsome treat inactive requests as null (MPI_UNDEFINED); Startall + Waitall;
 * - MPI_PROC_NULL (status source MPI_PROC_NULL), MPI_Request_free on an active request (the message
 *   still arrives), cancelling a started receive that nothing matches;
 * - errors: MPI_Start on an active request and on an ordinary one, a bad destination at init. */
#include "check.h"

enum { kSmall = 64, kBig = 1 << 18, kIters = 50 }; /* ints: 256 B and 1 MiB */

static int rank, size;
static MPI_Comm pair; /* ranks 0 and 1 */

static void fill(int *v, int n, int iter) {
  for (int i = 0; i < n; ++i) v[i] = iter * 1000003 + i;
}
static int wrong(const int *v, int n, int iter) {
  int bad = 0;
  for (int i = 0; i < n; ++i) bad += v[i] != iter * 1000003 + i;
  return bad;
}
static int empty_status(const MPI_Status *st) {
  int count = -1;
  MPI_Get_count(st, MPI_INT, &count);
  return st->MPI_SOURCE == MPI_ANY_SOURCE && st->MPI_TAG == MPI_ANY_TAG && count == 0;
}

/* Rank 0 sends n ints kIters times through one persistent request, rank 1 receives them through one. */
static void repeated(int n) {
  int *buf = calloc((size_t)n, sizeof(int));
  MPI_Request r;
  if (rank == 0)
    MPI_Send_init(buf, n, MPI_INT, 1, 7, MPI_COMM_WORLD, &r);
  else
    MPI_Recv_init(buf, n, MPI_INT, 0, 7, MPI_COMM_WORLD, &r);
  int bad_data = 0, bad_status = 0;
  for (int it = 0; it < kIters; ++it) {
    if (rank == 0)
      fill(buf, n, it);
    else
      memset(buf, 0xff, sizeof(int) * (size_t)n);
    MPI_Status st;
    MPI_Start(&r);
    MPI_Wait(&r, &st);
    if (rank == 1) {
      int count = -1;
      MPI_Get_count(&st, MPI_INT, &count);
      bad_data += wrong(buf, n, it) != 0;
      bad_status += st.MPI_SOURCE != 0 || st.MPI_TAG != 7 || count != n;
    }
  }
  CHECK(r != MPI_REQUEST_NULL, "the handle stays after Wait (%d ints)", n);
  CHECK(bad_data == 0 && bad_status == 0, "%d ints: %d iterations with wrong data, %d with a wrong status", n,
        bad_data, bad_status);
  MPI_Request_free(&r);
  CHECK(r == MPI_REQUEST_NULL, "MPI_Request_free sets the handle to null");
  free(buf);
}

/* A vector type (every other int) freed right after the init; persistent on both sides. */
static void derived(void) {
  enum { kN = 1000 };
  static int buf[2 * kN];
  MPI_Datatype vec;
  MPI_Type_vector(kN, 1, 2, MPI_INT, &vec);
  MPI_Type_commit(&vec);
  MPI_Request r;
  if (rank == 0)
    MPI_Send_init(buf, 1, vec, 1, 8, MPI_COMM_WORLD, &r);
  else
    MPI_Recv_init(buf, 1, vec, 0, 8, MPI_COMM_WORLD, &r);
  MPI_Type_free(&vec);
  int bad = 0;
  for (int it = 0; it < 5; ++it) {
    for (int i = 0; i < 2 * kN; ++i) buf[i] = rank == 0 ? it * 7 + i : -1;
    MPI_Start(&r);
    MPI_Wait(&r, MPI_STATUS_IGNORE);
    if (rank == 1)
      for (int i = 0; i < 2 * kN; ++i) bad += buf[i] != (i % 2 ? -1 : it * 7 + i); /* gaps untouched */
  }
  CHECK(bad == 0, "vector type freed after init: %d wrong ints", bad);
  MPI_Request_free(&r);
}

/* Persistent on one side, ordinary on the other, and ordinary traffic with the same envelope between
 * two starts: MPI's order holds across both kinds. */
static void mixed(void) {
  int v = 0, got[4] = {0, 0, 0, 0};
  MPI_Request r;
  if (rank == 0) {
    MPI_Send_init(&v, 1, MPI_INT, 1, 9, MPI_COMM_WORLD, &r);
    v = 1;
    MPI_Start(&r);
    MPI_Wait(&r, MPI_STATUS_IGNORE);
    int w = 2;
    MPI_Send(&w, 1, MPI_INT, 1, 9, MPI_COMM_WORLD);
    v = 3;
    MPI_Start(&r);
    MPI_Wait(&r, MPI_STATUS_IGNORE);
    w = 4;
    MPI_Request s;
    MPI_Isend(&w, 1, MPI_INT, 1, 9, MPI_COMM_WORLD, &s);
    MPI_Wait(&s, MPI_STATUS_IGNORE);
    MPI_Request_free(&r);
  } else {
    MPI_Recv_init(&v, 1, MPI_INT, 0, 9, MPI_COMM_WORLD, &r);
    MPI_Recv(&got[0], 1, MPI_INT, 0, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Start(&r);
    MPI_Wait(&r, MPI_STATUS_IGNORE);
    got[1] = v;
    MPI_Recv(&got[2], 1, MPI_INT, 0, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Start(&r);
    MPI_Wait(&r, MPI_STATUS_IGNORE);
    got[3] = v;
    MPI_Request_free(&r);
    CHECK(got[0] == 1 && got[1] == 2 && got[2] == 3 && got[3] == 4,
          "persistent and ordinary messages in order: got %d %d %d %d", got[0], got[1], got[2], got[3]);
  }
}

/* A replayed start and an ordinary send of one envelope in flight together, in both orders: the receiver
 * gets them in the order they were started. (The torus engine took ordinary sends before replayed ones
 * it saw in the same pass.) */
static void overlapped(void) {
  enum { kRounds = 200 };
  long v = 0, w = 0, got[2];
  MPI_Request r, s[2];
  int bad = 0, first_bad = -1;
  if (rank == 0) MPI_Send_init(&v, 1, MPI_LONG, 1, 11, MPI_COMM_WORLD, &r);
  for (int i = 0; i < kRounds; ++i) {
    const int persistent_first = i % 2 == 0;
    if (rank == 0) {
      v = persistent_first ? 2 * i : 2 * i + 1;
      w = persistent_first ? 2 * i + 1 : 2 * i;
      if (persistent_first) MPI_Start(&r);
      MPI_Isend(&w, 1, MPI_LONG, 1, 11, MPI_COMM_WORLD, &s[0]);
      if (!persistent_first) MPI_Start(&r);
      MPI_Wait(&s[0], MPI_STATUS_IGNORE);
      MPI_Wait(&r, MPI_STATUS_IGNORE);
    } else {
      MPI_Irecv(&got[0], 1, MPI_LONG, 0, 11, MPI_COMM_WORLD, &s[0]);
      MPI_Irecv(&got[1], 1, MPI_LONG, 0, 11, MPI_COMM_WORLD, &s[1]);
      MPI_Waitall(2, s, MPI_STATUSES_IGNORE);
      if (got[0] != 2 * i || got[1] != 2 * i + 1) {
        if (bad++ == 0) first_bad = i;
      }
    }
    MPI_Barrier(pair);
  }
  if (rank == 0) MPI_Request_free(&r);
  if (rank == 1)
    CHECK(bad == 0, "a replayed start and an ordinary send overtook each other in %d of %d rounds (first %d)",
          bad, kRounds, first_bad);
}

/* A replayed receive beside ordinary traffic of its envelope, in every order: the sender sends A then B
 * (values 2i, 2i + 1, one tag), one by a replayed persistent send and the other by MPI_Isend, in either
 * order; the receiver takes them with its replayed persistent receive and an ordinary one, posted in
 * either order, the ordinary one sometimes MPI_ANY_TAG, sometimes after an MPI_Probe that must see A.
 * The first receive posted must get A. Half the rounds end with a barrier, half let the sender run ahead
 * (on the torus, messages then land before their receive starts and are kept, or wait behind one that
 * is). */
static void receiver_mix(void) {
  enum { kRounds = 400 };
  long sv = 0, w = 0, rv = -1, o = -1;
  MPI_Request ps, pr, q;
  int bad = 0, first_bad = -1;
  if (rank == 0) MPI_Send_init(&sv, 1, MPI_LONG, 1, 21, pair, &ps);
  if (rank == 1) MPI_Recv_init(&rv, 1, MPI_LONG, 0, 21, pair, &pr);
  for (int i = 0; i < kRounds; ++i) {
    if (rank == 0) {
      const int persistent_first = (i / 4) % 2 == 0;
      sv = persistent_first ? 2 * i : 2 * i + 1;
      w = persistent_first ? 2 * i + 1 : 2 * i;
      if (persistent_first) MPI_Start(&ps);
      MPI_Isend(&w, 1, MPI_LONG, 1, 21, pair, &q);
      if (!persistent_first) MPI_Start(&ps);
      MPI_Wait(&q, MPI_STATUS_IGNORE);
      MPI_Wait(&ps, MPI_STATUS_IGNORE);
    } else {
      const int how = i % 4; /* 0: persistent first; 1: ordinary first; 2: ANY_TAG second; 3: probe */
      int ok = 1;
      if (how == 3) {
        MPI_Status st;
        long peek = -1;
        MPI_Probe(0, 21, pair, &st);
        MPI_Recv(&peek, 1, MPI_LONG, 0, 21, pair, MPI_STATUS_IGNORE); /* A, as the probe said */
        MPI_Start(&pr);
        MPI_Wait(&pr, MPI_STATUS_IGNORE);
        ok = peek == 2 * i && rv == 2 * i + 1;
      } else if (how == 1) {
        MPI_Irecv(&o, 1, MPI_LONG, 0, 21, pair, &q);
        MPI_Start(&pr);
        MPI_Wait(&pr, MPI_STATUS_IGNORE);
        MPI_Wait(&q, MPI_STATUS_IGNORE);
        ok = o == 2 * i && rv == 2 * i + 1;
      } else {
        MPI_Start(&pr);
        MPI_Irecv(&o, 1, MPI_LONG, 0, how == 2 ? MPI_ANY_TAG : 21, pair, &q);
        MPI_Wait(&q, MPI_STATUS_IGNORE);
        MPI_Wait(&pr, MPI_STATUS_IGNORE);
        ok = rv == 2 * i && o == 2 * i + 1;
      }
      if (!ok && bad++ == 0) first_bad = i;
    }
    if (i % 4 < 2) MPI_Barrier(pair);
  }
  /* One message a round: received by the replayed receive, then by MPI_Recv, then by MPI_Probe and
   * MPI_Recv (on the torus the landing is open between them, and may already hold the message). Nothing
   * else comes from the sender until the receiver answers, so no later message pushes it out. */
  MPI_Barrier(pair);
  for (int i = 0; i < 60; ++i) {
    const long want = 5000 + i;
    if (rank == 0) {
      sv = want;
      MPI_Start(&ps);
      MPI_Wait(&ps, MPI_STATUS_IGNORE);
      MPI_Recv(&w, 1, MPI_LONG, 1, 22, pair, MPI_STATUS_IGNORE);
    } else {
      long got = -1;
      if (i % 3 == 0) {
        MPI_Start(&pr);
        MPI_Wait(&pr, MPI_STATUS_IGNORE);
        got = rv;
      } else {
        MPI_Status st;
        if (i % 3 == 2) MPI_Probe(0, MPI_ANY_TAG, pair, &st);
        MPI_Recv(&got, 1, MPI_LONG, 0, 21, pair, MPI_STATUS_IGNORE);
      }
      if (got != want && bad++ == 0) first_bad = kRounds + i;
      MPI_Send(&got, 1, MPI_LONG, 0, 22, pair);
    }
  }
  MPI_Barrier(pair);
  if (rank == 0) MPI_Request_free(&ps);
  if (rank == 1) {
    MPI_Request_free(&pr);
    CHECK(bad == 0,
          "a replayed receive beside ordinary traffic of its envelope: %d of %d rounds wrong (first %d)", bad,
          kRounds, first_bad);
  }
}

static void modes(void) {
  static char bsend_space[1 << 16];
  int v = 0, bad = 0;
  MPI_Request r;
  /* synchronous: completes once matched; the receiver posts late */
  if (rank == 0) {
    MPI_Ssend_init(&v, 1, MPI_INT, 1, 10, MPI_COMM_WORLD, &r);
    for (int it = 0; it < 3; ++it) {
      v = 100 + it;
      MPI_Start(&r);
      MPI_Wait(&r, MPI_STATUS_IGNORE);
    }
    MPI_Request_free(&r);
  } else {
    for (int it = 0; it < 3; ++it) {
      MPI_Recv(&v, 1, MPI_INT, 0, 10, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      bad += v != 100 + it;
    }
  }
  /* ready: the receive is posted before the barrier, the start after it */
  MPI_Request rr = MPI_REQUEST_NULL;
  if (rank == 1) MPI_Irecv(&v, 1, MPI_INT, 0, 11, MPI_COMM_WORLD, &rr);
  if (rank == 0) MPI_Rsend_init(&v, 1, MPI_INT, 1, 11, MPI_COMM_WORLD, &r);
  MPI_Barrier(pair);
  if (rank == 0) {
    v = 200;
    MPI_Start(&r);
    MPI_Wait(&r, MPI_STATUS_IGNORE);
    MPI_Request_free(&r);
  } else {
    MPI_Wait(&rr, MPI_STATUS_IGNORE);
    bad += v != 200;
  }
  /* buffered: the start copies the message out, so the buffer may change at once */
  if (rank == 0) {
    MPI_Buffer_attach(bsend_space, sizeof bsend_space);
    MPI_Bsend_init(&v, 1, MPI_INT, 1, 12, MPI_COMM_WORLD, &r);
    for (int it = 0; it < 3; ++it) {
      v = 300 + it;
      MPI_Start(&r);
      v = -1;
      MPI_Wait(&r, MPI_STATUS_IGNORE);
    }
    MPI_Request_free(&r);
    void *b;
    int bsize;
    MPI_Buffer_detach(&b, &bsize);
  } else {
    for (int it = 0; it < 3; ++it) {
      MPI_Recv(&v, 1, MPI_INT, 0, 12, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      bad += v != 300 + it;
    }
  }
  if (rank == 1) CHECK(bad == 0, "modes: %d wrong messages", bad);
}

/* Inactive requests, Startall, Waitany/Waitsome, MPI_PROC_NULL. */
static void inactive(void) {
  int a = 0, b = 0, flag = 0, index = -2, outcount = -2, indices[2];
  MPI_Request r[2];
  MPI_Status st, sts[2];
  const int peer = rank == 0 ? 1 : 0;
  MPI_Send_init(&a, 1, MPI_INT, peer, 13, MPI_COMM_WORLD, &r[0]);
  MPI_Recv_init(&b, 1, MPI_INT, peer, 13, MPI_COMM_WORLD, &r[1]);
  st.MPI_SOURCE = 5;
  MPI_Wait(&r[0], &st);
  CHECK(empty_status(&st) && r[0] != MPI_REQUEST_NULL,
        "Wait on an inactive request: empty status, handle kept");
  MPI_Test(&r[1], &flag, &st);
  CHECK(flag && empty_status(&st), "Test on an inactive request: flag %d", flag);
  MPI_Waitany(2, r, &index, &st);
  CHECK(index == MPI_UNDEFINED, "Waitany over inactive requests: index %d", index);
  MPI_Waitsome(2, r, &outcount, indices, sts);
  CHECK(outcount == MPI_UNDEFINED, "Waitsome over inactive requests: outcount %d", outcount);
  for (int it = 0; it < 10; ++it) {
    a = rank * 100 + it;
    b = -1;
    MPI_Startall(2, r);
    MPI_Waitall(2, r, sts);
    CHECK(b == peer * 100 + it && sts[1].MPI_SOURCE == peer && sts[1].MPI_TAG == 13,
          "Startall round %d: got %d from %d", it, b, sts[1].MPI_SOURCE);
  }
  /* one started, one not: Waitany finds the started one and leaves the other alone */
  a = 77;
  MPI_Start(&r[1]);
  MPI_Send(&a, 1, MPI_INT, peer, 13, MPI_COMM_WORLD);
  MPI_Waitany(2, r, &index, &st);
  CHECK(index == 1 && b == 77 && r[0] != MPI_REQUEST_NULL && r[1] != MPI_REQUEST_NULL,
        "Waitany: index %d, value %d", index, b);
  MPI_Request_free(&r[0]);
  MPI_Request_free(&r[1]);

  MPI_Request pn;
  MPI_Recv_init(&b, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &pn);
  MPI_Start(&pn);
  MPI_Wait(&pn, &st);
  CHECK(st.MPI_SOURCE == MPI_PROC_NULL, "MPI_PROC_NULL: status source %d", st.MPI_SOURCE);
  MPI_Request_free(&pn);
}

/* Freed while active: the message still goes; a started receive nothing matches can be cancelled. */
static void free_and_cancel(void) {
  enum { kN = 1 << 16 }; /* rendezvous-sized */
  static int buf[kN];
  MPI_Request r;
  if (rank == 0) {
    fill(buf, kN, 5);
    MPI_Send_init(buf, kN, MPI_INT, 1, 14, MPI_COMM_WORLD, &r);
    MPI_Start(&r);
    MPI_Request_free(&r);
  } else {
    MPI_Recv(buf, kN, MPI_INT, 0, 14, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    CHECK(wrong(buf, kN, 5) == 0, "a send freed while active still delivers its data");
  }
  MPI_Barrier(pair); /* rank 0's buffer may change only once the receive has it */
  int v;
  MPI_Status st;
  MPI_Recv_init(&v, 1, MPI_INT, 0, 15, MPI_COMM_WORLD, &r);
  MPI_Start(&r);
  MPI_Cancel(&r);
  MPI_Wait(&r, &st);
  int cancelled = 0;
  MPI_Test_cancelled(&st, &cancelled);
  CHECK(cancelled, "a started receive that nothing matched is cancelled");
  MPI_Request_free(&r);
}

static void errors(void) {
  int v = 0;
  MPI_Request r, o;
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  int rc = MPI_Send_init(&v, 1, MPI_INT, size, 0, MPI_COMM_WORLD, &r);
  CHECK(err_class(rc) == MPI_ERR_RANK, "Send_init to rank %d: class %d", size, err_class(rc));
  MPI_Recv_init(&v, 1, MPI_INT, MPI_ANY_SOURCE, 16, MPI_COMM_WORLD, &r);
  MPI_Start(&r);
  rc = MPI_Start(&r);
  CHECK(err_class(rc) == MPI_ERR_REQUEST, "MPI_Start on an active request: class %d", err_class(rc));
  MPI_Cancel(&r);
  MPI_Wait(&r, MPI_STATUS_IGNORE);
  MPI_Request_free(&r);
  MPI_Irecv(&v, 1, MPI_INT, MPI_ANY_SOURCE, 17, MPI_COMM_WORLD, &o);
  rc = MPI_Start(&o);
  CHECK(err_class(rc) == MPI_ERR_REQUEST, "MPI_Start on an ordinary request: class %d", err_class(rc));
  MPI_Cancel(&o);
  MPI_Wait(&o, MPI_STATUS_IGNORE);

  /* A replayed MPI_Startall array holding an active request is refused with none of it started: the
   * replay activates each request as it checks it, and must make those before the bad one inactive. */
  int x = 5, y = -1, flag = 0;
  MPI_Request q[2];
  MPI_Status st, sts[2];
  MPI_Send_init(&x, 1, MPI_INT, rank, 18, MPI_COMM_WORLD, &q[0]);
  MPI_Recv_init(&y, 1, MPI_INT, rank, 18, MPI_COMM_WORLD, &q[1]);
  for (int it = 0; it < 3; ++it) { /* recorded, then replayed */
    MPI_Startall(2, q);
    MPI_Waitall(2, q, MPI_STATUSES_IGNORE);
  }
  MPI_Start(&q[1]);
  rc = MPI_Startall(2, q);
  CHECK(err_class(rc) == MPI_ERR_REQUEST, "MPI_Startall of a replayed array with an active request: class %d",
        err_class(rc));
  st.MPI_SOURCE = 5;
  MPI_Test(&q[0], &flag, &st);
  CHECK(flag && empty_status(&st), "the refused Startall left its first request inactive: flag %d", flag);
  y = -1;
  MPI_Start(&q[0]);
  MPI_Waitall(2, q, sts);
  CHECK(y == 5 && sts[1].MPI_SOURCE == rank && sts[1].MPI_TAG == 18, "after the refused Startall: %d from %d",
        y, sts[1].MPI_SOURCE);
  /* Inactive again: its status is the empty one, not the last start's. */
  MPI_Wait(&q[1], &st);
  CHECK(empty_status(&st), "Wait on a finished receive's inactive request: source %d tag %d", st.MPI_SOURCE,
        st.MPI_TAG);
  flag = 0;
  st.MPI_SOURCE = 5;
  MPI_Request_get_status(q[1], &flag, &st);
  CHECK(flag && empty_status(&st), "MPI_Request_get_status of an inactive request: source %d", st.MPI_SOURCE);
  MPI_Request_free(&q[0]);
  MPI_Request_free(&q[1]);

  /* A persistent receive that failed (truncated) reports it once: waited on again while inactive, it
   * succeeds, whatever the failed start left behind. */
  int two[2] = {1, 2};
  MPI_Request t;
  MPI_Recv_init(&y, 1, MPI_INT, rank, 19, MPI_COMM_WORLD, &t);
  MPI_Start(&t);
  MPI_Send(two, 2, MPI_INT, rank, 19, MPI_COMM_WORLD);
  rc = MPI_Waitall(1, &t, MPI_STATUSES_IGNORE);
  CHECK(rc != MPI_SUCCESS, "a truncated persistent receive's Waitall: rc %d", rc);
  rc = MPI_Waitall(1, &t, MPI_STATUSES_IGNORE);
  CHECK(rc == MPI_SUCCESS, "Waitall of the inactive request after it: class %d", err_class(rc));
  MPI_Request_free(&t);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size >= 2) {
    MPI_Comm_split(MPI_COMM_WORLD, rank < 2 ? 0 : MPI_UNDEFINED, rank, &pair);
    if (rank < 2) {
      repeated(kSmall);
      repeated(kBig);
      derived();
      mixed();
      overlapped();
      receiver_mix();
      modes();
      inactive();
      free_and_cancel();
      MPI_Comm_free(&pair);
    }
  }
  errors();
  return finish("persistent");
}
