/* Windows leave nothing behind: 1,000 create/free cycles turning through the flavours (MPI_Win_create on
 * malloc'd and on MPI_Alloc_mem memory, MPI_Win_allocate, MPI_Win_allocate_shared, MPI_Win_create_dynamic
 * with two regions attached and detached), each window 64 KiB and used (a fence epoch with put, accumulate
 * and get to the next rank, a lock_all epoch with put and flush, its results checked), then, against the
 * state after 20 warm-up cycles: the same open file descriptors, threads, files of this job in /dev/shm
 * (named with its PMIX_NAMESPACE, where the launcher sets one) and /dev/shm files mapped or open; at most 32
 * more lines in /proc/self/maps and 8 MiB more resident memory (1,000 leaked windows would be 64 MiB).
 * Runs with 2 and 3 ranks (any count works).
 *
 * Passed on MPICH 4.0.2 (Debian) and on Open MPI 4.1.4 with OMPI_MCA_osc=sm,pt2pt, 1-3 ranks, and on
 * Pamir; a variant that does not free its allocate and allocate_shared windows fails the mapping, /dev/shm
 * and memory checks on both. */
#include <dirent.h>
#include <stdint.h>
#include <unistd.h>

#include "check.h"

static int rank, size;

#define CYCLES 1000
#define WARMUP 20
#define WIN_INTS (16 * 1024) /* 64 KiB */

typedef struct {
  long fds, threads, shm_named, shm_mapped, maps, rss_kb;
} usage_t;

static long count_dir(const char *path) {
  DIR *d = opendir(path);
  if (!d) return -1;
  long n = 0;
  struct dirent *e;
  while ((e = readdir(d)))
    if (e->d_name[0] != '.') ++n;
  closedir(d);
  return n;
}

static usage_t usage(void) {
  usage_t u = {0, 0, 0, 0, 0, 0};
  u.fds = count_dir("/proc/self/fd") - 1; /* less opendir's own */
  u.threads = count_dir("/proc/self/task");
  /* Files of this job in /dev/shm: named with its namespace. */
  const char *ns = getenv("PMIX_NAMESPACE");
  DIR *d = opendir("/dev/shm");
  struct dirent *e;
  while (d && ns && *ns && (e = readdir(d)))
    if (strstr(e->d_name, ns)) ++u.shm_named;
  if (d) closedir(d);
  /* Mappings, and those of /dev/shm files (deleted ones too). */
  FILE *f = fopen("/proc/self/maps", "r");
  char line[4096];
  while (f && fgets(line, sizeof line, f)) {
    ++u.maps;
    if (strstr(line, "/dev/shm/")) ++u.shm_mapped;
  }
  if (f) fclose(f);
  /* Open /dev/shm files. */
  d = opendir("/proc/self/fd");
  while (d && (e = readdir(d))) {
    char link[512], target[512];
    snprintf(link, sizeof link, "/proc/self/fd/%s", e->d_name);
    ssize_t n = readlink(link, target, sizeof target - 1);
    if (n > 0) {
      target[n] = 0;
      if (strncmp(target, "/dev/shm/", 9) == 0) ++u.shm_mapped;
    }
  }
  if (d) closedir(d);
  f = fopen("/proc/self/status", "r");
  while (f && fgets(line, sizeof line, f))
    if (strncmp(line, "VmRSS:", 6) == 0) u.rss_kb = strtol(line + 6, NULL, 10);
  if (f) fclose(f);
  return u;
}

enum { F_CREATE, F_ALLOC_MEM, F_ALLOCATE, F_SHARED, F_DYNAMIC, NFLAVOURS };
static const char *flavour_name[] = {"create(malloc)", "create(MPI_Alloc_mem)", "allocate", "allocate_shared",
                                     "dynamic"};

static int failures_shown;

