"""The LLM judge on Anthropic's Messages API (docs/judge.md).  Imported only when the
rules or ``--judge`` choose it; only ``client`` imports the ``anthropic`` SDK."""
