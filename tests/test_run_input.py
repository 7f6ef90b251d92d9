"""A writer's input must not change what the engine records, and the CLI fails cleanly.

Paths and other writer-supplied text end up in commit trailers; no byte of them may
add, repeat or reshape a trailer.  Unexpected errors get their own exit code and a log.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys

import pygit2
import pytest
from support.fixtures import initialised_repo  # noqa: F401  (the `repo` fixture)
from support.helpers import git, in_process, start, state, wikigate

from wikigate.errors import GitError, RunError
from wikigate.gitrepo import format_message, tree_with
from wikigate.models import Budget
from wikigate.run import read_plan
from wikigate.runid import new_run_id, now_iso

PAGE = "---\ntitle: {t}\n---\n# {t}\n\nText.\n"


def one_error_line(proc):
    assert proc.stderr.startswith("error: ") and proc.stderr.count("\n") == 1, proc.stderr
    return proc.stderr


# ---------------------------------------------------------------- 1. paths


BAD_CHARS = [
    ("\n", "U+000A", "a control character"),
    ("\r", "U+000D", "a control character"),
    ("\t", "U+0009", "a control character"),
    ("\x0c", "U+000C", "a control character"),
    ("\x1b", "U+001B", "a control character"),
    ("\x7f", "U+007F", "a control character"),
    ("\x85", "U+0085", "a control character"),
    ("\x9b", "U+009B", "a control character"),
    ("\x00", "U+0000", "a control character"),
    ("\u2028", "U+2028", "a line separator"),
    ("\u2029", "U+2029", "a paragraph separator"),
    ("\u202e", "U+202E", "a bidirectional control"),
    ("\u2066", "U+2066", "a bidirectional control"),
    ("\udcff", "U+DCFF", "not valid UTF-8"),
]


@pytest.mark.parametrize(("char", "code", "kind"), BAD_CHARS, ids=[c[1] for c in BAD_CHARS])
def test_api_refuses_unprintable_path_characters(ws, char, code, kind):
    run = ws.start_run("ingest", "cli:t")
    run.stage_write("wiki/ok.md", PAGE.format(t="Ok"))
    tip = run.tip()
    bad = f"wiki/a{char}b.md"
    for stage in (
        lambda: run.stage_write(bad, PAGE.format(t="A")),
        lambda: run.str_replace(bad, "Text", "More"),
        lambda: run.stage_delete(bad),
    ):
        with pytest.raises(RunError) as e:
            stage()
        message = str(e.value)
        assert f"{code} ({kind}" in message and "at position 6" in message
        assert message.isprintable(), message  # the bad character is shown escaped
    assert run.tip() == tip and run.status == "pending"


def test_error_message_names_the_character_and_its_position(ws):
    run = ws.start_run("ingest", "cli:t")
    with pytest.raises(RunError) as e:
        run.stage_write("wiki/a\nb.md", "x")
    assert str(e.value) == (
        "wiki/a\\nb.md: the path holds U+000A (a control character) at position 6; "
        "paths must be printable"
    )


def test_trailer_injection_through_a_path_is_refused(repo):
    run = start(repo, "--budget-usd", "1")
    before = state(repo)
    path = 'wiki/x.md\nWikigate-Usage: {"usd": 0}'
    proc = wikigate(repo, "run", "write", run, path, "--from", "-", stdin="# X\n")
    # a bad path is a refused run operation, like `wiki/../x.md` in test_cli: exit 1
    assert proc.returncode == 1
    err = one_error_line(proc)
    assert "U+000A (a control character) at position 9" in err
    assert state(repo) == before
    assert (
        git(repo, "log", "-1", "--format=%B", f"wikigate/runs/{run}").stdout.count("Wikigate-Usage")
        == 0
    )


def test_triggered_by_cannot_inject_trailers(repo):
    before = state(repo)
    proc = wikigate(
        repo,
        "run",
        "start",
        "--type",
        "ingest",
        "--triggered-by",
        'cli:x\nWikigate-Usage: {"usd": 0}',
    )
    assert proc.returncode == 2, proc.stderr  # like every other bad --triggered-by
    assert proc.stderr.count("\n") == 1 and "U+000A" in proc.stderr
    assert state(repo) == before


@pytest.mark.parametrize(
    ("trigger", "said"),
    [
        ("github:pull_request", "github: runs are the GitHub bot's"),  # nothing local settles it
        ("cli:" + "x" * 300, "304 characters"),
    ],
)
def test_a_trigger_no_local_command_could_settle_or_show_is_refused(repo, trigger, said):
    before = state(repo)
    proc = wikigate(repo, "run", "start", "--type", "ingest", "--triggered-by", trigger)
    assert proc.returncode == 2 and said in proc.stderr, proc.stderr
    assert state(repo) == before


ODD_PATHS = ["wiki/my page.md", "wiki/café/naïve résumé.md", "wiki/日本語.md", "wiki/a  b {x}.md"]


def test_paths_with_spaces_and_unicode_round_trip(repo):
    run = start(repo)
    pages = {p: PAGE.format(t=f"Page {i}") for i, p in enumerate(ODD_PATHS)}
    for path, text in pages.items():
        proc = wikigate(repo, "run", "write", run, path, "--from", "-", stdin=text)
        assert proc.returncode == 0, proc.stderr
    shown = json.loads(wikigate(repo, "runs", "show", run, "--format", "json").stdout)
    writes = [op for op in shown["ops"] if op["kind"] == "write"]
    assert [op["path"] for op in writes] == ODD_PATHS
    for op in writes:
        blob = git(repo, "rev-parse", f"wikigate/runs/{run}:{op['path']}").stdout.strip()
        assert op["blob"] == blob
    fin = wikigate(repo, "run", "finalize", run)
    assert fin.returncode == 0, fin.stdout + fin.stderr
    for path, text in pages.items():
        assert git(repo, "show", f"main:{path}").stdout == text
        assert (repo / path).read_text(encoding="utf-8") == text


def test_op_trailer_is_one_line_of_json_that_git_reads_alike(repo):
    run = start(repo, "--budget-usd", "1")
    text = PAGE.format(t="Café")
    wikigate(repo, "run", "write", run, "wiki/café page.md", "--from", "-", stdin=text)
    wikigate(
        repo, "run", "usage", run, "--input-tokens", "1", "--output-tokens", "1", "--usd", "50"
    )
    branch = f"wikigate/runs/{run}"
    write_commit = git(repo, "rev-parse", f"{branch}~1").stdout.strip()
    message = git(repo, "log", "-1", "--format=%B", write_commit).stdout
    blob = git(repo, "rev-parse", f"{branch}:wiki/café page.md").stdout.strip()
    assert (
        'Wikigate-Op: {"kind":"write","path":"wiki/caf\\u00e9 page.md","blob":"' + blob + '"}'
        in message.splitlines()
    )
    # git's own trailer parser sees one op and one usage per commit, as wikigate does
    parsed = git(repo, "log", "-1", "--format=%(trailers:only,unfold)", branch).stdout
    keys = [line.split(":", 1)[0] for line in parsed.splitlines() if line]
    assert keys.count("Wikigate-Op") == 1 and keys.count("Wikigate-Usage") == 1
    assert '"usd":50.0' in parsed


def test_usage_and_budget_survive_an_odd_path(ws):
    run = ws.start_run("ingest", "cli:t", Budget(usd=1.0))
    run.stage_write("wiki/my page.md", PAGE.format(t="A"))
    run.attest_usage(Budget(input_tokens=1, output_tokens=2, usd=50.0))
    run.stage_write("wiki/other page.md", PAGE.format(t="B"))
    plan = run.plan()
    assert plan.meta.usage.usd == 50.0 and plan.meta.budget.usd == 1.0
    assert plan.paths() == ["wiki/my page.md", "wiki/other page.md"]


def _commit_on_branch(ws, run, message):
    """Put a hand-made commit on the run's branch (what a foreign tool might push)."""
    repo = ws.repo
    tip = run.tip()
    sig = pygit2.Signature("t", "t@example.invalid")
    oid = repo.create_commit(None, sig, sig, message, repo[tip].tree.id, [tip])
    git(ws.root, "update-ref", run.branch, str(oid), str(tip))
    return repo[oid]


