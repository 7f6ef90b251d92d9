"""The whole claim ledger as one self-contained HTML page (``wikigate report html``).

Each page's claims and gap markers as cards, by status (no page bodies: the ledger keeps
the claims, not the pages). Up to ``LAZY_AT`` claims every card is markup; past it (the
10k-page wiki's 100,000 claims would be ~70 MB of cards) the claims travel as gzip'd
JSON in one ``<pre>`` (base64: nothing in it can close an element) and the page's script
draws ``PER_PAGE`` wiki pages at a time with ``textContent`` only (never parsed as
markup), filtered by status and page: the file stays under 20 MB and opens quickly.
"""

from __future__ import annotations

import base64
import gzip
import json
from collections import Counter
from collections.abc import Sequence
from typing import Any

from wikigate.htmlpage import esc, page

from .html import (
    CITATION_FIELDS,
    DOUBTFUL_VOTES,
    FAILING_VOTES,
    STATUSES,
    STYLE,
    ClaimView,
    PageView,
    render_views,
)

# the ledger's column of each citation field of a claim's view
COLUMNS = dict(
    zip(
        CITATION_FIELDS,
        (
            "label",
            "source",
            "source_page",
            "source_quote",
            "source_quote_offset",
            "source_quote_hash",
        ),
        strict=True,
    )
)
LAZY_AT = 5000  # claims: past this, the compact page
# where a page's text would be: the ledger reads no page (PageView's own note, "not in this
# commit (deleted, or not read)", is a verification's, and called every page gone: trial 41)
NO_BODY = "its claims on main, as the claim ledger keeps them (beside); its text is not shown here"
PER_PAGE = 50  # wiki pages drawn at a time in the compact page


# a claim's state on main (wikigate health, docs/health.md), its card's last reason
STATE_REASONS = {
    "fresh": "state: fresh",
    "stale": "state: stale (a source it cites changed; its quote is no longer in it)",
    "contested": "state: contested (one side of an open contradiction)",
    "unverified": "state: unverified (its quote is not at its anchor, or the judge's vote "
    "was not supports)",
    "disputed": "state: disputed (kept as history in a ::: disputed block; no finding)",
}


def status_of(r: dict[str, Any]) -> tuple[str, list[str]]:
    """A ledger row's status: its anchor, the judge's last vote, a frozen entry; its
    state on main (``state``, when known) is its last reason (stale: its first)."""
    status, reasons = "pass", []
    anchor = r["anchor_status"]
    if anchor == "mismatched":
        status, reasons = "fail", ["the quote is not at its anchor"]
    elif anchor == "unanchored":
        status, reasons = "warn", ["no anchor"]
    vote = r.get("judge_vote")
    if vote in FAILING_VOTES:
        status = "fail"
    elif vote in DOUBTFUL_VOTES and status == "pass":
        status = "warn"
    if r.get("frozen") and status == "pass":
        status, reasons = "frozen", [f"frozen by [ledger] {r['frozen']}"]
    state = r.get("state")
    if state == "stale":  # why its quote is not at its anchor: first
        reasons = [STATE_REASONS[state], *reasons]
    elif state in STATE_REASONS:
        reasons = [*reasons, STATE_REASONS[state]]
    return status, reasons


def ledger_html(
    rows: Sequence[dict[str, Any]],
    gaps: Sequence[dict[str, Any]],
    *,
    title: str,
    lazy_at: int = LAZY_AT,
) -> str:
    pages = len({r["page"] for r in rows} | {g["page"] for g in gaps})
    heading = f"<p>{len(rows)} claims, {len(gaps)} gap markers on {pages} pages</p>"
    heading += states_line(Counter(r["state"] for r in rows if r.get("state")))
    if len(rows) > lazy_at:
        return _compact(rows, gaps, title=title, heading=heading)
    views: dict[str, PageView] = {}
    for r in rows:
        status, reasons = status_of(r)
        spot = ClaimView(
            "claim",
            r["page"],
            r["line"],
            r["claim"],
            status=status,
            reasons=reasons,
            vote=r.get("judge_vote"),
            vote_reason=r.get("judge_reason") or "",
            **{name: r[column] for name, column in COLUMNS.items()},
        )
        views.setdefault(r["page"], PageView(r["page"], None, note=NO_BODY)).spots.append(spot)
    for g in gaps:
        views.setdefault(g["page"], PageView(g["page"], None, note=NO_BODY)).spots.append(
            ClaimView("gap", g["page"], g["line"], g["reason"], status="gap")
        )
    return render_views(list(views.values()), title=title, findings=[], heading=heading)


