#!/bin/bash
# Tests of mpirun against the PMIx test client (test/launcher/pmix_client.c), and of what a Pamir
# program does when a launcher that speaks no PMIx starts it (MPICH's hydra, srun without pmix).
#
#   test/launcher/run.sh [MPIRUN [PMIX_CLIENT [MPICC]]]
#
# Defaults: $MPIRUN or tools/mpirun/mpirun, $PMIX_CLIENT or test/launcher/pmix_client (relative to the
# build directory, where `make check` runs it), $PAMIR_MPICC or the mpicc beside mpirun (in the build
# tree tools/mpicc, the installed wrapper's twin: it needs Pamir installed in its prefix). The one
# program compiled with it runs against the build tree's library when there is one, so `make check`
# tests what was just built, not an older install. MPICH's mpiexec comes from Debian's mpich package,
# installed with apt-get when missing (as root; never with PAMIR_NO_APT=1).
# Prints one line per case, "PASS name" or "FAIL name: why" ("SKIP name: why", counted as neither,
# when a case cannot run here), then "N passed, N failed"; exits non-zero if any case failed. Time
# never decides a case except through generous bounds (a dead rank must end the job within 10 s); the
# measured times are printed on the PASS lines.

MPIRUN=${1:-${MPIRUN:-tools/mpirun/mpirun}}
CLIENT=${2:-${PMIX_CLIENT:-test/launcher/pmix_client}}
MPICC=${3:-${PAMIR_MPICC:-}}
for f in "$MPIRUN" "$CLIENT"; do
  if [ ! -x "$f" ]; then
    echo "run.sh: $f not found or not executable (build first, or pass MPIRUN and PMIX_CLIENT)" >&2
    exit 2
  fi
done
MPIRUN=$(cd "$(dirname "$MPIRUN")" && pwd)/$(basename "$MPIRUN")
CLIENT=$(cd "$(dirname "$CLIENT")" && pwd)/$(basename "$CLIENT")

WORK=$(mktemp -d "${TMPDIR:-/tmp}/pamir-launcher-test.XXXXXX")
# PAMIR_TEST_KEEP=1 keeps the outputs of every case for a look.
[ -n "$PAMIR_TEST_KEEP" ] || trap 'rm -rf "$WORK"' EXIT
TMPDIRS="/tmp ${TMPDIR:-/tmp}"
dstor_before=$(ls -d $TMPDIRS/pmix_dstor_* 2>/dev/null | sort -u)
shm_files() { (shopt -s nullglob; for f in /dev/shm/pamir-*; do echo "${f#/dev/shm/}"; done) | sort; }
shm_before=$(shm_files)
unset MPIEXEC_TIMEOUT
passed=0
failed=0
pass() { echo "PASS $1${2:+ ($2)}"; passed=$((passed + 1)); }
fail() { echo "FAIL $1: $2"; failed=$((failed + 1)); }
skip() { echo "SKIP $1: $2"; }

now() { date +%s.%N; }
elapsed() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.2f", b - a }'; }
# marker NAME: a unique argument that finds this case's processes with pgrep -f.
marker() { echo "pamirtest-$$-$1"; }
# leftovers MARKER: processes of the case still alive, waiting up to 2 s for them to go.
leftovers() {
  for _ in $(seq 20); do
    pgrep -f -- "$1" >/dev/null || return 1
    sleep 0.1
  done
  pgrep -fa -- "$1" | head -3 | tr '\n' ';'
  pkill -9 -f -- "$1"
  return 0
}

# launch NAME ARGS...: runs mpirun with a 60 s safety net; sets rc, secs, out, err (file names).
launch() {
  local name=$1
  shift
  out=$WORK/$name.out
  err=$WORK/$name.err
  local t0
  t0=$(now)
  timeout -s KILL 60 "$MPIRUN" "$@" >"$out" 2>"$err" </dev/null
  rc=$?
  secs=$(elapsed "$t0")
}
mpirun_lines() { grep -c '^mpirun:' "$err"; }

# --- normal runs ------------------------------------------------------------------------------
case_ok() {
  local n=$1 name="ok-$1-ranks" m
  m=$(marker "$name")
  launch "$name" -n "$n" "$CLIENT" "$m" ok
  local good
  good=$(grep -cE "^rank [0-9]+ of $n ok$" "$out")
  if [ "$rc" != 0 ]; then fail "$name" "exit code $rc: $(head -3 "$err" | tr '\n' ' ')"
  elif [ "$good" != "$n" ]; then fail "$name" "$good of $n ranks reported ok"
  elif [ -s "$err" ]; then fail "$name" "unexpected stderr: $(head -2 "$err" | tr '\n' ' ')"
  elif leftovers "$m" >/dev/null; then fail "$name" "processes left behind"
  else pass "$name" "$secs s"
  fi
}
case_ok 1
case_ok 4

name=launch-4-true
t0=$(now)
best=99
for _ in 1 2 3; do
  t0=$(now)
  "$MPIRUN" -n 4 /bin/true </dev/null >/dev/null 2>"$WORK/true.err"
  rc=$?
  t=$(elapsed "$t0")
  best=$(awk -v a="$best" -v b="$t" 'BEGIN { print (b < a) ? b : a }')
  [ "$rc" = 0 ] || break
done
if [ "$rc" != 0 ]; then fail $name "exit code $rc"
elif awk -v t="$best" 'BEGIN { exit !(t >= 2.0) }'; then fail $name "took $best s (bound 2 s)"
else pass $name "best of 3: $best s"
fi

