#!/usr/bin/env bash
# test/multinode/run.sh - multi-host checks on a Slurm cluster of emulated hosts (see cluster.sh).
#
#   run.sh [PREFIX [PROGRAM.c ...]]        (as root)
#
# Brings up 2 emulated hosts (h1, h2) under Slurm, runs the checks below, tears everything down
# (also on failure, Ctrl-C, SIGINT or SIGTERM) and checks that nothing is left. Prints a PASS or
# FAIL line per check with its time, then a last line "N passed, N failed". Exit status 0 iff no
# check failed.
#
# Checks: srun -N 2 -n 4 hostname (2 tasks per host); srun --mpi=list has pmix; an Open MPI
# allreduce over 4 ranks on 2 hosts with srun --mpi=pmix; a rank killed with SIGKILL on h2 ends the
# job (srun non-zero, bounded time, no task left); teardown leaves nothing.
#
# Pamir programs: if PREFIX/bin/mpicc exists and PAMIR_MULTINODE_PAMIR=1, every PROGRAM.c given is
# built with PREFIX/bin/mpicc and run with `srun -N 2 -n 4 --mpi=pmix`, with FI_TCP_IFACE set to the
# hosts' veth (pmn0) and PAMIR_OFI_PROVIDER='tcp;ofi_rxm'. Each must exit 0 within
# PAMIR_MULTINODE_TIMEOUT seconds (default 120), with PAMIR_STATS showing sends over both devices
# (shm inside a host, ofi between hosts); then the first one under PAMIR_DEVICE=shm must be refused
# at MPI_Init with a message naming a rank on the other host; under PAMIR_DEVICE=torus it must run on one
# host (srun -N 1 -n 4: rank 0 starts the engine, the report is written, no engine is left) and be
# refused across two.
# Conditions for _mn_wait are single-quoted on purpose (they expand in `bash -c`); finish and
# on_signal are reached through traps.
# shellcheck disable=SC2016,SC2317
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
# shellcheck source=cluster.sh disable=SC1091  # (linted on its own)
source "$HERE/cluster.sh"
CLUSTER=$HERE/cluster.sh   # `$CLUSTER srun ...`: srun from the controller side (its own name resolution)

