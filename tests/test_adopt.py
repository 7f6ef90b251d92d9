"""`wikigate adopt` through the real CLI (issue 27): the citation forms a wiki writes, counted
with examples; the rewrites into the canonical form, applied only with --write and only
through a run the gate verifies."""

from __future__ import annotations

from support.helpers import git, in_process


def wg(cwd, *args):
    return in_process(["-C", str(cwd), *args], env={"WIKIGATE_VERIFIER": ""})


def legacy(demo, files):
    """Land ``files`` on main as a wiki written before wikigate would: around the gate."""
    git(demo, "checkout", "-q", "-b", "legacy")
    for path, text in files.items():
        (demo / path).write_text(text)
    git(demo, "commit", "-qam", "legacy citations")
    git(demo, "checkout", "-q", "main")
    git(demo, "merge", "-q", "--ff-only", "legacy")


def test_adopt_reports_the_dialects_and_writes_the_canonical_form_through_the_gate(tmp_path):
    demo = tmp_path / "demo"
    assert wg(tmp_path, "demo", str(demo)).returncode == 0
    declaration = demo / "wiki" / "declaration.md"
    gettysburg = demo / "wiki" / "gettysburg-address.md"
    before_decl, before_gett = declaration.read_text(), gettysburg.read_text()
    decl = before_decl.split("[^1]: ")[0] + "[^1]: [[declaration-preamble.txt]] L6\n"
    lines = before_gett.split("\n")
    for i, line in enumerate(lines):
        if line.startswith("[^1]: "):  # the quote, unanchored, its line note after it
            lines[i] = line.split(" {@")[0] + " L4"
        if line.startswith("[^3]: "):  # a wikilink to the source, unanchored
            lines[i] = '[^3]: [[declaration-preamble.txt]] — "all men are created equal"'
    legacy(demo, {"wiki/declaration.md": decl, "wiki/gettysburg-address.md": "\n".join(lines)})
    main = git(demo, "rev-parse", "main").stdout

    dry = wg(demo, "adopt")
    assert dry.returncode == 0, dry.stdout + dry.stderr
    out = dry.stdout
    assert "4 footnote definitions on 4 pages:" in out
    assert "1  a line range or section, no quote" in out
    assert "wiki/declaration.md:8: [^1]: [[declaration-preamble.txt]] L6" in out
    assert "1  a quote with location notes" in out and "1  a quote citing its source by" in out
    assert "3 definitions to rewrite (--write applies them):" in out
    assert "wiki/declaration.md:8: [^1] quoted: a passage supports the claim: " in out
    assert git(demo, "rev-parse", "main").stdout == main  # a dry run writes nothing

    wrote = wg(demo, "adopt", "--write")
    assert wrote.returncode == 0, wrote.stdout + wrote.stderr
    assert "3 definitions rewritten:" in wrote.stdout and "committed" in wrote.stdout
    git(demo, "checkout", "-q", "-f", "main")
    fixed = declaration.read_text()
    assert "[^1]: raw/declaration-preamble.txt, L6 — " in fixed and "sha256:" in fixed
    assert "Life, Liberty and the pursuit of Happiness" in fixed.split("[^1]: ")[1]
    gett = gettysburg.read_text()
    assert '[^1]: raw/gettysburg-address.txt, L4 — "Four score' in gett
    assert gett.split("[^3]: ")[1] == before_gett.split("[^3]: ")[1]  # canonical, anchored
    lint = wg(demo, "verify", "--all")
    assert lint.returncode == 0, lint.stdout


def test_adopt_leaves_a_reference_no_passage_clearly_supports_and_names_the_rules(tmp_path):
    demo = tmp_path / "demo"
    assert wg(tmp_path, "demo", str(demo)).returncode == 0
    declaration = demo / "wiki" / "declaration.md"
    text = declaration.read_text()
    legacy(
        demo,
        {
            "wiki/declaration.md": text.split("[^1]: ")[0]
            + "[^1]: raw/gettysburg-address.txt, 2026-04-21\n"
        },
    )
    dry = wg(demo, "adopt")
    assert dry.returncode == 0
    assert "0 definitions to rewrite" in dry.stdout
    assert "1 references left unquoted (citation.unquoted):" in dry.stdout
    assert (
        "wiki/declaration.md:8: [^1]: no passage of the source holds most of the claim's words"
        in dry.stdout
    )
    assert '"citation.unquoted" = "minor"' in dry.stdout
    wrote = wg(demo, "adopt", "--write")
    assert wrote.returncode == 0 and "committed" not in wrote.stdout  # nothing to write: no run


