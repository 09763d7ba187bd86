/* MPI_Get_hw_resource_info: the info names where this process may run, and its CPU list is the
 * process's affinity mask as the kernel reports it (so a binding by mpirun shows). Each key is set once,
 * every value is a list of indices, and the info is the caller's to free. */
#define _GNU_SOURCE
#include <sched.h>

#include "check.h"

/* The affinity mask as a CPU list, "0-3,6". */
static void affinity_list(char *out, size_t n) {
  cpu_set_t set;
  CPU_ZERO(&set);
  sched_getaffinity(0, sizeof set, &set);
  out[0] = '\0';
  for (int c = 0; c < CPU_SETSIZE; ++c) {
    if (!CPU_ISSET(c, &set)) continue;
    int e = c;
    while (e + 1 < CPU_SETSIZE && CPU_ISSET(e + 1, &set)) ++e;
    char part[32];
    snprintf(part, sizeof part, "%s%d", out[0] ? "," : "", c);
    strncat(out, part, n - strlen(out) - 1);
    if (e > c) {
      snprintf(part, sizeof part, "-%d", e);
      strncat(out, part, n - strlen(out) - 1);
    }
    c = e;
  }
}

static int is_index_list(const char *v) {
  if (!*v) return 0;
  for (; *v; ++v)
    if ((*v < '0' || *v > '9') && *v != ',') return 0;
  return 1;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Info info = MPI_INFO_NULL;
  CHECK(MPI_Get_hw_resource_info(&info) == MPI_SUCCESS && info != MPI_INFO_NULL, "a new info");
  char value[MPI_MAX_INFO_VAL + 1], expect[1024];
  int flag = 0;
  MPI_Info_get_string(info, "pamir_hw_cpuset", &(int){sizeof value}, value, &flag);
  affinity_list(expect, sizeof expect);
  CHECK(flag && strcmp(value, expect) == 0, "pamir_hw_cpuset \"%s\", affinity \"%s\"", flag ? value : "",
        expect);
  const char *levels[] = {"pamir_hw_core", "pamir_hw_pu"};
  for (int i = 0; i < 2; ++i) {
    int len = sizeof value;
    flag = 0;
    MPI_Info_get_string(info, levels[i], &len, value, &flag);
    CHECK(flag && is_index_list(value), "%s = \"%s\"", levels[i], flag ? value : "(unset)");
  }
  int nkeys = 0;
  MPI_Info_get_nkeys(info, &nkeys);
  CHECK(nkeys >= 3 && nkeys <= 7, "%d keys", nkeys);
  MPI_Info_free(&info);
  CHECK(info == MPI_INFO_NULL, "freed");
  MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
  CHECK(err_class(MPI_Get_hw_resource_info(NULL)) == MPI_ERR_ARG, "NULL hw_info");
  return finish("hw_resource");
}
