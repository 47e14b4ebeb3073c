#!/usr/bin/env bash
# Installs the Debian packages sitescout needs (only when some are missing) and builds it.
# Usage: scripts/setup.sh [--asan DIR] [--tsan DIR] [--fuzz DIR] [--no-build]
#   default: release build in build/ (binary at build/sitescout)
#   --asan DIR: also an AddressSanitizer+UBSan build with warnings as errors in DIR
#   --tsan DIR: also a ThreadSanitizer build of the threaded tests (target "tsan") in DIR
#   --fuzz DIR: also the libFuzzer harnesses (clang) in DIR
set -euo pipefail

top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

# Build and test dependencies, one Debian package each.
packages=(
  build-essential cmake pkg-config clang libclang-rt-14-dev
  libmicrohttpd-dev libcurl4-openssl-dev libgumbo-dev libjansson-dev libpq-dev
  zlib1g-dev libssl-dev libcmocka-dev libstemmer-dev
  postgresql postgresql-client
  curl python3 procps gnuplot-nox clang-format-14
  nodejs chromium
  docker-compose
)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
    missing+=("$p")
  fi
done

# The browser test (tests/integration/browser.sh) also needs npm, which nodejs packages
# other than Debian's (NodeSource) carry themselves.
command -v npm >/dev/null 2>&1 || missing+=(npm)

if ((${#missing[@]})); then
  if [[ $(id -u) -ne 0 ]]; then
    echo "sitescout setup: missing Debian packages: ${missing[*]}" >&2
    echo "Install them as root: apt-get install -y ${missing[*]}" >&2
    exit 1
  fi
  echo "== installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

asan_dir="" tsan_dir="" fuzz_dir="" build=1
while (($#)); do
  case "$1" in
    --asan) asan_dir=$2; shift 2 ;;
    --tsan) tsan_dir=$2; shift 2 ;;
    --fuzz) fuzz_dir=$2; shift 2 ;;
    --no-build) build=0; shift ;;
    *) echo "sitescout setup: unknown option '$1'" >&2; exit 2 ;;
  esac
done
((build)) || exit 0

jobs=$(nproc 2>/dev/null || echo 2)
configure_and_build() { # dir, target ("all" or a target name), cmake args...
  local dir=$1 target=$2 start=$SECONDS; shift 2
  if [[ ! -f $dir/CMakeCache.txt ]]; then
    echo "   configuring (cmake)"
    cmake -S "$top" -B "$dir" "$@" >/dev/null
  fi
  # A first build takes a minute or more: show cmake's progress, one line every 10%,
  # and every warning or error in full; drop the rest of its chatter.
  cmake --build "$dir" -j"$jobs" --target "$target" 2>&1 | awk '
    /^\[ *[0-9]+%\]/ {
      p = $0; sub(/^\[ */, "", p); p += 0
      if (p >= next_p) { print "   " $0; fflush(); next_p = p - p % 10 + 10 }
      next
    }
    /^(gmake|make)\[/ { next }
    { print; fflush() }' || true
  # awk swallows the status: ask the build tool again, which is instant when it succeeded.
  cmake --build "$dir" -j"$jobs" --target "$target" >/dev/null
  echo "   built in $((SECONDS - start)) s"
}

echo "== building $top/build"
configure_and_build "$top/build" all -DCMAKE_BUILD_TYPE=RelWithDebInfo
if [[ -n $asan_dir ]]; then
  echo "== building $asan_dir (AddressSanitizer + UndefinedBehaviorSanitizer)"
  configure_and_build "$asan_dir" all -DCMAKE_BUILD_TYPE=Debug -DSITESCOUT_SANITIZE=ON -DSITESCOUT_WERROR=ON
fi
if [[ -n $tsan_dir ]]; then
  # Only what the tests labelled "tsan" need: they and the binary they start.
  echo "== building $tsan_dir (ThreadSanitizer, the threaded tests)"
  configure_and_build "$tsan_dir" tsan -DCMAKE_BUILD_TYPE=Debug -DSITESCOUT_TSAN=ON -DSITESCOUT_WERROR=ON
fi
if [[ -n $fuzz_dir ]]; then
  # Only the harnesses (target "fuzz"); -O1 keeps asserts and fuzzes several times faster
  # than -O0. A directory configured earlier keeps its compiler: it must be clang.
  echo "== building $fuzz_dir (libFuzzer harnesses)"
  if [[ -f $fuzz_dir/CMakeCache.txt ]] &&
    ! grep -q '^CMAKE_C_COMPILER:FILEPATH=.*clang' "$fuzz_dir/CMakeCache.txt"; then
    echo "sitescout setup: $fuzz_dir was configured without clang; remove it and run again" >&2
    exit 1
  fi
  CC=clang configure_and_build "$fuzz_dir" fuzz -DCMAKE_BUILD_TYPE=Debug -DCMAKE_C_FLAGS_DEBUG="-g -O1" \
    -DSITESCOUT_FUZZ=ON -DSITESCOUT_WERROR=ON
fi
