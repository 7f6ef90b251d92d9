"""Pairs of cited claims for the consistency check (verifier/checks/consistency.py): does
the check flag the pair (claim.contradiction or claim.source_conflict) or not?

``DEV``: the cases of the hostile review of issue 30 (report 35b, sections 5 and 6: the
misses, the false flags on a consistent wiki and the pairs it held) and of review 36b (what
it held, its false flags on another thing) and of review 37b (HN…, FF1, FF9, H-…, MK4) and 37c (HN3…HN5, H-rom…, FF…) and 37d (P-…, FFc2, FFg2), the
ones the rules were changed for. ``HELD_OUT``: written before any rule changed, from other town-history prose,
never tuned on. Each case: a name, the new claim and the claim it meets (each a sentence,
its source and its quote), whether a careful reader flags the pair.
"""

from __future__ import annotations

from typing import NamedTuple


class Side(NamedTuple):
    sentence: str
    source: str
    quote: str


class Case(NamedTuple):
    name: str
    new: Side
    old: Side
    flag: bool  # a contradiction (the writer's, or sources that disagree and say so not)


def own(sentence: str, source: str = "raw/more.txt") -> Side:
    """A claim citing its own source verbatim."""
    return Side(sentence, source, sentence.rstrip("."))


RAIL = "The railway station was extended in 1896"  # a quote about something else
LIGHT = Side(
    "The Harbour Lighthouse was opened in 1894 after a campaign by the fishermen.",
    "raw/town.txt",
    "The Harbour Lighthouse was opened in 1894 after a long campaign by the fishermen",
)
FERRY = own("The ferry runs in winter between the harbour and the island.", "raw/town.txt")
TOWER = Side("The tower stands 42 metres tall.", "raw/town.txt", "The tower stands 42 metres tall")
POP = own("The population of Northam was about 4,000 in 1900.", "raw/town.txt")
POP_WORDS = own("The population of Northam was four thousand in 1900.")


def _c(name: str, new: Side, old: Side, flag: bool) -> Case:
    return Case(name, new, old, flag)


DEV: list[Case] = [
    # contradictions: the writer's error, or sources that disagree
    _c(
        "R1",
        Side("The Harbour Lighthouse opened its doors in 1896.", "raw/town.txt", RAIL),
        LIGHT,
        True,
    ),
    _c("R2", Side("In 1896 the Harbour Lighthouse was opened.", "raw/town.txt", RAIL), LIGHT, True),
    _c(
        "R3",
        Side("The lighthouse at the harbour was opened in 1896.", "raw/town.txt", RAIL),
        LIGHT,
        True,
    ),
    _c(
        "R4",
        Side(
            "The Harbour Lighthouse was never opened.",
            "raw/town.txt",
            "The Harbour Lighthouse was opened in 1894",
        ),
        LIGHT,
        True,
    ),
    _c(
        "R5",
        Side(
            "The ferry doesn't run in winter between the harbour and the island.",
            "raw/other.txt",
            "The ferry does not run in winter",
        ),
        FERRY,
        True,
    ),
    _c(
        "R6",
        Side(
            "The ferry stops running in winter between the harbour and the island.",
            "raw/other.txt",
            "The ferry does not run in winter",
        ),
        FERRY,
        True,
    ),
    # a word slipped into a denial (added after the rules first changed: development)
    _c(
        "H2b",
        own("The ferry does not regularly run in winter between the harbour and the island."),
        FERRY,
        True,
    ),
    _c(
        "H2",
        own("The ferry no longer runs in winter between the harbour and the island."),
        FERRY,
        True,
    ),
    _c(
        "U1",
        Side("The tower stands 52 m tall.", "raw/other.txt", "The tower stands 52 metres tall"),
        TOWER,
        True,
    ),
    _c(
        "Same",
        Side("The market hall was built in 1896 by the guild.", "raw/town.txt", RAIL),
        Side(
            "The market hall was built in 1894 by the guild.",
            "raw/town.txt",
            "The Harbour Lighthouse was opened in 1894",
        ),
        True,
    ),
    _c(
        "N1",
        Side("The Harbour Lighthouse was opened in eighteen ninety-six.", "raw/town.txt", RAIL),
        LIGHT,
        True,
    ),
    _c(
        "C3",
        Side(
            "The Harbour Lighthouse was opened in 1896 [conflict: raw/town.txt gives another year].",
            "raw/other.txt",
            RAIL,
        ),
        LIGHT,
        True,
    ),
    _c(
        "C8",
        Side("The Harbour Lighthouse was opened in 1896 [conflict: x].", "raw/other.txt", RAIL),
        LIGHT,
        True,
    ),
    # a consistent wiki: no flag
    _c("F1", own("The Harbour Lighthouse was extended in 1896 with a new gallery."), LIGHT, False),
    _c("F2", own("The Harbour Lighthouse was built between 1890 and 1894."), LIGHT, False),
    _c("F3", own("The population of Northam was 5,200 in 1910."), POP, False),
    _c("F4", POP_WORDS, POP, False),
    _c(
        "F5",
        own("The ferry does not run in summer between the harbour and the island."),
        FERRY,
        False,
    ),
    _c(
        "F6",
        own("The Harbour Lighthouse was opened in 1894, not in 1899 as some claim."),
        LIGHT,
        False,
    ),
    _c("G1", own("The North Lighthouse was opened in 1901."), LIGHT, False),
    _c("G2", own("The population of Northam was 4,012 in 1900.", "raw/more2.txt"), POP, False),
    _c(
        "G2w",
        own("The population of Northam was 4,012 in 1900.", "raw/more2.txt"),
        POP_WORDS,
        False,
    ),
    _c("G3", own("The Harbour Lighthouse was not opened in 1899.", "raw/more2.txt"), LIGHT, False),
    _c("G4", own("The Harbour Lighthouse was opened in the 1890s.", "raw/more2.txt"), LIGHT, False),
    _c(
        "G5",
        own(
            "The South Lighthouse was opened in 1910 after a campaign by the fishermen.",
            "raw/more2.txt",
        ),
        LIGHT,
        False,
    ),
    _c(
        "H1",
        own(
            "The ferry runs in winter between the harbour and the island, but not at night.",
            "raw/more3.txt",
        ),
        FERRY,
        False,
    ),
    _c(
        "H3",
        own("The tower stands 42 metres tall, not 52 metres as once reported.", "raw/more3.txt"),
        TOWER,
        False,
    ),
    _c(
        "H4",
        own("The Harbour Lighthouse was opened in 1894 and closed in 1990.", "raw/more3.txt"),
        LIGHT,
        False,
    ),
    _c(
        "H5",
        own("No ferry ran between the harbour and the island during the war.", "raw/more3.txt"),
        FERRY,
        False,
    ),
    _c(
        "N1b",
        Side("The Harbour Lighthouse was opened in eighteen ninety-six.", "raw/town.txt", RAIL),
        Side(
            "The Harbour Lighthouse opened its doors in 1896.",
            "raw/more.txt",
            "The Harbour Lighthouse opened its doors in 1896",
        ),
        False,
    ),
    _c(
        "U2",
        Side("The tower stands 138 feet tall.", "raw/other.txt", "The tower stands 52 metres tall"),
        TOWER,
        False,
    ),
    _c(
        "C4",
        Side(
            "The Harbour Lighthouse was opened in 1899 [conflict: raw/town.txt says 1894].",
            "raw/other.txt",
            "the Harbour Lighthouse was opened in 1899",
        ),
        LIGHT,
        False,
    ),
]