# --- a rank that fails ends the job --------------------------------------------------------------
# check_death NAME WANT_RC REGEX MARKER: one mpirun line matching REGEX, exit code, time, leftovers.
check_death() {
  local name=$1 want=$2 regex=$3 m=$4 lines
  lines=$(mpirun_lines)
  if [ "$rc" != "$want" ]; then fail "$name" "exit code $rc, expected $want: $(head -3 "$err" | tr '\n' ' ')"
  elif ! grep -qE "$regex" "$err"; then fail "$name" "no line like '$regex' in: $(head -3 "$err" | tr '\n' ' ')"
  elif [ "$lines" != 1 ]; then fail "$name" "$lines mpirun lines, expected one: $(tr '\n' ' ' <"$err")"
  elif awk -v t="$secs" 'BEGIN { exit !(t >= 10) }'; then fail "$name" "the job took $secs s to end"
  elif left=$(leftovers "$m"); then fail "$name" "processes left behind: $left"
  else return 0
  fi
  return 1
}

name=rank-sigkill
m=$(marker $name)
launch $name -n 4 "$CLIENT" "$m" kill 2
pid=$(sed -n 's/^rank 2 pid \([0-9]*\)$/\1/p' "$out")
shm=$(sed -n 's/^shm //p' "$out")
if check_death $name 137 "^mpirun: rank 2 \\(pid $pid\\) killed by signal 9 \\(Killed\\); ending the job$" "$m"; then
  if [ -z "$shm" ]; then fail $name "the client did not create its shared-memory file"
  elif [ -e "$shm" ]; then fail $name "$shm left behind"
  else pass $name "job ended in $secs s"
  fi
fi
rm -f "$shm"

name=rank-exit-before-finalize
m=$(marker $name)
launch $name -n 4 "$CLIENT" "$m" nofin 1 3
check_death $name 3 '^mpirun: rank 1 \(pid [0-9]+\) exited with code 3 before MPI_Finalize; ending the job$' "$m" &&
  pass $name "job ended in $secs s"

name=rank-exit-0-before-finalize
m=$(marker $name)
launch $name -n 3 "$CLIENT" "$m" nofin 2 0
check_death $name 1 '^mpirun: rank 2 \(pid [0-9]+\) exited with code 0 before MPI_Finalize; ending the job$' "$m" &&
  pass $name "job ended in $secs s"

name=rank-exit-nonzero-after-finalize
m=$(marker $name)
launch $name -n 4 "$CLIENT" "$m" exit 3 5
check_death $name 5 '^mpirun: rank 3 \(pid [0-9]+\) exited with code 5; ending the job$' "$m" &&
  pass $name "job ended in $secs s"

name=mpi-abort
m=$(marker $name)
launch $name -n 4 "$CLIENT" "$m" abort 1 7
check_death $name 7 '^mpirun: rank 1 called MPI_Abort with code 7: test abort from rank 1$' "$m" &&
  pass $name "job ended in $secs s"

name=non-mpi-program-signal
launch $name -n 2 /bin/sh -c 'kill -SEGV $$'
if [ "$rc" != 139 ]; then fail $name "exit code $rc, expected 139"
elif ! grep -qE '^mpirun: rank [01] \(pid [0-9]+\) killed by signal 11 \(Segmentation fault\); ending the job$' "$err"; then
  fail $name "unexpected stderr: $(tr '\n' ' ' <"$err")"
else pass $name
fi

name=non-mpi-program-exit-code
launch $name -n 2 /bin/sh -c 'exit 9'
if [ "$rc" != 9 ]; then fail $name "exit code $rc, expected 9"
elif ! grep -qE '^mpirun: rank [01] \(pid [0-9]+\) exited with code 9; ending the job$' "$err"; then
  fail $name "unexpected stderr: $(tr '\n' ' ' <"$err")"
else pass $name
fi

# --- time limits ---------------------------------------------------------------------------------
name=timeout-option
m=$(marker $name)
launch $name --timeout 2 -n 3 "$CLIENT" "$m" hang
if check_death $name 124 '^mpirun: job timed out after 2 s' "$m"; then
  if awk -v t="$secs" 'BEGIN { exit !(t < 1.9) }'; then fail $name "ended after $secs s, before the limit"
  else pass $name "job ended in $secs s"
  fi
fi

name=timeout-env
m=$(marker $name)
MPIEXEC_TIMEOUT=1 launch $name -n 2 "$CLIENT" "$m" hang
check_death $name 124 '^mpirun: job timed out after 1 s' "$m" && pass $name "job ended in $secs s"

# --- signals ---------------------------------------------------------------------------------------
# signal_case NAME SIGNAL: mpirun receives SIGNAL while 3 ranks wait; every rank must see it.
signal_case() {
  local name=$1 sig=$2 m dir pid
  m=$(marker "$name")
  dir=$WORK/$name.d
  mkdir -p "$dir"
  out=$WORK/$name.out
  err=$WORK/$name.err
  # A background job of a script starts with SIGINT ignored; give mpirun the default back.
  env --default-signal=INT "$MPIRUN" -n 3 "$CLIENT" "$m" term "$dir" >"$out" 2>"$err" </dev/null &
  pid=$!
  for _ in $(seq 100); do
    [ "$(grep -c ready "$out")" = 3 ] && break
    sleep 0.1
  done
  local t0
  t0=$(now)
  kill -"$sig" $pid
  wait $pid
  rc=$?
  secs=$(elapsed "$t0")
  local want=$((128 + $(kill -l "$sig")))
  local got
  got=$(find "$dir" -name 'term.*' | wc -l)
  if [ "$rc" != "$want" ]; then fail "$name" "exit code $rc, expected $want: $(tr '\n' ' ' <"$err")"
  elif [ "$got" != 3 ]; then fail "$name" "$got of 3 ranks saw the signal"
  elif ! grep -q "^mpirun: received signal $(kill -l "$sig")" "$err"; then fail "$name" "no message: $(tr '\n' ' ' <"$err")"
  elif left=$(leftovers "$m"); then fail "$name" "processes left behind: $left"
  else pass "$name" "job ended in $secs s"
  fi
}
# The client's handler creates a file on SIGTERM; for the other signals mpirun forwards the same
# signal, whose default action ends the rank, so check those through the exit instead.
signal_case sigterm-to-mpirun TERM

