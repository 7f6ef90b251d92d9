"""wikigate.bot: the GitHub gitops bot behind ``wikigate github`` (installed from ``bot/``).

One pull request event in, one decision out, by concern:

- ``event``: the Actions environment and the event payload (pydantic), what to act on;
- ``fetch``: git fetches of the pull request, the base and the notes, and pushing notes;
- ``review``: findings → fingerprinted comments, the review plan, summary and annotations;
- ``github_io``: every GitHub REST call, through PyGithub (imported only here, lazily);
- ``notes``: the verdict note a landed pull request leaves in ``refs/notes/wikigate``;
- ``flow``: the decision: verify, review, then commit (fast-forward), close or ask for changes.

The bot verifies with the same library function as ``wikigate verify`` (``verify_ref``);
it reads the pull request only as git objects and judges it by the base branch's rules.
"""
