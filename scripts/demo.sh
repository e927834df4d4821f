#!/usr/bin/env bash
# The main job, end to end: set up and build, then debug the bundled example JIT
# under LLDB twice at the same breakpoints, first without jitsym (JIT frames are
# bare addresses) and then with the plugin loaded (JIT frames named, new code
# picked up at every stop with no command, reused memory renamed).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh >/dev/null
build="${JITSYM_BUILD:-build}"
lldb=/usr/lib/llvm-22/bin/lldb
export LLDB_DEBUGSERVER_PATH=/usr/lib/llvm-22/bin/lldb-server

session() {
  "$lldb" --no-lldbinit -b "$@" -o "b jit_probe" -o run -o "bt 4" -o continue -o "bt 4" \
    -o continue -o "bt 4" "$build/bin/tinyjit" 2>&1 |
    grep -E '^\(lldb\) bt|frame #|^phase' || true
}

echo "=== Without jitsym: the JIT frames are bare addresses"
session
echo
echo "=== With 'plugin load $build/lib/libjitsym-lldb.so' and no other command"
session -o "plugin load $build/lib/libjitsym-lldb.so"
