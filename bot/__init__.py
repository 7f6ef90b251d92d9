"""wikigate.bot: the GitHub gitops bot (installed from the top-level ``bot/``).

Empty until the GitHub issue lands; the package exists so the import
namespace matches the repository layout.
"""
