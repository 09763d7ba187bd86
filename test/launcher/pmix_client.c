/* A PMIx client for the launcher tests: it plays an MPI rank without the MPI library, so mpirun is
 * tested on its own. Usage:
 *
 *   pmix_client MARKER MODE [ARGS...]
 *
 * MARKER is ignored (the test driver finds leftover processes by it). Every mode that talks PMIx
 * first checks what mpirun registered (job size, local peers, local/node rank, hostname, appnum) and
 * exchanges a value with every peer through put/commit/fence/get. A failed check prints
 * "rank R FAIL: ..." on stderr and exits 2. Modes:
 *
 *   ok                   check, exchange, finalize, print "rank R of N ok"
 *   exit R K             like ok, then rank R exits with K after PMIx_Finalize; the others sleep
 *   nofin R K            rank R exits with K without PMIx_Finalize; the others wait in a fence
 *   kill R               rank R creates /dev/shm/pamir-<uid>-<nspace>-<host>, prints "shm PATH"
 *                        and "rank R pid PID", and SIGKILLs itself before the fence; the others
 *                        wait in the fence
 *   abort R C            rank R calls PMIx_Abort(C) and then exits with C; the others wait
 *   hang                 connect and wait forever (for --timeout)
 *   term DIR             connect, print "ready", wait; on SIGTERM create DIR/term.RANK and exit
 *   lines N              print N long lines on stdout and on stderr, each written in pieces
 *   env NAME...          print "rank R NAME=VALUE" (or "(unset)") for each NAME (no PMIx)
 *   stdin                print "rank R stdin bytes=N lines=L first=<first line>" (no PMIx)
 *   bind                 print "rank R cpus=<count>" and the allowed cpus as a list (no PMIx)
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pmix.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static pmix_proc_t me;
static int initialized;
static char term_dir[4096];

static void fail(const char *fmt, ...) {
  va_list ap;
  fprintf(stderr, "rank %u FAIL: ", (unsigned)me.rank);
  va_start(ap, fmt);
  vfprintf(stderr, fmt, ap);
  va_end(ap);
  fputc('\n', stderr);
  fflush(stderr);
  if (initialized) PMIx_Finalize(NULL, 0);
  exit(2);
}

static void wait_forever(void) {
  for (;;) pause();
}

static int env_rank(void) {
  const char *r = getenv("PMIX_RANK");
  return r ? atoi(r) : -1;
}

/* PMIx_Get of a job-level (wildcard) or own-rank key. */
static pmix_value_t *get_key(pmix_rank_t rank, const char *key) {
  pmix_proc_t p;
  pmix_value_t *v = NULL;
  PMIX_PROC_LOAD(&p, me.nspace, rank);
  pmix_status_t rc = PMIx_Get(&p, key, NULL, 0, &v);
  if (rc != PMIX_SUCCESS || v == NULL) fail("PMIx_Get(%s) returned %s", key, PMIx_Error_string(rc));
  return v;
}

static uint64_t get_uint(pmix_rank_t rank, const char *key) {
  pmix_value_t *v = get_key(rank, key);
  uint64_t out = 0;
  switch (v->type) {
    case PMIX_UINT32:
      out = v->data.uint32;
      break;
    case PMIX_UINT16:
      out = v->data.uint16;
      break;
    case PMIX_PROC_RANK:
      out = v->data.rank;
      break;
    case PMIX_UINT64:
      out = v->data.uint64;
      break;
    case PMIX_INT:
      out = (uint64_t)v->data.integer;
      break;
    default:
      fail("PMIx_Get(%s): unexpected type %d", key, (int)v->type);
  }
  PMIX_VALUE_RELEASE(v);
  return out;
}

static char *get_string(pmix_rank_t rank, const char *key) {
  pmix_value_t *v = get_key(rank, key);
  if (v->type != PMIX_STRING) fail("PMIx_Get(%s): type %d, expected a string", key, (int)v->type);
  char *s = strdup(v->data.string);
  PMIX_VALUE_RELEASE(v);
  return s;
}