PREFIX=${1:-}
[[ $# -gt 0 ]] && shift
PROGRAMS=("$@")
NHOSTS=2
PAMIR_TIMEOUT=${PAMIR_MULTINODE_TIMEOUT:-120}

PASSED=0
FAILED=0
CHILD=""          # the background command being waited for (so a signal can stop it at once)
SNAPSHOT=""       # our processes and namespaces, for the leftover check
FINISHED=0
T_ALL=$EPOCHREALTIME
LOGDIR=$(mktemp -d /tmp/pamir-multinode.XXXXXX)

elapsed() { awk -v a="$1" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }'; }
say() { printf '%s\n' "$*"; }
pass() { PASSED=$((PASSED + 1)); say "PASS: $1 ($(elapsed "$2") s)"; }
fail() {
    FAILED=$((FAILED + 1))
    say "FAIL: $1 ($(elapsed "$2") s)"
    [[ -z ${3:-} ]] || printf '%s\n' "$3" | sed 's/^/    /'
}

# bg SECS OUTFILE CMD...: run CMD under timeout in the background and wait for it, so that a signal
# to this script is handled at once (bash defers traps while a foreground command runs).
bg() {
    local secs=$1 out=$2 rc=0
    shift 2
    timeout -k 5 "$secs" "$@" >"$out" 2>&1 </dev/null &
    CHILD=$!
    wait "$CHILD" || rc=$?
    CHILD=""
    return "$rc"
}

# Pamir's programs: pamir_build NAME SRC builds SRC with Pamir's mpicc into $MN_RUN/bin/NAME (false,
# with the reason added to $detail, when the build fails); pamir_srun OUT [VAR=VALUE ...] -- ARGS ...
# runs srun --mpi=pmix ARGS with Pamir's libraries and the veth pinned, its output in OUT.
pamir_build() {
    bg 300 "$LOGDIR/build-$1.out" "$PREFIX/bin/mpicc" -o "$MN_RUN/bin/$1" "$2" && return 0
    detail+="build $1: $(tail -n 3 "$LOGDIR/build-$1.out" | tr '\n' '|'); "
    return 1
}

pamir_srun() {
    local out=$1 envs=()
    shift
    while [[ $1 != -- ]]; do
        envs+=("$1")
        shift
    done
    shift
    bg "$PAMIR_TIMEOUT" "$out" env LD_LIBRARY_PATH="$PAMIR_LIB" FI_TCP_IFACE="$MN_IF" "${envs[@]}" \
        "$CLUSTER" srun --chdir=/tmp --mpi=pmix "$@"
}

stop_child() {
    [[ -n $CHILD ]] || return 0
    kill -TERM "$CHILD" 2>/dev/null || true
    # bounded: timeout(1) forwards TERM and kills after -k; mn_up tears down on TERM
    _mn_wait 20 '_mn_dead "$1"' "$CHILD" || kill -KILL "$CHILD" 2>/dev/null || true
    wait "$CHILD" 2>/dev/null || true
    CHILD=""
}

# PIDs of live processes named $1 anywhere on the machine.
procs_named() {
    local f c
    for f in /proc/[0-9]*/comm; do
        { read -r c <"$f"; } 2>/dev/null || continue
        [[ $c == "$1" ]] || continue
        f=${f#/proc/}
        f=${f%/comm}
        _mn_dead "$f" || printf '%s\n' "$f"
    done
    return 0
}
export -f procs_named

# PIDs of live processes named $2 on emulated host $1.
host_procs_named() {
    local p c
    for p in $(mn_pids "$1"); do
        { read -r c <"/proc/$p/comm"; } 2>/dev/null || continue
        [[ $c == "$2" ]] && printf '%s\n' "$p"
    done
    return 0
}

# kill_on_h2 OUT COMM CMD...: starts CMD (4 ranks of mn_allreduce --hang under srun) writing OUT,
# waits until the 4 are past their first allreduce, SIGKILLs the first process named COMM on h2 and
# waits at most 30 s for the job to end. Sets victim, rc (the job's status), took (seconds after the
# kill) and detail: empty when the job ended by itself with a failure and no process named COMM is
# left anywhere, else what went wrong.
kill_on_h2() {
    local out=$1 comm=$2 tk victims
    shift 2
    detail="" victim="" rc=0 took=""
    timeout -k 5 90 "$@" >"$out" 2>&1 </dev/null &
    CHILD=$!
    if ! _mn_wait 30 '[ "$(grep -c " OK$" "$1")" -ge 4 ]' "$out"; then
        detail="the 4 ranks did not start"
    else
        mapfile -t victims < <(host_procs_named h2 "$comm")
        victim=${victims[0]:-}
        if [[ -z $victim ]]; then
            detail="no $comm process found in h2's namespace"
        else
            tk=$EPOCHREALTIME
            kill -KILL "$victim"
            if ! _mn_wait 30 '_mn_dead "$1"' "$CHILD"; then
                detail="srun still running 30 s after the kill"
            else
                wait "$CHILD" || rc=$?
                CHILD=""
                took=$(elapsed "$tk")
                if ((rc == 0)); then
                    detail="srun exited 0 after a rank was killed"
                elif ((rc == 124)); then
                    detail="srun did not end by itself (killed by timeout)"
                elif ! _mn_wait 15 '[ -z "$(procs_named "$1")" ]' "$comm"; then
                    detail="task processes left: $(for h in $(mn_hosts); do echo "$h: $(host_procs_named "$h" "$comm" | paste -sd' ')"; done)"
                fi
            fi
        fi
    fi
    stop_child
}

finish() {
    local rc=$? t left
    ((FINISHED)) && return
    FINISHED=1
    trap '' INT TERM
    stop_child
    t=$EPOCHREALTIME
    if [[ -d $MN_RUN ]]; then
        SNAPSHOT=$(printf '%s\n%s\n' "$SNAPSHOT" "$(mn_snapshot)" | sort -u)
        if ((FAILED)); then cp -r "$MN_RUN/log" "$LOGDIR/slurm-logs" 2>/dev/null || true; fi
    fi
    mn_down || true
    if left=$(mn_leftovers <<<"$SNAPSHOT"); then
        pass "teardown leaves nothing (no daemon, namespace, bridge or run directory)" "$t"
    else
        fail "teardown leaves nothing" "$t" "$left"
    fi
    if ((FAILED)); then
        say "logs kept in $LOGDIR"
    else
        rm -rf "$LOGDIR"
    fi
    say "total: $(elapsed "$T_ALL") s"
    say "$PASSED passed, $FAILED failed"
    if ((rc > 128)); then exit "$rc"; fi # interrupted: 130 (SIGINT) or 143 (SIGTERM)
    if ((FAILED)); then exit 1; fi
    exit "$rc"
}

on_signal() {
    trap '' INT TERM
    say "interrupted by SIG$1: tearing down"
    FAILED=$((FAILED + 1))
    stop_child
    if [[ $1 == INT ]]; then exit 130; else exit 143; fi
}

trap finish EXIT
trap 'on_signal INT' INT
trap 'on_signal TERM' TERM

[[ $(id -u) -eq 0 ]] || { say "run.sh must run as root"; exit 1; }

# ---- set-up ----
t=$EPOCHREALTIME
if [[ -e $MN_RUN ]]; then
    say "stale cluster state in $MN_RUN: tearing it down first"
    mn_down || true
fi
# Packages first (bounded by apt's own timeouts in cluster.sh), then the cluster. mn_up keeps a
# failed cluster in place so that finish() can record it before tearing it down.
CHILD=""
( set -euo pipefail; _mn_ensure_packages "${MN_PACKAGES[@]}" openmpi-bin libopenmpi-dev ) &
CHILD=$!
wait "$CHILD" || { CHILD=""; fail "set-up: packages" "$t"; exit 1; }
PAMIR_MN_KEEP_ON_FAIL=1 mn_up "$NHOSTS" &
CHILD=$!
rc=0
wait "$CHILD" || rc=$?
CHILD=""
SNAPSHOT=$(mn_snapshot)
if ((rc != 0)); then
    fail "set-up: cluster of $NHOSTS hosts" "$t"
    exit 1
fi
mn_ompi_env
say "set-up: $NHOSTS hosts idle in $(elapsed "$t") s"

# ---- 1. srun -N 2 -n 4 hostname ----
t=$EPOCHREALTIME
out=$LOGDIR/hostname.out
if bg 30 "$out" "$CLUSTER" srun --chdir=/tmp -N 2 -n 4 hostname; then
    got=$(grep -E "^${MN_HOST_PREFIX}[0-9]+$" "$out" | sort | uniq -c | awk '{ print $2 "=" $1 }' | paste -sd' ')
    if [[ $got == "h1=2 h2=2" ]]; then
        pass "srun -N 2 -n 4 hostname: $got" "$t"
    else
        fail "srun -N 2 -n 4 hostname: got '$got', want 'h1=2 h2=2'" "$t" "$(cat "$out")"
    fi
else
    fail "srun -N 2 -n 4 hostname (exit $?)" "$t" "$(tail -n 20 "$out")"
fi

# ---- 2. srun --mpi=list has pmix ----
t=$EPOCHREALTIME
out=$LOGDIR/mpilist.out
if bg 20 "$out" "$CLUSTER" srun --chdir=/tmp --mpi=list && grep -qw pmix "$out"; then
    pass "srun --mpi=list includes pmix" "$t"
else
    fail "srun --mpi=list includes pmix" "$t" "$(tail -n 20 "$out")"
fi

# ---- 3. Open MPI allreduce, 4 ranks on 2 hosts, srun --mpi=pmix ----
t=$EPOCHREALTIME
out=$LOGDIR/allreduce.out
prog=$MN_RUN/bin/mn_allreduce
if ! bg 60 "$LOGDIR/build.out" mpicc.openmpi -O1 -o "$prog" "$HERE/mn_allreduce.c"; then
    fail "build mn_allreduce.c with mpicc.openmpi" "$t" "$(tail -n 20 "$LOGDIR/build.out")"
elif bg 60 "$out" "$CLUSTER" srun --chdir=/tmp -N 2 -n 4 --mpi=pmix "$prog"; then
    ok=$(grep -c ' OK$' "$out" || true)
    got=$(grep -oE " on ${MN_HOST_PREFIX}[0-9]+ " "$out" | sort | uniq -c | awk '{ print $3 "=" $1 }' | paste -sd' ')
    if [[ $ok == 4 && $got == "h1=2 h2=2" ]]; then
        pass "Open MPI allreduce over 4 ranks on 2 hosts (srun --mpi=pmix): sum right, $got" "$t"
    else
        fail "Open MPI allreduce: $ok of 4 ranks right, placement '$got'" "$t" "$(cat "$out")"
    fi
else
    fail "Open MPI allreduce (srun exit $?)" "$t" "$(tail -n 30 "$out")"
fi

# ---- 4. a rank killed on h2 ends the job ----
t=$EPOCHREALTIME
out=$LOGDIR/kill.out
detail=""
if [[ -x $prog ]]; then
    kill_on_h2 "$out" mn_allreduce "$CLUSTER" srun --chdir=/tmp -N 2 -n 4 --mpi=pmix "$prog" --hang 60
    if [[ -z $detail ]]; then
        pass "rank killed (SIGKILL, pid $victim on h2) ends the job: srun exit $rc after $took s, no task left" "$t"
    else
        fail "rank killed on h2 ends the job: $detail" "$t" "$(tail -n 30 "$out")"
    fi
else
    fail "rank killed on h2 ends the job: no test program" "$t"
fi

# ---- 5. Pamir programs (optional) ----
if [[ -n $PREFIX ]]; then
    if [[ -x $PREFIX/bin/mpicc && ${PAMIR_MULTINODE_PAMIR:-0} == 1 ]]; then
        # Each host has a /tmp of its own, so a prefix under /tmp (a CI clone's) is not there: the
        # libraries go where every host sees them, ahead of the programs' runpath.
        # The torus engine goes beside them (the library looks for it in its ../bin first).
        PAMIR_LIB=$MN_RUN/pamir-lib
        mkdir -p "$PAMIR_LIB" "$MN_RUN/shared" "$MN_RUN/bin"
        cp -a "$PREFIX/lib/." "$PAMIR_LIB/"
        cp -a "$PREFIX/bin/pamir_torus_engine" "$MN_RUN/bin/"
        for src in "${PROGRAMS[@]}"; do
            t=$EPOCHREALTIME
            name=$(basename "${src%.*}")
            exe=$MN_RUN/bin/pamir-$name
            cc=$PREFIX/bin/mpicc
            [[ $src == *.c ]] || cc=$PREFIX/bin/mpicxx
            out=$LOGDIR/pamir-$name.out
            if ! bg 300 "$LOGDIR/build-$name.out" "$cc" -o "$exe" "$src"; then
                fail "pamir $name: build with $cc" "$t" "$(tail -n 20 "$LOGDIR/build-$name.out")"
            elif pamir_srun "$out" TEST_SHARED_DIR="$MN_RUN/shared" PAMIR_OFI_PROVIDER='tcp;ofi_rxm' PAMIR_STATS=1 \
                -- -N 2 -n 4 "$exe"; then
                # Both devices carried messages: shm between the two ranks of a host, ofi between hosts.
                shm=$(grep -cE '^pamir stats: rank [0-9]+ send\.shm\.[a-z]+ [1-9]' "$out" || true)
                ofi=$(grep -cE '^pamir stats: rank [0-9]+ send\.ofi\.[a-z]+ [1-9]' "$out" || true)
                # The flooded rank polled the fabric less often than PAMIR_OFI_POLL_INTERVAL's 256 passes
                # while its shm ping-pong ran (Context::poll_ofi_timed), and the flood still arrived.
                widened="" flood_bad=""
                if [[ $name == flood_latency ]]; then
                    widened=$(awk '$1 == "pamir" && $3 == "rank" && $4 == 0 && $5 == "ofi.poll_interval_max" { print $6 }' "$out")
                    grep -qE 'flood delivered [0-9.]*[1-9][0-9.]* MB/s' "$out" || flood_bad="no flood arrived; "
                    [[ ${widened:-0} -gt 256 ]] || flood_bad+="rank 0's poll interval never grew past 256 (ofi.poll_interval_max ${widened:-absent})"
                fi
                if ((shm == 0 || ofi == 0)); then
                    fail "pamir $name: not both devices used (shm lines $shm, ofi lines $ofi)" "$t" \
                        "$(grep -E 'send\.(shm|ofi)\.' "$out" | head -n 16)"
                elif [[ -n $flood_bad ]]; then
                    fail "pamir $name: $flood_bad" "$t" "$(grep -v '^pamir stats:' "$out" | head -n 8)"
                else
                    pass "pamir $name: srun -N 2 -n 4 --mpi=pmix (shm and ofi both used${widened:+; the poll interval of the flooded rank grew to $widened passes})" "$t"
                    # What the program says of itself (its measurements), without the counters.
                    grep -v '^pamir stats:' "$out" | head -n 8 | sed 's/^/    /' || true
                fi
            else
                # The program's own lines: PAMIR_STATS's counters, printed last, would hide its FAIL lines.
                fail "pamir $name: srun -N 2 -n 4 --mpi=pmix (exit $?)" "$t" "$(grep -v '^pamir stats:' "$out" | tail -n 30)"
            fi
        done
        # PAMIR_DEVICE=shm with peers on the other host: MPI_Init refuses, naming a remote rank.
        t=$EPOCHREALTIME
        out=$LOGDIR/pamir-device-shm.out
        exe=$MN_RUN/bin/pamir-$(basename "${PROGRAMS[0]%.*}")
        if [[ ${#PROGRAMS[@]} -gt 0 && -x $exe ]]; then
            if pamir_srun "$out" PAMIR_DEVICE=shm -- -N 2 -n 4 "$exe"; then
                fail "pamir PAMIR_DEVICE=shm across hosts: the job ran" "$t" "$(tail -n 10 "$out")"
            elif grep -q 'PAMIR_DEVICE=shm, but rank [0-9]* is on another node' "$out"; then
                pass "pamir PAMIR_DEVICE=shm across hosts: MPI_Init refuses, naming a remote rank" "$t"
            else
                fail "pamir PAMIR_DEVICE=shm across hosts: no message naming a remote rank" "$t" "$(tail -n 10 "$out")"
            fi
        fi
        # The torus under Slurm (issue 20): rank 0 starts the engine itself, with no mpirun beside the
        # ranks, and waits for it in MPI_Finalize, so the report is written before the step ends and
        # nothing is left; across hosts the torus is refused, naming why.
        t=$EPOCHREALTIME
        out=$LOGDIR/pamir-torus.out
        report=$MN_RUN/shared/torus.json
        if [[ ${#PROGRAMS[@]} -gt 0 && -x $exe ]]; then
            rm -f "$report"
            # (--overcommit: an emulated host has two CPUs)
            if ! pamir_srun "$out" PAMIR_DEVICE=torus PAMIR_TORUS_DIMS=2x2 PAMIR_TORUS_REPORT="$report" -- \
                -N 1 -n 4 --overcommit "$exe"; then
                fail "pamir torus under srun -N 1 -n 4: srun failed" "$t" "$(tail -n 10 "$out")"
            elif ! python3 -c 'import json, sys; assert len(json.load(open(sys.argv[1]))["ranks"]) == 4' \
                "$report" 2>/dev/null; then
                fail "pamir torus under srun -N 1 -n 4: no report of 4 ranks at $report" "$t" "$(tail -n 10 "$out")"
            elif [[ -n $(procs_named pamir_torus_eng) ]]; then
                fail "pamir torus under srun -N 1 -n 4: an engine was left: $(procs_named pamir_torus_eng)" "$t" ""
            else
                pass "pamir torus under srun -N 1 -n 4 --mpi=pmix: $(grep -m1 'checks passed' "$out"), report of 4 ranks, no engine left" "$t"
            fi
            t=$EPOCHREALTIME
            if pamir_srun "$out" PAMIR_DEVICE=torus -- -N 2 -n 4 "$exe"; then
                fail "pamir PAMIR_DEVICE=torus across hosts: the job ran" "$t" "$(tail -n 10 "$out")"
            elif grep -q 'the engine emulates the whole torus on one node, but this job has 2 ranks on other nodes' "$out"; then
                pass "pamir PAMIR_DEVICE=torus across hosts: MPI_Init refuses, naming the ranks elsewhere" "$t"
            else
                fail "pamir PAMIR_DEVICE=torus across hosts: no message saying why" "$t" "$(tail -n 10 "$out")"
            fi
        fi
        # One job, two send tables: rank 0's messages to its host's peer follow shm's table, those to
        # the other host tcp;ofi_rxm's (pami/send_tables.cc), the same sizes taking different protocols.
        t=$EPOCHREALTIME
        out=$LOGDIR/pamir-tables.out
        detail=""
        if ! pamir_build pmn_tables "$HERE/mn_tables.c"; then
            :
        elif ! pamir_srun "$out" PAMIR_OFI_PROVIDER='tcp;ofi_rxm' PAMIR_STATS=1 -- -N 2 -n 4 "$MN_RUN/bin/pmn_tables"; then
            detail="srun exit $?: $(grep -v '^pamir stats' "$out" | tail -n 5)"
        else
            for want in "send.shm.eager 1 messages 2048 bytes" "send.shm.rdma 1 messages 49152 bytes" \
                "send.ofi.eager 0 messages 0 bytes" "send.ofi.rdma 1 messages 49152 bytes"; do
                grep -q "^pamir stats: rank 0 $want\$" "$out" || detail+="want '$want'; "
            done
            [[ -z $detail ]] || detail+="got: $(grep -E '^pamir stats: rank 0 send\.(shm|ofi)\.' "$out" | tr '\n' '|')"
        fi
        if [[ -z $detail ]]; then
            pass "pamir send tables per device: 2 KiB eager to the shm peer, immediate to the ofi peer" "$t"
        else
            fail "pamir send tables per device: $detail" "$t" "$(tail -n 20 "$out")"
        fi
        # Derived datatypes between hosts, one rank on each: every message above 200 bytes by rendezvous,
        # layouts of pieces from 256 bytes read as common chunks from the span the origin registered (its
        # layout in the request-to-send), smaller ones in packets; then the 8 MiB vector into an indexed
        # type at the default bound. dt.chunk_reads counts the reads over the veth.
        t=$EPOCHREALTIME
        detail=""
        for prog in dt_transfer dt_zero_copy; do pamir_build "p$prog" "$REPO/test/mpi/$prog.c"; done
        if [[ -z $detail ]]; then
            out=$LOGDIR/pamir-dt-transfer.out
            if pamir_srun "$out" PAMIR_STATS=1 PAMIR_OFI_DT_CHUNK_MIN=256 \
                PAMIR_SEND_PROTOCOLS=immediate:100,eager:200,rdma -- -N 2 -n 2 "$MN_RUN/bin/pdt_transfer" 15; then
                grep -qE "^pamir stats: rank 1 dt\.chunk_reads [1-9]" "$out" || detail+="dt_transfer: no chunk reads; "
            else
                detail+="dt_transfer: $(grep -v '^pamir stats' "$out" | tail -n 3 | tr '\n' '|'); "
            fi
            out=$LOGDIR/pamir-dt-zero-copy.out
            if pamir_srun "$out" PAMIR_STATS=1 -- -N 2 -n 2 "$MN_RUN/bin/pdt_zero_copy"; then
                for r in 0 1; do
                    grep -qE "^pamir stats: rank $r dt\.chunk_reads [1-9]" "$out" || detail+="dt_zero_copy: rank $r read no chunks; "
                done
            else
                detail+="dt_zero_copy: $(grep -v '^pamir stats' "$out" | tail -n 3 | tr '\n' '|'); "
            fi
        fi
        if [[ -z $detail ]]; then
            pass "pamir derived datatypes across hosts: common chunks read over ofi, no pack buffer" "$t"
        else
            fail "pamir derived datatypes across hosts: $detail" "$t"
        fi
        # Collectives across hosts: by default one leader per host (the hierarchical algorithms, seen in
        # PAMIR_STATS); and every algorithm forced in turn (coll_sweep) on hosts of unequal share (2 + 1
        # ranks, which once hung MPI_Init: a host of one rank made one PMIx fence fewer) and with ranks dealt
        # round-robin (not node-ordered: a non-commutative allreduce must keep rank order).
        t=$EPOCHREALTIME
        detail=""
        for prog in coll_basic coll_sweep; do pamir_build "p$prog" "$REPO/test/mpi/$prog.c"; done
        if [[ -z $detail ]]; then
            out=$LOGDIR/pamir-coll-default.out
            if pamir_srun "$out" PAMIR_STATS=1 -- -N 2 -n 4 "$MN_RUN/bin/pcoll_basic"; then
                for c in barrier bcast allreduce; do
                    grep -qE "^pamir stats: rank 0 coll\.$c\.hierarchical [1-9]" "$out" || detail+="$c not hierarchical; "
                done
            else
                detail+="coll_basic -n 4: $(grep -v '^pamir stats' "$out" | tail -n 3 | tr '\n' '|'); "
            fi
            for spec in "-n 3" "-n 4 -m cyclic"; do
                out=$LOGDIR/pamir-coll-sweep${spec// /}.out
                # shellcheck disable=SC2086 # $spec is two or four words
                pamir_srun "$out" TEST_SHARED_DIR="$MN_RUN/shared" -- -N 2 $spec "$MN_RUN/bin/pcoll_sweep" ||
                    detail+="coll_sweep $spec: $(grep -v '^PASS' "$out" | tail -n 3 | tr '\n' '|'); "
            done
        fi
        if [[ -z $detail ]]; then
            pass "pamir collectives across hosts: hierarchical by default; every algorithm on 2+1 ranks and round-robin" "$t"
        else
            fail "pamir collectives across hosts: $detail" "$t"
        fi
        # A Pamir rank killed on h2, with Slurm's default KillOnBadExit=0: no launcher of ours is there,
        # so the library must notice (its sibling on h2 through a pidfd) and end the job, naming the
        # rank, with no task and no shared-memory file left on any host.
        t=$EPOCHREALTIME
        out=$LOGDIR/pamir-kill.out
        exe=$MN_RUN/bin/pmn_allreduce
        detail=""
        if pamir_build pmn_allreduce "$HERE/mn_allreduce.c"; then
            kill_on_h2 "$out" pmn_allreduce env LD_LIBRARY_PATH="$PAMIR_LIB" FI_TCP_IFACE="$MN_IF" \
                PAMIR_OFI_PROVIDER='tcp;ofi_rxm' "$CLUSTER" srun --chdir=/tmp --kill-on-bad-exit=0 -N 2 -n 4 \
                --mpi=pmix "$exe" --hang 60
            said="rank [0-9]+ \(pid $victim, on this host, h2\) ended without calling MPI_Finalize"
            if [[ -z $detail ]] && ! grep -qE "$said" "$out"; then
                detail="no message naming the killed rank (pid $victim on h2)"
            elif [[ -z $detail ]]; then
                left=$(find "$MN_RUN"/hosts/*/shm -mindepth 1 2>/dev/null | head -n 5)
                [[ -z $left ]] || detail="left in the hosts' /dev/shm: $left"
            fi
        fi
        if [[ -z $detail ]]; then
            pass "pamir rank killed on h2 (srun --kill-on-bad-exit=0): the job ends after $took s naming it, nothing left" "$t"
            grep -E "^Pamir: " "$out" | head -n 2 | sed 's/^/    /' || true
        else
            fail "pamir rank killed on h2 ends the job: $detail" "$t" "$(tail -n 20 "$out")"
        fi
    else
        say "SKIP: Pamir programs (need $PREFIX/bin/mpicc and PAMIR_MULTINODE_PAMIR=1)"
    fi
fi

exit 0