# review 36b's workspace: main's claims, each quoting raw/town.txt (some quotes leave out
# the subject), and the review's cases: what it held (flagged, and careful prose not
# flagged) and its false flags on another subject (#6; review 36a #8, numbered subjects)
LIT = Side("The Harbour Lighthouse was first lit in 1870.", "raw/town.txt", "first lit in 1870")
MUSEUM = Side("The museum opened its doors in 1896.", "raw/town.txt", "opened its doors in 1896")
SPAN = own("The bridge is 400 metres long.", "raw/town.txt")
PEOPLE = Side(
    "The town had 5,200 inhabitants in 1910.", "raw/town.txt", "5,200 inhabitants in 1910"
)
SCHOOL = Side("The school was founded in 1852 by the parish.", "raw/town.txt", "founded in 1852")
WINTER = own("The ferry runs in winter.", "raw/town.txt")

DEV += [
    _c("A1", own("The Harbour Lighthouse was first lit in 1872."), LIT, True),
    _c("A13", own("The Harbour Lighthouse was first lit in the 1880s."), LIT, True),
    _c("A19", own("The Harbour Lighthouse Tower was first lit in 1869."), LIT, True),
    _c("A20", own("Harbour Lighthouse: first lit in 1867."), LIT, True),
    _c("A21", own("The\u00a0Harbour\u00a0Lighthouse was first lit in 1868."), LIT, True),
    _c(
        "A4",
        own(
            "The old stone museum on the quay finally opened its public doors to visitors in 1894."
        ),
        MUSEUM,
        True,
    ),
    _c("A5", own("The ferry does not run in winter."), WINTER, True),
    _c("A16", own("The ferry has never run in winter."), WINTER, True),
    _c("A24", own("The school was founded in eighteen fifty-nine by the parish."), SCHOOL, True),
    _c("A6", own("The bridge is four hundred and twenty metres long."), SPAN, True),
    _c("F6b", own("The town had fallen to 4,900 inhabitants in 1920."), PEOPLE, False),
    _c("F1b", own("The museum opened a new wing in 1910."), MUSEUM, False),
    _c("F2b", own("The museum opens its doors at 10 o'clock."), MUSEUM, False),
    _c("F3b", own("The ferry does not run on Sundays in winter."), WINTER, False),
    _c("F14", own("The Harbour Lighthouse was last lit in 1960."), LIT, False),
    _c("F17", own("The school had 120 pupils in 1852."), SCHOOL, False),
    _c("F18", own("The school was founded in eighteen fifty-two by the parish."), SCHOOL, False),
    _c("F15", own("The museum shop opened its doors in 1931."), MUSEUM, False),
    _c("F12", own("The Harbour Lighthouse keeper was first paid in 1871."), LIT, False),
    _c("F4b", own("The old wooden bridge was 250 metres long."), SPAN, False),
    _c("Z1", own("Zebra 40 grazed on the plain."), own("Zebra 39 grazed on the plain."), False),
]

# review 37b's cases: a head noun naming the same thing, a kind before the subject, digits
# of another script, a Roman year, a marker naming an unrelated source
DEV += [
    _c("HN1", own("The museum building opened its doors in 1894."), MUSEUM, True),
    _c("HN2", own("The ferry service does not run in winter."), WINTER, True),
    _c(
        "H-arabic",
        own("The Harbour Lighthouse was first lit in \u0661\u0668\u0667\u0663."),
        LIT,
        True,
    ),
    _c("H-roman", own("The Harbour Lighthouse was first lit in MDCCCLXXI."), LIT, True),
    _c(
        "MK4",
        Side(
            "The bridge is 500 metres long [conflict: raw/cats.txt says 16].",
            "raw/more.txt",
            "The bridge is 500 metres long",
        ),
        SPAN,
        True,
    ),
    _c("FF1", own("The railway bridge is 300 metres long."), SPAN, False),
    _c("FF9", own("The maritime museum opened its doors in 1921."), MUSEUM, False),
]

# review 37c's cases: a head noun or modifier no list knows (each flagged now, as a
# claim.possible_contradiction: maybe another thing, maybe the same), Roman years in lower
# case and in the Unicode block
HALL = own("The museum hall opened its doors in 1893.", "raw/town.txt")
DEV += [
    _c("HN3", own("The museum hall opened its doors in 1893."), MUSEUM, True),
    _c("HN4", own("The ferry line does not run in winter."), WINTER, True),
    _c("HN5", own("The ferry boat does not run in winter."), WINTER, True),
    _c("H-romlow", own("The Harbour Lighthouse was first lit in mdccclxxvi."), LIT, True),
    _c(
        "H-romuni",
        own(
            "The Harbour Lighthouse was first lit in \u216f\u216e\u216d\u216d\u216c\u2169\u2169\u2169\u2160."
        ),
        LIT,
        True,
    ),
    _c("FFc", own("The museum café opened its doors in 1931."), HALL, False),
    _c("FFg", own("The museum store opened its doors in 1950."), HALL, False),
    _c("FFf", own("The Sunday school was founded in 1860 by the parish."), SCHOOL, False),
]

# review 37d's cases: a possessive with an ASCII apostrophe ("the museum's hall") and with the
# typographic one, a bracketed or comma appositive after the subject, a name against a
# possessive, and another establishment of the subject ("the museum café") against the subject
MILL = own("The mill was built in 1790.", "raw/town.txt")
DEV += [
    _c("P-hall", own("The museum's hall opened its doors in 1894."), MUSEUM, True),
    _c("P-boat", own("The ferry's boat does not run in winter."), WINTER, True),
    _c("P-lamp", own("The Harbour Lighthouse's lamp was first lit in 1881."), LIT, True),
    _c("P-bldg", own("The museum's building opened its doors in 1894."), MUSEUM, True),
    _c("P-curly", own("The museum\u2019s hall opened its doors in 1894."), MUSEUM, True),
    _c("P-mill", own("The mill\u2019s wheel was built in 1795."), MILL, False),
    _c(
        "P-brunel",
        own("The Brunel Hall opened its doors in 1893."),
        own("The museum's hall opened its doors in 1901.", "raw/town.txt"),
        False,
    ),
    _c("P-paren", own("The ferry (the boat) does not run in winter."), WINTER, True),
    _c("P-appos", own("The ferry, the old boat, does not run in winter."), WINTER, True),
    _c("FFc2", own("The museum café opened its doors in 1931."), MUSEUM, False),
    _c("FFg2", own("The museum store opened its doors in 1950."), MUSEUM, False),
]

BRIDGE = own("The Town Bridge was completed in 1894 by the masons.", "raw/town.txt")

