#!/bin/bash
# The PAMI-layer programs of test/pami under the build tree's mpirun, with the settings that change
# their paths. Run by `make check` from the build directory. Prints "PASS name" or "FAIL name: why" per
# case, then "N passed, N failed"; exits non-zero if any case failed.
#
#   test/pami/run.sh [MPIRUN [ONESIDED [PATTERN]]]
MPIRUN=${1:-${MPIRUN:-tools/mpirun/mpirun}}
PROG=${2:-test/pami/onesided}
PATTERN=${3:-test/pami/pattern}
for f in "$MPIRUN" "$PROG" "$PATTERN"; do
  [ -x "$f" ] || { echo "run.sh: $f not found or not executable (build first)" >&2; exit 2; }
done
WORK=$(mktemp -d "${TMPDIR:-/tmp}/pamir-pami-test.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
passed=0
failed=0
pass() { echo "PASS $1"; passed=$((passed + 1)); }
fail() { echo "FAIL $1: $2"; failed=$((failed + 1)); }

# run NAME EXPECTED_EXIT [ENV=VALUE ...] -- ARGS
run() {
  local name=$1 expect=$2
  shift 2
  local envs=()
  while [ "$1" != "--" ]; do envs+=("$1"); shift; done
  shift
  env -u PAMIR_PUT_PROTOCOLS -u PAMIR_GET_PROTOCOLS -u PAMIR_SEND_PROTOCOLS "${envs[@]+"${envs[@]}"}" \
    "$MPIRUN" --timeout 120 -n 2 "$PROG" "$@" >"$WORK/$name.out" 2>"$WORK/$name.err"
  local rc=$?
  if [ "$rc" != "$expect" ]; then
    fail "$name" "exit $rc, expected $expect: $(tail -5 "$WORK/$name.err" | tr '\n' '|')"
    return 1
  fi
  return 0
}
ok_case() {
  local name=$1
  if run "$@"; then pass "$name ($(tail -1 "$WORK/$name.out"))"; fi
}

ok_case onesided.defaults 0 --
ok_case onesided.packets 0 PAMIR_PUT_PROTOCOLS=eager PAMIR_GET_PROTOCOLS=eager --
ok_case onesided.mixed 0 PAMIR_PUT_PROTOCOLS=rdma PAMIR_GET_PROTOCOLS=eager:4K,rdma:64K,eager --
ok_case onesided.small_ring 0 PAMIR_SHM_RING_SIZE=4K PAMIR_PUT_PROTOCOLS=eager:1K,rdma:64K,eager \
  PAMIR_GET_PROTOCOLS=eager:100,rdma:16K,eager --
ok_case onesided.refused 0 TEST_REFUSE_CMA=1 -- eager
ok_case onesided.no_cma 0 PAMIR_SHM_CMA=0 -- eager

# Record and replay (seed 004): descriptors against requests, replays, changed and freed patterns, a
# thousand patterns in one FIFO; then a FIFO too small for them, whose overflow takes the ordinary path.
# With PAMIR_DIRECT_PUT=1 the replayed rendezvous-size pairs put straight into the receive's buffer.
PROG=$PATTERN ok_case pattern.defaults 0 --
PROG=$PATTERN ok_case pattern.direct_put 0 PAMIR_DIRECT_PUT=1 --
PROG=$PATTERN ok_case pattern.no_mailbox 0 PAMIR_MAILBOX=0 --
PROG=$PATTERN ok_case pattern.full 0 PAMIR_PATTERN_FIFO=600 -- full
PROG=$PATTERN ok_case pattern.eager_only 0 PAMIR_SEND_PROTOCOLS=eager PAMIR_DIRECT_PUT=1 --

# A refused peer is named once per direction under PAMIR_VERBOSE, and the counts reach PAMIR_STATS.
if run onesided.verbose_stats 0 TEST_REFUSE_CMA=1 PAMIR_VERBOSE=1 PAMIR_STATS=1 -- eager; then
  if ! grep -Eq "rank 0: cannot (read|write) rank 1's memory .*: one-sided transfers with it go by packets" "$WORK/onesided.verbose_stats.err"; then
    fail onesided.verbose_stats "no verbose line for the refused one-sided transfer: $(head -3 "$WORK/onesided.verbose_stats.err" | tr '\n' '|')"
  elif ! grep -q "rank 0 put.eager 9 messages" "$WORK/onesided.verbose_stats.err" ||
    ! grep -q "rank 1 get.eager 9 messages" "$WORK/onesided.verbose_stats.err"; then
    fail onesided.verbose_stats "stats: $(grep -E 'put|get' "$WORK/onesided.verbose_stats.err" | tr '\n' '|')"
  else
    pass onesided.verbose_stats
  fi
fi

# Bad tables: one error naming the variable and the bad part, a non-zero exit, no hang.
bad_case() {
  local name=$1 var=$2 value=$3 want=$4
  if run "$name" 1 "$var=$value" --; then
    if grep -q "$var=\"$value\" is not valid: .*$want" "$WORK/$name.err"; then
      pass "$name"
    else
      fail "$name" "message: $(head -3 "$WORK/$name.err" | tr '\n' '|')"
    fi
  fi
}
bad_case bad.put_immediate PAMIR_PUT_PROTOCOLS immediate:64,rdma 'unknown protocol "immediate" (known: eager, rdma)'
bad_case bad.get_order PAMIR_GET_PROTOCOLS eager:4K,rdma:1K,eager 'bounds must strictly increase'
bad_case bad.get_last PAMIR_GET_PROTOCOLS eager:4K 'the last entry must have no bound'

# pamir_info prints each class's effective table, from the environment when set there.
INFO=${PAMIR_INFO:-tools/pamir_info}
if [ -x "$INFO" ]; then
  out=$(env PAMIR_GET_PROTOCOLS=eager:4K,rdma "$INFO" 2>&1)
  if echo "$out" | grep -q "Get protocols by size in bytes (PAMIR_GET_PROTOCOLS=eager:4K,rdma, from the environment)" &&
    echo "$out" | grep -q "shm  eager \[0, 4096\], rdma \[4097, inf)" &&
    echo "$out" | grep -q "ofi  every transfer by packets (eager)" &&
    echo "$out" | grep -q "Put protocols by size in bytes (PAMIR_PUT_PROTOCOLS=eager:16K,rdma, the default)"; then
    pass pamir_info.tables
  else
    fail pamir_info.tables "$(echo "$out" | grep -A1 -E 'Put|Get' | tr '\n' '|')"
  fi
else
  fail pamir_info.tables "$INFO not found"
fi

# pamir_info says which peers each device reaches under PAMIR_DEVICE, and what libfabric offers of the
# ofi device's provider (or which providers it has instead), with the peers its receive queue serves.
if [ -x "$INFO" ]; then
  out=$(env PAMIR_DEVICE=ofi FI_TCP_IFACE=lo "$INFO" 2>&1)
  bad=$(env PAMIR_OFI_PROVIDER=no-such-provider FI_TCP_IFACE=lo "$INFO" 2>&1)
  few=$(env PAMIR_OFI_CREDITS=8 FI_TCP_IFACE=lo "$INFO" 2>&1)  # the peers served follow the setting
  if echo "$out" | grep -q "used for every peer (PAMIR_DEVICE=ofi)" &&
    echo "$few" | grep -q "receive queue [0-9]*: 8 credits a peer for up to [0-9]* peers" &&
    echo "$out" | grep -q "PAMIR_OFI_PROVIDER=tcp;ofi_rxm: tcp;ofi_rxm offered, inject [0-9]* B, domains: lo; receive queue [0-9]*: 32 credits a peer for up to [0-9]* peers, 4 for up to [0-9]*" &&
    echo "$bad" | grep -q "no-such-provider is not offered here.*providers that do: .*tcp;ofi_rxm"; then
    pass pamir_info.devices
  else
    fail pamir_info.devices "$(echo "$out" "$bad" "$few" | grep -E 'PAMIR_DEVICE|PAMIR_OFI' | tr '\n' '|')"
  fi
fi

# pamir_info prints each collective's list with the bits spelled out, the algorithm PAMIR_COLL_<NAME>
# forces, and a tuning file's lists in place of the built-in ones; a bad tuning file is an error.
if [ -x "$INFO" ]; then
  tuning=$(mktemp)
  printf 'sizes allreduce 1K\nallreduce reduce_bcast size-class=0 commutative\nallreduce recursive_doubling\n' >"$tuning"
  out=$(env PAMIR_COLL_BCAST=binomial PAMIR_COLL_TUNING="$tuning" "$INFO" 2>&1)
  if echo "$out" | grep -q "allreduce (size classes in bytes: 0:0-1023 1:1024+)" &&
    echo "$out" | grep -Eq "1\. reduce_bcast +if commutative size-class=0" &&
    echo "$out" | grep -Eq "2\. recursive_doubling +if always" &&
    echo "$out" | grep -q "forced: binomial (PAMIR_COLL_BCAST)" &&
    echo "$out" | grep -Eq "recursive_doubling +log2 p pairwise exchanges of doubling size; needs power-of-two"; then
    pass pamir_info.collectives
  else
    fail pamir_info.collectives "$(echo "$out" | grep -A4 -E '^  (allreduce|bcast) ' | tr '\n' '|')"
  fi
  printf 'allreduce ring\n' >"$tuning"
  if out=$(env PAMIR_COLL_TUNING="$tuning" "$INFO" 2>&1); then
    fail pamir_info.bad_tuning "exit 0 with a tuning file whose ring entry does not require commutative"
  elif echo "$out" | grep -q "PAMIR_COLL_TUNING=.*line 1: allreduce ring needs commutative"; then
    pass pamir_info.bad_tuning
  else
    fail pamir_info.bad_tuning "$(echo "$out" | head -2 | tr '\n' '|')"
  fi
  rm -f "$tuning"
  # The reductions' kernels: PAMIR_REDUCE_ISA picks a set (sse2, the baseline, runs everywhere), auto
  # names one the CPU runs, and an unknown name is refused naming the variable.
  sse2=$(env PAMIR_REDUCE_ISA=sse2 "$INFO" 2>&1 | grep '^Reduction kernels:')
  auto=$("$INFO" 2>&1 | grep '^Reduction kernels:')
  if echo "$sse2" | grep -qE '^Reduction kernels: (sse2|baseline) ' &&
    echo "$auto" | grep -qE '^Reduction kernels: (sse2|avx2|avx512|baseline) ' &&
    ! env PAMIR_REDUCE_ISA=avx9 "$INFO" >/dev/null 2>&1 &&
    env PAMIR_REDUCE_ISA=avx9 "$INFO" 2>&1 | grep -q 'PAMIR_REDUCE_ISA="avx9" is not valid'; then
    pass "pamir_info.reduce_isa ($auto)"
  else
    fail pamir_info.reduce_isa "forced: '$sse2'; auto: '$auto'"
  fi
fi

echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