name=sigint-to-mpirun
m=$(marker $name)
env --default-signal=INT "$MPIRUN" -n 3 "$CLIENT" "$m" hang >"$WORK/$name.out" 2>"$WORK/$name.err" </dev/null &
pid=$!
sleep 0.5
t0=$(now)
kill -INT $pid
wait $pid
rc=$?
secs=$(elapsed "$t0")
if [ "$rc" != 130 ]; then fail $name "exit code $rc, expected 130: $(tr '\n' ' ' <"$WORK/$name.err")"
elif left=$(leftovers "$m"); then fail $name "processes left behind: $left"
else pass $name "job ended in $secs s"
fi

name=mpirun-sigkilled
m=$(marker $name)
"$MPIRUN" -n 3 "$CLIENT" "$m" hang >/dev/null 2>&1 </dev/null &
pid=$!
for _ in $(seq 50); do
  [ "$(pgrep -fc -- "$m")" -ge 4 ] && break
  sleep 0.1
done
sleep 0.2
{
  kill -KILL $pid
  wait $pid
} 2>/dev/null  # no "Killed" notice from bash
if left=$(leftovers "$m"); then fail $name "ranks survived mpirun: $left"
else pass $name
fi

# --- environment, output, input ---------------------------------------------------------------------
name=export-x
m=$(marker $name)
PAMIR_T_FROM_ENV=inherited launch $name -n 2 -x PAMIR_T_SET=hello -x PAMIR_T_FROM_ENV -x "PAMIR_T_EQ=a=b c" \
  "$CLIENT" "$m" env PAMIR_T_SET PAMIR_T_FROM_ENV PAMIR_T_EQ
ok=1
for r in 0 1; do
  grep -qx "rank $r PAMIR_T_SET=hello" "$out" || ok=0
  grep -qx "rank $r PAMIR_T_FROM_ENV=inherited" "$out" || ok=0
  grep -qx "rank $r PAMIR_T_EQ=a=b c" "$out" || ok=0
done
if [ "$rc" != 0 ]; then fail $name "exit code $rc"
elif [ $ok != 1 ]; then fail $name "got: $(tr '\n' ';' <"$out")"
else pass $name
fi

name=export-x-unset-warns
launch $name -n 1 -x PAMIR_T_SURELY_UNSET "$CLIENT" x env PAMIR_T_SURELY_UNSET
if [ "$rc" != 0 ]; then fail $name "exit code $rc"
elif ! grep -q "warning: -x PAMIR_T_SURELY_UNSET" "$err"; then fail $name "no warning"
elif ! grep -qx "rank 0 PAMIR_T_SURELY_UNSET=(unset)" "$out"; then fail $name "got: $(cat "$out")"
else pass $name
fi

# MPICH's -genv NAME VALUE (every application) and -env NAME VALUE (this one), and -wdir, per application
# after ':' (the first application keeps mpirun's directory).
name=genv-env
m=$(marker $name)
mkdir -p "$WORK/app1-dir"
app1_dir=$(cd "$WORK/app1-dir" && pwd -P)
launch $name -n 1 -genv PAMIR_T_G all -env PAMIR_T_E first "$CLIENT" "$m" env PAMIR_T_G PAMIR_T_E : \
  -n 1 -env PAMIR_T_E second -wdir "$app1_dir" "$CLIENT" "$m" env PAMIR_T_G PAMIR_T_E PWD
if [ "$rc" != 0 ]; then fail $name "exit code $rc: $(head -2 "$err" | tr '\n' ' ')"
elif [ "$(sort "$out" | tr '\n' ';')" != "rank 0 PAMIR_T_E=first;rank 0 PAMIR_T_G=all;rank 1 PAMIR_T_E=second;rank 1 PAMIR_T_G=all;rank 1 PWD=$app1_dir;" ]; then
  fail $name "got: $(tr '\n' ';' <"$out")"
else pass $name
fi

# -wdir: the ranks start there (their PWD says so), a relative program is still mpirun's.
name=wdir
m=$(marker $name)
mkdir -p "$WORK/wdir-here"
(cd "$(dirname "$CLIENT")" && launch $name -n 2 -wdir "$WORK/wdir-here" "./$(basename "$CLIENT")" "$m" env PWD)
here=$(cd "$WORK/wdir-here" && pwd -P)
out=$WORK/$name.out err=$WORK/$name.err
if [ "$(grep -cxF -e "rank 0 PWD=$here" -e "rank 1 PWD=$here" "$out")" != 2 ]; then
  fail $name "got: $(tr '\n' ';' <"$out") $(head -2 "$err" | tr '\n' ' ')"
else pass $name
fi

# A host list of this machine gives the slots, which the job fills without -n.
printf '# this machine\nlocalhost slots=2\n%s slots=1 max_slots=4\n' "$(hostname)" >"$WORK/hosts"
for how in "-H localhost:2,localhost" "--hostfile $WORK/hosts"; do
  name="hosts-fill${how%% *}"
  m=$(marker "$name")
  # shellcheck disable=SC2086
  launch "$name" $how "$CLIENT" "$m" ok
  if [ "$rc" != 0 ]; then fail "$name" "exit code $rc: $(head -2 "$err" | tr '\n' ' ')"
  elif [ "$(grep -c '^rank [0-2] of 3 ok$' "$out")" != 3 ]; then fail "$name" "got: $(tr '\n' ';' <"$out")"
  else pass "$name"
  fi
