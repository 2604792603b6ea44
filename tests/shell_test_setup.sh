# Sourced first by the shell tests that take the plasmient binary as their argument:
#   source "$(dirname "${BASH_SOURCE[0]}")/../shell_test_setup.sh" "$@"
# Sets `plasmient` (the binary's absolute path), runs the test in a scratch folder `work` removed
# on exit (after `before_cleanup`, when the test defines one), and gives `fail MESSAGE`, which
# counts failures, and `finish MESSAGE`: exit 1 after any failure, else print MESSAGE.
set -uo pipefail
plasmient=$(realpath "${1:?usage: $(basename "$0") PLASMIENT}")
work=$(mktemp -d)
cleanup() {
  if declare -F before_cleanup >/dev/null; then before_cleanup; fi
  rm -rf "$work"
}
trap cleanup EXIT
cd "$work" || exit 1
failures=0
fail() {
  echo "FAIL: $*"
  failures=$((failures + 1))
}
finish() {
  [[ $failures == 0 ]] || exit 1
  echo "$*"
}