def _trailers(run, meta_extra="", op='{"kind":"usage"}'):
    return (
        f"Wikigate-Run: {run.run_id}\nWikigate-Type: ingest\nWikigate-Triggered-By: cli:t\n"
        f"Wikigate-Started: 2024-01-01T00:00:00.000000Z\nWikigate-Op: {op}\n"
        'Wikigate-Budget: {"usd":1.0}\n' + meta_extra
    )


@pytest.mark.parametrize(
    "extra",
    [
        'Wikigate-Usage: {"usd":0}\nWikigate-Usage: {"usd":50}\n',
        'Wikigate-Usage: {"usd":50}\nwikigate-usage: {"usd":0}\n',
        "Wikigate-Op: usage\n",
        "Wikigate-Type: lint\n",
        'Wikigate-Budget: {"usd":100.0}\n',
        "Wikigate-Run: 20000101-000000-000000-aaaa\n",
    ],
    ids=["usage", "usage-case", "op", "type", "budget", "run"],
)
def test_a_repeated_trailer_is_a_corrupt_run(ws, extra):
    run = ws.start_run("ingest", "cli:t", Budget(usd=1.0))
    commit = _commit_on_branch(ws, run, "wikigate: usage\n\n" + _trailers(run, extra))
    with pytest.raises(RunError) as e:
        read_plan(ws.repo, commit.id, run.run_id)
    assert commit.short_id in str(e.value) and "corrupt" in str(e.value)


