"""The page of `npuzzle serve` in a real browser (issue 53): headless Chromium driven by
Selenium against the release binary on loopback. Run by scripts/check_browser.sh, which skips
with a `skipped:` line where Chromium or its driver is missing.

Each test checks what the page shows against the CLI's own answers (`npuzzle solve`)."""

import os
import re
import shutil
import subprocess
import time
from pathlib import Path

import pytest
from selenium import webdriver
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

BIN = os.environ.get("NPUZZLE_BIN", "target/release/npuzzle")
SHOTS = Path(os.environ.get("NPUZZLE_SHOTS", "output/bench/serve-53"))


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