def test_anchor_fix_anchors_a_quote_with_a_location_note(tmp_path):
    """It said "nothing to anchor" for `raw/x.txt — "QUOTE" L4` (issue 27): now it anchors
    the quote in line 4 and writes the note canonically, after the source."""
    demo = tmp_path / "demo"
    assert wg(tmp_path, "demo", str(demo)).returncode == 0
    page = demo / "wiki" / "gettysburg-address.md"
    text = page.read_text()
    lines = text.split("\n")
    for i, line in enumerate(lines):
        if line.startswith("[^1]: "):
            lines[i] = line.split(" {@")[0] + " L4"
    legacy(demo, {"wiki/gettysburg-address.md": "\n".join(lines)})
    fixed = wg(demo, "anchor", "--fix")
    assert fixed.returncode == 0, fixed.stdout + fixed.stderr
    assert "wiki/gettysburg-address.md:13: [^1] anchored" in fixed.stdout
    assert "committed" in fixed.stdout
    git(demo, "checkout", "-q", "-f", "main")
    assert page.read_text() == text.replace(
        "[^1]: raw/gettysburg-address.txt — ", "[^1]: raw/gettysburg-address.txt, L4 — "
    )


OUTBREAK = (
    "# Outbreak report\n\n"
    "The 2019 outbreak in the northern district was severe, with hospitals at capacity.\n"
    "The council did not approve the new water plant in 2020.\n"
    "The clinic treated 450 patients during the first week of the outbreak.\n"
    "Volunteers distributed clean water to every village in the valley.\n"
)
CLAIMS = (
    "---\ntitle: Outbreak\n---\n# Outbreak\n\n"
    "Volunteers distributed clean water to every village.[^1]\n"  # line 6: faithful
    "The 2019 outbreak in the northern district was mild.[^2]\n"  # a word swapped
    "The council approved the new water plant in 2020.[^3]\n"  # the passage denies it
    "The clinic treated 540 patients during the first week.[^4]\n\n"  # another number
    "[^1]: raw/outbreak.txt\n[^2]: raw/outbreak.txt\n[^3]: raw/outbreak.txt\n"
    "[^4]: raw/outbreak.txt\n"
)


def test_adopt_upgrades_only_what_the_offline_judge_passes_and_lists_the_rest(tmp_path):
    """A passage chosen by word overlap may contradict the claim: "mild" where it says
    "severe", a negated passage, another number. adopt runs the verifier's offline check on
    each candidate and upgrades only a faithful one; the others stay as they are, listed
    under "need a person" with the reason."""
    demo = tmp_path / "demo"
    assert wg(tmp_path, "demo", str(demo)).returncode == 0
    (demo / "raw" / "outbreak.txt").write_text(OUTBREAK)
    (demo / "wiki" / "outbreak.md").write_text(CLAIMS)
    git(demo, "add", "raw/outbreak.txt", "wiki/outbreak.md")
    index = (demo / "wiki" / "index.md").read_text() + "- [[Outbreak]]\n"
    rules = (
        (demo / "wikigate.toml")
        .read_text()
        .replace("[verifier.severity]\n", '[verifier.severity]\n"citation.unquoted" = "minor"\n')
    )
    legacy(demo, {"wiki/index.md": index, "wikigate.toml": rules})
    dry = wg(demo, "adopt")
    assert dry.returncode == 0, dry.stdout + dry.stderr
    out = dry.stdout
    assert "1 definitions to rewrite (--write applies them):" in out
    assert "wiki/outbreak.md:11: [^1] quoted: a passage supports the claim: " in out
    assert "3 references need a person (a passage shares the claim's words" in out
    person = out.split("need a person")[1]
    assert "wiki/outbreak.md:12: [^2]: " in person
    assert "the claim says 'mild' where the passage says 'severe'" in person
    assert "wiki/outbreak.md:13: [^3]: " in person and "negation" in person
    assert "wiki/outbreak.md:14: [^4]: " in person and "number: claim has [540]" in person
    wrote = wg(demo, "adopt", "--write")
    assert wrote.returncode == 0, wrote.stdout + wrote.stderr
    assert "1 definitions rewritten:" in wrote.stdout and "committed" in wrote.stdout
    git(demo, "checkout", "-q", "-f", "main")
    page = (demo / "wiki" / "outbreak.md").read_text()
    assert (
        '[^1]: raw/outbreak.txt — "Volunteers distributed clean water to every village in the '
        'valley."' in page
    )
    assert page.split("[^2]: ")[1] == CLAIMS.split("[^2]: ")[1]  # left as it was
