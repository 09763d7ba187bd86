#!/bin/bash
# Builds the libFuzzer target test/fuzz/dt_fuzz.cc with clang (-fsanitize=fuzzer,address,undefined) over
# the datatype/ sources and runs it: briefly in `make check` (15 s, fixed seed, so a run is reproducible),
# longer on demand. A mismatch or a sanitizer report fails the run and leaves the input that caused it
# (crash-*) in the work directory it names.
#
#   test/fuzz/run.sh                      # from the build directory, as make check runs it
#   PAMIR_FUZZ_SECONDS=600 test/fuzz/run.sh   # longer; PAMIR_FUZZ_SEED=0 for a random seed
#   PAMIR_FUZZ_SECONDS=0                      # skips it (exit 77)
set -u
srcdir=${srcdir:-$(dirname "$0")/../..}
srcdir=$(cd "$srcdir" && pwd)
secs=${PAMIR_FUZZ_SECONDS:-15}
if [ "$secs" = 0 ]; then  # scripts/test's sanitizer pass: the normal pass ran the fuzzer with its own sanitizers
  echo "SKIP dt_fuzz: PAMIR_FUZZ_SECONDS=0"
  exit 77
fi
seed=${PAMIR_FUZZ_SEED:-20261122}
cxx=${PAMIR_FUZZ_CXX:-clang++}
command -v "$cxx" >/dev/null || { echo "FAIL dt_fuzz: $cxx not found (scripts/test installs clang)"; exit 1; }
work=$(mktemp -d "${TMPDIR:-/tmp}/pamir-fuzz.XXXXXX")
bin=$work/dt_fuzz
if ! "$cxx" -std=c++20 -O1 -g -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
  -I"$srcdir" "$srcdir/test/fuzz/dt_fuzz.cc" "$srcdir/datatype/layout.cc" "$srcdir/datatype/segments.cc" \
  -o "$bin" 2>"$work/build.log"; then
  echo "FAIL dt_fuzz: build: $(head -5 "$work/build.log" | tr '\n' '|')"
  exit 1
fi
mkdir -p "$work/corpus"
(cd "$work" && "$bin" -max_total_time="$secs" -seed="$seed" -print_final_stats=1 corpus >"$work/fuzz.log" 2>&1)
rc=$?
runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$work/fuzz.log" | grep -o '[0-9]*$')
if [ "$rc" != 0 ]; then
  echo "FAIL dt_fuzz (seed $seed): $(grep -E 'dt_fuzz:|ERROR|SUMMARY' "$work/fuzz.log" | head -3 | tr '\n' '|') inputs in $work"
  exit 1
fi
echo "PASS dt_fuzz (${runs:-?} inputs in ${secs} s, seed $seed)"
rm -rf "$work"