def states_line(states: Counter[str]) -> str:
    """The claims' states on main, counted (docs/health.md), as a paragraph; "" when unknown."""
    if not states:
        return ""
    shown = (
        "fresh",
        "stale",
        "contested",
        "unverified",
        *(("disputed",) if states["disputed"] else ()),
    )
    said = ", ".join(f"{states[s]} {s}" for s in shown)
    return f"<p>states: {esc(said)}</p>"


def _compact(
    rows: Sequence[dict[str, Any]], gaps: Sequence[dict[str, Any]], *, title: str, heading: str
) -> str:
    by_page: dict[str, list[list[Any]]] = {}
    counts: Counter[str] = Counter()
    for r in rows:
        status, reasons = status_of(r)
        counts[status] += 1
        by_page.setdefault(r["page"], []).append(
            [
                r["label"],
                r["line"],
                status,
                r["claim"],
                r["source"],
                r["source_page"],
                r["source_quote"],
                r["source_quote_offset"],
                r.get("judge_vote"),
                r.get("judge_reason"),
                reasons[0] if reasons else None,
            ]
        )
    gap_rows: dict[str, list[list[Any]]] = {}
    for g in gaps:
        counts["gap"] += 1
        gap_rows.setdefault(g["page"], []).append([g["line"], g["reason"]])
    data = [[p, by_page.get(p, []), gap_rows.get(p, [])] for p in sorted(by_page | gap_rows)]
    return compact_page(
        json.dumps(data, ensure_ascii=False).encode(), counts, title=title, heading=heading
    )


def compact_page(data: bytes, counts: Counter[str], *, title: str, heading: str) -> str:
    """The compact page around ``data``: the JSON list of ``[page, claims, gaps]``, each
    claim ``[label, line, status, claim, source, pdf page, quote, offset, vote, reason,
    why]``, each gap ``[line, reason]`` (``ledger_html`` makes it; the ledger's query
    makes it in SQLite for a big ledger: wikigate/ledgerview.py)."""
    packed = base64.b64encode(gzip.compress(data, compresslevel=1, mtime=0)).decode()
    badges = " ".join(f'<span class="badge s-{s}">{s} {counts.get(s, 0)}</span>' for s in STATUSES)
    options = "".join(f'<option value="{s}">{s}</option>' for s in STATUSES)
    body = (
        f'<header><h1>{esc(title)}</h1>{heading}<p class="counts">{badges}</p></header>'
        '<nav class="filters"><label>status <select id="f-status"><option value="">all'
        f"</option>{options}</select></label> "
        '<label>page <input id="f-page" type="search" placeholder="part of a path"></label> '
        '<button id="prev" type="button">previous</button> <span id="where">reading…</span> '
        '<button id="next" type="button">next</button></nav>'
        '<main id="pages"></main>'
        f'<pre id="ledger-data" hidden>{packed}</pre>'
        '<p class="keys">Keys: j / k next / previous claim; n / p next / previous pages.</p>'
    )
    return page(title, body, style=STYLE, script=COMPACT_SCRIPT)


