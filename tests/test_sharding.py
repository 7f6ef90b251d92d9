"""A whole-wiki verify spread over shards (`verify --all --shard K/N`) and merged
(`wikigate report merge`) gives the unsharded report, findings, counts and verdict."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from support.helpers import git, in_process
from support.verifying import verify_ref
from support.wiki_runs import SOURCE, SOURCE_TEXT, cited_page

from wikigate.changes import merge_reports
from wikigate.errors import UsageError
from wikigate.verifier.checks import CHECKS, PER_PAGE, WHOLE_WIKI, Check, _parts
from wikigate.verifier.merge import MergeError
from wikigate.verifier.shard import Shard, shard_of
from wikigate.workspace import Workspace

# Page names chosen so that shard 2 of 3 holds no page at all (the empty shard), while
# both shards of 2 hold some: the test asserts it, so a change to the hash shows here.
PAGES = {
    "wiki/good.md": cited_page("good"),
    "wiki/owls.md": cited_page("owls", quote="Owls hunt at night and rest by day."),
    "wiki/barn.md": cited_page("barn"),
    "wiki/ravens.md": cited_page("ravens", quote="Ravens gather at dusk in large roosts."),
    # a fabricated quote: not in the source
    "wiki/fabricated-1.md": "# Fabricated\n\nOwls sing at noon.[^1]\n\n"
    f'[^1]: {SOURCE} — "Owls sing opera at noon."\n',
    # a real quote with no anchor
    "wiki/unanchored-3.md": "# Unanchored\n\nRavens gather at dusk.[^1]\n\n"
    f'[^1]: {SOURCE} — "Ravens gather at dusk in large roosts."\n',
    # a broken link on a page whose quote is also unanchored (two kinds on one path)
    "wiki/broken-2.md": "# Broken\n\nSee [[Nowhere]]. Owls rest by day.[^1]\n\n"
    f'[^1]: {SOURCE} — "Owls hunt at night and rest by day."\n',
    # not linked from the index (an orphan), with a fabricated quote too
    "wiki/orphan.md": "# Orphan\n\nBarn owls see in the dark.[^1]\n\n"
    f'[^1]: {SOURCE} — "Barn owls see in total darkness."\n',
    "wiki/untitled-2.md": cited_page("untitled").split("\n", 2)[2],  # no title
    # the judge: the claim has a number its quote lacks
    "wiki/numbers.md": cited_page("numbers").replace(
        "A barn owl can hear a mouse under snow.[^1]", "A barn owl can hear 3 mice under snow.[^1]"
    ),
}
LINKED = ["good", "owls", "barn", "ravens", "fabricated-1", "unanchored-3", "broken-2"]
LINKED += ["untitled-2", "numbers"]
KINDS = {
    "link.broken",
    "page.orphan",
    "citation.quote_not_found",
    "citation.anchor_missing",
    "citation.semantic_conflict",
    "page.no_title",
}


@pytest.fixture(scope="module")
def wiki(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("sharded") / "wiki"
    Workspace.init(root).close()
    (root / SOURCE).write_text(SOURCE_TEXT)
    for path, text in PAGES.items():
        (root / path).write_text(text)
    index = "# Index\n\n" + "".join(f"- [[{name}]]\n" for name in LINKED)
    (root / "wiki" / "index.md").write_text(index)
    git(root, "add", "-A")
    git(root, "commit", "-qm", "a wiki with findings of several kinds")
    return root


def wg(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return in_process(["-C", str(cwd), *args], env={"WIKIGATE_VERIFIER": ""})


def comparable(report: dict[str, object]) -> dict[str, object]:
    """A report without its timings (the one thing a merge cannot reproduce)."""
    out = json.loads(json.dumps(report))
    del out["summary"]["elapsed_ms"]
    for check in out["checks"]:
        del check["duration_ms"]
    return out


def test_merged_shards_equal_the_unsharded_report_through_the_cli(wiki, tmp_path):
    full = wg(wiki, "verify", "--all", "--format", "json")
    assert full.returncode == 1, full.stderr  # critical findings: reject
    expected = json.loads(full.stdout)
    assert {f["code"] for f in expected["findings"]} >= KINDS
    files = []
    for k in (1, 2, 3):
        out = tmp_path / f"shard-{k}.json"
        shard = wg(
            wiki, "verify", "--all", "--shard", f"{k}/3", "--format", "json", "--output", str(out)
        )
        assert shard.returncode in (0, 1, 3), shard.stderr
        files.append(str(out))
    reports = [json.loads(Path(f).read_text()) for f in files]
    assert [r["shard"]["index"] for r in reports] == [1, 2, 3]
    assert reports[1]["summary"]["pages_checked"] == 0  # the empty shard
    assert reports[1]["verdict"] == "commit" and reports[1]["findings"] == []
    assert all(r["summary"]["pages_checked"] > 0 for r in (reports[0], reports[2]))
    # no shard ran a whole-wiki check: links and orphans are found by the merge
    for r in reports:
        assert not {"link.broken", "page.orphan"} & {f["code"] for f in r["findings"]}
    merged = wg(wiki, "report", "merge", *reversed(files), "--format", "json")
    assert merged.returncode == full.returncode, merged.stderr
    assert comparable(json.loads(merged.stdout)) == comparable(expected)
    text = wg(wiki, "report", "merge", *files)
    assert text.returncode == 1 and text.stdout.splitlines()[-1].startswith(
        "FAIL (reject, no run): "
    )


@pytest.mark.parametrize("count", [1, 2, 3])
def test_merged_shards_equal_the_unsharded_report(wiki, tmp_path, count):
    ws = Workspace.open(wiki)
    try:
        expected = verify_ref(ws, lint=True)
        files = []
        for k in range(1, count + 1):
            part = verify_ref(ws, lint=True, shard=Shard(k, count))
            assert part.shard is not None and (part.shard.index, part.shard.count) == (k, count)
            out = tmp_path / f"{k}.json"
            out.write_text(part.model_dump_json())
            files.append(str(out))
        merged = merge_reports(ws, files)
    finally:
        ws.close()
    assert {f.code for f in expected.findings} >= KINDS
    assert comparable(merged.model_dump(mode="json")) == comparable(
        expected.model_dump(mode="json")
    )
    assert merged.verdict == expected.verdict == "reject"
    assert merged.summary.pages_checked == merged.summary.pages == len(PAGES) + 2


@pytest.fixture(scope="module")
def shards(wiki, tmp_path_factory) -> dict[str, Path]:
    """The JSON reports of two shards of the wiki, and variants for the refusals."""
    folder = tmp_path_factory.mktemp("shards")
    ws = Workspace.open(wiki)
    try:
        made = {
            "1": verify_ref(ws, lint=True, shard=Shard(1, 2)),
            "2": verify_ref(ws, lint=True, shard=Shard(2, 2)),
            "2-calm": verify_ref(ws, lint=True, shard=Shard(2, 2), strictness="CALM"),
            "full": verify_ref(ws, lint=True),
            "2-of-3": verify_ref(ws, lint=True, shard=Shard(2, 3)),
        }
    finally:
        ws.close()
    assert made["2"].shard is not None
    made["2-rules"] = made["2"].model_copy(
        update={"shard": made["2"].shard.model_copy(update={"rules": "sha256:" + "0" * 64})}
    )
    made["2-verifier"] = made["2"].model_copy(
        update={"shard": made["2"].shard.model_copy(update={"verifier": "wikigate=0.0.1"})}
    )
    out = {}
    for name, report in made.items():
        out[name] = folder / f"{name}.json"
        out[name].write_text(report.model_dump_json())
    (folder / "copy-of-1.json").write_text(out["1"].read_text())
    out["copy-of-1"] = folder / "copy-of-1.json"
    (folder / "garbage.json").write_text("{not json")
    out["garbage"] = folder / "garbage.json"
    return out


@pytest.mark.parametrize(
    ("given", "blamed", "says"),
    [
        (["1", "2-calm"], "2-calm", "strictness CALM, but"),
        (["1", "2-rules"], "2-rules", "rules (wikigate.toml)"),
        (["1", "2-verifier"], "2-verifier", "verifier wikigate=0.0.1"),
        (["1", "2-of-3"], "2-of-3", "number of shards 3"),
        (["1", "copy-of-1", "2"], "copy-of-1", "shard 1/2 again (also in "),
        (["1"], None, "shard 2/2 missing (given: "),
        (["1", "full"], "full", "not a shard's report"),
        (["1", "garbage"], "garbage", "not a wikigate verification report"),
        (["1", "absent"], "absent", "cannot read the report"),
    ],
)
def test_merge_refuses_shards_that_do_not_belong_together(wiki, shards, given, blamed, says):
    ws = Workspace.open(wiki)
    files = [str(shards.get(g, Path(wiki.parent / f"{g}.json"))) for g in given]
    try:
        with pytest.raises(MergeError) as caught:
            merge_reports(ws, files)
    finally:
        ws.close()
    message = str(caught.value)
    assert says in message
    if blamed is not None:
        assert message.startswith(f"{files[given.index(blamed)]}: "), message
    assert caught.value.exit_code == 2


def test_merge_refusals_exit_2_naming_the_file_through_the_cli(wiki, shards, tmp_path):
    calm = wg(wiki, "report", "merge", str(shards["1"]), str(shards["2-calm"]))
    assert calm.returncode == 2 and calm.stdout == ""
    assert calm.stderr.startswith(f"error: {shards['2-calm']}: verified with strictness CALM")
    # the merge runs the whole-wiki checks on the shards' commit: a repository without it
    other = tmp_path / "other"
    Workspace.init(other).close()
    elsewhere = wg(other, "report", "merge", str(shards["1"]), str(shards["2"]))
    assert elsewhere.returncode == 2
    assert f"{shards['1']}: commit " in elsewhere.stderr
    assert "is not in this repository" in elsewhere.stderr
    # --shard only splits a whole-wiki verify
    alone = wg(wiki, "verify", "--shard", "1/2")
    assert alone.returncode == 2 and "use it with --all" in alone.stderr
    for bad in ("0/2", "3/2", "2", "a/b"):
        proc = wg(wiki, "verify", "--all", "--shard", bad)
        assert proc.returncode == 2 and "Invalid value for '--shard'" in proc.stderr, bad


def test_shards_of_another_commit_are_refused(wiki, shards, tmp_path):
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", str(wiki), str(clone))
    (clone / "wiki" / "good.md").write_text(cited_page("better"))
    git(clone, "commit", "-qam", "another commit")
    ws = Workspace.open(clone)
    try:
        later = verify_ref(ws, lint=True, shard=Shard(2, 2))
        (tmp_path / "later.json").write_text(later.model_dump_json())
        with pytest.raises(
            MergeError, match=r"later\.json: verified with commit [0-9a-f]{40}, but"
        ):
            merge_reports(ws, [str(shards["1"]), str(tmp_path / "later.json")])
    finally:
        ws.close()


def test_shard_only_with_all(wiki):
    ws = Workspace.open(wiki)
    try:
        with pytest.raises(UsageError, match="use it with --all"):
            verify_ref(ws, shard=Shard(1, 2))
    finally:
        ws.close()


def test_the_slice_is_a_stable_partition_of_the_pages():
    pages = [f"wiki/page-{i}.md" for i in range(400)] + ["wiki/café au lait.md"]
    for count in (1, 2, 3, 7):
        slices = [Shard(k, count).pages(pages) for k in range(1, count + 1)]
        assert sorted(p for s in slices for p in s) == sorted(pages)  # each page exactly once
        if count > 1:
            assert all(len(s) > len(pages) / count / 2 for s in slices)  # and spread out
        # adding pages moves no page to another shard
        more = pages + [f"wiki/new-{i}.md" for i in range(100)]
        for k, old in enumerate(slices, 1):
            assert [p for p in Shard(k, count).pages(more) if p in set(pages)] == old
    # the same on every machine and in every process (no salted hash()): pinned values
    assert [shard_of(p, 3) for p in ("wiki/index.md", "wiki/log.md", "wiki/good.md")] == [3, 1, 1]
    assert shard_of("wiki/café au lait.md", 1000) == shard_of("wiki/café au lait.md", 1000)
    probe = (
        "from wikigate.verifier.shard import shard_of;"
        "print([shard_of(f'wiki/p{i}.md', 5) for i in range(20)])"
    )
    runs = {
        subprocess.run(
            [sys.executable, "-c", probe],
            capture_output=True,
            text=True,
            env={**os.environ, "PYTHONHASHSEED": seed},
            check=True,
        ).stdout
        for seed in ("1", "2")
    }
    assert runs == {str([shard_of(f"wiki/p{i}.md", 5) for i in range(20)]) + "\n"}


def test_shard_spec_is_k_of_n_one_based():
    assert Shard.parse("1/3") == Shard(1, 3) and str(Shard.parse(" 3/3 ")) == "3/3"
    for bad in ("0/3", "4/3", "1/0", "-1/3", "1", "1/3/5", "x/3"):
        with pytest.raises(ValueError):
            Shard.parse(bad)


def test_checks_are_split_into_per_page_and_whole_wiki_by_their_needs():
    assert {"citations", "invisible", "semantic", "pages"} == PER_PAGE
    assert {"tree", "links"} <= WHOLE_WIKI and not PER_PAGE & WHOLE_WIKI
    assert {c.name for c in CHECKS} == PER_PAGE | WHOLE_WIKI
    # a per-page check needing what a whole-wiki check provides could not run in a shard
    bad = [
        Check("graph", lambda ctx: ([], {}), frozenset(), provides="graph"),
        Check("uses", lambda ctx, graph: [], frozenset(), needs=("graph",), per_page=True),
    ]
    with pytest.raises(ValueError, match="'uses' needs 'graph' from 'graph'"):
        _parts(bad)


def _drop_a_finding(path: Path, out: Path, *, redigest: bool) -> None:
    """What a hostile editor does to a shard report: delete its first finding (and, with
    ``redigest``, write the digest of the edited content back)."""
    from wikigate.verifier.report import load_report
    from wikigate.verifier.shard import content_digest

    report = load_report(path.read_text())
    assert report.findings and report.shard is not None
    edited = report.model_copy(update={"findings": report.findings[1:]})
    if redigest:
        shard = report.shard.model_copy(update={"digest": content_digest(edited)})
        edited = edited.model_copy(update={"shard": shard})
    out.write_text(edited.model_dump_json())


def test_a_shard_with_a_finding_deleted_is_refused(wiki, shards, tmp_path):
    first = shards["1"]
    edited = tmp_path / "1-edited.json"
    _drop_a_finding(first, edited, redigest=False)
    ws = Workspace.open(wiki)
    try:
        assert merge_reports(ws, [str(first), str(shards["2"])]).verdict == "reject"
        with pytest.raises(MergeError) as caught:
            merge_reports(ws, [str(edited), str(shards["2"])])
    finally:
        ws.close()
    message = str(caught.value)
    assert message.startswith(f"{edited}: its content does not match its digest sha256:")
    assert "changed after `wikigate verify` wrote it" in message
    refused = wg(wiki, "report", "merge", str(edited), str(shards["2"]))
    assert refused.returncode == 2 and refused.stdout == ""
    assert "does not match its digest" in refused.stderr


@pytest.fixture(scope="module")
def signer(tmp_path_factory) -> tuple[Path, Path, Path]:
    """A signing key, a stranger's key, and an allowed_signers file listing the first."""
    if shutil.which("ssh-keygen") is None:
        pytest.skip("ssh-keygen (OpenSSH 8.2+) is not installed: signed shards need it")
    folder = tmp_path_factory.mktemp("keys")
    for name in ("ci", "stranger"):
        subprocess.run(
            ["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", name, "-f", str(folder / name)],
            check=True,
        )
    allowed = folder / "allowed_signers"
    allowed.write_text(f"ci@example.org {(folder / 'ci.pub').read_text()}")
    return folder / "ci", folder / "stranger", allowed


