/* The tools interface: every control variable listed with its information (each a PAMIR_* setting, in one
 * category, with its scope), a write before MPI_Init that the library then uses and a write after it
 * refused, an enumeration, every performance variable listed with its information (names unique, classes
 * and types valid), a counter read before and after traffic, the performance variables' rules (no start,
 * stop, write or reset), categories whose counts and lists cover every variable once, a change stamp that
 * stays put, no events and no event sources, and MPI_T working before MPI_Init and after MPI_Finalize;
 * with "alone", a write of an MPI_T_SCOPE_ALL_EQ variable before MPI_Init on the first rank only, which
 * MPI_Init must refuse on the others. */
#include "check.h"

static int find_cvar(const char *name) {
  int i = -1;
  MPI_T_cvar_get_index(name, &i);
  return i;
}

/* Counts each of a category's k listed indices in seen[]; returns how many fall outside [0, n). */
static int tally(const int *list, int k, int n, int *seen) {
  int out = 0;
  for (int i = 0; i < k; ++i) {
    if (list[i] < 0 || list[i] >= n)
      ++out;
    else
      ++seen[list[i]];
  }
  return out;
}

static unsigned long long read_count(int index) {
  MPI_T_cvar_handle h;
  int count;
  unsigned long long v = 0;
  MPI_T_cvar_handle_alloc(index, NULL, &h, &count);
  MPI_T_cvar_read(h, &v);
  MPI_T_cvar_handle_free(&h);
  return v;
}