HELD_OUT: list[Case] = [
    _c(
        "X1",
        own("The Town Bridge was completed in 1896 by the masons.", "raw/bridge.txt"),
        BRIDGE,
        True,
    ),
    _c(
        "X2",
        own("The museum holds about 900 paintings.", "raw/guide.txt"),
        own("The museum holds 300 paintings.", "raw/town.txt"),
        True,
    ),
    _c(
        "X3",
        own("The Corn Exchange was finally demolished in 1961.", "raw/guide.txt"),
        own("The Corn Exchange was demolished in 1958.", "raw/town.txt"),
        True,
    ),
    _c(
        "X4",
        own("The swimming baths did not close in 1939.", "raw/guide.txt"),
        own("The swimming baths closed in 1939.", "raw/town.txt"),
        True,
    ),
    _c(
        "X5",
        own("The pier was sold to the council in 1921 for 3,000 pounds.", "raw/guide.txt"),
        own("The pier was sold to the council in 1921 for 5,000 pounds.", "raw/town.txt"),
        True,
    ),
    _c(
        "X6",
        own("The ferry to the island never ran in the winter months.", "raw/guide.txt"),
        own("The ferry to the island ran in the winter months.", "raw/town.txt"),
        True,
    ),
    _c(
        "X7",
        own("The population of Southam was 12,400 in 1931.", "raw/guide.txt"),
        own("The population of Southam was around 12,000 in 1931.", "raw/town.txt"),
        False,
    ),
    _c(
        "X8",
        own("The West Pier was opened in 1866.", "raw/guide.txt"),
        own("The Palace Pier was opened in 1899.", "raw/town.txt"),
        False,
    ),
    _c(
        "X9",
        own("The Corn Exchange was rebuilt in the 1960s.", "raw/guide.txt"),
        own("The Corn Exchange was rebuilt in 1963.", "raw/town.txt"),
        False,
    ),
    _c(
        "X10",
        own(
            "The tram ran along the promenade every day, but not on Sundays in winter.",
            "raw/guide.txt",
        ),
        own("The tram ran along the promenade every day.", "raw/town.txt"),
        False,
    ),
    _c(
        "X11",
        own("The school had 240 pupils in 1920.", "raw/guide.txt"),
        own("The school had 310 pupils in 1935.", "raw/town.txt"),
        False,
    ),
    _c(
        "X12",
        own("The mill did not burn down in 1911.", "raw/guide.txt"),
        own("The mill burned down in 1908.", "raw/town.txt"),
        False,
    ),
]

# review 38a's cases: a same-thing noun as the subject itself ("the tower", "the building"),
# words of three letters ("bus", "inn", "run", "pay"), irregular verbs (paid/pay, won/win,
# sank/sunk), an accented word ("café"), an appositive carrying a date ("The ferry, in
# service since 1890, …"), "is not running", "during winter", and a sentence naming both
# the museum shop and the museum
DEV += [
    _c(
        "T-tower",
        own("The tower was completed in 1891."),
        own("The tower was completed in 1890.", "raw/town.txt"),
        True,
    ),
    _c(
        "T-tall",
        own("The tower is 40 metres tall."),
        own("The tower is 42 metres tall.", "raw/town.txt"),
        True,
    ),
    _c(
        "T-bldg",
        own("The building was completed in 1893."),
        own("The building was completed in 1890.", "raw/town.txt"),
        True,
    ),
    _c(
        "T-site",
        own("The site was sold in 1891."),
        own("The site was sold in 1890.", "raw/town.txt"),
        True,
    ),
    _c(
        "S-bus",
        own("The bus does not run on Sundays."),
        own("The bus runs on Sundays.", "raw/town.txt"),
        True,
    ),
    _c(
        "S-pay",
        own("The council did not pay the rent in full."),
        own("The council paid the rent in full.", "raw/town.txt"),
        True,
    ),
    _c(
        "S-win",
        own("The club did not win the county cup."),
        own("The club won the county cup.", "raw/town.txt"),
        True,
    ),
    _c(
        "S-inn",
        own("The inn was built in 1752."),
        own("The inn was built in 1750.", "raw/town.txt"),
        True,
    ),
    _c(
        "S-sank",
        own("The steamer Hope was sunk in 1891."),
        own("The steamer Hope sank in 1890.", "raw/town.txt"),
        True,
    ),
    _c(
        "S-cafe",
        own("The caf\u00e9 opened in 1894."),
        own("The caf\u00e9 opened in 1896.", "raw/town.txt"),
        True,
    ),
    _c("S-still", own("The ferry still does not run in winter."), WINTER, True),
    _c("S-small", own("The small ferry does not run in winter."), WINTER, True),
    _c("D-since", own("The ferry, in service since 1890, does not run in winter."), WINTER, True),
    _c("D-paren", own("The ferry (in service since 1890) does not run in winter."), WINTER, True),
    _c("D-est", own("The ferry, established in 1890, no longer runs in winter."), WINTER, True),
    _c("D-boat", own("The ferry (the boat of 1890) does not run in winter."), WINTER, True),
    _c("D-running", own("The ferry is not running in winter."), WINTER, True),
    _c("D-isnt", own("The ferry isn't running in winter."), WINTER, True),
    _c(
        "D-during",
        own("The ferry does not run during winter between the harbour and the island."),
        FERRY,
        True,
    ),
    _c("M-shop", own("The museum shop and the museum opened their doors in 1894."), MUSEUM, True),
    _c(
        "M-asdid",
        own("The museum caf\u00e9 opened its doors in 1894, as did the museum."),
        MUSEUM,
        True,
    ),
    _c(
        "C-bus",
        own("The bus runs on weekdays."),
        own("The bus runs on Sundays.", "raw/town.txt"),
        False,
    ),
    _c(
        "C-inn",
        own("The inn had 12 rooms in 1800."),
        own("The inn had 20 rooms in 1900.", "raw/town.txt"),
        False,
    ),
    _c(
        "C-cup",
        own("The club won the county cup in 1920."),
        own("The club won the league in 1921.", "raw/town.txt"),
        False,
    ),
    _c("C-shop", own("The museum shop opened its doors in 1931."), MUSEUM, False),
    _c("C-run", own("The ferry does not run at night."), WINTER, False),
]

# review 38a #5: counts in the range of years (a thousands comma, a plural noun after it)
DEV += [
    _c(
        "Y-lib",
        own("The library held 1,500 books in 1950."),
        own("The library held 1,200 books in 1900.", "raw/town.txt"),
        False,
    ),
    _c(
        "Y-school",
        own("The school had 1,200 pupils in 1960."),
        own("The school had 40 pupils in 1852.", "raw/town.txt"),
        False,
    ),
    _c(
        "Y-exhibits",
        own("The museum had 2000 exhibits in 1950."),
        own("The museum had 1500 exhibits in 1900.", "raw/town.txt"),
        False,
    ),
    _c(
        "Y-same",
        own("The library held 1,500 books in 1900."),
        own("The library held 1,200 books in 1900.", "raw/town.txt"),
        True,
    ),
]

