"""Issue 39: strings from the repository cannot run on the status page or in ``/explain``, checked in a real
browser (Debian's headless chromium through playwright), not only in the HTML.

A hostile file name, a hostile value in a document and a hostile commit message reach the page through the
run's problems; a hostile template reaches ``/explain``. In the browser no dialog opens, no marker variable
is set, no element comes from them (the page has no ``script`` and no ``img`` at all), and each string shows
as its own text.
"""

from __future__ import annotations

import shutil
import urllib.parse
from typing import TYPE_CHECKING

from playwright.sync_api import sync_playwright

from tests.cli.test_status_page_browser import CHROMIUM_ARGS
from tests.cli.watch_harness import Daemon, Remote, wait_for
from tests.gitrepos import git

if TYPE_CHECKING:
    from pathlib import Path

    from playwright.sync_api import Dialog

FILE_NAME = "apps/<img src=x onerror=window.__pwned=1>.yaml"
VALUE = "<script>window.__pwned=2</script>"
SUBJECT = '"><svg onload=window.__pwned=3> and <script>alert(4)</script>'
TEMPLATE = 'Deployment/<script>alert(5)</script>/x"><img src=x onerror=alert(6)>'


def test_hostile_repository_strings_never_run_in_the_browser(tmp_path: Path) -> None:
    chromium = shutil.which("chromium")
    assert chromium, "Debian's chromium is needed (apt-get install chromium; .ci/run installs it)"
    remote = Remote.create(tmp_path)
    with Daemon.start(remote.bare, "--interval", "60", log_path=tmp_path / "daemon.log") as daemon:
        wait_for(lambda: daemon.runs() == 1, "the initial reconcile")
        user = remote.user
        git(user.path, "pull", "-q", "--ff-only")  # the daemon's reconcile commit
        user.write(
            FILE_NAME, f"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {VALUE}\n  namespace: shop\n"
        )
        user.commit(SUBJECT)
        git(user.path, "push", "-q", "origin", "main")
        wait_for(lambda: daemon.runs("invalid") == 1, "the run that reports the hostile input")
        _, html = daemon.get("/")
        assert "&lt;img src=x onerror" in html, "the file name is on the page, escaped"
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=chromium, args=CHROMIUM_ARGS)
            try:
                page = browser.new_page()
                dialogs: list[str] = []

                def dismiss(dialog: Dialog) -> None:
                    dialogs.append(dialog.message)
                    dialog.dismiss()

                page.on("dialog", dismiss)
                page.goto(daemon.url + "/")
                problems = page.locator("#problems").inner_text()
                assert FILE_NAME in problems, problems
                explain = "/explain?" + urllib.parse.urlencode({"template": TEMPLATE})
                for path in ("/", explain):
                    page.goto(daemon.url + path)
                    assert page.evaluate("typeof window.__pwned") == "undefined", path
                    assert page.locator("script, img, svg").count() == 0, path
                assert TEMPLATE in page.locator("h1").inner_text()
                assert dialogs == []
            finally:
                browser.close()
        assert daemon.terminate() == 0
