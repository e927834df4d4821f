#!/usr/bin/env bash
# Installs what jitsym needs on Debian 12 (only what is missing), then configures
# and builds into ${JITSYM_BUILD:-build}. Safe to run again; no questions asked.
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(cmake g++ clang-14 libclang-rt-14-dev googletest libgtest-dev libbenchmark-dev
          lldb-22 liblldb-22-dev python3-lldb-22 llvm-22-dev llvm-22-tools
          nlohmann-json3-dev nodejs openjdk-17-jdk-headless gdb)
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
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build "$build" -j"$(nproc)"
echo "setup: built $build/bin/jitsym and $build/lib/libjitsym-lldb.so"
