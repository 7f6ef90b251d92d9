"""A run that declares a budget and attests no usage goes back to the writer (revise, exit
3) with a finding that says what to attest; once attested within budget it lands, and an
overspend is still rejected."""

from __future__ import annotations

import json

from support.fixtures import initialised_repo  # noqa: F401  (the `repo` fixture)
from support.helpers import git, start, wikigate
from support.wiki_runs import SOURCE, SOURCE_TEXT, cited_page

PAGE = "---\ntitle: Owls\n---\n" + cited_page("owls")
PRODUCT = {"WIKIGATE_VERIFIER": ""}  # the product's own verifier, whose check this is


def _budgeted(repo) -> str:
    run = start(repo, "--budget-usd", "0.50", "--budget-output-tokens", "2000")
    for path, text in ((SOURCE, SOURCE_TEXT), ("wiki/owls.md", PAGE)):
        proc = wikigate(repo, "run", "write", run, path, "--from", "-", stdin=text)
        assert proc.returncode == 0, proc.stderr
    index = (repo / "wiki" / "index.md").read_text() + "\n- [[Owls]]\n"
    proc = wikigate(repo, "run", "write", run, "wiki/index.md", "--from", "-", stdin=index)
    assert proc.returncode == 0, proc.stderr
    return run


def test_a_budget_without_attested_usage_is_sent_back_to_attest_it(repo):
    run = _budgeted(repo)
    main = git(repo, "rev-parse", "main").stdout.strip()
    proc = wikigate(repo, "run", "finalize", run, env=PRODUCT)
    assert proc.returncode == 3, proc.stdout + proc.stderr  # revise, not reject
    assert proc.stdout.startswith(f"revise {run}")
    assert "major run.usage_missing" in proc.stdout
    assert "(output tokens 2000, usd 0.5)" in proc.stdout
    assert f"wikigate run usage {run} --input-tokens N --output-tokens N --usd X" in proc.stdout
    assert git(repo, "rev-parse", "main").stdout.strip() == main
    shown = json.loads(wikigate(repo, "runs", "show", run, "--format", "json").stdout)
    assert shown["status"] == "pending" and shown["verdict"] == "revise"
    # the writer attests, finalizes again, and the run lands
    usage = ("--input-tokens", "900", "--output-tokens", "1500", "--usd", "0.40")
    assert wikigate(repo, "run", "usage", run, *usage).returncode == 0
    done = wikigate(repo, "run", "finalize", run, env=PRODUCT)
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.startswith(f"committed {run}")


def test_an_attested_overspend_is_still_rejected(repo):
    run = _budgeted(repo)
    usage = ("--input-tokens", "900", "--output-tokens", "1500", "--usd", "0.75")
    assert wikigate(repo, "run", "usage", run, *usage).returncode == 0
    proc = wikigate(repo, "run", "finalize", run, env=PRODUCT)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "critical run.budget" in proc.stdout and "usd: used 0.75, budget 0.5" in proc.stdout


def test_an_attested_spend_cannot_be_attested_lower(repo):
    """A writer attesting $0.75 then $0 erased its overspend and landed (hostile review):
    spend only grows; the lower attestation is refused and the overspend stands."""
    run = _budgeted(repo)
    usage = ("--input-tokens", "900", "--output-tokens", "1500", "--usd", "0.75")
    assert wikigate(repo, "run", "usage", run, *usage).returncode == 0
    lower = wikigate(repo, "run", "usage", run, "--input-tokens", "900", "--output-tokens",
                     "1500", "--usd", "0")  # fmt: skip
    assert lower.returncode == 2
    assert "usage only grows: usd was attested as 0.75, not 0.0" in lower.stderr
    proc = wikigate(repo, "run", "finalize", run, env=PRODUCT)
    assert proc.returncode == 1 and "usd: used 0.75, budget 0.5" in proc.stdout
