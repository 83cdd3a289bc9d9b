"""Every page of a rendered report, opened in headless Chromium (selenium): no console error, no
request leaving the machine, no table wider than the page, the case table filters offline, and no
text from a run (case names, queries, files, reasons, errors, stderr, goldens) runs as script; nor
any text on the calibration, interleaving and trend pages (repository, target, flags, engines,
queries, log problems, run ids, target, suite, metric and baseline names, the corpus path).

Needs Debian's ``chromium`` and ``chromium-driver`` and the ``selenium`` package (dev extras;
``.ci/run`` installs the browser): skipped, with the reason, where any of them is absent.
"""

from __future__ import annotations

import importlib.util
import json
import re
import shutil
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

import pytest

from workbench.report.render import render_report

from ..conftest import REPO_ROOT
from ..report_runs import build_run, hostile_run

pytestmark = [pytest.mark.notebooks, pytest.mark.slow]

BROWSER = next((shutil.which(n) for n in ("chromium", "chromium-browser") if shutil.which(n)), None)
DRIVER = shutil.which("chromedriver")
MISSING = [
    what
    for what, there in (
        ("chromium", BROWSER),
        ("chromedriver (Debian: chromium-driver)", DRIVER),
        ("selenium", importlib.util.find_spec("selenium")),
    )
    if not there
]
if MISSING:
    pytest.skip(f"a real browser is needed: {', '.join(MISSING)} not installed", allow_module_level=True)

FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
)
WIDTH, HEIGHT = 1280, 900
LOCAL_SCHEMES = {"file", "data", "blob", "about", "chrome", "devtools"}
LOCAL_HOSTS = {"localhost", "127.0.0.1", "::1"}
TABLE_ID = "retrieval-cases-all"


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> Any:
    root = tmp_path_factory.mktemp("browser")
    base = build_run(root / "runs", seed=1, run_id="20261129T000000Z-base")
    run = build_run(root / "runs")
    rendered = render_report(
        run, baseline=f"{base}#builtin", out_dir=root / "html", notebook_dir=REPO_ROOT / "notebooks"
    )
    assert not rendered.failed
    return rendered


