"""The ``migrator`` command line."""

from __future__ import annotations

import json
import os
import sys
import tempfile
from contextlib import contextmanager, redirect_stdout
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Dict, NoReturn, Optional, Sequence, Tuple

import click

from . import __version__
from .engine.collector import FEWER_COLLECTIONS
from .maps.load import TargetSpecError, resolve_targets
from .model import Category
from .pipeline import ScanRequest, scan as run_scan
from .report import FORMATTERS, View
from .safe_write import REPORT_ERRORS, atomic_text, write_text


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, "-V", "--version", prog_name="migrator")
def main() -> None:
    """How ready is PyTorch CUDA code for Ascend (cann), Cambricon (neuware) and Kunlunxin (kunlun)?"""
    for stream in (sys.stdout, sys.stderr):  # a file name that is not UTF-8 prints as its escape, never a traceback
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is not None:
            reconfigure(errors="backslashreplace")


def _selection_options(command):
    """``--select`` / ``--ignore``, the same on scan, fix and check (ruff's spelling)."""
    command = click.option("--ignore", "ignore", multiple=True, metavar="RULES",
                           help="Rules or categories to leave out (comma-separated; default: [tool.migrator] "
                                "ignore).")(command)
    return click.option("--select", "select", multiple=True, metavar="RULES",
                        help="Only these rules or categories (comma-separated: device,amp,torch-op; default: "
                             "[tool.migrator] select, else all).")(command)


def _config_options(command):
    """``--config`` / ``--isolated`` / ``--show-settings``, the same on scan, fix and check."""
    command = click.option("--show-settings", is_flag=True,
                           help="Print the settings this command would run with ([tool.migrator] after the command "
                                "line's options, and where they were read) and exit.")(command)
    command = click.option("--isolated", is_flag=True,
                           help="Ignore every configuration file: the defaults and the command line only.")(command)
    return click.option("--config", "config_file", type=click.Path(exists=True, dir_okay=False, path_type=Path),
                        help="Read [tool.migrator] from this TOML file (a pyproject.toml, or a file with the keys at "
                             "its top level) instead of the project's pyproject.toml.")(command)


def _output_folder(ctx, param, value: Optional[Path]) -> Optional[Path]:
    """An output file's folder, created when the option is read: before the scan, not after it."""
    if value is not None and str(value) != "-":
        try:
            value.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise click.BadParameter(f"cannot create the folder {value.parent}: {exc.strerror or exc}") from exc
    return value


def _selection(config, select: Tuple[str, ...], ignore: Tuple[str, ...]):
    """The command line's selectors where given, else the configuration's; an unknown one is exit 2."""
    from .selection import Selection, SelectionError

    try:
        return Selection.parse(select or config.select, ignore or config.ignore)
    except SelectionError as exc:
        raise click.BadParameter(str(exc), param_hint="--select/--ignore") from exc


@main.command()
@click.argument("path", type=click.Path(exists=True, path_type=Path))
@click.option("--target", "targets",
              help="Comma-separated targets, each optionally with a version: cann@2.7-9.1,neuware (default: "
                   "[tool.migrator] targets, else every target folder of the maps).")
@click.option("--format", "fmt", type=click.Choice(sorted(FORMATTERS)), default="text", show_default=True)
@click.option("--output", "-o", type=click.Path(dir_okay=False, path_type=Path), callback=_output_folder,
              help="Write the report here (its folder is created).")
@click.option("--jobs", "-j", type=click.IntRange(min=1), help="Worker processes (default: one per core).")
@click.option("--no-cache", is_flag=True, help="Do not read or write the analysis cache ($XDG_CACHE_HOME/migrator).")
@click.option("--entry", "entries", multiple=True, metavar="MODULE[:FUNC]",
              help="An entry point of the training path, in addition to those found (__main__ blocks, train*.py, ...).")
@click.option("--trace", "trace_file", type=click.Path(exists=True, dir_okay=False, path_type=Path),
              help="A migrator.trace/1 file (`migrator trace`) to join: the ops that really ran on the device in "
                   "the training step (host work is counted, not reported).")
@click.option("--fail-on", help="Exit 1 when a finding on the training path has one of these statuses on a chosen "
                                "target (comma-separated: rewrite,port,unsupported,...), for CI.")
@click.option("--show", type=click.Choice(["summary", "all", "tune"]), default="summary", show_default=True,
              help="Text: per target readiness, plan and blockers; `all` adds every finding by file and rule; "
                   "`tune` adds what stalls the device on the training step.")
@click.option("--verbose", "-v", is_flag=True, help="Text: --show all, and the vendors' notes as they wrote them (the "
                                                    "default says each in English by its kind).")
@click.option("--quiet", "-q", is_flag=True, help="Text: one line per target (readiness and effort).")
@click.option("--color", type=click.Choice(["auto", "always", "never"]), default="auto", show_default=True,
              help="Text: status words in colour; `auto` on a terminal unless NO_COLOR is set.")
@click.option("--exact-fixable", is_flag=True,
              help="Run `fix`'s own decisions in the scan, so that what it counts as fixable is exactly what `fix` "
                   "applies on this tree (slower: `fix`'s work per target; without it a safe rewrite counts as "
                   "fixable even where `fix` would hold it back).")
@_selection_options
@_config_options
def scan(path: Path, targets: str, fmt: str, output: Optional[Path], jobs: Optional[int], no_cache: bool,
         entries: Tuple[str, ...], trace_file: Optional[Path], fail_on: Optional[str], show: str, verbose: bool,
         quiet: bool, color: str, exact_fixable: bool, select: Tuple[str, ...], ignore: Tuple[str, ...],
         config_file: Optional[Path], isolated: bool, show_settings: bool) -> None:
    """Scan PATH (a repository, folder or file) and report what ties it to CUDA, per target.

    Static: nothing under PATH is run. With --trace, the ops a `migrator trace` run recorded are joined in.
    Exit 0 when the scan completed (1 with --fail-on when such a finding is on the training path), 2 on
    usage errors.
    """
    from .engine.cache import open_cache
    from .gate.config import ConfigError, parse_statuses

    try:
        failing = parse_statuses([s for s in fail_on.split(",") if s.strip()], "--fail-on") if fail_on else ()
    except ConfigError as exc:
        raise click.BadParameter(str(exc), param_hint="--fail-on") from exc
    config = _project_config(path, config_file, isolated)
    chosen = _targets(targets, config.targets)
    selection = _selection(config, select, ignore)
    if show_settings:
        _show_settings(config, chosen, selection)
        return
    if fmt == "html" and output is None:  # a page is not for the terminal: a file, named on stderr (`fix` does
        output = Path("migrator-report.html")  # not count it as an uncommitted change: fix/own_outputs.py)
    trace = None
    if trace_file is not None:
        from .trace.document import TraceError, load_trace

        try:
            trace = (load_trace(trace_file), str(trace_file))
        except TraceError as exc:
            raise click.BadParameter(str(exc), param_hint="--trace") from exc
    report = run_scan(ScanRequest(path, chosen, entries=entries, trace=trace, exclude=_exclusions(config, path),
                                  selection=selection, jobs=jobs,
                                  cache=None if no_cache else open_cache(), progress=_progress_bar(),
                                  collector=FEWER_COLLECTIONS, settle=_settle() if exact_fixable else None))
    for spec in report.graph.unresolved_entries if report.graph else ():
        click.echo(f"warning: --entry {spec} names no module or function in {path}", err=True)
    with FEWER_COLLECTIONS.keeping():  # the scan's objects live until the end: collections while writing skip them
        view = View(show="all" if verbose else show, quiet=quiet, color=_colour(color, output),
                    width=_width(output), quote=verbose)
        _write(lambda out: FORMATTERS[fmt](report, out, view), output)
    if failing:
        from .assess import counted
        from .evidence import active

        hits = [f for f in counted(report.findings) if f.reachable is not False
                and any(v.status in failing and active(v) for v in f.verdicts.values())]
        if hits:
            click.echo(f"{len(hits)} finding(s) on the training path at {', '.join(s.value for s in failing)} "
                       f"(first: {hits[0].path}:{hits[0].span.line or '-'} {hits[0].api})", err=True)
            sys.exit(1)


