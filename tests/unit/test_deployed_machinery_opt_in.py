"""A deployment exposes no load-test machinery unless it opts in: lms_stub's /auto_auth, fault
API and payment processor stand-in in a deployed stand-in (LMS_REQUIRE_SECRETS), Oscar's
storefront under settings.production.
Each case is a process started with the deployment's settings module and environment, as
gunicorn would start it; the requests it makes need no database."""

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from common import environment
from tests.support import processes

ROOT = Path(__file__).resolve().parents[2]

ECOMMERCE = {
    "DJANGO_SETTINGS_MODULE": "settings.production",
    "ECOMMERCE_SECRET_KEY": "s" * 64,
    "JWT_SECRET_KEY": "j" * 64,
    "EDX_API_KEY": "e" * 40,
    "CYBERSOURCE_SECRET_KEY": "c" * 40,
    "ECOMMERCE_DB_PASSWORD": "p" * 20,
    "ECOMMERCE_ALLOWED_HOSTS": "orders.example.com",
}
LMS = {
    "DJANGO_SETTINGS_MODULE": "settings.lms_stub",
    "LMS_REQUIRE_SECRETS": "true",
    "LMS_SECRET_KEY": "l" * 64,
    "JWT_SECRET_KEY": "j" * 64,
    "EDX_API_KEY": "e" * 40,
    "LMS_DB_PASSWORD": "p" * 20,
}
FAULT_KEY = "f" * 40
PROCESSOR_KEY = "c" * 40
PROCESSOR_PAGES = ["/processor/cybersource/pay/", "/processor/cybersource/pay/confirm/"]

# Requests each path (GET, over https as behind the load balancer) and resolves it; prints JSON.
PROBE = """
import json, sys
import django
django.setup()
from django.test import Client
from django.urls import Resolver404, resolve

host, paths, headers = sys.argv[1], json.loads(sys.argv[2]), json.loads(sys.argv[3])
client = Client(HTTP_HOST=host, **headers)
answers = {}
for path in paths:
    url = path.lstrip("!")
    try:
        match = resolve(url.split("?")[0])
        view = match.view_name if match.url_name else match.func.__name__
    except Resolver404:
        view = None
    answers[path] = {"view": view}
    if path.startswith("!"):
        continue
    response = client.get(url, secure=True)
    answers[path].update(
        status=response.status_code,
        type=response.get("Content-Type", ""),
        location=response.get("Location"),
        body=response.content.decode(errors="replace"),
    )
print(json.dumps(answers))
"""


def probe(env_changes: dict, paths: list[str], host: str, headers: dict | None = None):
    """(answers by path, the process's stderr). A path that starts with "!" is only resolved:
    its view would need the database."""
    env = {k: v for k, v in os.environ.items() if k not in environment.VARIABLES}
    env.update(env_changes, PYTHONPATH=str(ROOT))
    done = processes.succeed(
        [sys.executable, "-c", PROBE, host, json.dumps(paths), json.dumps(headers or {})], env
    )
    return json.loads(done.stdout.splitlines()[-1]), done.stderr


def warnings(stderr: str) -> list[str]:
    """The WARNING lines, less Django's own for each 404 answered."""
    return [line for line in stderr.splitlines() if " WARNING " in line and " django.request " not in line]


def is_json_404(answer: dict) -> bool:
    return (
        answer["status"] == 404
        and answer["type"] == "application/json"
        and json.loads(answer["body"])["error"] == "not_found"
    )


# --- lms_stub ------------------------------------------------------------------------------------


