#!/usr/bin/env bash
# Sets up and builds (scripts/setup.sh), then runs every test through ctest: the
# GoogleTest unit tests, the lit suite (CLI, live LLDB sessions on the example
# JIT, Node and HotSpot), bounded fuzzing runs, and the unit tests and lit suite
# again on the build with AddressSanitizer and UndefinedBehaviorSanitizer
# (build-asan, tests asan-*) and on the build against Debian 12's LLDB 19
# (build-lldb19, tests lldb19-*), and the runtime matrix (real runtimes,
# runtime-matrix). Prints the matrix's table after ctest, then ends with
# ctest's summary again; the exit status is ctest's.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh --sanitized --lldb-19
build="${JITSYM_BUILD:-build}"
cd "$build"
# ctest's output is kept, so that after the runtime matrix's table (written
# by the runtime-matrix test) its summary comes last again; its status is
# the command's.
rm -f test/runtime-matrix.txt
set +e
ctest --output-on-failure --timeout 2400 2>&1 | tee test/ctest-output.txt
status=${PIPESTATUS[0]}
set -e
echo
if [ -f test/runtime-matrix.txt ]; then
  echo "The runtime matrix ($build/test/runtime-matrix.txt, test/scripts/runtime_matrix.py):"
  cat test/runtime-matrix.txt
else
  echo "The runtime matrix: no table ($build/test/runtime-matrix.txt): the runtime-matrix test did not finish"
fi
echo
echo "ctest's summary again:"
sed -n '/tests passed, .* tests failed out of/,$p' test/ctest-output.txt
exit "$status"
