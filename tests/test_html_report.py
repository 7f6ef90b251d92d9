"""The HTML report (`wikigate verify --format html`, `runs show RUN --html`, `report
html`): rendered by the real CLI from a real git repo, parsed with html.parser (inert:
one inline script, its hash in the CSP, no handlers, no javascript: URLs, nothing to
fetch), and, marked ``browser``, opened in a real headless Chromium."""

from __future__ import annotations

import base64
import contextlib
import hashlib
import os
import re
import shutil
from collections.abc import Iterator
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest
from support.helpers import git, in_process

from wikigate.verifier.citation import format_tail

SOURCE = "raw/owls.txt"
SOURCE_TEXT = (
    "Owls hunt at night and rest by day.\n"
    "A barn owl can hear a mouse under snow.\n"
    "Ravens gather at dusk in large roosts. </script><script>window.__pwned=4</script>\n"
)
GOOD = "A barn owl can hear a mouse under snow."
HOSTILE_QUOTE = "Ravens gather at dusk in large roosts. </script><script>window.__pwned=4</script>"


def tail(quote: str, *, anchored: bool = True) -> str:
    at = SOURCE_TEXT.find(quote)
    return format_tail(SOURCE, None, quote, at if anchored and at >= 0 else None)


# each claim of the page and the status the report must give it
PAGE = f"""# Owls <script>window.__pwned=1</script>

Barn owls hear very well.[^good] See [click me](javascript:window.__pwned=2) and
[also](JaVaScRiPt:window.__pwned=5) and <img src=x onerror="window.__pwned=6">.

Owls are said to " onmouseover="window.__pwned=3" fly silently.[^bad]

Ravens roost together.[^raw]

Ravens gather at dusk.[^hostile]

Nobody knows how many owls live in the valley. [gap: no census found]

![tracker](http://127.0.0.1:9/pixel.png)

[^good]: {tail(GOOD)}
[^bad]: {SOURCE} — "Owls never sleep." {{@0 sha256:{"0" * 64}}}
[^raw]: {tail("Ravens gather at dusk in large roosts.", anchored=False)}
[^hostile]: {tail(HOSTILE_QUOTE)}
"""
EXPECTED = {"good": "pass", "bad": "fail", "raw": "fail", "hostile": "pass"}  # raw: major


def wg(cwd: Path, *args: str) -> Any:
    return in_process(["-C", str(cwd), *args], env={"WIKIGATE_VERIFIER": ""})


@pytest.fixture
def hostile(tmp_path: Path) -> Path:
    """A workspace whose branch ``topic`` adds the hostile page (and its source)."""
    root = tmp_path / "w"
    assert wg(tmp_path, "init", str(root)).returncode == 0
    git(root, "checkout", "-q", "-b", "topic")
    (root / "raw" / "owls.txt").write_text(SOURCE_TEXT, encoding="utf-8")
    (root / "wiki" / "owls.md").write_text(PAGE, encoding="utf-8")
    index = root / "wiki" / "index.md"
    index.write_text(index.read_text(encoding="utf-8") + "\n[[owls]]\n", encoding="utf-8")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "owls")
    return root


def html_of(root: Path, tmp_path: Path) -> str:
    out = tmp_path / "report.html"
    proc = wg(root, "verify", "topic", "--format", "html", "--output", str(out))
    assert proc.returncode in (1, 3), proc.stderr
    return out.read_text(encoding="utf-8")


