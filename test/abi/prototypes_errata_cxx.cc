// prototypes_errata.c from C++: every redeclaration inside extern "C" must match mpi.h.
#include "prototypes_errata.c"
