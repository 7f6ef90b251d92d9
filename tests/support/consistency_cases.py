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


# review 41a's cases (R41-…: people, organisations, transport, buildings, science; its
# contradictions and its consistent pairs), added to the development half; before their rules
# (34cb27d): 79 of 108 caught, 20 of 97 flagged (5 possible, 15 plain)
DEV += [
    _c(
        "R41-P1",
        own("Thomas Hale was born in 1821 in the parish of Wexcombe."),
        own("Thomas Hale was born in 1824.", "raw/town.txt"),
        True,
    ),
    _c(
        "R41-P2",
        own("Born in 1821, Thomas Hale trained as an engineer in Bristol."),
        own("Thomas Hale was born in 1824.", "raw/town.txt"),
        True,
    ),
    _c(
        "R41-P3",
        own("Thomas Hale, who died in 1889, designed the town's waterworks."),
        own("Thomas Hale died in 1893.", "raw/town.txt"),
        True,
    ),
    _c(
        "R41-P4",
        own("Mayor Eliza Crane served for six years."),
        own("Mayor Eliza Crane served for four years.", "raw/town.txt"),
        True,
    ),
    _c(
        "R41-P5",
        own("Eliza Crane was mayor from 1902 to 1908."),
        own("Eliza Crane was mayor from 1910 to 1914.", "raw/town.txt"),
        True,
    ),
    _c(
        "R41-P6",
        own("Eliza Crane was never elected mayor."),
        own("Eliza Crane was elected mayor in 1902.", "raw/town.txt"),
        True,
    ),
    _c(
        "R41-P7",
        own("The architect John Pell married Ann Dove in 1850."),
        own("John Pell married Ann Dove in 1853.", "raw/town.txt"),
        True,
    ),
    _c(
        "R41-P8",
        own("He was born in 1821."),
        own("Thomas Hale was born in 1824.", "raw/town.txt"),
        True,
    ),
    _c(
        "R41-O1",
        own("The Wexcombe Cooperative Society was founded in 1862."),
        own("The Wexcombe Cooperative Society was established in 1868.", "raw/town.txt"),
        True,
    ),
    _c(
        "R41-O2",
        own("The cooperative society had 1,200 members in 1900."),
        own("The cooperative society had 3,400 members in 1900.", "raw/town.txt"),
        True,
    ),
    _c(
        "R41-O3",
        own("The society, founded by twelve weavers, was registered in 1862."),
        own("The society was registered in 1866.", "raw/town.txt"),
        True,
    ),
    _c(
        "R41-O4",
        own("The brass band has 40 members."),
        own("The brass band has 25 members.", "raw/town.txt"),
        True,
    ),
    _c(
        "R41-O5",
        own("The football club was formed in 1879 and plays at Mill Lane."),
        own("The football club was formed in 1883.", "raw/town.txt"),
        True,
    ),
    _c(
        "R41-O6",
        own("The football club has never played at Mill Lane."),
        own("The football club plays at Mill Lane.", "raw/town.txt"),
        True,
    ),
    _c(
        "R41-O7",
        own("The bank employed about 300 staff."),
        own("The bank employed 120 staff.", "raw/town.txt"),
        True,
    ),
    _c(
        "R41-O8",
        own("The bank's head office was moved to Leeds in 1931."),
        own("The bank's head office was moved to Leeds in 1927.", "raw/town.txt"),
        True,
    ),
    _c(
        "R41-T1",
        own("The branch railway was closed to passengers in 1964."),
        own("The branch railway was closed to passengers in 1958.", "raw/town.txt"),
        True,
    ),
    _c(
        "R41-T2",
        own("Closed to passengers in 1964, the branch railway is now a footpath."),
        own("The branch railway closed to passengers in 1958.", "raw/town.txt"),
        True,
    ),
    _c(
        "R41-T3",
        own("The bus to Castleford takes 40 minutes."),
        own("The bus to Castleford takes an hour and a half.", "raw/town.txt"),
        True,
    ),
    _c(
        "R41-T4",
        own("The canal is 14 miles long."),
        own("The canal is 22 miles long.", "raw/town.txt"),
        True,
    ),
    _c(
        "R41-T5",
        own("The canal has 18 locks."),
        own("The canal has 31 locks.", "raw/town.txt"),
        True,
    ),
    _c(
        "R41-T6",
        own("The airport's runway is 1,800 metres long."),
        own("The airport's runway is 2.6 km long.", "raw/town.txt"),
        True,
    ),
    _c(
        "R41-T7",
        own("The station has three platforms."),
        own("The station has five platforms.", "raw/town.txt"),
        True,
    ),
    _c(
        "R41-T8",
        own("Trains to York run every 30 minutes."),
        own("Trains to York run every 2 hours.", "raw/town.txt"),
        True,
    ),
    _c(
        "R41-T9",
        own("The coach service to London no longer runs."),
        own("The coach service to London runs daily.", "raw/town.txt"),
        True,
    ),
    _c(
        "R41-T10",
        own("The railway reached the town in 1847, after two years of work."),
        own("The railway reached the town in 1852.", "raw/town.txt"),
        True,
    ),
    _c(
        "R41-T11",
        own("The line was electrified in 1958 but not doubled."),
        own("The line was electrified in 1962.", "raw/town.txt"),
        True,
    ),
    _c(
        "R41-T12",
        own("The station was rebuilt by the Midland Railway in 1880."),
        own("The station was rebuilt in 1885.", "raw/town.txt"),
        True,
    ),
    _c(
        "R41-B1",
        own("The town hall, a red-brick building of 1877, cost £12,000."),
        own("The town hall cost £30,000.", "raw/town.txt"),
        True,
    ),
    _c(
        "R41-B2",
        own("The spire of St Peter's is 62 metres high."),
        own("The spire of St Peter's is 48 metres high.", "raw/town.txt"),
        True,
    ),
    _c(
        "R41-B3",
        own("The castle keep was built around 1120."),
        own("The castle keep was built in 1190.", "raw/town.txt"),
        True,
    ),
    _c(
        "R41-B4",
        own("The windmill was built in 1802 and has five sails."),
        own("The windmill has four sails.", "raw/town.txt"),
        True,
    ),
    _c(
        "R41-B5",
        own("The workhouse held up to 400 inmates."),
        own("The workhouse held 900 inmates.", "raw/town.txt"),
        True,
    ),
    _c(
        "R41-B6",
        own("The hospital has 250 beds, except in winter when it opens more."),
        own("The hospital has 600 beds.", "raw/town.txt"),
        True,
    ),
    _c(
        "R41-B7",
        own("The library holds 85,000 volumes."),
        own("The library holds 40,000 volumes.", "raw/town.txt"),
        True,
    ),
    _c(
        "R41-B8",
        own("The Corn Exchange was demolished in 1961."),
        own("The Corn Exchange was demolished in 1972.", "raw/town.txt"),
        True,
    ),
    _c(
        "R41-B9",
        own("The Corn Exchange has never been demolished."),
        own("The Corn Exchange was demolished in 1972.", "raw/town.txt"),
        True,
    ),
    _c(
        "R41-B10",
        own("The reservoir holds 4 million litres."),
        own("The reservoir holds 9 million litres.", "raw/town.txt"),
        True,
    ),
    _c(
        "R41-B11",
        own("The mill chimney, which is 70 metres tall, was built in 1863."),
        own("The mill chimney is 55 metres tall.", "raw/town.txt"),
        True,
    ),
    _c(
        "R41-S1",
        own("Water boils at 100 degrees Celsius at sea level."),
        own("Water boils at 90 degrees Celsius at sea level.", "raw/town.txt"),
        True,
    ),
    _c(
        "R41-S2",
        own("The Moon is about 384,000 km from the Earth."),
        own("The Moon is about 150,000 km from the Earth.", "raw/town.txt"),
        True,
    ),
    _c(
        "R41-S3",
        own("The speed of sound in air is 343 metres per second."),
        own("The speed of sound in air is 300 metres per second.", "raw/town.txt"),
        True,
    ),
    _c("R41-S4", own("Mercury has no moons."), own("Mercury has two moons.", "raw/town.txt"), True),
    _c(
        "R41-S5",
        own("The half-life of carbon-14 is 5,730 years."),
        own("The half-life of carbon-14 is 8,000 years.", "raw/town.txt"),
        True,
    ),
    _c(
        "R41-S6",
        own("A human adult has 206 bones."),
        own("A human adult has 212 bones.", "raw/town.txt"),
        True,
    ),
    _c(
        "R41-S7",
        own("The element was discovered in 1898 by Marie Curie."),
        own("The element was discovered in 1902.", "raw/town.txt"),
        True,
    ),
    _c(
        "R41-S8",
        own("Light takes about 8 minutes to reach the Earth from the Sun."),
        own("Light takes about 20 minutes to reach the Earth from the Sun.", "raw/town.txt"),
        True,
    ),
    _c(
        "R41-H1",
        own("The great fire destroyed 300 houses in 1666."),
        own("The great fire destroyed 80 houses in 1666.", "raw/town.txt"),
        True,
    ),
    _c(
        "R41-H2",
        own("The town received its charter in 1207."),
        own("The town received its charter in 1256.", "raw/town.txt"),
        True,
    ),
    _c(
        "R41-H3",
        own("The population was 12,400 at the 1901 census."),
        own("The population was 18,900 at the 1901 census.", "raw/town.txt"),
        True,
    ),
    _c(
        "R41-H4",
        own("The flood of 1953 drowned twelve people."),
        own("The flood of 1953 drowned forty people.", "raw/town.txt"),
        True,
    ),
    _c(
        "R41-H5",
        own("The market is held on Tuesdays."),
        own("The market is held on Fridays.", "raw/town.txt"),
        True,
    ),
    _c(
        "R41-H6",
        own("The market has been held every Tuesday since 1290."),
        own("The market has been held every Tuesday since 1350.", "raw/town.txt"),
        True,
    ),
    _c(
        "R41-H7",
        own("The plague killed a third of the town's inhabitants in 1349."),
        own("The plague killed half of the town's inhabitants in 1349.", "raw/town.txt"),
        True,
    ),
    _c(
        "R41-H8",
        own("The cholera outbreak lasted six weeks."),
        own("The cholera outbreak lasted four months.", "raw/town.txt"),
        True,
    ),
    _c(
        "R41-H9",
        own("The riots were put down by troops in 1831."),
        own("The riots were put down by troops in 1839.", "raw/town.txt"),
        True,
    ),
    _c(
        "R41-H10",
        own("The town was not bombed during the war."),
        own("The town was bombed during the war.", "raw/town.txt"),
        True,
    ),
    _c(
        "R41-H11",
        own("Over 2,000 people attended the opening ceremony."),
        own("About 500 people attended the opening ceremony.", "raw/town.txt"),
        True,
    ),
    _c(
        "R41-H12",
        own("The school was attended by 150 pupils, most of them girls."),
        own("The school was attended by 320 pupils.", "raw/town.txt"),
        True,
    ),
    _c(
        "R41-L1",
        own("The museum, the library and the town hall were all opened in 1894."),
        own("The library was opened in 1901.", "raw/town.txt"),
        True,
    ),
    _c(
        "R41-L2",
        own("The library, like the baths, opened in 1894."),
        own("The library opened in 1901.", "raw/town.txt"),
        True,
    ),
    _c(
        "R41-L3",
        own("Both the library and the baths opened in 1894."),
        own("The library opened in 1901.", "raw/town.txt"),
        True,
    ),
    _c(
        "R41-L4",
        own("The baths opened in 1894, the library in 1895."),
        own("The library opened in 1901.", "raw/town.txt"),
        True,
    ),
    _c(
        "R41-E1",
        own("All the mills except the Low Mill closed in 1930."),
        own("The Low Mill closed in 1930.", "raw/town.txt"),
        True,
    ),
    _c(
        "R41-E2",
        own("The bridge is open to all traffic except lorries."),
        own("The bridge is not open to cars.", "raw/town.txt"),
        True,
    ),
    _c(
        "R41-N1",
        own("The hospital has two hundred and fifty beds."),
        own("The hospital has 600 beds.", "raw/town.txt"),
        True,
    ),
    _c(
        "R41-N2",
        own("The hospital has a quarter of a thousand beds."),
        own("The hospital has 600 beds.", "raw/town.txt"),
        True,
    ),
    _c(
        "R41-N3",
        own("The spire rises sixty-two metres."),
        own("The spire rises 48 metres.", "raw/town.txt"),
        True,
    ),
    _c(
        "R41-N4",
        own("The spire is sixty-two metres high."),
        own("The spire is 48 metres high.", "raw/town.txt"),
        True,
    ),
    _c(
        "R41-N5",
        own("The bell weighs two and a half tonnes."),
        own("The bell weighs 4 tonnes.", "raw/town.txt"),
        True,
    ),
    _c("R41-N6", own("The bell weighs 2.5 t."), own("The bell weighs 4 t.", "raw/town.txt"), True),
    _c(
        "R41-N7",
        own("The bell weighs 2,500 kilograms."),
        own("The bell weighs 4 tonnes.", "raw/town.txt"),
        True,
    ),
    _c(
        "R41-R1",
        own("The bridge took between three and four years to build."),
        own("The bridge took seven years to build.", "raw/town.txt"),
        True,
    ),
    _c(
        "R41-R2",
        own("The bridge is 300–350 metres long."),
        own("The bridge is 500 metres long.", "raw/town.txt"),
        True,
    ),
    _c(
        "R41-R3",
        own("The bridge is 300 to 350 m long."),
        own("The bridge is 500 metres long.", "raw/town.txt"),
        True,
    ),
    _c(
        "R41-R4",
        own("The bridge was built in the 1820s."),
        own("The bridge was built in 1846.", "raw/town.txt"),
        True,
    ),
    _c(
        "R41-R5",
        own("The bridge was built in the early 19th century."),
        own("The bridge was built in 1890.", "raw/town.txt"),
        True,
    ),
    _c(
        "R41-R6",
        own("The bridge was built before 1800."),
        own("The bridge was built in 1846.", "raw/town.txt"),
        True,
    ),
    _c(
        "R41-R7",
        own("The bridge was built no later than 1800."),
        own("The bridge was built in 1846.", "raw/town.txt"),
        True,
    ),
    _c(
        "R41-PV1",
        own("The foundation stone was laid in 1875 by the Duke of Kent."),
        own("The foundation stone was laid in 1878.", "raw/town.txt"),
        True,
    ),
    _c(
        "R41-PV2",
        own("The charter was granted to the town by King John in 1207."),
        own("The charter was granted in 1215.", "raw/town.txt"),
        True,
    ),
    _c(
        "R41-PV3",
        own("King John granted the town its charter in 1207."),
        own("The town was granted its charter in 1215.", "raw/town.txt"),
        True,
    ),
    _c(
        "R41-PV4",
        own("The town's charter dates from 1207."),
        own("The town's charter was granted in 1215.", "raw/town.txt"),
        True,
    ),
    _c(
        "R41-DN1",
        own("The canal was never completed."),
        own("The canal was completed in 1801.", "raw/town.txt"),
        True,
    ),
    _c(
        "R41-DN2",
        own("The canal has never been drained."),
        own("The canal was drained in 1956.", "raw/town.txt"),
        True,
    ),
    _c(
        "R41-DN3",
        own("The canal was not drained until 1956."),
        own("The canal was drained in 1948.", "raw/town.txt"),
        True,
    ),
    _c(
        "R41-DN4",
        own("No one died in the flood of 1953."),
        own("Twelve people died in the flood of 1953.", "raw/town.txt"),
        True,
    ),
    _c(
        "R41-DN5",
        own("Nobody was killed when the bridge collapsed."),
        own("Four people were killed when the bridge collapsed.", "raw/town.txt"),
        True,
    ),
    _c(
        "R41-DN6",
        own("The bridge has not collapsed."),
        own("The bridge collapsed in 1879.", "raw/town.txt"),
        True,
    ),
    _c(
        "R41-DN7",
        own("The station is not staffed."),
        own("The station is staffed.", "raw/town.txt"),
        True,
    ),
    _c(
        "R41-DN8",
        own("The bank is no longer independent."),
        own("The bank is independent.", "raw/town.txt"),
        True,
    ),
    _c(
        "R41-DN9",
        own("The club has not won the county cup."),
        own("The club won the county cup in 1921.", "raw/town.txt"),
        True,
    ),
    _c(
        "R41-DU1",
        own("The journey by coach took two days."),
        own("The journey by coach took 12 hours.", "raw/town.txt"),
        True,
    ),
    _c(
        "R41-DU2",
        own("The voyage lasted 3 months."),
        own("The voyage lasted 40 days.", "raw/town.txt"),
        True,
    ),
    _c(
        "R41-DU3",
        own("The trial lasted a fortnight."),
        own("The trial lasted 30 days.", "raw/town.txt"),
        True,
    ),
    _c(
        "R41-DU4",
        own("The dig lasted three weeks."),
        own("The dig lasted 50 days.", "raw/town.txt"),
        True,
    ),
    _c(
        "R41-PR1",
        own("Hale designed the waterworks. He was born in 1821."),
        own("Thomas Hale was born in 1824.", "raw/town.txt"),
        True,
    ),
    _c(
        "R41-PR2",
        own("Its spire is 62 metres high."),
        own("The spire of St Peter's is 48 metres high.", "raw/town.txt"),
        True,
    ),
    _c(
        "R41-BUT1",
        own("The school was founded in 1552 but did not admit girls."),
        own("The school was founded in 1560.", "raw/town.txt"),
        True,
    ),
    _c(
        "R41-BUT2",
        own("The school admitted girls, but only from 1905."),
        own("The school admitted girls from 1920.", "raw/town.txt"),
        True,
    ),
    _c(
        "R41-AG1",
        own("The club, aged 40 years, has 300 members."),
        own("The club has 120 members.", "raw/town.txt"),
        True,
    ),
    _c(
        "R41-PC1",
        own("Unemployment in the town reached 24 per cent in 1932."),
        own("Unemployment in the town reached 15 per cent in 1932.", "raw/town.txt"),
        True,
    ),
    _c(
        "R41-PC2",
        own("Unemployment in the town reached 24% in 1932."),
        own("Unemployment in the town reached 15% in 1932.", "raw/town.txt"),
        True,
    ),
    _c(
        "R41-T1b",
        own("The tide rises 12 metres at springs."),
        own("The tide rises 7 metres at springs.", "raw/town.txt"),
        True,
    ),
    _c(
        "R41-T2b",
        own("Copper melts at 1,085 °C."),
        own("Copper melts at 960 °C.", "raw/town.txt"),
        True,
    ),
    _c(
        "R41-T3b",
        own("Copper melts at 1085 degrees."),
        own("Copper melts at 960 degrees.", "raw/town.txt"),
        True,
    ),
    _c(
        "R41-T4b",
        own("The comet returns every 76 years."),
        own("The comet returns every 72 years.", "raw/town.txt"),
        True,
    ),
    _c(
        "R41-T5b",
        own("The comet was last seen in 1986."),
        own("The comet was last seen in 1910.", "raw/town.txt"),
        True,
    ),
    _c(
        "R41-F1",
        own("The town had 12,400 inhabitants in 1901."),
        own("The town had 18,900 inhabitants in 1951.", "raw/town.txt"),
        False,
    ),
    _c(
        "R41-F2",
        own("The population was 12,400 at the 1901 census."),
        own("The population was 18,900 at the 1951 census.", "raw/town.txt"),
        False,
    ),
    _c(
        "R41-F3",
        own("By 1951 the population had risen to 18,900."),
        own("The population was 12,400 in 1901.", "raw/town.txt"),
        False,
    ),
    _c(
        "R41-F4",
        own("The football club had 300 members in its first season."),
        own("The football club has 1,200 members.", "raw/town.txt"),
        False,
    ),
    _c(
        "R41-F5",
        own("Membership of the society fell to 800 after the war."),
        own("The society had 1,200 members in 1900.", "raw/town.txt"),
        False,
    ),
    _c(
        "R41-F6",
        own("The railway carried 2 million passengers in 1950."),
        own("The railway carried 500,000 passengers in 1920.", "raw/town.txt"),
        False,
    ),
    _c(
        "R41-F7",
        own("In winter the bus runs every two hours."),
        own("The bus runs every 30 minutes.", "raw/town.txt"),
        False,
    ),
    _c(
        "R41-F8",
        own("The library opens at 9 on Saturdays."),
        own("The library opens at 10.", "raw/town.txt"),
        False,
    ),
    _c(
        "R41-F9",
        own("During the summer holidays the school is closed."),
        own("The school is open.", "raw/town.txt"),
        False,
    ),
    _c(
        "R41-F10",
        own("St Peter's School was founded in 1552."),
        own("St Peter's Church was founded in 1120.", "raw/town.txt"),
        False,
    ),
    _c(
        "R41-F11",
        own("The Old Bridge was built in 1340."),
        own("The New Bridge was built in 1932.", "raw/town.txt"),
        False,
    ),
    _c(
        "R41-F12",
        own("Thomas Hale junior was born in 1851."),
        own("Thomas Hale was born in 1821.", "raw/town.txt"),
        False,
    ),
    _c(
        "R41-F13",
        own("The North Mill employed 300 workers."),
        own("The South Mill employed 120 workers.", "raw/town.txt"),
        False,
    ),
    _c(
        "R41-F14",
        own("The first town hall burned down in 1820."),
        own("The town hall was built in 1877.", "raw/town.txt"),
        False,
    ),
    _c(
        "R41-F15",
        own("The present church was built in 1860."),
        own("The church was built in 1120.", "raw/town.txt"),
        False,
    ),
    _c(
        "R41-F16",
        own("The original station was opened in 1847."),
        own("The station was rebuilt in 1880.", "raw/town.txt"),
        False,
    ),
    _c(
        "R41-F17",
        own("The town's second railway station opened in 1862."),
        own("The town's railway station opened in 1847.", "raw/town.txt"),
        False,
    ),
    _c(
        "R41-F18",
        own("The cathedral's nave was completed in 1220."),
        own("The cathedral was completed in 1310.", "raw/town.txt"),
        False,
    ),
    _c(
        "R41-F19",
        own("The castle's keep is 30 metres high."),
        own("The castle's curtain wall is 12 metres high.", "raw/town.txt"),
        False,
    ),
    _c(
        "R41-F20",
        own("The west tower of the church is 40 metres high."),
        own("The church is 25 metres high.", "raw/town.txt"),
        False,
    ),
    _c(
        "R41-F21",
        own("The canal's summit pound is 3 miles long."),
        own("The canal is 22 miles long.", "raw/town.txt"),
        False,
    ),
    _c(
        "R41-F22",
        own("The hospital's maternity wing has 40 beds."),
        own("The hospital has 250 beds.", "raw/town.txt"),
        False,
    ),
    _c(
        "R41-F23",
        own("The main platform is 300 metres long."),
        own("The station is 500 metres long.", "raw/town.txt"),
        False,
    ),
    _c(
        "R41-F24",
        own("The library once held 40,000 volumes."),
        own("The library holds 85,000 volumes.", "raw/town.txt"),
        False,
    ),
    _c(
        "R41-F25",
        own("The library held 40,000 volumes when it opened."),
        own("The library holds 85,000 volumes.", "raw/town.txt"),
        False,
    ),
    _c(
        "R41-F26",
        own("The town no longer has a railway station."),
        own("The town had a railway station from 1847 to 1964.", "raw/town.txt"),
        False,
    ),
    _c(
        "R41-F27",
        own("The market was held on Tuesdays until 1900."),
        own("The market is held on Fridays.", "raw/town.txt"),
        False,
    ),
    _c(
        "R41-F28",
        own("The mill is no longer powered by steam."),
        own("The mill was powered by steam from 1850.", "raw/town.txt"),
        False,
    ),
    _c(
        "R41-F29",
        own("The brass band had 25 members at its founding in 1870."),
        own("The brass band has 40 members.", "raw/town.txt"),
        False,
    ),
    _c(
        "R41-F30",
        own("The ferry no longer runs."),
        own("The ferry ran from 1850 to 1932.", "raw/town.txt"),
        False,
    ),
    _c(
        "R41-F31",
        own("The spire is about 60 metres high."),
        own("The spire is 62 metres high.", "raw/town.txt"),
        False,
    ),
    _c(
        "R41-F32",
        own("The town has some 19,000 inhabitants."),
        own("The town has 18,900 inhabitants.", "raw/town.txt"),
        False,
    ),
    _c(
        "R41-F33",
        own("The canal is roughly 14 miles long."),
        own("The canal is 14.3 miles long.", "raw/town.txt"),
        False,
    ),
    _c(
        "R41-F34",
        own("The moon is about 384,000 km from the Earth."),
        own("The moon is 384,400 km from the Earth.", "raw/town.txt"),
        False,
    ),
    _c(
        "R41-F35",
        own("The keep was built around 1120."),
        own("The keep was built in 1123.", "raw/town.txt"),
        False,
    ),
    _c(
        "R41-F36",
        own("The bridge is nearly 2 km long."),
        own("The bridge is 1,950 metres long.", "raw/town.txt"),
        False,
    ),
    _c(
        "R41-F37",
        own("The hall was built in the late 1870s."),
        own("The hall was built in 1877.", "raw/town.txt"),
        False,
    ),
    _c(
        "R41-F38",
        own("The hall was built in the 19th century."),
        own("The hall was built in 1877.", "raw/town.txt"),
        False,
    ),
    _c(
        "R41-F39",
        own("The mill employed over 300 workers."),
        own("The mill employed 320 workers.", "raw/town.txt"),
        False,
    ),
    _c(
        "R41-F40",
        own("Half the town's inhabitants died in the plague of 1349."),
        own("About 1,000 of the town's inhabitants died in the plague of 1349.", "raw/town.txt"),
        False,
    ),
    _c(
        "R41-F41",
        own("The spire is 62 metres high."),
        own("The spire is 203 feet high.", "raw/town.txt"),
        False,
    ),
    _c(
        "R41-F42",
        own("The runway is 1.8 km long."),
        own("The runway is 1,800 metres long.", "raw/town.txt"),
        False,
    ),
    _c(
        "R41-F43",
        own("The journey takes 90 minutes."),
        own("The journey takes an hour and a half.", "raw/town.txt"),
        False,
    ),
    _c(
        "R41-F44",
        own("The journey takes 1.5 hours."),
        own("The journey takes 90 minutes.", "raw/town.txt"),
        False,
    ),
    _c(
        "R41-F45",
        own("The bell weighs 2 tonnes."),
        own("The bell weighs 2,000 kg.", "raw/town.txt"),
        False,
    ),
    _c(
        "R41-F46",
        own("The siege lasted two years."),
        own("The siege lasted 24 months.", "raw/town.txt"),
        False,
    ),
    _c(
        "R41-F47",
        own("The building works took 18 months."),
        own("The building works took a year and a half.", "raw/town.txt"),
        False,
    ),
    _c(
        "R41-F48",
        own("The canal is 22 miles long."),
        own("The canal is 35 km long.", "raw/town.txt"),
        False,
    ),
    _c(
        "R41-F49",
        own("The outbreak lasted six weeks."),
        own("The outbreak lasted 42 days.", "raw/town.txt"),
        False,
    ),
    _c(
        "R41-F50",
        own("The mill employed between 300 and 350 workers."),
        own("The mill employed 320 workers.", "raw/town.txt"),
        False,
    ),
    _c(
        "R41-F51",
        own("The hall was built between 1875 and 1877."),
        own("The hall was completed in 1877.", "raw/town.txt"),
        False,
    ),
    _c(
        "R41-F52",
        own("The hall was built in 1875-77."),
        own("The hall was built in 1876.", "raw/town.txt"),
        False,
    ),
    _c(
        "R41-F53",
        own("The hall was built in 1875–1877."),
        own("The hall was completed in 1877.", "raw/town.txt"),
        False,
    ),
    _c(
        "R41-F54",
        own("The station has 3 to 5 platforms depending on the season."),
        own("The station has five platforms.", "raw/town.txt"),
        False,
    ),
    _c(
        "R41-F55",
        own("Eliza Crane was mayor from 1902 to 1908."),
        own("Eliza Crane was elected mayor in 1902.", "raw/town.txt"),
        False,
    ),
    _c(
        "R41-F56",
        own("Eliza Crane was mayor from 1902 to 1908."),
        own("Eliza Crane was mayor in 1905.", "raw/town.txt"),
        False,
    ),
    _c(
        "R41-F57",
        own("The station was built in 1847 and electrified in 1958."),
        own("The station was built in 1847.", "raw/town.txt"),
        False,
    ),
    _c(
        "R41-F58",
        own("The bridge was designed in 1824 and opened in 1826."),
        own("The bridge opened in 1826.", "raw/town.txt"),
        False,
    ),
    _c(
        "R41-F59",
        own("The school was founded in 1552 and moved to its present site in 1870."),
        own("The school was founded in 1552.", "raw/town.txt"),
        False,
    ),
    _c(
        "R41-F60",
        own("The mill was sold in 1905."),
        own("The mill was built in 1790.", "raw/town.txt"),
        False,
    ),
    _c(
        "R41-F61",
        own("Thomas Hale died in 1889, aged 68."),
        own("Thomas Hale was born in 1821.", "raw/town.txt"),
        False,
    ),
    _c(
        "R41-F62",
        own("Thomas Hale was 68 when he died."),
        own("Thomas Hale died in 1889.", "raw/town.txt"),
        False,
    ),
    _c(
        "R41-F63",
        own("The cooperative society opened its first shop in 1863."),
        own("The cooperative society was founded in 1862.", "raw/town.txt"),
        False,
    ),
    _c(
        "R41-F64",
        own("The hospital was extended in 1930 to 250 beds."),
        own("The hospital opened in 1890 with 60 beds.", "raw/town.txt"),
        False,
    ),
    _c(
        "R41-F65",
        own("The castle was besieged in 1644 and slighted in 1646."),
        own("The castle was besieged in 1644.", "raw/town.txt"),
        False,
    ),
    _c(
        "R41-F66",
        own("The speed of sound in water is 1,480 metres per second."),
        own("The speed of sound in air is 343 metres per second.", "raw/town.txt"),
        False,
    ),
    _c(
        "R41-F67",
        own("Water boils at 70 degrees Celsius on Everest."),
        own("Water boils at 100 degrees Celsius at sea level.", "raw/town.txt"),
        False,
    ),
    _c("R41-F68", own("Mars has two moons."), own("Mercury has no moons.", "raw/town.txt"), False),
    _c(
        "R41-F69",
        own("Carbon-12 is stable."),
        own("Carbon-14 has a half-life of 5,730 years.", "raw/town.txt"),
        False,
    ),
    _c(
        "R41-F70",
        own("The church was not damaged in the fire of 1666."),
        own("The church was damaged by bombing in 1941.", "raw/town.txt"),
        False,
    ),
    _c(
        "R41-F71",
        own("The town was not bombed in the First World War."),
        own("The town was bombed in 1941.", "raw/town.txt"),
        False,
    ),
    _c(
        "R41-F72",
        own("The bank did not close during the Depression."),
        own("The bank closed in 1991.", "raw/town.txt"),
        False,
    ),
    _c(
        "R41-G1",
        own("The 1953 flood drowned twelve people."),
        own("The 1947 flood drowned forty people.", "raw/town.txt"),
        False,
    ),
    _c(
        "R41-G2",
        own("In the flood of 1953 twelve people drowned."),
        own("In the flood of 1947 forty people drowned.", "raw/town.txt"),
        False,
    ),
    _c(
        "R41-G3",
        own("The spire is 62 metres high and 8 metres wide at its base."),
        own("The spire is 62 metres high.", "raw/town.txt"),
        False,
    ),
    _c(
        "R41-G4",
        own("The bridge is 300 metres long and 12 metres wide."),
        own("The bridge is 12 metres wide.", "raw/town.txt"),
        False,
    ),
    _c(
        "R41-G5",
        own("The nave is 40 metres long."),
        own("The church is 60 metres long.", "raw/town.txt"),
        False,
    ),
    _c(
        "R41-G6",
        own("The former town hall was built in 1790."),
        own("The town hall was built in 1877.", "raw/town.txt"),
        False,
    ),
    _c(
        "R41-G7",
        own("The new town hall was built in 1877."),
        own("The old town hall was built in 1790.", "raw/town.txt"),
        False,
    ),
    _c(
        "R41-G8",
        own("Mary Hale was born in 1850."),
        own("Thomas Hale was born in 1821.", "raw/town.txt"),
        False,
    ),
    _c(
        "R41-G9",
        own("Hale's son was born in 1851."),
        own("Thomas Hale was born in 1821.", "raw/town.txt"),
        False,
    ),
    _c(
        "R41-G10",
        own("The station's footbridge was built in 1890."),
        own("The station was built in 1847.", "raw/town.txt"),
        False,
    ),
    _c(
        "R41-G11",
        own("The station was built in 1847 and rebuilt in 1880."),
        own("The station was rebuilt in 1880.", "raw/town.txt"),
        False,
    ),
    _c(
        "R41-G12",
        own("The mill was sold in 1905 for £3,000."),
        own("The mill was sold in 1880 for £1,200.", "raw/town.txt"),
        False,
    ),
    _c(
        "R41-G13",
        own("The school had 150 pupils in 1900 and 320 in 1950."),
        own("The school had 320 pupils in 1950.", "raw/town.txt"),
        False,
    ),
    _c(
        "R41-G14",
        own("The school has about 300 pupils."),
        own("The school had 150 pupils in 1900.", "raw/town.txt"),
        False,
    ),
    _c(
        "R41-G15",
        own("The club's ground holds 5,000 spectators."),
        own("The club has 300 members.", "raw/town.txt"),
        False,
    ),
    _c(
        "R41-G16",
        own("The bus to Castleford takes 40 minutes on Sundays."),
        own("The bus to Castleford takes 30 minutes.", "raw/town.txt"),
        False,
    ),
    _c(
        "R41-G17",
        own("The bus to Leeds takes 40 minutes."),
        own("The bus to Castleford takes 30 minutes.", "raw/town.txt"),
        False,
    ),
    _c(
        "R41-G18",
        own("The express train to York takes 30 minutes."),
        own("The train to York takes 45 minutes.", "raw/town.txt"),
        False,
    ),
    _c(
        "R41-G19",
        own("The tower clock was installed in 1880."),
        own("The tower was built in 1860.", "raw/town.txt"),
        False,
    ),
    _c(
        "R41-G20",
        own("The church bells were recast in 1902."),
        own("The church was built in 1120.", "raw/town.txt"),
        False,
    ),
    _c(
        "R41-G21",
        own("The town was granted a market in 1290 and a fair in 1305."),
        own("The town was granted a fair in 1305.", "raw/town.txt"),
        False,
    ),
    _c(
        "R41-G22",
        own("The population doubled between 1801 and 1851."),
        own("The population was 12,400 in 1901.", "raw/town.txt"),
        False,
    ),
    _c(
        "R41-G23",
        own("The railway was extended to Whitby in 1865."),
        own("The railway reached the town in 1847.", "raw/town.txt"),
        False,
    ),
    _c(
        "R41-G24",
        own("The canal's Lancaster arm opened in 1819."),
        own("The canal opened in 1797.", "raw/town.txt"),
        False,
    ),
    _c(
        "R41-G25",
        own("The reservoir was enlarged in 1930 to hold 9 million litres."),
        own("The reservoir held 4 million litres when it was built in 1880.", "raw/town.txt"),
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
