#!/bin/sh
# agent_portable_test: libplasmient_agent.so loads wherever PyTorch's manylinux_2_28 wheels do.
# It is preloaded into every process of a job, so one unmet dependency stops them all (exit 127).
#   portable_check.sh AGENT_SO
# Checks: NEEDED only the C library family, no RPATH/RUNPATH, no C++ runtime or libgcc symbol
# versions, highest GLIBC_ version <= 2.28; preloaded with nothing but the C library reachable
# (loader cache off), `sh -c 'exit 7'` exits 7; with no libcupti usable, InitializeInjection
# returns 1 and says so in one stderr line.
set -u
agent=$(readlink -f "$1")
fail=0
say() { echo "agent_portable: $*"; }
bad() { say "FAIL: $*"; fail=1; }

needed=$(readelf -d "$agent" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p')
for lib in $needed; do
  case $lib in
    libc.so.6 | libm.so.6 | libdl.so.2 | libpthread.so.0 | librt.so.1 | ld-linux-*.so.*) ;;
    *) bad "NEEDED $lib (only the C library family may be: it must load in any container)" ;;
  esac
done
if readelf -d "$agent" | grep -Eq '\((RPATH|RUNPATH)\)'; then
  bad "has $(readelf -d "$agent" | grep -E '\((RPATH|RUNPATH)\)' | sed 's/.*: //') (the build machine's folders)"
fi
other=$(objdump -T "$agent" | grep -oE '\((GLIBCXX|CXXABI|GCC)_[0-9.]+\)' | sort -u | tr '\n' ' ')
[ -z "$other" ] || bad "needs $other (link the C++ runtime and libgcc in)"
newest=$(objdump -T "$agent" | grep -oE '\(GLIBC_[0-9.]+\)' | tr -d '()' | sed 's/GLIBC_//' | sort -V | tail -1)
if [ -n "$newest" ] && [ "$(printf '%s\n2.28\n' "$newest" | sort -V | tail -1)" != "2.28" ]; then
  bad "needs GLIBC_$newest > 2.28: $(objdump -T "$agent" | grep -E 'GLIBC_2\.(29|[3-9][0-9])' | awk '{print $NF "@" $(NF-1)}' | tr '\n' ' ')"
fi
say "NEEDED: $(echo $needed), highest GLIBC_$newest"

# A folder holding only the C library family, and the loader's cache off: nothing else resolves.
libdir=$(mktemp -d /tmp/agent-portable.XXXXXX)
trap 'rm -rf "$libdir"' EXIT
loader=""
for lib in $(ldd /bin/sh | awk '{ for (i = 1; i <= NF; ++i) if ($i ~ /^\//) print $i }'); do
  case $(basename "$lib") in ld-linux*) loader=$lib ;; esac
done
libc_dir=$(dirname "$(ldd /bin/sh | awk '/libc\.so\.6/ { print $3 }')")
for name in libc.so.6 libm.so.6 libdl.so.2 libpthread.so.0 librt.so.1; do
  [ -e "$libc_dir/$name" ] && ln -s "$libc_dir/$name" "$libdir/$name"
done
if [ -z "$loader" ]; then
  bad "no loader found for /bin/sh"
else
  "$loader" --inhibit-cache --library-path "$libdir" --preload "$agent" /bin/sh -c 'exit 7'
  rc=$?
  [ "$rc" -eq 7 ] || bad "preloaded into sh -c 'exit 7' with only the C library reachable: exit $rc"
fi
LD_PRELOAD=$agent /bin/sh -c 'exit 7'
rc=$?
[ "$rc" -eq 7 ] || bad "LD_PRELOAD=agent sh -c 'exit 7': exit $rc"

# cuInit with no libcupti usable: the agent carries on with device counters only, and says so.
if command -v python3 > /dev/null; then
  out=$(cd "$libdir" && PLASMIENT_OUT_DIR=$libdir PLASMIENT_NVML_PERIOD_MS=0 \
        PLASMIENT_CUPTI_LIBRARY=$libdir/no-libcupti.so.13 \
        python3 -c "import ctypes, sys; sys.exit(ctypes.CDLL(sys.argv[1]).InitializeInjection())" "$agent" 2>&1)
  rc=$?
  [ "$rc" -eq 1 ] || bad "InitializeInjection without libcupti returned $rc, not 1 (output: $out)"
  lines=$(printf '%s\n' "$out" | grep -c 'device counters only')
  [ "$lines" -eq 1 ] || bad "without libcupti, expected one 'device counters only' line, got: $out"
fi
[ "$fail" -eq 0 ] && say "ok"
exit "$fail"
