"""wikigate.bot: the GitHub gitops bot behind ``wikigate github`` (installed from ``bot/``).

One event in (a pull request event or a ``/wikigate`` comment), one decision out, by concern:

- ``event``: the Actions environment and the event payload (pydantic), what to act on;
- ``inputs``: the action's inputs, read from the environment and checked;
- ``fetch``: git fetches of the pull request, the base and the notes; pushing notes and a
  branch (with a lease);
- ``review``: findings → fingerprinted comments, the review plan, summary and annotations;
- ``github_io``: every GitHub REST call, through PyGithub (imported only here, lazily);
- ``notes``: a pull request's run in origin's notes: run id, loops, each verification's record;
- ``landing``: fast-forwarding the base; a same-repository branch rebased when main moved;
- ``flow``: the decision: verify, count the loop, review, then land, close or ask for changes;
- ``outcome``: how it ends: one ``Outcome``, the check run, the exit code under fail-level.

The bot verifies through the same entry point as every gate (``wikigate.verify``);
it reads the pull request only as git objects and judges it by the base branch's rules.
"""
