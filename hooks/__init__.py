"""wikigate.hooks: pre-commit hooks and git hooks (installed from the top-level ``hooks/``)."""