class Scan(HTMLParser):
    """Every element and attribute, and the scripts' and styles' text."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.scripts: list[str] = []
        self.styles: list[str] = []
        self._in: str | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))
        if tag in ("script", "style"):
            self._in = tag
            (self.scripts if tag == "script" else self.styles).append("")

    def handle_endtag(self, tag: str) -> None:
        if tag == self._in:
            self._in = None

    def handle_data(self, data: str) -> None:
        if self._in == "script":
            self.scripts[-1] += data
        elif self._in == "style":
            self.styles[-1] += data


def sha(text: str) -> str:
    return "'sha256-" + base64.b64encode(hashlib.sha256(text.encode()).digest()).decode() + "'"


def assert_inert(doc: str) -> Scan:
    scan = Scan()
    scan.feed(doc)
    scan.close()
    scripts = [a for t, a in scan.tags if t == "script"]
    assert len(scripts) == 1 and scripts[0] == {}, scripts  # one inline script, no src
    csp = [
        a.get("content") or ""
        for t, a in scan.tags
        if t == "meta" and (a.get("http-equiv") or "").lower() == "content-security-policy"
    ]
    assert len(csp) == 1
    policy = dict(
        (d.split()[0], d.split()[1:]) for d in (p.strip() for p in csp[0].split(";")) if d
    )
    assert policy["default-src"] == ["'none'"]
    assert policy["script-src"] == [sha(scan.scripts[0])]
    assert len(scan.styles) == 1 and policy["style-src"] == [sha(scan.styles[0])]
    assert policy["img-src"] == ["data:"]
    for tag, attrs in scan.tags:
        assert tag not in ("iframe", "object", "embed", "img", "form", "base", "link"), tag
        for name, value in attrs.items():
            assert not name.startswith("on"), (tag, name, value)
            assert name != "style", (tag, value)
            v = re.sub(r"[\s\x00-\x1f]", "", value or "").lower()
            assert "javascript:" not in v and "vbscript:" not in v, (tag, name, value)
            if name in ("href", "src", "action", "formaction", "xlink:href"):
                assert v.startswith("#") or name == "href" and v.startswith("http"), (name, v)
    assert "__pwned" not in scan.scripts[0]
    return scan


def labelled_statuses(doc: str, scan: Scan) -> dict[str, str]:
    """Each highlighted claim's footnote label → the status its mark says."""
    out = {}
    for tag, a in scan.tags:
        if tag == "mark" and "hl" in (a.get("class") or "").split():
            m = re.search(rf'id="card-{a["id"]}".*?<code>\[\^([^\]<]+)\]</code>', doc, re.S)
            if m:
                out[m.group(1)] = a["data-status"] or ""
    return out


def test_hostile_page_renders_inert_and_every_claim_has_its_status(
    hostile: Path, tmp_path: Path
) -> None:
    doc = html_of(hostile, tmp_path)
    scan = assert_inert(doc)
    # the writer's text is there, as text
    assert "&lt;script&gt;window.__pwned=1&lt;/script&gt;" in doc
    assert "&lt;/script&gt;&lt;script&gt;window.__pwned=4&lt;/script&gt;" in doc
    assert "onmouseover=&quot;window.__pwned=3&quot;" in doc
    # each cited claim highlighted in the page body with its status, with a card beside it
    marks = {
        a["id"]: a["data-status"]
        for t, a in scan.tags
        if t == "mark" and "hl" in (a.get("class") or "").split()
    }
    cards = {
        (a.get("id") or "")[len("card-") :]: a
        for t, a in scan.tags
        if t == "div" and (a.get("id") or "").startswith("card-")
    }
    labelled = {}
    for key, status in marks.items():
        m = re.search(rf'id="card-{key}".*?<code>\[\^([^\]<]+)\]</code>', doc, re.S)
        if m:
            labelled[m.group(1)] = status
        assert cards[key]["data-status"] == status
    assert labelled == EXPECTED
    # what to do next and what was not ruled out, as report.json says them
    assert "<h2>What to do next</h2>" in doc and "<h2>Not ruled out</h2>" in doc
    assert "semantic support" in doc  # the offline judge ran: support is not ruled in
    statuses = set(marks.values())
    assert {"gap", "uncited"} <= statuses
    # the quote in its source's window, the anchor and the hash beside the good claim
    assert 'Owls hunt at night and rest by day.\n<mark class="quote">A barn owl' in doc
    assert "sha256:" in doc and "@36" in doc
    # the findings list links to the claim its finding is about
    bad = next(k for k, s in marks.items() if s == "fail")
    assert re.search(rf'<a href="#{bad}">wiki/owls\.md:\d+</a> <b>critical</b>', doc)


