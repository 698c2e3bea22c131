"""The browser suite's world: one stack of its own (scripts/stack.sh on free ports, databases
test_browser_*), the Locust web UI of `make run` against it, and Debian's chromium driven by
playwright. Every process started here is stopped by its PID at the end.

Screenshots are kept as test artefacts in var/artifacts/browser/ (BROWSER_ARTIFACTS overrides
it), named <test>-<step>.png; a failing test also leaves <test>-failed.png."""

import os
from pathlib import Path

import pytest
from playwright.sync_api import expect, sync_playwright

from tests.browser.helpers import Swarm
from tests.support.servers import AS_OWNER, manage
from tests.support.stack import LocustWebUI, stack_environment, stack_stop, stack_up

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = Path(os.environ.get("BROWSER_ARTIFACTS") or ROOT / "var" / "artifacts" / "browser")
DATABASES = ("test_browser_ecommerce", "test_browser_lms")
CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
# No sandbox: the suite runs as root here, where chromium refuses its sandbox. No background
# networking: the browser talks to 127.0.0.1 only.
CHROMIUM_ARGS = ["--no-sandbox", "--disable-background-networking"]
STAFF_USER = "dashboard-viewer"
STAFF_EMAIL = "dashboard-viewer@example.invalid"
STAFF_PASSWORD = "browser-suite-staff-password"
# How long a page may take to show what a test waits for (the stack is small and local).
UI_TIMEOUT_MS = 20_000


@pytest.fixture(scope="session")
def stack():
    # Short think time so a few seconds of two users place a handful of orders.
    env = stack_environment(
        "browserstack", DATABASES, ECOMMERCE_STAFF_PASSWORD=STAFF_PASSWORD, WAIT_MIN="0.5", WAIT_MAX="1"
    )
    stack_stop(env)  # services a crashed earlier run of this suite left behind
    try:
        stack_up(env)
        yield env
    finally:
        stack_stop(env)


@pytest.fixture
def locust_ui(stack):
    """A fresh Locust web UI per test, so that each one finds the start form."""
    ui = LocustWebUI(stack)
    try:
        ui.wait_ready()
        yield ui
    finally:
        ui.stop()


@pytest.fixture(scope="session")
def swarms() -> list[Swarm]:
    """The load runs the tests started, in order, for the tests that look at their orders."""
    return []


@pytest.fixture(scope="session")
def staff_login(stack) -> tuple[str, str, str]:
    """A staff user made by the project's own command, as `make up` makes its `staff`:
    username, password, email."""
    manage(
        "settings.local",
        "ensure_staff",
        "--username",
        STAFF_USER,
        "--email",
        STAFF_EMAIL,
        env={**stack, "ECOMMERCE_STAFF_PASSWORD": STAFF_PASSWORD, **AS_OWNER},
    )
    return STAFF_USER, STAFF_PASSWORD, STAFF_EMAIL


@pytest.fixture(scope="session")
def browser():
    expect.set_options(timeout=UI_TIMEOUT_MS)
    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            yield chromium
        finally:
            chromium.close()


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_runtest_makereport(item, call):
    report = yield
    setattr(item, f"report_{report.when}", report)
    return report


@pytest.fixture
def page(browser, request):
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    page = context.new_page()
    page.set_default_timeout(UI_TIMEOUT_MS)
    yield page
    report = getattr(request.node, "report_call", None)
    if report is not None and report.failed:
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=ARTIFACTS / f"{request.node.name}-failed.png", full_page=True)
    context.close()


@pytest.fixture
def screenshot(request):
    """screenshot(page, step): keep what the page shows now as <test>-<step>.png."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    for old in ARTIFACTS.glob(f"{request.node.name}-*.png"):
        old.unlink()

    def take(page, step: str) -> Path:
        path = ARTIFACTS / f"{request.node.name}-{step}.png"
        page.screenshot(path=path, full_page=True)
        return path

    return take
