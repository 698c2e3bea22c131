"""Settings: the 2015 lessons are configured, and production refuses to run on defaults."""

import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.conf import settings

ROOT = Path(__file__).resolve().parents[2]
SECRETS = {
    "ECOMMERCE_SECRET_KEY": "s" * 64,
    "JWT_SECRET_KEY": "j" * 64,
    "EDX_API_KEY": "e" * 40,
    "MYSQL_PASSWORD": "p" * 20,
    "ECOMMERCE_ALLOWED_HOSTS": "orders.example.com",
}


def run_check(env_changes: dict) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k not in SECRETS}
    env.update(env_changes, DJANGO_SETTINGS_MODULE="settings.production")
    return subprocess.run(
        [sys.executable, "manage.py", "check"], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120
    )


def test_requests_are_atomic_with_autocommit_on():
    database = settings.DATABASES["default"]
    assert database["ATOMIC_REQUESTS"] is True
    assert database["AUTOCOMMIT"] is True


@pytest.mark.parametrize("missing", sorted(SECRETS))
def test_production_refuses_to_start_without_a_secret(missing):
    env = {name: value for name, value in SECRETS.items() if name != missing}
    result = run_check(env)
    assert result.returncode != 0
    assert "ImproperlyConfigured" in result.stderr
    assert missing in result.stderr


def test_production_starts_with_its_secrets():
    result = run_check(SECRETS)
    assert result.returncode == 0, result.stderr
    assert "no issues" in result.stdout


def test_a_deployed_lms_stub_refuses_the_local_defaults():
    env = {
        k: v for k, v in os.environ.items() if k not in ("LMS_SECRET_KEY", "JWT_SECRET_KEY", "EDX_API_KEY")
    }
    env.update(LMS_REQUIRE_SECRETS="true", DJANGO_SETTINGS_MODULE="settings.lms_stub")
    result = subprocess.run(
        [sys.executable, "manage.py", "check"], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120
    )
    assert result.returncode != 0
    assert "LMS_SECRET_KEY" in result.stderr and "EDX_API_KEY" in result.stderr
