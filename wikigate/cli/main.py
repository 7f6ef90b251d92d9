"""``main()``: the only place errors become exit codes.

0 success / committed, 1 rejected or failed, 2 usage error, 3 revise, 4 an
unexpected error, logged as pre-commit does (one line here, the traceback in a file),
5 needs_human_review (a run waits for a person's verify approve / verify reject).
"""

from __future__ import annotations

import sys
from pathlib import Path

import click

from wikigate import __version__
from wikigate.errors import WikigateError

from .app import cli

EXIT_UNEXPECTED = 4


def main(argv: list[str] | None = None) -> int:
    """Entry point: the only place errors become exit codes.

    0 success / committed, 1 rejected or failed, 2 usage error, 3 revise, 4 an
    unexpected error (a bug, or a repository git itself cannot read): one line on
    stderr naming the log that holds the traceback (``WIKIGATE_DEBUG=1`` prints it).
    """
    args = sys.argv[1:] if argv is None else list(argv)
    try:
        rv = cli.main(args=args, prog_name="wikigate", standalone_mode=False)
    except click.exceptions.Exit as e:
        return int(e.exit_code or 0)
    except click.ClickException as e:
        e.show()
        return e.exit_code
    except click.exceptions.Abort:
        click.echo("aborted", err=True)
        return 1
    except WikigateError as e:
        click.echo(f"error: {e}", err=True)
        return e.exit_code
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:  # `wikigate runs list | head`: the reader left, as git does
        import os

        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141
    except Exception as e:  # noqa: BLE001 - not a verdict: never exit 1 ("rejected") on a bug
        return _unexpected(e, args)
    return rv if isinstance(rv, int) else 0


def _unexpected(error: Exception, args: list[str]) -> int:
    """Report an error wikigate did not expect, as pre-commit does: one line here,
    the traceback appended to a log file."""
    import os
    import traceback

    kind = type(error)
    name = (
        kind.__qualname__
        if kind.__module__ == "builtins"
        else f"{kind.__module__}.{kind.__qualname__}"
    )
    summary = " ".join(str(error).split())
    summary = summary if len(summary) <= 300 else summary[:299] + "…"
    details = "".join(traceback.format_exception(error))
    if os.environ.get("WIKIGATE_DEBUG", "") not in ("", "0"):
        click.echo(details.rstrip("\n"), err=True)
    log = _append_crash_log(args, details)
    where = f"details in {log}" if log else "set WIKIGATE_DEBUG=1 for details (no log writable)"
    click.echo(f"wikigate: unexpected error: {name}: {summary}; {where}", err=True)
    return EXIT_UNEXPECTED


def _append_crash_log(args: list[str], details: str) -> Path | None:
    """Append ``details`` to ``<git dir>/wikigate/wikigate.log`` of the repository the
    command ran in, else to ``${XDG_CACHE_HOME:-~/.cache}/wikigate/wikigate.log``."""
    import os
    import platform
    import shlex
    from datetime import UTC, datetime

    import pygit2

    folders = []
    try:
        found = pygit2.discover_repository(_repo_option(args))
        if found:
            folders.append(Path(found) / "wikigate")
    except Exception:  # noqa: BLE001 - no repository here: use the cache folder
        pass
    cache = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    folders.append(Path(cache) / "wikigate")
    stamp = datetime.now(UTC).isoformat(timespec="seconds")
    try:
        cwd = os.getcwd()
    except OSError as e:  # the folder was removed under us
        cwd = f"? ({e})"
    entry = (
        f"=== {stamp} wikigate {__version__}, python {platform.python_version()}, "
        f"pid {os.getpid()}\n"
        f"argv: {shlex.join(['wikigate', *args])}\ncwd: {cwd}\n{details}\n"
    )
    for folder in folders:
        try:
            folder.mkdir(parents=True, exist_ok=True)
            log = folder / "wikigate.log"
            with log.open("a", encoding="utf-8", errors="backslashreplace") as fh:
                fh.write(entry)
            return log
        except OSError:
            continue
    return None


def _repo_option(args: list[str]) -> str:
    """The ``-C PATH`` given before the command (default ``.``), read without click."""
    repo, i = ".", 0
    while i < len(args):
        arg = args[i]
        if arg in ("-C", "--repo") and i + 1 < len(args):
            repo, i = args[i + 1], i + 2
            continue
        if arg.startswith("--repo="):
            repo = arg.removeprefix("--repo=")
        elif arg.startswith("-C") and len(arg) > 2:
            repo = arg[2:]
        elif not arg.startswith("-"):
            break
        i += 1
    return repo
