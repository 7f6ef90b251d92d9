"""A small corpus of claims and the source text they cite: faithful ones (the clean set:
no judge may flag them) and unfaithful ones whose quote is verbatim in the source but does
not support the claim (what a semantic judge is for).  The tests and benchmarks/judge.py
measure the offline heuristic on it.

Each case: (claim, quote, source text holding the quote, what is wrong or None).
"""

from __future__ import annotations

from typing import NamedTuple


class Case(NamedTuple):
    claim: str
    quote: str
    source: str
    wrong: str | None  # None: faithful; else what a judge should see


FAITHFUL: list[Case] = [
    Case(
        "As the source says, cats sleep for sixteen hours a day.",
        "Cats sleep for sixteen hours a day.",
        "Cats sleep for sixteen hours a day. Dogs may bark at night.\n",
        None,
    ),
    Case(
        "Cats sleep 16 hours a day.",
        "Cats sleep for sixteen hours a day.",
        "Cats sleep for sixteen hours a day.\n",
        None,
    ),
    Case(
        "In Q3 2024 the committee decided to adopt the plan.",
        "the committee decided to adopt the plan",
        "Minutes, Q3 2024.\nAfter a long debate the committee decided to adopt the plan in full.\n",
        None,
    ),
    Case(
        "Dogs may bark at night.",
        "Dogs may bark at night.",
        "Cats sleep for sixteen hours a day.\nDogs may bark at night.\n",
        None,
    ),
    Case(
        "Barn owls can hear mice beneath snow.",
        "A barn owl can hear a mouse under snow.",
        "Owls hunt at night.\nA barn owl can hear a mouse under snow.\n",
        None,
    ),
    Case(
        "The report recommends that the city should adopt congestion pricing.",
        "the city should adopt congestion pricing",
        "Our report concludes that the city should adopt congestion pricing by 2026.\n",
        None,
    ),
    Case(
        "Whether to fund the second phase is still undecided.",
        "Whether the second phase will be funded remains undecided.",
        "The first phase was funded. Whether the second phase will be funded remains undecided.\n",
        None,
    ),
    Case(
        "Sales rose by 4 percent in 2023.",
        "In 2023, sales rose 4%.",
        "Annual report. In 2023, sales rose 4%. Costs were flat.\n",
        None,
    ),
    Case(
        "The law forbids smoking in bars.",
        "smoking in bars is forbidden by the law",
        "Since 2007 smoking in bars is forbidden by the law.\n",
        None,
    ),
    Case(
        "Lincoln recalled that four score and seven years ago a new nation was brought forth.",
        "Four score and seven years ago our fathers brought forth on this continent, a new nation",
        "Four score and seven years ago our fathers brought forth on this continent, a new nation, "
        "conceived in Liberty.\n",
        None,
    ),
    Case(
        "The bridge, built in 1932, is 250 metres long.",
        "The bridge is 250 metres long.",
        "Opened in 1932. The bridge is 250 metres long.\n",
        None,
    ),
    Case(
        "The trial did not find any benefit.",
        "The trial found no benefit.",
        "Results. The trial found no benefit. Side effects were rare.\n",
        None,
    ),
]

UNFAITHFUL: list[Case] = [
    Case(
        "Owls are the fastest birds.",
        "Owls are not the fastest birds.",
        "Owls are not the fastest birds.\n",
        "negation dropped",
    ),
    Case(
        "The committee rejected the plan.",
        "decided to adopt the plan",
        "After a long debate the committee decided to adopt the plan in full.\n",
        "adopted reported as rejected",
    ),
    Case(
        "The city adopted congestion pricing.",
        "the city should adopt congestion pricing",
        "Our report concludes that the city should adopt congestion pricing.\n",
        "a recommendation stated as fact",
    ),
    Case(
        "The board decided to merge with its rival.",
        "Whether the board will merge with its rival remains undecided.",
        "Whether the board will merge with its rival remains undecided.\n",
        "an open question stated as decided",
    ),
    Case(
        "All patients improved on the drug.",
        "Some patients improved on the drug.",
        "Some patients improved on the drug. Most did not.\n",
        "scope overgeneralised",
    ),
    Case(
        "The bridge is 300 metres long.",
        "The bridge is 250 metres long.",
        "The bridge is 250 metres long.\n",
        "a number taken from elsewhere",
    ),
    Case(
        "Crime decreased in 2020.",
        "Crime increased in 2020.",
        "Crime increased in 2020. The police said so.\n",
        "increase reported as decrease",
    ),
    Case(
        "The rules allow phones in class.",
        "The rules forbid phones in class.",
        "The rules forbid phones in class.\n",
        "forbid reported as allow",
    ),
    Case(
        "The treaty was signed after the war.",
        "The treaty was signed before the war.",
        "The treaty was signed before the war.\n",
        "before reported as after",
    ),
    Case(
        "Dogs must bark at night.",
        "Dogs may bark at night.",
        "Dogs may bark at night.\n",
        "may reported as must",
    ),
    Case(
        "The parcel weighs 5 lb.",
        "The parcel weighs 5 kg.",
        "The parcel weighs 5 kg.\n",
        "unit changed",
    ),
    Case(
        "Profits fell in the first quarter.",
        "Profits rose in the first quarter.",
        "Profits rose in the first quarter.\n",
        "rose reported as fell",
    ),
    Case(
        "The study proves that coffee causes cancer.",
        "The study found an association between coffee and cancer.",
        "The study found an association between coffee and cancer.\n",
        "association stated as causation",
    ),
    Case(
        "Smith wrote the report.",
        "Jones wrote the report.",
        "Jones wrote the report.\n",
        "another author",
    ),
    Case(
        "The vaccine is 95% effective in every age group.",
        "The vaccine was 95% effective in adults under 65.",
        "The vaccine was 95% effective in adults under 65.\n",
        "scope overgeneralised",
    ),
    Case(
        "The mayor resigned in March.",
        "The mayor announced in March that she would resign in June.",
        "The mayor announced in March that she would resign in June.\n",
        "an announcement of the future reported as done",
    ),
]
