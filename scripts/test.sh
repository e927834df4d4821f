#!/usr/bin/env bash
# Sets up and builds (scripts/setup.sh), then runs every test through ctest: the
# GoogleTest unit tests, the lit suite (CLI, live LLDB sessions on the example
# JIT, Node and HotSpot), bounded fuzzing runs, and the unit tests and lit suite
# again on the build with AddressSanitizer and UndefinedBehaviorSanitizer
# (build-asan, tests asan-*) and on the build against Debian 12's LLDB 19
# (build-lldb19, tests lldb19-*). Ends with ctest's summary.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh --sanitized --lldb-19
build="${JITSYM_BUILD:-build}"
cd "$build"
ctest --output-on-failure --timeout 2400