# review 38a #5: ranges and bounds
DEV += [
    _c(
        "B-between", own("The town had between 5,000 and 5,500 inhabitants in 1910."), PEOPLE, False
    ),
    _c("B-dash", own("The town had 5,000\u20135,500 inhabitants in 1910."), PEOPLE, False),
    _c("B-fewer", own("The town had fewer than 6,000 inhabitants in 1910."), PEOPLE, False),
    _c("B-before", own("The museum opened its doors before 1900."), MUSEUM, False),
    _c("B-years", own("The museum opened its doors between 1895 and 1897."), MUSEUM, False),
    _c("B-fewer2", own("The town had fewer than 5,000 inhabitants in 1910."), PEOPLE, True),
    _c("B-before2", own("The museum opened its doors before 1890."), MUSEUM, True),
]

# review 38b F3 and review 38a #8, #9, #10 (cons30j): a number naming the thing ("Mill
# number 2"), another thing or event than the subject's ("the shop of the museum", "the
# girls' school", "opened its doors again"), units of one kind ("0.3 kilometres" against
# "400 metres"), predicate forms and voice ("is 300 metres in length", "The town opened
# the museum"), a period before a denial and an appositive naming the subject again
MILL = own("Mill number 1 produced flour for the valley villages.", "raw/town.txt")
DEV += [
    _c("N-number", own("Mill number 2 produced flour for the valley villages."), MILL, False),
    _c(
        "N-no",
        own("Mill No. 3 produced flour for the valley villages."),
        own("Mill No. 1 produced flour for the valley villages.", "raw/town.txt"),
        False,
    ),
    _c("N-bare", own("Mill 2 produced flour for the valley villages."), MILL, False),
    _c(
        "N-lock",
        own("Lock 12 was built in 1790."),
        own("Lock 13 was built in 1790.", "raw/town.txt"),
        False,
    ),
    _c(
        "N-same",
        own("Mill number 2 was built in 1790."),
        own("Mill number 2 was built in 1795.", "raw/town.txt"),
        True,
    ),
    _c(
        "N-same-no",
        own("Mill No. 3 produced 40 tonnes of flour a week."),
        own("Mill No. 3 produced 60 tonnes of flour a week.", "raw/town.txt"),
        True,
    ),
    _c("O-shopof", own("The shop of the museum opened its doors in 1932."), MUSEUM, False),
    _c("O-cafeof", own("The café of the museum opened its doors in 1936."), MUSEUM, False),
    _c("O-wingof", own("The east wing of the museum opened its doors in 1931."), MUSEUM, False),
    _c("O-wings", own("The museum's east wing opened its doors in 1931."), MUSEUM, False),
    _c("O-wing", own("The museum east wing opened its doors in 1931."), MUSEUM, False),
    _c("O-girls", own("The girls' school was founded in 1870 by the parish."), SCHOOL, False),
    _c("O-boys", own("The boys' school was founded in 1870 by the parish."), SCHOOL, False),
    _c("O-infant", own("The infant school was founded in 1870 by the parish."), SCHOOL, False),
    _c("O-grammar", own("The grammar school was founded in 1870 by the parish."), SCHOOL, False),
    _c("O-again", own("The museum opened its doors again in 1946."), MUSEUM, False),
    _c("O-again2", own("The museum opened again in 1946."), MUSEUM, False),
    _c("O-reopened", own("The museum reopened its doors in 1950."), MUSEUM, False),
    _c("O-sundays", own("The museum opened its doors on Sundays from 1901."), MUSEUM, False),
    _c("O-new", own("The new museum opened its doors in 1975."), MUSEUM, False),
    _c("O-ext", own("The museum extension opened its doors in 1975."), MUSEUM, False),
    _c("O-same", own("The museum was opened in 1894."), MUSEUM, True),
    _c("O-school", own("The school was founded in 1850 by the parish."), SCHOOL, True),
    _c("U-km", own("The bridge is 0.3 kilometres long."), SPAN, True),
    _c("U-km-ok", own("The bridge is 0.4 kilometres long."), SPAN, False),
    _c(
        "U-km-round",
        own("The bridge is 0.4 km long."),
        own("The bridge is 402 metres long."),
        False,
    ),
    _c(
        "U-tonnes",
        own("The crane lifts 2 tonnes."),
        own("The crane lifts 3,000 kg.", "raw/town.txt"),
        True,
    ),
    _c(
        "U-hours",
        own("The crossing takes 3 hours."),
        own("The crossing takes 90 minutes.", "raw/town.txt"),
        True,
    ),
    _c(
        "U-hours-ok",
        own("The crossing takes 1.5 hours."),
        own("The crossing takes 90 minutes.", "raw/town.txt"),
        False,
    ),
    _c(
        "U-yards",
        own("The road is 2 miles long."),
        own("The road is 5,000 yards long.", "raw/town.txt"),
        True,
    ),
    _c("V-length", own("The bridge is 300 metres in length."), SPAN, True),
    _c("V-hasa", own("The bridge has a length of 300 metres."), SPAN, True),
    _c("V-length-ok", own("The bridge is 400 metres in length."), SPAN, False),
    _c("V-active", own("The town opened the museum in 1894."), MUSEUM, True),
    _c("V-active-ok", own("The town opened the museum in 1896."), MUSEUM, False),
    _c("L-since", own("Since 1890 the ferry has not run."), WINTER, True),
    _c(
        "L-since-ok",
        own("Since 1890 the ferry has not run."),
        own("The ferry ran in winter in 1880.", "raw/town.txt"),
        False,
    ),
    _c("L-itself", own("The museum shop (the museum itself) opened in 1894."), MUSEUM, True),
]

