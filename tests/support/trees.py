"""Build commits in memory for verifier tests (real git objects, no checkout)."""

from __future__ import annotations

import pygit2

from wikigate.gitrepo import tree_with

LINK = object()


def commit_files(
    repo: pygit2.Repository,
    parent: pygit2.Oid | None,
    files: dict[str, bytes | str | None | tuple[object, str]],
    message: str = "test\n",
) -> pygit2.Commit:
    tree = repo[parent].tree if parent is not None else None
    tree_id = tree.id if tree is not None else repo.TreeBuilder().write()
    for path, content in files.items():
        if isinstance(content, tuple):  # (LINK, target): a symlink entry
            blob = repo.create_blob(content[1].encode())
            tree_id = _with_mode(repo, repo[tree_id], path, blob, pygit2.GIT_FILEMODE_LINK)
        else:
            blob = (
                None
                if content is None
                else repo.create_blob(content.encode() if isinstance(content, str) else content)
            )
            tree_id = tree_with(repo, repo[tree_id], path, blob)
    sig = pygit2.Signature("t", "t@example.invalid")
    oid = repo.create_commit(None, sig, sig, message, tree_id, [parent] if parent else [])
    return repo[oid]


def advance_main(root, files: dict[str, str | None]) -> str:  # type: ignore[no-untyped-def]
    """A commit of ``files`` on main of the workspace at ``root`` (as a person's override
    would land it), the checked-out tree left as it was; its id."""
    repo = pygit2.Repository(str(root))
    main = repo.references["refs/heads/main"]
    commit = commit_files(repo, main.target, files)
    main.set_target(commit.id)
    return str(commit.id)


def _with_mode(repo, tree, path, blob, mode):
    head, _, rest = path.partition("/")
    builder = repo.TreeBuilder(tree)
    if rest:
        sub = repo[tree[head].id] if head in tree else repo[repo.TreeBuilder().write()]
        builder.insert(head, _with_mode(repo, sub, rest, blob, mode), pygit2.GIT_FILEMODE_TREE)
    else:
        builder.insert(head, blob, mode)
    return builder.write()


def at(report, code):  # type: ignore[no-untyped-def]
    """The findings of one code in a report."""
    return [f for f in report.findings if f.code == code]


def no_errors(report) -> None:  # type: ignore[no-untyped-def]
    """The verifier itself did not fail anywhere."""
    assert not at(report, "verifier.error"), report.findings
    assert all(c.status != "error" for c in report.checks), report.checks
