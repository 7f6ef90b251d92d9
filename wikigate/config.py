"""``wikigate.toml``: the workspace's configuration.

Plain data classes (wikigate/plain.py); a file is validated by the pydantic models made
from them, imported only when a file holds something the quick check below
(:func:`_quick`) cannot vouch for: the same errors, word for word, and no pydantic on a
hook's start-up for the usual file.

The rules a change is judged by come from the *base commit's* tree
(:func:`config_at`), never from the working tree: an uncommitted edit, or the
change itself, cannot loosen the gate.  A bare (server) repository's own
``wikigate.toml`` in its git dir holds only what the server operator sets: its
``[server]`` section (:class:`ServerSection`), which no push can change.
"""

from __future__ import annotations

import hashlib
import os
import tomllib
from pathlib import Path
from typing import Literal

import pygit2

from .codes import CODES
from .errors import ConfigError
from .models import RunType, Strictness
from .paths import Layout
from .plain import Plain, plain, quick_validate, rule

CONFIG_FILE = "wikigate.toml"


DEFAULT_TOML = """\
# wikigate configuration: see docs/config.md
[workspace]
# name = "my-wiki"          # defaults to the repository folder's name

[runs]
timeout_minutes = 1440      # pending runs older than this are swept to abandoned
max_rebases = 0             # races for main lost before finalize waits its turn to land
lease_seconds = 300         # a finalizer's claim on a run; renewed while it works
on_no_progress = "reject"   # a loop repeating the last one's failures: reject | ask (a person)

[verifier]
strictness = "SKEPTICAL"    # CALM | SKEPTICAL | PARANOID | BOLD

[verifier.severity]
# "page.orphan" = "minor"   # override a finding's severity

[judge]
provider = "offline"        # offline (the heuristic) | anthropic (an LLM; ANTHROPIC_API_KEY)

[frontmatter.required]
# status = "str"            # fields every page must carry, with their type
"""


@plain(extra="forbid")
class WorkspaceSection(Plain):
    name: str | None = None


def _pages(value: list[str]) -> list[str]:
    for page in value:
        if not page.endswith(".md") or ".." in page.split("/") or page.startswith("/"):
            raise ValueError(f"{page!r} is not a page path (wiki/NAME.md)")
    return value


@plain(extra="forbid")
class RequiredSteps(Plain):
    """``[runs.required.TYPE]``: what every run of that type must do (``run.required_step``)."""

    append: list[str] = rule(factory=list, after=_pages)  # pages it must append to (a log)
    change: list[str] = rule(factory=list, after=_pages)  # pages it must change
    # pages linking each new page
    link_new_pages_from: list[str] = rule(factory=list, after=_pages)


def _root(value: str) -> str:
    clean = value.strip("/")
    if clean in ("", "."):
        return ""
    parts = clean.split("/")
    if any(p in ("", ".", "..") or p.startswith(".") for p in parts) or parts[0] == "raw":
        raise ValueError(f"{value!r}: a folder of the repository (wiki, notes) or '.'")
    return clean


MAX_EXCLUDE = 200  # [wiki] exclude entries: each path of a tree is matched against each
MAX_EXCLUDE_CHARS = 300  # characters of one entry (a path or a glob)


def _exclude(value: list[str]) -> list[str]:
    if len(value) > MAX_EXCLUDE:
        raise ValueError(
            f"{len(value)} entries; at most {MAX_EXCLUDE} (exclude a folder, or a glob such "
            'as "*.canvas", rather than each file)'
        )
    for item in value:
        if not item or item.startswith("/") or ".." in item.split("/"):
            raise ValueError(f"{item!r}: a path relative to the repository (a folder ends in /)")
        if len(item) > MAX_EXCLUDE_CHARS:
            raise ValueError(f"{item[:40]!r}...: at most {MAX_EXCLUDE_CHARS} characters")
    return value


@plain(extra="forbid")
class WikiSection(Plain):
    """``[wiki]``: where the pages are (docs/config.md, "Where the pages are")."""

    root: str = rule(default="wiki", after=_root)  # "" or ".": the repository's root (a vault's)
    # ".obsidian/", "templates/", "README.md"
    exclude: list[str] = rule(factory=list, after=_exclude)

    def layout(self) -> Layout:
        return Layout(self.root + "/" if self.root else "", tuple(self.exclude))