/* Connects and checks what mpirun registered. Returns the job size. */
static uint32_t connect_and_check(void) {
  pmix_status_t rc = PMIx_Init(&me, NULL, 0);
  if (rc != PMIX_SUCCESS) {
    fprintf(stderr, "FAIL: PMIx_Init returned %s\n", PMIx_Error_string(rc));
    exit(2);
  }
  initialized = 1;
  uint32_t size = (uint32_t)get_uint(PMIX_RANK_WILDCARD, PMIX_JOB_SIZE);
  if (get_uint(PMIX_RANK_WILDCARD, PMIX_UNIV_SIZE) != size) fail("PMIX_UNIV_SIZE != PMIX_JOB_SIZE");
  if (get_uint(PMIX_RANK_WILDCARD, PMIX_LOCAL_SIZE) != size) fail("PMIX_LOCAL_SIZE != PMIX_JOB_SIZE");
  if (get_uint(PMIX_RANK_WILDCARD, PMIX_APPNUM) != 0) fail("PMIX_APPNUM != 0");
  if (me.rank >= size) fail("rank %u outside a job of %u", (unsigned)me.rank, (unsigned)size);
  char expect[65536] = "";
  size_t len = 0;
  for (uint32_t r = 0; r < size && len + 16 < sizeof expect; ++r)
    len += (size_t)snprintf(expect + len, sizeof expect - len, r ? ",%u" : "%u", (unsigned)r);
  char *peers = get_string(PMIX_RANK_WILDCARD, PMIX_LOCAL_PEERS);
  if (strcmp(peers, expect) != 0) fail("PMIX_LOCAL_PEERS is '%s', expected '%s'", peers, expect);
  free(peers);
  if (get_uint(me.rank, PMIX_LOCAL_RANK) != me.rank) fail("PMIX_LOCAL_RANK != rank");
  if (get_uint(me.rank, PMIX_NODE_RANK) != me.rank) fail("PMIX_NODE_RANK != rank");
  char host[256] = "";
  gethostname(host, sizeof host - 1);
  char *h = get_string(me.rank, PMIX_HOSTNAME);
  if (strcmp(h, host) != 0) fail("PMIX_HOSTNAME is '%s', expected '%s'", h, host);
  free(h);
  const char *gds = getenv("PMIX_MCA_gds");
  if (gds == NULL || strcmp(gds, "hash") != 0) fail("PMIX_MCA_gds is '%s', expected 'hash'", gds ? gds : "");
  return size;
}

/* Every rank publishes a value; after a collecting fence every rank reads and checks every peer's. */
static void exchange(uint32_t size) {
  char mine[512];
  snprintf(mine, sizeof mine, "value of rank %u in %s", (unsigned)me.rank, me.nspace);
  pmix_value_t val;
  PMIX_VALUE_LOAD(&val, mine, PMIX_STRING);
  pmix_status_t rc = PMIx_Put(PMIX_GLOBAL, "pamir.test.value", &val);
  PMIX_VALUE_DESTRUCT(&val);
  if (rc != PMIX_SUCCESS) fail("PMIx_Put: %s", PMIx_Error_string(rc));
  if ((rc = PMIx_Commit()) != PMIX_SUCCESS) fail("PMIx_Commit: %s", PMIx_Error_string(rc));
  pmix_info_t collect;
  bool yes = true;
  PMIX_INFO_LOAD(&collect, PMIX_COLLECT_DATA, &yes, PMIX_BOOL);
  rc = PMIx_Fence(NULL, 0, &collect, 1);
  PMIX_INFO_DESTRUCT(&collect);
  if (rc != PMIX_SUCCESS) fail("PMIx_Fence: %s", PMIx_Error_string(rc));
  for (uint32_t r = 0; r < size; ++r) {
    char *v = get_string(r, "pamir.test.value");
    char want[512];
    snprintf(want, sizeof want, "value of rank %u in %s", (unsigned)r, me.nspace);
    if (strcmp(v, want) != 0) fail("value of rank %u is '%s'", (unsigned)r, v);
    free(v);
  }
}

static void finalize(void) {
  pmix_status_t rc = PMIx_Finalize(NULL, 0);
  initialized = 0;
  if (rc != PMIX_SUCCESS) fail("PMIx_Finalize: %s", PMIx_Error_string(rc));
}

/* A fence the caller never leaves while a peer is missing (or leaves with an error): wait there. */
static void fence_then_wait(void) {
  PMIx_Fence(NULL, 0, NULL, 0);
  wait_forever();
}

static void on_term(int sig) {
  (void)sig;
  char path[4200];
  snprintf(path, sizeof path, "%s/term.%u", term_dir, (unsigned)me.rank);
  int fd = open(path, O_CREAT | O_WRONLY, 0644);
  if (fd >= 0) close(fd);
  _exit(0);
}

/* Writes text in pieces, with pauses, so another rank's output would land mid-line if mpirun did not
 * reassemble lines. */
static void write_in_pieces(int fd, const char *text) {
  size_t len = strlen(text), piece = len / 4 + 1;
  for (size_t off = 0; off < len; off += piece) {
    size_t n = len - off < piece ? len - off : piece;
    if (write(fd, text + off, n) < 0) return;
    struct timespec ts = {0, 200000};
    nanosleep(&ts, NULL);
  }
}