@pytest.fixture(scope="module")
def trend_page(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """``workbench trend --out`` over four runs (two corpus versions) and a baseline re-recorded in
    a git repository (both recordings shown, from history)."""
    from workbench.analysis.trend import trend
    from workbench.report import render_trend

    from ..analysis.test_trend_history import build_git_trend_project

    root = build_git_trend_project(tmp_path_factory.mktemp("trend") / "repo")[0]
    result = trend(root / "corpus" / "corpus.json", root / "runs")
    return render_trend(result.to_dict(), root / "html", notebook_dir=REPO_ROOT / "notebooks")


@pytest.fixture(scope="module")
def browser(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = str(BROWSER)
    for flag in (*FLAGS, f"--user-data-dir={tmp_path_factory.mktemp('profile')}", f"--window-size={WIDTH},{HEIGHT}"):
        options.add_argument(flag)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL", "performance": "ALL"})
    driver = webdriver.Chrome(service=Service(str(DRIVER)), options=options)
    try:
        driver.execute_cdp_cmd("Network.enable", {})
        # Nothing may leave the machine even if a page tried: the attempt is still logged (and fails the test).
        driver.execute_cdp_cmd("Network.setBlockedURLs", {"urls": ["http://*", "https://*", "ws://*", "wss://*"]})
        driver.get("about:blank")
        driver.get_log("browser"), driver.get_log("performance")  # the start page's own noise
        yield driver
    finally:
        driver.quit()


def _open(driver: Any, page: Path) -> tuple[list[dict[str, Any]], list[str]]:
    """Load ``page``; the console errors and the URLs it requested."""
    driver.get(page.as_uri())
    deadline = time.monotonic() + 20
    while driver.execute_script("return document.readyState") != "complete" and time.monotonic() < deadline:
        time.sleep(0.1)
    time.sleep(0.5)  # scripts that run after load (DataTables) get to log what they do
    errors = [entry for entry in driver.get_log("browser") if entry["level"] == "SEVERE"]
    events = [json.loads(entry["message"])["message"] for entry in driver.get_log("performance")]
    urls = [e["params"]["request"]["url"] for e in events if e["method"] == "Network.requestWillBeSent"]
    return errors, urls


def _leaves(url: str) -> bool:
    parsed = urlparse(url)
    return parsed.scheme not in LOCAL_SCHEMES and (parsed.hostname or "") not in LOCAL_HOSTS


def _pages(report: Any) -> list[Path]:
    return [report.index, *(page.html for page in report.pages)]


def test_every_page_loads_without_console_errors_or_outside_requests(report: Any, browser: Any) -> None:
    assert len(_pages(report)) == 1 + len(report.pages) >= 6
    for page in _pages(report):
        errors, urls = _open(browser, page)
        assert not errors, f"{page.name}: console errors {errors}"
        assert urls and urls[0].startswith("file:"), f"{page.name}: no page load seen ({urls})"
        leaving = [url for url in urls if _leaves(url)]
        assert not leaving, f"{page.name}: requests leaving the machine {leaving}"


WIDTHS = """
const page = document.documentElement.clientWidth;
return {page: page, scroll: document.documentElement.scrollWidth,
        wide: Array.from(document.querySelectorAll('table'))
          .map(t => [t.id || t.className || t.tagName, Math.ceil(t.getBoundingClientRect().right)])
          .filter(t => t[1] > page + 1)};
"""


def test_no_table_is_wider_than_the_page(report: Any, browser: Any) -> None:
    for page in _pages(report):
        _open(browser, page)
        seen = browser.execute_script(WIDTHS)
        assert seen["page"] > WIDTH * 0.9, seen
        assert not seen["wide"], f"{page.name}: tables wider than the {seen['page']}px page: {seen['wide']}"
        assert seen["scroll"] <= seen["page"] + 1, f"{page.name}: the page scrolls sideways: {seen}"


SHOWN = f"return Array.from(document.querySelectorAll('#{TABLE_ID} tbody tr')).map(r => r.textContent);"
INFO = r"Showing \d+ to \d+ of (\d+) entr(?:y|ies)"


def _shown(driver: Any) -> tuple[int, list[str]]:
    info = driver.execute_script(f"return document.querySelector('#{TABLE_ID}_info, .dt-info').textContent")
    found = re.search(INFO, info)
    assert found, info
    return int(found.group(1)), driver.execute_script(SHOWN)


def test_the_case_table_filters_rows_offline(report: Any, browser: Any) -> None:
    from selenium.webdriver.common.by import By

    retrieval = next(page.html for page in report.pages if page.name == "retrieval")
    errors, urls = _open(browser, retrieval)
    assert not errors and not [u for u in urls if _leaves(u)]
    total, rows = _shown(browser)
    assert total >= 10 and rows
    search = browser.find_element(By.CSS_SELECTOR, f"input[aria-controls='{TABLE_ID}']")
    term = browser.execute_script(f"return document.querySelector('#{TABLE_ID} tbody tr td').textContent")
    search.send_keys(term)
    time.sleep(0.5)
    count, rows = _shown(browser)
    assert 1 <= count < total, (term, count, total)
    assert rows and all(term.lower() in row.lower() for row in rows), (term, rows)
    search.clear()
    search.send_keys("no-case-has-this-text")
    time.sleep(0.5)
    assert "No matching records" in browser.execute_script(SHOWN)[0]


# Each field's payload records the field's name in window.__ran if the page runs it, once as an
# event handler and once as a script element.
RAN = "(window.__ran=window.__ran||[]).push"
FIELDS = (
    "case name",
    "mined query",
    "shape",
    "fixture name",
    "fixture file",
    "engine path",
    "related path",
    "reason",
    "error",
    "skip reason",
    "risk case name",
    "risk text",
    "concept",
    "harness case name",
    "command",
    "fixture test stderr",
    "command reason",
    "golden id",
    "golden query",
    "golden set",
    "golden category",
    "golden language",
    "golden path",
    "rule",
    "extra rule",
)


def _payload(field: str) -> str:
    return f"<img src=x onerror=\"{RAN}('{field}')\"><script>{RAN}('{field} (script)')</script>"


@pytest.fixture(scope="module")
def hostile_report(tmp_path_factory: pytest.TempPathFactory) -> Any:
    root = tmp_path_factory.mktemp("hostile")
    base = hostile_run(root / "runs", _payload, seed=1, run_id="20261129T000000Z-base")
    run = hostile_run(root / "runs", _payload)
    rendered = render_report(
        run, baseline=f"{base}#builtin", out_dir=root / "html", notebook_dir=REPO_ROOT / "notebooks"
    )
    assert not rendered.failed
    return rendered


def test_no_text_from_a_run_runs_as_script_on_any_page(hostile_report: Any, browser: Any) -> None:
    """Issue 41, item 1: a payload in every text field a page shows; none runs, each is shown as text."""
    shown: set[str] = set()
    for page in _pages(hostile_report):
        _open(browser, page)
        ran = browser.execute_script("return window.__ran || []")
        assert not ran, f"{page.name}: text ran as script: {ran}"
        text = browser.execute_script("return document.body.innerText")
        assert browser.execute_script("return document.querySelectorAll('img[src=\"x\"], td script').length") == 0
        shown |= {field for field in FIELDS if _payload(field) in text}
    assert shown == set(FIELDS), f"never shown literally: {sorted(set(FIELDS) - shown)}"


def test_the_trend_page_loads_offline_and_fits(trend_page: Path, browser: Any) -> None:
    """The page ``workbench trend --out`` writes, as a reader opens it."""
    errors, urls = _open(browser, trend_page)
    assert not errors, f"console errors {errors}"
    assert not [url for url in urls if _leaves(url)]
    seen = browser.execute_script(WIDTHS)
    assert not seen["wide"] and seen["scroll"] <= seen["page"] + 1, seen
    text = browser.execute_script("return document.body.innerText")
    assert "4 run(s), 2 corpus version(s), 1 baseline(s) in 2 recording(s)" in text and "REGRESSED" in text
    assert text.count("baseline recorded at commit") >= 2 and "(current)" in text
    assert browser.execute_script("return document.querySelectorAll('img').length") >= 1


# The pages outside a run's report: each written from its command's JSON, which holds text from a
# repository and its target (calibration), an impression log (interleaving), or runs, baselines and
# a corpus path (trend). Each hostile field is named by the page and the field.
POINT_TEXT = ("run_id", "target", "suite", "metric")
BASELINE_TEXT = ("name", "run_id", "target", "suite", "metric")


def _short(field: str) -> str:
    """A payload short enough to be shown whole where a page cuts text (pandas shows 50 characters
    of a DataFrame cell, the log keeps 40 of an impression's time); run, it sets ``window.__ran``."""
    return f"<img src=x onerror=__ran=['{field}']>"


def _hostile_log(path: Path) -> Path:
    """An impression log whose engine names, queries, repositories, paths and ids are payloads: three
    tasks (A, B, a tie), an unknown impression and a malformed line. The page shows no path or id
    but quoted (cut to 80 characters) in a problem line."""
    names = {"a": _payload("interleaving engine A"), "b": _payload("interleaving engine B")}
    repo, query = _payload("interleaving repository"), _payload("interleaving query")
    rows: list[dict[str, Any]] = []
    for n, opened in enumerate((["x.py"], ["y.py"], ["x.py", "y.py"])):
        ident = f"{_payload('interleaving impression')}{n}"
        shown = [{"repo": repo, "path": "x.py", "team": "a"}, {"repo": repo, "path": "y.py", "team": "b"}]
        at, asked = (_short("at"), _short("query")) if n == 0 else (f"2026-12-01T10:0{n}:00Z", query)
        rows += [{"impression": ident, "at": at, "query": asked, "targets": names, "shown": shown}]
        rows += [{"feedback": ident, "opened": [*opened, _payload("interleaving path")]}]
    rows += [{"feedback": _payload("interleaving unknown impression"), "opened": ["x.py"]}]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows) + f"{_payload('interleaving bad line')}\n")
    return path


