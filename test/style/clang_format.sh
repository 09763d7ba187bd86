#!/bin/sh
# Automake test: every C and C++ file of the repository is as clang-format writes it with the repo's
# .clang-format (the project's style). The tree is formatted by clang-format 14, Debian 12's, which
# scripts/test installs; another major version formats some lines otherwise, so it skips (77), as
# does a build from a tarball (no git to say which files are the project's) or one without clang-format.
# OSU's sources unpacked under benchmarks/results are not tracked, so not checked.
srcdir=${srcdir:-.}
cf=${CLANG_FORMAT:-clang-format}
if ! command -v "$cf" >/dev/null 2>&1; then
  echo "SKIP: $cf not found (apt-get install clang-format)"
  exit 77
fi
major=$("$cf" --version | sed -n 's/.*clang-format version \([0-9]*\).*/\1/p')
if [ "$major" != 14 ]; then
  echo "SKIP: $cf is version ${major:-unknown}; the tree is formatted by clang-format 14"
  exit 77
fi
cd "$srcdir" || exit 99
# The top of a checkout, not a tarball unpacked inside some other repository.
if [ "$(git rev-parse --show-toplevel 2>/dev/null)" != "$(pwd -P)" ]; then
  echo "SKIP: $srcdir is not the top of a git checkout"
  exit 77
fi
files=$(git ls-files '*.c' '*.cc' '*.h')
[ -n "$files" ] || exit 99
# One run for all files; --Werror makes each file that would change report an error naming it.
# shellcheck disable=SC2086
out=$("$cf" --dry-run --Werror $files 2>&1)
rc=$?
bad=$(printf '%s\n' "$out" | sed -n 's/^\([^ :]*\):[0-9]*:[0-9]*: error: code should be clang-formatted.*/\1/p' | sort -u)
for f in $bad; do
  echo "FAIL: $f is not clang-formatted (run: clang-format -i $f)"
  "$cf" "$f" | diff -u "$f" - | head -20
done
echo "$(echo "$files" | wc -l) files checked, $(echo "$bad" | grep -c .) not clang-formatted"
if [ "$rc" != 0 ] && [ -z "$bad" ]; then
  printf '%s\n' "$out" | head -20
  echo "FAIL: $cf exited $rc"
fi
[ "$rc" = 0 ]
