"""Every finding code, in one table: its default severity, what it means, the hint
for the fix, and how the strictness presets change it.

Checks build findings with :func:`finding`; the engine applies the presets
(:func:`severity_at`); ``[verifier.severity]`` in wikigate.toml may name only
codes in this table; docs/checks.md's table is this table (tests/test_docs.py).
A new check, the LLM judge and the GitHub bot add their codes here.
"""

from __future__ import annotations

from typing import NamedTuple

from .models import SEVERITY_RANK, Finding, OtherClaim, Severity, Verdict


class Code(NamedTuple):
    code: str
    severity: Severity
    what: str  # one line for docs/checks.md
    hint: str | None = None  # the fix, unless a finding says something more precise
    presets: tuple[tuple[str, Severity], ...] = ()  # strictness → severity
    also: Severity | None = None  # a second severity some findings of this code carry
    asks: bool = False  # a judgment call: its findings ask a person (needs_human_review)


HINT_DEFINITION = 'write [^ID]: SOURCE[, p.N] — "QUOTE" {@OFFSET sha256:HEX}'

TABLE: tuple[Code, ...] = (
    Code(
        "citation.syntax",
        "critical",
        "an unparseable definition (including a PAGE or OFFSET that is not ASCII digits, or a "
        "quote with a lone surrogate), a second definition of the same label (only the first "
        "is checked), or a reference without definition (critical); a definition never "
        "referenced (minor)",
        HINT_DEFINITION,
        also="minor",
    ),
    Code(
        "citation.in_html",
        "major",
        "a footnote reference `[^label]` written inside a raw HTML block (`<div>`, `<td>`, "
        "`<details>` on one line…), where no renderer makes it a footnote (a reader sees the "
        "text `[^label]`), or inside an inline element that hides it (`<span hidden>`, "
        "`display:none`…), where a reader sees no marker: its sentence is no cited claim",
        "write the sentence as markdown: leave a blank line after the opening tag (and before "
        "the closing one), or move it out of the HTML",
    ),
    Code(
        "citation.source_missing",
        "critical",
        "the cited source does not exist",
        "ingest the source into raw/ first, or fix the path",
    ),
    Code(
        "citation.source_outside_raw",
        "critical",
        "the path escapes `raw/`, or is a symlink or submodule",
        "cite a file committed under raw/",
    ),
    Code(
        "citation.source_ambiguous",
        "major",
        "a bare file name matches several files under `raw/`",
        "write the full path under raw/",
    ),
    Code(
        "citation.source_unreadable",
        "critical",
        "the source is empty, binary, not UTF-8, over 50 MB, an unreadable PDF / missing "
        "PDF page, or a PDF past `[limits]` (`pdf_pages`, `pdf_bytes` of page content, "
        "`pdf_seconds` of CPU time: the message names the limit and the value seen)",
        "cite a UTF-8 text, markdown or PDF source",
    ),
    Code(
        "citation.quote_not_found",
        "critical",
        "the quote does not occur verbatim in the source, nor in its text view (a markup "
        "source as a reader sees it); the message says where it would match after Unicode "
        "normalization (NFC, NFKC), `\\r\\n` → `\\n`, ignoring case, collapsing whitespace "
        "or both, with the source's own quotes, apostrophes and dashes (then `suggested_tail` "
        "is the footnote quoting the source as it is), after removing markup, or as pieces "
        "joined by an ellipsis, if it would",
        "quote the source verbatim; paraphrases and invented quotes are rejected",
    ),
    Code(
        "citation.stale",
        "minor",
        "a claim stale on main: its quote no longer occurs in its source, which changed "
        "since the commit that gave the claim its text, the quote in it then (a person's "
        "commit: runs may not write raw/), and the run leaves the claim (its sentence and "
        "footnote) as the base has it (`verify --all`: as main has it). Not the run's "
        "doing, so a note; kept in a `::: disputed` block with the block's dated update "
        "after it citing its source, it is history and gets no finding (a block without "
        "one keeps nothing, and the note says so). Decided from git's history, one rule with the ledger's `stale`: a claim "
        "that never verified, and a new or changed claim, are citation.quote_not_found",
        "update the claim to what the source now says, quoting it (a run may update or "
        "remove a claim stale on main), or keep it in a `::: disputed` block as history",
        presets=(("PARANOID", "major"),),
    ),
    Code(
        "citation.quote_too_short",
        "major",
        "the quote is in the source but shorter than `[citations] min_quote_chars` (default 6, "
        "whitespace collapsed): a word or a letter occurs in almost any source and proves "
        "nothing about the claim",
        "quote the words of the source that support the claim, not just one of them",
    ),
    Code(
        "citation.text_view",
        "minor",
        "the quote matches its markdown, MediaWiki or HTML source only as a reader sees it "
        "(markup removed: tags, entities, link syntax, emphasis); its anchor is where the "
        "raw text it maps to starts. A note: the quote is verified",
    ),
    Code(
        "citation.anchor_mismatch",
        "major",
        "the text at OFFSET is not the quote, which is found verbatim elsewhere in the "
        "source: a stale offset, fixed mechanically (the message and the fix say where the "
        "quote really is)",
        presets=(("PARANOID", "critical"),),
    ),
    Code(
        "citation.hash_mismatch",
        "critical",
        "the SHA-256 of the quote differs from the recorded one",
    ),
    Code(
        "citation.anchor_missing",
        "major",
        "the quote is found verbatim but has no anchor",
        presets=(("PARANOID", "critical"),),
    ),
    Code(
        "citation.unquoted",
        "major",
        "a footnote names a source (a path, a wikilink or a link to a file under `raw/`, or a "
        "line range), or a sentence links one, but quotes nothing: it proves the source (and the lines) exist, not the "
        "claim; `[verifier.severity]` may set it to `minor` (a warning) while a wiki adopts the format",
        'quote the passage that supports the claim: [^ID]: SOURCE — "QUOTE"',
        presets=(("PARANOID", "critical"),),
    ),
    Code(
        "citation.location",
        "major",
        'a location note (`L3`, `L3-L7`, `#L3-L7`, `§"Section"`) names lines the source does '
        "not have or a section it does not have, or the quote is not there",
        "fix the location note, or quote (and anchor) the occurrence it names",
    ),
    Code(
        "citation.page_not_pdf",
        "minor",
        "a page note (`p.N`, `pp.N-M`) on a source that is not a PDF: pages exist only in "
        "PDF sources, so the note locates nothing and is not checked (the claim ledger "
        "records it as written). A note: the quote is still verified",
        "drop the page note, or cite the PDF itself; a line note (`L3`) or a section "
        '(`§"Title"`) locates a passage in a text source',
    ),
    Code(
        "citation.semantic_conflict",
        "major",
        "the judge sees a conflict between claim and quote (see below)",
        "state only what the quote says, or cite a quote that says it",
    ),
    Code(
        "citation.partial",
        "major",
        "the LLM judge: the quote supports only part of the claim",
        "state only what the quote says, or cite a quote that says the rest",
    ),
    Code(
        "citation.unsupported",
        "major",
        "the LLM judge: the quote and the source text around it do not support the claim (a "
        "vote whose evidence is not in the quote or window counts as this)",
        "state only what the quote says, or cite a quote that says it",
        presets=(("PARANOID", "critical"),),
    ),
    Code(
        "citation.contradicted",
        "major",
        "the LLM judge: the source says otherwise",
        "correct the claim to what the source says",
        presets=(("PARANOID", "critical"),),
    ),
    Code(
        "citation.inconclusive",
        "major",
        "the LLM judge gave no verdict on the claim (no vote, malformed answer after a retry, "
        "refusal, timeout, rate limit or server error past the retries, connection error, no "
        "API key, budget exhausted); the message says why. A run commits only with a verdict "
        "on every claim",
        "verify again when the judge is reachable, or raise the judge's budget",
    ),
    Code(
        "citation.flaky",
        "major",
        "under PARANOID: a second, fresh judgement with a wider window disagrees with the "
        "first on a claim voted partial or unsupported",
        "make the claim say plainly what the quote says, so that no judge can read it two ways",
        asks=True,
    ),
    Code(
        "page.unreadable",
        "critical",
        "a page is not UTF-8 text, binary, a symlink, a submodule, over 5 MB, or makes the "
        "parser fail (that page alone)",
        "store pages as UTF-8 markdown text",
    ),
    Code(
        "page.frontmatter",
        "major",
        "front matter is not a YAML mapping (or cannot be read), its `title` is a list or "
        "mapping, or it lacks a required field / has the wrong type",
        "front matter is a YAML mapping between --- lines",
    ),
    Code(
        "page.no_title",
        "major",
        "neither front-matter `title` nor a first H1",
        "add `title:` to the front matter or a first-level heading",
    ),
    Code(
        "page.uncited",
        "major",
        "a non-structural page that holds a statement cites nothing (a page of headings and "
        "links only asserts nothing: not this)",
        'cite raw sources with [^ID] and [^ID]: SOURCE — "QUOTE" {@OFFSET sha256:HEX}',
    ),
    Code(
        "page.unsupported_statement",
        "major",
        "on a page that cites, a statement (a sentence that asserts, in prose, alt text, raw "
        "HTML or a heading that is a sentence; not code, block quotes, the lists of "
        '"See also"-style sections, a question, a lead-in ending in `:`, a short pointer, '
        "label or hatnote: [Every statement accounted for](#every-statement-accounted-for)) "
        "carries neither a citation nor a `[gap: …]` marker; `[statements] granularity` sets "
        "whether each sentence, each paragraph or only the page must be accounted for",
        'cite it (`wikigate anchor SOURCE "QUOTE"` prints the footnote to add), or mark what '
        "the sources do not say with [gap: …]",
    ),
    Code(
        "page.limit",
        "critical",
        "the page holds more footnote references or definitions than `[limits] "
        "citations_per_page` allows; its citations are not checked, so it cannot land",
        "split the page, or raise the limit in the base's wikigate.toml",
    ),
    Code(
        "page.invisible_chars",
        "major",
        "a changed page's text or a changed path holds invisible characters (Unicode format "
        "controls: zero-width spaces and joiners, bidi overrides and isolates, tag characters, "
        "the soft hyphen; the other default-ignorable code points such as fillers; runs of "
        "variation selectors; a leading byte-order mark is allowed): a person reviewing it can "
        "read something else than the verifier and the judge do",
        "remove them (the message says which, where)",
    ),
    Code(
        "page.gap",
        "major",
        "the page carries `[gap: …]` markers where `[gap_policy]` allows none, or more than "
        "its `max_per_page`",
        "find a source for the statement, or remove it",
    ),
    Code(
        "page.avoid",
        "major",
        "a line the change adds holds a phrase `[presentation] avoid` lists (case-insensitive, "
        "whole words, in the text a reader sees: markup, entities and look-alikes read "
        "through, hidden text too)",
        "reword the line without the phrase",
    ),
    Code(
        "page.preserve",
        "major",
        "the change drops, from a page that had it, a phrase or heading `[presentation] "
        "preserve` lists (case-insensitive; a heading matches a heading the page renders; "
        "text in code or hidden keeps nothing), or deletes such a page",
        "keep the phrase or heading on the page",
    ),
    Code(
        "page.presentation",
        "major",
        "the LLM judge: the change's text departs from the `[presentation]` voice or "
        "register (the offline judge cannot check it: a blind spot)",
        "rewrite the changed text in the voice and register `[presentation]` asks for",
    ),
    Code(
        "link.broken",
        "major",
        "a link or heading anchor resolves to nothing; the message names the path a path "
        "link resolved to, and a page of that file name or the existing page or source of "
        "the nearest name",
        "link an existing page by file name, title or alias",
    ),
    Code(
        "link.ambiguous",
        "minor",
        "a link that names no page names several files under `raw/` (two sources share the "
        "file name): which one it means is a guess",
        "link the source by its path under raw/",
    ),
    Code(
        "page.orphan",
        "major",
        "not reachable from the index (`index.md` in the wiki's root: `wiki/index.md` by "
        "default; the index and the log are structural)",
        "link it from the index (index.md in the wiki's root) or a page linked from there",
    ),
    Code(
        "run.path_acl",
        "critical",
        "the run changes a path it may not: under the wiki, one that is neither a page nor "
        "an attachment; outside the wiki and `raw/`, a symlink, a submodule, a path under "
        "`.git` or a file past a page's size limit",
        "runs may write wiki pages (and new raw sources when ingesting), and regular files "
        "outside the wiki for a person to approve",
    ),
    Code(
        "run.repository_file",
        "major",
        "the run adds, changes or deletes a file of the repository outside the wiki and "
        "`raw/` (`.gitignore`, a workflow under `.github/`, `.pre-commit-config.yaml`, a file "
        "under `.obsidian/`): the message names the file; a person decides (`verify "
        "approve`, a maintainer's override). A symlink, a submodule, a path under `.git` or "
        "a file past a page's size limit is `run.path_acl`",
        "change it in a run (`wikigate run write RUN PATH`, `run delete`) and ask a "
        "maintainer to approve it (`wikigate verify approve RUN --reason ...`, or the "
        "override label on a pull request)",
        asks=True,
    ),
    Code(
        "run.rules_change",
        "major",
        "the run changes `wikigate.toml`, the rules: the message names each setting whose "
        "value differs (old → new); a person decides (`verify approve`, a maintainer's "
        "override), never the proposed rules themselves. A proposed file that does not load "
        "(invalid TOML or settings, not a regular file) is critical",
        "ask a maintainer to approve the rules change (`wikigate verify approve RUN --reason "
        "...`, or the override label on a pull request)",
        also="critical",
        asks=True,
    ),
    Code(
        "run.rules_followup",
        "major",
        "the run changes `[ledger]`, `[rubric]`, `[presentation]`, `[gap_policy]` or `[wiki]` "
        "and the pages the change leaves would not satisfy the new rules (or, where a new "
        "`[wiki]` puts them, be orphans or hold broken links): the message names the "
        "pages (and what fails) that a follow-up text change must fix; a person decides",
        "approve the rules with a follow-up run that fixes the named pages, or fix them in "
        "this run",
        asks=True,
    ),
    Code(
        "suppression.invalid",
        "major",
        'an inline suppression (`<!-- wikigate: ignore CODE reason="WHY" -->`) without a '
        "reason, naming an unknown code or a `suppression.*` code, malformed, past 1000 on a "
        "page, or of a finding that is critical there (refused unless `[verifier] suppress_critical = true`)",
        'write <!-- wikigate: ignore CODE reason="WHY" --> on the finding\'s line, naming a '
        "code of docs/checks.md",
    ),
    Code(
        "suppression.added",
        "major",
        "the change adds or alters an inline suppression (not on the base's version of the "
        "page with the same code, reason and paragraph text): the message names what it would set "
        "aside and why; it counts only once a person accepts it (`verify approve`, the "
        "server's recorded override, a maintainer's override label)",
        "ask a person to accept the suppression (`wikigate verify approve RUN --reason ...`, "
        "or the override label on a pull request); or fix the finding and drop the comment",
        asks=True,
    ),
    Code(
        "suppression.unused",
        "minor",
        "an inline suppression that applies to nothing: no finding of its code on the line it "
        "applies to (an own-line comment applies to the very next line)",
        "put the comment on the finding's line or the line just above it, or remove it",
    ),
    Code(
        "run.raw_write",
        "critical",
        "the run modifies, deletes or renames a raw source, or adds one outside an ingest run",
        "raw sources are immutable: add a new source file in an ingest run",
    ),
    Code(
        "run.convergence",
        "critical",
        "a cited claim on main was removed or altered; a page with cited claims was deleted "
        "outside an archive run",
        "keep it unchanged inside a `::: disputed` block and add "
        "**Updated YYYY-MM-DD per SOURCE:** with the new claim",
    ),
    Code(
        "claim.frozen",
        "critical",
        "a claim frozen by `[ledger] frozen` was removed, altered, relabelled or put in a "
        "disputed block; a frozen page changed at all (added text, deletion, an archive run's "
        "included) or a frozen folder gained a file; or an entry names a label its page does "
        "not cite (a maintainer's override lands it, recorded)",
        "leave frozen claims as they are; ask a maintainer to change them",
    ),
    Code(
        "claim.frozen_reworded",
        "major",
        "a frozen claim was reworded around the same quote: a person decides (needs_human_review)",
        "ask a maintainer to approve the wording (`wikigate verify approve RUN --reason ...`)",
        asks=True,
    ),
    Code(
        "claim.contradiction",
        "major",
        "a claim the run adds or changes says of the same subject a different number, date or "
        "quantity than another claim (on another page or its own), or denies it; the finding "
        "names both claims (page, line, claim id) and both sources (`[consistency]`)",
        "correct the claim that its source does not support, or keep the old one in a "
        "`::: disputed` block",
    ),
    Code(
        "claim.stale_other",
        "minor",
        "a claim the run adds or changes says what its source now says, and disagrees with "
        "another claim whose quote, of that same source, is no longer in it (that claim is "
        "stale: its sentence's, when it cites two sources); the finding names the stale claim "
        "(not this claim's error, and no open contradiction of this page)",
        "update the stale claim too, to what its source now says, or keep it in a "
        "`::: disputed` block as history",
    ),
    Code(
        "claim.source_conflict",
        "major",
        "two claims contradict each other and each is what its own source says: the sources "
        "disagree, and the page does not say so",
        "say so on the page: give both figures and cite both sources on the claim (`The pier "
        "opened in 1894 or in 1899.[^1][^2]`), or add a marker inside its sentence, before its "
        "footnote (`The pier opened in 1899 [conflict: raw/town.txt says 1894].[^1]`)",
    ),
    Code(
        "claim.gap_contradiction",
        "major",
        "a statement marked `[gap: …]` (citing no source) says of the same subject a different "
        "number or date than a cited claim, or denies it: compared one way, as a claim is "
        "(`[consistency]`)",
        "cite a source for the statement (with a `[conflict: …]` marker if the sources "
        "disagree), or correct it to agree with the cited claim",
    ),
    Code(
        "claim.possible_contradiction",
        "major",
        "two claims would contradict each other (another number, date, or a denial) if they "
        "are about one thing, and only a head noun or kind word of one's own says they may "
        'not be ("the museum hall" against "the museum"): no rule can tell offline '
        "(`[consistency]`)",
        "name the thing unambiguously, as the claim's source names it, cite the other "
        "page's source too, or add a `[conflict: …]` marker if they are one thing",
    ),
    Code(
        "claim.conflict_marker",
        "major",
        "a `[conflict: …]` marker says more than which source says what (its words are read by "
        "no judge): each part names a source under raw/ and at most a verb and four words",
        "keep the marker to `[conflict: raw/a.txt says 1899]`; state anything else as a cited "
        "claim",
    ),
    Code(
        "claim.consistency_cut",
        "minor",
        "more pages that could contradict a claim (a figure or date of its kind, or a denial) "
        "share its words as much as the last of its candidates than the consistency check "
        "compares (`[consistency] max_candidates` × 4): the others were not compared, so a "
        "contradiction with one of them would go unseen (a located blind spot: minor by "
        "default; the rules may make it major)",
        "name the claim's subject more specifically (a name, a date, the thing's own noun), "
        "or raise `[consistency] max_candidates`",
    ),
    Code(
        "claim.consistency_unjudged",
        "major",
        "the LLM judge could not vote on pairs of claims the consistency check gave it (major: "
        "fails closed); pairs past `[consistency] judge_max_tokens` were not sent (minor)",
        "run the verification again; raise `[consistency] judge_max_tokens` to judge every pair",
        also="minor",
    ),
    Code(
        "run.scope",
        "critical",
        "the run changes a path outside the scope it declared (`run start --scope`, "
        "`Wikigate-Scope:` in a pull request's body)",
        "change only the declared paths, or start a run with a wider scope",
    ),
    Code(
        "run.required_step",
        "major",
        "a step `[runs.required.TYPE]` asks of this run type is missing (append to the log, "
        "change a page, link each new page from the index)",
        "do the missing step in the same run",
    ),
    Code(
        "run.schema",
        "critical",
        "the run's recorded metadata has a schema version this wikigate does not know "
        "(a newer wikigate wrote it); it is never half-read",
        "finalize it with the wikigate that started it, or upgrade wikigate",
    ),
    Code(
        "run.forged",
        "critical",
        "the run's commits say something other than what `wikigate run start` recorded (its "
        "type, trigger, budget, scope or direction): a commit made outside wikigate changed "
        "the run; the run is rejected as it was started, never as its commits claim",
        "start a new run; stage every change with `wikigate run write|replace|delete`",
    ),
    Code(
        "run.trace_tampered",
        "critical",
        "the run's trace (the tool calls of the `wikigate mcp` session that wrote it, on "
        "`refs/wikigate/trace/<run>`) is not the one wikigate recorded: an event was edited, "
        "added, dropped or reordered, or the ref is gone or unreadable (its hash chain's head "
        "or length differs from the one pinned in the telemetry database)",
        "start a new run through `wikigate mcp`; never write refs/wikigate/trace/*",
    ),
    Code(
        "trace.unread_source",
        "major",
        "a claim the run adds or changes cites a source that the session never read (no "
        "`read`, `grep` hit, `anchor` or `follow` of it in this run's trace, nor in an "
        "earlier run's trace under `[trace] earlier_runs`) and the run did not write",
        "read the source (`read`, or `anchor` the quote) before citing it, then finalize again",
    ),
    Code(
        "trace.order",
        "critical",
        "the trace's events are out of order: sequence numbers not contiguous from 1, a call "
        "before `start_run`, or a `finalize` called when the run held other ops than the "
        "session's writes before it",
        "stage every change through the session, in order; start a new run",
    ),
    Code(
        "trace.write_mismatch",
        "critical",
        "the run's ops are not the session's writes: an op no traced call staged, a traced "
        "write missing from the run, or a path whose content in the verified tree is not the "
        "blob the session's last write of it staged",
        "stage every change through the session's `write`, `replace` and `delete`; start a new run",
    ),
    Code(
        "trace.absent",
        "minor",
        "the run has no trace (it was not written through `wikigate mcp`): its severity is "
        "`[trace] absent` (default `allow`: no finding, a blind spot says so)",
        'write the run through `wikigate mcp`, or set `[trace] absent = "allow"`',
    ),
    Code(
        "run.direction",
        "major",
        "the LLM judge: the change works against what its direction says (major), does none "
        "of it (minor), or could not be assessed (major: no answer, budget, no key)",
        "make the change do what the run said it would, or say what it does",
        also="minor",
    ),
    Code(
        "run.direction_unclear",
        "major",
        "the LLM judge finds the direction too unclear to judge the change by, or the change "
        "does part of it and works against another part: a person decides",
        "approve or reject the run (`wikigate verify approve|reject RUN --reason ...`)",
        asks=True,
    ),
    Code(
        "run.rubric",
        "major",
        "the LLM judge: the change sets back a `[rubric]` goal or pursues a non-goal; a "
        "person decides",
        "approve or reject the run (`wikigate verify approve|reject RUN --reason ...`)",
        asks=True,
    ),
    Code(
        "run.rubric_no_gain",
        "major",
        "the LLM judge: the change improves none of the `[rubric]` goals, and sets none "
        "back (that is `run.rubric`, for a person); `[rubric] require_gain = false` turns "
        "this off",
        "make the change advance one of the [rubric] goals, or say in its direction which "
        "one it serves",
    ),
    Code(
        "run.coverage",
        "minor",
        "a page mentions the new source's key terms but was not touched",
        "review the page against the new source",
        presets=(("BOLD", "major"),),
    ),
    Code(
        "run.budget",
        "critical",
        "attested usage exceeds the declared budget",
        "the run overspent its declared budget",
    ),
    Code(
        "run.usage_missing",
        "major",
        "a budget was declared and no usage attested: the run goes back to the writer to "
        "attest its spend",
        "attest with `wikigate run usage RUN --input-tokens N --output-tokens N --usd X`, "
        "then finalize again",
    ),
    Code(
        "run.replace_failed",
        "critical",
        "from the engine: `str_replace` matched zero or several times; the run was aborted",
        "re-read the staged page and quote a unique span",
    ),
    Code(
        "verifier.error",
        "critical",
        "any exception inside a check. Verification fails closed, always",
        "a verifier bug or unreadable input; the change cannot land until it verifies",
    ),
    Code(
        "verifier.budget",
        "critical",
        "the verification ran past `[limits] verify_seconds` of wall clock; the checks not "
        "yet done are not done, so the change cannot land (fails closed)",
        "make the change smaller, or raise the limit in a change to wikigate.toml of its own "
        "(the rules are the base commit's; a push's are the server's main before it)",
    ),
    Code(
        "tree.malformed",
        "critical",
        "a git tree git itself would refuse: two entries with one name (git reads the first), "
        "an entry named `.`, `..`, `.git` (any case) or with an empty, non-UTF-8 or `/`-holding "
        "name, or one holding a control or line-separator character (newline, tab, C1, U+2028, "
        "U+2029; the path is shown escaped), an invalid mode, or entries out of order",
        "write the commit with git itself (or wikigate), never a hand-built tree",
    ),
    Code(
        "tree.unportable",
        "critical",
        "a changed path that a clone on a common system cannot check out: a name over 255 "
        "bytes (Linux, macOS), a name Windows reserves (`CON`, `NUL`, `COM1`…, with any "
        'extension) or cannot hold (`<>:"|?*`, a trailing dot or space), or a path equal to '
        "another but for case (macOS, Windows)",
        "rename it: every clone of main, on Linux, macOS and Windows, must be able to check it out",
    ),
    Code(
        "tree.limit",
        "critical",
        "a tree past `[limits]`: more paths than `tree_paths` (a folder named N times counts N "
        "times; the paths' names may hold 256 bytes a path in all) or folders nested deeper "
        "than `tree_depth`; the message names the folder and the value seen. Nothing else of "
        "the tree is read",
        "commit fewer files, or raise `[limits] tree_paths` / `tree_depth` in the base's "
        "wikigate.toml",
    ),
    Code(
        "run.log_rewrite",
        "critical",
        "the run rewrites or deletes the log (`log.md` in the wiki's root: `wiki/log.md` by "
        "default), which is append-only",
        "only append lines to the end of the log (log.md in the wiki's root)",
    ),
)
CODES: dict[str, Code] = {c.code: c for c in TABLE}
# codes whose findings ask a person instead of sending the writer round again
ASKS: frozenset[str] = frozenset(c.code for c in TABLE if c.asks)


