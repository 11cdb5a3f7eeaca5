"""The page of `npuzzle serve` in a real browser (issue 53): headless Chromium driven by
Selenium against the release binary on loopback. Run by scripts/check_browser.sh, which skips
with a `skipped:` line where Chromium or its driver is missing.

Each test checks what the page shows against the CLI's own answers (`npuzzle solve`); those of
issue 61 check that quick clicks make one request, that the page can be used from the keyboard
and a screen reader, and that axe-core finds no accessibility violation."""

import importlib.util
import os
import re
import shutil
import subprocess
import time
from pathlib import Path

import pytest
from selenium import webdriver
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import Select, WebDriverWait

BIN = os.environ.get("NPUZZLE_BIN", "target/release/npuzzle")
SHOTS = Path(os.environ.get("NPUZZLE_SHOTS", "output/bench/serve-61"))
# axe-core's script, from the PyPI package that bundles it (installed by check_browser.sh,
# without its Playwright dependency, which these tests do not use).
AXE_PACKAGE = "axe-playwright-python==0.1.8"
AXE_VERSION = "4.12.1"


def solve_length(board, rows=3, cols=3):
    out = subprocess.run(
        [BIN, "solve", "--board", board, "--rows", str(rows), "--cols", str(cols), "--quiet"],
        check=True, capture_output=True, text=True,
    ).stdout
    return int(out.strip())


@pytest.fixture(scope="module")
def server():
    proc = subprocess.Popen([BIN, "serve", "--port", "0"], stdout=subprocess.PIPE, text=True)
    line = proc.stdout.readline()
    url = re.search(r"http://\S+", line).group(0)
    yield url
    proc.kill()
    proc.wait()


def browser(width, height):
    options = webdriver.ChromeOptions()
    for arg in ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                f"--window-size={width},{height}"]:
        options.add_argument(arg)
    binary = os.environ.get("CHROMIUM") or shutil.which("chromium") or shutil.which("chromium-browser")
    if binary:
        options.binary_location = binary
    if width < 500:
        # A headless window is at least 500 pixels wide: a phone is emulated instead.
        options.add_experimental_option(
            "mobileEmulation", {"deviceMetrics": {"width": width, "height": height, "pixelRatio": 2}}
        )
    service = webdriver.ChromeService(executable_path=os.environ.get("CHROMEDRIVER") or shutil.which("chromedriver"))
    return webdriver.Chrome(options=options, service=service)


@pytest.fixture()
def page(server):
    driver = browser(1280, 800)
    driver.get(server)
    wait_for_board(driver)
    yield driver
    driver.quit()


def wait_for_board(driver):
    WebDriverWait(driver, 20).until(
        lambda d: d.find_element(By.ID, "distance").text not in ("", "?")
    )


def shown_board(driver):
    """The board the page shows, read in one script (the page redraws it after each move)."""
    tiles = driver.execute_script(
        "return [...document.querySelectorAll('#board .tile')].map(t => t.dataset.tile)"
    )
    return " / ".join(" ".join(tiles[r * 3:(r + 1) * 3]) for r in range(3))


def distance(driver):
    return int(driver.execute_script("return document.getElementById('distance').textContent"))


def settle(driver, board):
    """Waits until the page shows `board` with its distance."""
    WebDriverWait(driver, 20).until(
        lambda d: shown_board(d) == board
        and d.execute_script("return document.getElementById('distance').textContent").isdigit()
    )


def load_board(driver, board, wait=True):
    """Types `board` into the page's field and presses Load; with `wait`, waits until the page
    shows it with its distance ([`settle`]). Without it, for a board the page refuses."""
    field = driver.find_element(By.ID, "board-input")
    field.clear()
    field.send_keys(board)
    driver.find_element(By.ID, "load").click()
    if wait:
        settle(driver, board)


def test_the_page_shows_the_board_its_distance_and_the_chart(page):
    assert len(page.find_elements(By.CSS_SELECTOR, "#board .tile")) == 9
    assert distance(page) == 0
    bars = page.find_elements(By.CSS_SELECTOR, "#chart .bar")
    assert len(bars) == 32  # depths 0..31 of the 8-puzzle (OEIS A089473)