def test_reporter_without_pages_renders_the_report_alone(hostile: Path) -> None:
    """The reporters' table's html (no pages read): findings, claim cards, inert."""
    proc = wg(hostile, "verify", "topic", "--format", "json")
    from wikigate.verifier.report import load_report
    from wikigate.verifier.reporters import render

    doc = render(load_report(proc.stdout), "html")
    assert_inert(doc)
    assert "citation." in doc and "wiki/owls.md" in doc
    assert '<mark class="hl' not in doc  # no page read
    # `report html REPORT.json` (the action's step): the same report with its pages
    saved = hostile.parent / "report.json"
    saved.write_text(proc.stdout, encoding="utf-8")
    out = hostile.parent / "report.html"
    done = wg(hostile, "report", "html", str(saved), "--output", str(out))
    assert done.returncode == 0, done.stderr
    page = out.read_text(encoding="utf-8")
    assert_inert(page)
    assert page.count('<mark class="hl') >= len(EXPECTED)
    bad = wg(hostile, "report", "html", str(hostile / "wikigate.toml"))
    assert bad.returncode == 2 and "not a wikigate verification report" in bad.stderr


def _owls(tmp_path: Path) -> tuple[Path, str]:
    """A workspace whose one run landed wiki/owls.md (one cited claim) and the index."""
    root = tmp_path / "w"
    assert wg(tmp_path, "init", str(root)).returncode == 0
    run = wg(root, "run", "start", "--type", "ingest", "--triggered-by", "cli:test").stdout.strip()
    src = tmp_path / "owls.txt"
    src.write_text(SOURCE_TEXT, encoding="utf-8")
    page = tmp_path / "owls.md"
    page.write_text(
        f"# Owls\n\nBarn owls hear very well.[^1]\n\n[^1]: {tail(GOOD)}\n", encoding="utf-8"
    )
    index = tmp_path / "index.md"
    index.write_text("# Index\n\n[[owls]]\n", encoding="utf-8")
    assert wg(root, "run", "write", run, SOURCE, "--from", str(src)).returncode == 0
    assert wg(root, "run", "write", run, "wiki/owls.md", "--from", str(page)).returncode == 0
    assert wg(root, "run", "write", run, "wiki/index.md", "--from", str(index)).returncode == 0
    wg(root, "run", "usage", run, "--input-tokens", "10", "--output-tokens", "5", "--usd", "0.01")
    done = wg(root, "run", "finalize", run)
    assert done.returncode == 0, done.stdout + done.stderr
    return root, run


def test_runs_show_html_and_report_html_of_the_ledger(tmp_path: Path) -> None:
    """A run's last verification as HTML from its stored report; the whole ledger."""
    root, run = _owls(tmp_path)
    shown = wg(root, "runs", "show", run, "--html")
    assert shown.returncode == 0, shown.stderr
    assert_inert(shown.stdout)
    assert 'data-status="pass"' in shown.stdout and "Barn owls hear very well." in shown.stdout
    out = tmp_path / "ledger.html"
    ledger = wg(root, "report", "html", "--output", str(out))
    assert ledger.returncode == 0, ledger.stderr
    doc = out.read_text(encoding="utf-8")
    assert_inert(doc)
    assert "1 claims" in doc and "wiki/owls.md#^1" not in doc  # cards name page and label
    assert re.search(r'data-status="pass" data-codes="" data-page="wiki/owls.md"', doc)


def test_the_ledger_page_shows_a_page_on_main_with_its_claims(tmp_path: Path) -> None:
    """Trial 41: the ledger's page said "not in this commit (deleted, or not read)" under
    every page, the README tour's too: the ledger reads no page's text, and the page view's
    note was a verification's, for a page its commit does not hold."""
    root, _ = _owls(tmp_path)
    out = tmp_path / "ledger.html"
    done = wg(root, "report", "html", "--output", str(out))
    assert done.returncode == 0, done.stderr
    doc = out.read_text(encoding="utf-8")
    assert_inert(doc)
    section = re.search(r'<section class="page"[^>]*data-page="wiki/owls.md">(.*?)</section>', doc)
    assert section, doc
    assert "not in this commit" not in doc
    assert "its claims on main, as the claim ledger keeps them" in section.group(1)
    assert '<p class="claim">Barn owls hear very well.</p>' in section.group(1)


