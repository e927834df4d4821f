"""jit-symbolicate: names the addresses of a crash log or backtrace text.

The text can be a Node or JVM fatal error report, kernel "segfault at ... ip
..." lines, a pasted `bt`, or a list of addresses. jitsym's command-line tool
exports the JIT symbols (from a perf map, a jitdump, or a snapshot directory)
as region files; they are added to a target of their own the way LLDB's
crash-log tooling adds images (lldb.utils.symbolication), with the process's
own binaries when a snapshot has its memory map; then LLDB names every address
it can, with the source line where the jitdump gave one.
"""

import json
import os
import re
import shutil
import subprocess
import tempfile
import uuid

import lldb
from lldb.plugins.parsed_cmd import ParsedCommand
from lldb.utils import symbolication

from . import artifacts

# As `jitsym symbolicate` reads addresses: "0x" and 1 to 16 hex digits, or a bare
# run of 8 to 16 (so that "42" and "cafe" stay words), a whole word either way.
ADDRESS = re.compile(r"(?<![0-9A-Za-z_])(0[xX][0-9a-fA-F]{1,16}|[0-9a-fA-F]{8,16})(?![0-9A-Za-z_])")
# Frames whose address is a return address (LLDB's and gdb's backtraces, frame
# 1 and up): the line is that of the call, one byte before.
RETURN_FRAME = re.compile(r"(?:frame #|^\s*#)([0-9]+)\b")


class JitRegionImage(symbolication.Image):
    """A region jitsym exported: its object (the window's .text), then its JSON
    symbols and DWARF added as symbol files, as jit-sync gives them to LLDB."""

    def __init__(self, region, run_command):
        super().__init__(region["object"], uuid.UUID(region["uuid"]))
        self.region = region
        self.resolve = True  # the object is at hand: add it by path
        self.add_section(symbolication.Section(region["start"], region["end"], ".text"))
        self._run = run_command
        self._added = False

    def add_module(self, target, obj_dir=None):
        if self._added:
            return None
        self._added = True
        error = super().add_module(target, obj_dir)
        if error:
            return error
        # The commands come quoted from the export (jitsym's one quoting helper).
        for command in self.region["add_symbols"]:
            error = self._run(target, command)
            if error:
                return error
            self.module.GetNumSymbols()  # merged now, before the next add
        return None


class NativeImage(symbolication.Image):
    """A file the process had mapped (from a snapshot's memory map), loaded
    where the process had it."""

    def __init__(self, path, mappings):
        super().__init__(path)
        self.mappings = mappings
        for m in mappings:
            if m["execute"]:
                self.add_section(symbolication.Section(m["start"], m["end"], None))
        self._added = False

    def add_module(self, target, obj_dir=None):
        if self._added:
            return None
        self._added = True
        if not os.path.isfile(self.path):
            self.unavailable = True
            return None
        self.module = target.AddModule(self.path, None, None)
        if not self.module:
            return None
        slide = self._slide()
        if slide is not None:
            target.SetModuleLoadAddress(self.module, slide)
        return None

    def _slide(self):
        # A mapping of the file at `offset` starts at `start`: find the segment
        # LLDB read at that file offset, and the slide that puts it there.
        for m in self.mappings:
            for section in self.module.sections:
                begin = section.GetFileOffset()
                if begin <= m["offset"] < begin + max(section.GetFileByteSize(), 1):
                    return m["start"] - (section.GetFileAddress() + m["offset"] - begin)
        return None


