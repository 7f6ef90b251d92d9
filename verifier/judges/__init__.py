"""The semantic judges: does the quote support the claim?

``protocol`` is what every judge is given and returns; ``offline`` holds the offline
judge's rules (no network, no model); ``llm`` is the judge on Anthropic's API, imported
only when chosen; ``choose`` builds the one a run's rules (or ``--judge``) ask for.
"""
