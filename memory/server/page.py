"""The web inspector: one server-rendered page, in Chinese or English by the persona's locale.

It shows, for one user, the active window, the hot memories with their significance now, the
tick at which each will be forgotten and its decay curve, the profile facts, the last
retrievals with each memory's score breakdown and the near misses below the cut, and the cold
tier with search and a restore button. Forget and restore call the REST API from a few lines of
JS; nothing is loaded from elsewhere.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from html import escape
from typing import Any
from urllib.parse import urlencode

from memory.server.svg import decay_curve
from memory.server.words import WORDS

SIMILARITY_BANDS = ((0.55, "sim_close"), (0.35, "sim_related"), (0.2, "sim_loose"), (-2.0, "sim_far"))
"""Plain words for a cosine, read off the default embedder: a question and its answer in one
language 0.5-0.6, across languages 0.25-0.5, small talk against a fact about 0.0-0.1."""

STYLE = """
body{font-family:system-ui,"Noto Sans CJK SC",sans-serif;margin:1.5rem;color:#222;max-width:75rem}
h1{font-size:1.4rem}h2{font-size:1.1rem;margin-top:1.6rem;border-bottom:1px solid #ddd}
table{border-collapse:collapse;width:100%;font-size:.9rem}td,th{border-bottom:1px solid #eee;
padding:.3rem .4rem;text-align:left;vertical-align:top}th{background:#f4f4f4}
.num{text-align:right;font-variant-numeric:tabular-nums}.miss td{color:#888}
.tag{font-size:.75rem;background:#eef;border-radius:3px;padding:0 .3rem}
button{cursor:pointer}nav a{margin-right:.8rem}.pre{white-space:pre-wrap}
"""

SCRIPT = """
async function act(button, method, url, question) {
  if (question && !window.confirm(question)) return;
  button.disabled = true;
  const answer = await fetch(url, {method: method, credentials: 'same-origin'});
  document.getElementById('status').textContent = answer.ok ? '' : (await answer.text());
  if (answer.ok) window.location.reload(); else button.disabled = false;
}
document.addEventListener('click', (event) => {
  const b = event.target.closest('button[data-act]');
  if (!b) return;
  const base = '/v1/personas/' + encodeURIComponent(b.dataset.persona) + '/memories/' +
    encodeURIComponent(b.dataset.id);
  const who = '?user_id=' + encodeURIComponent(b.dataset.user);
  if (b.dataset.act === 'forget') act(b, 'DELETE', base + who, b.dataset.confirm);
  else act(b, 'POST', base + '/restore' + who, null);
});
"""


def link(persona: str | None, user_id: str | None, query: str = "", lang: str | None = None) -> str:
    """The inspector's URL for a persona, a user, a cold-tier search and a page language."""
    pairs = (("persona", persona), ("user_id", user_id), ("q", query), ("lang", lang))
    params = {k: v for k, v in pairs if v}
    return "/inspect" + (f"?{urlencode(params)}" if params else "")


def local_time(moment: str) -> str:
    """An ISO time as this machine's local time, to the second, with its zone."""
    try:
        return datetime.fromisoformat(moment).astimezone().strftime("%Y-%m-%d %H:%M:%S %Z")
    except ValueError:
        return moment


def _num(value: Any, digits: int = 3) -> str:
    if value is None:
        return "–"
    if isinstance(value, float):
        return f"{value:.{digits}f}"
    return escape(str(value))


def _button(act: str, label: str, persona: str, user: str, memory_id: str, confirm: str = "") -> str:
    extra = f' data-confirm="{escape(confirm)}"' if confirm else ""
    return (
        f'<button data-act="{act}" data-persona="{escape(persona)}" data-user="{escape(user)}" '
        f'data-id="{escape(memory_id)}"{extra}>{escape(label)}</button>'
    )


def _table(head: Sequence[str], rows: Sequence[str], empty: str, cls: str = "") -> str:
    if not rows:
        return f"<p>{escape(empty)}</p>"
    cells = "".join(f"<th>{escape(h)}</th>" for h in head)
    return f'<table class="{cls}"><tr>{cells}</tr>{"".join(rows)}</table>'


def _layer(name: str | None, w: dict[str, str]) -> str:
    """A layer's name in the page's language, as a tag."""
    shown = w.get("active_layer" if name == "active" else str(name), str(name or ""))
    return f'<span class="tag">{escape(shown)}</span>'


def _hot(view: dict[str, Any], w: dict[str, str]) -> str:
    persona, user = view["persona"], view["user_id"]
    rows = []
    for m in view["hot"]:
        due = w["never"] if m["forget_tick"] is None else str(m["forget_tick"])
        curve = decay_curve(m["curve"], threshold=m["threshold"], label=w["curve"], axis=w["axis_tick"])
        rows.append(
            f'<tr data-memory="{escape(m["id"])}"><td>{_layer(m["layer"], w)}</td>'
            f'<td class="pre">{escape(m["note"] or m["content"])}</td>'
            f'<td class="num">{_num(m["current"])}</td>'
            f'<td class="num">{escape(due)}</td><td>{curve}</td>'
            f"<td>{_button('forget', w['forget'], persona, user, m['id'], w['confirm'])}</td></tr>"
        )
    head = [w["layer"], w["content"], w["now"], w["forget_at"], w["curve"], ""]
    return _table(head, rows, w["none"], "hot")


def _why(m: dict[str, Any], shown: dict[str, Any], w: dict[str, str], miss: bool) -> list[tuple[str, str]]:
    """``(css class, words)`` of the tags that say why a memory is in a retrieval, or not."""
    tags = [("revived", w["revived"])] if m["revived"] else []
    if miss:
        cap = shown.get("caps", {}).get(m["layer"])
        taken = sum(1 for hit in shown["memories"] if hit["layer"] == m["layer"])
        lowest = min((hit["score"] for hit in shown["memories"]), default=None)
        if cap is not None and taken >= cap and lowest is not None and m["score"] > lowest:
            tags.append(("over-cap", w["over_cap"].format(cap=cap)))
        return tags
    if m.get("pinned"):
        tags.append(("pinned", w["pinned"]))
    unmatched = not m.get("matched") and m.get("keyword_rank") is None
    if not shown.get("floor") and unmatched and _band(m.get("similarity")) in ("sim_far", "sim_loose"):
        tags.append(("free-slot", w["free_slot"]))
    return tags


def _scored_row(m: dict[str, Any], shown: dict[str, Any], w: dict[str, str], miss: bool) -> str:
    tags = "".join(
        f' <span class="tag {cls}">{escape(words)}</span>' for cls, words in _why(m, shown, w, miss)
    )
    return (
        f'<tr class="{"miss" if miss else "hit"}" data-memory="{escape(m["id"])}">'
        f"<td>{_layer(m['layer'], w)}</td>"
        f'<td class="pre">{escape(m["note"] or m["content"])}{tags}</td>'
        f'<td class="matched">{escape(" ".join(m.get("matched", [])))}</td>'
        f'<td class="num similarity">{_similarity(m.get("similarity"), w)}</td>'
        f'<td class="num">{_num(m["dense_rank"])}</td><td class="num">{_num(m["keyword_rank"])}</td>'
        f'<td class="num">{_num(m["score"], 4)}</td><td class="num">{_num(m["layer_weight"], 2)}</td>'
        f'<td class="num">{_num(m["significance"])}</td></tr>'
    )


def _band(value: float | None) -> str | None:
    """The plain-words key of a cosine similarity."""
    return None if value is None else next(word for bar, word in SIMILARITY_BANDS if value >= bar)


def _similarity(value: float | None, w: dict[str, str]) -> str:
    """A cosine similarity with its plain meaning."""
    band = _band(value)
    return "–" if value is None or band is None else f"{value:.2f} {escape(w[band])}"


def _caps(shown: dict[str, Any], w: dict[str, str]) -> str:
    caps = shown.get("caps") or {}
    listed = "、" if w is WORDS["zh"] else ", "
    places = listed.join(f"{w.get(layer, layer)} {cap}" for layer, cap in caps.items())
    return w["caps"].format(caps=places, top_k=shown.get("top_k", "–")) if caps else ""


def _floor(bar: dict[str, float] | None, w: dict[str, str]) -> str:
    if not bar:
        return w["no_floor"]
    return w["floor"].format(dense=bar["dense"], keywords=bar["with_keywords"])


def _retrievals(view: dict[str, Any], w: dict[str, str]) -> str:
    if not view["retrievals"]:
        return f"<p>{escape(w['none'])}</p>"
    head = [w["layer"], w["content"], w["matched"], w["similarity"], w["dense"], w["keyword"], w["score"]]
    head += [w["weight"], w["significance"]]
    blocks = []
    for shown in view["retrievals"]:
        rows = [_scored_row(m, shown, w, False) for m in shown["memories"]]
        if shown["near_misses"]:
            rows.append(f'<tr class="miss"><th colspan="9">{escape(w["near"])}</th></tr>')
            rows.extend(_scored_row(m, shown, w, True) for m in shown["near_misses"])
        legend = w["legend_rrf"] if shown.get("fusion") == "rrf" else w["legend_score"]
        legend += " " + w["legend_similarity"] + " " + _floor(shown.get("floor"), w)
        legend += " " + w["bridged"]
        caps = f'<p class="caps">{escape(_caps(shown, w))}</p>' if shown.get("caps") else ""
        active = shown.get("active") or ""
        window = (
            f"<details><summary>{escape(w['in_prompt'])}</summary>"
            f'<p class="pre">{escape(active)}</p></details>'
            if active
            else ""
        )
        blocks.append(
            f'<div class="retrieval"><p><b>{escape(w["query"])}:</b> {escape(shown["query"])} '
            f"<small>{escape(local_time(shown['at']))}</small></p>{caps}"
            f"{_table(head, rows, w['none'], 'scores')}<p><small>{escape(legend)}</small></p>{window}</div>"
        )
    return "".join(blocks)


def _cold(view: dict[str, Any], w: dict[str, str], query: str, lang: str | None) -> str:
    persona, user = view["persona"], view["user_id"]
    kept = f'<input type="hidden" name="lang" value="{escape(lang)}">' if lang else ""
    form = (
        f'<form method="get" action="/inspect"><input type="hidden" name="persona" value="{escape(persona)}">'
        f'<input type="hidden" name="user_id" value="{escape(user)}">{kept}'
        f'<input name="q" value="{escape(query)}" placeholder="{escape(w["search"])}">'
        f'<button type="submit">{escape(w["search"])}</button></form>'
    )
    rows = [
        f'<tr data-memory="{escape(m["id"])}"><td>{_layer(m["origin"], w)}</td>'
        f'<td class="pre">{escape(m["note"] or m["content"])}</td>'
        f'<td class="num">{_num(m["significance"])}</td>'
        f"<td>{_button('restore', w['restore'], persona, user, m['id'])} "
        f"{_button('forget', w['forget'], persona, user, m['id'], w['confirm'])}</td></tr>"
        for m in view["cold"]
    ]
    return form + _table([w["layer"], w["content"], w["significance"], ""], rows, w["none"], "cold")


def _user_sections(
    view: dict[str, Any], w: dict[str, str], persona: str, query: str, lang: str | None
) -> list[str]:
    active = [
        f'<tr><td class="pre">{escape(i["user_input"])}</td><td class="pre">{escape(i["response"])}</td></tr>'
        for i in view["active"]
    ]
    facts = [
        f"<tr><td>{escape(f['key'])}</td><td>{escape(f['value'])}</td>"
        f"<td>{escape(w.get('source_' + f['source'], f['source']))}</td>"
        f"<td>{escape(local_time(f['since']) if f.get('since') else '–')}</td></tr>"
        for f in view["profile"]
    ]
    return [
        f'<p>{escape(w["tick"])}: <b id="tick">{view["tick"]}</b></p>',
        f"<h2>{escape(w['active'])}</h2>",
        _table([w["user"], persona], active, w["none"], "active"),
        f"<h2>{escape(w['hot'])}</h2>",
        _hot(view, w),
        f"<h2>{escape(w['profile'])}</h2>",
        _table([w["key"], w["value"], w["source"], w["since"]], facts, w["none"], "profile"),
        f"<h2>{escape(w['retrievals'])}</h2>",
        _retrievals(view, w),
        f"<h2>{escape(w['cold'])}</h2>",
        _cold(view, w, query, lang),
    ]


def render(
    personas: Sequence[str],
    persona: str,
    locale: str,
    view: dict[str, Any] | None,
    users: Sequence[str],
    query: str = "",
    lang: str | None = None,
) -> str:
    """The whole page: the persona and user pickers, then (with a user) every section. Its words
    are in the persona's ``locale``, or in ``lang`` (``"zh"``, ``"en"``) when one is asked for."""
    lang = lang if lang in WORDS else None
    shown = lang or (locale if locale in WORDS else "en")
    w = WORDS[shown]
    nav = "".join(f'<a href="{escape(link(p, None, lang=lang))}">{escape(p)}</a>' for p in personas)
    picked = view["user_id"] if view else ""
    other = "en" if shown == "zh" else "zh"
    switch = f'<a class="lang" href="{escape(link(persona, picked, query, other))}">{escape(w["switch"])}</a>'
    kept = f'<input type="hidden" name="lang" value="{escape(lang)}">' if lang else ""
    picker = (
        f'<form method="get" action="/inspect">{kept}'
        f'<input type="hidden" name="persona" value="{escape(persona)}">'
        f'<label>{escape(w["user"])} <input name="user_id" value="{escape(picked)}"></label> '
        f'<button type="submit">{escape(w["open"])}</button></form>'
    )
    body = [f"<nav>{escape(w['persona'])}: {nav} {switch}</nav>", picker, '<p id="status" role="alert"></p>']
    if view is None:
        listed = "".join(
            f'<li><a href="{escape(link(persona, u, lang=lang))}">{escape(u)}</a></li>' for u in users
        )
        body.append(f"<h2>{escape(w['users'])}</h2><ul>{listed}</ul>")
    else:
        body += _user_sections(view, w, persona, query, lang)
    html_lang = "zh-CN" if shown == "zh" else "en"
    return (
        f'<!doctype html><html lang="{html_lang}"><head><meta charset="utf-8">'
        f"<title>{escape(w['title'])} · {escape(persona)}</title><style>{STYLE}</style></head>"
        f"<body><h1>{escape(w['title'])} · {escape(persona)}</h1>{''.join(body)}"
        f"<script>{SCRIPT}</script></body></html>"
    )