@main.command()
@click.argument("files", nargs=-1, type=click.Path(path_type=Path))
@click.option("--target", "targets", help="Targets to hold the code to (default: [tool.migrator] targets, else all).")
@click.option("--fail-on", help="Statuses that fail (default: [tool.migrator] fail-on, else rewrite,port,unsupported).")
@click.option("--exclude", multiple=True, help="Glob of paths to leave out (adds to [tool.migrator] exclude).")
@click.option("--baseline", "baseline", type=click.Path(dir_okay=False, path_type=Path),
              help="Baseline file (default: [tool.migrator] baseline, else .migrator-baseline.json).")
@click.option("--write-baseline", is_flag=True, help="Record the current findings as accepted; prune fixed ones.")
@click.option("--report-unused-suppressions", is_flag=True, help="List '# migrator: ignore' comments that match "
                                                                 "nothing.")
@click.option("--format", "fmt", type=click.Choice(["text", "json", "sarif"]), default="text", show_default=True)
@click.option("--output", "-o", type=click.Path(dir_okay=False, path_type=Path), callback=_output_folder,
              help="Write the result here (its folder is created) instead of onto stdout.")
@click.option("--color", type=click.Choice(["auto", "always", "never"]), default="auto", show_default=True,
              help="Text: the failing lines' places and statuses in colour; `auto` on a terminal unless "
                   "NO_COLOR is set.")
@click.option("--no-cache", is_flag=True, help="Do not read or write the analysis cache.")
@click.option("--jobs", "-j", type=click.IntRange(min=1), help="Worker processes (default: one per core).")
@click.option("--stdin-filename", type=click.Path(path_type=Path),
              help="With FILES `-`: the path the code read from stdin has in the project (an editor's buffer).")
@click.option("--quiet", "-q", is_flag=True, help="Text: the failing lines only, no summary.")
@click.option("--verbose", "-v", is_flag=True,
              help="Text: also the findings the baseline and suppressions let through, and the vendors' notes "
                   "as they wrote them.")
@_selection_options
@_config_options
def check(files, targets, fail_on, exclude, baseline, write_baseline, report_unused_suppressions, fmt, output, color,
          no_cache, jobs, stdin_filename, quiet, verbose, select, ignore, config_file, isolated,
          show_settings) -> None:
    """Fail on new CUDA-only code: with FILES (as pre-commit passes them) check those, else the whole repo.

    Exit 0 when clean, 1 when a finding at a failing status is neither suppressed nor in the baseline, or a
    file could not be checked (a syntax error, a size past the cap, a statement nested too deeply to read), 2 on
    usage or configuration errors. FILES `-` reads the code from stdin (with --stdin-filename: its path in the
    project, whose root is found from the current folder).
    """
    options = _CheckOptions(targets, fail_on, tuple(exclude), baseline, report_unused_suppressions, fmt, output,
                            color, no_cache, jobs, select, ignore, config_file, isolated, show_settings,
                            verbose - quiet)
    if "-" in [str(f) for f in files]:
        if len(files) > 1 or write_baseline:
            click.echo("migrator: `-` (stdin) is checked alone, and never written to the baseline", err=True)
            sys.exit(2)
        name = stdin_filename or Path("stdin.py")
        with _stdin_as_file(name, options) as (place, folder):
            _run_check([place], False, options, stdin=(name, folder))
        return
    missing = [f for f in files if not Path(f).exists()]
    if missing:
        click.echo(f"migrator: no such file or folder: {missing[0]}", err=True)
        sys.exit(2)
    _run_check(files, write_baseline, options)


@dataclass(frozen=True)
class _CheckOptions:
    """``check``'s options, as given on its command line."""

    targets: Optional[str]
    fail_on: Optional[str]
    exclude: Tuple[str, ...]
    baseline: Optional[Path]
    report_unused_suppressions: bool
    fmt: str
    output: Optional[Path]
    color: str
    no_cache: bool
    jobs: Optional[int]
    select: Tuple[str, ...]
    ignore: Tuple[str, ...]
    config_file: Optional[Path]
    isolated: bool
    show_settings: bool
    verbosity: int


#: What `check -` reads of stdin at most (the scan's own size cap for one file).
_STDIN_CAP = 8 << 20


@contextmanager
def _stdin_as_file(name: Path, options: "_CheckOptions"):
    """stdin written where ``name`` sits in its project, under a temporary folder: the check reads it like a
    file (suppressions, notebooks by their suffix) and reports it by ``name``'s path in the project (from the
    project's root: its pyproject.toml's folder, else its repository's top, else the current folder)."""
    from .gate.config import ConfigError, load_config

    data = click.get_binary_stream("stdin").read(_STDIN_CAP + 1)
    if len(data) > _STDIN_CAP:
        click.echo(f"migrator: stdin is larger than {_STDIN_CAP >> 20} MiB: not checked", err=True)
        sys.exit(2)
    real = name.resolve()
    try:
        rel = real.relative_to(load_config([real], options.config_file, options.isolated).root).as_posix()
    except (ValueError, ConfigError):  # outside its configuration's folder, or a configuration that cannot be
        # read (`_run_check` says so and exits 2)
        rel = real.name
    with tempfile.TemporaryDirectory(prefix="migrator-stdin-") as folder:
        place = Path(folder) / rel
        place.parent.mkdir(parents=True, exist_ok=True)
        place.write_bytes(data)
        yield place, Path(folder)


