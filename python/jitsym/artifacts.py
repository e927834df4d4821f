"""Where the native pieces are: the plugin and the command-line tool.

In order: $JITSYM_PLUGIN / $JITSYM_CLI; a build tree of the checkout this
package is in ($JITSYM_BUILD, else build/, then the other build*/ folders),
the first whose plugin is for the LLDB running this code (lib/libjitsym-lldb-N.so
for LLDB N: a checkout may hold trees built for several), else the first with
a plugin at all (its loader then names the versions it has); an installed
tree (PREFIX/share/jitsym/python/jitsym beside PREFIX/lib and PREFIX/bin);
and for the tool, PATH. The tool comes from the tree the plugin came from.
"""

import glob
import os
import re
import shutil

import lldb

_HERE = os.path.dirname(os.path.abspath(__file__))
_CHECKOUT = os.path.dirname(os.path.dirname(_HERE))  # python/jitsym -> checkout
_PREFIX = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(_HERE))))


def _lldb_major():
    match = re.search(r"version (\d+)", lldb.SBDebugger.GetVersionString())
    return match.group(1) if match else None


def _trees():
    """Build trees, then the installed prefix, in the order they are tried."""
    build = os.environ.get("JITSYM_BUILD")
    trees = [build if os.path.isabs(build) else os.path.join(_CHECKOUT, build)] if build else []
    if not build:
        first = os.path.join(_CHECKOUT, "build")
        trees = [first] + sorted(t for t in glob.glob(os.path.join(_CHECKOUT, "build*"))
                                 if t != first and os.path.isdir(t))
    return trees + [_PREFIX]


def _tree_of_plugin():
    with_plugin = [t for t in _trees() if os.path.isfile(os.path.join(t, "lib", "libjitsym-lldb.so"))]
    major = _lldb_major()
    for tree in with_plugin:
        if major and os.path.isfile(os.path.join(tree, "lib", "libjitsym-lldb-%s.so" % major)):
            return tree
    return with_plugin[0] if with_plugin else None


def plugin_path():
    if os.environ.get("JITSYM_PLUGIN"):
        return os.environ["JITSYM_PLUGIN"] if os.path.isfile(os.environ["JITSYM_PLUGIN"]) else None
    tree = _tree_of_plugin()
    return os.path.join(tree, "lib", "libjitsym-lldb.so") if tree else None


def cli_path():
    if os.environ.get("JITSYM_CLI"):
        return os.environ["JITSYM_CLI"] if os.path.isfile(os.environ["JITSYM_CLI"]) else None
    tree = _tree_of_plugin()
    candidates = ([tree] if tree else []) + _trees()
    for tree in candidates:
        path = os.path.join(tree, "bin", "jitsym")
        if os.path.isfile(path):
            return path
    return shutil.which("jitsym")


def not_found(name):
    env = "JITSYM_PLUGIN" if name.endswith(".so") else "JITSYM_CLI"
    return (
        "%s not found (looked in %s, and $%s); build it with scripts/setup.sh"
        % (name, ", ".join(_trees()), env)
    )
