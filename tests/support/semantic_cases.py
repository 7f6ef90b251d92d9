"""A small corpus of claims and the source text they cite: faithful ones (the clean set:
no judge may flag them) and unfaithful ones whose quote is verbatim in the source but does
not support the claim (what a semantic judge is for).  The tests and benchmarks/judge.py
measure the offline heuristic on it.

Each case: (claim, quote, source text holding the quote, what is wrong or None, the
cited source's path).

The corpus is split in two halves by a stable hash of the claim (``half``): the rules
are tuned on the development half only; the held-out half is measured, never tuned
against (docs/checks.md, benchmarks/judge.py).  The cases after ``# real prose`` were
written, from encyclopedia-style sentences, before any rule was changed for them.
"""

from __future__ import annotations

import hashlib
from typing import Literal, NamedTuple


class Case(NamedTuple):
    claim: str
    quote: str
    source: str
    wrong: str | None  # None: faithful; else what a judge should see
    path: str = "raw/source.txt"  # the cited source's path (attribution reads it)


Half = Literal["dev", "held-out"]


def half(c: Case) -> Half:
    """The case's half: fixed by the claim's text, whatever the order of the lists."""
    return "dev" if hashlib.sha256(c.claim.encode()).digest()[0] % 2 == 0 else "held-out"


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
    # real prose
    Case(
        "Construction of the lighthouse finished in 1894.",
        "the lighthouse was completed in 1894",
        "After two years of work on the headland the lighthouse was completed in 1894.\n",
        None,
    ),
    Case(
        "The council approved the budget.",
        "approved the budget",
        "The council, which had not met since May, approved the budget on 3 June.\n",
        None,
    ),
    Case(
        "The club has 22 members.",
        "the club has twenty-two members",
        "Founded in 1921, the club has twenty-two members and a waiting list.\n",
        None,
    ),
    Case(
        "About half of the houses were damaged.",
        "roughly 50 percent of the houses were damaged",
        "In the flood of 1953 roughly 50 percent of the houses were damaged.\n",
        None,
    ),
    Case(
        "The Gazette reported that the mill closed in 1921.",
        "the mill closed in 1921",
        "LOCAL NEWS. After seventy years of weaving the mill closed in 1921.\n",
        None,
        "raw/gazette-1921-05-02.txt",
    ),
    Case(
        "According to the Harbour Trust, the pier was extended in 1911.",
        "the pier was extended in 1911",
        "Annual Report of the Harbour Trust for the year 1911.\n\nWorks. During the year "
        "the pier was extended in 1911 by a further 40 yards.\n",
        None,
        "raw/annual-report-1911.txt",
    ),
    Case(
        "The station no longer serves passenger trains.",
        "serves passenger trains",
        "Since 1967 the station no longer serves passenger trains; freight still passes.\n",
        None,
    ),
    Case(
        "The dam is 30 to 40 metres high.",
        "The dam is between 30 and 40 metres high",
        "The dam is between 30 and 40 metres high, depending on where it is measured.\n",
        None,
    ),
    Case(
        "Some 4,000 people attended the opening.",
        "some four thousand people attended the opening",
        "The weather was fine and some four thousand people attended the opening.\n",
        None,
    ),
    Case(
        "In 2015 the council proposed a new library.",
        "build a new library",
        "In 2015 the council proposed to build a new library on the old market site.\n",
        None,
    ),
    Case(
        "Marie Curie was the first woman to win a Nobel Prize.",
        "She was the first woman to win a Nobel Prize",
        "Curie was born in Warsaw. She was the first woman to win a Nobel Prize, and the "
        "first person to win it twice.\n",
        None,
    ),
    Case(
        "Below the falls the river is navigable for 120 miles.",
        "navigable for 120 miles",
        "Below the falls the river is navigable for 120 miles, as far as the port of Ely.\n",
        None,
    ),
    Case(
        "The museum reopened in 2004.",
        "The museum reopened in 2004",
        "The museum did not close during the war. The museum reopened in 2004 after renovation.\n",
        None,
    ),
    Case(
        "Before the railway came, the canal carried coal, grain and timber.",
        "carried coal, grain and timber",
        "Before the railway, the canal carried coal, grain and timber to the coast.\n",
        None,
    ),
    Case(
        "Smith said the bridge was unsafe.",
        "the bridge was unsafe",
        "Engineer John Smith told the inquiry that the bridge was unsafe.\n",
        None,
        "raw/inquiry-1879.txt",
    ),
    Case(
        "A third of the forest burned.",
        "33 percent of the forest burned",
        "Over the summer 33 percent of the forest burned.\n",
        None,
    ),
    Case(
        "Three quarters of the voters supported the plan.",
        "75% of voters supported the plan",
        "In the referendum, 75% of voters supported the plan.\n",
        None,
    ),
    Case(
        "The comet returns every 76 years.",
        "returns every 75 to 76 years",
        "Halley's comet returns every 75 to 76 years.\n",
        None,
    ),
    Case(
        "The city's population was 1.2 million in 2020.",
        "the population was 1.2 million",
        "According to the 2020 census, the population was 1.2 million.\n",
        None,
    ),
    Case(
        "The ship carried twenty-one passengers.",
        "carried 21 passengers",
        "On her last voyage the ship carried 21 passengers and a crew of nine.\n",
        None,
    ),
    Case(
        "The orchestra gave its first concert in 1882.",
        "gave its first concert",
        "Founded in the spring of 1882, the orchestra gave its first concert in October.\n",
        None,
    ),
    Case(
        "The company did not pay a dividend in 2009.",
        "pay a dividend",
        "Because of the crisis the company did not pay a dividend in 2009.\n",
        None,
    ),
    # hostile review of issue 24 (denials after the quote, preconditions, estimates;
    # nouns and units that are no hedge or conflict): written before any rule changed
    Case(
        "The abbey was founded in 1120.",
        "the abbey was founded in 1120",
        "The tradition that the abbey was founded in 1120 was later confirmed by excavation.\n",
        None,
    ),
    Case(
        "The bridge opened in 1890.",
        "The bridge opened in 1890",
        "The bridge opened in 1890, and it was not repainted until 1920.\n",
        None,
    ),
    Case(
        "The pier was never built.",
        "The pier was never built.",
        "The pier was approved by the council. The pier was never built.\n",
        None,
    ),
    Case(
        "The assembly rejected the first draft of the treaty.",
        "the assembly rejected the first draft",
        "The treaty was ratified in 1921, but only after the assembly rejected the first draft.\n",
        None,
    ),
    Case(
        "The plan was approved after two rejections.",
        "The plan was approved",
        "The plan was approved, but only after it had been rejected twice.\n",
        None,
    ),
    Case(
        "The factory was expected to create about 400 jobs.",
        "create 400 jobs",
        "The factory was expected to create 400 jobs.\n",
        None,
    ),
    Case(
        "The census counted 400 households.",
        "counted 400 households",
        "The census, expected in 1901 but delayed, counted 400 households.\n",
        None,
    ),
    Case(
        "The council approved the plan for the new harbour.",
        "the council approved the proposal for the new harbour",
        "In March the council approved the proposal for the new harbour.\n",
        None,
    ),
    Case(
        "The estate was sold for 4 thousand pounds.",
        "sold for four thousand pounds",
        "In 1850 the estate was sold for four thousand pounds.\n",
        None,
    ),
    Case(
        "The rent was 40 pounds a year.",
        "a rent of £40",
        "The cottage was let at a rent of £40 a year.\n",
        None,
    ),
    Case(
        "The museum projected films every Saturday.",
        "projected films every Saturday",
        "Between the wars the museum projected films every Saturday.\n",
        None,
    ),
    Case(
        "The railway was completed in 1911.",
        "The railway was completed in 1911",
        "The railway was completed in 1911 without further delay.\n",
        None,
    ),
    # third review of issue 24 (a back-reference after the quote that undoes nothing):
    # written before any rule changed for them
    Case(
        "The pier was built in 1890.",
        "The pier was built in 1890",
        "The pier was built in 1890, a date confirmed by the harbour board's own records.\n",
        None,
    ),
    Case(
        "The mill employed 400 people.",
        "The mill employed 400 people",
        "The mill employed 400 people, a figure the census of 1901 confirms.\n",
        None,
    ),
    Case(
        "The second bridge opened in 1895.",
        "The second bridge opened in 1895",
        "The second bridge opened in 1895 (the first had washed away).\n",
        None,
    ),
    Case(
        "The harbour plan was approved in 1920.",
        "The harbour plan was approved in 1920",
        "The harbour plan was approved in 1920, and work began the following spring.\n",
        None,
    ),
    Case(
        "The tower is 40 metres tall.",
        "The tower is 40 metres tall",
        "The tower is 40 metres tall. That figure includes the spire.\n",
        None,
    ),
    Case(
        "The line opened in 1890.",
        "The line opened in 1890",
        "The line opened in 1890, a year after the plan was abandoned by its rivals.\n",
        None,
    ),
    Case(
        "The keeper lived at the light for thirty years.",
        "lived at the light for thirty years",
        "The first keeper lived at the light for thirty years, a record no later keeper matched.\n",
        None,
    ),
    Case(
        "The union called a strike in 1926.",
        "called a strike in 1926",
        "The union called a strike in 1926, which the owners disputed in court for a year.\n",
        None,
    ),
    # the fourth review of issue 24 (written before any rule changed for them)
    Case(
        "The harbour master did not resign.",
        "Rumours that the harbour master had resigned were unfounded",
        "Report on the harbour, 2022.\nRumours that the harbour master had resigned were unfounded.\n",
        None,
    ),
    Case(
        "The museum holds 5,000 paintings.",
        "The museum holds 5,000 paintings",
        "The museum holds 5,000 paintings. This figure was confirmed by the 2020 audit.\n",
        None,
    ),
    Case(
        "The castle is 800 years old.",
        "The castle is 800 years old",
        "The castle is 800 years old, the guidebook rightly stated.\n",
        None,
    ),
    Case(
        "The airport will open in 2027 if funding is found.",
        "The airport will open in 2027",
        "The airport will open in 2027, if funding is found.\n",
        None,
    ),
    Case(
        "The ferry service ran daily until 2019.",
        "The ferry service ran daily",
        "The ferry service ran daily until it was cancelled in 2019.\n",
        None,
    ),
    Case(
        "Jane Hill chaired the council meeting.",
        "The mayor, Jane Hill, chaired the meeting",
        "Minutes of the council meeting of 3 May 2021.\nThe council voted to build a new bridge over the river Tam at a cost of 4 million pounds.\nThe mayor, Jane Hill, chaired the meeting. The bridge was never built, and the plan was abandoned in 2023.\n",
        None,
    ),
    Case(
        "The council voted to build a new bridge over the Tam.",
        "The council voted to build a new bridge",
        "Minutes of the council meeting of 3 May 2021.\nThe council voted to build a new bridge over the river Tam at a cost of 4 million pounds.\nThe mayor, Jane Hill, chaired the meeting. The bridge was never built, and the plan was abandoned in 2023.\n",
        None,
    ),
    Case(
        "On 3 May 2021 the council voted to build a new bridge.",
        "The council voted to build a new bridge",
        "Minutes of the council meeting of 3 May 2021.\nThe council voted to build a new bridge over the river Tam at a cost of 4 million pounds.\nThe mayor, Jane Hill, chaired the meeting. The bridge was never built, and the plan was abandoned in 2023.\n",
        None,
    ),
    Case(
        "The new school has 900 pupils.",
        "The new school has 900 pupils",
        "The new school has 900 pupils; this was later confirmed by the paper.\n",
        None,
    ),
    Case(
        "The council voted in 2019 to build a bridge.",
        "The council voted in 2019 to build a bridge",
        "The council voted in 2019 to build a bridge, but the work started only in 2021.\n",
        None,
    ),
    # a decision reported as done (after the fourth review, written before its rule)
    Case(
        "The board agreed to sell the old pier in 1990.",
        "the board agreed to sell the old pier",
        "In 1990 the board agreed to sell the old pier.\n",
        None,
    ),
    Case(
        "The town built the library it had planned.",
        "The town built the library",
        "The town built the library it had planned since 1950.\n",
        None,
    ),
    # the fifth review of issue 24 (written before any rule changed for them)
    Case(
        "The tower stands 90 m tall.",
        "tower stands 90 metres tall",
        "The old signal tower stands 90 metres tall above the harbour.\n",
        None,
    ),
    Case(
        "The upper lake is 3 km long.",
        "lake is 3 kilometres long",
        "The upper lake is 3 kilometres long and shallow.\n",
        None,
    ),
    Case(
        "The harbour wall is 12 ft high.",
        "wall is 12 feet high",
        "The harbour wall is 12 feet high at the pier head.\n",
        None,
    ),
    Case(
        "The anchor stone weighs 5 kg.",
        "stone weighs 5 kilograms",
        "The anchor stone weighs 5 kilograms and was found in 1910.\n",
        None,
    ),
    Case(
        "The pier cost £4,000 to build.",
        "pier cost 4,000 pounds to build",
        "The pier cost 4,000 pounds to build in 1870.\n",
        None,
    ),
    Case(
        "The mayor was acquitted in 1923.",
        "mayor was acquitted of all charges in 1923",
        "After a month-long trial the mayor was acquitted of all charges in 1923.\n",
        None,
    ),
    Case(
        "The canal, abandoned in 1820, was completed in 1832.",
        "abandoned in 1820 and completed in 1832",
        "The canal was abandoned in 1820 and completed in 1832 by a second company.\n",
        None,
    ),
    Case(
        "The station closed to passengers in 1965 and reopened in 1990.",
        "station closed to passengers in 1965 and reopened in 1990",
        "The station closed to passengers in 1965 and reopened in 1990.\n",
        None,
    ),
    Case(
        "The mill closed for good in 1950.",
        "mill closed for good in 1950",
        "The mill closed for good in 1950, and the owners never reopened it.\n",
        None,
    ),
    Case(
        "The old mill closed in 1950.",
        "mill closed in 1950",
        "The old mill closed in 1950, but the owners reopened it two years later.\n",
        None,
    ),
    # the sixth review of issue 24 (written before any rule changed for them)
    Case(
        "The mill closed in 1950.",
        "The mill closed in 1950.",
        "The mill closed in 1950. It never reopened.\n",
        None,
    ),
    Case(
        "The portrait was painted by Gainsborough.",
        "The portrait was painted by Gainsborough.",
        "The portrait was painted by Gainsborough. This attribution is confirmed by his sitter "
        "book.\n",
        None,
    ),
    Case(
        "The iron bridge opened in 1890.",
        "The iron bridge opened in 1890.",
        "The iron bridge opened in 1890. This was not the first bridge on the site.\n",
        None,
    ),
    Case(
        "The council agreed to build a swimming pool in 1960.",
        "agreed to build a swimming pool in 1960",
        "The council agreed to build a swimming pool in 1960, but nothing was ever built.\n",
        None,
    ),
    Case(
        "A theatre was built in the town in 1895.",
        "theatre was built in the town in 1895",
        "A theatre was built in the town in 1895, which burned down a month later.\n",
        None,
    ),
    Case(
        "The council banned cars from the old town in 1900.",
        "cars were banned from the old town in 1900",
        "By council order cars were banned from the old town in 1900, a ban lifted the "
        "following week.\n",
        None,
    ),
    Case(
        "The parish had 400 people in 1801.",
        "parish had 400 people in 1801",
        "The parish had 400 people in 1801, according to the census.\n",
        None,
    ),
    Case(
        "The siege of the castle lasted 40 days.",
        "siege lasted 40 days",
        "The siege lasted 40 days, a number the garrison's diary confirms.\n",
        None,
    ),
    Case(
        "In 1922 the committee adopted the plan in full.",
        "decided to adopt the plan in full",
        "In 1922 the committee decided to adopt the plan in full.\n",
        None,
    ),
    Case(
        "The old wharf was rebuilt in 1922 after the flood.",
        "wharf was rebuilt",
        "The flood of 1921 wrecked the quay. The old wharf was rebuilt in 1922.\n",
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
    # real prose
    Case(
        "The Board voted to approve the proposal to extend the pier.",
        "approve the proposal to extend the pier",
        "At its March meeting the Board did not approve the proposal to extend the pier, "
        "citing costs.\n",
        "negation before the quote dropped",
    ),
    Case(
        "The programme cut costs by half.",
        "The programme cut costs by one third",
        "The programme cut costs by one third in its first year.\n",
        "a fraction changed",
    ),
    Case(
        "Twenty members of the council resigned.",
        "Twenty-two members of the council resigned",
        "Twenty-two members of the council resigned in protest.\n",
        "a number word changed",
    ),
    Case(
        "About 400 people attended the opening.",
        "some four thousand people attended the opening",
        "The weather was fine and some four thousand people attended the opening.\n",
        "a number word changed",
    ),
    Case(
        "The Gazette reported that the mill closed in 1921.",
        "the mill closed in 1921",
        "Annual Report of the Mill Company, 1921.\nAfter seventy years of weaving "
        "the mill closed in 1921.\n",
        "attributed to another source",
        "raw/annual-report-1921.txt",
    ),
    Case(
        "The expedition reached the summit in 1924.",
        "reach the summit",
        "In 1924 the expedition failed to reach the summit after two attempts.\n",
        "negation before the quote dropped",
    ),
    Case(
        "The station serves passenger trains.",
        "serves passenger trains",
        "Since 1967 the station no longer serves passenger trains; freight still passes.\n",
        "negation before the quote dropped",
    ),
    Case(
        "The minister said she had met the contractor.",
        "had met the contractor",
        "The minister denied that she had met the contractor.\n",
        "a denial reported as a statement",
    ),
    Case(
        "The council built a new library in 2015.",
        "build a new library",
        "In 2015 the council proposed to build a new library on the old market site.\n",
        "a proposal before the quote reported as done",
    ),
    Case(
        "Nearly half of the residents voted.",
        "Turnout was 31 percent of registered residents",
        "Turnout was 31 percent of registered residents, the lowest since 1990.\n",
        "a fraction changed",
    ),
    Case(
        "The painting was exhibited in Paris.",
        "exhibited in Paris",
        "Contrary to some accounts, the painting was never exhibited in Paris.\n",
        "negation before the quote dropped",
    ),
    Case(
        "According to Dr. Harris, the well water was safe to drink.",
        "the well water was safe to drink",
        "County Health Report, 1902.\nInspectors found that the well water was safe to "
        "drink after boiling.\n",
        "attributed to another source",
        "raw/county-health-report.txt",
    ),
    Case(
        "The mayor signed the agreement.",
        "sign the agreement",
        "The mayor refused to sign the agreement until the budget was revised.\n",
        "a refusal reported as done",
    ),
    Case(
        "A quarter of the forest burned.",
        "a third of the forest burned",
        "By August a third of the forest burned.\n",
        "a fraction changed",
    ),
    Case(
        "The Times described the town hall as the finest in the city.",
        "the finest in the city",
        "Baedeker's guide calls the town hall the finest in the city.\n",
        "attributed to another source",
        "raw/guidebook-1910.txt",
    ),
    Case(
        "The ship sank in the storm of 1881.",
        "sink in the storm of 1881",
        "Despite heavy damage, the ship did not sink in the storm of 1881.\n",
        "negation before the quote dropped",
    ),
    Case(
        "The ship carried 20 passengers.",
        "carried twenty-one passengers",
        "On her last voyage the ship carried twenty-one passengers and a crew of nine.\n",
        "a number word changed",
    ),
    Case(
        "The architect designed the chapel.",
        "designed the chapel",
        "The architect is rumoured to have designed the chapel, but no drawings survive.\n",
        "a rumour reported as fact",
    ),
    Case(
        "The company paid a dividend in 2009.",
        "pay a dividend",
        "Because of the crisis the company did not pay a dividend in 2009.\n",
        "negation before the quote dropped",
    ),
    Case(
        "Two thirds of the staff were laid off.",
        "half of the staff were laid off",
        "When the plant closed, half of the staff were laid off.\n",
        "a fraction changed",
    ),
    Case(
        "The law was repealed in 1998.",
        "repealed in 1998",
        "A bill that would have seen the law repealed in 1998 was withdrawn.\n",
        "a hypothetical reported as done",
    ),
    Case(
        "The treaty banned whaling in the Antarctic.",
        "whaling in the Antarctic",
        "The treaty did not ban whaling in the Antarctic; it set quotas.\n",
        "negation before the quote dropped",
    ),
    # hostile review of issue 24: written before any rule changed for them
    Case(
        "The lighthouse was built by convicts.",
        "the lighthouse was built by convicts",
        "The story that the lighthouse was built by convicts was later shown to be false.\n",
        "a denial after the quote dropped",
    ),
    Case(
        "The bridge was safe for heavy traffic.",
        "the bridge was safe for heavy traffic",
        "The mayor's claim that the bridge was safe for heavy traffic proved untrue.\n",
        "a denial after the quote dropped",
    ),
    Case(
        "A permit for the new quarry was issued.",
        "A permit for the new quarry",
        "A permit for the new quarry was denied by the county.\n",
        "a denial after the quote dropped",
    ),
    Case(
        "The railway extension to Dunmore was completed.",
        "The railway extension to Dunmore",
        "The railway extension to Dunmore was never completed.\n",
        "a denial after the quote dropped",
    ),
    Case(
        "The king had abdicated.",
        "the king had abdicated",
        "Reports that the king had abdicated were later retracted.\n",
        "a denial after the quote dropped",
    ),
    Case(
        "The mine was profitable in its first decade.",
        "the mine was profitable in its first decade",
        "Claims that the mine was profitable in its first decade were not supported by its accounts.\n",
        "a denial after the quote dropped",
    ),
    Case(
        "The merger of the two parishes went ahead.",
        "The merger of the two parishes",
        "The merger of the two parishes was withdrawn before the vote.\n",
        "a denial after the quote dropped",
    ),
    Case(
        "The plan had been rejected.",
        "it had been rejected twice",
        "The harbour plan was approved in 1910, but only after it had been rejected twice.\n",
        "a precondition reported as the outcome",
    ),
    Case(
        "The bill was rejected by the Senate.",
        "The bill was rejected by the Senate twice",
        "The bill was rejected by the Senate twice before finally being adopted in 1964.\n",
        "a precondition reported as the outcome",
    ),
    Case(
        "The company lost the contract.",
        "lost the contract in 1990",
        "The company won the tender again, but only after it lost the contract in 1990.\n",
        "a precondition reported as the outcome",
    ),
    Case(
        "The factory brought 400 jobs to the town.",
        "400 jobs to the town",
        "The new factory will bring an estimated 400 jobs to the town.\n",
        "an estimate reported as fact",
    ),
    Case(
        "The bypass cut journey times by 20 minutes.",
        "cut journey times by 20 minutes",
        "The bypass is projected to cut journey times by 20 minutes.\n",
        "an estimate reported as fact",
    ),
    Case(
        "The new stadium holds 60,000 spectators.",
        "hold 60,000 spectators",
        "The new stadium is expected to hold 60,000 spectators when complete.\n",
        "an estimate reported as fact",
    ),
    Case(
        "The population reached 12,000 by 1900.",
        "a population of 12,000 by 1900",
        "Planners forecast a population of 12,000 by 1900.\n",
        "an estimate reported as fact",
    ),
    Case(
        "The canal carried 2,000 tons of coal a week.",
        "carry 2,000 tons of coal a week",
        "Its promoters expected the canal to carry 2,000 tons of coal a week.\n",
        "an estimate reported as fact",
    ),
    Case(
        "The war cost the city 3 million pounds.",
        "an estimated 3 million pounds",
        "The war cost the city an estimated 3 million pounds.\n",
        "an estimate reported as fact",
    ),
    Case(
        "The village school was closed.",
        "the village school was closed for a year",
        "The village school reopened in 1952, only after the village school was closed for a year.\n",
        "a precondition reported as the outcome",
    ),
    Case(
        "The team lost the final.",
        "The team lost the final three times",
        "The team lost the final three times before eventually winning it in 1977.\n",
        "a precondition reported as the outcome",
    ),
    # third review of issue 24 (the source undoes the quote after a comma, a bracket, a
    # dash or in the next sentence): written before any rule changed for them
    Case(
        "The lighthouse was built by convicts.",
        "The lighthouse was built by convicts",
        "The lighthouse was built by convicts, a story later shown to be false.\n",
        "a story the source calls false",
    ),
    Case(
        "The railway extension was completed in 1920.",
        "The railway extension was completed in 1920",
        "The railway extension was completed in 1920 (in fact it was never completed).\n",
        "a correction in brackets",
    ),
    Case(
        "The factory created 400 jobs.",
        "The factory created 400 jobs",
        "The factory created 400 jobs, according to estimates by its promoters.\n",
        "a promoters' estimate reported as fact",
    ),
    Case(
        "The old bridge opened in 1890.",
        "The old bridge opened in 1890.",
        "The old bridge opened in 1890. That date is wrong; it opened in 1895.\n",
        "a correction in the next sentence",
    ),
    Case(
        "Both piers were built in 1901.",
        "The first pier was built in 1901",
        "The first pier was built in 1901, but the second pier was never built.\n",
        "half of the source's sentence",
    ),
    Case(
        "The tower is haunted by its first keeper.",
        "the tower is haunted by its first keeper",
        "Locals insist that the tower is haunted by its first keeper.\n",
        "a belief reported as fact",
    ),
    Case(
        "The strike cost 400 people their jobs.",
        "The strike cost 400 people their jobs",
        "The strike cost 400 people their jobs, a figure the union disputes.\n",
        "a disputed figure",
    ),
    Case(
        "The mayor took bribes from the contractor.",
        "The mayor took bribes from the contractor",
        "The mayor took bribes from the contractor, or so his rivals claimed.\n",
        "a claim by rivals reported as fact",
    ),
    Case(
        "The council built a second harbour in 1930.",
        "a second harbour in 1930",
        "The council planned a second harbour in 1930 — a plan that was abandoned before work began.\n",
        "an abandoned plan reported as done",
    ),
    Case(
        "The flood displaced 5,000 people.",
        "The flood displaced 5,000 people",
        "The flood displaced 5,000 people; this figure was later revised downward to 3,000.\n",
        "a revised figure",
    ),
    Case(
        "The museum opened in 1890.",
        "was to open in 1890",
        "The museum was to open in 1890, but the opening was postponed.\n",
        "a postponed event reported as done",
    ),
    Case(
        "The canal was finished in 1845.",
        "The canal was finished in 1845",
        "The canal was finished in 1845, a claim later disputed by historians.\n",
        "a disputed claim",
    ),
    # the fourth review of issue 24 (written before any rule changed for them)
    Case(
        "The harbour was dredged in 2021.",
        "The harbour was to be dredged in 2021",
        "The harbour was to be dredged in 2021, but the work never started.\n",
        "a plan whose work never started reported as done",
    ),
    Case(
        "The county built a tram line to the coast.",
        "The county built a tram line to the coast",
        "The county built a tram line to the coast, but the plan was dropped before any track was laid.\n",
        "a dropped plan reported as done",
    ),
    Case(
        "The new school has 900 pupils.",
        "The new school has 900 pupils",
        "The new school has 900 pupils; this was later retracted by the paper.\n",
        "a retracted figure",
    ),
    Case(
        "The museum holds 5,000 paintings.",
        "The museum holds 5,000 paintings",
        "The museum holds 5,000 paintings. This turned out to be false.\n",
        "a claim the next sentence calls false",
    ),
    Case(
        "The fish market opened in 1950.",
        "The fish market opened in 1950",
        "The fish market opened in 1950. That date is wrong: it opened in 1962.\n",
        "a date the next sentence corrects",
    ),
    Case(
        "The castle is 800 years old.",
        "The castle is 800 years old",
        "The castle is 800 years old, the guidebook wrongly stated.\n",
        "a statement the source calls wrong",
    ),
    Case(
        "The railway carried 2 million passengers a year.",
        "The railway carried 2 million passengers a year",
        "The railway carried 2 million passengers a year, a rough guess by the station master.\n",
        "a guess reported as fact",
    ),
    Case(
        "The airport opens in 2027.",
        "The airport will open in 2027",
        "The airport will open in 2027, if funding is found.\n",
        "a condition dropped",
    ),
    Case(
        "The ferry service runs daily.",
        "The ferry service ran daily",
        "The ferry service ran daily until it was cancelled in 2019.\n",
        "a cancelled service reported as running",
    ),
    Case(
        "The council voted against building a new bridge.",
        "The council voted to build a new bridge",
        "Minutes of the council meeting of 3 May 2021.\nThe council voted to build a new bridge over the river Tam at a cost of 4 million pounds.\nThe mayor, Jane Hill, chaired the meeting. The bridge was never built, and the plan was abandoned in 2023.\n",
        "a vote for reported as a vote against",
    ),
    Case(
        "The council refused to build a new bridge.",
        "The council voted to build a new bridge",
        "Minutes of the council meeting of 3 May 2021.\nThe council voted to build a new bridge over the river Tam at a cost of 4 million pounds.\nThe mayor, Jane Hill, chaired the meeting. The bridge was never built, and the plan was abandoned in 2023.\n",
        "a vote for reported as a refusal",
    ),
    Case(
        "The mayor, John Smith, chaired the meeting.",
        "The mayor, Jane Hill, chaired the meeting",
        "Minutes of the council meeting of 3 May 2021.\nThe council voted to build a new bridge over the river Tam at a cost of 4 million pounds.\nThe mayor, Jane Hill, chaired the meeting. The bridge was never built, and the plan was abandoned in 2023.\n",
        "another person's name",
    ),
    Case(
        "The bridge was to cost 4 million dollars.",
        "at a cost of 4 million pounds",
        "Minutes of the council meeting of 3 May 2021.\nThe council voted to build a new bridge over the river Tam at a cost of 4 million pounds.\nThe mayor, Jane Hill, chaired the meeting. The bridge was never built, and the plan was abandoned in 2023.\n",
        "another currency",
    ),
    Case(
        "The county council voted to build a new bridge over the Thames.",
        "The council voted to build a new bridge",
        "Minutes of the council meeting of 3 May 2021.\nThe council voted to build a new bridge over the river Tam at a cost of 4 million pounds.\nThe mayor, Jane Hill, chaired the meeting. The bridge was never built, and the plan was abandoned in 2023.\n",
        "another place",
    ),
    Case(
        "The council voted to build three new bridges.",
        "The council voted to build a new bridge",
        "Minutes of the council meeting of 3 May 2021.\nThe council voted to build a new bridge over the river Tam at a cost of 4 million pounds.\nThe mayor, Jane Hill, chaired the meeting. The bridge was never built, and the plan was abandoned in 2023.\n",
        "a number the window has only as a date",
    ),
    Case(
        "The bridge would have cost 4 million euros.",
        "at a cost of 4 million pounds",
        "Minutes of the council meeting of 3 May 2021.\nThe council voted to build a new bridge over the river Tam at a cost of 4 million pounds.\nThe mayor, Jane Hill, chaired the meeting. The bridge was never built, and the plan was abandoned in 2023.\n",
        "another currency (euros)",
    ),
    # a decision reported as done (after the fourth review, written before its rule)
    Case(
        "The council built a new bridge over the river Tam.",
        "The council voted to build a new bridge",
        "Minutes of the council meeting of 3 May 2021.\nThe council voted to build a new bridge over the river Tam at a cost of 4 million pounds.\nThe mayor, Jane Hill, chaired the meeting. The bridge was never built, and the plan was abandoned in 2023.\n",
        "a vote to build reported as built",
    ),
    Case(
        "The board sold the old pier in 1990.",
        "the board agreed to sell the old pier",
        "In 1990 the board agreed to sell the old pier.\n",
        "an agreement to sell reported as a sale",
    ),
    # the fifth review of issue 24 (written before any rule changed for them)
    Case(
        "The mayor was convicted of all charges in 1923.",
        "mayor was acquitted of all charges in 1923",
        "After a month-long trial the mayor was acquitted of all charges in 1923.\n",
        "acquitted reported as convicted",
    ),
    Case(
        "The signal tower stands 90 feet tall.",
        "tower stands 90 metres tall",
        "The old signal tower stands 90 metres tall above the harbour.\n",
        "feet for metres",
    ),
    Case(
        "The running track is 90 yards long.",
        "track is 90 metres long",
        "The running track is 90 metres long and was laid in 1932.\n",
        "yards for metres",
    ),
    Case(
        "The upper lake is 3 miles long.",
        "lake is 3 kilometres long",
        "The upper lake is 3 kilometres long and shallow.\n",
        "miles for kilometres",
    ),
    Case(
        "The harbour wall is 12 inches high.",
        "wall is 12 feet high",
        "The harbour wall is 12 feet high at the pier head.\n",
        "inches for feet",
    ),
    Case(
        "The anchor stone weighs 5 tonnes.",
        "stone weighs 5 kilograms",
        "The anchor stone weighs 5 kilograms and was found in 1910.\n",
        "tonnes for kilograms",
    ),
    Case(
        "The common covers 40 acres.",
        "common covers 40 hectares",
        "The village common covers 40 hectares north of the church.\n",
        "acres for hectares",
    ),
    Case(
        "The water tank holds 500 gallons.",
        "tank holds 500 litres",
        "The water tank holds 500 litres and is filled by hand.\n",
        "gallons for litres",
    ),
    Case(
        "The pier cost 4,000 francs to build.",
        "pier cost 4,000 pounds to build",
        "The pier cost 4,000 pounds to build in 1870.\n",
        "francs for pounds",
    ),
    Case(
        "The town hall cost ¥4,000 to repair.",
        "hall cost 4,000 dollars to repair",
        "The town hall cost 4,000 dollars to repair after the storm.\n",
        "yen for dollars",
    ),
    Case(
        "The chapel roof cost 300 shillings.",
        "roof cost 300 pounds",
        "The chapel roof cost 300 pounds, paid by the parish.\n",
        "shillings for pounds",
    ),
    Case(
        "The canal was abandoned in 1832.",
        "canal was completed in 1832",
        "The canal was completed in 1832 by the Tam Navigation Company.\n",
        "completed reported as abandoned",
    ),
    Case(
        "The canal was left unfinished in 1832.",
        "canal was completed in 1832",
        "The canal was completed in 1832 by the Tam Navigation Company.\n",
        "completed reported as left unfinished",
    ),
    Case(
        "The station reopened to passengers in 1965.",
        "station closed to passengers in 1965",
        "The station closed to passengers in 1965 after the line was cut.\n",
        "closed reported as reopened",
    ),
    Case(
        "The mill closed for good in 1950.",
        "mill closed in 1950",
        "The mill closed in 1950, but the owners reopened it two years later.\n",
        "closed for good, but reopened",
    ),
    # the sixth review of issue 24 (written before any rule changed for them)
    Case(
        "The king visited Tamford in 1850.",
        "king visited Tamford in 1850",
        "The king visited Tamford in 1850 with his court. This never happened.\n",
        "next sentence: this never happened",
    ),
    Case(
        "The king stayed at Tamford Hall in 1851.",
        "The king stayed at Tamford Hall in 1851.",
        "The king stayed at Tamford Hall in 1851. This never happened.\n",
        "next sentence after a whole-sentence quote: this never happened",
    ),
    Case(
        "The abbey was founded by monks from Durham.",
        "The abbey was founded by monks from Durham.",
        "The abbey was founded by monks from Durham. None of this is true.\n",
        "next sentence: none of this is true",
    ),
    Case(
        "The first mayor was born in Leeds and trained as a surveyor.",
        "The first mayor was born in Leeds and trained as a surveyor.",
        "The first mayor was born in Leeds and trained as a surveyor. Both claims are baseless.\n",
        "next sentence: both claims are baseless",
    ),
    Case(
        "The fire destroyed 300 houses in 1666.",
        "the fire destroyed 300 houses",
        "In 1666 the fire destroyed 300 houses. This figure is disputed by historians.\n",
        "next sentence: this figure is disputed",
    ),
    Case(
        "The portrait in the hall was painted by Gainsborough.",
        "The portrait in the hall was painted by Gainsborough.",
        "The portrait in the hall was painted by Gainsborough. This attribution is doubtful.\n",
        "next sentence: this attribution is doubtful",
    ),
    Case(
        "Queen Anne stayed at the inn in 1702.",
        "Queen Anne stayed at the inn in 1702.",
        "Queen Anne stayed at the inn in 1702. The claim appears in no contemporary record.\n",
        "next sentence: the claim appears in no record",
    ),
    Case(
        "The village was burned by raiders in 870.",
        "the village was burned by raiders in 870",
        "Older guides say the village was burned by raiders in 870. Historians now reject this "
        "account entirely.\n",
        "next sentence: historians reject this account",
    ),
    Case(
        "The council banned lorries from the high street in 1998.",
        "The council banned lorries from the high street in 1998.",
        "The council banned lorries from the high street in 1998. The decision was reversed a "
        "week later.\n",
        "next sentence: the decision was reversed",
    ),
    Case(
        "The council opened a swimming pool in 1960.",
        "agreed to build a swimming pool in 1960",
        "The council agreed to build a swimming pool in 1960, but nothing was ever built.\n",
        "but nothing was ever built",
    ),
    Case(
        "The town has a theatre, built in 1895.",
        "theatre was built in the town in 1895",
        "A theatre was built in the town in 1895, which burned down a month later.\n",
        "which burned down a month later",
    ),
    Case(
        "Cars are banned from the old town since 1900.",
        "cars were banned from the old town in 1900",
        "By council order cars were banned from the old town in 1900, a ban lifted the "
        "following week.\n",
        "a ban lifted the following week",
    ),
    Case(
        "Tamford had a tramway from 1890.",
        "approved a tramway in 1890",
        "The council approved a tramway in 1890, but no tracks were ever laid.\n",
        "but no tracks were ever laid",
    ),
    Case(
        "The church bell was cast in 1420.",
        "church bell was cast in 1420",
        "The church bell was cast in 1420; this is now considered doubtful.\n",
        "this is now considered doubtful",
    ),
    Case(
        "The inn was a coaching stop for two centuries.",
        "inn was a coaching stop for two centuries",
        "The inn was a coaching stop for two centuries, according to one unsourced pamphlet.\n",
        "according to one unsourced pamphlet",
    ),
    Case(
        "The hotel has hosted three prime ministers.",
        "hotel has hosted three prime ministers",
        "The hotel has hosted three prime ministers, at least according to its owners.\n",
        "at least according to its owners",
    ),
    Case(
        "The siege lasted 40 days.",
        "siege lasted 40 days",
        "The siege lasted 40 days, a number nobody has verified.\n",
        "a number nobody has verified",
    ),
    Case(
        "The battle left 2,000 dead.",
        "battle left 2,000 dead",
        "The battle left 2,000 dead, according to a later and unreliable estimate.\n",
        "according to a later and unreliable estimate",
    ),
    Case(
        "The committee adopted the plan in full in 1922.",
        "decided to adopt the plan in full",
        "The committee decided to adopt the plan in full. The harbour wall was repaired in 1922.\n",
        "a year from another sentence of the source",
    ),
    Case(
        "The canal was completed in 1832 by the Grand Navigation Company.",
        "canal was completed in 1832 by the Tam Navigation Company",
        "The canal was completed in 1832 by the Tam Navigation Company.\n",
        "Grand for Tam in one name",
    ),
]