def _run_check(files, write_baseline: bool, options: _CheckOptions, stdin: Optional[Tuple[Path, Path]] = None) -> None:
    """``check`` once its files are known; ``stdin``: the name given to stdin's code and the temporary folder
    it was written to (the configuration is the name's, the files are checked from the folder)."""
    from dataclasses import replace as _replace

    from .engine.cache import open_cache
    from .gate.check import run_check
    from .gate.config import ConfigError, load_config, parse_statuses
    from .gate.output import render_check

    try:
        config = load_config([stdin[0]] if stdin else (list(files) or [Path.cwd()]), options.config_file,
                             options.isolated)
        if options.exclude:
            config = _replace(config, exclude=config.exclude + options.exclude)
        if options.baseline is not None:
            config = _replace(config, baseline=str(options.baseline.resolve()), baseline_named=True)
        if options.select or options.ignore:  # the command line's, where given (checked like the configuration's)
            chosen_rules = _selection(config, options.select, options.ignore)
            config = _replace(config, select=tuple(chosen_rules.select), ignore=tuple(chosen_rules.ignore))
        if options.fail_on:
            config = _replace(config, fail_on=parse_statuses([s for s in options.fail_on.split(",") if s.strip()],
                                                             "--fail-on"))
        spec = [t for t in (options.targets.split(",") if options.targets else config.targets) if t.strip()]
        chosen = resolve_targets(spec or None)
        if options.show_settings:
            _show_settings(config, chosen)
            return
        if stdin:  # the project's baseline and settings, the code from the temporary folder
            config = _replace(config, root=stdin[1], baseline=str(config.baseline_path))
        result = run_check(config, chosen, [Path(f) for f in files], config.fail_on, jobs=options.jobs,
                           cache=None if options.no_cache else open_cache(), write=write_baseline,
                           collector=FEWER_COLLECTIONS)
    except ConfigError as exc:
        _config_error(exc)
    except TargetSpecError as exc:
        click.echo(f"migrator: {exc}", err=True)
        sys.exit(2)
    except Exception as exc:  # a broken baseline file, say
        from .gate.baseline import BaselineError

        if isinstance(exc, BaselineError):
            click.echo(f"migrator: {exc}", err=True)
            sys.exit(2)
        raise
    color = _colour(options.color, options.output)
    _write(lambda out: render_check(result, options.fmt, out, options.report_unused_suppressions, options.verbosity,
                                    color=color, width=_width(options.output)), options.output)
    sys.exit(result.exit_code)


@main.group()
def maps() -> None:
    """Build or inspect the operator maps."""


@maps.command("build")
@click.option("--upstream", type=click.Path(exists=True, file_okay=False, path_type=Path),
              default=Path("operator_maps/upstream"), show_default=True,
              help="Folder with the vendors' raw files (cann/, neuware/, kunlun/, pytorch/; see its PROVENANCE.md).")
@click.option("--out", type=click.Path(file_okay=False, path_type=Path), default=Path("operator_maps"),
              show_default=True)
def maps_build(upstream: Path, out: Path) -> None:
    """Regenerate operator_maps/ from the vendors' published data."""
    from .mapsbuild.build import MapsBuildError, write_maps

    try:
        written = write_maps(upstream, out)
    except MapsBuildError as exc:
        raise click.ClickException(str(exc)) from exc
    click.echo(f"wrote {len(written)} files under {out}")


@maps.command("update")
@click.argument("lines", nargs=-1)
@click.option("--index", default="https://pypi.org/pypi", show_default=True,
              help="The package index's JSON API (a mirror, or a local folder as file:///path laid out the same way).")
@click.option("--upstream", type=click.Path(exists=True, file_okay=False, path_type=Path),
              default=Path("operator_maps/upstream"), show_default=True,
              help="Folder with the vendors' raw files; the fetched lists are added to it.")
@click.option("--out", type=click.Path(file_okay=False, path_type=Path), default=Path("operator_maps"),
              show_default=True)
def maps_update(lines: Tuple[str, ...], index: str, upstream: Path, out: Path) -> None:
    """Add torch_npu lines from their published wheels and rebuild the maps.

    LINES are torch lines (2.14: that line's newest release) or exact versions (2.12.0.post3); with none, every
    line on the index newer than the newest one held. Each wheel is checked against the index's sha256 before
    anything is written. Offline, it says so, exits 2 and keeps the maps it has.
    """
    from .mapsbuild.build import MapsBuildError, write_maps
    from .mapsbuild.update import UpdateError, update

    try:
        fetched, stored = update(upstream, lines, index=index)
    except UpdateError as exc:
        click.echo(f"maps update: {exc}", err=True)
        sys.exit(2)
    except MapsBuildError as exc:
        raise click.ClickException(str(exc)) from exc
    if not fetched:
        click.echo("the maps already hold every torch_npu line on the index")
        return
    for item in fetched:
        click.echo(f"torch_npu {item.choice.version}: {item.choice.filename} (sha256 {item.choice.sha256[:16]}, "
                   f"checked), {len(item.text)} bytes of registrations")
    try:
        written = write_maps(upstream, out)
    except MapsBuildError as exc:
        raise click.ClickException(str(exc)) from exc
    click.echo(f"wrote {len(stored)} upstream files and {len(written)} map files under {out}")


@maps.command("trace")
@click.option("--native-functions", type=click.Path(exists=True, dir_okay=False, path_type=Path), required=True,
              help="native_functions.yaml naming the APIs no sample covers (e.g. torch 2.7.1's).")
@click.option("--out", type=click.Path(dir_okay=False, path_type=Path), default=Path("operator_maps/torch_api.json"),
              show_default=True)
@click.option("--samples-only", is_flag=True,
              help="Only (re)trace the curated samples of common APIs into the existing table at --out.")
def maps_trace(native_functions: Path, out: Path, samples_only: bool) -> None:
    """Regenerate the torch API table by tracing PyTorch's sample inputs (needs torch and expecttest)."""
    try:
        import torch  # noqa: F401
    except ImportError:
        click.echo("`migrator maps trace` runs torch's samples: pip install torch==2.13.0 expecttest", err=True)
        sys.exit(2)
    from .mapsbuild.trace_api import add_sample_rows, write_table

    if samples_only:
        click.echo(f"{add_sample_rows(out)} curated-sample rows in {out}")
        return
    write_table(native_functions, out)
    click.echo(f"wrote {out}")


@maps.command("signatures")
@click.option("--out", type=click.Path(dir_okay=False, path_type=Path),
              default=Path("operator_maps/signatures.json"), show_default=True)
def maps_signatures(out: Path) -> None:
    """Regenerate the argument names of the APIs the vendors' notes are about (needs torch): a note on an
    argument bites only a call that passes it."""
    try:
        import torch  # noqa: F401
    except ImportError:
        click.echo("`migrator maps signatures` reads torch's signatures: pip install torch==2.13.0", err=True)
        sys.exit(2)
    from .mapsbuild.signatures import noted_apis, write_signatures

    click.echo(f"wrote {write_signatures(noted_apis(), out)}")