done

# check_lines NAME TAGGED: 3 ranks x 20 lines of 2000+ characters on each stream, written in pieces.
check_lines() {
  local name=$1 tagged=$2 bad
  bad=$(awk -v tagged="$tagged" -v stream=stdout -f - "$out" <<'EOF'
    {
      line = $0
      if (tagged) {
        if (!match(line, /^\[1,[0-9]+\]<[a-z]+>:/)) { print "untagged: " substr(line, 1, 60); next }
        tag = substr(line, 1, RLENGTH); line = substr(line, RLENGTH + 1)
        split(tag, t, /[\[,\]<>]/)
      }
      if (split(line, f, " ") != 5 || f[1] != (stream == "stdout" ? "rank" : "Rank")) { print "mangled: " substr(line, 1, 60); next }
      r = f[2]
      if (tagged && (t[3] != r || t[5] != stream)) { print "wrong tag: " tag " on rank " r; next }
      if (length(f[5]) != 2000) { print "cut line: rank " r " line " f[4]; next }
      for (k = 0; k < 2000; k += 250)
        if (substr(f[5], k + 1, 1) != sprintf("%c", 97 + (r + k) % 26)) { print "mixed line: rank " r; next }
      n[r]++
    }
    END { for (r = 0; r < 3; r++) if (n[r] != 20) print "rank " r ": " n[r] + 0 " lines" }
EOF
)
  local bad_err
  bad_err=$(awk -v tagged="$tagged" '
    { line = $0
      if (tagged) { if (!match(line, /^\[1,[0-9]+\]<stderr>:Rank [0-9]+ line /)) { print "bad: " substr(line, 1, 60) } }
      else if (line !~ /^Rank [0-9]+ line [0-9]+ [a-z]+$/ || length(line) < 2010) { print "bad: " substr(line, 1, 60) } }
    END { if (NR != 60) print NR " stderr lines" }' "$err")
  if [ "$rc" != 0 ]; then fail "$name" "exit code $rc"
  elif [ -n "$bad" ]; then fail "$name" "stdout: $(echo "$bad" | head -2 | tr '\n' ';')"
  elif [ -n "$bad_err" ]; then fail "$name" "stderr: $(echo "$bad_err" | head -2 | tr '\n' ';')"
  else pass "$name"
  fi
}
launch tag-output --tag-output -n 3 "$CLIENT" x lines 20
check_lines tag-output 1
launch whole-lines -n 3 "$CLIENT" x lines 20
check_lines whole-lines 0

name=stdin-to-rank-0
out=$WORK/$name.out
printf 'line one\nline two\n' | timeout -s KILL 60 "$MPIRUN" -n 3 "$CLIENT" x stdin >"$out" 2>"$WORK/$name.err"
rc=$?
if [ "$rc" != 0 ]; then fail $name "exit code $rc"
elif ! grep -qx "rank 0 stdin bytes=18 lines=2 first=line one" "$out"; then fail $name "rank 0: $(grep '^rank 0' "$out")"
elif [ "$(grep -c 'stdin bytes=0 lines=0 first=$' "$out")" != 2 ]; then fail $name "other ranks: $(tr '\n' ';' <"$out")"
else pass $name
fi

# --- binding ----------------------------------------------------------------------------------------
allowed=$(awk '/^Cpus_allowed_list/ { print $2 }' /proc/self/status)
launch bind-none --bind-to none -n 2 "$CLIENT" x bind
if [ "$rc" != 0 ]; then fail bind-none "exit code $rc"
elif [ "$(grep -c "list=$allowed\$" "$out")" != 2 ] && [ "$(grep -c "cpus=$(nproc)" "$out")" != 2 ]; then
  fail bind-none "ranks restricted: $(tr '\n' ';' <"$out")"
else pass bind-none
fi
launch bind-core --bind-to core -n 2 "$CLIENT" x bind
l0=$(sed -n 's/^rank 0 cpus=[0-9]* list=//p' "$out")
l1=$(sed -n 's/^rank 1 cpus=[0-9]* list=//p' "$out")
if [ "$rc" != 0 ]; then fail bind-core "exit code $rc"
elif [ "$(nproc)" -ge 2 ] && [ "$l0" = "$l1" ]; then fail bind-core "both ranks on $l0 ($(nproc) cpus)"
elif [ "$(nproc)" -ge 2 ] && [ "$l0" = "$allowed" ]; then fail bind-core "rank 0 not bound ($l0)"
else pass bind-core "rank 0 on $l0, rank 1 on $l1"
fi
n=$(($(nproc) + 1))
launch bind-default-oversubscribed -n $n "$CLIENT" x bind
if [ "$rc" != 0 ]; then fail bind-default-oversubscribed "exit code $rc"
elif [ "$(grep -c "cpus=$(nproc) " "$out")" != $n ]; then
  fail bind-default-oversubscribed "$n ranks on $(nproc) cpus were bound: $(tr '\n' ';' <"$out")"
else pass bind-default-oversubscribed
fi
# --report-bindings says what each rank then finds in its own affinity mask.
for bind in core none; do
  name=report-bindings-$bind
  launch $name --report-bindings --bind-to $bind -n 2 "$CLIENT" x bind
  bad=""
  for r in 0 1; do
    list=$(sed -n "s/^rank $r cpus=[0-9]* list=//p" "$out")
    if [ $bind = core ]; then want="mpirun: rank $r is bound to CPUs $list"; else want="mpirun: rank $r is not bound"; fi
    grep -qxF "$want" "$err" || bad="$bad rank $r (runs on $list)"
  done
  if [ "$rc" != 0 ]; then fail $name "exit code $rc"
  elif [ -n "$bad" ]; then fail $name "wrong report for$bad: $(tr '\n' ';' <"$err")"
  else pass $name
  fi
done

# The other levels: the report (hwloc's list syntax, ranges expanded) is what each rank finds, and the
# level's meaning shows: a socket (or NUMA node, or L3) binding gives a rank every CPU of its object
# (hwloc-calc, from hwloc-nox), hwthreads and cores of ranks within the core count differ.
expand_list() {  # "0-2,5" -> "0,1,2,5"
  local part out=""
  for part in ${1//,/ }; do
    if [[ $part == *-* ]]; then out="$out$(seq -s, "${part%-*}" "${part#*-}"),"; else out="$out$part,"; fi
  done
  echo "${out%,}"
}
ncpus=$(nproc)
for spec in "hwthread" "core" "socket" "numa" "l3cache" "core --map-by socket" "hwthread --map-by hwthread --rank-by core"; do
  name="bind-to-${spec// /_}"
  launch "$name" --report-bindings --bind-to $spec -n 2 "$CLIENT" x bind
  bad=""
  lists=()
  for r in 0 1; do
    list=$(sed -n "s/^rank $r cpus=[0-9]* list=//p" "$out")
    lists[r]=$list
    reported=$(sed -n "s/^mpirun: rank $r is bound to CPUs //p" "$err")
    [ -n "$reported" ] && [ "$(expand_list "$reported")" = "$list" ] || bad="$bad rank $r runs on '$list', reported '$reported';"
  done
  case $spec in
    socket | numa | l3cache)
      # Every CPU of the object that holds the rank's first CPU, as hwloc sees them (a package may have
      # several L3 caches: this VM's CPUID gives each core its own).
      for r in 0 1; do
        obj=$(hwloc-calc --physical-input --intersect "$spec" "pu:${lists[r]%%,*}" 2>/dev/null)
        want=$(hwloc-calc --physical-output --intersect pu "$spec:${obj:-none}" 2>/dev/null)
        [ -n "$obj" ] && [ "${lists[r]}" = "$want" ] ||
          bad="$bad rank $r runs on '${lists[r]}', but its $spec ${obj:-(hwloc-calc found none)} has '$want';"
      done ;;
    *) [ "$ncpus" -lt 2 ] || [ "${lists[0]}" != "${lists[1]}" ] || bad="$bad two ranks share ${lists[0]};" ;;
  esac
  if [ "$rc" != 0 ]; then fail "$name" "exit code $rc: $(head -2 "$err" | tr '\n' ' ')"
  elif [ -n "$bad" ]; then fail "$name" "$bad"
  else pass "$name"
  fi
done
# --output-filename: each rank's stdout and stderr in DIR/1/rank.N/, none of it on mpirun's.
outdir=$WORK/output-files
launch output-filename --output-filename "$outdir" -n 2 "$CLIENT" x env PMIX_RANK
bad=""
for r in 0 1; do
  grep -q "PMIX_RANK=$r" "$outdir/1/rank.$r/stdout" 2>/dev/null || bad="$bad rank $r's stdout file: $(cat "$outdir/1/rank.$r/stdout" 2>&1 | head -1);"
  [ -f "$outdir/1/rank.$r/stderr" ] || bad="$bad no rank $r stderr file;"
done
[ -s "$out" ] && bad="$bad mpirun printed: $(head -1 "$out");"
if [ "$rc" != 0 ]; then fail output-filename "exit code $rc"
elif [ -n "$bad" ]; then fail output-filename "$bad"
else pass output-filename
fi

# --- errors before anything starts ------------------------------------------------------------------
# usage_case NAME WANT_RC REGEX ARGS...
usage_case() {
  local name=$1 want=$2 regex=$3
  shift 3
  launch "$name" "$@"
  if [ "$rc" != "$want" ]; then fail "$name" "exit code $rc, expected $want"
  elif ! grep -qE -- "$regex" "$out" "$err"; then fail "$name" "no '$regex' in: $(cat "$out" "$err" | head -3 | tr '\n' ' ')"
  else pass "$name"
  fi
}
usage_case bad-bind-level 1 "invalid --bind-to 'board'" --bind-to board -n 1 "$CLIENT" x ok
usage_case map-by-modifier 1 "modifiers after ':' are not supported" --map-by socket:PE=2 -n 1 "$CLIENT" x ok
usage_case output-filename-unwritable 1 "cannot make the output directory /proc/pamir" --output-filename /proc/pamir -n 1 "$CLIENT" x ok
usage_case not-found-in-path 127 "program 'pamir_no_such_program' not found in PATH" -n 2 pamir_no_such_program
usage_case not-found-path 127 "program '/nonexistent/prog' not found" -n 2 /nonexistent/prog
touch "$WORK/not-executable"
usage_case not-executable 126 "program '$WORK/not-executable' cannot be executed" -n 2 "$WORK/not-executable"
usage_case bad-option 1 "unknown option '--bogus'" --bogus -n 2 /bin/true
usage_case bad-count 1 "invalid number of ranks '0'" -n 0 /bin/true
usage_case bad-timeout 1 "invalid --timeout 'soon'" --timeout soon /bin/true
MPIEXEC_TIMEOUT=later usage_case bad-timeout-env 1 "invalid MPIEXEC_TIMEOUT 'later'" -n 1 /bin/true
usage_case no-program 1 "no program given" -n 2
usage_case missing-value 1 "option -n needs" -n
usage_case help 0 "^Usage: mpirun" --help
# MPMD command lines that cannot run, and host lists that name other machines or too few slots.
usage_case mpmd-needs-n 1 "application 1 \\(/bin/true\\) of an MPMD job has no -n" -n 1 /bin/true : /bin/true
usage_case mpmd-job-option 1 "option '--timeout' after ':'" -n 1 /bin/true : -n 1 --timeout 3 /bin/true
usage_case mpmd-no-program 1 "no program given after ':'" -n 1 /bin/true : -n 1
usage_case host-elsewhere 1 "host 'pamir-no-such-host.invalid' is not this machine.*srun --mpi=pmix" \
  -H pamir-no-such-host.invalid:2 /bin/true
usage_case host-too-few-slots 1 "3 ranks, but the host list gives this machine 2 slots" -H localhost:2 -n 3 /bin/true
usage_case host-bad-slots 1 "invalid slot count in host 'localhost:x'" -H localhost:x /bin/true
usage_case hostfile-missing 1 "cannot read hostfile '/nonexistent/hosts'" --hostfile /nonexistent/hosts /bin/true
usage_case wdir-missing 1 "cannot use '/nonexistent/dir' as the working directory" -n 1 -wdir /nonexistent/dir /bin/true
usage_case genv-needs-value 1 "option -genv needs NAME VALUE" -n 1 -genv ONLY_A_NAME
usage_case version 0 "^mpirun \\(Pamir\\)" --version
if [ -x "$(dirname "$MPIRUN")/mpiexec" ]; then
  MPIRUN_SAVED=$MPIRUN
  MPIRUN=$(dirname "$MPIRUN")/mpiexec
  usage_case mpiexec-is-mpirun 0 "^mpirun \\(Pamir\\)" --version
  MPIRUN=$MPIRUN_SAVED
fi

# --- launchers that speak no PMIx ------------------------------------------------------------------
# Started by one, a Pamir program finds no PMIx server. Unless its launcher started it alone, it must
# stop in MPI_Init with a message naming that launcher (every rank: exit code 1), not run as one of N
# unrelated singletons; started by hand, or as the one task of a launcher, it is a singleton.
if [ -z "$MPICC" ]; then
  for c in "$(dirname "$MPIRUN")/mpicc" "$(dirname "$(dirname "$MPIRUN")")/mpicc"; do
    if [ -x "$c" ]; then MPICC=$c && break; fi
  done
fi
# The build tree's library (tools/mpirun/mpirun -> .libs/) before the installed one, when there is one.
BUILD_LIBS=$(cd "$(dirname "$MPIRUN")/../.." && pwd)/.libs
[ -e "$BUILD_LIBS/libmpi_abi.so.1" ] || BUILD_LIBS=""
# Variables by which launchers tell their ranks who they are: none reaches a case but its own.
UNSET_LAUNCHER=()
for v in $(compgen -e | grep -E '^(PMIX|PMI|SLURM|OMPI|HYDI|HYDRA)_'); do UNSET_LAUNCHER+=(-u "$v"); done
PROG=$WORK/mpi_hello
program=""  # why the test program cannot be built here, or empty
if [ -z "$MPICC" ] || [ ! -x "$MPICC" ]; then
  program="no Pamir mpicc beside $MPIRUN (pass one as the third argument)"
else
  libdir=$("$MPICC" -showme:link | tr ' ' '\n' | sed -n 's/^-L//p' | head -1)
  if [ ! -e "$libdir/libmpi_abi.so" ]; then
    program="Pamir is not installed in ${libdir:-the prefix of $MPICC} (make install first)"
  else
    printf '%s\n' '#include <mpi.h>' '#include <stdio.h>' \
      'int main(int argc, char **argv) {' \
      '  int rank, size;' \
      '  MPI_Init(&argc, &argv);' \
      '  MPI_Comm_rank(MPI_COMM_WORLD, &rank);' \
      '  MPI_Comm_size(MPI_COMM_WORLD, &size);' \
      '  printf("rank %d of %d\n", rank, size);' \
      '  MPI_Finalize();' \
      '  return 0;' \
      '}' >"$PROG.c"
    if ! "$MPICC" -o "$PROG" "$PROG.c" 2>"$PROG.build"; then
      fail no-pmix-build "$MPICC: $(head -5 "$PROG.build" | tr '\n' ' ')"
      program="it did not compile"
    fi
  fi
fi

# start NAME [VAR=VALUE ...] -- COMMAND...: COMMAND with no launcher variables but the given ones, and
# a 30 s safety net; sets rc, secs, out, err (file names).
start() {
  local name=$1 vars=() t0
  shift
  while [ "$1" != -- ]; do
    vars+=("$1")
    shift
  done
  shift
  out=$WORK/$name.out
  err=$WORK/$name.err
  [ -n "$BUILD_LIBS" ] && vars=("LD_LIBRARY_PATH=$BUILD_LIBS${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" "${vars[@]}")
  t0=$(now)
  timeout -s KILL 30 env "${UNSET_LAUNCHER[@]}" "${vars[@]}" "$@" >"$out" 2>"$err" </dev/null
  rc=$?
  secs=$(elapsed "$t0")
}
# lit TEXT: TEXT as an extended regular expression that matches only itself.
lit() { printf '%s' "$1" | sed 's/[][\.*^$?+(){}|/]/\\&/g'; }
# expect_stop NAME N REGEX MARKER: each of N processes ended MPI_Init with one line
# "Pamir: MPI_Init: MPI_ERR_OTHER: REGEX" and went no further; the launch failed, in bounded time.
expect_stop() {
  local name=$1 n=$2 regex="^Pamir: MPI_Init: MPI_ERR_OTHER: $3\$" m=$4 got left
  # Lines from different ranks differ (the rank is in them): N distinct lines, one from each.
  got=$(grep -E -- "$regex" "$err" | sort | uniq -u | wc -l)
  left=$(leftovers "$m") || left=""
  if [ "$rc" = 137 ]; then fail "$name" "still running after 30 s: $(head -3 "$err" | tr '\n' ' ')"
  elif [ "$rc" = 0 ]; then fail "$name" "exit code 0; stdout: $(head -3 "$out" | tr '\n' ' ')"
  elif [ "$got" != "$n" ]; then
    fail "$name" "$got of $n processes gave the message; stderr: $(head -3 "$err" | tr '\n' ' ')"
  elif [ -s "$out" ]; then fail "$name" "ran on after MPI_Init: $(head -3 "$out" | tr '\n' ' ')"
  elif awk -v t="$secs" 'BEGIN { exit !(t >= 10) }'; then fail "$name" "took $secs s"
  elif [ -n "$left" ]; then fail "$name" "processes left behind: $left"
  else pass "$name" "exit code $rc in $secs s"
  fi
}
# expect_singleton NAME MARKER: the program ran alone to the end.
expect_singleton() {
  local name=$1 m=$2 left
  left=$(leftovers "$m") || left=""
  if [ "$rc" != 0 ]; then fail "$name" "exit code $rc: $(head -3 "$err" | tr '\n' ' ')"
  elif [ "$(cat "$out")" != "rank 0 of 1" ]; then fail "$name" "stdout: $(head -3 "$out" | tr '\n' ' ')"
  elif [ -s "$err" ]; then fail "$name" "unexpected stderr: $(head -2 "$err" | tr '\n' ' ')"
  elif [ -n "$left" ]; then fail "$name" "processes left behind: $left"
  else pass "$name" "$secs s"
  fi
}
# direct NAME EXPECTED [VAR=VALUE ...]: the program started directly with the variables a launcher
# would have left; EXPECTED is "singleton", or the message (text, not a pattern).
direct() {
  local name=$1 want=$2 m
  shift 2
  m=$(marker "$name")
  start "$name" "$@" -- "$PROG" "$m"
  if [ "$want" = singleton ]; then expect_singleton "$name" "$m"
  else expect_stop "$name" 1 "$(lit "$want")" "$m"
  fi
}

ALONE="would run alone as a separate 1-process MPI job"
PMI_ADVICE="use Pamir's mpirun or a PMIx launcher"
SRUN_ADVICE="run with \`srun --mpi=pmix\`, or with Pamir's mpirun"
if [ -n "$program" ]; then
  skip no-pmix "no test program: $program"
else
  direct singleton-direct singleton
  direct no-pmix-slurm \
    "started by Slurm's srun without PMIx (SLURM_NTASKS=4, SLURM_PROCID=1, SLURM_STEP_ID=0), so each of its 4 processes $ALONE: $SRUN_ADVICE" \
    SLURM_PROCID=1 SLURM_NTASKS=4 SLURM_STEP_ID=0
  # srun --mpi=pmi2 sets PMI_* too, and Slurm's advice is the better one. Rank 0 of 2 stops as well.
  direct no-pmix-slurm-pmi2-rank-0 \
    "started by Slurm's srun without PMIx (SLURM_STEP_NUM_TASKS=2, SLURM_PROCID=0, SLURM_STEP_ID=7, SLURM_MPI_TYPE=pmi2), so each of its 2 processes $ALONE: $SRUN_ADVICE" \
    SLURM_STEP_ID=7 SLURM_PROCID=0 SLURM_STEP_NUM_TASKS=2 SLURM_NTASKS=2 SLURM_MPI_TYPE=pmi2 PMI_FD=9 PMI_RANK=0 PMI_SIZE=2
  # PMIX_* variables left over from elsewhere, with no server behind them (a refused port on 127.0.0.1).
  direct no-pmix-slurm-stale-pmix-variables \
    "started by Slurm's srun without PMIx (SLURM_NTASKS=3, SLURM_PROCID=2, SLURM_STEP_ID=0), so each of its 3 processes $ALONE: $SRUN_ADVICE" \
    PMIX_NAMESPACE=stale PMIX_RANK=0 "PMIX_SERVER_URI41=stale.0;tcp4://127.0.0.1:1" SLURM_PROCID=2 SLURM_NTASKS=3 SLURM_STEP_ID=0
  # hydra whose proxies srun started on the nodes of an allocation: it is hydra that started the rank.
  direct no-pmix-hydra-under-slurm \
    "started by a launcher that speaks PMI-1/PMI-2, not PMIx (PMI_SIZE=8, PMI_RANK=5, PMI_FD=9: MPICH's mpiexec/hydra), so each of its 8 processes $ALONE: $PMI_ADVICE" \
    SLURM_STEP_ID=0 SLURM_PROCID=1 SLURM_STEP_NUM_TASKS=2 HYDI_CONTROL_FD=7 PMI_FD=9 PMI_RANK=5 PMI_SIZE=8
  direct no-pmix-pmi-port \
    "started by a launcher that speaks PMI-1/PMI-2, not PMIx (PMI_RANK=3, PMI_PORT=127.0.0.1:1: MPICH's mpiexec/hydra?), so each of its processes $ALONE: $PMI_ADVICE" \
    PMI_PORT=127.0.0.1:1 PMI_RANK=3
  direct no-pmix-open-mpi \
    "started by Open MPI's mpirun without a PMIx server (OMPI_COMM_WORLD_SIZE=3, OMPI_COMM_WORLD_RANK=2), so each of its 3 processes $ALONE: use Pamir's mpirun, or the mpirun of Open MPI 4 or later, which serves PMIx" \
    OMPI_COMM_WORLD_SIZE=3 OMPI_COMM_WORLD_RANK=2
  # One task is a job of one rank, so a singleton, as with `srun -n 1` ...
  direct singleton-slurm-one-task singleton SLURM_STEP_ID=0 SLURM_PROCID=0 SLURM_STEP_NUM_TASKS=1 SLURM_NTASKS=1
  # ... and a batch script (no step; SLURM_PROCID=0 with the job's task count) is one process.
  direct singleton-slurm-batch-script singleton SLURM_JOB_ID=1 SLURM_PROCID=0 SLURM_NTASKS=4

  # MPICH's own mpiexec, on this host only: forked proxy, control port on 127.0.0.1.
  find_hydra() { command -v mpiexec.mpich || command -v mpiexec.hydra; }
  HYDRA=$(find_hydra)
  why_no_hydra="mpiexec.mpich not found (and PAMIR_NO_APT=1, or not root, or no apt-get)"
  if [ -z "$HYDRA" ] && [ "${PAMIR_NO_APT:-0}" != 1 ] && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    apt_install() { DEBIAN_FRONTEND=noninteractive timeout 600 apt-get install -y -q --no-install-recommends mpich; }
    { apt_install || { timeout 300 apt-get update -q && apt_install; }; } >"$WORK/apt.log" 2>&1
    HYDRA=$(find_hydra)
    why_no_hydra="no mpiexec.mpich after apt-get install mpich: $(grep -E '^E:' "$WORK/apt.log" | head -2 | tr '\n' ' ')"
  fi
  if [ -z "$HYDRA" ]; then
    skip no-pmix-hydra-2-ranks "$why_no_hydra"
    skip singleton-hydra-1-rank "$why_no_hydra"
  else
    name=no-pmix-hydra-2-ranks
    m=$(marker $name)
    start $name -- "$HYDRA" -launcher fork -hosts localhost -localhost 127.0.0.1 -n 2 "$PROG" "$m"
    hydra_re="$(lit "started by a launcher that speaks PMI-1/PMI-2, not PMIx (PMI_SIZE=2, PMI_RANK=")[01]"
    hydra_re+="$(lit ", PMI_FD=")[0-9]+$(lit ": MPICH's mpiexec/hydra), so each of its 2 processes $ALONE: $PMI_ADVICE")"
    expect_stop $name 2 "$hydra_re" "$m"
    name=singleton-hydra-1-rank
    m=$(marker $name)
    start $name -- "$HYDRA" -launcher fork -hosts localhost -localhost 127.0.0.1 -n 1 "$PROG" "$m"
    expect_singleton $name "$m"
  fi

  # Open MPI's own mpirun (4.x) serves PMIx: a Pamir program started by it is one job of N ranks, not
  # N singletons. Its out-of-band channel is pinned to lo (the machine's network rule).
  find_ompi() { command -v mpirun.openmpi; }
  OMPIRUN=$(find_ompi)
  why_no_ompi="mpirun.openmpi not found (and PAMIR_NO_APT=1, or not root, or no apt-get)"
  if [ -z "$OMPIRUN" ] && [ "${PAMIR_NO_APT:-0}" != 1 ] && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    apt_install() { DEBIAN_FRONTEND=noninteractive timeout 600 apt-get install -y -q --no-install-recommends openmpi-bin; }
    { apt_install || { timeout 300 apt-get update -q && apt_install; }; } >"$WORK/apt-ompi.log" 2>&1
    OMPIRUN=$(find_ompi)
    why_no_ompi="no mpirun.openmpi after apt-get install openmpi-bin: $(grep -E '^E:' "$WORK/apt-ompi.log" | head -2 | tr '\n' ' ')"
  fi
  if [ -z "$OMPIRUN" ]; then
    skip openmpi-mpirun-3-ranks "$why_no_ompi"
  else
    name=openmpi-mpirun-3-ranks
    m=$(marker $name)
    start $name OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_oob_tcp_if_include=lo \
      -- "$OMPIRUN" --oversubscribe -n 3 "$PROG" "$m"
    got=$(sort "$out" | tr '\n' ' ')
    left=$(leftovers "$m") || left=""
    if [ "$rc" != 0 ]; then fail $name "exit code $rc: $(head -3 "$err" | tr '\n' ' ')"
    elif [ "$got" != "rank 0 of 3 rank 1 of 3 rank 2 of 3 " ]; then fail $name "stdout: $got"
    elif [ -n "$left" ]; then fail $name "processes left behind: $left"
    else pass $name "$secs s"
    fi
  fi
fi

# --- nothing left behind by the whole run -------------------------------------------------------------
dstor_after=$(ls -d $TMPDIRS/pmix_dstor_* 2>/dev/null | sort -u)
new_dstor=$(comm -13 <(echo "$dstor_before") <(echo "$dstor_after") | grep . || true)
if [ -n "$new_dstor" ]; then fail no-pmix-files "left behind: $new_dstor"
else pass no-pmix-files
fi
# Files of jobs that other users of this machine are running may come and go: only those of
# launchers that are gone count.
left_shm=""
for f in $(comm -13 <(echo "$shm_before") <(shm_files)); do
  owner=$(echo "$f" | sed -n 's/^pamir-[0-9]*-pamir-\([0-9]*\)-.*/\1/p')
  [ -n "$owner" ] && ! kill -0 "$owner" 2>/dev/null && left_shm="$left_shm $f"
done
if [ -n "$left_shm" ]; then fail no-shm-files "left in /dev/shm:$left_shm"
else pass no-shm-files
fi

echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