class Symbolication:
    def __init__(self, debugger, export_dir):
        with open(os.path.join(export_dir, "regions.json")) as f:
            manifest = json.load(f)
        self.debugger = debugger
        error = lldb.SBError()
        self.target = debugger.CreateTarget("", manifest["triple"], None, False, error)
        if not self.target:
            raise RuntimeError("cannot create a target for %s: %s" % (manifest["triple"], error))
        images = [JitRegionImage(r, self._run) for r in manifest["regions"]]
        by_path = {}
        for m in manifest["images"]:
            by_path.setdefault(m["path"], []).append(m)
        images += [NativeImage(path, ms) for path, ms in by_path.items()]
        self.symbolicator = symbolication.Symbolicator(
            debugger=debugger, target=self.target, images=images
        )

    def _run(self, target, command):
        result = lldb.SBCommandReturnObject()
        self.debugger.GetCommandInterpreter().HandleCommand(
            command, lldb.SBExecutionContext(target), result, False
        )
        return None if result.Succeeded() else "%s: %s" % (command, result.GetError())

    def describe(self, address, is_return_address):
        """"module`name + offset [at file:line[:column]]", or None."""
        image = self.symbolicator.find_image_containing_load_addr(address)
        if image is None:
            return None
        error = image.add_module(self.target)
        if error:
            raise RuntimeError(error)
        so_addr = self.target.ResolveLoadAddress(address)
        context = self.target.ResolveSymbolContextForAddress(
            so_addr, lldb.eSymbolContextEverything
        )
        function, symbol = context.GetFunction(), context.GetSymbol()
        named = function if function else symbol
        if not named or not context.GetModule():
            return None
        start = named.GetStartAddress().GetLoadAddress(self.target)
        text = "%s`%s" % (context.GetModule().GetFileSpec().GetFilename(), named.GetName())
        if address > start:
            text += " + %d" % (address - start)
        line_address = address - 1 if is_return_address and address > start else address
        line = self.target.ResolveSymbolContextForAddress(
            self.target.ResolveLoadAddress(line_address), lldb.eSymbolContextLineEntry
        ).GetLineEntry()
        if line.IsValid() and line.GetFileSpec() and line.GetLine():
            text += " at %s:%d" % (line.GetFileSpec().GetFilename(), line.GetLine())
            if line.GetColumn():
                text += ":%d" % line.GetColumn()
        return text, named.GetName()

    def close(self):
        self.debugger.DeleteTarget(self.target)


def symbolicate_text(symbolication_, text):
    """The text with a description after each address LLDB can name; and how
    many addresses there were and how many were named."""
    found = named = 0
    out = []
    for line in text.splitlines(keepends=True):
        frame = RETURN_FRAME.search(line)
        is_return = bool(frame) and int(frame.group(1)) > 0
        pieces, last = [], 0
        for match in ADDRESS.finditer(line):
            found += 1
            address = int(match.group(1), 16)
            described = symbolication_.describe(address, is_return)
            pieces.append(line[last:match.end()])
            last = match.end()
            if described is None:
                continue
            named += 1
            description, name = described
            # A report that already names the address (Node's own trace, a
            # `bt` with the name after it) keeps its text, and so does the
            # base of an offset ("[0x7f00+0x31]", as HotSpot writes).
            rest = line[match.end():]
            if name not in rest and not rest.startswith("+"):
                pieces.append(" " + description)
        pieces.append(line[last:])
        out.append("".join(pieces))
    return "".join(out), found, named


def export_regions(sources, directory):
    """Runs `jitsym export` (a snapshot directory brings its memory map)."""
    cli = artifacts.cli_path()
    if cli is None:
        raise RuntimeError(artifacts.not_found("jitsym"))
    command = [cli, "export"] + sources + ["-o", directory]
    run = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    warnings = [l for l in run.stderr.splitlines() if l.startswith("warning: ")]
    if run.returncode != 0:
        raise RuntimeError(run.stderr.strip().replace("error: ", "", 1))
    return warnings


class SymbolicateError(Exception):
    """What went wrong, as the result object's error says it."""


def read_text(path, debugger):
    """The text of `path`; with no path (or "-"), the terminal's, read until
    end of file, and never a pipe: inside lldb-dap or a script, standard input
    is not the user's to read (lldb-dap's is the DAP connection itself)."""
    if path and path != "-":
        try:
            with open(path, errors="replace") as f:
                return f.read(), path
        except OSError as e:
            raise SymbolicateError("%s: %s" % (path, e.strerror))
    if not os.isatty(0):
        raise SymbolicateError(
            "name the FILE to read: standard input is not a terminal (in lldb-dap or "
            "a script it is not the user's to read); 'jitsym symbolicate MAP < FILE' "
            "reads a pipe")
    debugger.GetOutputFile().Write(b"jit-symbolicate: paste the text, then Ctrl-D\n")
    debugger.GetOutputFile().Flush()
    # The process's standard input (inside LLDB, sys.stdin is LLDB's own input
    # stream object, not the terminal).
    with open(0, errors="replace", closefd=False) as f:
        return f.read(), "standard input"