@maps.command("show")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True)
def maps_show(fmt: str) -> None:
    """What the data covers: per target and version, the runtime, sources and aten ops by status."""
    from .mapsbuild.show import maps_summary, render_summary

    summary = maps_summary()
    if fmt == "json":
        click.echo(json.dumps(summary, indent=2, ensure_ascii=False))
    else:
        click.echo(render_summary(summary), nl=False)


@main.command()
@click.argument("path", type=click.Path(exists=True, path_type=Path))
@click.option("--target", "target", help="The one target to rewrite for: cann or neuware (with @version; default: "
                                        "[tool.migrator] targets when it names one).")
@click.option("--diff", "show_diff", is_flag=True, help="Print a unified diff and change nothing.")
@click.option("--unsafe", is_flag=True, help="Also apply rewrites that may change behaviour (a shared constant, ...).")
@click.option("--force", is_flag=True,
              help="Run even when git reports uncommitted changes under PATH, or cannot be asked about it.")
@click.option("--no-cache", is_flag=True, help="Do not read or write the analysis cache.")
@click.option("--log", "log_path", type=click.Path(dir_okay=False, path_type=Path), callback=_output_folder,
              help="Also write the change log here (Markdown: one row per changed line, before and after).")
@click.option("--style", type=click.Choice(["portable", "vendor"]), default="portable", show_default=True,
              help="portable: write device management with torch.accelerator (runs on CUDA, the CPU and the target) "
                   "where the target's torch line and the vendor's API list support it, a file at a time; vendor: "
                   "always the vendor's names (torch_npu.npu.*, torch.mlu.*) and its plugin import.")
@click.option("--shim", is_flag=True,
              help="Instead of rewriting, add the vendor's runtime patcher (transfer_to_npu, gpu_migration) at "
                   "each entry point, and say which findings it covers at run time and which it does not.")
@click.option("--quiet", "-q", is_flag=True, help="Only the summary line (no line per change or held-back edit).")
@click.option("--check", "check", is_flag=True,
              help="RUNS THE REPOSITORY'S CODE: import each changed module in a subprocess before and after the "
                   "write, and report the ones the fix broke (exit 1 if any). Modules whose top level does more "
                   "than define are not imported; training is not run. Opt in only for code you trust.")
@click.option("--check-timeout", type=click.FloatRange(min=1), default=60.0, show_default=True,
              help="Seconds each --check import may take.")
@_selection_options
@_config_options
def fix(path: Path, target: Optional[str], show_diff: bool, unsafe: bool, force: bool, no_cache: bool,
        log_path: Optional[Path], style: str, shim: bool, quiet: bool, check: bool, check_timeout: float,
        select: Tuple[str, ...], ignore: Tuple[str, ...], config_file: Optional[Path], isolated: bool,
        show_settings: bool) -> None:
    """Apply the exact rewrites for one target to the files under PATH (libcst; comments and layout kept).

    Only safe rewrites apply unless --unsafe. Files are replaced atomically; nothing outside PATH is touched.
    Refuses to write on a dirty git tree unless --force (a clean tree makes the change reviewable and revertible).
    """
    from .discover import discover
    from .engine.cache import open_cache
    from .fix import file_digests, fix_report
    from .fix.log import change_lines, markdown_log
    from .fix.shim import shim_fixes
    from .rules.base import cuda_names

    config = _project_config(path, config_file, isolated)
    selection = _selection(config, select, ignore)
    chosen = _fix_target(target, config)
    if show_settings:
        _show_settings(config, chosen, selection)
        return
    if check and show_diff:
        raise click.BadParameter("--check imports what was written: it cannot go with --diff", param_hint="--check")
    if not cuda_names(chosen[0]).rewritten:
        click.echo(f"{chosen[0].id} keeps CUDA spellings ({chosen[0].runtime_facts.name}): there is nothing to "
                   "rewrite mechanically", err=True)
        return
    if not show_diff and not force:
        _refuse_a_dirty_tree(path)
    from .pipeline import without_excluded

    found = without_excluded(discover(path), _exclusions(config, path))  # [tool.migrator] exclude
    scanned = file_digests(path, found.files)
    report = run_scan(ScanRequest(path, chosen, files=found.files, selection=selection, call_graph=shim,
                                  cache=None if no_cache else open_cache(), collector=FEWER_COLLECTIONS))
    result = (shim_fixes(path, report, chosen[0], scanned=scanned) if shim
              else fix_report(path, report, chosen[0], unsafe=unsafe, scanned=scanned, style=style))
    for item in result.files:
        if item.error:
            click.echo(f"{item.path}: {item.error}", err=True)
        for skipped in () if quiet else item.skipped:
            click.echo(f"{item.path}:{skipped.line or '-'}: {skipped.rule}: not applied: {skipped.reason}", err=True)
    written, imported_before = _written(path, result, show_diff, check, check_timeout)
    for line in () if quiet else change_lines(written):
        click.echo(line, err=True)
    if log_path is not None:
        _write_file(log_path, markdown_log(written, chosen[0].id, written=not show_diff,
                                                 planned=result.files))
    if shim:
        _echo_shim_coverage(report, chosen[0].id, len(written), show_diff)
        return
    _echo_fix_summary(result, written, chosen[0].id, show_diff=show_diff, unsafe=unsafe, style=style, quiet=quiet)
    if check and not show_diff:
        _echo_import_check(path, written, chosen[0], imported_before, check_timeout)


def _fix_target(target: Optional[str], config) -> tuple:
    """The one target ``fix`` rewrites for: ``--target``, else the one ``[tool.migrator] targets`` names."""
    if target is None and len(config.targets) != 1:
        listed = f" ({config.path} lists {', '.join(config.targets)})" if config.targets else ""
        raise click.UsageError(f"fix rewrites for one target: give --target cann or --target neuware{listed}")
    chosen = _targets(target or config.targets[0])
    if len(chosen) != 1:
        raise click.BadParameter("give exactly one target", param_hint="--target")
    return chosen


def _refuse_a_dirty_tree(path: Path) -> None:
    """Exit 2 unless git says the tree under ``path`` has no uncommitted change (``--force`` skips this)."""
    from .fix import tree_state

    state = tree_state(path)
    if state.error is not None:
        click.echo(f"refusing to write: git could not be asked whether {path} has uncommitted changes "
                   f"({state.error}); fix that, or pass --force", err=True)
        sys.exit(2)
    if state.dirty:
        click.echo(f"refusing to write: {len(state.dirty)} uncommitted change(s) under {path} (first: "
                   f"{state.dirty[0]}); commit or stash them, or pass --force", err=True)
        sys.exit(2)


