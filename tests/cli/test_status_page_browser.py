"""The daemon's status page in a real headless browser (Debian's chromium, driven by playwright)."""

from __future__ import annotations

import shutil
from typing import TYPE_CHECKING

from playwright.sync_api import sync_playwright

from tests.cli.watch_harness import Daemon, Remote, wait_for

if TYPE_CHECKING:
    from pathlib import Path

# what the shared notes found chromium needs here: no sandbox as root, no network beyond loopback
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def test_the_grid_shows_the_fleet_and_a_workloads_explain_opens(tmp_path: Path) -> None:
    chromium = shutil.which("chromium")
    assert chromium, "Debian's chromium is needed (apt-get install chromium; .ci/run installs it)"
    remote = Remote.create(tmp_path, example=True)
    with Daemon.start(remote.bare, "--interval", "60", log_path=tmp_path / "daemon.log") as daemon:
        wait_for(lambda: daemon.runs() == 1, "the initial reconcile")
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=chromium, args=CHROMIUM_ARGS)
            try:
                page = browser.new_page()
                page.goto(daemon.url + "/")
                headers = page.locator("#grid tr").first.locator("th").all_inner_texts()
                assert headers[:4] == ["template", "policy", "ready", "wave"]
                assert headers[4:] == ["member1", "member2", "member3", "member4"]
                row = page.locator("#grid tr", has_text="Deployment.apps/shop/frontend")
                cells = row.locator("td").all_inner_texts()
                assert cells[1] == "pp/frontend"
                assert cells[2] == "–"  # no member cluster has reported yet
                assert cells[3] == "–"  # no RolloutPolicy governs it
                assert sum(int(c) for c in cells[4:] if c.isdigit()) == 8  # the frontend's 8 replicas
                assert page.locator("#runs tr").count() == 2  # the header and the first run
                row.locator("a").click()
                page.wait_for_selector("#explain")
                assert "Deployment.apps/shop/frontend" in page.locator("h1").inner_text()
                assert "Policy: PropagationPolicy/shop/frontend" in page.locator("#explain").inner_text()
                page.locator("a", has_text="fleet").click()
                page.wait_for_selector("#grid")
            finally:
                browser.close()
        assert daemon.terminate() == 0