def test_three_clicked_moves_show_the_clis_distance(page):
    load_board(page, "8 6 7 / 2 5 4 / 3 0 1")
    for _ in range(3):
        before = shown_board(page)
        movable = page.find_elements(By.CSS_SELECTOR, "#board .tile.movable")
        movable[0].click()
        WebDriverWait(page, 20).until(lambda d: shown_board(d) != before)
        now = shown_board(page)
        settle(page, now)
        assert distance(page) == solve_length(now), now


def test_solve_animates_to_the_goal(page):
    load_board(page, "1 2 3 / 4 0 5 / 7 8 6")
    page.execute_script("document.getElementById('speed').value = 20")
    page.find_element(By.ID, "solve").click()
    WebDriverWait(page, 30).until(lambda d: shown_board(d) == "1 2 3 / 4 5 6 / 7 8 0")
    assert distance(page) == 0


def test_a_depth_bar_offers_boards_at_that_depth(page):
    bar = page.find_element(By.CSS_SELECTOR, "#chart .bar[data-depth='20']")
    page.execute_script("arguments[0].dispatchEvent(new MouseEvent('click', {bubbles: true}))", bar)
    WebDriverWait(page, 20).until(lambda d: d.find_elements(By.CSS_SELECTOR, "#samples button"))
    offered = page.find_elements(By.CSS_SELECTOR, "#samples button")
    assert offered
    for button in offered:
        assert solve_length(button.text) == 20, button.text


def test_a_bad_board_shows_one_line_and_keeps_the_page(page):
    load_board(page, "1 2 3 / 4 5 6 / 7 8 8", wait=False)
    WebDriverWait(page, 20).until(lambda d: d.find_element(By.ID, "error").text)
    message = page.find_element(By.ID, "error").text
    assert "\n" not in message and "8" in message
    assert len(page.find_elements(By.CSS_SELECTOR, "#board .tile")) == 9
    assert distance(page) == 0


@pytest.mark.parametrize("size", [(1280, 800), (375, 667)], ids=["desktop", "phone"])
def test_screenshots(server, size):
    driver = browser(*size)
    try:
        driver.get(server)
        wait_for_board(driver)
        load_board(driver, "8 6 7 / 2 5 4 / 3 0 1")
        time.sleep(0.5)
        # The page fits the window's width: no horizontal scrolling.
        inner, width = driver.execute_script(
            "return [window.innerWidth, document.documentElement.scrollWidth]"
        )
        assert inner == size[0] and width <= size[0], (inner, width)
        SHOTS.mkdir(parents=True, exist_ok=True)
        driver.save_screenshot(str(SHOTS / f"page-{size[0]}x{size[1]}.png"))
    finally:
        driver.quit()


# ---------- issue 61: races, keyboard, screen readers, accessibility ----------

RECORDER = """
// Records the page's requests (path, and the most in flight at once) and its timers (the
// most pending at once): the page calls fetch and setTimeout through window.
const rec = window.__rec = { requests: [], inFlight: 0, maxInFlight: 0, timers: new Set(), maxTimers: 0 };
const fetch0 = window.fetch.bind(window);
window.fetch = (url, ...rest) => {
  rec.requests.push(new URL(String(url), location.href).pathname);
  rec.inFlight++; rec.maxInFlight = Math.max(rec.maxInFlight, rec.inFlight);
  return fetch0(url, ...rest).finally(() => { rec.inFlight--; });
};
const set0 = window.setTimeout.bind(window), clear0 = window.clearTimeout.bind(window);
window.setTimeout = (fn, ms, ...args) => {
  const id = set0(() => { rec.timers.delete(id); fn(...args); }, ms);
  rec.timers.add(id); rec.maxTimers = Math.max(rec.maxTimers, rec.timers.size);
  return id;
};
window.clearTimeout = (id) => { rec.timers.delete(id); clear0(id); };
"""