def symbolicate(debugger, sources, text, name):
    """The text with every address LLDB can name described, and warnings."""
    if not sources:
        raise SymbolicateError("name the symbols: --map, --jitdump or --dir")
    if not ADDRESS.search(text):
        raise SymbolicateError(
            "%s: no addresses in the text (looked for 0x followed by hex digits, or a "
            "bare run of 8 to 16 hex digits)" % name)
    directory = tempfile.mkdtemp(prefix="jitsym-symbolicate-")
    try:
        warnings = [w.replace("warning: ", "", 1) for w in export_regions(sources, directory)]
        session = Symbolication(debugger, directory)
        try:
            symbolicated, found, named = symbolicate_text(session, text)
        finally:
            session.close()
    except (RuntimeError, OSError, ValueError, KeyError) as e:
        raise SymbolicateError(str(e))
    finally:
        shutil.rmtree(directory, ignore_errors=True)
    if named == 0:
        warnings.append("jit-symbolicate: none of the %d addresses in %s lies in code the "
                        "symbols describe: are they from the same process?" % (found, name))
    return symbolicated, warnings


class SymbolicateCommand(ParsedCommand):
    """jit-symbolicate, a parsed command (command script add -p): LLDB parses
    its options as its own commands' (-m PATH, --map PATH, --map=PATH),
    completes their paths, and lists them in `help jit-symbolicate`."""

    program = "jit-symbolicate"

    def setup_command_definition(self):
        options = self.get_parser()
        options.add_option("m", "map", "A perf map (perf-PID.map); may be given more than once.",
                           None, dest="maps", value_type=lldb.eArgTypePath)
        options.add_option("j", "jitdump", "A jitdump (jit-PID.dump); may be given more than once.",
                           None, dest="jitdumps", value_type=lldb.eArgTypePath)
        options.add_option("d", "dir", "A snapshot directory (jitsym snapshot PID DIR): its "
                           "symbols, and the process's own binaries from its memory map.",
                           None, dest="snapshot", value_type=lldb.eArgTypeDirectoryName)
        options.add_argument_set([options.make_argument_element(lldb.eArgTypePath, "optional")])

    def option_parsing_started(self):
        super().option_parsing_started()
        self.get_parser().maps, self.get_parser().jitdumps = [], []

    def set_option_value(self, exe_ctx, opt_name, opt_value):
        # --map and --jitdump add up: a process can leave several.
        parser = self.get_parser()
        if opt_name in ("map", "jitdump"):
            (parser.maps if opt_name == "map" else parser.jitdumps).append(opt_value)
            return True
        return super().set_option_value(exe_ctx, opt_name, opt_value)

    def get_short_help(self):
        return "Name the addresses of a crash log or backtrace with a process's JIT symbols."

    def get_long_help(self):
        return ("\nNames the addresses in FILE (a Node or JVM fatal error report, kernel "
                "'segfault at ... ip ...' lines, a pasted bt, a list of addresses) with the "
                "JIT symbols a process left behind (at least one of --map, --jitdump, --dir), "
                "and its own binaries when a snapshot has its memory map. With no FILE, or "
                "'-', reads the text from the terminal until Ctrl-D; never from a pipe.")

    def __call__(self, debugger, args, exe_ctx, result):
        parser = self.get_parser()
        # LLDB gives the arguments as an SBStructuredData array of strings.
        arguments = [args.GetItemAtIndex(i).GetStringValue(4096) for i in range(args.GetSize())]
        sources = parser.maps + parser.jitdumps + ([parser.snapshot] if parser.snapshot else [])
        try:
            if len(arguments) > 1:
                raise SymbolicateError("one FILE at a time, not %d" % len(arguments))
            if not sources:  # before a terminal is read
                raise SymbolicateError("name the symbols: --map, --jitdump or --dir")
            text, name = read_text(arguments[0] if arguments else None, debugger)
            symbolicated, warnings = symbolicate(debugger, sources, text, name)
        except SymbolicateError as e:
            result.SetError("jit-symbolicate: %s" % e)
            return
        result.Print(symbolicated)
        for warning in warnings:
            result.AppendWarning(warning)
        result.SetStatus(lldb.eReturnStatusSuccessFinishResult)