def test_a_corrupt_run_is_one_error_line_in_the_cli(ws):
    run = ws.start_run("ingest", "cli:t", Budget(usd=1.0))
    extra = 'Wikigate-Usage: {"usd":0}\nWikigate-Usage: {"usd":50}\n'
    commit = _commit_on_branch(ws, run, "wikigate: usage\n\n" + _trailers(run, extra))
    ws.close()
    proc = wikigate(ws.root, "runs", "show", run.run_id)
    assert proc.returncode == 1
    assert commit.short_id in one_error_line(proc)


def test_verifying_a_corrupt_run_fails_instead_of_skipping_its_run_checks(ws):
    run = ws.start_run("ingest", "cli:t", Budget(usd=1.0))
    extra = 'Wikigate-Usage: {"usd":50}\nwikigate-usage: {"usd":0}\n'
    commit = _commit_on_branch(ws, run, "wikigate: usage\n\n" + _trailers(run, extra))
    ws.close()
    proc = wikigate(ws.root, "verify", run.branch.removeprefix("refs/heads/"))
    assert proc.returncode == 1
    line = one_error_line(proc)
    assert "wikigate run whose record cannot be read" in line and commit.short_id in line


def test_a_bad_budget_trailer_is_a_corrupt_run(ws):
    run = ws.start_run("ingest", "cli:t")
    commit = _commit_on_branch(
        ws, run, "wikigate: usage\n\n" + _trailers(run, 'Wikigate-Usage: {"usd": 0} abc\n')
    )
    with pytest.raises(RunError) as e:
        read_plan(ws.repo, commit.id, run.run_id)
    assert commit.short_id in str(e.value)


def test_legacy_space_separated_ops_are_still_read(ws):
    """Run branches written by earlier versions: `Wikigate-Op: write wiki/a.md <blob>`."""
    repo = ws.repo
    main = repo.references["refs/heads/main"].target
    sig = pygit2.Signature("t", "t@example.invalid")
    rid = new_run_id()
    head = (
        f"Wikigate-Run: {rid}\nWikigate-Type: ingest\nWikigate-Triggered-By: cli:old\n"
        f"Wikigate-Started: {now_iso()}\n"
    )
    start_oid = repo.create_commit(
        None, sig, sig, f"wikigate: start\n\n{head}Wikigate-Op: start\n", repo[main].tree.id, [main]
    )
    blob = repo.create_blob(PAGE.format(t="Old").encode())
    tree = tree_with(repo, repo[main].tree, "wiki/old.md", blob)
    write_oid = repo.create_commit(
        None,
        sig,
        sig,
        f"wikigate: write wiki/old.md\n\n{head}Wikigate-Op: write wiki/old.md {blob}\n",
        tree,
        [start_oid],
    )
    usage_oid = repo.create_commit(
        None,
        sig,
        sig,
        f'wikigate: usage\n\n{head}Wikigate-Op: usage\nWikigate-Usage: {{"usd":0.5}}\n',
        tree,
        [write_oid],
    )
    git(ws.root, "update-ref", f"refs/heads/wikigate/runs/{rid}", str(usage_oid))
    plan = read_plan(repo, usage_oid, rid)
    assert [(o.kind, o.path, o.blob) for o in plan.ops] == [
        ("start", None, None),
        ("write", "wiki/old.md", str(blob)),
        ("usage", None, None),
    ]
    assert plan.meta.usage.usd == 0.5 and plan.meta.base == str(main)
    ws.close()
    assert wikigate(ws.root, "telemetry", "rebuild").returncode == 0
    shown = json.loads(wikigate(ws.root, "runs", "show", rid, "--format", "json").stdout)
    assert [op["kind"] for op in shown["ops"]] == ["start", "write", "usage"]
    fin = wikigate(ws.root, "run", "finalize", rid)
    assert fin.returncode == 0, fin.stdout + fin.stderr
    assert git(ws.root, "show", "main:wiki/old.md").stdout == PAGE.format(t="Old")


