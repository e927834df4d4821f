"""Where the native pieces are: the plugin and the command-line tool.

In order: $JITSYM_PLUGIN / $JITSYM_CLI; the build tree of the checkout this
package is in ($JITSYM_BUILD, else build/); an installed tree
(PREFIX/share/jitsym/python/jitsym beside PREFIX/lib and PREFIX/bin); and for
the tool, PATH.
"""

import os
import shutil

_HERE = os.path.dirname(os.path.abspath(__file__))
_CHECKOUT = os.path.dirname(os.path.dirname(_HERE))  # python/jitsym -> checkout
_PREFIX = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(_HERE))))


def _build_trees():
    build = os.environ.get("JITSYM_BUILD", "build")
    return [os.path.join(_CHECKOUT, build) if not os.path.isabs(build) else build]


def _first_file(candidates):
    for path in candidates:
        if path and os.path.isfile(path):
            return path
    return None


def _candidates(env, relative_in_build, relative_in_prefix):
    paths = [os.environ.get(env)]
    paths += [os.path.join(tree, relative_in_build) for tree in _build_trees()]
    paths.append(os.path.join(_PREFIX, relative_in_prefix))
    return paths


def plugin_path():
    return _first_file(
        _candidates("JITSYM_PLUGIN", "lib/libjitsym-lldb.so", "lib/libjitsym-lldb.so")
    )


def cli_path():
    return _first_file(
        _candidates("JITSYM_CLI", "bin/jitsym", "bin/jitsym")
    ) or shutil.which("jitsym")


def not_found(name):
    env = "JITSYM_PLUGIN" if name.endswith(".so") else "JITSYM_CLI"
    looked = [p for p in _candidates(env, "", "")[1:]]
    return (
        "%s not found (looked in %s, and $%s); build it with scripts/setup.sh"
        % (name, ", ".join(looked), env)
    )