def _hostile_calibration(root: Path) -> dict[str, Any]:
    """``calibrate --json`` on a planted repository, its target's and repository's text made payloads."""
    from workbench.calibration import Window, calibrate

    from ..calibration.test_calibrate import PayTarget, planted

    planted(root / "shop")
    data = json.loads(json.dumps(calibrate(root / "shop", PayTarget(scores=True), Window(days=30)).to_json()))
    flags = {row["flag"]: _payload(f"calibration flag {row['flag']}") for row in data["flags"]}
    for row in [*data["flags"], *data["brier"], *data["reliability"]]:
        row["flag"] = flags.get(row["flag"], row["flag"])
    verdicts = {_payload("calibration gate verdict"): 3}
    return data | {
        "repo": _payload("calibration repository"),
        "target": _payload("calibration target"),
        "notes": [_payload("calibration note")],
        "gated": 3,
        "gateVerdicts": verdicts,
    }


def _hostile_trend(root: Path) -> dict[str, Any]:
    """``trend --format json`` over four runs and a baseline, every name in it a payload."""
    from workbench.analysis.trend import trend

    from ..analysis.test_trend import build_trend_project

    project = build_trend_project(root)
    data = trend(project / "corpus" / "corpus.json", project / "runs").to_dict()
    names: dict[str, str] = {}
    for rows, keys in (
        (data["points"], POINT_TEXT),
        (data["baselines"], BASELINE_TEXT),
        (data["versions"], ("first_run",)),
    ):
        for row in rows:
            row |= {key: names.setdefault(row[key], _payload(f"trend {row[key]}")) for key in keys}
    return data | {"corpus": _payload("trend corpus path"), "notes": [_payload("trend note")]}


