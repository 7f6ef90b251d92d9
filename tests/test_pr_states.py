"""Issue 30 part 2 on GitHub: the bot's summary (the summary comment and the check run's)
names each page the pull request touches that is not fresh, stale or contested, from the
verification's own findings; a clean pull request gets no such section. `wikigate verify`'s
text report and `wikigate run finalize`'s text end with the same pages, in the same lines."""

from __future__ import annotations

from support.github_world import World
from support.helpers import git, wikigate
from support.trees import commit_files
from support.verifying import plan_for, verify_trees

from wikigate.bot.review import summary_body
from wikigate.config import Config
from wikigate.models import Finding
from wikigate.verifier.citation import format_tail
from wikigate.verifier.reporters import render

TOWN = "The pier opened in 1894. The pier is 400 metres long. The hall has a clock.\n"
GUIDE = "The pier opened in 1896.\n"
SECTION = "**Pages this pull request touches that are not fresh:**"


def cite(source: str, text: str, quote: str) -> str:
    return format_tail(source, None, quote, text.find(quote))


def pier(sentences: list[str], source: str = TOWN) -> str:
    cited = " ".join(f"{s}[^{i}]" for i, s in enumerate(sentences, 1))
    notes = "\n".join(
        f"[^{i}]: {cite('raw/town.txt', source, s)}" for i, s in enumerate(sentences, 1)
    )
    return f"---\ntitle: Pier\n---\n# Pier\n\n{cited}\n\n{notes}\n"


def with_pier(world: World) -> None:
    """main: the pier page citing raw/town.txt, linked from the index, and raw/guide.txt."""
    index = git(world.seed, "show", "origin/main:wiki/index.md").stdout
    world.land_on_main(
        {
            "raw/town.txt": TOWN,
            "raw/guide.txt": GUIDE,
            "wiki/pier.md": pier(["The pier opened in 1894.", "The pier is 400 metres long."]),
            "wiki/index.md": index + "- [[pier]]\n",
        },
        "the pier",
    )


def summaries(world: World) -> tuple[str, str]:
    """The summary comment's body and the check run's summary."""
    [comment] = world.gh.issue_comments.values()
    [run] = [r for r in world.gh.check_runs.values() if r["name"] == "wikigate"]
    return comment["body"], run["output"]["summary"]


def test_a_pull_request_adding_a_contradiction_shows_its_page_contested(world: World):
    with_pier(world)
    index = git(world.seed, "show", "main:wiki/index.md").stdout
    opened = "The pier opened in 1896."
    hall = (
        f"---\ntitle: Hall\n---\n# Hall\n\n{opened}[^1]\n\n"
        f"[^1]: {cite('raw/guide.txt', GUIDE, opened)}\n"
    )
    world.push_files(21, {"wiki/hall.md": hall, "wiki/index.md": index + "- [[hall]]\n"})
    world.run(21, "opened")
    for body in summaries(world):
        assert "findings: 0 critical, 1 major, 0 minor" in body  # the contradiction alone
        assert SECTION in body
        section = body.split(SECTION, 1)[1].split("\n\n**", 1)[0]
        assert "- ` wiki/hall.md `: contested (1 open contradiction)" in section
        assert "pier.md" not in section  # untouched by this pull request


def test_a_pull_request_touching_a_page_with_a_stale_claim_shows_it_stale(world: World):
    with_pier(world)
    world.land_on_main({"raw/town.txt": TOWN.replace("400 metres", "420 metres")}, "the source")
    text = pier(
        ["The pier opened in 1894.", "The pier is 400 metres long.", "The hall has a clock."]
    )
    world.push_files(22, {"wiki/pier.md": text})
    world.run(22, "opened")
    for body in summaries(world):
        assert SECTION in body
        assert "- ` wiki/pier.md `: stale (1 claim whose source changed)" in body


def test_a_clean_pull_request_shows_no_states(world: World):
    with_pier(world)
    text = pier(
        ["The pier opened in 1894.", "The pier is 400 metres long.", "The hall has a clock."]
    )
    world.push_files(23, {"wiki/pier.md": text})
    world.run(23, "opened")
    for body in summaries(world):
        assert "### wikigate: commit" in body, body
        assert SECTION not in body


