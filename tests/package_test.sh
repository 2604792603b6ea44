#!/usr/bin/env bash
# The Debian packages as a user gets them: CPack builds them from BUILD, `dpkg -x` unpacks them
# into a scratch root (no root, no dpkg database), and the unpacked plasmient runs the demo.
# Checks: every shared library the binary needs belongs to a package named in Depends; the
# unpacked `plasmient run` finds the unpacked agent (strace, when present); the systemd unit
# passes `systemd-analyze verify` and an exposure threshold (when systemd-analyze is present).
# usage: package_test.sh BUILD
set -euo pipefail
build=$(realpath "$1")
work=$(mktemp -d /tmp/plasmient-package.XXXXXX)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
have() { command -v "$1" >/dev/null 2>&1; }

cpack --config "$build/CPackConfig.cmake" -G DEB -B "$work/debs" >"$work/cpack.log" 2>&1 \
  || { cat "$work/cpack.log"; fail "cpack"; }
main_deb=$(ls "$work"/debs/plasmient_*.deb)
echo "package: $(basename "$main_deb"), $(stat -c %s "$main_deb") bytes"
depends=$(dpkg-deb -f "$main_deb" Depends)
echo "Depends: $depends"
depended=$(sed -e 's/([^)]*)//g' -e 's/[,|]/ /g' <<<"$depends" | xargs)  # the package names alone
root=$work/root
for deb in "$work"/debs/*.deb; do dpkg -x "$deb" "$root"; done
bin=$root/usr/bin/plasmient
[[ -x $bin ]] || fail "no usr/bin/plasmient in $main_deb"

# Every NEEDED library resolves to a Debian package that Depends names.
# The filters read their whole input: one that stopped at its first match would leave the writer
# to die of SIGPIPE, which pipefail turns into a silent exit of this script.
while read -r lib; do
  path=$(ldconfig -p | awk -v l="$lib" '!p && $1 == l && /x86-64|x86_64|64bit/ {p = $NF} END {print p}')
  [[ -n $path ]] || path=$(ldconfig -p | awk -v l="$lib" '!p && $1 == l {p = $NF} END {print p}')
  [[ -n $path ]] || fail "$lib (NEEDED by plasmient) is not known to ldconfig"
  pkg=$(dpkg -S "$(realpath "$path")" 2>/dev/null | sed -n '1s/:.*//p') ||
    pkg=$(dpkg -S "$path" 2>/dev/null | sed -n '1s/:.*//p')
  [[ -n $pkg ]] || fail "$lib ($path) belongs to no Debian package"
  [[ " $depended " == *" $pkg "* ]] || fail "$lib comes from $pkg, which Depends does not name"
  echo "  $lib <- $pkg"
done < <(objdump -p "$bin" | awk '$1 == "NEEDED" {print $2}')

# The demo from the unpacked root.
"$bin" demo --no-color >"$work/demo.txt" 2>&1 || { cat "$work/demo.txt"; fail "plasmient demo exited $?"; }
grep -q "achieved fraction of peak" "$work/demo.txt" && grep -q "VERDICT:" "$work/demo.txt" \
  || { cat "$work/demo.txt"; fail "the demo printed no verdict box"; }
echo "plasmient demo from the unpacked package: ok"

# The agent, when packaged, is where `plasmient run` looks first after its own folder.
agent=$root/usr/lib/plasmient/libplasmient_agent.so
if [[ -f $agent ]]; then
  if have strace; then
    strace -e trace=newfstatat,stat -o "$work/strace.txt" "$bin" run --no-analyze -o "$work/run" -- true \
      >/dev/null 2>&1 || fail "plasmient run -- true"
    grep -q "\"$root/usr/bin/../lib/plasmient/libplasmient_agent.so\".* = 0" "$work/strace.txt" \
      || { grep libplasmient_agent "$work/strace.txt"; fail "plasmient run did not find the packaged agent"; }
    ! grep -q "libplasmient_agent.so\"" <(grep -v "$root/" "$work/strace.txt") \
      || fail "plasmient run looked past the packaged agent (at the build folder's)"
    echo "plasmient run finds the packaged agent: ok"
  else
    echo "note: strace absent: the packaged agent's lookup is not checked"
  fi
fi

# The systemd unit.
unit=$root/usr/lib/systemd/system/plasmient-serve.service
[[ -f $unit ]] || fail "no systemd unit in $main_deb"
# serve shares the node with the job: its memory and task count are capped in the unit.
for limit in MemoryMax TasksMax; do
  grep -Eq "^$limit=[0-9]+[KMGT]?$" "$unit" || fail "the unit sets no $limit="
done
if have systemd-analyze; then
  mkdir "$work/unit"
  sed "s|/usr/bin/plasmient|$bin|" "$unit" >"$work/unit/plasmient-serve.service"
  systemd-analyze verify "$work/unit/plasmient-serve.service" || fail "systemd-analyze verify"
  systemd-analyze security --offline=true --threshold=20 "$work/unit/plasmient-serve.service" >"$work/security.txt" 2>&1 \
    || { tail -n 3 "$work/security.txt"; fail "the unit's exposure is above 2.0 (of 10)"; }
  echo "systemd unit: $(grep -o 'Overall exposure level.*' "$work/security.txt")"
else
  echo "note: systemd-analyze absent: the unit is not verified"
fi
echo PASS
