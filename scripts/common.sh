# shellcheck shell=bash
# Set-up shared by scripts/demo and scripts/test; sourced, not run. Everything here is idempotent:
# packages are installed only when missing, configure is regenerated only when older than its inputs,
# a build directory is configured again only when its options changed, and make does the rest.
#
# Environment:
#   CI=true            configure with --enable-werror (and scripts/test adds a sanitizer pass)
#   PAMIR_JOBS         make -j value (default 2)
#   PAMIR_BUILD_DIR    build directory of the normal pass, relative to the repository (default build)
#   PAMIR_PREFIX       its install prefix (default prefix)
#   PAMIR_SAN_BUILD_DIR, PAMIR_SAN_PREFIX   the same for the sanitizer pass (build-san, prefix-san)
#   PAMIR_NO_APT=1     never call apt-get (report missing packages and stop instead)

set -euo pipefail

PAMIR_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$PAMIR_ROOT"

PAMIR_JOBS=${PAMIR_JOBS:-2}
PAMIR_BUILD_DIR=${PAMIR_BUILD_DIR:-build}
PAMIR_PREFIX=${PAMIR_PREFIX:-prefix}
PAMIR_SAN_BUILD_DIR=${PAMIR_SAN_BUILD_DIR:-build-san}
PAMIR_SAN_PREFIX=${PAMIR_SAN_PREFIX:-prefix-san}

# Debian packages the build and the tests need (Debian 12 names). The Open MPI and MPICH headers are
# for test/abi/foreign_prototypes.sh (their prototypes redeclared after ours); matplotlib for
# tools/pamir_torus_plot; hwloc-nox's hwloc-calc for test/launcher/run.sh's binding checks; clang-format
# for test/style/clang_format.sh.
PAMIR_PACKAGES=(build-essential g++ make autoconf automake libtool pkg-config python3 procps
  libhwloc-dev hwloc-nox libfabric-dev libfabric-bin libpmix-dev libgtest-dev clang libclang-rt-14-dev mpich meson ninja-build
  libopenmpi-dev libmpich-dev python3-matplotlib clang-format)

# abs PATH: PATH made absolute against the repository root.
abs() {
  case $1 in
    /*) printf '%s\n' "$1" ;;
    *) printf '%s\n' "$PAMIR_ROOT/$1" ;;
  esac
}

# ---- messages and timings ------------------------------------------------------------------------
say() { printf '%s\n' "$*"; }
note() { printf '%s: %s\n' "${0##*/}" "$*"; }
die() {
  printf '%s: error: %s\n' "${0##*/}" "$*" >&2
  exit 1
}

# Phases are timed: phase_begin NAME ... phase_end [STATUS]; phase_summary prints them all.
PAMIR_PHASES=()
_phase_name=""
_phase_start=0
phase_begin() {
  _phase_name=$1
  _phase_start=$SECONDS
  printf '\n==> %s\n' "$_phase_name"
}
phase_end() {
  local status=${1:-ok} took=$((SECONDS - _phase_start))
  printf '<== %s: %s, %d s\n' "$_phase_name" "$status" "$took"
  PAMIR_PHASES+=("$(printf '%6d s  %-44s %s' "$took" "$_phase_name" "$status")")
}
phase_summary() {
  local line
  printf '\nTimings (elapsed seconds per phase):\n'
  for line in "${PAMIR_PHASES[@]+"${PAMIR_PHASES[@]}"}"; do printf '  %s\n' "$line"; done
  printf '  %6d s  total\n' "$SECONDS"
}

# ---- packages ------------------------------------------------------------------------------------
# Installs the packages that are not installed yet; `apt-get update` only when something is missing.
ensure_packages() {
  local missing=() p status
  for p in "${PAMIR_PACKAGES[@]}"; do
    status=$(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null || true)
    [ "$status" = installed ] || missing+=("$p")
  done
  if [ ${#missing[@]} = 0 ]; then
    note "packages: all ${#PAMIR_PACKAGES[@]} present"
    return 0
  fi
  note "packages missing: ${missing[*]}"
  [ "${PAMIR_NO_APT:-0}" = 1 ] && die "PAMIR_NO_APT=1: install them with: apt-get install ${missing[*]}"
  command -v apt-get >/dev/null || die "apt-get not found: install ${missing[*]} by hand"
  local sudo=()
  if [ "$(id -u)" != 0 ]; then
    command -v sudo >/dev/null || die "not root and no sudo: run as root, or apt-get install ${missing[*]}"
    sudo=(sudo)
  fi
  export DEBIAN_FRONTEND=noninteractive
  "${sudo[@]+"${sudo[@]}"}" apt-get update -q || die "apt-get update failed"
  "${sudo[@]+"${sudo[@]}"}" apt-get install -y -q --no-install-recommends "${missing[@]}" ||
    die "apt-get install ${missing[*]} failed"
}

# ---- configure, build, install -------------------------------------------------------------------
# Runs ./autogen.sh when configure or Makefile.in is missing or older than what it is made from.
ensure_autogen() {
  if [ ! -x configure ] || [ ! -f Makefile.in ] || [ configure -ot configure.ac ] || [ Makefile.in -ot Makefile.am ]; then
    note "generating configure (./autogen.sh)"
    ./autogen.sh || die "./autogen.sh failed"
  else
    note "configure is up to date"
  fi
}

# configure_args EXTRA...: the options a build directory is configured with.
configure_args() {
  local prefix=$1
  shift
  local args=(--prefix="$(abs "$prefix")")
  [ "${CI:-}" = true ] && args+=(--enable-werror)
  args+=("$@")
  printf '%s\n' "${args[@]}"
}

# build_and_install BUILD_DIR PREFIX [CONFIGURE-OPTIONS...]: configures out of tree (again only when the
# options changed or configure is newer), then make -j and make install. Returns non-zero on failure
# with the reason on stderr; the caller decides whether that ends the script.
build_and_install() {
  local dir=$1 prefix=$2
  shift 2
  local args
  mapfile -t args < <(configure_args "$prefix" "$@")
  mkdir -p "$dir"
  local stamp="$dir/.pamir-configure-args"
  if [ ! -f "$dir/Makefile" ] || [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$(printf '%s\n' "${args[@]}")" ] ||
    [ "$dir/config.status" -ot configure ]; then
    note "configuring $dir: ${args[*]}"
    rm -f "$stamp"
    if ! (cd "$dir" && "$PAMIR_ROOT/configure" "${args[@]}") >"$dir/configure.out" 2>&1; then
      tail -n 25 "$dir/configure.out" >&2
      printf '%s: configure failed in %s (full output: %s/configure.out)\n' "${0##*/}" "$dir" "$dir" >&2
      return 1
    fi
    printf '%s\n' "${args[@]}" >"$stamp"
  else
    note "$dir is configured (${args[*]})"
  fi
  if ! make -C "$dir" -j"$PAMIR_JOBS"; then
    printf '%s: make failed in %s\n' "${0##*/}" "$dir" >&2
    return 1
  fi
  if ! make -C "$dir" install >"$dir/install.out" 2>&1; then
    tail -n 25 "$dir/install.out" >&2
    printf '%s: make install failed in %s (full output: %s/install.out)\n' "${0##*/}" "$dir" "$dir" >&2
    return 1
  fi
  note "installed into $(abs "$prefix")"
}

# The common start of both scripts: packages and configure.
setup() {
  phase_begin "packages"
  ensure_packages
  phase_end ok
  phase_begin "autogen"
  ensure_autogen
  phase_end ok
}