def _written(path: Path, result, show_diff: bool, check: bool, check_timeout: float) -> tuple:
    """(the files written, or with ``--diff`` the diff printed and the files that would be; what ``--check``
    imported before the write). Exit 1 when a write failed."""
    from .fix import write_fixes

    if show_diff:
        click.echo("".join(item.diff() for item in result.changed), nl=False)
        return result.changed, {}
    imported_before = {}
    if check:
        from .fix.check import import_all

        imported_before = import_all(path, [item.path for item in result.changed], check_timeout)
    outcome = write_fixes(path, result.changed)
    for problem in outcome.problems:
        click.echo(problem, err=True)
    if outcome.failed:
        sys.exit(1)
    done = set(outcome.written)  # files changed under the run are not written
    return tuple(item for item in result.changed if item.path in done), imported_before


def _echo_fix_summary(result, written, target: str, *, show_diff: bool, unsafe: bool, style: str,
                      quiet: bool) -> None:
    """The closing line of ``fix``: what it applied, in which style, what it held back and what is left."""
    applied = sum(len(item.applied) for item in written)
    verb = "would apply" if show_diff else "applied"
    held = sum(len(item.skipped) for item in result.files)
    portable = [item for item in written if item.style == "portable"]
    if style == "portable" and written and not quiet:
        for item in written:
            if item.style_note:
                click.echo(f"{item.path}: vendor style: {item.style_note}", err=True)
    click.echo(f"{verb} {applied} rewrite(s) in {len(written)} file(s) for {target}; "
               + (f"{len(portable)} of the files in the portable style (torch.accelerator); " if style == "portable"
                  else "")
               + f"{result.not_offered} other rewrite(s) need a hand (see `migrator scan`)"
               + (f"; {held} held back, each with its reason above" if held else "")
               + ("" if unsafe else "; --unsafe adds the ones that may change behaviour"), err=True)


def _echo_import_check(path: Path, written, target, imported_before, check_timeout: float) -> None:
    """``--check``: each changed module imported again after the write, compared; exit 1 if the fix broke one."""
    from .fix.check import compared, import_all, report_lines

    plugin = target.import_first.split()[-1] if target.import_first else None
    checks = compared(imported_before, import_all(path, [item.path for item in written], check_timeout))
    for line in report_lines(checks, plugin):
        click.echo(line, err=True)
    if any(c.broken for c in checks):
        sys.exit(1)


def _echo_shim_coverage(report, target: str, files: int, show_diff: bool) -> None:
    """What the shim covers of the findings at run time, and the ones still to change by hand."""
    from .shim import shims

    plan = next((p.shim for p in report.plans if p.target.split("@")[0] == target), None)  # the report's
    if plan is None:
        click.echo(f"{target} has no runtime patcher in the bundled data: nothing to add", err=True)
        return
    verb = "would add" if show_diff else "added"
    click.echo(f"{verb} the shim ({'; '.join(plan.imports)}) to {files} entry point file(s); from "
               f"{shims()[target].source}:", err=True)
    by_id = {f.id: f for f in report.judged}
    if plan.differs:  # first: the shim runs these, and they return None or raise where CUDA's answered
        click.echo(f"  swapped, but the vendor notes they behave otherwise ({len(plan.differs)}): fix them by hand "
                   "first", err=True)
        for finding_id in plan.differs[:20]:
            finding = by_id[finding_id]
            click.echo(f"    {finding.path}:{finding.span.line or '-'}: {finding.api}: "
                       f"{finding.snippet.strip()[:80]}", err=True)
    click.echo(f"  covered at run time: {len(plan.covered)} finding(s); covered where the value reaches a patched "
               f"call: {len(plan.if_passed)}; not covered: {len(plan.not_covered)}; behaves otherwise: "
               f"{len(plan.differs)}", err=True)
    for why, count in plan.reasons:
        click.echo(f"  not covered ({count}): {why}", err=True)
    for finding_id in plan.not_covered[:20]:
        finding = by_id[finding_id]
        click.echo(f"    {finding.path}:{finding.span.line or '-'}: {finding.rule}: {finding.snippet.strip()[:80]}",
                   err=True)
    if len(plan.not_covered) > 20:
        click.echo(f"    ... and {len(plan.not_covered) - 20} more (the report's plan lists them all)", err=True)


@main.command()
@click.argument("path", type=click.Path(exists=True, path_type=Path))
@click.option("--format", "fmt", type=click.Choice(["json", "dot"]), default="json", show_default=True)
@click.option("--target", "targets", metavar="TARGETS",
              help="Targets whose blocking findings are counted on the nodes (default: every target folder).")
@click.option("--entry", "entries", multiple=True, metavar="MODULE[:FUNC]", help="An extra entry point.")
@click.option("--output", "-o", type=click.Path(dir_okay=False, path_type=Path), callback=_output_folder,
              help="Write the graph here (its folder is created).")
@click.option("--no-cache", is_flag=True, help="Do not read or write the analysis cache.")
def graph(path: Path, fmt: str, targets: Optional[str], entries: Tuple[str, ...], output: Optional[Path],
          no_cache: bool) -> None:
    """Export the call graph of PATH: modules, classes and functions, calls and imports, entry points, and
    on each node the count of findings by status (worst status over the chosen targets)."""
    from collections import Counter, defaultdict

    from .engine.cache import open_cache
    from .graph import graph_document, reach, to_dot
    from .pipeline import scan_with_graph
    from .report.wording import worst_status

    report, project = scan_with_graph(ScanRequest(path, _targets(targets), entries=entries,
                                                  cache=None if no_cache else open_cache(),
                                                  progress=_progress_bar(), collector=FEWER_COLLECTIONS))
    nodes = report.graph.finding_nodes if report.graph else {}
    by_node: Dict[str, Counter] = defaultdict(Counter)
    for finding in report.judged:  # what each node needs to run (its tuning points are not that)
        if finding.id in nodes and finding.verdicts and finding.category != Category.TUNE:
            by_node[nodes[finding.id]][worst_status(finding).value] += 1
    document = graph_document(project, reach(project), by_node)
    text = to_dot(document) if fmt == "dot" else json.dumps(document, indent=1, ensure_ascii=False) + "\n"
    if output is not None:
        _write_file(output, text)
        click.echo(f"wrote {output}", err=True)
    else:
        click.echo(text, nl=False)


@main.command(context_settings={"ignore_unknown_options": True, "allow_interspersed_args": False})
@click.argument("command", nargs=-1, required=True, type=click.UNPROCESSED)
@click.option("--output", "-o", type=click.Path(dir_okay=False, path_type=Path), default=Path("trace.json"),
              show_default=True, callback=_output_folder, help="Where to write the migrator.trace/1 document.")
@click.option("--steps", type=click.IntRange(min=1), default=2, show_default=True,
              help="Stop after this many optimizer steps.")
