"""The web inspector in a real browser: Debian's headless Chromium, driven by Playwright (no
browser is downloaded), against a real server with real memories."""

from __future__ import annotations

import re
import shutil
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from helpers.http_server import running
from helpers.paths import REPO
from helpers.store import RECORD, budget
from memory import MemoryConfig
from memory.server.service import MemoryService

pytestmark = pytest.mark.browser

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
V1 = "/v1/personas/karin"
KEY = "inspector-key-3"


@pytest.fixture
def browser() -> Iterator[object]:
    from playwright.sync_api import sync_playwright

    assert Path(CHROMIUM).exists(), "Debian's chromium is missing: run `make browser` (make test does)"
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=CHROMIUM, headless=True)
        yield launched
        launched.close()


def _live(client: httpx.Client) -> None:
    """A user with hot memories, retrievals with near misses, and forgotten (cold) memories."""
    texts = ["Deployed the redis cluster on port 7000", "我每天早上喝咖啡", "周末去西湖散步", "三", "四"]
    for text in texts:
        body = {"user_id": "u1", "user_input": text, "response": "好呀～"}
        assert client.post(f"{V1}/interactions", json=body).status_code == 201
    assert client.post(f"{V1}/memories", json={"user_id": "u1", "text": "花生", "key": "allergy"})
    for _ in range(5):
        client.post(f"{V1}/retrieve", json={"user_id": "u1", "query": "咖啡好喝吗"})


def _config(config: MemoryConfig) -> MemoryConfig:
    config.active.capacity = 2
    config.temporary.decay_coefficient = 0.5
    config.retrieval.deep_recall = False
    budget(config, 1, 0, 0)
    return config


def test_the_inspector_shows_why_and_restore_and_forget_work(browser, config: MemoryConfig) -> None:
    with running(MemoryService(["karin"], _config(config))) as base, httpx.Client(base_url=base) as client:
        _live(client)
        page = browser.new_page(viewport={"width": 1280, "height": 900})  # type: ignore[attr-defined]
        page.goto(f"{base}/inspect?persona=karin&user_id=u1")
        assert page.locator("h1").inner_text().startswith("记忆检查器")
        assert "allergy" in page.locator("table.profile").inner_text()
        assert page.locator("table.active tr").count() == 3  # header + the window of 2
        hot = page.locator("table.hot tr[data-memory]")
        assert hot.count() >= 1 and page.locator("table.hot svg.curve polyline").count() == hot.count()
        assert page.locator("div.retrieval").count() == 5
        first_hit = page.locator("table.scores tr.hit").first
        assert first_hit.locator("td.pre").inner_text().count("咖啡") == 1
        assert "咖啡" in first_hit.locator("td.matched").inner_text()  # why it won: the word it shares
        closeness = first_hit.locator("td.similarity").inner_text()  # and how close in meaning
        assert "（很接近）" in closeness or "（相关）" in closeness
        assert page.locator("table.scores tr.miss[data-memory]").count() >= 1  # near misses shown
        Path(REPO / "data").mkdir(exist_ok=True)
        page.screenshot(path=str(REPO / "data" / f"inspector-{RECORD}.png"), full_page=True)

        page.fill("input[name=q]", "redis")
        page.click("form >> text=搜索")
        cold = page.locator("table.cold tr[data-memory]")
        assert cold.count() == 1 and "redis" in cold.inner_text()
        redis_id = cold.get_attribute("data-memory")
        with page.expect_navigation():
            cold.locator("button[data-act=restore]").click()
        assert page.locator(f'table.hot tr[data-memory="{redis_id}"]').count() == 1
        assert page.locator(f'table.cold tr[data-memory="{redis_id}"]').count() == 0

        coffee = page.locator("table.hot tr[data-memory]", has_text="咖啡")
        coffee_id = coffee.get_attribute("data-memory")
        page.once("dialog", lambda dialog: dialog.dismiss())
        coffee.locator("button[data-act=forget]").click()
        page.wait_for_timeout(300)
        assert page.locator(f'table.hot tr[data-memory="{coffee_id}"]').count() == 1  # dismissed: kept
        page.once("dialog", lambda dialog: dialog.accept())
        with page.expect_navigation():
            coffee.locator("button[data-act=forget]").click()
        assert page.locator(f'tr[data-memory="{coffee_id}"]').count() == 0
        view = client.get(f"{V1}/users/u1/inspect").json()
        assert coffee_id not in {m["id"] for m in view["hot"]}
        assert redis_id in {m["id"] for m in view["hot"]}