def stale_report(repo):
    """A run adding a claim to the pier page, whose claim [^2] a person's change of its
    source made stale on the base: the report ``wikigate verify`` makes of it."""
    index = "---\ntitle: Index\n---\n# Index\n\n- [[pier]]\n"
    sentences = ["The pier opened in 1894.", "The pier is 400 metres long."]
    first = commit_files(
        repo,
        None,
        {
            "raw/town.txt": TOWN,
            "wiki/pier.md": pier(sentences),
            "wiki/index.md": index,
            "wiki/log.md": "# Log\n",
        },
    )
    base = commit_files(repo, first.id, {"raw/town.txt": TOWN.replace("400", "420")})
    tip = commit_files(repo, base.id, {"wiki/pier.md": pier([*sentences, "The hall has a clock."])})
    return verify_trees(repo, tip, base, config=Config(), plan=plan_for(base, tip, "cascade"))


def test_the_text_report_ends_with_the_pages_not_fresh(repo):
    report = stale_report(repo)
    assert {f.code for f in report.findings} == {"citation.stale"}
    lines = render(report, "text").splitlines()
    at = lines.index("pages not fresh:")
    assert lines[at + 1] == "  wiki/pier.md: stale (1 claim whose source changed)"
    assert at + 2 == len(lines) - 1  # then the one summary line, last


def test_at_most_twenty_pages_are_listed_then_counted(repo):
    report = stale_report(repo)
    contested = [
        Finding(
            code="claim.contradiction",
            severity="major",
            path=f"wiki/p{n:02}.md",
            line=6,
            message="contradicts",
        )
        for n in range(25)
    ]
    many = report.model_copy(update={"findings": [*report.findings, *contested]})
    body = summary_body(many, "revise")
    listed = body.split(SECTION, 1)[1].split("\n\n**", 1)[0].strip().splitlines()
    assert listed[0] == "- ` wiki/pier.md `: stale (1 claim whose source changed)"  # worst first
    assert listed[1] == "- ` wiki/p00.md `: contested (1 open contradiction)"
    assert len(listed) == 21 and listed[-1] == "- … and 6 more"
    text = render(many, "text").splitlines()
    assert text[-2] == "  … and 6 more"


def test_finalize_lists_the_pages_not_fresh_as_verify_does(tmp_path):
    """`wikigate run finalize`'s text ends with the pages the run touched that are stale or
    contested, in the lines `wikigate verify`'s text report ends with (low41 #1)."""
    root = tmp_path / "w"
    assert wikigate(tmp_path, "init", str(root)).returncode == 0

    def cli(*args: str, stdin: str | None = None):
        return wikigate(root, *args, stdin=stdin, env={"WIKIGATE_VERIFIER": ""})

    def run_writing(files: dict[str, str], run_type: str) -> str:
        run = cli("run", "start", "--type", run_type, "--triggered-by", "cli:test").stdout.strip()
        for path, text in files.items():
            assert cli("run", "write", run, path, "--from", "-", stdin=text).returncode == 0
        return run

    index = (root / "wiki" / "index.md").read_text() + "\n- [[pier]]\n"
    sentences = ["The pier opened in 1894.", "The pier is 400 metres long."]
    first = run_writing(
        {"raw/town.txt": TOWN, "raw/guide.txt": GUIDE, "wiki/pier.md": pier(sentences)}
        | {"wiki/index.md": index},
        "ingest",
    )
    assert cli("run", "finalize", first).stdout.startswith(f"committed {first}")
    (root / "raw" / "town.txt").write_text(TOWN.replace("400", "420"))  # a person's change
    git(root, "commit", "-qam", "the source")
    opened = "The pier opened in 1896."
    hall = (
        f"---\ntitle: Hall\n---\n# Hall\n\n{opened}[^1]\n\n"
        f"[^1]: {cite('raw/guide.txt', GUIDE, opened)}\n"
    )
    run = run_writing(
        {
            "wiki/pier.md": pier([*sentences, "The hall has a clock."]),  # [^2] is stale
            "wiki/hall.md": hall,  # contradicts the pier page's opening
            "wiki/index.md": index + "- [[hall]]\n",
        },
        "cascade",
    )
    shown = cli("verify", f"wikigate/runs/{run}").stdout.splitlines()
    done = cli("run", "finalize", run)
    assert done.returncode == 3 and done.stdout.startswith(f"revise {run}"), done.stdout
    said = done.stdout.splitlines()
    states = [
        "pages not fresh:",
        "  wiki/pier.md: stale (1 claim whose source changed)",
        "  wiki/hall.md: contested (1 open contradiction)",
    ]
    assert said[-3:] == states  # last, after the feedback, as the text report has them
    at = shown.index("pages not fresh:")
    assert shown[at : at + 3] == states  # then verify's summary line
