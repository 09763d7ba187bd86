/* Refuses this process system calls the library can live without, as a container or a ptrace policy
 * would: cross-memory attach (refuse_cma: from the call on, process_vm_readv and process_vm_writev fail
 * with EPERM) and the sleepers' barrier (refuse_membarrier: membarrier fails with EPERM). A seccomp filter,
 * so tests need no change to the machine's settings. Shared by the unit tests (C++) and the multi-rank
 * test programs (C). */
#ifndef PAMIR_TEST_REFUSE_CMA_H
#define PAMIR_TEST_REFUSE_CMA_H

#include <errno.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <sys/prctl.h>
#include <sys/syscall.h>

/* Refuses system calls nr1 and nr2 (they may be equal). 0, or -errno when the filter could not be installed.
 */
static inline int refuse_syscalls(unsigned nr1, unsigned nr2) {
#if defined(__x86_64__)
  const unsigned arch = AUDIT_ARCH_X86_64;
#elif defined(__aarch64__)
  const unsigned arch = AUDIT_ARCH_AARCH64;
#else
  return -ENOSYS; /* no seccomp architecture constant for this machine */
#endif
  struct sock_filter filter[] = {
      BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, arch, 1, 0),
      BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
      BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, nr1, 1, 0),
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, nr2, 0, 1),
      BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | (EPERM & SECCOMP_RET_DATA)),
      BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
  };
  struct sock_fprog prog = {(unsigned short)(sizeof filter / sizeof filter[0]), filter};
  if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 || prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) != 0)
    return -errno;
  return 0;
}

static inline int refuse_cma(void) {
  return refuse_syscalls(__NR_process_vm_readv, __NR_process_vm_writev);
}
static inline int refuse_membarrier(void) {
  return refuse_syscalls(__NR_membarrier, __NR_membarrier);
}

#endif
