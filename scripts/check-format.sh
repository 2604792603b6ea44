#!/usr/bin/env bash
# Fails when a tracked C++ file differs from what clang-format (14, Debian 12's) makes of it.
#   scripts/check-format.sh        check, list the files that differ
#   scripts/check-format.sh --fix  format them in place
set -euo pipefail
cd "$(dirname "$0")/.."
fmt=${CLANG_FORMAT:-clang-format}
if ! command -v "$fmt" >/dev/null; then
  echo "check-format: $fmt not found (apt-get install clang-format)" >&2
  exit 2
fi
mapfile -t files < <(git ls-files '*.cc' '*.h')
if [[ ${1:-} == --fix ]]; then
  "$fmt" -i "${files[@]}"
  exit 0
fi
# Files in batches on every core; clang-format names each file that differs in its warnings.
log=$(mktemp)
trap 'rm -f "$log"' EXIT
status=0
printf '%s\0' "${files[@]}" | xargs -0 -P "${PLASMIENT_JOBS:-$(nproc)}" -n 32 "$fmt" --dry-run -Werror 2>"$log" >/dev/null ||
  status=$?
mapfile -t bad < <(grep -o '^[^:]*:[0-9]*:[0-9]*: error: code should be clang-formatted' "$log" | cut -d: -f1 | sort -u)
if ((${#bad[@]})); then
  printf 'check-format: %d file(s) not formatted (scripts/check-format.sh --fix):\n' "${#bad[@]}" >&2
  printf '  %s\n' "${bad[@]}" >&2
  exit 1
fi
if ((status != 0)); then
  echo "check-format: $fmt failed:" >&2
  head -n 20 "$log" >&2
  exit 1
fi
echo "check-format: ${#files[@]} files formatted"
