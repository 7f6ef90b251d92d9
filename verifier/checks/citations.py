"""Per-claim checks: citation syntax, source, quote anchor and hash; the judge."""

from __future__ import annotations

from wikigate.models import Finding, Severity

from ..citation import Citation, CitationSyntaxError, parse_definition, quote_hash
from ..markdown import ParsedPage
from ..wiki import SourceError
from .context import Context


def _f(
    code: str,
    severity: Severity,
    path: str | None,
    line: int | None,
    message: str,
    hint: str | None = None,
    claim: str | None = None,
) -> Finding:
    return Finding(
        code=code,
        severity=severity,
        path=path,
        line=line,
        message=message,
        hint=hint,
        claim=claim,
    )


def parsed_definitions(page: ParsedPage) -> dict[str, tuple[int, Citation | str]]:
    """label → (line, Citation or the syntax error's message)."""
    out: dict[str, tuple[int, Citation | str]] = {}
    for d in page.definitions:
        try:
            out[d.label] = (d.line, parse_definition(d.tail))
        except CitationSyntaxError as e:
            out[d.label] = (d.line, str(e))
    return out


def check_citations(ctx: Context) -> list[Finding]:
    findings: list[Finding] = []
    scope = ctx.pages_in_scope()
    ctx.tip.load(scope)
    ctx.metrics.pages = len(ctx.tip.pages)
    ctx.metrics.pages_checked = len(scope)
    for path in scope:
        error = ctx.tip.page_error(path)
        if error is not None:
            findings.append(
                _f(
                    "page.unreadable",
                    "critical",
                    path,
                    None,
                    f"{path} {error}",
                    "store pages as UTF-8 markdown text",
                )
            )
            continue
        page = ctx.tip.page(path)
        assert page is not None
        findings += _check_page(ctx, page)
    return findings


def _check_page(ctx: Context, page: ParsedPage) -> list[Finding]:
    out: list[Finding] = []
    path = page.path
    defs = parsed_definitions(page)
    used = {r.label for r in page.refs}
    ctx.metrics.claims += len(page.refs)
    for label, line in page.undefined:
        out.append(
            _f(
                "citation.syntax",
                "critical",
                path,
                line,
                f"reference [^{label}] has no definition",
                f'add a line "[^{label}]: raw/SOURCE — \\"QUOTE\\" {{@OFFSET sha256:HEX}}"',
            )
        )
    for label, (line, parsed) in defs.items():
        if isinstance(parsed, str):
            out.append(
                _f(
                    "citation.syntax",
                    "critical",
                    path,
                    line,
                    f"[^{label}]: {parsed}",
                    'write [^ID]: SOURCE[, p.N] — "QUOTE" {@OFFSET sha256:HEX}',
                )
            )
            continue
        ctx.metrics.citations += 1
        if label not in used:
            out.append(
                _f(
                    "citation.syntax",
                    "minor",
                    path,
                    line,
                    f"[^{label}] is defined but never referenced",
                    "reference it from the claim it supports, or remove it",
                )
            )
        out += _check_source(ctx, path, line, label, parsed)
    return out


def _check_source(ctx: Context, path: str, line: int, label: str, c: Citation) -> list[Finding]:
    tree = ctx.tip
    hits, acl = tree.find_source(c.source)
    if acl:
        return [
            _f(
                "citation.source_outside_raw",
                "critical",
                path,
                line,
                f"[^{label}]: {acl}",
                "cite a file under raw/",
            )
        ]
    if not hits:
        return [
            _f(
                "citation.source_missing",
                "critical",
                path,
                line,
                f"[^{label}]: source {c.source} does not exist",
                "ingest the source into raw/ first, or fix the path",
            )
        ]
    if len(hits) > 1:
        return [
            _f(
                "citation.source_ambiguous",
                "major",
                path,
                line,
                f"[^{label}]: {c.source} names {len(hits)} files: {', '.join(hits)}",
                "write the full path under raw/",
            )
        ]
    source = hits[0]
    entry = tree.entries[source]
    if entry.is_link or entry.is_submodule:
        kind = "a symlink" if entry.is_link else "a submodule"
        return [
            _f(
                "citation.source_outside_raw",
                "critical",
                path,
                line,
                f"[^{label}]: {source} is {kind}; it may point outside raw/",
                "commit the source itself under raw/",
            )
        ]
    if c.sha256 is not None and quote_hash(c.quote) != c.sha256:
        return [
            _f(
                "citation.hash_mismatch",
                "critical",
                path,
                line,
                f"[^{label}]: sha256 of the quote is {quote_hash(c.quote)[:12]}…, "
                f"the footnote records {c.sha256[:12]}…",
                f"run `wikigate anchor {source} QUOTE` for the correct tail",
            )
        ]
    key = f"{entry.oid}:{c.page}:{c.offset}:{quote_hash(c.quote)}"
    if c.anchored and key in ctx.anchor_cache:
        ctx.metrics.anchors_verified += 1
        ctx.verified_quotes[(path, label)] = c.quote
        return []
    try:
        text = tree.source_text(source, c.page)
    except SourceError as e:
        return [
            _f(
                "citation.source_unreadable",
                "critical",
                path,
                line,
                f"[^{label}]: {source} {e}",
                "cite a UTF-8 text, markdown or PDF source",
            )
        ]
    if c.offset is not None and text[c.offset : c.offset + len(c.quote)] == c.quote:
        ctx.metrics.anchors_verified += 1
        ctx.new_anchors.add(key)
        ctx.verified_quotes[(path, label)] = c.quote
        return []
    found = text.find(c.quote)
    if found < 0:
        return [
            _f(
                "citation.quote_not_found",
                "critical",
                path,
                line,
                f"[^{label}]: the quote does not occur in {source}"
                + (f" p.{c.page}" if c.page else "")
                + f": {_clip(c.quote)!r}",
                "quote the source verbatim; paraphrases and invented quotes are rejected",
            )
        ]
    ctx.verified_quotes[(path, label)] = c.quote
    where = _where(text, found)
    if c.offset is None:
        severity: Severity = "critical" if ctx.strictness == "PARANOID" else "major"
        return [
            _f(
                "citation.anchor_missing",
                severity,
                path,
                line,
                f"[^{label}]: the quote is in {source} ({where}) but has no anchor",
                f"append {{@{found} sha256:{quote_hash(c.quote)}}} "
                "(or run `wikigate anchor --fix`)",
            )
        ]
    return [
        _f(
            "citation.anchor_mismatch",
            "critical",
            path,
            line,
            f"[^{label}]: the text at offset {c.offset} of {source} is not the quote; "
            f"the quote is at {where}",
            f"use {{@{found} sha256:{quote_hash(c.quote)}}}",
        )
    ]


def _where(text: str, offset: int) -> str:
    line = text.count("\n", 0, offset) + 1
    return f"offset {offset}, line {line}"


def _clip(text: str, width: int = 60) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"


def check_semantic(ctx: Context) -> list[Finding]:
    out: list[Finding] = []
    for path in ctx.pages_in_scope():
        page = ctx.tip.page(path)
        if page is None:
            continue
        for ref in page.refs:
            quote = ctx.verified_quotes.get((path, ref.label))
            if quote is None or not ref.claim:
                continue
            for conflict in ctx.judge.judge(ref.claim, quote):
                out.append(
                    _f(
                        "citation.semantic_conflict",
                        "major",
                        path,
                        ref.line,
                        f"[^{ref.label}] may not support the claim ({ctx.judge.name} "
                        f"judge): {conflict.describe()}",
                        "state only what the quote says, or cite a quote that says it",
                        claim=ref.claim,
                    )
                )
    return out