@plain(extra="forbid")
class RunsSection(Plain):
    required: dict[RunType, RequiredSteps] = rule(factory=dict)
    timeout_minutes: float = rule(default=1440, ge=0)
    # races lost to other finalizers before a finalizer waits for its landing turn
    max_rebases: int = rule(default=0, ge=0, le=50)
    lease_seconds: float = rule(default=300, gt=0)
    # a revise whose failures are the last loop's (the same signatures): the run stops
    # looping, rejected ("reject") or waiting for a person ("ask")
    on_no_progress: Literal["reject", "ask"] = "reject"


def _known_codes(value: dict[str, str]) -> dict[str, str]:
    unknown = sorted(set(value) - set(CODES))
    if unknown:
        raise ValueError(
            f"unknown finding code {', '.join(unknown)} (the codes are in docs/checks.md)"
        )
    return value


@plain(extra="forbid")
class VerifierSection(Plain):
    strictness: Strictness = "SKEPTICAL"
    severity: dict[str, Literal["critical", "major", "minor", "off"]] = rule(
        factory=dict, after=_known_codes
    )
    verify_on_push: bool | None = None  # legacy spelling of [server] verify_on_push
    suppress_critical: bool = False  # inline suppressions may set aside critical findings
    plugin: str | None = None  # "package.module:factory" replacing the default verifier


@plain(extra="forbid")
class LimitsSection(Plain):
    """``[limits]``: what a verification reads of writer input, at most (docs/config.md).
    A limit hit is a located critical finding, never a hang, an out-of-memory or a pass.
    Read from the base commit's rules, like every rule: a change cannot raise its own."""

    # paths in one tree (a tree object named many times counts each time it is named)
    tree_paths: int = rule(default=200_000, ge=1)
    tree_depth: int = rule(default=64, ge=1)  # folders within folders
    citations_per_page: int = rule(default=5_000, ge=1)
    # scans of one source placing quotes that miss their anchors (the first 4 found nowhere
    # also get a near-miss search); past it, such a quote is reported unsearched
    quote_scans: int = rule(default=64, ge=0)
    pdf_pages: int = rule(default=2_000, ge=1)  # pages of one PDF source
    pdf_bytes: int = rule(default=256 * 2**20, ge=1)  # decompressed content of one PDF
    pdf_seconds: float = rule(default=30, gt=0)  # CPU time to extract one PDF's text
    verify_seconds: float = rule(default=900, gt=0)  # wall clock of one verification


@plain(extra="forbid")
class CitationsSection(Plain):
    """``[citations]``: what a quote must be to count (docs/config.md). ``min_quote_chars``:
    a verified quote shorter than this (its whitespace collapsed) is citation.quote_too_short;
    0 turns the check off."""

    min_quote_chars: int = rule(default=6, ge=0)


@plain(extra="forbid")
class FrontmatterSection(Plain):
    required: dict[str, Literal["str", "int", "float", "bool", "list", "date", "any"]] = rule(
        factory=dict
    )


def _frozen(value: list[str]) -> list[str]:
    for item in value:
        page, hashed, label = item.partition("#^")
        if not page.startswith("wiki/") or ".." in page.split("/") or (hashed and not label):
            raise ValueError(
                f"{item!r}: expected a folder (wiki/DIR/), a page (wiki/NAME.md) or a "
                "claim (wiki/NAME.md#^LABEL)"
            )
        if hashed and not page.endswith(".md"):
            raise ValueError(f"{item!r}: a claim is PAGE.md#^LABEL")
    return value


@plain(extra="forbid")
class LedgerSection(Plain):
    """``[ledger]``: claims and pages maintainers froze (docs/ledger.md)."""

    # "wiki/dir/", "wiki/p.md", "wiki/p.md#^3"
    frozen: list[str] = rule(factory=list, after=_frozen)

    def frozen_claim(self, page: str, label: str) -> str | None:
        """The entry freezing this claim (its page's, a folder's or its own), if any."""
        for item in self.frozen:
            if (
                item == f"{page}#^{label}"
                or item == page
                or (item.endswith("/") and page.startswith(item))
            ):
                return item
        return None

    def frozen_page(self, page: str) -> str | None:
        """The entry freezing the whole page (the page or its folder), if any."""
        for item in self.frozen:
            if item == page or (item.endswith("/") and page.startswith(item)):
                return item
        return None


@plain(extra="forbid")
class RubricSection(Plain):
    """``[rubric]``: what the maintainers want of the wiki, and do not; the LLM judge
    assesses every change against them (run.rubric; docs/ledger.md)."""

    goals: list[str] = rule(factory=list)
    non_goals: list[str] = rule(factory=list)
    # a change judged under goals must improve at least one of them (run.rubric_no_gain)
    require_gain: bool = True