def recorded(driver):
    return driver.execute_script(
        "const r = window.__rec; return {requests: r.requests, inFlight: r.inFlight,"
        " maxInFlight: r.maxInFlight, maxTimers: r.maxTimers}"
    )


def idle(driver):
    """Waits until no request of the page is in flight, twice 0.3 s apart."""
    for _ in range(2):
        WebDriverWait(driver, 20).until(lambda d: recorded(d)["inFlight"] == 0)
        time.sleep(0.3)


def made(driver):
    return driver.execute_script("return document.getElementById('moves-made').textContent")


def test_two_quick_clicks_make_one_move(page):
    # Two clicks before the first answer: the page sent two moves from one board (two requests,
    # "2 moves made" for a board one move away). Now the second is ignored while the first is
    # in flight.
    load_board(page, "8 6 7 / 2 5 4 / 3 0 1")
    page.execute_script(RECORDER)
    page.execute_script(
        "const t = document.querySelectorAll('#board .tile.movable'); t[0].click(); t[1].click();"
    )
    idle(page)
    boards = [r for r in recorded(page)["requests"] if r == "/api/board"]
    assert boards == ["/api/board"], recorded(page)
    # The first movable tile is the 5 above the blank.
    settle(page, "8 6 7 / 2 0 4 / 3 5 1")
    assert made(page) == "1 move made"
    assert distance(page) == solve_length("8 6 7 / 2 0 4 / 3 5 1")


def test_two_quick_solves_play_one_solution(page):
    # Two clicks on solve before its answer: two solutions were fetched and two timers drove
    # one animation. Now one request, one timer at a time, one board request in flight.
    board = "8 6 7 / 2 5 4 / 3 0 1"
    load_board(page, board)
    length = solve_length(board)
    page.execute_script("document.getElementById('speed').value = 20")
    page.execute_script(RECORDER)
    page.execute_script("const s = document.getElementById('solve'); s.click(); s.click();")
    WebDriverWait(page, 20).until(lambda d: recorded(d)["inFlight"] == 0)
    assert recorded(page)["requests"].count("/api/solve") == 1, recorded(page)
    WebDriverWait(page, 30).until(lambda d: shown_board(d) == "1 2 3 / 4 5 6 / 7 8 0")
    idle(page)
    rec = recorded(page)
    assert rec["requests"].count("/api/solve") == 1, rec
    assert rec["requests"].count("/api/board") == length, rec
    assert rec["maxTimers"] == 1, rec
    assert made(page) == f"{length} moves made"
    assert distance(page) == 0


def test_tiles_take_the_focus_and_move_on_enter_and_space(page):
    load_board(page, "8 6 7 / 2 5 4 / 3 0 1")
    tiles = page.find_elements(By.CSS_SELECTOR, "#board .tile.movable")
    assert len(tiles) == 3
    assert all(t.get_attribute("tabindex") == "0" for t in tiles)
    # The board is a grid of rows of cells, as WAI-ARIA's grid pattern asks.
    rows = page.find_elements(By.CSS_SELECTOR, "#board > [role=row]")
    assert [len(r.find_elements(By.CSS_SELECTOR, "[role=gridcell]")) for r in rows] == [3, 3, 3]
    page.execute_script("arguments[0].focus()", tiles[0])
    assert page.switch_to.active_element.get_attribute("data-tile") == "5"
    page.switch_to.active_element.send_keys(Keys.ENTER)
    settle(page, "8 6 7 / 2 0 4 / 3 5 1")
    assert distance(page) == solve_length("8 6 7 / 2 0 4 / 3 5 1")
    # The focus stays on the tile that moved, and Space moves it back.
    focused = page.switch_to.active_element
    assert focused.get_attribute("data-tile") == "5"
    focused.send_keys(Keys.SPACE)
    settle(page, "8 6 7 / 2 5 4 / 3 0 1")
    # An arrow key moves the tile on that side of the blank into it: Left, the 1.
    page.switch_to.active_element.send_keys(Keys.ARROW_LEFT)
    settle(page, "8 6 7 / 2 5 4 / 3 1 0")
    assert made(page) == "3 moves made"


