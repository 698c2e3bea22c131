"""Issue 44 in a real browser: a page served from another local port posts make run's /swarm
(with fetch, and with a plain form) and frames the UI; Chromium sends what it sends, the UI
refuses both posts and the frame, and nothing starts. The UI's own Start then works."""

import json
import threading
import urllib.request
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer

import pytest
from playwright.sync_api import expect

from tests.browser.helpers import poll, start, status
from tests.support.servers import free_port

pytestmark = pytest.mark.slow

PAGE = """<!doctype html>
<html><head><title>another page</title></head><body>
<form id="form" method="post" action="{ui}/swarm">
  <input name="user_count" value="9"><input name="spawn_rate" value="9"><input name="host" value="{host}">
  <button id="post">Post the form</button>
</form>
<button id="fetch" onclick="fetch('{ui}/swarm', {{method: 'POST', mode: 'no-cors',
  body: new URLSearchParams({{user_count: '9', spawn_rate: '9', host: '{host}'}})}})">Fetch</button>
<iframe id="framed" src="{ui}/" width="800" height="400"></iframe>
</body></html>
"""


@pytest.fixture
def other_origin(tmp_path, locust_ui, stack):
    """The URL of a page served from another local port (http.server, in a thread stopped at
    the end) that posts to the web UI's /swarm and frames the UI."""
    (tmp_path / "page.html").write_text(PAGE.format(ui=locust_ui.url, host=stack["LMS_URL"]))
    handler = partial(SimpleHTTPRequestHandler, directory=str(tmp_path))
    server = ThreadingHTTPServer(("127.0.0.1", free_port()), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/page.html"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(10)


def locust_state(url: str) -> tuple[str, int]:
    with urllib.request.urlopen(url + "/stats/requests", timeout=10) as answer:
        stats = json.loads(answer.read())
    return stats["state"], stats["user_count"]


def test_a_page_of_another_port_is_refused_while_the_uis_own_start_works(
    stack, locust_ui, other_origin, page, screenshot
):
    page.goto(other_origin)
    page.wait_for_load_state("load")
    its_origin = other_origin.rsplit("/", 1)[0]

    # Framed, the UI shows nothing (frame-ancestors 'none'): Chromium puts its error page there
    # instead, and there is no Start button to click through.
    [framed] = [frame for frame in page.frames if frame != page.main_frame]
    poll(lambda: framed.url, lambda url: url.startswith("chrome-error://"), 10, "the framed UI's address")
    expect(page.frame_locator("#framed").get_by_role("button", name="Start")).to_have_count(0)
    screenshot(page, "other-origin")

    with page.expect_response(locust_ui.url + "/swarm") as fetched:
        page.click("#fetch")
    assert fetched.value.status == 403  # its body is the page's to read no more than ours

    with page.expect_navigation() as posted:
        page.click("#post")
    assert posted.value.status == 403
    refusal = json.loads(page.locator("body").inner_text())
    assert refusal["success"] is False and "only the web UI's own page" in refusal["message"]
    assert its_origin in refusal["message"]  # Chromium said where the post came from
    screenshot(page, "form-refused")

    page.wait_for_timeout(3000)  # the review saw its run under way 3 s after the post
    assert locust_state(locust_ui.url) == ("ready", 0)

    # The UI's own page: its Start button posts /swarm from the UI's origin, and the run starts.
    with page.expect_response(locust_ui.url + "/swarm") as own:
        start(page, locust_ui.url, stack)
    assert own.value.status == 200 and own.value.json()["success"]
    # Locust keeps its /stats/requests answer for 2 s: the state is read until it is new.
    poll(lambda: locust_state(locust_ui.url)[0], lambda state: state in ("spawning", "running"), 10, "state")
    screenshot(page, "own-start")
    page.get_by_role("button", name="Stop").click()
    status(page, "stopped")