def _phrases(value: list[str]) -> list[str]:
    for item in value:
        if not item.strip() or "\n" in item:
            raise ValueError(f"{item!r}: expected a phrase on one line")
    return value


@plain(extra="forbid")
class PresentationSection(Plain):
    """``[presentation]``: how the wiki reads.  ``avoid``: phrases no changed line may hold
    (page.avoid); ``preserve``: phrases and headings a changed page that had them keeps
    (page.preserve); both checked deterministically, case-insensitively, in the text a reader
    sees (verifier/checks/reading.py).  ``voice`` and
    ``register``: judged by the LLM judge on the changed text (page.presentation); the
    offline judge cannot, and the report says so (docs/checks.md)."""

    voice: str | None = None  # e.g. "plain, third person, no first person"
    register: str | None = None  # e.g. "encyclopedic: neutral, no marketing"
    avoid: list[str] = rule(factory=list, after=_phrases)
    preserve: list[str] = rule(factory=list, after=_phrases)


@plain(extra="forbid")
class GapPolicySection(Plain):
    """``[gap_policy]``: whether ``[gap: …]`` markers are allowed, and how many per page."""

    allowed: bool = True
    max_per_page: int | None = rule(default=None, ge=0)


Granularity = Literal["sentence", "paragraph", "page"]


@plain(extra="forbid")
class StatementsSection(Plain):
    """``[statements]``: how finely every statement must be accounted for (cited or
    gap-marked): each ``sentence``, each ``paragraph`` (one citation or gap marker in a
    paragraph, list item or cell covers it), or the ``page`` (only a page citing nothing
    is flagged, page.uncited). docs/checks.md gives the measurements behind the default."""

    granularity: Granularity = "sentence"


@plain(extra="forbid")
class ConsistencySection(Plain):
    """``[consistency]``: claims checked against the rest of the wiki (claim.contradiction,
    claim.source_conflict; docs/checks.md): at most ``max_candidates`` other claims about
    the same subject for each claim a run adds or changes."""

    enabled: bool = True
    max_candidates: int = rule(default=20, ge=0, le=1000)
    judge_max_tokens: int = rule(default=50_000, ge=0)  # the LLM judge's pair requests, a run


@plain(extra="forbid")
class TraceSection(Plain):
    """``[trace]``: the checks on a run's trace, the tool calls of the ``wikigate mcp``
    session that wrote it (docs/mcp.md): ``enabled`` (on by default), ``earlier_runs`` (a
    source an earlier run's trace read counts as read), and what a run with no trace is
    (a CLI run): ``allow`` (marked as a blind spot, no finding) or the severity of its
    ``trace.absent`` finding."""

    enabled: bool = True
    earlier_runs: bool = True
    absent: Literal["allow", "minor", "major", "critical"] = "allow"


@plain(extra="forbid")
class TelemetrySection(Plain):
    path: str | None = None


@plain(extra="forbid")
class ServerSection(Plain):
    """A server's own settings: read only from the bare repository's ``BARE.git/wikigate.toml``,
    a file no push can change.  In a committed ``wikigate.toml`` this section means nothing."""

    verify_on_push: bool | None = None  # unset: verify (see server_verifies)
    override_users: list[str] = rule(factory=list)
    admins: list[str] = rule(factory=list)  # may delete or rewrite the records' refs
    user_env: list[str] = rule(factory=lambda: ["GL_USER", "REMOTE_USER"])


@plain(extra="forbid")
class ModelInfo(Plain):
    """What the judge must know of a model: its prices (USD per million tokens) and the
    shortest prefix it caches (tokens)."""

    input: float = rule(ge=0, allow_inf_nan=False)
    output: float = rule(ge=0, allow_inf_nan=False)
    cache_write: float = rule(ge=0, allow_inf_nan=False)  # 5-minute cache writes
    cache_read: float = rule(ge=0, allow_inf_nan=False)
    min_cache_tokens: int = rule(ge=0)