static int mode_lines(int n) {
  int rank = env_rank();
  char line[2100];
  for (int i = 0; i < n; ++i) {
    int len = snprintf(line, sizeof line, "rank %d line %d ", rank, i);
    for (int k = 0; k < 2000; ++k) line[len++] = (char)('a' + (rank + k) % 26);
    line[len++] = '\n';
    line[len] = '\0';
    write_in_pieces(STDOUT_FILENO, line);
    line[0] = 'R'; /* "Rank ..." on stderr */
    write_in_pieces(STDERR_FILENO, line);
  }
  return 0;
}

static int mode_stdin(void) {
  char buf[65536];
  size_t total = 0, lines = 0;
  char first[256] = "";
  size_t first_len = 0;
  int in_first = 1;
  ssize_t n;
  while ((n = read(STDIN_FILENO, buf, sizeof buf)) > 0) {
    for (ssize_t i = 0; i < n; ++i) {
      if (buf[i] == '\n') {
        ++lines;
        in_first = 0;
      } else if (in_first && first_len + 1 < sizeof first) {
        first[first_len++] = buf[i];
      }
    }
    total += (size_t)n;
  }
  first[first_len] = '\0';
  printf("rank %d stdin bytes=%zu lines=%zu first=%s\n", env_rank(), total, lines, first);
  return 0;
}

static int mode_bind(void) {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) != 0) return 2;
  printf("rank %d cpus=%d list=", env_rank(), CPU_COUNT(&set));
  int first = 1;
  for (int c = 0; c < CPU_SETSIZE; ++c) {
    if (!CPU_ISSET(c, &set)) continue;
    printf(first ? "%d" : ",%d", c);
    first = 0;
  }
  printf("\n");
  return 0;
}

int main(int argc, char **argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: %s MARKER MODE [ARGS...]\n", argv[0]);
    return 2;
  }
  setvbuf(stdout, NULL, _IOLBF, 0);
  const char *mode = argv[2];
  int a = argc > 3 ? atoi(argv[3]) : 0, b = argc > 4 ? atoi(argv[4]) : 0;

  if (strcmp(mode, "env") == 0) {
    for (int i = 3; i < argc; ++i) {
      const char *v = getenv(argv[i]);
      printf("rank %d %s=%s\n", env_rank(), argv[i], v ? v : "(unset)");
    }
    return 0;
  }
  if (strcmp(mode, "lines") == 0) return mode_lines(a);
  if (strcmp(mode, "stdin") == 0) return mode_stdin();
  if (strcmp(mode, "bind") == 0) return mode_bind();

  uint32_t size = connect_and_check();
  pmix_rank_t rank = me.rank;
  if (strcmp(mode, "ok") == 0) {
    exchange(size);
    finalize();
    printf("rank %u of %u ok\n", (unsigned)rank, (unsigned)size);
    return 0;
  }
  if (strcmp(mode, "exit") == 0) {
    exchange(size);
    finalize();
    if (rank == (pmix_rank_t)a) return b;
    sleep(30); /* mpirun must end us long before this */
    return 0;
  }
  if (strcmp(mode, "nofin") == 0) {
    if (rank == (pmix_rank_t)a) exit(b);
    fence_then_wait();
  }
  if (strcmp(mode, "kill") == 0) {
    if (rank == (pmix_rank_t)a) {
      char host[256] = "", path[sizeof me.nspace + sizeof host + 32];
      gethostname(host, sizeof host - 1);
      snprintf(path, sizeof path, "/dev/shm/pamir-%u-%s-%s", (unsigned)getuid(), me.nspace, host);
      int fd = open(path, O_CREAT | O_RDWR, 0600);
      if (fd < 0) fail("cannot create %s: %s", path, strerror(errno));
      close(fd);
      printf("shm %s\nrank %u pid %d\n", path, (unsigned)rank, (int)getpid());
      raise(SIGKILL);
    }
    fence_then_wait();
  }
  if (strcmp(mode, "abort") == 0) {
    if (rank == (pmix_rank_t)a) {
      char msg[64];
      snprintf(msg, sizeof msg, "test abort from rank %u", (unsigned)rank);
      PMIx_Abort(b, msg, NULL, 0);
      exit(b);
    }
    fence_then_wait();
  }
  if (strcmp(mode, "hang") == 0) wait_forever();
  if (strcmp(mode, "term") == 0) {
    snprintf(term_dir, sizeof term_dir, "%s", argc > 3 ? argv[3] : "/tmp");
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_term;
    sigaction(SIGTERM, &sa, NULL);
    printf("rank %u ready\n", (unsigned)rank);
    wait_forever();
  }
  fail("unknown mode '%s'", mode);
  return 2;
}