def test_a_deployed_stand_in_routes_no_auto_auth_no_fault_api_and_no_payment_processor():
    answers, stderr = probe(
        LMS,
        ["/auto_auth", "/api/faults/", *PROCESSOR_PAGES, "/api/schema/"],
        "127.0.0.1",
        {"HTTP_X_FAULT_API_KEY": FAULT_KEY},
    )
    for path in ["/auto_auth", "/api/faults/", *PROCESSOR_PAGES]:
        assert is_json_404(answers[path]), answers[path]
        assert answers[path]["view"] is None
    paths = json.loads(answers["/api/schema/"]["body"])["paths"]
    assert "/auto_auth" not in paths and "/api/faults/" not in paths
    assert not [path for path in paths if path.startswith("/processor/")]
    assert "/api/enrollment/v1/enrollment" in paths  # the API itself stays
    assert warnings(stderr) == []


def test_a_load_test_stand_in_opts_in_and_says_so_at_start():
    opted_in = {
        **LMS,
        "LMS_AUTO_AUTH": "true",
        "LMS_FAULT_CONTROL": "true",
        "LMS_FAULT_API_KEY": FAULT_KEY,
        "LMS_PAYMENT_PROCESSOR": "true",
        "LMS_PROCESSOR_SECRET_KEY": PROCESSOR_KEY,
    }
    answers, stderr = probe(
        opted_in,
        ["!/auto_auth", "!/api/faults/", "!/processor/cybersource/pay/", "/api/schema/"],
        "127.0.0.1",
    )
    assert answers["!/auto_auth"]["view"] == "auto_auth"
    assert answers["!/api/faults/"]["view"] == "faults"
    assert answers["!/processor/cybersource/pay/"]["view"] == "processor-pay"
    assert answers["/api/schema/"]["status"] == 200
    paths = json.loads(answers["/api/schema/"]["body"])["paths"]
    assert {"/auto_auth", "/api/faults/", *PROCESSOR_PAGES} <= set(paths)
    said = warnings(stderr)
    assert len(said) == 3, stderr
    assert "lms_stub.learners.apps LMS_AUTO_AUTH is on in a deployed stand-in" in said[0]
    assert "lms_stub.faults.apps LMS_FAULT_CONTROL is on in a deployed stand-in" in said[1]
    assert "lms_stub.processor.apps LMS_PAYMENT_PROCESSOR is on in a deployed stand-in" in said[2]


def test_auto_auth_alone_needs_no_fault_key():
    answers, stderr = probe({**LMS, "LMS_AUTO_AUTH": "yes"}, ["/api/faults/"], "127.0.0.1")
    assert is_json_404(answers["/api/faults/"])
    assert [line.split(" WARNING ")[1].split()[1] for line in warnings(stderr)] == ["LMS_AUTO_AUTH"]


def lms_check(env_changes: dict) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k not in environment.VARIABLES}
    env.update(LMS, **env_changes)
    return subprocess.run(
        [sys.executable, "manage.py", "check"], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120
    )


@pytest.mark.parametrize(
    "key, refusal",
    [
        (None, "need these environment variables: LMS_FAULT_API_KEY"),
        (
            "local-only-fault-api-key",
            "published in the repository (a local default of common/environment/ or an example of "
            "ansible/group_vars/all/vault.yml.example): LMS_FAULT_API_KEY",
        ),
        ("e" * 40, "LMS_FAULT_API_KEY must differ from EDX_API_KEY"),
    ],
)
def test_fault_control_in_a_deployed_stand_in_needs_its_own_key(key, refusal):
    assert environment.default("LMS_FAULT_API_KEY", env={}) == "local-only-fault-api-key"
    result = lms_check({"LMS_FAULT_CONTROL": "true", **({"LMS_FAULT_API_KEY": key} if key else {})})
    assert result.returncode != 0
    assert refusal in result.stderr
    assert lms_check({"LMS_FAULT_CONTROL": "true", "LMS_FAULT_API_KEY": FAULT_KEY}).returncode == 0


