"""Does to a running tinyjit's perf map what a hostile or broken writer could.

usage: hostile_map.py PID ACTION...
  chown UID     give the map to another user
  link          replace the map by a symbolic link to a copy of it
  long-name     append a symbol whose name is 10 MiB long (at the region + 0x800)
  endless-line  append 2 MiB with no newline
  remove        remove the map (and the link's copy): a later process with
                the PID must not meet a map given to another user, or a link
"""
import os
import shutil
import sys


def main(argv):
    if len(argv) < 2:
        sys.exit(__doc__)
    path = "/tmp/perf-%s.map" % argv[0]

    def region():
        with open(path) as f:
            return int(f.readline().split()[0], 16) & ~0xFFF

    actions = argv[1:]
    while actions:
        action = actions.pop(0)
        if action == "chown":
            os.chown(path, int(actions.pop(0)), -1)
        elif action == "link":
            shutil.copy(path, path + ".real")
            os.unlink(path)
            os.symlink(path + ".real", path)
        elif action == "long-name":
            with open(path, "a") as f:
                f.write("%x 10 %s\n" % (region() + 0x800, "n" * (10 << 20)))
        elif action == "endless-line":
            with open(path, "a") as f:
                f.write("%x 10 %s" % (region() + 0x900, "e" * (2 << 20)))
        elif action == "remove":
            for leftover in (path, path + ".real"):
                if os.path.lexists(leftover):
                    os.unlink(leftover)
        else:
            sys.exit("hostile_map.py: unknown action " + action)


if __name__ == "__main__":
    main(sys.argv[1:])