@pytest.fixture(scope="module")
def hostile_pages(tmp_path_factory: pytest.TempPathFactory) -> dict[Path, list[str]]:
    """The calibration, interleaving and trend pages rendered from hostile results, each with the
    texts it must show literally."""
    from workbench.online import analyze_log
    from workbench.report import render_calibration, render_interleaving, render_trend

    root = tmp_path_factory.mktemp("hostile-pages")
    notebooks = REPO_ROOT / "notebooks"
    calibration = _hostile_calibration(root)
    interleaving = analyze_log(_hostile_log(root / "impressions.jsonl")).to_dict()
    (root / "trend").mkdir()
    trend = _hostile_trend(root / "trend")
    texts = {
        "calibration": [calibration[k] for k in ("repo", "target")] + calibration["notes"],
        "interleaving": [interleaving["a"], interleaving["b"], _short("query"), _short("at")],
        "trend": [trend["corpus"], *trend["notes"]],
    }
    texts["calibration"] += [str(calibration["gateVerdicts"]), *{r["flag"] for r in calibration["flags"]}]
    texts["calibration"] += [r["flag"] for r in calibration["brier"]]
    texts["interleaving"] += [_payload("interleaving repository"), *interleaving["problems"]]
    texts["trend"] += [row[k] for row in trend["points"] for k in POINT_TEXT]
    texts["trend"] += [f"baseline {row['name']}" for row in trend["baselines"]]
    return {
        render_calibration(calibration, root / "calibration", notebook_dir=notebooks): texts["calibration"],
        render_interleaving(interleaving, root / "interleaving", notebook_dir=notebooks): texts["interleaving"],
        render_trend(trend, root / "trend-page", notebook_dir=notebooks): texts["trend"],
    }


def test_no_text_runs_as_script_on_the_calibration_interleaving_and_trend_pages(
    hostile_pages: dict[Path, list[str]], browser: Any
) -> None:
    """Issue 41, item 1, for the pages of ``calibrate``, ``interleave analyze`` and ``trend`` ``--out``."""
    for page, texts in hostile_pages.items():
        errors, urls = _open(browser, page)
        ran = browser.execute_script("return window.__ran || []")
        assert not ran, f"{page.name}: text ran as script: {ran}"
        assert browser.execute_script("return document.querySelectorAll('img[src=\"x\"], td script').length") == 0
        assert not errors and not [url for url in urls if _leaves(url)], (page.name, errors)
        text = browser.execute_script("return document.body.innerText")
        missing = sorted({t for t in texts if t not in text})
        assert len(texts) >= 5 and not missing, f"{page.name}: never shown literally: {missing}"
