/* A minimal MPI 5.0 standard-ABI header, written by hand the way another implementation would ship
 * one; it shares nothing with Pamir's generated mpi/include/mpi.h. Every value is from the MPI 5.0
 * ABI table (Appendix A; the MPI Forum's mpi-5.0-abi-constants.json). It declares only what
 * test/abi/foreign/ring.c uses: a program built against it must run unchanged on any library that
 * implements the standard ABI (libmpi_abi.so.1). */
#ifndef FOREIGN_MPI_H
#define FOREIGN_MPI_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define MPI_VERSION 5
#define MPI_SUBVERSION 0
#define MPI_ABI_VERSION 1
#define MPI_ABI_SUBVERSION 0

/* Integer types. */
typedef intptr_t MPI_Aint;
typedef int64_t MPI_Offset;
typedef int64_t MPI_Count;

/* Handles: pointers to incomplete structs. */
typedef struct MPI_ABI_Comm *MPI_Comm;
typedef struct MPI_ABI_Datatype *MPI_Datatype;
typedef struct MPI_ABI_Errhandler *MPI_Errhandler;
typedef struct MPI_ABI_Op *MPI_Op;
typedef struct MPI_ABI_Request *MPI_Request;

/* The status: 32 bytes, three public fields then five ints for the implementation. */
typedef struct MPI_Status {
  int MPI_SOURCE;
  int MPI_TAG;
  int MPI_ERROR;
  int MPI_internal[5];
} MPI_Status;

/* Predefined handles are their ABI integer values. */
#define MPI_COMM_NULL ((MPI_Comm)(intptr_t)256)
#define MPI_COMM_WORLD ((MPI_Comm)(intptr_t)257)
#define MPI_COMM_SELF ((MPI_Comm)(intptr_t)258)

#define MPI_DATATYPE_NULL ((MPI_Datatype)(intptr_t)512)
#define MPI_INT ((MPI_Datatype)(intptr_t)521)
#define MPI_LONG_LONG ((MPI_Datatype)(intptr_t)523)
#define MPI_DOUBLE ((MPI_Datatype)(intptr_t)532)
#define MPI_2INT ((MPI_Datatype)(intptr_t)555)
#define MPI_CHAR ((MPI_Datatype)(intptr_t)579)
#define MPI_BYTE ((MPI_Datatype)(intptr_t)583)
#define MPI_INT64_T ((MPI_Datatype)(intptr_t)600)

#define MPI_SUM ((MPI_Op)(intptr_t)33)
#define MPI_MIN ((MPI_Op)(intptr_t)34)
#define MPI_MAX ((MPI_Op)(intptr_t)35)
#define MPI_MAXLOC ((MPI_Op)(intptr_t)57)

#define MPI_ERRORS_ARE_FATAL ((MPI_Errhandler)(intptr_t)321)
#define MPI_ERRORS_RETURN ((MPI_Errhandler)(intptr_t)323)

#define MPI_REQUEST_NULL ((MPI_Request)(intptr_t)384)

/* Addresses and ignore markers. */
#define MPI_IN_PLACE ((void *)(intptr_t)1)
#define MPI_STATUS_IGNORE ((MPI_Status *)0)
#define MPI_STATUSES_IGNORE ((MPI_Status *)0)

/* Constants. */
#define MPI_SUCCESS 0
#define MPI_ERR_TAG 4
#define MPI_ERR_COMM 5
#define MPI_ERR_RANK 6
#define MPI_ERR_TRUNCATE 15
#define MPI_ANY_SOURCE (-1)
#define MPI_ANY_TAG (-2)
#define MPI_PROC_NULL (-3)
#define MPI_UNDEFINED (-32766)
#define MPI_IDENT 201
#define MPI_CONGRUENT 202
#define MPI_UNEQUAL 204
#define MPI_MAX_OBJECT_NAME 128
#define MPI_MAX_ERROR_STRING 512

/* The procedures ring.c calls. */
int MPI_Init(int *argc, char ***argv);
int MPI_Finalize(void);
int MPI_Abort(MPI_Comm comm, int errorcode);
int MPI_Get_version(int *version, int *subversion);
int MPI_Abi_get_version(int *abi_major, int *abi_minor);
int MPI_Comm_rank(MPI_Comm comm, int *rank);
int MPI_Comm_size(MPI_Comm comm, int *size);
int MPI_Comm_split(MPI_Comm comm, int color, int key, MPI_Comm *newcomm);
int MPI_Comm_compare(MPI_Comm comm1, MPI_Comm comm2, int *result);
int MPI_Comm_free(MPI_Comm *comm);
int MPI_Comm_set_errhandler(MPI_Comm comm, MPI_Errhandler errhandler);
int MPI_Error_class(int errorcode, int *errorclass);
int MPI_Error_string(int errorcode, char *string, int *resultlen);
int MPI_Send(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm);
int MPI_Recv(void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
             MPI_Status *status);
int MPI_Isend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
              MPI_Request *request);
int MPI_Irecv(void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
              MPI_Request *request);
int MPI_Waitall(int count, MPI_Request array_of_requests[], MPI_Status array_of_statuses[]);
int MPI_Sendrecv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag,
                 void *recvbuf, int recvcount, MPI_Datatype recvtype, int source, int recvtag, MPI_Comm comm,
                 MPI_Status *status);
int MPI_Get_count(const MPI_Status *status, MPI_Datatype datatype, int *count);
int MPI_Get_count_c(const MPI_Status *status, MPI_Datatype datatype, MPI_Count *count);
int MPI_Barrier(MPI_Comm comm);
int MPI_Allreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                  MPI_Comm comm);
int MPI_Type_get_name(MPI_Datatype datatype, char *type_name, int *resultlen);
int MPI_Type_size(MPI_Datatype datatype, int *size);
double MPI_Wtime(void);

#ifdef __cplusplus
}
#endif

#endif