@pytest.mark.parametrize("char", ["\n", "\r", "\x85", "\u2028", "\u2029", "\x0b", "\x1c", "\x00"])
def test_format_message_refuses_line_breaks_in_trailer_values(char):
    with pytest.raises(GitError) as e:
        format_message("wikigate: write", {"Wikigate-Run": "r", "Wikigate-Op": f"x{char}y"})
    assert "Wikigate-Op" in str(e.value) and str(e.value).isprintable()
    with pytest.raises(GitError):
        format_message("wikigate: write", {"Wikigate-Op": ["ok", f"x{char}y"]})


# ---------------------------------------------------------------- 2. exactly one match


def test_replace_counts_overlapping_matches_like_anchor(repo):
    ingest = start(repo)
    wikigate(repo, "run", "write", ingest, "raw/s.txt", "--from", "-", stdin="xaaax\n")
    wikigate(repo, "run", "write", ingest, "wiki/a.md", "--from", "-", stdin="xaaax\n")
    assert wikigate(repo, "run", "finalize", ingest).returncode == 0
    anchor = wikigate(repo, "anchor", "raw/s.txt", "aa")
    assert anchor.returncode == 1 and "occurs 2 times" in anchor.stderr
    run = start(repo, run_type="cascade")
    proc = wikigate(repo, "run", "replace", run, "wiki/a.md", "--old", "aa", "--new", "b")
    assert proc.returncode == 1
    assert "found 2 times" in one_error_line(proc)
    assert "rejected" in wikigate(repo, "runs", "show", run).stdout
    assert git(repo, "show", "main:wiki/a.md").stdout == "xaaax\n"


def test_replace_of_a_unique_match_still_works(ws):
    run = ws.start_run("cascade", "cli:t")
    run.stage_write("wiki/a.md", "xaax\n")
    run.str_replace("wiki/a.md", "aa", "b")
    assert run.read("wiki/a.md") == b"xbx\n"


# ---------------------------------------------------------------- 3. anchor --fix


def test_anchor_fix_with_nothing_to_fix_leaves_main_alone(repo):
    main_before = git(repo, "rev-parse", "main").stdout
    runs_before = json.loads(wikigate(repo, "runs", "list", "--format", "json").stdout)
    proc = wikigate(repo, "anchor", "--fix")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "nothing to anchor" in proc.stdout
    assert git(repo, "rev-parse", "main").stdout == main_before
    assert json.loads(wikigate(repo, "runs", "list", "--format", "json").stdout) == runs_before
    assert git(repo, "for-each-ref", "refs/heads/wikigate", "refs/wikigate").stdout == ""


def test_anchor_fix_into_a_run_with_nothing_to_fix_stages_nothing(repo):
    run = start(repo, run_type="lint")
    before = state(repo)
    proc = wikigate(repo, "anchor", "--fix", "--run", run)
    assert proc.returncode == 0 and "nothing to anchor" in proc.stdout
    assert state(repo) == before


def test_anchor_fix_of_a_missing_page_opens_no_run(repo):
    before = state(repo)
    proc = wikigate(repo, "anchor", "--fix", "wiki/nope.md")
    assert proc.returncode == 2 and "no such page" in proc.stderr
    assert state(repo) == before


# ---------------------------------------------------------------- 4. unexpected errors


UNEXPECTED = re.compile(r"wikigate: unexpected error: (\S+): (.*); details in (.+)\n")


def _corrupt_run_tip(repo):
    run = start(repo)
    tip = git(repo, "rev-parse", f"wikigate/runs/{run}").stdout.strip()
    obj = repo / ".git" / "objects" / tip[:2] / tip[2:]
    obj.chmod(0o644)
    obj.write_bytes(b"not a zlib stream")
    return run