# ---------------------------------------------------------------- a real browser

CHROMIUM = os.environ.get("WIKIGATE_CHROMIUM") or shutil.which("chromium") or ""
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


@contextlib.contextmanager
def opened(path: Path) -> Iterator[tuple[Any, list[str], list[str]]]:
    """``path`` open in headless Chromium: the page, its console errors, every request it
    made (the test is skipped without playwright or chromium)."""
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        pytest.skip("playwright is not installed: pip install -e '.[browser]'")
    if not CHROMIUM:
        pytest.skip("no chromium on PATH (apt-get install chromium, or set WIKIGATE_CHROMIUM)")
    errors: list[str] = []
    requests: list[str] = []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            pg = browser.new_page(viewport={"width": 1200, "height": 800})
            pg.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
            pg.on("pageerror", lambda e: errors.append(str(e)))
            pg.on("request", lambda r: requests.append(r.url))
            pg.goto(path.as_uri())
            yield pg, errors, requests
        finally:
            browser.close()


@pytest.mark.browser
def test_in_headless_chromium(hostile: Path, tmp_path: Path) -> None:
    doc = html_of(hostile, tmp_path)
    path = tmp_path / "report.html"
    path.write_text(doc, encoding="utf-8")
    shots = tmp_path / "screenshots"
    shots.mkdir()
    with opened(path) as (pg, errors, requests):
        pg.wait_for_load_state("load")
        pg.screenshot(path=str(shots / "report.png"), full_page=True)
        assert errors == []
        assert requests == [path.as_uri()]  # the file itself, nothing else
        assert pg.evaluate("typeof window.__pwned") == "undefined"
        # each claim highlighted with its status, as the browser computes it
        seen = pg.evaluate(
            """() => Array.from(document.querySelectorAll('mark.hl')).map(m => {
                const card = document.getElementById('card-' + m.id);
                const label = card.querySelector('.top code');
                return [label ? label.textContent : m.dataset.status, m.dataset.status,
                        getComputedStyle(m).backgroundColor];
            })"""
        )
        claims = {lab[2:-1]: status for lab, status, _ in seen if lab.startswith("[^")}
        assert claims == EXPECTED
        colours = {status: bg for _, status, bg in seen}
        assert len(set(colours.values())) == len(colours)  # one colour per status
        # clicking a finding scrolls to its claim
        pg.evaluate("window.scrollTo(0, 0)")
        link = pg.locator("#findings a[href^='#c']").first
        target = link.get_attribute("href")
        assert target
        link.click()
        pg.wait_for_function(
            "id => { const r = document.getElementById(id).getBoundingClientRect();"
            " return r.top >= 0 && r.top < window.innerHeight / 2; }",
            arg=target[1:],
        )
        assert pg.evaluate("window.scrollY") > 0
        assert pg.evaluate("location.hash") == target
        pg.screenshot(path=str(shots / "finding-clicked.png"))
        # keyboard: j marks the first claim current; the status filter dims the others
        pg.keyboard.press("j")
        assert pg.locator(".current").count() == 1
        pg.select_option("#f-status", "fail")
        dimmed = pg.evaluate(
            "() => Array.from(document.querySelectorAll('mark.hl')).map("
            "m => [m.dataset.status, m.classList.contains('dim')])"
        )
        assert all(dim == (status != "fail") for status, dim in dimmed)
        hidden = pg.evaluate(
            "() => Array.from(document.querySelectorAll('#findings li')).filter("
            "li => !li.hidden).map(li => li.dataset.status)"
        )
        assert hidden and set(hidden) == {"fail"}
        pg.screenshot(path=str(shots / "filtered.png"), full_page=True)
        assert errors == [] and requests == [path.as_uri()]
        assert pg.evaluate("typeof window.__pwned") == "undefined"
    assert (shots / "report.png").stat().st_size > 0