# The one default table of models, prices and minimum cacheable lengths (Anthropic's
# published figures when this release was made; wikigate.toml's [judge.models."NAME"]
# adds a model or replaces one of these). No model name or price appears in logic.
JUDGE_MODELS: dict[str, ModelInfo] = {
    "claude-sonnet-5": ModelInfo(
        input=2.0, output=10.0, cache_write=2.5, cache_read=0.2, min_cache_tokens=1024
    ),
    "claude-sonnet-5-5": ModelInfo(
        input=2.0, output=10.0, cache_write=2.5, cache_read=0.1, min_cache_tokens=512
    ),
    "claude-opus-5": ModelInfo(
        input=5.0, output=25.0, cache_write=6.25, cache_read=0.5, min_cache_tokens=512
    ),
    "claude-haiku-4-5": ModelInfo(
        input=1.0, output=5.0, cache_write=1.25, cache_read=0.1, min_cache_tokens=4096
    ),
    "claude-sonnet-4-5": ModelInfo(
        input=3.0, output=15.0, cache_write=3.75, cache_read=0.3, min_cache_tokens=1024
    ),
}
JUDGE_DEFAULT_MODEL = "claude-sonnet-5"
JudgeProvider = Literal["offline", "anthropic"]


def _with_defaults(value: dict[str, ModelInfo]) -> dict[str, ModelInfo]:
    return {**JUDGE_MODELS, **value}


@plain(extra="forbid")
class JudgeSection(Plain):
    """``[judge]``: which semantic judge runs, and the LLM judge's model, sizes and caps.
    Every default is documented in docs/config.md and docs/judge.md."""

    provider: JudgeProvider = "offline"
    model: str = rule(default=JUDGE_DEFAULT_MODEL, min_length=1)
    max_tokens: int = rule(default=4096, ge=256, le=128_000)  # per response
    window_chars: int = rule(default=600, ge=0, le=20_000)  # source text each side of a quote
    source_block_chars: int = rule(default=60_000, ge=1000)  # whole source up to this size
    source_span_chars: int = rule(default=4000, ge=0)  # else: this much around each cited span
    max_claims_chars: int = rule(default=40_000, ge=1000)  # claims per request, in characters
    max_claims_per_request: int = rule(default=50, ge=1)
    max_tool_turns: int = rule(default=3, ge=0, le=20)
    paranoid_window_factor: float = rule(default=3.0, ge=1.0, le=50.0, allow_inf_nan=False)
    budget_multiplier: float = rule(default=0.5, gt=0, le=10, allow_inf_nan=False)
    max_input_tokens: int = rule(default=2_000_000, ge=0)  # caps where no budget was declared
    max_output_tokens: int = rule(default=200_000, ge=0)
    max_usd: float = rule(default=5.0, ge=0, allow_inf_nan=False)
    timeout_seconds: float = rule(default=120.0, gt=0, allow_inf_nan=False)
    max_retries: int = rule(default=2, ge=0, le=10)  # the SDK's retries of 408/409/429/5xx
    force_tool_choice: bool = True  # false for models that refuse a forced tool_choice
    thinking: Literal["disabled", "omit"] = "disabled"
    chars_per_token: float = rule(default=3.5, gt=0, allow_inf_nan=False)  # estimates only
    models: dict[str, ModelInfo] = rule(factory=lambda: dict(JUDGE_MODELS), after=_with_defaults)

    def model_info(self) -> ModelInfo:
        """The configured model's prices and cache minimum: its own entry, else the entry
        of the model it is a dated snapshot of (``NAME-YYYYMMDD``)."""
        found = self.models.get(self.model)
        base, sep, date = self.model.rpartition("-")
        if found is None and sep and len(date) == 8 and date.isdigit():
            found = self.models.get(base)
        if found is None:
            raise ConfigError(
                f"[judge] model {self.model!r} has no prices: add "
                f'[judge.models."{self.model}"] with input, output, cache_write, cache_read '
                "(USD per million tokens) and min_cache_tokens to wikigate.toml"
            )
        return found


@plain(extra="forbid")
class GithubSection(Plain):
    """``[github]``: what the bot shows on a pull request (docs/github.md)."""

    # review comments on one pull request; the rest are folded into the summary comment
    max_comments: int = rule(default=25, ge=0, le=1000)


@plain(extra="forbid")
class Config(Plain):
    workspace: WorkspaceSection = rule(factory=WorkspaceSection)
    wiki: WikiSection = rule(factory=WikiSection)
    runs: RunsSection = rule(factory=RunsSection)
    verifier: VerifierSection = rule(factory=VerifierSection)
    limits: LimitsSection = rule(factory=LimitsSection)
    citations: CitationsSection = rule(factory=CitationsSection)
    judge: JudgeSection = rule(factory=JudgeSection)
    frontmatter: FrontmatterSection = rule(factory=FrontmatterSection)
    ledger: LedgerSection = rule(factory=LedgerSection)
    gap_policy: GapPolicySection = rule(factory=GapPolicySection)
    statements: StatementsSection = rule(factory=StatementsSection)
    consistency: ConsistencySection = rule(factory=ConsistencySection)
    trace: TraceSection = rule(factory=TraceSection)
    rubric: RubricSection = rule(factory=RubricSection)
    presentation: PresentationSection = rule(factory=PresentationSection)
    telemetry: TelemetrySection = rule(factory=TelemetrySection)
    server: ServerSection = rule(factory=ServerSection)
    github: GithubSection = rule(factory=GithubSection)