# review 39a #4, #6, #9 (cons30n): a whole converted figure is no rough one ("1 km" against
# "600 metres"), "exactly" is exact; a number in an appositive or bracket names the subject
# ("The Harbour Lighthouse (No. 3)"), "number N" after a verb is a figure (a rank); a size
# outside the predicate ("The bridge, 300 metres long, …", "the 300-metre bridge")
MILL_YEAR = own("The mill was built in 1890.", "raw/town.txt")
DEV += [
    _c("U-1km", own("The bridge is 1 km long."), own("The bridge is 600 metres long."), True),
    _c("U-1km-b", own("The road is 1 km long."), own("The road is 1,450 metres long."), True),
    _c("U-2km", own("The road is 2 km long."), own("The road is 1,500 metres long."), True),
    _c(
        "U-exactly",
        own("The cargo weighed exactly 1 tonne."),
        own("The cargo weighed 600 kg.", "raw/town.txt"),
        True,
    ),
    _c(
        "U-hour",
        own("The crossing takes 1 hour."),
        own("The crossing takes 35 minutes.", "raw/town.txt"),
        True,
    ),
    _c(
        "U-day",
        own("The voyage takes 1 day."),
        own("The voyage takes 13 hours.", "raw/town.txt"),
        True,
    ),
    _c(
        "U-3t",
        own("The cargo weighed 3 tonnes."),
        own("The cargo weighed 2,600 kg.", "raw/town.txt"),
        True,
    ),
    _c("U-350-ok", own("The bridge is 350 metres long."), own("The bridge is 0.4 km long."), False),
    _c("U-dm-ok", own("The tower is 0.04 km tall."), own("The tower is 42 metres tall."), False),
    _c("U-950-ok", own("The pier is 1 km long."), own("The pier is 950 metres long."), False),
    _c("A-bracket", own("The Harbour Lighthouse (No. 3) was first lit in 1881."), LIT, True),
    _c("A-route", own("The ferry, route number 4, does not run in winter."), WINTER, True),
    _c("A-river", own("The mill, number 2 on the river, was built in 1880."), MILL_YEAR, True),
    _c(
        "A-two",
        own("The mill, number 2 on the river, was built in 1880."),
        own("The mill, number 3 on the river, was built in 1890.", "raw/town.txt"),
        False,
    ),
    _c(
        "A-rank",
        own("The grammar school was number 3 in the county in 1900."),
        own("The grammar school was number 5 in the county in 1900.", "raw/town.txt"),
        True,
    ),
    _c(
        "A-ranked",
        own("The museum ranked number 3 in the county in 1900."),
        own("The museum ranked number 5 in the county in 1900.", "raw/town.txt"),
        True,
    ),
    _c("S-appos", own("The bridge, 300 metres long, was opened in 1890."), SPAN, True),
    _c("S-compound", own("The 300-metre bridge was opened in 1890."), SPAN, True),
    _c(
        "S-fronted",
        own("Only 300 metres long, the bridge is the shortest in the county."),
        SPAN,
        True,
    ),
    _c("S-appos-ok", own("The bridge, 400 metres long, was opened in 1890."), SPAN, False),
    _c("S-compound-ok", own("The 0.4-km bridge was opened in 1890."), SPAN, False),
]

# review 39a #3, #5, #8 (cons30l): "until"/"before" a year against "since" it, other
# seasons, a dated past against now, a figure with its parts, other spellings of a repeat
DENIED = own("Since 1890 the ferry has not run in winter.", "raw/town.txt")
DEV += [
    _c(
        "W-until",
        own("Since 1930 the tram has not run on Sundays."),
        own("The tram ran on Sundays until 1930.", "raw/town.txt"),
        False,
    ),
    _c(
        "W-before",
        own("Since 1930 the tram has not run on Sundays."),
        own("Before 1930 the tram ran on Sundays.", "raw/town.txt"),
        False,
    ),
    _c(
        "W-bus",
        own("The bus has run on Sundays since 1950."),
        own("The bus did not run on Sundays before 1950.", "raw/town.txt"),
        False,
    ),
    _c(
        "W-coal",
        own("The harbour handled coal until 1990."),
        own("Since 1990 the harbour has not handled coal.", "raw/town.txt"),
        False,
    ),
    _c("W-since-later", own("The ferry ran in winter in 1895."), DENIED, True),
    _c("W-since-now", own("The ferry runs in winter."), DENIED, True),
    _c(
        "W-season",
        own("The ferry runs 6 times a day in summer."),
        own("The ferry runs 2 times a day in winter.", "raw/town.txt"),
        False,
    ),
    _c(
        "W-season-min",
        own("The ferry crossing takes 40 minutes in summer."),
        own("The ferry crossing takes 90 minutes in winter.", "raw/town.txt"),
        False,
    ),
    _c(
        "W-season-same",
        own("The ferry runs 6 times a day in summer."),
        own("The ferry runs 2 times a day in summer.", "raw/town.txt"),
        True,
    ),
    _c(
        "W-past",
        own("The crossing to the mainland takes 50 minutes."),
        own("The crossing to the mainland took 3 hours in 1900.", "raw/town.txt"),
        False,
    ),
    _c(
        "W-now",
        own("The crossing to the mainland takes 50 minutes."),
        own("The crossing to the mainland takes 3 hours.", "raw/town.txt"),
        True,
    ),
    _c("W-whole", own("With its approaches the bridge is 500 metres long."), SPAN, False),
    _c(
        "W-whole-both",
        own("The bridge is 300 metres long with its approaches."),
        own("The bridge is 400 metres long with its approaches.", "raw/town.txt"),
        True,
    ),
    _c("RP-hyphen", own("The museum re-opened its doors in 1950."), MUSEUM, False),
    _c("RP-was", own("The museum was re-opened in 1946."), MUSEUM, False),
    _c("RP-oncemore", own("The museum opened its doors once more in 1946."), MUSEUM, False),
    _c("RP-second", own("The museum opened its doors for a second time in 1946."), MUSEUM, False),
    _c("RP-anew", own("The museum opened its doors anew in 1946."), MUSEUM, False),
    _c(
        "RP-two",
        own("The museum reopened its doors in 1950."),
        own("The museum opened its doors again in 1946.", "raw/town.txt"),
        False,
    ),
    _c("RP-first", own("The museum opened its doors in 1894 and once more in 1950."), MUSEUM, True),
]

# trial 40 #7 (conflict30): numbers in words, parts of an hour, "N and a half" of a scale
CROSSING = own("The crossing to the mainland takes 20 minutes.", "raw/town.txt")
OBJECTS = own("The museum holds 1,500 objects.", "raw/town.txt")
DEV += [
    _c("T40-thirty", own("The crossing to the mainland takes thirty minutes."), CROSSING, True),
    _c("T40-five", own("The crossing to the mainland takes five minutes."), CROSSING, True),
    _c("T40-half", own("The crossing to the mainland takes half an hour."), CROSSING, True),
    _c(
        "T40-quarter",
        own("The crossing to the mainland takes a quarter of an hour."),
        CROSSING,
        True,
    ),
    _c(
        "T40-half-same",
        own("The crossing to the mainland takes half an hour."),
        own("The crossing to the mainland takes 30 minutes.", "raw/town.txt"),
        False,
    ),
    _c("T40-thousand", own("The museum holds one and a half thousand objects."), OBJECTS, False),
    _c(
        "T40-thousand-other",
        own("The museum holds two and a half thousand objects."),
        OBJECTS,
        True,
    ),
]