def ledger_rows(n: int) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """``n`` ledger rows on n/2 pages, every status among them, hostile text in each."""
    anchors = ("anchored", "mismatched", "unanchored", "anchored")
    rows = [
        {
            "claim_id": f"wiki/p{i // 2}.md#^{i}",
            "page": f"wiki/p{i // 2}.md",
            "label": str(i),
            "line": 3 + i % 2,
            "claim": f"Claim {i} <img src=x onerror=window.__pwned={i}> </pre><script>",
            "source": SOURCE,
            "source_page": None,
            "source_quote": f'quote {i} </script><script>window.__pwned="q{i}"</script>',
            "source_quote_hash": "0" * 64,
            "source_quote_offset": None if anchors[i % 4] == "unanchored" else i,
            "anchor_status": anchors[i % 4],
            "disputed": 0,
            "judge_vote": "supports" if i % 4 == 0 else None,
            "judge_reason": '" onmouseover="window.__pwned=1',
            "frozen": "wiki/" if i % 4 == 3 else None,
        }
        for i in range(n)
    ]
    gaps = [{"page": "wiki/p0.md", "line": 9, "reason": "<b>no census</b>"}]
    return rows, gaps


def test_a_big_ledger_travels_compressed_and_stays_inert() -> None:
    """Past LAZY_AT claims the ledger's page carries them as gzip'd JSON in base64, drawn
    by the script with textContent: the file is a fraction of the cards' markup."""
    from wikigate.verifier.reporters.html_ledger import ledger_html

    rows, gaps = ledger_rows(400)
    full = ledger_html(rows, gaps, title="ledger")
    compact = ledger_html(rows, gaps, title="ledger", lazy_at=100)
    for doc in (full, compact):
        assert_inert(doc)
    assert "onerror=window.__pwned" not in compact  # only base64 in the data element
    assert len(compact) * 3 < len(full)
    assert re.search(r'<pre id="ledger-data" hidden>[A-Za-z0-9+/=]+</pre>', compact)


@pytest.mark.browser
def test_compact_ledger_in_headless_chromium(tmp_path: Path) -> None:
    from wikigate.verifier.reporters.html_ledger import PER_PAGE, ledger_html

    rows, gaps = ledger_rows(400)
    path = tmp_path / "ledger.html"
    path.write_text(ledger_html(rows, gaps, title="ledger", lazy_at=100), encoding="utf-8")
    with opened(path) as (pg, errors, requests):
        pg.wait_for_function("document.querySelectorAll('.card').length > 0")
        assert pg.text_content("#where") == f"pages 1–{PER_PAGE} of 200"
        statuses = pg.evaluate(
            "() => Array.from(document.querySelectorAll('.card')).map("
            "c => [c.querySelector('.top code') ? c.querySelector('.top code').textContent"
            " : 'gap', c.dataset.status])"
        )
        want = {"[^0]": "pass", "[^1]": "fail", "[^2]": "warn", "[^3]": "frozen"}
        assert {k: v for k, v in statuses if k in want} == want
        assert ["gap", "gap"] in statuses
        assert "<img src=x onerror" in pg.text_content("main")  # shown as text
        pg.screenshot(path=str(tmp_path / "ledger.png"))
        pg.select_option("#f-status", "fail")
        assert pg.text_content("#where") == f"pages 1–{PER_PAGE} of 100"
        assert set(pg.eval_on_selector_all(".card", "cs => cs.map(c => c.dataset.status)")) == {
            "fail"
        }
        pg.click("#next")
        assert pg.text_content("#where") == f"pages {PER_PAGE + 1}–{2 * PER_PAGE} of 100"
        pg.fill("#f-page", "wiki/p19")
        assert pg.text_content("#where") == "pages 1–5 of 5"  # the failing of p190…p199
        pg.select_option("#f-status", "")
        assert pg.text_content("#where") == "pages 1–11 of 11"  # p19, p190…p199
        pg.keyboard.press("Escape")
        pg.locator("h1").click()
        pg.keyboard.press("j")
        assert pg.locator(".card.current").count() == 1
        assert errors == [] and requests == [path.as_uri()]
        assert pg.evaluate("typeof window.__pwned") == "undefined"