def parse_config(text: str, where: str) -> Config:
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise ConfigError(f"{where}: invalid TOML: {e}") from e
    if "attest" in data:  # a key path is this machine's setting, never the repository's
        raise ConfigError(
            f"{where}: [attest]: which SSH key signs attestations is a setting of your "
            "machine, not of the repository (whoever edits this file would choose your key): "
            "use `git config wikigate.signingKey ~/.ssh/id_ed25519` or WIKIGATE_SIGNING_KEY "
            "(docs/attest.md), and remove [attest]"
        )
    quick = quick_validate(Config, data)
    if quick is not None:
        return quick
    from pydantic import ValidationError

    try:
        return Config.model_validate(data)
    except ValidationError as e:
        first = e.errors()[0]
        loc = ".".join(str(x) for x in first["loc"])
        raise ConfigError(f"{where}: {loc}: {first['msg']}") from e


def load_config(root: Path) -> Config:
    """A ``wikigate.toml`` file on disk (a server's own, in its git dir)."""
    path = root / CONFIG_FILE
    if not path.exists():
        return Config()
    return parse_config(path.read_text(encoding="utf-8"), str(path))


def server_verifies(cfg: Config) -> bool:
    """Whether a server's pre-receive verifies updates of main itself.

    ``[server] verify_on_push``, else the older ``[verifier] verify_on_push``, else yes.
    """
    for choice in (cfg.server.verify_on_push, cfg.verifier.verify_on_push):
        if choice is not None:
            return choice
    return True


_BY_BLOB: dict[str, Config] = {}


def config_at(repo: pygit2.Repository, commit: pygit2.Commit | pygit2.Oid | str | None) -> Config:
    """The rules in force at ``commit``: its tree's ``wikigate.toml`` (defaults when absent).

    Raises ConfigError, naming the commit, when the committed file is invalid.
    """
    if commit is None:
        return Config()
    obj = commit if isinstance(commit, pygit2.Commit) else repo[commit]
    if not isinstance(obj, pygit2.Commit):
        raise ConfigError(f"{commit}: not a commit; cannot read {CONFIG_FILE}")
    try:
        entry = obj.tree[CONFIG_FILE]
    except KeyError:
        return Config()
    blob = repo[entry.id]
    if not isinstance(blob, pygit2.Blob):
        raise ConfigError(f"{CONFIG_FILE} at {obj.short_id} is not a file")
    key = str(entry.id)
    if key not in _BY_BLOB:
        try:
            text = blob.data.decode("utf-8")
        except UnicodeDecodeError as e:
            raise ConfigError(f"{CONFIG_FILE} at {obj.short_id}: not UTF-8 ({e})") from e
        _BY_BLOB[key] = parse_config(text, f"{CONFIG_FILE} at {obj.short_id}")
    return _BY_BLOB[key]


def config_hash(config: Config) -> str:
    """A stable digest of the rules, for keys of cached verdicts."""
    data = config.model_dump_json(exclude={"workspace", "telemetry"})  # pydantic's JSON
    return hashlib.sha256(data.encode()).hexdigest()


def lease_seconds(cfg: Config) -> float:
    """How long a finalizer's claim lasts unless renewed (env: WIKIGATE_LEASE_SECONDS)."""
    raw = os.environ.get("WIKIGATE_LEASE_SECONDS")
    if raw is None:
        return cfg.runs.lease_seconds
    try:
        value = float(raw)
    except ValueError as e:
        raise ConfigError(f"WIKIGATE_LEASE_SECONDS={raw!r} is not a number") from e
    if value <= 0:
        raise ConfigError(f"WIKIGATE_LEASE_SECONDS={raw!r} must be positive")
    return value


def env_timeout_override(cfg: Config) -> float:
    raw = os.environ.get("WIKIGATE_RUN_TIMEOUT_MINUTES")
    if raw is None:
        return cfg.runs.timeout_minutes
    try:
        return float(raw)
    except ValueError as e:
        raise ConfigError(f"WIKIGATE_RUN_TIMEOUT_MINUTES={raw!r} is not a number") from e
