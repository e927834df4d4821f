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
# A checkout or build under /tmp (a clone in /tmp/x, say) stays visible: the
# folders of the real /tmp that hold the working directory, this script and
# the command's path arguments are bound back into the new one.
#
# Without the privilege to mount (not root), the command runs as it is, with
# the real /tmp.
if [ "${JITSYM_PRIVATE_TMP:-}" = 1 ]; then
  # Inside the namespace. Descriptor 3 keeps the real /tmp reachable once the
  # tmpfs hides it (/proc/self/fd/3/NAME), for the folders bound back.
  exec 3</tmp
  mount -t tmpfs -o mode=1777 jitsym-tests /tmp || exit 125
  for name in ${JITSYM_PRIVATE_TMP_KEEP:-}; do
    mkdir -p "/tmp/$name" &&
      mount --no-canonicalize --bind "/proc/self/fd/3/$name" "/tmp/$name" || exit 125
  done
  exec 3<&-
  if [ -n "${TMPDIR:-}" ]; then mkdir -p "$TMPDIR"; fi
  exec "$@"
fi
if command -v unshare >/dev/null 2>&1 &&
   unshare --mount --propagation private true 2>/dev/null; then
  keep=""
  for path in "$(pwd -P)" "$(cd "$(dirname "$0")" && pwd -P)" "$@"; do
    case "$path" in
      /tmp/?*/*|/tmp/?*)
        name=${path#/tmp/}
        name=${name%%/*}
        if [ -d "/tmp/$name" ] && [ ! -L "/tmp/$name" ]; then
          case " $keep " in *" $name "*) ;; *) keep="$keep $name" ;; esac
        fi ;;
    esac
  done
  JITSYM_PRIVATE_TMP=1 JITSYM_PRIVATE_TMP_KEEP="$keep" \
    exec unshare --mount --propagation private "$0" "$@"
fi
echo "private-tmp.sh: no private mount namespace here; the tests use the real /tmp" >&2
exec "$@"