/* One window: made, used, checked, freed. */
static void cycle(int k) {
  const int flavour = k % NFLAVOURS, t = (rank + 1) % size, s = (rank + size - 1) % size;
  const MPI_Aint bytes = (MPI_Aint)sizeof(int) * WIN_INTS;
  int *base = NULL, *extra = NULL;
  MPI_Win win = MPI_WIN_NULL;
  MPI_Aint disp0 = 0, *addr = NULL;
  int rc = MPI_SUCCESS;
  switch (flavour) {
    case F_CREATE:
      base = malloc((size_t)bytes);
      rc = MPI_Win_create(base, bytes, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
      break;
    case F_ALLOC_MEM:
      MPI_Alloc_mem(bytes, MPI_INFO_NULL, &base);
      rc = MPI_Win_create(base, bytes, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
      break;
    case F_ALLOCATE:
      rc = MPI_Win_allocate(bytes, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
      break;
    case F_SHARED:
      rc = MPI_Win_allocate_shared(bytes, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
      break;
    case F_DYNAMIC:
      rc = MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &win);
      base = malloc((size_t)bytes);
      extra = malloc(4096);
      MPI_Win_attach(win, extra, 4096);
      MPI_Win_attach(win, base, bytes);
      addr = malloc(sizeof(MPI_Aint) * (size_t)size);
      MPI_Aint mine;
      MPI_Get_address(base, &mine);
      MPI_Allgather(&mine, 1, MPI_AINT, addr, 1, MPI_AINT, MPI_COMM_WORLD);
      disp0 = addr[t];
      break;
  }
  const int ok_made = rc == MPI_SUCCESS;
  if (!ok_made && failures_shown++ < 5) CHECK(0, "cycle %d: %s window: rc %d", k, flavour_name[flavour], rc);
  if (!ok_made) return;
  const int unit = flavour == F_DYNAMIC ? (int)sizeof(int) : 1; /* dynamic displacements are bytes */
  /* Fence: put 16 ints at k % 64 * 16, accumulate 1 into the next 16, get them back. */
  MPI_Win_lock(MPI_LOCK_EXCLUSIVE, rank, 0, win);
  memset(base, 0, (size_t)bytes);
  MPI_Win_unlock(rank, win);
  const int at = k % 64 * 32;
  int src[16], ones[16], got[16];
  for (int i = 0; i < 16; ++i) {
    src[i] = k * 100 + rank * 16 + i;
    ones[i] = 1;
    got[i] = -1;
  }
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Win_fence(0, win);
  MPI_Put(src, 16, MPI_INT, t, disp0 + (MPI_Aint)at * unit, 16, MPI_INT, win);
  MPI_Accumulate(ones, 16, MPI_INT, t, disp0 + (MPI_Aint)(at + 16) * unit, 16, MPI_INT, MPI_SUM, win);
  MPI_Win_fence(0, win);
  MPI_Get(got, 16, MPI_INT, t, disp0 + (MPI_Aint)at * unit, 16, MPI_INT, win);
  MPI_Win_fence(MPI_MODE_NOSUCCEED, win);
  int bad = 0;
  for (int i = 0; i < 16; ++i) {
    bad += got[i] != src[i];
    bad += base[at + i] != k * 100 + s * 16 + i || base[at + 16 + i] != 1;
  }
  /* lock_all: put after the block, flush, read it back. */
  MPI_Win_lock_all(0, win);
  MPI_Put(src, 4, MPI_INT, t, disp0 + (MPI_Aint)(at + 32) * unit, 4, MPI_INT, win);
  MPI_Win_flush(t, win);
  MPI_Get(got, 4, MPI_INT, t, disp0 + (MPI_Aint)(at + 32) * unit, 4, MPI_INT, win);
  MPI_Win_flush(t, win);
  MPI_Win_unlock_all(win);
  for (int i = 0; i < 4; ++i) bad += got[i] != src[i];
  if ((bad || k == 0) && failures_shown < 5) {
    failures_shown += bad != 0;
    CHECK(bad == 0, "cycle %d (%s): %d wrong values", k, flavour_name[flavour], bad);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  if (flavour == F_DYNAMIC) {
    MPI_Win_detach(win, base);
    MPI_Win_detach(win, extra);
  }
  rc = MPI_Win_free(&win);
  if ((rc != MPI_SUCCESS || win != MPI_WIN_NULL) && failures_shown++ < 5)
    CHECK(0, "cycle %d: MPI_Win_free rc %d", k, rc);
  if (flavour == F_CREATE || flavour == F_DYNAMIC) free(base);
  if (flavour == F_ALLOC_MEM) MPI_Free_mem(base);
  free(extra);
  free(addr);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  for (int k = 0; k < WARMUP; ++k) cycle(k);
  MPI_Barrier(MPI_COMM_WORLD);
  const usage_t before = usage();
  for (int k = WARMUP; k < WARMUP + CYCLES; ++k) cycle(k);
  MPI_Barrier(MPI_COMM_WORLD);
  const usage_t after = usage();
  CHECK(after.fds == before.fds, "open file descriptors: %ld before, %ld after %d windows", before.fds,
        after.fds, CYCLES);
  CHECK(after.threads == before.threads, "threads: %ld before, %ld after", before.threads, after.threads);
  CHECK(after.shm_named == before.shm_named, "this job's files in /dev/shm: %ld before, %ld after",
        before.shm_named, after.shm_named);
  CHECK(after.shm_mapped == before.shm_mapped, "/dev/shm files mapped or open: %ld before, %ld after",
        before.shm_mapped, after.shm_mapped);
  CHECK(after.maps <= before.maps + 32, "/proc/self/maps: %ld lines before, %ld after", before.maps,
        after.maps);
  CHECK(after.rss_kb <= before.rss_kb + 8 * 1024, "VmRSS: %ld kB before, %ld kB after", before.rss_kb,
        after.rss_kb);
  return finish("rma_leak");
}