@pytest.mark.parametrize(
    "key, refusal",
    [
        (None, "need these environment variables: LMS_PROCESSOR_SECRET_KEY"),
        (
            "local-only-processor-stand-in-secret-key",
            "published in the repository (a local default of common/environment/ or an example of "
            "ansible/group_vars/all/vault.yml.example): LMS_PROCESSOR_SECRET_KEY",
        ),
    ],
)
def test_the_payment_processor_in_a_deployed_stand_in_needs_a_secret_of_its_own(key, refusal):
    assert (
        environment.default("LMS_PROCESSOR_SECRET_KEY", env={}) == "local-only-processor-stand-in-secret-key"
    )
    result = lms_check(
        {"LMS_PAYMENT_PROCESSOR": "true", **({"LMS_PROCESSOR_SECRET_KEY": key} if key else {})}
    )
    assert result.returncode != 0
    assert refusal in result.stderr
    assert (
        lms_check({"LMS_PAYMENT_PROCESSOR": "true", "LMS_PROCESSOR_SECRET_KEY": PROCESSOR_KEY}).returncode
        == 0
    )
    # The shop's key is not the stand-in's: set alone, it does not start one.
    assert (
        lms_check({"LMS_PAYMENT_PROCESSOR": "true", "CYBERSOURCE_SECRET_KEY": PROCESSOR_KEY}).returncode != 0
    )
    assert lms_check({}).returncode == 0  # off, the stand-in needs no processor secret


def test_a_local_stand_in_routes_all_and_warns_of_nothing():
    local = {"DJANGO_SETTINGS_MODULE": "settings.lms_stub"}
    answers, stderr = probe(
        local, ["!/auto_auth", "!/api/faults/", "!/processor/cybersource/pay/", "/api/schema/"], "127.0.0.1"
    )
    assert answers["!/auto_auth"]["view"] == "auto_auth"
    assert answers["!/api/faults/"]["view"] == "faults"
    assert answers["!/processor/cybersource/pay/"]["view"] == "processor-pay"
    assert warnings(stderr) == []
    paths = json.loads(answers["/api/schema/"]["body"])["paths"]
    assert {"/auto_auth", "/api/faults/", *PROCESSOR_PAGES} <= set(paths)


# --- ecommerce -----------------------------------------------------------------------------------

STOREFRONT = [
    "/",
    "/basket/",
    "/basket/add/1/",
    "/checkout/",
    "/checkout/payment-details/",
    "/accounts/register/",
    "/accounts/profile/",
    "/catalogue/",
    "/search/",
    # Oscar's account routes outside its sections: a reset link is the account (issue 28).
    "/password-reset/",
    "/password-reset/done/",
    "/password-reset/confirm/MQ/set-password/",
    "/password-reset/complete/",
    "/accounts/logout/",
    "/offers/",
    "/wishlists/",
]


def oscar_root_paths() -> list[str]:
    """A path under every pattern Oscar's URLconf mounts at the root, the dashboard aside
    (a converter or group filled with "x")."""
    from django.apps import apps

    found = []
    for pattern in apps.get_app_config("oscar").urls[0]:
        route = re.sub(r"<[^>]+>", "x", str(pattern.pattern))
        if route != "" and not route.startswith("dashboard/"):
            found.append("/" + route)
    return found


def test_production_closes_every_route_oscar_mounts_outside_the_dashboard():
    paths = oscar_root_paths()
    assert "/password-reset/" in paths and "/accounts/" in paths
    answers, _ = probe(ECOMMERCE, paths, "orders.example.com")
    for path in paths:
        assert answers[path]["status"] == 404, (path, answers[path])
        assert answers[path]["view"] == "storefront_not_found", (path, answers[path])


def test_production_answers_404_for_the_storefront():
    answers, stderr = probe(
        ECOMMERCE, [*STOREFRONT, "/accounts/login/?next=/dashboard/"], "orders.example.com"
    )
    for path in STOREFRONT:
        assert answers[path]["status"] == 404, (path, answers[path])
        assert answers[path]["view"] == "storefront_not_found", (path, answers[path])
    # Where Oscar's dashboard sends a logged-out user: the dashboard's own login, no registration.
    login = answers["/accounts/login/?next=/dashboard/"]
    assert (login["status"], login["location"]) == (302, "/dashboard/login/?next=/dashboard/")
    assert warnings(stderr) == []


