"""``wikigate.toml``: the workspace's configuration, validated with pydantic."""

from __future__ import annotations

import os
import tomllib
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from .errors import ConfigError

CONFIG_FILE = "wikigate.toml"

Strictness = Literal["CALM", "SKEPTICAL", "PARANOID", "BOLD"]

DEFAULT_TOML = """\
# wikigate configuration: see docs/config.md
[workspace]
# name = "my-wiki"          # defaults to the repository folder's name

[runs]
timeout_minutes = 1440      # pending runs older than this are swept to abandoned
max_rebases = 5             # how often finalize re-verifies after main moved

[verifier]
strictness = "SKEPTICAL"    # CALM | SKEPTICAL | PARANOID | BOLD

[verifier.severity]
# "page.orphan" = "minor"   # override a finding's severity

[frontmatter.required]
# status = "str"            # fields every page must carry, with their type
"""


class WorkspaceSection(BaseModel):
    model_config = ConfigDict(extra="forbid")
    name: str | None = None


class RunsSection(BaseModel):
    model_config = ConfigDict(extra="forbid")
    timeout_minutes: float = Field(default=1440, ge=0)
    max_rebases: int = Field(default=5, ge=0, le=50)


class VerifierSection(BaseModel):
    model_config = ConfigDict(extra="forbid")
    strictness: Strictness = "SKEPTICAL"
    severity: dict[str, Literal["critical", "major", "minor", "off"]] = Field(default_factory=dict)
    verify_on_push: bool = False
    plugin: str | None = None  # "package.module:factory" replacing the default verifier


class FrontmatterSection(BaseModel):
    model_config = ConfigDict(extra="forbid")
    required: dict[str, Literal["str", "int", "float", "bool", "list", "date", "any"]] = Field(
        default_factory=dict
    )


class TelemetrySection(BaseModel):
    model_config = ConfigDict(extra="forbid")
    path: str | None = None


class Config(BaseModel):
    model_config = ConfigDict(extra="forbid")
    workspace: WorkspaceSection = Field(default_factory=WorkspaceSection)
    runs: RunsSection = Field(default_factory=RunsSection)
    verifier: VerifierSection = Field(default_factory=VerifierSection)
    frontmatter: FrontmatterSection = Field(default_factory=FrontmatterSection)
    telemetry: TelemetrySection = Field(default_factory=TelemetrySection)


def parse_config(text: str, where: str) -> Config:
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise ConfigError(f"{where}: invalid TOML: {e}") from e
    try:
        return Config.model_validate(data)
    except ValidationError as e:
        first = e.errors()[0]
        loc = ".".join(str(x) for x in first["loc"])
        raise ConfigError(f"{where}: {loc}: {first['msg']}") from e


def load_config(root: Path) -> Config:
    path = root / CONFIG_FILE
    if not path.exists():
        return Config()
    return parse_config(path.read_text(encoding="utf-8"), str(path))


def env_timeout_override(cfg: Config) -> float:
    raw = os.environ.get("WIKIGATE_RUN_TIMEOUT_MINUTES")
    if raw is None:
        return cfg.runs.timeout_minutes
    try:
        return float(raw)
    except ValueError as e:
        raise ConfigError(f"WIKIGATE_RUN_TIMEOUT_MINUTES={raw!r} is not a number") from e