def test_with_a_key_the_page_keeps_a_session_in_a_cookie(browser, config: MemoryConfig) -> None:
    config.server.api_key = KEY  # type: ignore[assignment]
    headers = {"X-API-Key": KEY}
    with running(MemoryService(["karin"], _config(config))) as base:
        with httpx.Client(base_url=base, headers=headers) as client:
            _live(client)
        page = browser.new_page()  # type: ignore[attr-defined]
        refused = page.goto(f"{base}/inspect?persona=karin&user_id=u1")
        assert refused is not None and refused.status == 401
        page.goto(f"{base}/inspect?persona=karin&user_id=u1&key={KEY}")
        assert "key=" not in page.url  # moved into an HttpOnly cookie
        assert page.evaluate("document.cookie") == ""
        assert all(KEY not in c["value"] for c in page.context.cookies())  # a session, not the key
        memory = page.locator("table.hot tr[data-memory]").first
        memory_id = memory.get_attribute("data-memory")
        page.once("dialog", lambda dialog: dialog.accept())
        with page.expect_navigation():
            memory.locator("button[data-act=forget]").click()
        assert page.locator(f'tr[data-memory="{memory_id}"]').count() == 0


def test_the_api_docs_render_offline(browser, config: MemoryConfig) -> None:
    with running(MemoryService(["karin"], config)) as base:
        page = browser.new_page()  # type: ignore[attr-defined]
        elsewhere: list[str] = []

        def only_here(route) -> None:  # type: ignore[no-untyped-def]
            if route.request.url.startswith(base):
                route.continue_()
            else:
                elsewhere.append(route.request.url)
                route.abort()

        page.route("**/*", only_here)
        page.goto(f"{base}/docs")
        page.wait_for_selector(".swagger-ui .info .title", timeout=30_000)
        assert "persona-memory" in page.locator(".swagger-ui .info .title").inner_text()
        assert page.locator(".opblock-summary-path", has_text="/retrieve").count() == 1
        assert elsewhere == []


def test_an_english_persona_gets_an_english_page(config: MemoryConfig) -> None:
    config.locale = "en"
    toml = Path(config.personas_dir) / "karin" / "persona.toml"
    toml.write_text('name = "karin"\ndescription = "test"\nlocale = "en"\n', encoding="utf-8")
    with running(MemoryService(["karin"], config)) as base, httpx.Client(base_url=base) as client:
        client.post(f"{V1}/interactions", json={"user_id": "u1", "user_input": "hi", "response": "hello"})
        html = client.get("/inspect", params={"user_id": "u1"}).text
        assert "Memory inspector" in html and "Cold tier" in html and 'lang="en"' in html
        assert "<script src" not in html and "http://" not in html.replace('xmlns="http://www.w3.org', "")
        picker = client.get("/inspect").text  # no user picked: the users to pick from
        assert 'href="/inspect?persona=karin&amp;user_id=u1"' in picker and "(shared)" not in picker


def test_the_inspector_explains_a_bridged_match_the_layer_caps_and_a_pinned_memory(
    browser, config: MemoryConfig
) -> None:
    config.active.capacity = 1
    config.retrieval.deep_recall = False
    config.retrieval.relevance_floor = False  # small talk fills the free slot too
    budget(config, 1, 0, 1)
    with running(MemoryService(["karin"], config)) as base, httpx.Client(base_url=base) as client:
        for text in ["我的家乡是哈尔滨，冬天特别冷", "家乡的冬天，我们在哈尔滨堆雪人", "今天加班"]:
            body = {"user_id": "u1", "user_input": text, "response": "好呀～"}
            assert client.post(f"{V1}/interactions", json=body).status_code == 201
        client.post(f"{V1}/memories", json={"user_id": "u1", "text": "下周三要去看牙医"})
        client.post(f"{V1}/memories", json={"user_id": "u1", "text": "上海", "key": "home_city"})
        for query in ["Where is my hometown?", "今天天气怎么样"]:
            client.post(f"{V1}/retrieve", json={"user_id": "u1", "query": query})
        page = browser.new_page(viewport={"width": 1280, "height": 900})  # type: ignore[attr-defined]
        page.goto(f"{base}/inspect?persona=karin&user_id=u1")
        weather, hometown = page.locator("div.retrieval").all()  # newest first
        hit = hometown.locator("table.scores tr.hit", has_text="哈尔滨").first
        assert "hometown→家乡" in hit.locator("td.matched").inner_text()  # which word matched which
        assert "临时层 1" in hometown.locator("p.caps").inner_text()  # every layer's places
        assert "人设记忆 1" in hometown.locator("p.caps").inner_text()
        near = hometown.locator("table.scores tr.miss[data-memory]", has_text="哈尔滨")
        assert "名额（1）已满" in near.first.locator("span.over-cap").inner_text()
        pinned = weather.locator("table.scores tr.hit", has_text="牙医")
        assert pinned.locator("span.pinned").count() == 1  # why it is there: pinned, and a free place
        assert pinned.locator("span.free-slot").count() == 1
        assert "未开启相关性下限" in weather.inner_text()  # that there is no floor
        assert re.search(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d \S+$", weather.locator("small").first.inner_text())
        assert (
            "聊天中说的" in page.locator("table.profile").inner_text()
            or "让我记住的" in page.locator("table.profile").inner_text()
        )
        page.click("nav a.lang")  # the English switch
        assert page.locator("h1").inner_text().startswith("Memory inspector")
        assert "asked to remember" in page.locator("table.profile").inner_text()
        assert "temporary 1" in page.locator("p.caps").first.inner_text()
        page.screenshot(path=str(REPO / "data" / f"inspector-explained-{RECORD}.png"), full_page=True)