@click.option("--device", type=click.Choice(["cpu", "meta", "cuda"]), default="cpu", show_default=True,
              help="cpu: run CUDA code on the CPU (device arguments, .cuda(), torch.cuda.*, AMP, NCCL redirected); "
                   "meta: the same on the meta device (shapes and dtypes, no arithmetic); cuda: a real GPU.")
@click.option("--limit", type=click.FloatRange(min=1), default=600, show_default=True,
              help="Wall-clock seconds before the run is stopped (the ops seen so far are written).")
@click.option("--root", type=click.Path(exists=True, file_okay=False, path_type=Path), default=Path("."),
              show_default=True, help="The project: the command runs there, and call sites are recorded in files "
                                      "under it.")
def trace(command: Tuple[str, ...], output: Path, steps: int, device: str, limit: float, root: Path) -> None:
    """RUNS YOUR CODE: execute COMMAND (e.g. -- python train.py ARGS) and record the aten ops it dispatches.

    Unlike every other migrator command, this one executes the command you give it, with your arguments and
    your files: trace only code you trust. Each op is recorded with its dtypes, a sample shape, its call count,
    its phase (data loading, forward, backward, optimizer), whether its tensors lived on the host or the device,
    and the line of your code that caused it. Compiled CUDA extensions run
    their PyTorch fallback from the custom-op plans where one exists (and the trace says so). Needs torch.
    Merge the trace into a report with `migrator scan PATH --trace trace.json`.
    """
    from .trace.run import Interrupted, TorchMissing, python_command, trace_command

    try:
        run = trace_command(python_command(command), root, device=device, steps=steps, limit=limit)
    except TorchMissing as exc:
        click.echo(str(exc), err=True)
        sys.exit(2)
    except Interrupted as exc:
        click.echo(f"migrator trace: stopped by {exc}: the command's processes were sent it and have ended; "
                   "no trace written", err=True)
        sys.exit(128 + exc.signum)
    except FileNotFoundError as exc:
        click.echo(f"migrator trace: cannot run {command[0]!r}: {exc.strerror}", err=True)
        sys.exit(2)
    document = dict(run.document, command=list(command))  # as the user typed it
    _write_file(output, json.dumps(document, indent=1, ensure_ascii=False) + "\n")
    calls = sum(op["calls"] for op in document["ops"])
    click.echo(f"wrote {output}: {len(document['ops'])} aten ops ({calls} calls) over {document['steps']} "
               f"optimizer step(s); {document['stopped']['detail']}", err=True)
    reads = document.get("data_dependent", ())
    if reads:  # on meta: values the step read back, answered with placeholders
        first = next((r for r in reads if r["path"]), reads[0])
        click.echo(f"  {sum(r['calls'] for r in reads)} data-dependent read(s) at {len(reads)} line(s) (first: "
                   f"{first['path']}:{first['line']}): meta tensors hold no values, so each was answered with a "
                   "placeholder and the branches after it may differ from a real run", err=True)
    crashed = document["stopped"]["reason"] == "error" or (run.returncode != 0 and document["stopped"]["reason"]
                                                           not in ("steps", "limit", "killed"))
    if not document["processes"] or crashed:  # the ops seen so far are written; the run did not succeed
        if crashed:
            click.echo(f"migrator trace: the command failed (exit {run.returncode}): the trace holds what ran before",
                       err=True)
        sys.exit(1)


@main.command()
@click.option("--model", "model_spec", required=True, metavar="MODULE:FACTORY",
              help="A function (or class) under --root that builds the model: model.gpt:build.")
@click.option("--input", "input_spec", metavar="MODULE:FUNC",
              help="Builds the forward's arguments from (batch, seq); default: from the model's first layer.")
@click.option("--batch", type=click.IntRange(min=1), default=8, show_default=True, help="Micro-batch per card.")
@click.option("--seq", type=click.IntRange(min=1),
              help="Sequence length (image side for a convolutional first layer). Default: 2048 tokens; for "
                   "images the size the model declares (timm's input_size, a patch embedding's img_size), else 224.")
@click.option("--dtype", type=click.Choice(["bf16", "fp16", "fp32"]), default="bf16", show_default=True,
              help="Training precision: bf16/fp16 mean mixed precision with fp32 master weights.")
@click.option("--optimizer", type=click.Choice(["adamw", "adam", "sgd-momentum", "sgd"]), default="adamw",
              show_default=True)
@click.option("--cards", type=click.IntRange(min=1), default=8, show_default=True, help="Data-parallel cards.")
@click.option("--target", "targets", metavar="TARGETS",
              help="Targets whose cards to judge (the H100 baseline is always shown; default: every target "
                   "folder).")
@click.option("--root", type=click.Path(exists=True, file_okay=False, path_type=Path), default=Path("."),
              show_default=True, help="Where MODULE is imported from.")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True)
def memory(model_spec: str, input_spec: Optional[str], batch: int, seq: Optional[int], dtype: str, optimizer: str,
           cards: int, targets: Optional[str], root: Path, fmt: str) -> None:
    """RUNS YOUR CODE: build the model with MODULE:FACTORY and estimate per-card memory on each target's card.

    The factory (your code) runs on the meta device and on fake tensors: no weights are allocated and no GPU
    is needed. Parameters, gradients and optimizer states follow the ZeRO accounting for DDP, ZeRO-1/2/3 and
    FSDP, and offload; activations are the maximum over one forward and backward of what autograd holds. For
    each card: whether each plan fits with 20% headroom, the cheapest that does, and the cards needed. Cards come
    from operator_maps/cards.json, with [tool.migrator.cards] overrides. Needs torch.
    """
    from .gate.config import ConfigError, load_config
    from .memory.cards import CardError, load_cards
    from .memory.fit import MemoryEstimate, estimate_assumptions, fit_all
    from .memory.measure import (FactoryError, TorchMissing, load_factory, measure_activations, model_facts,
                                 require_torch)
    from .memory.render import RENDERERS

    chosen = {t.id for t in _targets(targets)}
    try:
        require_torch()
        known = load_cards(load_config([root]).cards)
        # the user's factory may print (nanoGPT does): its prints go to stderr, the report alone to stdout
        with redirect_stdout(sys.stderr):
            factory = load_factory(model_spec, root)
            make_input = load_factory(input_spec, root) if input_spec else None
            facts = model_facts(factory, batch, seq, make_input)
            activations = measure_activations(factory, batch, seq, dtype, make_input)
    except (TorchMissing, ConfigError, CardError) as exc:
        click.echo(f"migrator memory: {exc}", err=True)
        sys.exit(2)
    except FactoryError as exc:
        click.echo(f"migrator memory: {exc}", err=True)
        sys.exit(1)
    picked = [c for c in known if c.baseline or c.target in chosen or c.target is None]
    estimate = MemoryEstimate(model=model_spec, facts=facts, batch=batch, seq=facts.seq or seq, dtype=dtype,
                              optimizer=optimizer, cards=cards, activations=activations,
                              fits=fit_all(picked, facts, activations, dtype, optimizer, cards),
                              assumptions=estimate_assumptions(dtype, optimizer))
    RENDERERS[fmt](estimate, click.get_text_stream("stdout"))


