#!/usr/bin/env bash
# The torus device (issue 20): the point-to-point, datatype, collective, persistent and one-sided suites
# of test/mpi run unchanged with every peer reached through the emulated torus (PAMIR_DEVICE=torus, or
# mpirun --torus), then what only the torus has: its report, its errors, its engine's life and death.
# Prints PASS/FAIL per case and a final "N passed, N failed".
#
# usage: test/torus/run.sh PREFIX      (PAMIR_TEST_CASES=ERE: only the cases whose names match; the
#                                     sanitizer pass's subset)
#
# Its own programs (test/torus/*.c): replay.c, a recorded halo exchange; vt_mix.c, the orders the
# engine takes by real time, for the replay of the timing model.
#
# The subset (to keep CI within its budget): the suites' programs at 2-4 ranks on the default
# geometry, and at 8 and 16 ranks on 2x2x2 and 4x4 tori; coll_sweep at 2 and 4 ranks (its sizes reach
# 4 MiB, which the engine carries as 8192 packets each way); not the cases that test the shared-memory
# device itself (shm algorithms, CMA refusals, shared copies, the shm send table).
set -u
prefix=$(cd "${1:?usage: run.sh PREFIX}" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
mpi=$(cd "$here/../mpi" && pwd)
work=$(mktemp -d /tmp/pamir-torus-tests.XXXXXX)
trap 'rm -rf "$work"' EXIT
mpicc="$prefix/bin/mpicc"
mpirun="$prefix/bin/mpirun"
passed=0
failed=0
export PAMIR_DEVICE=torus

# A case run by run() ends its line with its wall time, so a slow case shows in CI's log.
elapsed=""
pass() { echo "PASS $1${elapsed:+ [${elapsed}s]}"; passed=$((passed + 1)); elapsed=""; }
fail() { echo "FAIL $1: $2${elapsed:+ [${elapsed}s]}"; failed=$((failed + 1)); elapsed=""; }

# A program (test/torus/NAME.c, else test/mpi/NAME.c) is built the first time a case wants it, so a subset
# (the sanitizer pass's) builds only its own. False if it does not build (that failure is reported once).
built() {
  local name=$1 src="$mpi/$1.c"
  [ -x "$work/$name" ] && return 0
  [ -e "$work/$name.build" ] && return 1
  [ -f "$here/$name.c" ] && src="$here/$name.c"
  "$mpicc" -O2 -g -Wall -Wextra -Werror -o "$work/$name" "$src" -lpthread 2>"$work/$name.build" && return 0
  fail "build $name" "$(head -20 "$work/$name.build")"
  return 1
}

# run NAME EXPECTED_EXIT NP [ENV=VALUE ...] [-- MPIRUN_OPTION ...] -- PROGRAM ARGS
# PAMIR_TEST_CASES: only the cases whose names match it (an extended regular expression) run.
wanted() {
  [ -z "${PAMIR_TEST_CASES:-}" ] || [[ $1 =~ $PAMIR_TEST_CASES ]]
}

run() {
  local name=$1 expect=$2 np=$3
  shift 3
  local envs=() opts=()
  while [ "$1" != "--" ]; do envs+=("$1"); shift; done
  shift
  if [ "${1:-}" = "--torus" ]; then opts=("$1" "$2"); shift 2; fi
  local prog=$1
  shift
  wanted "$name" || return 1
  if ! built "$prog"; then fail "$name" "program $prog was not built"; return 1; fi
  local start end
  start=$(date +%s.%N)
  env "${envs[@]+"${envs[@]}"}" "$mpirun" --timeout 120 -n "$np" "${opts[@]+"${opts[@]}"}" "$work/$prog" "$@" \
    >"$work/$name.out" 2>"$work/$name.err"
  local rc=$?
  end=$(date +%s.%N)
  elapsed=$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.2f", b - a }')
  if [ "$rc" != "$expect" ]; then
    fail "$name" "exit $rc, expected $expect; stderr: $(tail -5 "$work/$name.err" | tr '\n' '|') stdout: $(tail -3 "$work/$name.out" | tr '\n' '|')"
    return 1
  fi
  return 0
}
ok_case() {
  local name=$1
  if run "$@"; then pass "$name ($(tail -1 "$work/$name.out"))"; fi
}

# --- the suites, unchanged, on the torus ---
for np in 1 2 3 4; do ok_case "pt2pt_basic.np$np" 0 "$np" -- pt2pt_basic; done
ok_case pt2pt_basic.eager_only 0 4 PAMIR_SEND_PROTOCOLS=eager -- pt2pt_basic
ok_case pt2pt_basic.2x2x2 0 8 -- --torus 2x2x2 pt2pt_basic
for np in 2 4; do ok_case "pt2pt_more.np$np" 0 "$np" -- pt2pt_more; done
ok_case pt2pt_more.4x4 0 16 -- --torus 4x4 pt2pt_more
# pt2pt_order's blocking sends must not wait for their match (see test/mpi/run.sh).
for np in 2 4; do ok_case "pt2pt_order.np$np" 0 "$np" PAMIR_SEND_PROTOCOLS=immediate:192,eager -- pt2pt_order; done
for np in 2 3; do ok_case "rdv.np$np" 0 "$np" -- rdv; done
# Every rendezvous read failing (the device's start_read): both sides get MPI_ERR_OTHER, which rdv checks.
ok_case rdv.fault 0 2 PAMIR_FAULT=rdma-read PAMIR_SEND_PROTOCOLS=immediate:192,eager:16K,rdma -- rdv fault
ok_case requests_more.np3 0 3 -- requests_more
for np in 2 4; do ok_case "persistent.np$np" 0 "$np" -- persistent; done
ok_case partitioned.np2 0 2 -- partitioned
for np in 2 3; do ok_case "dt_transfer.np$np" 0 "$np" -- dt_transfer; done
ok_case dt_types.np2 0 2 -- dt_types
ok_case dt_coll.np4 0 4 -- dt_coll
ok_case dt_zero_copy.np2 0 2 -- dt_zero_copy
for np in 2 3 4; do ok_case "coll_basic.np$np" 0 "$np" -- coll_basic; done
ok_case coll_basic.2x2x2 0 8 -- --torus 2x2x2 coll_basic
ok_case coll_basic.2x2x2_t2 0 16 PAMIR_TORUS_MAP=TABC -- --torus 2x2x2 coll_basic
for np in 2 4; do ok_case "coll_persistent.np$np" 0 "$np" -- coll_persistent; done
for np in 2 4; do ok_case "coll_sweep.np$np" 0 "$np" -- coll_sweep; done
# The torus algorithms (collectives/algorithms/torus.cc) swept alone on bigger tori: an odd ring
# (3x2x2), and two ranks a node (T).
ok_case coll_sweep.torus.3x2x2 0 12 TEST_COLL_ALGORITHMS=torus,torus_colours -- --torus 3x2x2 coll_sweep
ok_case coll_sweep.torus.2x2x2_t2 0 16 TEST_COLL_ALGORITHMS=torus,torus_colours PAMIR_TORUS_MAP=TABC -- \
  --torus 2x2x2 coll_sweep
# What selection takes by default: the torus algorithms on MPI_COMM_WORLD (which fills the torus), others
# on half of it (selection.c checks the results).
if run selection 0 8 PAMIR_STATS=1 -- --torus 2x2x2 selection; then
  got=$(grep -o 'rank 0 coll\.[a-z]*\.[a-z_]* [1-9][0-9]*' "$work/selection.err" | grep -E 'bcast|allreduce' |
    cut -d' ' -f3- | sort | tr '\n' ' ')
  if echo "$got" | grep -q 'coll.bcast.torus_colours 1 ' && echo "$got" | grep -q 'coll.allreduce.torus_colours 1 ' &&
    [ "$(echo "$got" | grep -o 'coll\.bcast\.[a-z_]*' | wc -l)" = 2 ] &&
    [ "$(echo "$got" | grep -o 'coll\.allreduce\.[a-z_]*' | wc -l)" = 2 ]; then
    pass "selection ($got)"
  else fail selection "rank 0 ran: $got"; fi
fi
ok_case comm_basic.np4 0 4 -- comm_basic
ok_case intercomm.np4 0 4 -- intercomm
ok_case neighbor.np4 0 4 -- neighbor
ok_case topo_basic.np4 0 4 -- topo_basic

# --- one-sided communication (issue 21): ranks reach each other's heap through the torus alone, so puts
# and gets to MPI_Win_create memory go through the engine into the memory each rank exposed at the
# window's creation (path remote), while accumulates and locks are served by the target's progress;
# PAMIR_WINDOW_DEVICE_RMA=0 serves them all. MPI_Win_allocate memory is mapped: the ranks share a host ---
# Which path: operations by the engine (win.device_rma) and served (win.served) on both ranks.
rma_paths() {
  local e="$work/$1.err" r ok=1
  for r in 0 1; do
    grep -Eq "rank $r win.device_rma $2$" "$e" && grep -Eq "rank $r win.served [1-9]" "$e" || ok=0
  done
  if [ $ok = 1 ]; then pass "$1 ($(tail -1 "$work/$1.out"))"; else
    fail "$1" "paths: $(grep -E 'rank [01] win\.(device_rma|served) ' "$e" | tr '\n' '|')"
  fi
}
if run rma_ops.np2 0 2 PAMIR_STATS=1 -- rma_ops; then rma_paths rma_ops.np2 "[1-9][0-9]*"; fi
if run rma_ops.served 0 2 PAMIR_STATS=1 PAMIR_WINDOW_DEVICE_RMA=0 -- rma_ops; then rma_paths rma_ops.served 0; fi
ok_case rma_ops.np4 0 4 -- rma_ops
ok_case rma_atomic.np3 0 3 -- rma_atomic
ok_case rma_datatypes.np2 0 2 -- rma_datatypes
ok_case rma_errors.np2 0 2 -- rma_errors
# Served packets sent the moment creation returns must find their window (they were dropped while the
# target was still creating it; both settings, since the first packets differ).
ok_case rma_first_op.np2 0 2 -- rma_first_op
ok_case rma_first_op.served 0 3 PAMIR_WINDOW_DEVICE_RMA=0 -- rma_first_op
# Passive target while the target computes: a lock_all taken before, then puts, gets and a flag by put,
# which on MPI_Win_create memory only the engine's RMA can move (rma_passive's other mode locks and
# accumulates: served, it needs the target's calls, a documented limit).
for flavour in allocate create; do
  ok_case "rma_passive.lock_all.$flavour" 0 3 -- rma_passive "$flavour" lock_all
done
# 1,000 windows: each exposure is released at MPI_Win_free. The base-address table has 256 entries, so a
# leak turns later windows to the served path: the 408 MPI_Win_create windows of its 1,020 cycles (its
# MPI_Win_allocate ones are mapped: one host) move 1,632 puts and gets by the engine, a leak 1,024.
if run rma_leak.np2 0 2 PAMIR_STATS=1 -- rma_leak; then
  n=$(grep -Eo "rank 0 win.device_rma [0-9]+" "$work/rma_leak.np2.err" | awk '{print $NF}')
  if [ "${n:-0}" -ge 1600 ]; then pass "rma_leak.np2 ($(tail -1 "$work/rma_leak.np2.out"); $n by the engine)"
  else fail rma_leak.np2 "only ${n:-0} puts and gets by the engine in 1,000 windows"; fi
fi

# --- record and replay (seed 004): a recorded halo's sends are the engine's to replay; a replay writes
# no descriptor (the same torus.descriptors per rank at 10 and at 200 starts), and every start's data
# arrives (the program checks each) ---
if run replay.10 0 4 PAMIR_STATS=1 -- replay 10 && run replay.200 0 4 PAMIR_STATS=1 -- replay 200; then
  d10=$(grep -o 'rank [0-9]* torus.descriptors [0-9]*' "$work/replay.10.err" | sort)
  d200=$(grep -o 'rank [0-9]* torus.descriptors [0-9]*' "$work/replay.200.err" | sort)
  starts=$(grep -o 'rank [0-9]* pattern.device_starts [0-9]*' "$work/replay.200.err" | awk '{print $NF}' | sort -u | tr '\n' ' ')
  if [ -n "$d10" ] && [ "$d10" = "$d200" ] && [ "$starts" = "200 " ]; then
    pass "replay (200 starts replayed by the engine; descriptors written per rank: $(echo "$d200" | awk '{print $NF}' | tr '\n' ' ')at 10 and at 200 starts)"
  else
    fail replay "descriptors at 10 starts: $(echo "$d10" | tr '\n' '|'); at 200: $(echo "$d200" | tr '\n' '|'); device starts: $starts"
  fi
fi
ok_case replay.2x2x2 0 8 -- --torus 2x2x2 replay 300
# Landings (seed 004's receive side): with a barrier after each exchange, each of the 2 receives of each
# of 100 starts completes from its landing, with no matching, but for the first start's: a neighbour's
# first message may come before the landings are made (pattern.landed 198 to 200 on every rank).
if run replay.landed 0 4 PAMIR_STATS=1 -- replay 100 barrier; then
  landed=$(grep -o 'rank [0-9]* pattern.landed [0-9]*' "$work/replay.landed.err" | awk '{print $NF}' | tr '\n' ' ')
  if [ "$(echo $landed | wc -w)" = 4 ] && echo "$landed" | awk '{ for (i = 1; i <= NF; ++i) if ($i < 198 || $i > 200) exit 1 }'; then
    pass "replay.landed (receives completed from their landings, per rank: $landed of 200)"
  else
    fail replay.landed "pattern.landed per rank: $(grep -o 'rank [0-9]* pattern.landed [0-9]*' "$work/replay.landed.err" | tr '\n' '|')"
  fi
fi

# --- the report: links and ranks the same in every run of a deterministic program ---
if run report.1 0 8 PAMIR_TORUS_REPORT="$work/report.1.json" -- --torus 2x2x2 coll_basic &&
  run report.2 0 8 PAMIR_TORUS_REPORT="$work/report.2.json" -- --torus 2x2x2 coll_basic; then
  if msg=$(python3 - "$work/report.1.json" "$work/report.2.json" <<'EOF'
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
assert a["geometry"]["dims"] == [2, 2, 2] and len(a["links"]) == 8 * 3 * 2, "geometry or links"
assert a["links"] == b["links"], "links differ between runs"
assert a["ranks"] == b["ranks"], "ranks differ between runs"
injected = sum(r["packets_injected"] for r in a["ranks"])
received = sum(r["packets_received"] for r in a["ranks"])
assert injected == received > 0, f"injected {injected}, received {received}"
hops = sum(r["hops"] for r in a["ranks"])
assert hops == sum(l["packets"] for l in a["links"]), "hops and link crossings disagree"
assert a["timing"]["virtual_time_ns"] > 0 and a["timing"]["control_packets"] > 0, "timing"
print(f"{injected} packets, {hops} hops, virtual {a['timing']['virtual_time_ns']} ns")
EOF
  ); then pass "report.deterministic ($msg)"; else fail report.deterministic "$msg"; fi
fi

# --- virtual times repeat: eager messages, one rank a node, where even the engine's own times mostly
# do; the total and every rank's clock the same in both runs (the replay's, below, where they do not) ---
if run vt.1 0 8 PAMIR_SEND_PROTOCOLS=eager PAMIR_TORUS_REPORT="$work/vt.1.json" -- --torus 2x2x2 pt2pt_basic &&
  run vt.2 0 8 PAMIR_SEND_PROTOCOLS=eager PAMIR_TORUS_REPORT="$work/vt.2.json" -- --torus 2x2x2 pt2pt_basic; then
  if msg=$(python3 - "$work/vt.1.json" "$work/vt.2.json" <<'EOF'
import json, sys
a, b = (json.load(open(p))["timing"] for p in sys.argv[1:3])
assert a["virtual_time_ns"] > 0 and len(a["rank_virtual_time_ns"]) == 8, a
assert a["virtual_time_ns"] == b["virtual_time_ns"], (a["virtual_time_ns"], b["virtual_time_ns"])
assert a["rank_virtual_time_ns"] == b["rank_virtual_time_ns"], (a["rank_virtual_time_ns"], b["rank_virtual_time_ns"])
print(f"virtual {a['virtual_time_ns']} ns in both runs, every rank's clock equal")
EOF
  ); then pass "report.virtual_time ($msg)"; else fail report.virtual_time "$msg"; fi
fi

# --- virtual times repeat where the engine's order of taking descriptors changes from run to run: the
# replay after the run (devices/torus/replay.h) times every transfer again in the order of its stamp.
# vt_mix.c has the three such orders: a 1 MiB broadcast's remote gets sharing their owners' links, a
# nonblocking allreduce running beside a ring of large messages, and (at 16 ranks on 2x2x2) two ranks a
# node sharing its links. Three runs each: the total and every rank's clock the same in all. ---
for np in 8 16; do
  reports=()
  for i in 1 2 3; do
    run "vt_mix.$np.$i" 0 "$np" PAMIR_TORUS_REPORT="$work/vt_mix.$np.$i.json" -- --torus 2x2x2 vt_mix &&
      reports+=("$work/vt_mix.$np.$i.json")
  done
  [ ${#reports[@]} = 3 ] || continue
  if msg=$(python3 - "${reports[@]}" <<'EOF'
import json, sys
runs = [json.load(open(p))["timing"] for p in sys.argv[1:]]
for t in runs:
    assert t["virtual_time_from"] == "replay", t.get("replay_failed", t["virtual_time_from"])
    assert t["virtual_time_ns"] > 0 and t["transfers"] > 0, t
first = runs[0]
for t in runs[1:]:
    assert t["virtual_time_ns"] == first["virtual_time_ns"], [r["virtual_time_ns"] for r in runs]
    assert t["rank_virtual_time_ns"] == first["rank_virtual_time_ns"], [r["rank_virtual_time_ns"] for r in runs]
online = sorted(set(r["online_virtual_time_ns"] for r in runs))
print(f"replayed {first['virtual_time_ns']} ns in all three runs (the engine's own: {online})")
EOF
  ); then pass "report.replay.$np ($msg)"; else fail "report.replay.$np" "$msg"; fi
done

# --- faults: a link down is routed round (the report shows it), a dropping link fails what it carried ---
if run fault.down 0 8 PAMIR_TORUS_FAULT="down:0,0,0:A+" PAMIR_TORUS_REPORT="$work/fault.json" -- --torus 2x2x2 coll_basic; then
  if msg=$(python3 - "$work/fault.json" <<'EOF'
import json, sys
r = json.load(open(sys.argv[1]))
down = [l for l in r["links"] if l.get("down")]
assert len(down) == 1 and down[0]["coords"] == [0, 0, 0] and down[0]["dim"] == "A" and down[0]["dir"] == "+", down
assert down[0]["packets"] == 0, down
assert r["faults"]["rerouted_packets"] > 0, r["faults"]
print(f"{r['faults']['rerouted_packets']} packets rerouted round (0,0,0) A+")
EOF
  ); then pass "fault.down ($msg)"; else fail fault.down "$msg"; fi
fi
# Two links of one A ring down, in opposite directions: rerouted packets of different dimension orders
# deadlocked the ordinary channels before the escape channel (the network's unit test shows that case);
# here the collectives run over it on 4x4, every check passes, and the two links carry nothing.
if run fault.escape 0 16 PAMIR_TORUS_FAULT="down:1,0:A+;down:0,0:A-" PAMIR_TORUS_REPORT="$work/escape.json" \
  -- --torus 4x4 coll_basic; then
  if msg=$(python3 - "$work/escape.json" "$work/fault.escape.out" <<'EOF'
import json, sys
r = json.load(open(sys.argv[1]))
down = sorted((tuple(l["coords"]), l["dim"], l["dir"], l["packets"]) for l in r["links"] if l.get("down"))
assert down == [((0, 0), "A", "-", 0), ((1, 0), "A", "+", 0)], down
assert r["faults"]["rerouted_packets"] > 0, r["faults"]
out = open(sys.argv[2]).read()
assert " 0 failed" in out, out[-300:]
print(f"{r['faults']['rerouted_packets']} packets on the escape channel; {out.strip().splitlines()[-1]}")
EOF
  ); then pass "fault.escape ($msg)"; else fail fault.escape "$msg"; fi
fi
# The heat maps of that report (where fault.down ran): one PNG per pair of dimensions, each a real image.
out="" msg=""
if ! wanted fault.down; then
  :
elif out=$("$prefix/bin/pamir_torus_plot" "$work/fault.json" -o "$work/fault" 2>&1) &&
  msg=$(/usr/bin/python3 - "$work"/fault-AB.png "$work"/fault-AC.png "$work"/fault-BC.png <<'EOF'
import sys
import matplotlib.image as mpimg
for path in sys.argv[1:]:
    img = mpimg.imread(path)
    assert img.shape[0] > 200 and img.shape[1] > 400, (path, img.shape)
    assert img[..., :3].std() > 0.05, (path, "a blank image")
print(f"{len(sys.argv) - 1} PNGs")
EOF
  ); then
  pass "plot ($msg: $(echo "$out" | tr '\n' ' '))"
else
  fail plot "$out $msg"
fi
# Every packet over (0) A+ dropped: rank 0's first message to rank 1 is lost, and the job ends with
# errors that name the link and the loss, not at mpirun's timeout. Which rank ends it first (rank 1 on
# its lost message, exit 1, or rank 0 on a failed rendezvous read, exit 16) is a matter of timing.
built rdv
PAMIR_TORUS_FAULT="drop:0:A+:1:3" PAMIR_SEND_PROTOCOLS=immediate:64,eager:100,rdma \
  "$mpirun" --timeout 120 -n 2 "$work/rdv" >"$work/fault.drop.out" 2>"$work/fault.drop.err"
rc=$?
# A failed read (exit 16) also names its link in the rank's own error.
if { [ "$rc" = 1 ] || [ "$rc" = 16 ]; } && grep -q "dropped on link (0) A+" "$work/fault.drop.err" &&
  grep -Eq "Link has been severed|its message is lost" "$work/fault.drop.err" &&
  { [ "$rc" = 1 ] || grep -Eq "rank [01]: torus device: .* dropped on link \(0\) A\+" "$work/fault.drop.err"; }; then
  pass "fault.drop (exit $rc; $(grep -m1 'dropped on link' "$work/fault.drop.err" | cut -c1-100))"
else
  fail fault.drop "exit $rc; stderr: $(tail -4 "$work/fault.drop.err" | tr '\n' '|')"
fi
if run fault.bad 1 2 PAMIR_TORUS_FAULT="down:0:Q+" -- pt2pt_basic; then
  if grep -q 'PAMIR_TORUS_FAULT="down:0:Q+" is not valid' "$work/fault.bad.err"; then pass fault.bad
  else fail fault.bad "$(head -2 "$work/fault.bad.err" | tr '\n' '|')"; fi
fi

# --- what the user gets wrong: a clear error naming the setting, and nothing started ---
if run errors.torus_option 1 6 -- --torus 4x4 pt2pt_basic; then
  if grep -q -- '--torus="4x4" has 16 nodes, which does not fit a job of 6 ranks' "$work/errors.torus_option.err"; then
    pass errors.torus_option
  else fail errors.torus_option "$(head -2 "$work/errors.torus_option.err" | tr '\n' '|')"; fi
fi
if run errors.dims 1 4 PAMIR_TORUS_DIMS=3x3 -- pt2pt_basic; then
  if grep -q 'PAMIR_TORUS_DIMS="3x3"' "$work/errors.dims.err"; then pass errors.dims
  else fail errors.dims "$(head -2 "$work/errors.dims.err" | tr '\n' '|')"; fi
fi
if run errors.map 1 4 PAMIR_TORUS_MAP=AXT -- pt2pt_basic; then
  if grep -q 'PAMIR_TORUS_MAP="AXT" is not valid' "$work/errors.map.err"; then pass errors.map
  else fail errors.map "$(head -2 "$work/errors.map.err" | tr '\n' '|')"; fi
fi
for bad in PAMIR_TORUS_LINK_MBPS=0 PAMIR_TORUS_HOP_NS=2000000; do
  if run "errors.${bad%%=*}" 1 2 "$bad" -- pt2pt_basic; then
    if grep -q "$bad is not valid" "$work/errors.${bad%%=*}.err"; then pass "errors.${bad%%=*}"
    else fail "errors.${bad%%=*}" "$(head -2 "$work/errors.${bad%%=*}.err" | tr '\n' '|')"; fi
  fi
done
if out=$("$prefix/bin/pamir_info" --torus 64 2>&1) && echo "$out" | grep -q '^Torus for 64 ranks: 4x4x4 ' &&
  echo "$out" | grep -q '^    63    63  (3,3,3, 0)$'; then
  pass "pamir_info.torus ($(echo "$out" | head -1))"
else
  fail pamir_info.torus "$(echo "$out" | head -3 | tr '\n' '|')"
fi

# --- which engine runs: the one beside the library (its ../bin), so a copied prefix runs its own; one
# that cannot be run fails every rank's MPI_Init at once, saying why, and leaves no area ---
reloc=$work/relocated
mkdir -p "$reloc/bin"
cp -a "$prefix/lib" "$reloc/lib"
cp -a "$prefix/bin/pamir_torus_engine" "$reloc/bin/"
if run engine.relocated 0 4 LD_LIBRARY_PATH="$reloc/lib" -- pt2pt_basic; then
  pass "engine.relocated ($(tail -1 "$work/engine.relocated.out"))"
fi
printf 'not a program\n' >"$reloc/bin/pamir_torus_engine"
start=$(date +%s)
if run engine.unrunnable 1 4 LD_LIBRARY_PATH="$reloc/lib" -- pt2pt_basic; then
  took=$(($(date +%s) - start))
  if grep -q "the torus engine failed: cannot run $reloc/lib/../bin/pamir_torus_engine: Exec format error" \
    "$work/engine.unrunnable.err" && [ "$took" -lt 15 ] && ! ls /dev/shm/pamir-*-torus >/dev/null 2>&1; then
    pass "engine.unrunnable (${took}s: $(grep -m1 -o 'the torus engine failed: cannot run [^:]*' "$work/engine.unrunnable.err" | cut -c1-60)...)"
  else
    fail engine.unrunnable "${took}s; left: $(ls /dev/shm/pamir-*-torus 2>/dev/null); $(head -3 "$work/engine.unrunnable.err" | tr '\n' '|')"
  fi
fi

# --- deaths: a rank's ends the job and the engine with it; the engine's ends the job with a message ---
leftovers() {
  local left=""
  pgrep -f "$work/" >/dev/null && left="processes: $(pgrep -af "$work/" | head -3 | tr '\n' ' ')"
  pgrep -f "pamir_torus_engine /dev/shm/pamir-$(id -u)-pamir-$1-" >/dev/null && left="$left the engine"
  ls /dev/shm/pamir-"$(id -u)"-pamir-"$1"-* >/dev/null 2>&1 && left="$left shm: $(ls /dev/shm/pamir-"$(id -u)"-pamir-"$1"-* | head -3 | tr '\n' ' ')"
  echo "$left"
}
built die
"$mpirun" --timeout 60 -n 4 "$work/die" kill >"$work/die.out" 2>"$work/die.err" &
job=$!
wait "$job"
rc=$?
sleep 0.5
left=$(leftovers "$job")
if [ "$rc" = 137 ] && grep -q "rank 1" "$work/die.err" && [ -z "$left" ]; then
  pass "die (exit $rc, $(grep -m1 "rank 1" "$work/die.err" | cut -c1-100))"
else
  fail die "exit $rc; left: $left; stderr: $(tail -3 "$work/die.err" | tr '\n' '|')"
fi
# The engine killed while the ranks wait in a long exchange: each rank notices it in its next sleep.
built pt2pt_order
"$mpirun" --timeout 60 -n 2 "$work/pt2pt_order" >"$work/engine_death.out" 2>"$work/engine_death.err" &
job=$!
for _ in $(seq 50); do
  pgrep -f "pamir_torus_engine /dev/shm/pamir-$(id -u)-pamir-$job-" >/dev/null && break
  sleep 0.1
done
pkill -KILL -f "pamir_torus_engine /dev/shm/pamir-$(id -u)-pamir-$job-"
wait "$job"
rc=$?
sleep 0.5
left=$(leftovers "$job")
if [ "$rc" != 0 ] && [ "$rc" != 124 ] && grep -q "the torus engine (pid [0-9]*) ended" "$work/engine_death.err" &&
  [ -z "$left" ]; then
  pass "engine_death (exit $rc: $(grep -m1 'torus engine' "$work/engine_death.err" | cut -c1-110))"
else
  fail engine_death "exit $rc; left: $left; stderr: $(tail -3 "$work/engine_death.err" | tr '\n' '|')"
fi

left=$(ls /dev/shm/pamir-"$(id -u)"-* 2>/dev/null | head -3 | tr '\n' ' ')
if [ -z "$left" ]; then pass "no /dev/shm files left"; else fail "no /dev/shm files left" "$left"; fi
# No engine of the suite's jobs still runs (mpirun, their subreaper, waits for them before it exits).
engines=$(pgrep -af "pamir_torus_engine /dev/shm/pamir-$(id -u)-pamir-" | head -3)
if [ -n "$engines" ]; then fail "no engine left" "$engines"; else pass "no engine left"; fi

echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