# review 40b's cases and the session-41 probes the rules were changed for (R40-…: a clause
# after a present verb, 'but' or a list; periods; seasons; durations; qualifiers; participles;
# sizes said otherwise; an event's object)
DEV += [
    _c(
        "R40-1",
        own("The bridge crosses the river and is 300 metres long."),
        own("The bridge is 450 metres long.", "raw/town.txt"),
        True,
    ),
    _c(
        "R40-2",
        own("The bridge spans the river and is 300 metres long."),
        own("The bridge is 450 metres long.", "raw/town.txt"),
        True,
    ),
    _c(
        "R40-3",
        own("The tram runs every day, but it does not run in winter."),
        own("The tram runs in winter.", "raw/town.txt"),
        True,
    ),
    _c(
        "R40-4",
        own("The tram serves the pier, runs in summer and does not run in winter."),
        own("The tram runs in winter.", "raw/town.txt"),
        True,
    ),
    _c(
        "R40-5",
        own("The tram ran from 1900 to 1935."),
        own("Since 1930 the tram has not run.", "raw/town.txt"),
        True,
    ),
    _c(
        "R40-6",
        own("The tram ran between 1900 and 1935."),
        own("Since 1930 the tram has not run.", "raw/town.txt"),
        True,
    ),
    _c(
        "R40-7",
        own("The tram has not run since it was rebuilt in 1950."),
        own("The tram ran in 1960.", "raw/town.txt"),
        True,
    ),
    _c(
        "R40-8",
        own("The ferry runs 6 times a day in the summer months."),
        own("The ferry runs 4 times a day in summer.", "raw/town.txt"),
        True,
    ),
    _c(
        "R40-9",
        own("The ferry runs 6 times a day all year round."),
        own("The ferry runs 4 times a day in summer.", "raw/town.txt"),
        True,
    ),
    _c(
        "R40-10",
        own("The museum has a lamp that was made in 1870 and is 2 metres tall."),
        own("The museum is 20 metres tall.", "raw/town.txt"),
        False,
    ),
    _c(
        "R40-11",
        own("The bridge was built in 1890 and the pier is 300 metres long."),
        own("The bridge is 450 metres long.", "raw/town.txt"),
        False,
    ),
    _c(
        "R40-12",
        own("The crossing takes an hour and 20 minutes."),
        own("The crossing takes 50 minutes.", "raw/town.txt"),
        True,
    ),
    _c(
        "R40-13",
        own("The crossing takes an hour and 20 minutes."),
        own("The crossing takes 80 minutes.", "raw/town.txt"),
        False,
    ),
    _c(
        "R40-14",
        own("The crossing takes less than 1 hour."),
        own("The crossing takes 80 minutes.", "raw/town.txt"),
        True,
    ),
    _c(
        "R40-15",
        own("The crossing takes less than 1 hour."),
        own("The crossing takes 50 minutes.", "raw/town.txt"),
        False,
    ),
    _c(
        "R40-16",
        own("The pier was 300 m long until 1950."),
        own("The pier has been 450 m long since 1950.", "raw/town.txt"),
        False,
    ),
    _c(
        "R40-17",
        own("In summer the ferry runs 6 times a day."),
        own("On Sundays the ferry runs 4 times a day.", "raw/town.txt"),
        False,
    ),
    _c(
        "R40-18",
        own("The ferry runs 6 times a day in summer."),
        own("The ferry runs 4 times a day in winter.", "raw/town.txt"),
        False,
    ),
    _c(
        "R40-19",
        own("The ferry runs 6 times a day."),
        own("The ferry runs 4 times a day.", "raw/town.txt"),
        True,
    ),
    _c(
        "R40-20",
        own("The bridge crosses the river and the railway."),
        own("The bridge is 450 metres long.", "raw/town.txt"),
        False,
    ),
    _c(
        "R40-21",
        own("The ferry runs 6 times a day all year round."),
        own("The ferry runs 4 times a day.", "raw/town.txt"),
        True,
    ),
    _c(
        "R40-22",
        own("The tram ran from 1900 to 1925."),
        own("Since 1930 the tram has not run.", "raw/town.txt"),
        False,
    ),
    _c(
        "R40-23",
        own("The tram ran between 1900 and 1930."),
        own("Since 1930 the tram has not run.", "raw/town.txt"),
        False,
    ),
    _c(
        "R40-24",
        own("The tram has not run since it was closed in 1950."),
        own("The tram ran in 1940.", "raw/town.txt"),
        False,
    ),
    _c(
        "R40-25",
        own("The museum opened in 1894, and the pier is 300 metres long."),
        own("The pier is 300 metres long.", "raw/town.txt"),
        False,
    ),
    _c(
        "R40-26",
        own("The museum opened in 1894, and the pier is 300 metres long."),
        own("The pier is 450 metres long.", "raw/town.txt"),
        True,
    ),
    _c(
        "R40-27",
        own("The museum opened in 1894 and the pier is 300 metres long."),
        own("The museum opened in 1896.", "raw/town.txt"),
        True,
    ),
    _c(
        "R40-28",
        own("The crossing takes under 2 hours."),
        own("The crossing takes 90 minutes.", "raw/town.txt"),
        False,
    ),
    _c(
        "R40-29",
        own("The crossing takes more than 2 hours."),
        own("The crossing takes 90 minutes.", "raw/town.txt"),
        True,
    ),
    _c(
        "R40-30",
        own("The ferry runs 4 times a day on Sundays in summer."),
        own("The ferry runs 6 times a day in summer.", "raw/town.txt"),
        False,
    ),
    _c(
        "R40-31",
        own("The pier was 300 m long until 1950."),
        own("The pier was 450 m long until 1950.", "raw/town.txt"),
        True,
    ),
    _c(
        "R40-32",
        own("The museum houses 300 paintings and is 20 metres tall."),
        own("The museum is 25 metres tall.", "raw/town.txt"),
        True,
    ),
    _c(
        "R40-33",
        own("The museum houses 300 paintings and is 20 metres tall."),
        own("The museum houses 250 paintings.", "raw/town.txt"),
        True,
    ),
    _c(
        "R40-34",
        own("The museum houses 300 paintings and is 20 metres tall."),
        own("The museum is 20 metres tall.", "raw/town.txt"),
        False,
    ),
    _c(
        "R40-35",
        own("The ferry runs in summer, but it does not run in winter."),
        own("The ferry runs in summer.", "raw/town.txt"),
        False,
    ),
    _c(
        "R40-36",
        own("The ferry runs in summer, but it does not run in winter."),
        own("The ferry runs in winter.", "raw/town.txt"),
        True,
    ),
    _c(
        "R40-37",
        own("The trams cross the river and are 30 metres long."),
        own("The river is 40 metres wide.", "raw/town.txt"),
        False,
    ),
    _c(
        "R40-38",
        own("The ferry runs 6 times a day throughout the summer months."),
        own("The ferry runs 4 times a day in summer.", "raw/town.txt"),
        True,
    ),
    _c(
        "R40-39",
        own("The ferry ran 6 times a day for many years."),
        own("The ferry runs 4 times a day in summer.", "raw/town.txt"),
        False,
    ),
    _c(
        "R40-40",
        own("The crossing takes an hour and ten minutes."),
        own("The crossing takes 50 minutes.", "raw/town.txt"),
        True,
    ),
    _c(
        "R40-41",
        own("The tower has stood for 300 years and is 40 metres tall."),
        own("The tower is 40 metres tall.", "raw/town.txt"),
        False,
    ),
    _c(
        "R40-42",
        own("The tower has stood for 300 years and is 40 metres tall."),
        own("The tower is 50 metres tall.", "raw/town.txt"),
        True,
    ),
    _c(
        "R40-43",
        own("The line opened in 1900 and closed in 1935."),
        own("Since 1935 the line has not run.", "raw/town.txt"),
        False,
    ),
    _c(
        "R40-44",
        own("The line ran from 1900 to 1960."),
        own("The line has not run since it was closed in 1950.", "raw/town.txt"),
        True,
    ),
    _c(
        "R40-45",
        own("The ferry runs, but not in winter."),
        own("The ferry does not run in winter.", "raw/town.txt"),
        False,
    ),
    _c(
        "R40-46",
        own("The ferry sails from the harbour, but it does not run in winter."),
        own("The ferry does not run in winter.", "raw/town.txt"),
        False,
    ),
    _c(
        "R40-47",
        own("The ferry runs every day except in winter."),
        own("The ferry does not run in winter.", "raw/town.txt"),
        False,
    ),
    _c(
        "R40-48",
        own("The ferry runs, but not in winter."),
        own("The ferry runs in winter.", "raw/town.txt"),
        True,
    ),
    _c(
        "R40-49",
        own("The museum is open daily, except on Mondays."),
        own("The museum is open on Mondays.", "raw/town.txt"),
        True,
    ),
    _c(
        "R40-50",
        own("The museum is open daily, except on Mondays."),
        own("The museum is open daily.", "raw/town.txt"),
        False,
    ),
    _c(
        "R40-51",
        own("The museum is open daily, except on Mondays."),
        own("The museum is not open on Mondays.", "raw/town.txt"),
        False,
    ),
    _c(
        "R40-52",
        own("The ferry runs daily but not in winter."),
        own("The ferry runs in winter.", "raw/town.txt"),
        True,
    ),
    _c(
        "R40-53",
        own("The ferry sails from the harbour, but it runs in winter."),
        own("The ferry does not run in winter.", "raw/town.txt"),
        True,
    ),
    _c(
        "R40-54",
        own("The pier crosses the beach and is 450 metres long."),
        own("The pier is 400 metres long.", "raw/town.txt"),
        True,
    ),
    _c(
        "R40-55",
        own("The tram ran on Sundays until 1935."),
        own("Since 1930 the tram has not run in winter.", "raw/town.txt"),
        False,
    ),
    _c(
        "R40-56",
        own("The tram ran on Sundays until 1935."),
        own("Since 1930 the tram has not run on Sundays.", "raw/town.txt"),
        True,
    ),
    _c(
        "R40-57",
        own("The tram ran to the pier until 1935."),
        own("Since 1930 the tram has not run to the station.", "raw/town.txt"),
        False,
    ),
    _c(
        "R40-58",
        own("The ferry, which is still in service, took 3 hours in 1900."),
        own("The ferry takes 40 minutes.", "raw/town.txt"),
        False,
    ),
    _c(
        "R40-59",
        own("The ferry, which is still in service, takes 3 hours."),
        own("The ferry takes 40 minutes.", "raw/town.txt"),
        True,
    ),
    _c(
        "R40-60",
        own("The museum was founded in 1850 by the guild."),
        own("The museum was founded in 1852.", "raw/town.txt"),
        True,
    ),
    _c(
        "R40-61",
        own("The museum, founded in 1850, holds 300 paintings."),
        own("The museum was founded in 1852.", "raw/town.txt"),
        True,
    ),
    _c(
        "R40-62",
        own("In 1850 the museum was founded."),
        own("The museum was founded in 1852.", "raw/town.txt"),
        True,
    ),
    _c(
        "R40-63",
        own("Founded in 1850, the museum holds 300 paintings."),
        own("The museum was founded in 1852.", "raw/town.txt"),
        True,
    ),
    _c(
        "R40-64",
        own("The town's population is 5,000."),
        own("The town has a population of 6,000.", "raw/town.txt"),
        True,
    ),
    _c(
        "R40-65",
        own("The village is 5 km from the harbour."),
        own("The village lies 8 km from the harbour.", "raw/town.txt"),
        True,
    ),
    _c(
        "R40-66",
        own("The pier opened on 3 May 1894."),
        own("The pier opened on 5 May 1894.", "raw/town.txt"),
        True,
    ),
    _c(
        "R40-67",
        own("The tram never ran on Sundays."),
        own("The tram ran on Sundays.", "raw/town.txt"),
        True,
    ),
    _c(
        "R40-68",
        own("The ferry is no longer in service."),
        own("The ferry is in service.", "raw/town.txt"),
        True,
    ),
    _c(
        "R40-69",
        own("The chapel was never rebuilt."),
        own("The chapel was rebuilt in 1921.", "raw/town.txt"),
        True,
    ),
    _c(
        "R40-70",
        own("The chapel was not demolished."),
        own("The chapel was demolished in 1960.", "raw/town.txt"),
        True,
    ),
    _c(
        "R40-71",
        own("The station closed in 1935 and reopened in 1946."),
        own("The station closed in 1938.", "raw/town.txt"),
        True,
    ),
    _c(
        "R40-72",
        own("The bridge's length is 300 metres."),
        own("The bridge is 400 metres long.", "raw/town.txt"),
        True,
    ),
    _c(
        "R40-73",
        own("The bridge measures 300 metres."),
        own("The bridge is 400 metres long.", "raw/town.txt"),
        True,
    ),
    _c(
        "R40-74",
        own("The tower rises 40 metres."),
        own("The tower is 52 metres tall.", "raw/town.txt"),
        True,
    ),
    _c(
        "R40-75",
        own("The museum attracts 50,000 visitors a year."),
        own("The museum attracts 40,000 visitors annually.", "raw/town.txt"),
        True,
    ),
    _c(
        "R40-76",
        own("The lighthouse was lit for the first time in 1870."),
        own("The lighthouse was first lit in 1871.", "raw/town.txt"),
        True,
    ),
    _c(
        "R40-77",
        own("The pier, which opened in 1894, is 400 metres long."),
        own("The pier opened in 1896.", "raw/town.txt"),
        True,
    ),
    _c(
        "R40-78",
        own("The pier opened in 1894; it is 400 metres long."),
        own("The pier is 450 metres long.", "raw/town.txt"),
        True,
    ),
    _c(
        "R40-79",
        own("The pier opened in 1894. It is 400 metres long."),
        own("The pier is 450 metres long.", "raw/town.txt"),
        True,
    ),
    _c(
        "R40-80",
        own("The school has 300 pupils and 20 teachers."),
        own("The school has 250 pupils.", "raw/town.txt"),
        True,
    ),
    _c(
        "R40-81",
        own("The abbey was dissolved in 1536 and the estate was sold in 1540."),
        own("The abbey was dissolved in 1539.", "raw/town.txt"),
        True,
    ),
    _c(
        "R40-82",
        own("The mill was built in 1820 and was extended in 1850."),
        own("The mill was built in 1825.", "raw/town.txt"),
        True,
    ),
    _c(
        "R40-83",
        own("The mill was built in 1820 and extended in 1850."),
        own("The mill was extended in 1860.", "raw/town.txt"),
        True,
    ),
    _c(
        "R40-84",
        own("The pier is 400 metres long."),
        own("The pier is 0.4 km long.", "raw/town.txt"),
        False,
    ),
    _c(
        "R40-85",
        own("The museum opened in 1894."),
        own("The museum opened its new wing in 1950.", "raw/town.txt"),
        False,
    ),
    _c(
        "R40-86",
        own("The ferry does not run in winter."),
        own("The ferry runs in summer.", "raw/town.txt"),
        False,
    ),
    _c(
        "R40-87",
        own("The bridge was built between 1888 and 1890."),
        own("The bridge was completed in 1890.", "raw/town.txt"),
        False,
    ),
    _c(
        "R40-88",
        own("The town had 5,000 people in 1900."),
        own("The town has 12,000 people.", "raw/town.txt"),
        False,
    ),
    _c(
        "R40-89",
        own("The mill was built in 1820 and extended in 1850."),
        own("The mill was built in 1820.", "raw/town.txt"),
        False,
    ),
    _c(
        "R40-90",
        own("The mill was built in 1820 and extended in 1850."),
        own("The mill was extended in 1850.", "raw/town.txt"),
        False,
    ),
    _c(
        "R40-91",
        own("The station closed in 1935 and reopened in 1946."),
        own("The station reopened in 1946.", "raw/town.txt"),
        False,
    ),
    _c(
        "R40-92",
        own("The school has 300 pupils and 20 teachers."),
        own("The school has 20 teachers.", "raw/town.txt"),
        False,
    ),
    _c(
        "R40-93",
        own("The chapel was not demolished in 1960."),
        own("The chapel was demolished in 1965.", "raw/town.txt"),
        False,
    ),
    _c(
        "R40-94",
        own("The tram does not run on Sundays."),
        own("The tram runs on Saturdays.", "raw/town.txt"),
        False,
    ),
    _c(
        "R40-95",
        own("The bridge was closed for repairs in 1950."),
        own("The bridge opened in 1890.", "raw/town.txt"),
        False,
    ),
    _c(
        "R40-96",
        own("The town opened the museum in 1894."),
        own("The museum opened in 1896.", "raw/town.txt"),
        True,
    ),
    _c(
        "R40-97",
        own("The company built the pier in 1890."),
        own("The pier was built in 1892.", "raw/town.txt"),
        True,
    ),
    _c(
        "R40-98",
        own("The museum opened a café in 1950."),
        own("The museum opened in 1894.", "raw/town.txt"),
        False,
    ),
    _c(
        "R40-99",
        own("The museum opened its doors in 1894."),
        own("The museum opened in 1896.", "raw/town.txt"),
        True,
    ),
    _c(
        "R40-100",
        own("The museum opened its doors to the public in 1894."),
        own("The museum opened in 1896.", "raw/town.txt"),
        True,
    ),
    _c(
        "R40-101",
        own(
            "The old stone museum on the quay finally opened its public doors to visitors in 1894."
        ),
        own("The museum opened its doors in 1896.", "raw/town.txt"),
        True,
    ),
    _c(
        "R40-102",
        own("The museum opened its new east wing in 1950."),
        own("The museum opened in 1894.", "raw/town.txt"),
        False,
    ),
    _c(
        "R40-103",
        own("The museum opened a new café, in 1950."),
        own("The museum opened in 1894.", "raw/town.txt"),
        False,
    ),
    _c(
        "R40-104",
        own("The bridge opened to traffic in 1890."),
        own("The bridge opened to pedestrians in 1888.", "raw/town.txt"),
        False,
    ),
    _c(
        "R40-105",
        own("The bridge opened to traffic in 1890."),
        own("The bridge opened to pedestrians in 1892.", "raw/town.txt"),
        False,
    ),
]