@main.command()
@click.argument("repos", nargs=-1, type=click.Path(path_type=Path))
@click.option("--list", "listing", type=click.Path(exists=True, dir_okay=False, path_type=Path),
              help="A file of repository paths, one per line (# comments and blank lines ignored).")
@click.option("--target", "targets", metavar="TARGETS",
              help="Comma-separated targets, each optionally with a version (default: every target folder of "
                   "the maps).")
@click.option("--scheduler", metavar="ADDRESS",
              help="A Dask scheduler (tcp://host:8786); its workers need migrator and the repositories at the "
                   "same paths. Default: a LocalCluster on this machine.")
@click.option("--workers", type=click.IntRange(min=1), help="LocalCluster worker processes (default: one per core).")
@click.option("--timeout", type=click.FloatRange(min=1), default=1800, show_default=True,
              help="Seconds one repository may take; past it the repository is a timeout row.")
@click.option("--format", "fmt", type=click.Choice(["text", "json", "html"]), default="text", show_default=True)
@click.option("--output", "-o", type=click.Path(dir_okay=False, path_type=Path), callback=_output_folder,
              help="Write the portfolio here (its folder is created).")
@click.option("--reports-dir", type=click.Path(file_okay=False, path_type=Path),
              help="Write each repository's own HTML report here (default with --format html and --output: "
                   "a folder next to it, OUTPUT_STEM-repos/).")
@click.option("--no-cache", is_flag=True, help="Do not read or write the analysis cache.")
@click.option("--no-worker-wait", type=click.FloatRange(min=0), default=60, show_default=True,
              help="Seconds to wait for a worker when the scheduler has none (at the start: then exit 1; or after "
                   "losing the last: the repositories left are failed rows).")
def fleet(repos: Tuple[Path, ...], listing: Optional[Path], targets: Optional[str], scheduler: Optional[str],
          workers: Optional[int], timeout: float, fmt: str, output: Optional[Path], reports_dir: Optional[Path],
          no_cache: bool, no_worker_wait: float) -> None:
    """Scan many repositories on Dask distributed and rank what blocks the most of them, per target.

    Each repository is one task (scanned in its own process, with its own time limit); one that fails or
    times out is a row with its reason. Exit 0 when every repository was scanned, 1 when some failed or timed
    out (named on stderr; the portfolio is written all the same) or no worker joined the scheduler, 2 on usage
    errors. Needs the [fleet] extra: pip install 'migrator-accel[fleet]'.
    """
    from .fleet.render import RENDERERS
    from .fleet.run import DaskMissing, NoWorkers, repo_tasks, run_fleet

    targets = targets or ",".join(t.id for t in _targets(None))  # none given: every target folder, named once
    _targets(targets)  # a bad spec is a usage error here, not once per repository
    paths = [str(p) for p in repos] + (_listed(listing) if listing else [])
    if not paths:
        raise click.UsageError("give repositories as arguments or with --list")
    if reports_dir is None and fmt == "html" and output is not None:
        reports_dir = output.parent / f"{output.stem}-repos"
    tasks = repo_tasks(paths, targets, timeout, html=reports_dir is not None, cache=not no_cache)
    try:
        portfolio = run_fleet(tasks, scheduler=scheduler, workers=workers, reports_dir=reports_dir,
                              link_base=output.parent if output is not None else None, progress=_fleet_progress(),
                              no_worker_timeout=no_worker_wait)
    except DaskMissing as exc:
        click.echo(str(exc), err=True)
        sys.exit(2)
    except NoWorkers as exc:
        click.echo(f"migrator fleet: {exc}", err=True)
        sys.exit(1)
    _write(lambda out: RENDERERS[fmt](portfolio, out), output)
    failed = [r for r in portfolio.repos if r.status != "ok"]
    if failed:
        click.echo(f"migrator fleet: {len(failed)} of {len(portfolio.repos)} repositories not scanned: "
                   + "; ".join(f"{r.name} ({r.status}: {r.reason})" for r in failed), err=True)
        sys.exit(1)


def _listed(listing: Path) -> list:
    lines = (line.split("#", 1)[0].strip() for line in listing.read_text(encoding="utf-8").splitlines())
    base = listing.parent
    return [str(base / line) if not Path(line).is_absolute() else line for line in lines if line]


def _fleet_progress():
    """One line per repository as it finishes, on a terminal."""
    if not sys.stderr.isatty():
        return None

    def show(done: int, total: int, row) -> None:
        what = f"{row.status}: {row.reason}" if row.status != "ok" else \
            ", ".join(f"{t.id} {t.readiness}%" for t in row.targets)
        click.echo(f"[{done}/{total}] {row.name} ({row.seconds:g} s): {what}", err=True)
    return show


@main.command()
@click.argument("apis", nargs=-1)
@click.option("--from", "from_file", type=click.File("r", encoding="utf-8"),
              help="Also explain the APIs listed in this file (one a line; blank lines and # comments skipped; - for "
                   "standard input).")
@click.option("--target", "targets", metavar="TARGETS",
              help="Comma-separated targets, each optionally with a version (default: every target folder of "
                   "the maps).")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True)
@click.option("--dtypes", default="fp32,fp16,bf16", show_default=True,
              help="The float dtypes the project computes in: a vendor's dtype note bites when it leaves one out.")
@click.option("--verbose", "-v", is_flag=True,
              help="Text: each vendor note as the vendor wrote it (the default says them by kind, counted).")