def test_the_live_region_says_the_distance(page):
    live = page.find_element(By.ID, "announce")
    assert live.get_attribute("aria-live") == "polite" and live.get_attribute("role") == "status"
    load_board(page, "8 6 7 / 2 5 4 / 3 0 1")
    said = lambda d: d.execute_script("return document.getElementById('announce').textContent")
    WebDriverWait(page, 20).until(lambda d: said(d).startswith("board loaded"))
    assert said(page) == f"board loaded, {solve_length('8 6 7 / 2 5 4 / 3 0 1')} moves to the goal"
    page.find_elements(By.CSS_SELECTOR, "#board .tile.movable")[0].click()
    settle(page, "8 6 7 / 2 0 4 / 3 5 1")
    WebDriverWait(page, 20).until(lambda d: said(d).startswith("5 moved"))
    assert said(page) == f"5 moved, {solve_length('8 6 7 / 2 0 4 / 3 5 1')} moves to the goal"
    load_board(page, "1 2 3 / 4 5 6 / 7 0 8")
    page.find_element(By.ID, "solve").click()
    WebDriverWait(page, 20).until(lambda d: said(d).startswith("solved"))
    assert said(page) == "solved in 1 move, the goal: 0 moves to the goal"


def test_the_graph_is_coloured_by_viridis(page):
    # The goal's node (distance 0) is viridis' dark purple, its neighbours' (1) darker than
    # green-to-red's; no node is red or green.
    WebDriverWait(page, 20).until(lambda d: d.find_elements(By.CSS_SELECTOR, "#graph .node"))
    fills = page.execute_script(
        "return [...document.querySelectorAll('#graph .node')].map(n =>"
        " [n.dataset.distance, n.querySelector('circle').getAttribute('fill')])"
    )
    assert ["0", "rgb(68,1,84)"] in fills, fills
    assert all(f.startswith("rgb(") for _, f in fills), fills


def axe_source():
    spec = importlib.util.find_spec("axe_playwright_python")
    if spec is None or not spec.submodule_search_locations:
        pytest.fail(f"axe-core is missing: pip install --no-deps {AXE_PACKAGE}")
    return (Path(spec.submodule_search_locations[0]) / "axe.min.js").read_text()


def axe_violations(driver):
    driver.execute_script(axe_source())
    assert driver.execute_script("return axe.version") == AXE_VERSION
    driver.set_script_timeout(60)
    return driver.execute_async_script(
        "const done = arguments[arguments.length - 1];"
        "axe.run(document, {resultTypes: ['violations']}).then(r => done(r.violations.map(v =>"
        " ({id: v.id, impact: v.impact, nodes: v.nodes.map(n => n.target.join(' '))}))),"
        " e => done([{id: 'axe failed', impact: String(e), nodes: []}]));"
    )


def test_axe_finds_no_violation(page):
    # Every rule of axe-core's default set (WCAG 2.0, 2.1 and 2.2 A and AA, and best practices),
    # every impact: on a board with its graph, then with samples and the comparison shown.
    load_board(page, "8 6 7 / 2 5 4 / 3 0 1")
    WebDriverWait(page, 20).until(lambda d: d.find_elements(By.CSS_SELECTOR, "#graph .node"))
    assert axe_violations(page) == []
    bar = page.find_element(By.CSS_SELECTOR, "#chart .bar[data-depth='20']")
    page.execute_script("arguments[0].dispatchEvent(new MouseEvent('click', {bubbles: true}))", bar)
    WebDriverWait(page, 20).until(lambda d: d.find_elements(By.CSS_SELECTOR, "#samples button"))
    page.find_element(By.ID, "compare").click()
    WebDriverWait(page, 60).until(lambda d: d.find_element(By.ID, "compare-table").is_displayed())
    assert axe_violations(page) == []


# ---------- issue 62: mapping a shape on request, the legends ----------


