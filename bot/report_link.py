"""``wikigate github --link-report``: after action.yml uploaded the HTML report, its link
goes into the pull request's summary comment (in place of the line that named the
workflow run) and into the job's summary.

A link is best effort: a token that may not write to the pull request (a fork's), or a
summary comment that is not there, leaves the job summary's link, never a failed step.
"""

from __future__ import annotations

import re

from wikigate.errors import UsageError

from .event import ActionsEnv, MergeGroup, load_event
from .outcome import Out
from .review import HTML_MARKER, html_line, with_html

URL_VARIABLE = "WIKIGATE_REPORT_URL"  # actions/upload-artifact's output artifact-url


def link_report(env: ActionsEnv, url: str | None, out: Out) -> int:
    """Link the artifact at ``url`` from the summaries; returns the step's exit code."""
    artifact = env.inputs.html_artifact
    if not artifact or env.run_url is None:
        raise UsageError(
            "wikigate github --link-report needs WIKIGATE_HTML_ARTIFACT (action.yml passes the "
            "input html-artifact) and GITHUB_REPOSITORY and GITHUB_RUN_ID (GitHub Actions sets "
            "them)"
        )
    if url is None or not re.fullmatch(re.escape(env.run_url) + r"/artifacts/[0-9]{1,20}", url):
        raise UsageError(
            f"{URL_VARIABLE} ({url!r}): expected an artifact of this workflow run, "
            f"{env.run_url}/artifacts/<id> (actions/upload-artifact's output artifact-url)"
        )
    line = html_line(artifact, env.run_url, url)
    if env.step_summary:
        with open(env.step_summary, "a", encoding="utf-8") as fh:
            fh.write(f"\n{line.replace(HTML_MARKER, '').rstrip()}\n")
    loaded = load_event(env)
    if isinstance(loaded, (str, MergeGroup)):  # no pull request: the job summary only
        return 0
    assert env.repository is not None and env.token is not None  # load_event checked
    from .github_io import GitHubError, PullRequestIO

    try:
        gh = PullRequestIO.connect(env.api_url, env.token, env.repository, loaded.number)
        if gh.edit_summary(lambda body: with_html(body, line)):
            out.say(f"wikigate: the summary comment links the HTML report: {url}")
        else:
            out.say(f"wikigate: no summary comment on #{loaded.number}; the job summary links it")
    except GitHubError as e:
        out.warn(f"wikigate: the summary comment was not linked ({e}); the job summary links it")
    return 0
