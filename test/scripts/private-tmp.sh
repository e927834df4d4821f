#!/bin/sh
# usage: private-tmp.sh COMMAND [ARG...]
#
# Runs a test suite with a /tmp of its own: a fresh tmpfs in a private mount
# namespace. Every perf map and jitdump its JIT programs write (Node and the
# test JITs write /tmp/perf-PID.map and never remove it) goes with the suite,
# and no file left in the real /tmp by an earlier run or another user meets a
# reused PID (pid_max is 32768 here: hundreds of stale maps made tests
# flaky). Staged PID reuse is tested on purpose (hardening/pid-reuse.test).
#
# Without the privilege to mount (not root), or with the build itself under
# /tmp, the command runs as it is, with the real /tmp.
case "$(pwd -P)/" in
  /tmp/*) exec "$@" ;;
esac
if [ "${JITSYM_PRIVATE_TMP:-}" = 1 ]; then
  # Inside the namespace: the new /tmp, then the suite.
  mount -t tmpfs -o mode=1777 jitsym-tests /tmp || exit 125
  if [ -n "${TMPDIR:-}" ]; then mkdir -p "$TMPDIR"; fi
  exec "$@"
fi
if command -v unshare >/dev/null 2>&1 &&
   unshare --mount --propagation private true 2>/dev/null; then
  JITSYM_PRIVATE_TMP=1 exec unshare --mount --propagation private "$0" "$@"
fi
echo "private-tmp.sh: no private mount namespace here; the tests use the real /tmp" >&2
exec "$@"