def test_switching_to_3x4_offers_its_map_and_maps_it(page):
    # 3x4 has no table at start (--build 9): the page said "too large to map here". Now it
    # offers the map with its size, time and memory, and a click builds it: 239,500,800 boards
    # (12!/2), God's number 53 from the goal (docs/geometry.md).
    Select(page.find_element(By.ID, "cols")).select_by_visible_text("4")
    WebDriverWait(page, 30).until(lambda d: d.find_element(By.ID, "map").is_displayed())
    button = page.find_element(By.ID, "map-button")
    assert button.text == "map 3x4: all 239,500,800 boards", button.text
    note = page.find_element(By.ID, "map-note").text
    assert re.search(r"about \d+ s and \d+ MB of memory \(60 MB kept\)", note), note
    assert "Map it below" in page.find_element(By.ID, "chart").text
    assert "--build 12" in page.find_element(By.ID, "source").text
    assert axe_violations(page) == []
    button.click()
    WebDriverWait(page, 120).until(
        lambda d: len(d.find_elements(By.CSS_SELECTOR, "#chart .bar")) == 54
    )
    assert not page.find_element(By.ID, "map").is_displayed()
    assert "built for this page" in page.find_element(By.ID, "source").text
    said = page.execute_script("return document.getElementById('announce').textContent")
    assert said.startswith("3x4 mapped in "), said
    # The board's moves now come from the table: 0 moves, and after one move 1, the move
    # back marked closer.
    WebDriverWait(page, 20).until(lambda d: d.find_element(By.ID, "distance").text == "0")
    page.find_elements(By.CSS_SELECTOR, "#board .tile.movable")[0].click()
    WebDriverWait(page, 20).until(lambda d: d.find_element(By.ID, "distance").text == "1")
    assert len(page.find_elements(By.CSS_SELECTOR, "#board .tile.closer")) == 1


def test_the_legends_say_what_the_colours_mean(page):
    load_board(page, "1 2 3 / 4 5 6 / 7 0 8")
    WebDriverWait(page, 20).until(lambda d: d.find_elements(By.CSS_SELECTOR, "#graph .node"))
    items = page.find_elements(By.CSS_SELECTOR, "#tile-legend li")
    assert [i.text.split(":")[0] for i in items] == [
        "blue edge and dot", "white", "grey-blue"], [i.text for i in items]
    # Each swatch is drawn as the tiles it names: the 8, one move from the goal, is closer.
    style = (
        "const s = getComputedStyle(arguments[0]), a = getComputedStyle(arguments[0], '::after');"
        " return [s.borderTopColor, s.backgroundColor, a.backgroundColor];"
    )
    closer = page.find_element(By.CSS_SELECTOR, "#board .tile.closer")
    assert closer.get_attribute("data-tile") == "8"
    swatch = page.find_element(By.CSS_SELECTOR, "#tile-legend .sw-closer")
    assert page.execute_script(style, swatch) == page.execute_script(style, closer)
    movable = page.find_element(By.CSS_SELECTOR, "#board .tile.movable:not(.closer)")
    plain = page.find_element(By.CSS_SELECTOR, "#board .tile:not(.movable):not(.blank)")
    for tile, css in [(movable, ".sw-movable"), (plain, "li:last-child .swatch")]:
        swatch = page.find_element(By.CSS_SELECTOR, f"#tile-legend {css}")
        assert page.execute_script(style, swatch)[:2] == page.execute_script(style, tile)[:2]
    # The graph's: viridis from 0 to the shape's largest distance (31 on 3x3, OEIS A089473),
    # the ramp's ends the colours of the nodes at 0 and at 31.
    assert page.find_element(By.ID, "legend-near").text == "0"
    assert page.find_element(By.ID, "legend-far").text == "31"
    ramp = page.execute_script(
        "return getComputedStyle(document.querySelector('#graph-legend .ramp')).backgroundImage"
    )
    assert ramp.startswith("linear-gradient(to right, rgb(68, 1, 84)") and ramp.endswith(
        "rgb(253, 231, 37))"), ramp
    assert "black ring: this board" in page.find_element(By.ID, "graph-legend").text