int main(int argc, char **argv) {
  int provided = -1, n = 0;
  /* Before MPI_T_init_thread: not initialized. */
  int rc_before = MPI_T_cvar_get_num(&n);
  MPI_T_init_thread(MPI_THREAD_SINGLE, &provided);

  /* A write before MPI_Init is what the library starts with. */
  const int spin = find_cvar("PAMIR_SPIN_COUNT");
  MPI_T_cvar_handle h;
  int count = 0;
  MPI_T_cvar_handle_alloc(spin, NULL, &h, &count);
  const unsigned long long want = 1234;
  const int write_before = MPI_T_cvar_write(h, &want);
  /* With "alone": the first rank alone also chooses an algorithm of MPI_T_SCOPE_ALL_EQ (the rank is not
   * known before MPI_Init; the launcher's PMIX_RANK says it). MPI_Init must then fail on the other ranks,
   * naming the variable, rather than leave the ranks' first allreduce waiting for ever. */
  const char *pmix_rank = getenv("PMIX_RANK");
  if (argc > 1 && strcmp(argv[1], "alone") == 0 && pmix_rank && strcmp(pmix_rank, "0") == 0) {
    MPI_T_cvar_handle a;
    const char *ring = "ring";
    MPI_T_cvar_handle_alloc(find_cvar("PAMIR_COLL_ALLREDUCE"), NULL, &a, &count);
    MPI_T_enum e = MPI_T_ENUM_NULL;
    char name[64], desc[16];
    int name_len = sizeof name, desc_len = sizeof desc, verbosity, bind, scope, items = 0, value = -1;
    MPI_Datatype type;
    MPI_T_cvar_get_info(find_cvar("PAMIR_COLL_ALLREDUCE"), name, &name_len, &verbosity, &type, &e, desc,
                        &desc_len, &bind, &scope);
    MPI_T_enum_get_info(e, &items, NULL, NULL);
    for (int k = 0; k < items; ++k) {
      char item[64];
      int item_len = sizeof item, v;
      MPI_T_enum_get_item(e, k, &v, item, &item_len);
      if (strcmp(item, ring) == 0) value = v;
    }
    if (scope != MPI_T_SCOPE_ALL_EQ || value < 0 || MPI_T_cvar_write(a, &value) != MPI_SUCCESS) {
      printf("mpit: PAMIR_COLL_ALLREDUCE: scope %d, ring is item %d, or the write failed\n", scope, value);
      return 2;
    }
    MPI_T_cvar_handle_free(&a);
  }

  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  CHECK(rc_before == MPI_T_ERR_NOT_INITIALIZED, "a call before MPI_T_init_thread: %d", rc_before);
  CHECK(provided == MPI_THREAD_SINGLE && spin >= 0 && count == 1, "init: provided %d, PAMIR_SPIN_COUNT %d",
        provided, spin);
  CHECK(write_before == MPI_SUCCESS, "a write before MPI_Init: %d", write_before);
  unsigned long long got = 0;
  MPI_T_cvar_read(h, &got);
  CHECK(got == 1234, "the library started with PAMIR_SPIN_COUNT %llu", got);
  const unsigned long long other = 99;
  CHECK(MPI_T_cvar_write(h, &other) == MPI_T_ERR_CVAR_SET_NOT_NOW,
        "a write while the library runs is refused");
  MPI_T_cvar_handle_free(&h);

  /* Every control variable. */
  MPI_T_cvar_get_num(&n);
  CHECK(n > 20, "%d control variables", n);
  int all_eq = 0, local = 0, bad = 0;
  for (int i = 0; i < n; ++i) {
    char name[128], desc[1024];
    int name_len = sizeof name, desc_len = sizeof desc, verbosity, bind, scope;
    MPI_Datatype dt;
    MPI_T_enum e;
    if (MPI_T_cvar_get_info(i, name, &name_len, &verbosity, &dt, &e, desc, &desc_len, &bind, &scope) !=
            MPI_SUCCESS ||
        strncmp(name, "PAMIR_", 6) != 0 || desc_len <= 1 || bind != MPI_T_BIND_NO_OBJECT) {
      ++bad;
      continue;
    }
    all_eq += scope == MPI_T_SCOPE_ALL_EQ;
    local += scope == MPI_T_SCOPE_LOCAL;
    if (strcmp(name, "PAMIR_SEND_PROTOCOLS") == 0 || strcmp(name, "PAMIR_COLL_ALLREDUCE") == 0)
      CHECK(scope == MPI_T_SCOPE_ALL_EQ, "%s is MPI_T_SCOPE_ALL_EQ (%d)", name, scope);
    if (strcmp(name, "PAMIR_DEVICE") == 0) {
      int items = 0, value = -1, len = 64;
      char item[64] = "";
      MPI_T_enum_get_info(e, &items, NULL, NULL);
      int found_auto = 0;
      for (int k = 0; k < items; ++k) {
        len = sizeof item;
        MPI_T_enum_get_item(e, k, &value, item, &len);
        found_auto |= strcmp(item, "auto") == 0 && value == k;
      }
      CHECK(dt == MPI_INT && items >= 2 && found_auto, "PAMIR_DEVICE: an enumeration of %d with auto", items);
    }
    /* Each can be read. */
    MPI_T_cvar_handle hh;
    int c = 0;
    char buf[1024];
    MPI_T_cvar_handle_alloc(i, NULL, &hh, &c);
    if (MPI_T_cvar_read(hh, buf) != MPI_SUCCESS) ++bad;
    MPI_T_cvar_handle_free(&hh);
  }
  CHECK(bad == 0 && all_eq > 0 && local > 0, "%d control variables failed their checks (%d ALL_EQ, %d LOCAL)",
        bad, all_eq, local);
  int idx = 0;
  CHECK(MPI_T_cvar_get_index("PAMIR_NO_SUCH_SETTING", &idx) == MPI_T_ERR_INVALID_NAME, "an unknown name");
  CHECK(
      MPI_T_cvar_get_info(n, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL) == MPI_T_ERR_INVALID_INDEX,
      "an index past the last");

  /* Every performance variable: its information, a name of its own found again by MPI_T_pvar_get_index. */
  int np = 0, pidx = -1;
  MPI_T_pvar_get_num(&np);
  char(*pnames)[128] = calloc((size_t)np, sizeof *pnames);
  for (int i = 0; i < np; ++i) {
    int len = sizeof pnames[i], desc_len = 0, verbosity, cls = -1, bind = -1, ro, cont, atomic, back = -1;
    MPI_Datatype dt = MPI_DATATYPE_NULL;
    MPI_T_enum e;
    const int rc = MPI_T_pvar_get_info(i, pnames[i], &len, &verbosity, &cls, &dt, &e, NULL, &desc_len, &bind,
                                       &ro, &cont, &atomic);
    MPI_T_pvar_get_index(pnames[i], cls, &back);
    int dup = 0;
    for (int j = 0; j < i; ++j) dup |= strcmp(pnames[j], pnames[i]) == 0;
    CHECK(rc == MPI_SUCCESS && pnames[i][0] && len == (int)strlen(pnames[i]) + 1 && !dup && back == i &&
              cls >= MPI_T_PVAR_CLASS_STATE && cls <= MPI_T_PVAR_CLASS_GENERIC &&
              (dt == MPI_UNSIGNED || dt == MPI_UNSIGNED_LONG || dt == MPI_UNSIGNED_LONG_LONG ||
               dt == MPI_COUNT || dt == MPI_DOUBLE || dt == MPI_INT || dt == MPI_CHAR) &&
              bind >= MPI_T_BIND_NO_OBJECT && bind <= MPI_T_BIND_MPI_SESSION && desc_len > 1,
          "performance variable %d \"%s\": rc %d, name length %d, duplicate %d, index back %d, class %d, "
          "bind %d, description %d",
          i, pnames[i], rc, len, dup, back, cls, bind, desc_len);
  }
  free(pnames);
  CHECK(MPI_T_pvar_get_info(np, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL) ==
            MPI_T_ERR_INVALID_INDEX,
        "a performance variable index past the last");

  /* A counter before and after traffic: 1000 messages around the ring. */
  MPI_T_pvar_get_index("send.messages_by_path_protocol", MPI_T_PVAR_CLASS_COUNTER, &pidx);
  CHECK(np > 20 && pidx >= 0, "%d performance variables; the sends' counter at %d", np, pidx);
  MPI_T_pvar_session session;
  MPI_T_pvar_handle ph;
  int pcount = 0;
  MPI_T_pvar_session_create(&session);
  MPI_T_pvar_handle_alloc(session, pidx, NULL, &ph, &pcount);
  unsigned long long before[64] = {0}, after[64] = {0};
  CHECK(pcount > 1 && pcount <= 64, "the counter has %d elements", pcount);
  MPI_T_pvar_read(session, ph, before);
  for (int k = 0; k < 1000; ++k) {
    int out = k, in = -1;
    MPI_Sendrecv(&out, 1, MPI_INT, (rank + 1) % size, 0, &in, 1, MPI_INT, (rank + size - 1) % size, 0,
                 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  }
  MPI_T_pvar_read(session, ph, after);
  unsigned long long sent = 0;
  for (int k = 0; k < pcount; ++k) sent += after[k] - before[k];
  CHECK(sent >= 1000, "the counter grew by %llu over 1000 sends", sent);
  CHECK(MPI_T_pvar_start(session, ph) == MPI_T_ERR_PVAR_NO_STARTSTOP, "continuous: no start");
  CHECK(MPI_T_pvar_write(session, ph, before) == MPI_T_ERR_PVAR_NO_WRITE, "read-only: no write");
  CHECK(MPI_T_pvar_reset(session, ph) == MPI_T_ERR_PVAR_NO_WRITE, "read-only: no reset");
  MPI_T_pvar_handle_free(session, &ph);
  MPI_T_pvar_session_free(&session);
  CHECK(session == MPI_T_PVAR_SESSION_NULL, "session freed");

  /* Categories cover every variable exactly once, by their counts and by their lists; no events. */
  int ncat = 0, cv = 0, pv = 0, stamp = -1, stamp2 = -2;
  const int changed = MPI_T_category_changed(&stamp);
  MPI_T_category_get_num(&ncat);
  int *cv_seen = calloc((size_t)n, sizeof(int)), *pv_seen = calloc((size_t)np, sizeof(int)),
      *list = malloc(sizeof(int) * (size_t)(n + np + ncat + 1));
  for (int c = 0; c < ncat; ++c) {
    char name[64];
    int len = sizeof name, ncv = 0, npv = 0, nsub = -1, out = 0;
    MPI_T_category_get_info(c, name, &len, NULL, NULL, &ncv, &npv, &nsub);
    cv += ncv;
    pv += npv;
    int rc = MPI_T_category_get_cvars(c, ncv, list);
    out = rc == MPI_SUCCESS ? tally(list, ncv, n, cv_seen) : 0;
    CHECK(rc == MPI_SUCCESS && out == 0, "category %s: get_cvars rc %d, %d indices outside", name, rc, out);
    rc = MPI_T_category_get_pvars(c, npv, list);
    out = rc == MPI_SUCCESS ? tally(list, npv, np, pv_seen) : 0;
    CHECK(rc == MPI_SUCCESS && out == 0, "category %s: get_pvars rc %d, %d indices outside", name, rc, out);
    rc = MPI_T_category_get_categories(c, nsub, list);
    for (int k = 0; k < nsub && rc == MPI_SUCCESS; ++k) out += list[k] < 0 || list[k] >= ncat || list[k] == c;
    CHECK(rc == MPI_SUCCESS && nsub >= 0 && out == 0, "category %s: get_categories rc %d, %d of %d bad", name,
          rc, out, nsub);
  }
  for (int i = 0; i < n; ++i)
    CHECK(cv_seen[i] == 1, "control variable %d is in %d categories", i, cv_seen[i]);
  for (int i = 0; i < np; ++i)
    CHECK(pv_seen[i] == 1, "performance variable %d is in %d categories", i, pv_seen[i]);
  free(cv_seen);
  free(pv_seen);
  free(list);
  const int changed2 = MPI_T_category_changed(&stamp2);
  CHECK(changed == MPI_SUCCESS && changed2 == MPI_SUCCESS && stamp == stamp2,
        "MPI_T_category_changed: rc %d and %d, stamps %d and %d", changed, changed2, stamp, stamp2);
  int nsrc = -1;
  const int src_rc = MPI_T_source_get_num(&nsrc);
  CHECK(src_rc == MPI_SUCCESS && nsrc >= 0, "MPI_T_source_get_num: rc %d, %d sources", src_rc, nsrc);
  const int past = MPI_T_source_get_info(nsrc, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL);
  CHECK(past == MPI_T_ERR_INVALID_INDEX, "an event source index past the last (%d): %d", nsrc, past);
  int cidx = -1, nev = -1;
  MPI_T_category_get_index("collectives", &cidx);
  MPI_T_event_get_num(&nev);
  CHECK(ncat == 3 && cv == n && pv == np && cidx >= 0 && nev == 0,
        "%d categories hold %d/%d cvars, %d/%d pvars", ncat, cv, n, pv, np);
  MPI_T_finalize();

  const int failed = checks_failed;
  int total = 0;
  MPI_Allreduce(&failed, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0) printf("mpit: %d checks passed on rank 0, %d failed in all\n", checks_passed, total);
  MPI_Finalize();

  /* After MPI_Finalize, MPI_T still works. */
  MPI_T_init_thread(MPI_THREAD_SINGLE, &provided);
  const int after_fin = MPI_T_cvar_get_num(&n);
  const unsigned long long spin_after = read_count(find_cvar("PAMIR_SPIN_COUNT"));
  MPI_T_finalize();
  if (after_fin != MPI_SUCCESS || n <= 20 || spin_after != 1234) {
    fprintf(stderr, "FAIL rank %d: MPI_T after MPI_Finalize: rc %d, %d variables, spin %llu\n", rank,
            after_fin, n, spin_after);
    return 1;
  }
  return total ? 1 : 0;
}