def test_unexpected_error_exits_4_with_one_line_and_logs_the_traceback(repo):
    run = _corrupt_run_tip(repo)
    proc = wikigate(repo, "runs", "show", run)
    assert proc.returncode == 4, proc.stderr
    match = UNEXPECTED.fullmatch(proc.stderr)
    assert match, proc.stderr
    assert "Traceback" not in proc.stderr
    log = repo / ".git" / "wikigate" / "wikigate.log"
    assert match.group(3) == str(log)
    text = log.read_text()
    assert "Traceback (most recent call last)" in text and match.group(1) in text
    assert f"runs show {run}" in text and re.search(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d", text)
    again = wikigate(repo, "runs", "show", run)  # appended, not overwritten
    assert again.returncode == 4 and log.read_text().count("Traceback") == 2


def test_wikigate_debug_prints_the_traceback(repo):
    run = _corrupt_run_tip(repo)
    proc = wikigate(repo, "runs", "show", run, env={"WIKIGATE_DEBUG": "1"})
    assert proc.returncode == 4
    assert "Traceback (most recent call last)" in proc.stderr
    assert proc.stderr.splitlines()[-1].startswith("wikigate: unexpected error: ")


def test_unexpected_error_outside_a_repository_logs_to_the_cache(tmp_path):
    blocker = tmp_path / "a-file"
    blocker.write_text("x")
    cache = tmp_path / "cache"
    env = {**os.environ, "XDG_CACHE_HOME": str(cache)}
    # a folder that cannot be made is the user's problem: one line, exit 2
    init = in_process(["init", str(blocker / "wiki")], env={"XDG_CACHE_HOME": str(cache)})
    assert init.returncode == 2 and init.stderr.count("\n") == 1
    assert "cannot create a workspace there (Not a directory)" in init.stderr
    # a bug (a command that raises) is not: exit 4, one line, the traceback logged
    bug = (
        "import sys\nfrom wikigate.cli import cli, main\n"
        "@cli.command('boom')\ndef boom():\n    raise RuntimeError('kaboom')\n"
        "sys.exit(main(['boom']))\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", bug], capture_output=True, text=True, cwd=tmp_path, env=env
    )
    assert proc.returncode == 4, proc.stderr
    match = UNEXPECTED.fullmatch(proc.stderr)
    assert match, proc.stderr
    log = cache / "wikigate" / "wikigate.log"
    assert match.group(3) == str(log) and "Traceback" in log.read_text()


# ---------------------------------------------------------------- amounts, sizes, kinds


@pytest.mark.parametrize("usd", ["1e400", "inf", "nan", "-1"])
def test_a_spend_must_be_a_finite_amount(repo, usd):
    """An infinite spend was recorded as null and skipped by the budget check."""
    run = start(repo, "--budget-usd", "5")
    tip = git(repo, "rev-parse", f"wikigate/runs/{run}").stdout
    proc = wikigate(
        repo, "run", "usage", run, "--input-tokens", "1", "--output-tokens", "1", "--usd", usd
    )
    assert proc.returncode == 2 and "is not a finite amount" in proc.stderr
    assert git(repo, "rev-parse", f"wikigate/runs/{run}").stdout == tip  # nothing staged
    big = wikigate(
        repo, "run", "usage", run, "--input-tokens", "9" * 30, "--output-tokens", "1", "--usd", "1"
    )
    assert big.returncode == 2 and git(repo, "rev-parse", f"wikigate/runs/{run}").stdout == tip


def test_wiki_holds_markdown_pages_only(repo, tmp_path):
    run = start(repo)
    page = tmp_path / "f"
    page.write_text("# F\n")
    for path in ("wiki/fake.markdown", "wiki/Fake.MD", "wiki/notes.txt", "wiki/.gitattributes"):
        proc = wikigate(repo, "run", "write", run, path, "--from", str(page))
        assert (
            proc.returncode == 1
            and "markdown pages (*.md) and their attachments" in one_error_line(proc)
        )


def test_an_endless_input_is_cut_at_the_size_limit(repo):
    run = start(repo)
    proc = wikigate(repo, "run", "write", run, "raw/zero.txt", "--from", "/dev/zero")
    assert proc.returncode == 1 and "over 50 MB" in one_error_line(proc)


def test_a_report_that_cannot_be_written_is_a_usage_error(repo):
    proc = wikigate(repo, "verify", "--all", "--output", str(repo / "no" / "such" / "r.json"))
    assert proc.returncode == 2 and "cannot write the report" in one_error_line(proc)


def test_a_record_that_says_it_is_validated_refuses_bad_values_when_built():
    """``@plain(validate=True)`` classes check every construction, not only what is read
    back (a negative token budget, an over-long direction), and keep their defaults cheap."""
    import pytest

    from wikigate.models import MAX_DIRECTION, Budget, RunMeta

    with pytest.raises(ValueError, match="input_tokens"):
        Budget(input_tokens=-5)
    with pytest.raises(ValueError, match="usd"):
        Budget(usd=float("nan"))
    meta = dict(run_id="r", run_type="ingest", triggered_by="cli", base="0" * 40, started_at="t")
    with pytest.raises(ValueError, match="direction"):
        RunMeta(**meta, direction="x" * (MAX_DIRECTION + 1))
    assert RunMeta(**meta, budget=Budget(usd=0.5)).budget.usd == 0.5
    assert Budget().is_empty()
