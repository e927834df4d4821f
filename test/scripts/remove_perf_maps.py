"""Removes the perf maps of the Node processes a test ran (their PIDs printed
as "node pid N" in the test's output FILE): /tmp is shared, so a test removes
its own files only.

usage: remove_perf_maps.py FILE
"""
import os
import re
import sys

with open(sys.argv[1], errors="replace") as f:
    for pid in re.findall(r"node pid (\d+)", f.read()):
        path = "/tmp/perf-%s.map" % pid
        if os.path.exists(path):
            os.remove(path)