# written in session 41 before any rule changed for them (other prose: a canal, a church, a
# school, a town hall, a lifeboat station, a viaduct, a market, a reservoir, a tram, a library):
# never tuned on. At their writing (466293e): 5 of 10 caught, 1 of 10 flagged (possible)
HELD_OUT += [
    _c(
        "Z41-1",
        own("The canal, which was dug between 1792 and 1796, carried coal to the mills."),
        own("The canal was completed in 1801.", "raw/town.txt"),
        True,
    ),
    _c(
        "Z41-2",
        own("St Mary's Church seats 400 people and was consecrated in 1861."),
        own("St Mary's Church seats 650 people.", "raw/town.txt"),
        True,
    ),
    _c(
        "Z41-3",
        own("The grammar school admitted girls from 1905, but it did not admit boarders."),
        own("The grammar school admitted boarders from 1910.", "raw/town.txt"),
        True,
    ),
    _c(
        "Z41-4",
        own("Completed in 1911, the town hall cost £12,000."),
        own("The town hall was completed in 1908.", "raw/town.txt"),
        True,
    ),
    _c(
        "Z41-5",
        own("The lifeboat station has operated continuously since 1866."),
        own("The lifeboat station was closed between 1920 and 1925.", "raw/town.txt"),
        True,
    ),
    _c(
        "Z41-6",
        own("The viaduct has 24 arches and carries the main line."),
        own("The viaduct has 21 arches.", "raw/town.txt"),
        True,
    ),
    _c(
        "Z41-7",
        own("The market is held every Thursday, and it has never been cancelled."),
        own("The market was cancelled in 1940.", "raw/town.txt"),
        True,
    ),
    _c(
        "Z41-8",
        own("The reservoir holds 2 million litres and supplies the town."),
        own("The reservoir holds 5 million litres.", "raw/town.txt"),
        True,
    ),
    _c(
        "Z41-9",
        own("The tram journey to the depot takes about 25 minutes."),
        own("The tram journey to the depot takes an hour.", "raw/town.txt"),
        True,
    ),
    _c(
        "Z41-10",
        own("The library lends 80,000 books annually."),
        own("The library lends 120,000 books a year.", "raw/town.txt"),
        True,
    ),
    _c(
        "Z41-11",
        own("The canal was dug between 1792 and 1796."),
        own("The canal was extended in 1801.", "raw/town.txt"),
        False,
    ),
    _c(
        "Z41-12",
        own("St Mary's Church seats 400 people."),
        own("St Mary's Church hall seats 650 people.", "raw/town.txt"),
        False,
    ),
    _c(
        "Z41-13",
        own("The grammar school did not admit girls until 1905."),
        own("The grammar school admitted girls from 1905.", "raw/town.txt"),
        False,
    ),
    _c(
        "Z41-14",
        own("The town hall cost £12,000 in 1911."),
        own("The town hall cost £40,000 to restore in 1990.", "raw/town.txt"),
        False,
    ),
    _c(
        "Z41-15",
        own("The lifeboat station closed in 1920 and reopened in 1925."),
        own("The lifeboat station has operated since 1925.", "raw/town.txt"),
        False,
    ),
    _c(
        "Z41-16",
        own("The viaduct has 24 arches."),
        own("The viaduct's southern section has 10 arches.", "raw/town.txt"),
        False,
    ),
    _c(
        "Z41-17",
        own("The market is held every Thursday."),
        own("The market is not held on Sundays.", "raw/town.txt"),
        False,
    ),
    _c(
        "Z41-18",
        own("The reservoir holds 2 million litres in winter."),
        own("The reservoir holds 1 million litres in summer.", "raw/town.txt"),
        False,
    ),
    _c(
        "Z41-19",
        own("The tram journey to the depot takes about 25 minutes."),
        own("The tram journey to the depot took an hour in 1900.", "raw/town.txt"),
        False,
    ),
    _c(
        "Z41-20",
        own("The library lends 80,000 books a year."),
        own("The library holds 120,000 books.", "raw/town.txt"),
        False,
    ),
]
