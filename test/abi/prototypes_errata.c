/* The MPI 5.0 standard's C bindings where its procedures table (mpi-5.0-procedures.json, which mpi.h is
 * generated from) says otherwise, written by hand from the standard's text and redeclared after mpi.h: a
 * declaration of another type does not compile, in C with -Werror and in C++ inside extern "C"
 * (prototypes_errata_cxx.cc includes this file). Each is also linked, so each is exported. The generated
 * prototype checks cannot see these: they read the same table. mpi/gen/kinds.py (PARAM_ERRATA) holds the
 * corrections. */
#include <mpi.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif
/* Triplets (first, last, stride), not an array of ranks. */
int MPI_Group_range_incl(MPI_Group group, int n, int ranges[][3], MPI_Group *newgroup);
int PMPI_Group_range_incl(MPI_Group group, int n, int ranges[][3], MPI_Group *newgroup);
int MPI_Group_range_excl(MPI_Group group, int n, int ranges[][3], MPI_Group *newgroup);
int PMPI_Group_range_excl(MPI_Group group, int n, int ranges[][3], MPI_Group *newgroup);
/* int count, since MPI 4.1 gave partitioned communication its large-count (_c) forms. */
int MPI_Psend_init(const void *buf, int partitions, int count, MPI_Datatype datatype, int dest, int tag,
                   MPI_Comm comm, MPI_Info info, MPI_Request *request);
int PMPI_Psend_init(const void *buf, int partitions, int count, MPI_Datatype datatype, int dest, int tag,
                    MPI_Comm comm, MPI_Info info, MPI_Request *request);
int MPI_Psend_init_c(const void *buf, int partitions, MPI_Count count, MPI_Datatype datatype, int dest,
                     int tag, MPI_Comm comm, MPI_Info info, MPI_Request *request);
int PMPI_Psend_init_c(const void *buf, int partitions, MPI_Count count, MPI_Datatype datatype, int dest,
                      int tag, MPI_Comm comm, MPI_Info info, MPI_Request *request);
int MPI_Precv_init(void *buf, int partitions, int count, MPI_Datatype datatype, int source, int tag,
                   MPI_Comm comm, MPI_Info info, MPI_Request *request);
int PMPI_Precv_init(void *buf, int partitions, int count, MPI_Datatype datatype, int source, int tag,
                    MPI_Comm comm, MPI_Info info, MPI_Request *request);
int MPI_Precv_init_c(void *buf, int partitions, MPI_Count count, MPI_Datatype datatype, int source, int tag,
                     MPI_Comm comm, MPI_Info info, MPI_Request *request);
int PMPI_Precv_init_c(void *buf, int partitions, MPI_Count count, MPI_Datatype datatype, int source, int tag,
                      MPI_Comm comm, MPI_Info info, MPI_Request *request);
#ifdef __cplusplus
}
#endif

/* Not in the standard's table: the reference header's value, which MPICH shares. */
static const int typeclass_logical = 191;

int main(void) {
  void (*volatile fns[])(void) = {
      (void (*)(void))MPI_Group_range_incl, (void (*)(void))PMPI_Group_range_incl,
      (void (*)(void))MPI_Group_range_excl, (void (*)(void))PMPI_Group_range_excl,
      (void (*)(void))MPI_Psend_init,       (void (*)(void))PMPI_Psend_init,
      (void (*)(void))MPI_Psend_init_c,     (void (*)(void))PMPI_Psend_init_c,
      (void (*)(void))MPI_Precv_init,       (void (*)(void))PMPI_Precv_init,
      (void (*)(void))MPI_Precv_init_c,     (void (*)(void))PMPI_Precv_init_c,
  };
  int failed = 0;
  for (unsigned i = 0; i < sizeof fns / sizeof fns[0]; ++i) failed += fns[i] == NULL;
  if ((int)MPIX_TYPECLASS_LOGICAL != typeclass_logical) {
    printf("FAIL MPIX_TYPECLASS_LOGICAL is %d, want %d\n", (int)MPIX_TYPECLASS_LOGICAL, typeclass_logical);
    ++failed;
  }
  printf("%s: %u prototypes redeclared, %d failures\n", failed ? "FAIL" : "PASS",
         (unsigned)(sizeof fns / sizeof fns[0]), failed);
  return failed != 0;
}