def _signed_shards(wiki: Path, folder: Path, key: Path) -> list[Path]:
    """`verify --all --shard K/2 --format json` with git config wikigate.signingKey set."""
    git(wiki, "config", "wikigate.signingKey", str(key))
    try:
        files = []
        for k in (1, 2):
            out = folder / f"signed-{k}.json"
            done = wg(wiki, "verify", "--all", "--shard", f"{k}/2", "--format", "json")
            assert done.returncode in (0, 1, 3), done.stderr
            out.write_text(done.stdout)
            files.append(out)
        return files
    finally:
        git(wiki, "config", "--unset", "wikigate.signingKey")


def merge_cli(wiki: Path, *args: object) -> subprocess.CompletedProcess[str]:
    return wg(wiki, "report", "merge", *map(str, args))


def test_signed_shards_merge_and_a_redigested_edit_is_refused(wiki, shards, signer, tmp_path):
    key, stranger, allowed = signer
    files = _signed_shards(wiki, tmp_path, key)
    for f in files:
        assert "BEGIN SSH SIGNATURE" in json.loads(f.read_text())["shard"]["signature"]
    merged = merge_cli(wiki, "--allowed-signers", allowed, *files, "--format", "json")
    assert merged.returncode == 1, merged.stderr  # the wiki's findings: reject, as unsigned
    found = json.loads(merged.stdout)["findings"]
    assert (
        found
        == json.loads(merge_cli(wiki, *shards_of(shards), "--format", "json").stdout)["findings"]
    )

    # a finding deleted and the digest recomputed: the digest alone cannot tell ...
    edited = tmp_path / "signed-1-edited.json"
    _drop_a_finding(files[0], edited, redigest=True)
    forged = merge_cli(wiki, edited, files[1], "--format", "json")
    assert forged.returncode == 1 and len(json.loads(forged.stdout)["findings"]) == len(found) - 1
    # ... the signature can
    refused = merge_cli(wiki, "--allowed-signers", allowed, edited, files[1])
    assert refused.returncode == 2 and refused.stdout == ""
    assert f"{edited}: its signature is refused" in refused.stderr

    # unsigned shards, and shards signed by a key the file does not list, are refused too
    unsigned = merge_cli(wiki, "--allowed-signers", allowed, *shards_of(shards))
    assert unsigned.returncode == 2
    assert f"{shards['1']}: the shard report is not signed" in unsigned.stderr
    strange = tmp_path / "strange"
    strange.mkdir()
    by_stranger = _signed_shards(wiki, strange, stranger)
    refused = merge_cli(wiki, "--allowed-signers", allowed, *by_stranger)
    assert refused.returncode == 2 and "not among the allowed signers" in refused.stderr


def shards_of(shards: dict[str, Path]) -> list[Path]:
    return [shards["1"], shards["2"]]