def test_the_big_ledgers_query_gives_each_claim_the_status_the_rows_do(tmp_path: Path) -> None:
    """Past LAZY_AT the ledger's page is made from SQLite's JSON, statuses decided in the
    query: for every anchor status, vote and frozen entry, the same as ``status_of``."""
    import base64 as b64
    import gzip
    import itertools
    import json

    from wikigate import ledger
    from wikigate.ledgerview import ledger_page
    from wikigate.verifier.reporters.html_ledger import status_of
    from wikigate.workspace import Workspace

    ws = Workspace.init(tmp_path / "w")
    try:
        ledger.sync(ws)
        votes = (None, "supports", "partial", "contradicts", "unsupported", "inconclusive", "flaky")
        combos = itertools.product(("anchored", "unanchored", "mismatched"), votes, ("f", "x"))
        for n, (anchor, vote, folder) in enumerate(combos):
            ws.store.db["claims"].insert(
                {
                    "claim_id": f"wiki/{folder}/p{n}.md#^1",
                    "page": f"wiki/{folder}/p{n}.md",
                    "label": "1",
                    "line": 3,
                    "claim": f"claim {n} <b>",
                    "source": SOURCE,
                    "source_page": None,
                    "source_quote": "q",
                    "source_quote_hash": "0" * 64,
                    "source_quote_offset": None if anchor == "unanchored" else 0,
                    "anchor_status": anchor,
                    "disputed": 0,
                    "introduced_commit": "0" * 40,
                    "changed_commit": "0" * 40,
                    "judge_vote": vote,
                    "judge_reason": "r" if vote else None,
                }
            )
        ws.store.db["gaps"].insert({"page": "wiki/x/p0.md", "line": 5, "reason": "none found"})
        ws.config.ledger.frozen.append("wiki/f/")
        doc = ledger_page(ws, title="ledger", lazy_at=0)
        assert_inert(doc)
        packed = re.search(r'<pre id="ledger-data" hidden>([^<]+)</pre>', doc)
        assert packed
        pages = json.loads(gzip.decompress(b64.b64decode(packed.group(1))))
        got = {p: [(c[2], c[10]) for c in claims] for p, claims, _gaps in pages}
        rows = ledger.claims(ws)
        assert len(rows) == 42
        for r in rows:
            r["frozen"] = ws.config.ledger.frozen_claim(r["page"], r["label"])
            status, why = status_of(r)
            assert got[r["page"]] == [(status, why[0] if why else None)], r
        assert {s for v in got.values() for s, _ in v} == {"pass", "warn", "fail", "frozen"}
        assert [g for p, _c, g in pages if p == "wiki/x/p0.md"] == [[[5, "none found"]]]
    finally:
        ws.close()


def test_the_judges_vote_and_a_frozen_claim_show_on_their_claims(hostile: Path) -> None:
    """A report with the LLM judge's votes (its evidence escaped) and a claim check of a
    frozen claim: each on its claim, the status they give it."""
    import json

    from wikigate import gitrepo
    from wikigate.verifier.report import load_report
    from wikigate.verifier.reporters.html import HtmlReporter, report_pages

    data = json.loads(wg(hostile, "verify", "topic", "--format", "json").stdout)
    data["judge"] = {
        "name": "anthropic",
        "model": "claude-test",
        "votes": [
            {
                "claim_id": "wiki/owls.md#^good",
                "vote": "contradicts",
                "reason": "the source says <i>mouse</i>",
                "evidence": "</blockquote><script>window.__pwned=8</script>",
            },
            {"claim_id": "wiki/owls.md#^hostile", "vote": "supports", "reason": "as quoted"},
        ],
    }
    data["claim_checks"] = [
        {
            "claim_id": "wiki/owls.md#^hostile",
            "result": "pass",
            "reason": "unchanged",
            "line": 9,
            "claim": "Ravens gather at dusk.",
            "now": "wiki/owls.md#^hostile",
            "frozen": "wiki/owls.md",
        }
    ]
    report = load_report(json.dumps(data))
    repo = gitrepo.open_repo(hostile)
    reporter = HtmlReporter(report_pages(repo, report))
    doc = reporter.render(report)
    assert reporter.render(report) == doc  # rendering again gives the same page
    scan = assert_inert(doc)
    statuses = labelled_statuses(doc, scan)
    assert statuses == {**EXPECTED, "good": "fail", "hostile": "frozen"}
    assert "judge: <b>contradicts</b> the source says &lt;i&gt;mouse&lt;/i&gt;" in doc
    assert "evidence: “&lt;/blockquote&gt;&lt;script&gt;window.__pwned=8" in doc
    assert "frozen by [ledger] wiki/owls.md" in doc
    assert "anthropic claude-test · 2 votes" in doc