COMPACT_SCRIPT = (
    """
(function(){
var PER="""
    + str(PER_PAGE)
    + """;
var data=[],shown=[],at=0,cur=-1,f={status:"",page:""};
var where=document.getElementById("where"),root=document.getElementById("pages");
function mk(tag,cls,text){var e=document.createElement(tag);if(cls)e.className=cls;
 if(text!==undefined&&text!==null)e.textContent=String(text);return e;}
function card(path,c){
 var d=mk("div","card s-"+c[2]);d.setAttribute("data-status",c[2]);
 var top=mk("div","top");top.appendChild(mk("span","badge s-"+c[2],c[2]));
 top.appendChild(document.createTextNode(" claim · line "+c[1]+" · "));
 top.appendChild(mk("code",null,"[^"+c[0]+"]"));d.appendChild(top);
 d.appendChild(mk("p","claim",c[3]));
 var src=mk("div","src");src.appendChild(mk("code",null,c[4]+(c[5]?", p."+c[5]:"")));
 src.appendChild(mk("span","anchor",c[7]===null?" no anchor":" @"+c[7]));d.appendChild(src);
 var q=mk("blockquote","window");q.appendChild(mk("mark","quote",c[6]));d.appendChild(q);
 if(c[8]){var v=mk("div","vote","judge: ");v.appendChild(mk("b",null,c[8]));
  v.appendChild(document.createTextNode(" "+(c[9]||"")));d.appendChild(v);}
 if(c[10])d.appendChild(mk("p","reason",c[10]));
 return d;
}
function gap(g){var d=mk("div","card s-gap");d.setAttribute("data-status","gap");
 var top=mk("div","top");top.appendChild(mk("span","badge s-gap","gap"));
 top.appendChild(document.createTextNode(" gap · line "+g[0]));d.appendChild(top);
 d.appendChild(mk("p","claim",g[1]));return d;}
function filter(){
 shown=[];
 data.forEach(function(p){
  if(f.page&&p[0].indexOf(f.page)<0)return;
  var cs=p[1].filter(function(c){return !f.status||c[2]===f.status;});
  var gs=(!f.status||f.status==="gap")?p[2]:[];
  if(cs.length||gs.length)shown.push([p[0],cs,gs]);
 });
 at=0;draw();
}
function draw(){
 root.textContent="";cur=-1;
 shown.slice(at,at+PER).forEach(function(p){
  var s=mk("section","page");s.setAttribute("data-page",p[0]);s.appendChild(mk("h2",null,p[0]));
  var side=mk("div","side");
  p[1].sort(function(a,b){return a[1]-b[1];});
  p[1].forEach(function(c){side.appendChild(card(p[0],c));});
  p[2].forEach(function(g){side.appendChild(gap(g));});
  s.appendChild(side);root.appendChild(s);
 });
 where.textContent=shown.length?("pages "+(at+1)+"–"+Math.min(at+PER,shown.length)+" of "+shown.length):"nothing matches";
}
function move(n){var next=at+n*PER;if(next>=0&&next<shown.length){at=next;draw();window.scrollTo(0,0);}}
document.getElementById("prev").addEventListener("click",function(){move(-1);});
document.getElementById("next").addEventListener("click",function(){move(1);});
document.getElementById("f-status").addEventListener("change",function(e){f.status=e.target.value;filter();});
document.getElementById("f-page").addEventListener("input",function(e){f.page=e.target.value;filter();});
document.addEventListener("keydown",function(e){
 if(e.target&&/^(INPUT|SELECT|TEXTAREA)$/.test(e.target.tagName))return;
 if(e.key==="n"){move(1);return;}if(e.key==="p"){move(-1);return;}
 if(e.key!=="j"&&e.key!=="k")return;
 var list=root.querySelectorAll(".card");if(!list.length)return;
 if(cur>=0&&list[cur])list[cur].classList.remove("current");
 cur=e.key==="j"?Math.min(cur+1,list.length-1):Math.max(cur-1,0);
 list[cur].classList.add("current");list[cur].scrollIntoView({block:"center"});
});
var raw=atob(document.getElementById("ledger-data").textContent.trim());
var bytes=new Uint8Array(raw.length);for(var i=0;i<raw.length;i++)bytes[i]=raw.charCodeAt(i);
var stream=new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"));
new Response(stream).text().then(function(t){data=JSON.parse(t);filter();},
 function(err){where.textContent="cannot read the ledger: "+err;});
})();
"""
)

__all__ = ["LAZY_AT", "STATE_REASONS", "compact_page", "ledger_html", "status_of"]
