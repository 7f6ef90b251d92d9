"""Per-claim checks: citation syntax, source, quote anchor and hash.  They provide the
quotes they verified to the semantic judge (semantic.py)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

from wikigate.codes import finding
from wikigate.models import Finding

from ..citation import Citation, NearMiss, format_tail, quote_hash
from ..markdown import ParsedPage, Ref
from ..sources import CASE_AND_SPACE, ELLIPSIS, MARKUP, UNSEARCHED
from ..wiki import Located
from .context import Context


def parsed_definitions(page: ParsedPage) -> dict[str, tuple[int, Citation | str]]:
    """label → (line, Citation or the syntax error's message), of each label's first
    definition: a later one with the same label is a finding (duplicates), never read."""
    out: dict[str, tuple[int, Citation | str]] = {}
    for d in page.definitions:
        if d.label not in out:
            out[d.label] = (d.line, d.citation or d.error or "unreadable")
    return out


def duplicates(page: ParsedPage) -> list[Finding]:
    """A label defined twice: renderers disagree on which definition readers see
    (GitHub and pandoc show the first, markdown-it-py's own renderer the last)."""
    first: dict[str, int] = {}
    out: list[Finding] = []
    for d in page.definitions:
        if d.label not in first:
            first[d.label] = d.line
            continue
        out.append(
            finding(
                "citation.syntax",
                page.path,
                d.line,
                f"[^{d.label}] is defined again; its first definition is on line "
                f"{first[d.label]}, and only that one is checked",
                hint="give each footnote its own label, or delete one of the definitions",
            )
        )
    return out


MAX_UNDEFINED_LABELS = 20  # per page; the rest are counted in one more finding


def undefined(page: ParsedPage) -> list[Finding]:
    """References without a definition: one finding per label, however often it
    occurs (a page of ``[^a][^a]…`` must not flood the gate), and at most
    MAX_UNDEFINED_LABELS labels, the rest summed up in one finding."""
    first: dict[str, int] = {}
    times: dict[str, int] = {}
    for label, line in page.undefined:
        first.setdefault(label, line)
        times[label] = times.get(label, 0) + 1
    out: list[Finding] = []
    for label in list(first)[:MAX_UNDEFINED_LABELS]:
        n, line = times[label], first[label]
        count = f" ({n} times; first on line {line})" if n > 1 else ""
        out.append(
            finding(
                "citation.syntax",
                page.path,
                line,
                f"reference [^{label}] has no definition{count}",
                hint=f'add a line "[^{label}]: raw/SOURCE — \\"QUOTE\\" {{@OFFSET sha256:HEX}}"',
            )
        )
    rest = list(first)[MAX_UNDEFINED_LABELS:]
    if rest:
        line = first[rest[0]]
        out.append(
            finding(
                "citation.syntax",
                page.path,
                line,
                f"{len(rest)} more labels have references without a definition "
                f"({sum(times[r] for r in rest)} references; the first on line {line})",
                hint="define every footnote a claim references",
            )
        )
    return out


@dataclass
class _Pending:
    """A citation whose quote must be looked up in its source."""

    path: str
    line: int
    label: str
    citation: Citation
    source: str
    blob: str  # the source's blob id
    key: str  # the anchor cache's key
    ref: Ref | None  # the first claim citing it
    digest: str | None = None  # the quote's sha256 when the footnote records another one


class VerifiedQuote(NamedTuple):
    """A quote found verbatim in its source: where, and the finding on its anchor if any."""

    quote: str
    source: str
    pdf_page: int | None
    offset: int  # where the quote is in the source's (page's) text
    blob: str
    code: str | None = None  # citation.anchor_missing / anchor_mismatch, when found elsewhere


VerifiedQuotes = dict[tuple[str, str], VerifiedQuote]  # (page, footnote label) → its quote


def check_citations(ctx: Context) -> tuple[list[Finding], VerifiedQuotes]:
    findings: list[Finding] = []
    scope = ctx.pages_in_scope()
    ctx.tip.load(scope)
    ctx.metrics.pages = len(ctx.tip.pages)
    ctx.metrics.pages_checked = len(scope)
    pending: list[_Pending] = []
    for path in scope:
        if ctx.heartbeat is not None:
            ctx.heartbeat()  # past the verification's deadline: stops here (verifier.budget)
        error = ctx.tip.page_error(path)
        if error is not None:
            findings.append(finding("page.unreadable", path, None, f"{path} {error}"))
            continue
        page = ctx.tip.page(path)
        assert page is not None
        findings += _check_page(ctx, page, pending)
    verified: VerifiedQuotes = {}
    findings += _check_quotes(ctx, pending, verified)
    return findings, verified


def on_claim(f: Finding, ref: Ref | None) -> Finding:
    """A footnote definition's finding, told the claim that cites it (the first one): its
    text and lines, where a review comment belongs.  ``line`` stays the definition's."""
    if ref is None:
        return f
    return f.model_copy(
        update={
            "claim": f.claim or ref.claim or None,
            "claim_line": ref.at_line,
            "claim_start_line": ref.start_line,
        }
    )


def _check_page(ctx: Context, page: ParsedPage, pending: list[_Pending]) -> list[Finding]:
    out: list[Finding] = []
    path = page.path
    defs = parsed_definitions(page)
    used: dict[str, Ref] = {}
    for r in page.refs:
        used.setdefault(r.label, r)
    ctx.count(path, claims=len(page.refs))
    limit = ctx.config.limits.citations_per_page
    if max(len(page.refs), len(page.definitions)) > limit:
        return [_over_limit(page, limit)]
    if len(defs) < len(page.definitions):
        out += duplicates(page)
    out += undefined(page)
    for label, (line, parsed) in defs.items():
        if isinstance(parsed, str):
            syntax = finding("citation.syntax", path, line, f"[^{label}]: {parsed}")
            out.append(on_claim(syntax, used.get(label)))
            continue
        ctx.count(path, citations=1)
        if label not in used:
            out.append(
                finding(
                    "citation.syntax",
                    path,
                    line,
                    f"[^{label}] is defined but never referenced",
                    severity="minor",
                    hint="reference it from the claim it supports, or remove it",
                )
            )
        found = _check_source(ctx, path, line, label, parsed, used.get(label))
        if isinstance(found, _Pending):
            pending.append(found)
        else:
            out += [on_claim(f, used.get(label)) for f in found]
    return out


def _over_limit(page: ParsedPage, limit: int) -> Finding:
    refs, defs = len(page.refs), len(page.definitions)
    over = page.refs[limit].line if refs > limit else None
    return finding(
        "page.limit",
        page.path,
        over,
        f"{refs} footnote references and {defs} definitions; [limits] citations_per_page "
        f"is {limit}: none of this page's citations were checked",
    )


def _check_source(
    ctx: Context, path: str, line: int, label: str, c: Citation, ref: Ref | None
) -> list[Finding] | _Pending:
    """Findings about the citation's source, or the quote lookup still to do."""
    tree = ctx.tip
    hits, acl = tree.find_source(c.source)
    if acl:
        return [
            finding(
                "citation.source_outside_raw",
                path,
                line,
                f"[^{label}]: {acl}",
                hint="cite a file under raw/",
            )
        ]
    if not hits:
        return [
            finding(
                "citation.source_missing",
                path,
                line,
                f"[^{label}]: source {c.source} does not exist",
            )
        ]
    if len(hits) > 1:
        return [
            finding(
                "citation.source_ambiguous",
                path,
                line,
                f"[^{label}]: {c.source} names {len(hits)} files: {', '.join(hits)}",
            )
        ]
    source = hits[0]
    entry = tree.entries[source]
    if entry.is_link or entry.is_submodule:
        kind = "a symlink" if entry.is_link else "a submodule"
        return [
            finding(
                "citation.source_outside_raw",
                path,
                line,
                f"[^{label}]: {source} is {kind}; it may point outside raw/",
                hint="commit the source itself under raw/",
            )
        ]
    digest = quote_hash(c.quote)
    key = ctx.cache.anchor_key(tree.reading(source), c.page, c.offset, digest)
    # a wrong sha is reported only once the quote is known to be in the source: a quote
    # that is not there is quote_not_found whatever its sha (anchoring it cannot help)
    bad_sha = digest if c.sha256 is not None and digest != c.sha256 else None
    return _Pending(path, line, label, c, source, entry.oid, key, ref, bad_sha)


def _hash_mismatch(p: _Pending, offset: int) -> Finding:
    """The quote is in the source (at ``offset``) but the footnote's sha is not its."""
    c = p.citation
    assert p.digest is not None and c.sha256 is not None
    return finding(
        "citation.hash_mismatch",
        p.path,
        p.line,
        f"[^{p.label}]: sha256 of the quote is {p.digest[:12]}…, "
        f"the footnote records {c.sha256[:12]}…",
        hint=f"use {{@{offset} sha256:{p.digest}}} (or run `wikigate anchor --fix`)",
    ).model_copy(update={"suggested_tail": format_tail(c.source, c.page, c.quote, offset)})


def _check_quotes(ctx: Context, pending: list[_Pending], verified: VerifiedQuotes) -> list[Finding]:
    """Look the pending quotes up: in the cache of verified anchors, else in their
    sources, each source read once."""
    known, pages = _known_anchors(ctx, pending)
    out: list[Finding] = []
    groups: dict[tuple[str, int | None], list[_Pending]] = {}
    for p in pending:
        if p.key in known and p.digest is not None:
            out.append(on_claim(_hash_mismatch(p, p.citation.offset or 0), p.ref))
        elif p.key in known:
            verified[(p.path, p.label)] = _verified(p, p.citation.offset or 0)
        else:
            groups.setdefault((p.source, p.citation.page), []).append(p)
    for p in pending:
        if p.key in known:
            ctx.count(p.path, anchors=1)
    wanted = [
        (source, page, [(p.citation.offset, p.citation.quote) for p in group])
        for (source, page), group in groups.items()
    ]
    results = ctx.tip.locate(wanted, ctx.config.limits.quote_scans)
    for group, (error, located) in zip(groups.values(), results, strict=True):
        if error is not None:
            ctx.unsettled.update(p.path for p in group)
            out += [
                on_claim(
                    finding(
                        "citation.source_unreadable",
                        p.path,
                        p.line,
                        f"[^{p.label}]: {p.source} {error}",
                    ),
                    p.ref,
                )
                for p in group
            ]
            continue
        for p, where in zip(group, located, strict=True):
            found = _quote_finding(ctx, p, where, verified)
            if found is not None:
                out.append(on_claim(found, p.ref))
    good = known | ctx.new_anchors
    ctx.new_anchors.update(key for key, keys in pages if all(k in good for k in keys))
    return out


def _known_anchors(
    ctx: Context, pending: list[_Pending]
) -> tuple[set[str], list[tuple[str, list[str]]]]:
    """The anchored quotes' keys that verified before: a page's at once (one row says all
    of its anchors verified), the rest one by one; and the pages with no such row yet
    (their row's key, their anchors' keys)."""
    by_page: dict[str, list[str]] = {}
    for p in pending:
        if p.citation.anchored:
            by_page.setdefault(p.path, []).append(p.key)
    page_keys = {path: ctx.cache.page_anchors_key(keys) for path, keys in by_page.items()}
    whole = ctx.cache.verified_anchors(list(page_keys.values()))
    known = {k for path, keys in by_page.items() if page_keys[path] in whole for k in keys}
    rest = [k for path, keys in by_page.items() if page_keys[path] not in whole for k in keys]
    known |= ctx.cache.verified_anchors(rest)
    pages = [
        (page_keys[path], keys) for path, keys in by_page.items() if page_keys[path] not in whole
    ]
    return known, pages


def _quote_finding(
    ctx: Context, p: _Pending, where: Located | None, verified: VerifiedQuotes
) -> Finding | None:
    c, label, source = p.citation, p.label, p.source
    if where is None:  # the quote sits at its anchor
        ctx.count(p.path, anchors=1)
        ctx.new_anchors.add(p.key)
        if p.digest is not None:
            return _hash_mismatch(p, c.offset or 0)
        verified[(p.path, label)] = _verified(p, c.offset or 0)
        return None
    ctx.unsettled.add(p.path)  # where else it is, and whether it was searched, depends on
    found, line, near, view = where  # the source's scans, which pages citing it share
    if found == UNSEARCHED:
        return _unsearched(ctx, p)
    if found < 0:
        return _not_found(p, near)
    if p.digest is not None:
        return _hash_mismatch(p, found)
    if view and found == c.offset:  # at its anchor, as a reader sees the source
        ctx.count(p.path, anchors=1)
        verified[(p.path, label)] = _verified(p, found)
        return finding(
            "citation.text_view",
            p.path,
            p.line,
            f"[^{label}]: the quote matches {source} as a reader sees it (markup removed), "
            f"at offset {found}, line {line}; not its raw text",
        )
    code = "citation.anchor_missing" if c.offset is None else "citation.anchor_mismatch"
    verified[(p.path, label)] = _verified(p, found, code)
    tail = {"suggested_tail": format_tail(c.source, c.page, c.quote, found)}
    seen = " as a reader sees it (markup removed)" if view else ""
    if c.offset is None:
        return finding(
            "citation.anchor_missing",
            p.path,
            p.line,
            f"[^{label}]: the quote is in {source}{seen} (offset {found}, line {line}) "
            "but has no anchor",
            hint=f"append {{@{found} sha256:{quote_hash(c.quote)}}} (or run `wikigate anchor --fix`)",
        ).model_copy(update=tail)
    return finding(
        "citation.anchor_mismatch",
        p.path,
        p.line,
        f"[^{label}]: the text at offset {c.offset} of {source} is not the quote; "
        f"the quote is{seen} at offset {found}, line {line}",
        hint=f"use {{@{found} sha256:{quote_hash(c.quote)}}} (or run `wikigate anchor --fix`)",
    ).model_copy(update=tail)


def _verified(p: _Pending, offset: int, code: str | None = None) -> VerifiedQuote:
    c = p.citation
    return VerifiedQuote(c.quote, p.source, c.page, offset, p.blob, code)


FIX = "then run `wikigate anchor --fix` to anchor it"
NEAR_MISS_HINTS = {
    "Unicode normalization (NFC)": "the source and the quote encode accents differently",
    "Unicode normalization (NFKC)": "the source and the quote write compatibility characters "
    "(ligatures, no-break spaces, superscripts, full-width forms) differently",
    "folding CRLF line ends to LF": "the source ends its lines with \\r\\n; "
    "write \\r\\n in the quote",
    "ignoring case": "the letter case differs",
    "collapsing whitespace": "the spaces or line breaks differ (write \\n for a line break)",
    CASE_AND_SPACE: "the letter case and the spaces or line breaks differ",
    ELLIPSIS: "the quote leaves words out: quote one unbroken span of the source per "
    "footnote (one footnote for each piece)",
    MARKUP: "the source is plain text, so a reader sees its markup: quote it with its "
    "markup, verbatim",
}


def _not_found(p: _Pending, near: NearMiss | None) -> Finding:
    c = p.citation
    message = (
        f"[^{p.label}]: the quote does not occur in {p.source}"
        + (f" p.{c.page}" if c.page else "")
        + f": {_clip(c.quote)!r}"
    )
    hint = "quote the source verbatim; paraphrases and invented quotes are rejected"
    if near is not None:
        how = near.fold if near.fold == ELLIPSIS else f"after {near.fold}"
        message += f"; it matches {how} at offset {near.offset}, line {near.line}"
        if near.fold == ELLIPSIS:
            hint = f"{NEAR_MISS_HINTS[ELLIPSIS]}, {FIX}"
        else:
            hint = f"{_near_hint(near.fold)}: copy the quote from the source, verbatim; {FIX}"
    return finding("citation.quote_not_found", p.path, p.line, message, hint=hint)


def _near_hint(fold: str) -> str:
    """What a fold (or markup removal, then a fold) says about the quote."""
    if fold.startswith(MARKUP + " and "):
        rest = fold.removeprefix(MARKUP + " and ")
        return f"the source's markup is not in the quote, and {NEAR_MISS_HINTS[rest]}"
    return NEAR_MISS_HINTS[fold]


def _unsearched(ctx: Context, p: _Pending) -> Finding:
    """A quote that misses its anchor, past the source's scans: what is known, and only
    that (it may be elsewhere in the source; nobody looked)."""
    c = p.citation
    scans = ctx.config.limits.quote_scans
    why = (
        f"where else it is was not searched: the quotes before it used the {scans} scans "
        f"of {p.source} a verification makes ([limits] quote_scans); fix those first"
    )
    if c.offset is None:
        return finding("citation.anchor_missing", p.path, p.line, f"[^{p.label}]: no anchor; {why}")
    return finding(
        "citation.anchor_mismatch",
        p.path,
        p.line,
        f"[^{p.label}]: the text at offset {c.offset} of {p.source} is not the quote; {why}",
    )


def _clip(text: str, width: int = 60) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"