class Marks(HTMLParser):
    """The text inside each highlight, and the deepest nesting of highlights."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.open: list[str] = []
        self.text: dict[str, str] = {}
        self.deepest = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        if tag == "mark" and "hl" in (a.get("class") or "").split():
            self.open.append(a["id"] or "")
            self.text[a["id"] or ""] = ""
            self.deepest = max(self.deepest, len(self.open))

    def handle_endtag(self, tag: str) -> None:
        if tag == "mark" and self.open:
            self.open.pop()

    def handle_data(self, data: str) -> None:
        for key in self.open:
            self.text[key] += data


def test_a_claims_highlight_never_wraps_its_neighbour_on_the_same_line(tmp_path: Path) -> None:
    """Two claims opening with the same words in one list item: each highlight holds its own
    sentence (review 35b: the second's opened at the item's start and wrapped the first)."""
    root = tmp_path / "w"
    assert wg(tmp_path, "init", str(root)).returncode == 0
    git(root, "checkout", "-q", "-b", "topic")
    (root / "raw" / "owls.txt").write_text(SOURCE_TEXT, encoding="utf-8")
    page = (
        "# Owls\n\n"
        "- A barn owl can hear a mouse under snow.[^c] A barn owl can hear 52 mice.[^d]\n\n"
        f"[^c]: {tail(GOOD)}\n"
        f'[^d]: {SOURCE} — "A barn owl can hear 52 mice." {{@0 sha256:{"0" * 64}}}\n'
    )
    (root / "wiki" / "owls.md").write_text(page, encoding="utf-8")
    index = root / "wiki" / "index.md"
    index.write_text(index.read_text(encoding="utf-8") + "\n[[owls]]\n", encoding="utf-8")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "owls")
    doc = html_of(root, tmp_path)
    scan = assert_inert(doc)
    assert labelled_statuses(doc, scan) == {"c": "pass", "d": "fail"}
    marks = Marks()
    marks.feed(doc)
    assert marks.deepest == 1  # no highlight inside another
    held = sorted(re.sub(r"\[\^\w\]", "", t).strip() for t in marks.text.values() if "owl" in t)
    assert held == ["A barn owl can hear 52 mice.", "A barn owl can hear a mouse under snow."]


def test_report_html_of_a_saved_report_needs_no_trunk(hostile: Path, tmp_path: Path) -> None:
    """The action renders its report in a checkout of a commit: detached, no branch."""
    saved = tmp_path / "report.json"
    proc = wg(hostile, "verify", "topic", "--format", "json", "--output", str(saved))
    assert proc.returncode in (1, 3), proc.stderr
    git(hostile, "checkout", "-q", "--detach", "topic")
    git(hostile, "branch", "-q", "-D", "main", "topic")
    out = tmp_path / "saved.html"
    proc = wg(hostile, "report", "html", str(saved), "--output", str(out))
    assert proc.returncode == 0, proc.stderr
    doc = out.read_text(encoding="utf-8")
    assert labelled_statuses(doc, assert_inert(doc)) == EXPECTED