def verdict_for(findings: list[Finding]) -> Verdict:
    """Severity decides: any critical rejects, else any major revises, else commit.

    A finding of a code that asks a person (codes.ASKS: a flaky judge, a frozen claim
    reworded) is not the writer's to fix: unless something else rejects or revises, the
    run waits for a person (needs_human_review)."""
    worst = max((SEVERITY_RANK[f.severity] for f in findings), default=-1)
    if worst >= SEVERITY_RANK["critical"]:
        return "reject"
    if any(SEVERITY_RANK[f.severity] >= 1 and f.code not in ASKS for f in findings):
        return "revise"
    if any(f.code in ASKS for f in findings):
        return "needs_human_review"
    return "commit"


def finding(
    code: str,
    path: str | None,
    line: int | None,
    message: str,
    *,
    hint: str | None = None,
    severity: Severity | None = None,
    claim: str | None = None,
    claim_line: int | None = None,
    source: str | None = None,
    other: OtherClaim | None = None,
) -> Finding:
    """A finding of a registered code: its default severity and hint unless given."""
    entry = CODES[code]  # KeyError: register the code in TABLE first
    if severity is not None and severity not in (entry.severity, entry.also):
        raise ValueError(f"{code} is {entry.severity}, not {severity}")
    return Finding(
        code=code,
        severity=severity or entry.severity,
        path=path,
        line=line,
        message=message,
        hint=hint if hint is not None else entry.hint,
        claim=claim,
        claim_line=claim_line,
        source=source,
        other=other,
    )


def severity_at(f: Finding, strictness: str) -> Severity:
    """The severity a finding has under a strictness preset (before config overrides)."""
    entry = CODES.get(f.code)
    if entry is None or f.severity != entry.severity:
        return f.severity
    return dict(entry.presets).get(strictness, f.severity)


def markdown_table() -> str:
    """docs/checks.md's table of codes."""
    rows = ["| code | severity | what |", "|---|---|---|"]
    for c in TABLE:
        severity = c.severity + (f" / {c.also}" if c.also else "")
        if c.presets:
            severity += " (" + ", ".join(f"{s} under {p}" for p, s in c.presets) + ")"
        if c.asks:
            severity += ", asks a person"
        rows.append(f"| `{c.code}` | {severity} | {c.what} |")
    return "\n".join(rows)


if __name__ == "__main__":  # python -m wikigate.codes: docs/checks.md's table
    print(markdown_table())