def test_production_keeps_the_dashboard_and_the_api():
    paths = ["!/dashboard/", "!/dashboard/login/", "!/dashboard/orders/", "!/api/v2/baskets/", "!/health/"]
    answers, _ = probe(ECOMMERCE, paths, "orders.example.com")
    views = {path: answers[path]["view"] for path in paths}
    assert views["!/dashboard/login/"] == "dashboard:login"
    assert views["!/dashboard/orders/"] == "dashboard:order-list"
    assert views["!/dashboard/"] == "dashboard:index"
    assert views["!/api/v2/baskets/"] and views["!/health/"] == "health"


def test_a_load_test_deployment_opts_in_to_the_storefront_and_is_warned():
    answers, stderr = probe(
        {**ECOMMERCE, "ECOMMERCE_STOREFRONT": "true"},
        ["!/basket/", "!/accounts/register/"],
        "orders.example.com",
    )
    assert answers["!/basket/"]["view"] == "basket:summary"
    assert answers["!/accounts/register/"]["view"] == "customer:register"
    said = warnings(stderr)
    assert (
        len(said) == 1
        and "ecommerce.core.apps ECOMMERCE_STOREFRONT is on under production settings" in said[0]
    )


def test_settings_local_keeps_the_storefront():
    local = {"DJANGO_SETTINGS_MODULE": "settings.local"}
    answers, stderr = probe(local, ["!/basket/", "!/accounts/register/", "!/accounts/login/"], "127.0.0.1")
    assert answers["!/basket/"]["view"] == "basket:summary"
    assert answers["!/accounts/register/"]["view"] == "customer:register"
    assert answers["!/accounts/login/"]["view"] == "customer:login"
    assert warnings(stderr) == []


# --- The payment processor stand-in, seen from ecommerce (issue 28) ------------------------------

STAND_IN_PAGE = "https://lms.example.com/processor/cybersource/pay/"


def ecommerce_check(env_changes: dict) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k not in environment.VARIABLES}
    env.update(ECOMMERCE, **env_changes)
    return subprocess.run(
        [sys.executable, "manage.py", "check"], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120
    )


def test_a_deployed_ecommerce_paying_at_the_stand_in_without_the_switch_refuses_to_start():
    refused = ecommerce_check({"CYBERSOURCE_PAYMENT_PAGE_URL": STAND_IN_PAGE})
    assert refused.returncode != 0
    assert "CYBERSOURCE_PAYMENT_PAGE_URL points at lms_stub's payment processor stand-in" in refused.stderr
    assert "ECOMMERCE_PAYMENT_STAND_IN=true" in refused.stderr
    # Unset, a deployment's payment page is CyberSource's: it starts, and says nothing.
    started = ecommerce_check({})
    assert started.returncode == 0, started.stderr
    assert warnings(started.stderr) == []


def test_a_load_test_ecommerce_opts_in_to_the_stand_in_with_its_own_key_and_is_warned():
    opted_in = {"CYBERSOURCE_PAYMENT_PAGE_URL": STAND_IN_PAGE, "ECOMMERCE_PAYMENT_STAND_IN": "true"}
    assert "LMS_PROCESSOR_SECRET_KEY" in ecommerce_check(opted_in).stderr  # the published one will not do
    started = ecommerce_check({**opted_in, "LMS_PROCESSOR_SECRET_KEY": PROCESSOR_KEY})
    assert started.returncode == 0, started.stderr
    said = warnings(started.stderr)
    assert len(said) == 1 and "ecommerce.payment.apps ECOMMERCE_PAYMENT_STAND_IN is on" in said[0]