def explain(apis: Tuple[str, ...], from_file, targets: Optional[str], fmt: str, dtypes: str, verbose: bool) -> None:
    """The aten ops each Python API runs and each target's verdict, message and source.

    APIS are fully qualified names: torch.nn.functional.ctc_loss, torch.Tensor.masked_fill,
    torch.cuda.synchronize. With several (or --from), --format json is one document: {"apis": [...],
    "unknown": [...]}. An unknown or misspelt API is named with close matches, and makes the exit status 2;
    every target is answered (`unknown` where its data says nothing).
    """
    from .explain import UnknownApi, explain_api, render_explanation

    wanted_apis = list(apis) + ([line.split("#", 1)[0].strip() for line in from_file] if from_file else [])
    wanted_apis = list(dict.fromkeys(a for a in wanted_apis if a))
    if not wanted_apis:
        click.echo("give at least one API, or --from FILE", err=True)
        sys.exit(2)
    chosen = _targets(targets)
    wanted = [d.strip() for d in dtypes.split(",") if d.strip()]
    if not wanted or any(d not in ("fp32", "fp16", "bf16") for d in wanted):
        click.echo(f"--dtypes takes fp32, fp16 and bf16, comma-separated; got {dtypes!r}", err=True)
        sys.exit(2)
    results, unknown = [], []
    for api in wanted_apis:
        try:
            results.append(explain_api(api, chosen, wanted))
        except UnknownApi as exc:
            unknown.append({"api": api, "error": str(exc)})
    if fmt == "json" and len(wanted_apis) == 1 and results:
        click.echo(json.dumps(results[0], indent=2, ensure_ascii=False))  # one API: its document, as before
    elif fmt == "json":
        click.echo(json.dumps({"schema": "migrator.explain/1", "apis": results, "unknown": unknown}, indent=2,
                              ensure_ascii=False))
    else:
        from .report.terminal import Wrapping

        width = _width(None)
        stdout = Wrapping(click.get_text_stream("stdout"), width)
        stdout.write("\n".join(render_explanation(result, verbose, width) for result in results))
        stdout.flush()
    for item in unknown:
        click.echo(item["error"], err=True)
    if unknown:
        sys.exit(2)


@main.command("rules")
@click.argument("name", required=False)
@click.option("--format", "fmt", type=click.Choice(["text", "markdown"]), default="text", show_default=True)
def rules_command(name: Optional[str], fmt: str) -> None:
    """List the rules, or print one rule's documentation: what it does, why, an example with each target's
    verdict and what `fix` writes, and how safe its fix is. The examples are checked by the test suite."""
    from .rules import DOCUMENTED_RULES
    from .rules.docs import rule_doc

    if name is None:
        width = max(len(rule.name) for rule in DOCUMENTED_RULES)
        for rule in DOCUMENTED_RULES:
            click.echo(f"{rule.name:<{width}}  {rule.category.value:<12} {rule.summary}")
        return
    found = next((rule for rule in DOCUMENTED_RULES if rule.name == name), None)
    if found is None:
        click.echo(f"unknown rule {name!r}; `migrator rules` lists them", err=True)
        sys.exit(2)
    doc = rule_doc(found)
    click.echo(doc.markdown() if fmt == "markdown" else doc.text(), nl=False)


def _colour(choice: str, output: Optional[Path]) -> bool:
    """``--color``: ``auto`` is colour on a terminal, unless ``NO_COLOR`` is set to anything (no-color.org)."""
    if choice != "auto":
        return choice == "always"
    return output is None and not os.environ.get("NO_COLOR") and click.get_text_stream("stdout").isatty()


def _settle():
    """``fix``'s decisions for ``scan --exact-fixable`` (imported only then: a plain scan loads no ``fix``)."""
    from .fix.settle import settled

    return settled


def _width(output: Optional[Path]) -> Optional[int]:
    """The columns text on stdout wraps at: ``$COLUMNS``, else the terminal's; ``None`` (unwrapped) into a file
    or a pipe, as linters print."""
    from .report.terminal import terminal_width

    return None if output is not None else terminal_width(click.get_text_stream("stdout"))


def _write(render, output: Optional[Path]) -> None:
    """``render(stream)`` into ``output`` (and say so on stderr), else onto stdout."""
    if output is None:
        render(click.get_text_stream("stdout"))
        return
    try:
        # never through a link at ``output``; the old file kept on a failure; a name that is not UTF-8 escaped
        with atomic_text(output, errors=REPORT_ERRORS) as out:
            render(out)
    except OSError as exc:
        _cannot_write(output, exc)
    click.echo(f"wrote {output}", err=True)


def _write_file(output: Path, text: str) -> None:
    """``text`` into ``output`` atomically (``safe_write``), or a clear message and exit 2."""
    try:
        write_text(output, text, errors=REPORT_ERRORS)
    except OSError as exc:
        _cannot_write(output, exc)


def _cannot_write(output: Path, exc: OSError) -> NoReturn:
    click.echo(f"migrator: cannot write {output}: {exc.strerror or exc} (any previous file there is unchanged)",
               err=True)
    sys.exit(2)


def _project_config(path: Path, config_file: Optional[Path] = None, isolated: bool = False):
    """``[tool.migrator]`` of the project ``path`` is in (the nearest pyproject.toml above it, or
    ``--config``'s file; none with ``--isolated``). One that cannot be used is exit 2 naming the file and the
    key, as in every command; ``--isolated`` scans a repository whose configuration is broken."""
    from .gate.config import ConfigError, load_config

    try:
        return load_config([path], config_file, isolated)
    except ConfigError as exc:
        _config_error(exc)


def _config_error(exc: Exception) -> NoReturn:
    """A configuration that cannot be used: the same words and exit 2 in every command."""
    click.echo(f"migrator: {exc}\n(correct it, name another file with --config, or leave the configuration out "
               "with --isolated)", err=True)
    sys.exit(2)


def _show_settings(config, chosen, selection=None) -> None:
    """``--show-settings``: the configuration after the command line's options, as a ``[tool.migrator]`` table."""
    from dataclasses import replace as _replace

    from .gate.config import settings_text

    if selection is not None:
        config = _replace(config, select=tuple(sorted(selection.select)), ignore=tuple(sorted(selection.ignore)))
    click.echo(settings_text(config, [t.label for t in chosen]), nl=False)


def _exclusions(config, path: Path):
    """``[tool.migrator] exclude`` for a scan of ``path``: its patterns, and ``path``'s place below the
    configuration's folder (the patterns are written from there)."""
    if not config.exclude:
        return None
    folder = path.resolve() if path.is_dir() else path.resolve().parent
    try:
        below = folder.relative_to(config.root.resolve()).as_posix()
    except ValueError:
        return None
    return tuple(config.exclude), "" if below == "." else below + "/"


def _targets(spec: Optional[str], configured: Sequence[str] = ()):
    """The targets ``--target`` names (``cann@2.7-9.1,neuware``), else ``[tool.migrator] targets``, else every
    target folder of the maps (``operator_maps/targets/*``) at its default release."""
    names = [t for t in (spec or "").split(",") if t.strip()] or list(configured)
    try:
        return resolve_targets(names or None)
    except TargetSpecError as exc:
        raise click.BadParameter(str(exc), param_hint="--target") from exc


class _Progress:
    """A click progress bar on stderr, only for a terminal and only once a scan is big enough to wait for."""

    def __init__(self) -> None:
        self.bar: Optional[Any] = None  # click's ProgressBar, once the scan is big enough

    def __call__(self, done: int, total: int) -> None:
        if self.bar is None:
            if total < 200:
                return
            self.bar = click.progressbar(length=total, label="scanning", file=sys.stderr)
            self.bar.__enter__()
        self.bar.update(1)
        if done == total:
            self.bar.__exit__(None, None, None)


def _progress_bar():
    return _Progress() if sys.stderr.isatty() else None
