"""Settings: the 2015 lessons are configured, and production refuses to run on defaults."""

import os
import re
import secrets
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from django.conf import settings

from common import environment
from tests.support import processes

ROOT = Path(__file__).resolve().parents[2]
SECRETS = {
    "ECOMMERCE_SECRET_KEY": "s" * 64,
    "JWT_SECRET_KEY": "j" * 64,
    "EDX_API_KEY": "e" * 40,
    "CYBERSOURCE_SECRET_KEY": "c" * 40,
    "ECOMMERCE_DB_PASSWORD": "p" * 20,
    "ECOMMERCE_ALLOWED_HOSTS": "orders.example.com",
}
# What a management command that makes tables is given (scripts/stack.sh, as_owner), never the
# services: none of it reaches a check unless a test sets it.
OWNER = ("DB_ACCOUNT", "MYSQL_OWNER_USER", "MYSQL_OWNER_PASSWORD")


def run_check(env_changes: dict, *options: str) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k not in SECRETS and k not in OWNER}
    env.update(env_changes, DJANGO_SETTINGS_MODULE="settings.production")
    return subprocess.run(
        [sys.executable, "manage.py", "check", *options],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
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


def test_production_passes_the_deployment_checklist_with_no_warning():
    secrets_ = {**SECRETS, "ECOMMERCE_SECRET_KEY": secrets.token_urlsafe(50)}
    result = run_check(secrets_, "--deploy", "--fail-level", "WARNING")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "no issues" in result.stdout


# The values the repository publishes for each secret: its local default in
# common/environment's table and its example in ansible/group_vars/all/vault.yml.example
# (vault_ and the name in lower case).
VAULT_EXAMPLE = yaml.safe_load((ROOT / "ansible/group_vars/all/vault.yml.example").read_text())


def published_values(names) -> list:
    return [
        pytest.param(name, value, id=f"{name}-{kind}")
        for name in names
        for kind, value in (
            ("local-default", environment.default(name, env={})),
            ("vault-example", VAULT_EXAMPLE["vault_" + name.lower()]),
        )
    ]


@pytest.mark.parametrize(
    "name, value",
    published_values(
        [
            "ECOMMERCE_SECRET_KEY",
            "JWT_SECRET_KEY",
            "EDX_API_KEY",
            "CYBERSOURCE_SECRET_KEY",
            "ECOMMERCE_DB_PASSWORD",
        ]
    ),
)
def test_production_refuses_the_published_values(name, value):
    result = run_check({**SECRETS, name: value})
    assert result.returncode != 0
    assert "still have a value published in the repository (" in result.stderr
    assert result.stderr.rstrip().endswith(f": {name}")


# --- Database accounts (docs/configuration.md, "Database accounts") ---------------------------------------


def database_setting(module: str, env_changes: dict) -> str:
    """USER of the default database as ``module`` resolves it in a child process."""
    env = {
        k: v for k, v in os.environ.items() if k not in OWNER and not k.endswith(("_DB_USER", "_DB_PASSWORD"))
    }
    env.update(env_changes, DJANGO_SETTINGS_MODULE=module)
    code = (
        "from django.conf import settings; d = settings.DATABASES['default']; print(d['USER'], d['PASSWORD'])"
    )
    return processes.succeed([sys.executable, "-c", code], env).stdout.strip()


@pytest.mark.parametrize(
    "module, user, password",
    [
        ("settings.local", "ECOMMERCE_DB_USER", "ECOMMERCE_DB_PASSWORD"),
        ("settings.lms_stub", "LMS_DB_USER", "LMS_DB_PASSWORD"),
    ],
)
def test_each_service_connects_as_its_own_account_and_a_migration_as_the_owner(module, user, password):
    own = f"{environment.get(user, env={})} {environment.get(password, env={})}"
    owner = f"{environment.get('MYSQL_OWNER_USER', env={})} {environment.get('MYSQL_OWNER_PASSWORD', env={})}"
    assert own != owner
    assert database_setting(module, {}) == own
    assert database_setting(module, {"DB_ACCOUNT": "owner"}) == owner


@pytest.mark.parametrize("module", ["settings.local", "settings.lms_stub"])
def test_a_services_queries_wait_db_read_timeout_for_an_answer_and_a_migration_waits_forever(module):
    env = {k: v for k, v in os.environ.items() if k not in ("DB_READ_TIMEOUT", "DB_ACCOUNT")}
    code = (
        "from django.conf import settings; o = settings.DATABASES['default']['OPTIONS'];"
        " print(o.get('read_timeout'), o.get('write_timeout'))"
    )

    def timeouts(changes: dict) -> str:
        return processes.succeed(
            [sys.executable, "-c", code], {**env, **changes, "DJANGO_SETTINGS_MODULE": module}
        ).stdout.strip()

    assert timeouts({"DB_READ_TIMEOUT": "10"}) == "10.0 10.0"
    assert timeouts({"DB_READ_TIMEOUT": "10", "DB_ACCOUNT": "owner"}) == "None None"
    assert timeouts({}) == "None None"  # 0 by default: no limit


def test_an_unknown_database_account_is_refused():
    result = run_check({**SECRETS, "DB_ACCOUNT": "root"})
    assert result.returncode != 0
    assert "DB_ACCOUNT must be one of app, owner, not 'root'." in result.stderr


def test_a_production_migration_needs_the_owners_password_not_the_services():
    owner = {**SECRETS, "DB_ACCOUNT": "owner"}
    del owner["ECOMMERCE_DB_PASSWORD"]
    missing = run_check(owner)
    assert missing.returncode != 0 and missing.stderr.rstrip().endswith(": MYSQL_OWNER_PASSWORD")
    assert run_check({**owner, "MYSQL_OWNER_PASSWORD": "o" * 20}).returncode == 0
    published = run_check({**owner, "MYSQL_OWNER_PASSWORD": VAULT_EXAMPLE["vault_mysql_owner_password"]})
    assert published.returncode != 0
    assert published.stderr.rstrip().endswith("vault.yml.example): MYSQL_OWNER_PASSWORD")


def production_setting(name: str, env_changes: dict) -> str:
    env = {k: v for k, v in os.environ.items() if k not in SECRETS and k != "SERVER_TIMING"}
    env.update(SECRETS, **env_changes, DJANGO_SETTINGS_MODULE="settings.production")
    done = processes.succeed(
        [sys.executable, "-c", f"from django.conf import settings; print(settings.{name})"], env
    )
    return done.stdout.strip()


@pytest.mark.parametrize(
    "value, sent", [(None, "False"), ("", "False"), ("true", "True"), ("false", "False")]
)
def test_production_sends_server_timing_only_when_the_deployment_asks(value, sent):
    """The header tells any client how long the database and the LMS took; the load-test
    inventories set SERVER_TIMING (tests/unit/test_deployment_server_timing.py checks they do)."""
    assert production_setting("SERVER_TIMING", {} if value is None else {"SERVER_TIMING": value}) == sent


# What a committed secret looks like: private keys, cloud and New Relic keys, and assignments of
# a password, secret, token or key to a literal that is not a documented local default.
SECRET_PATTERNS = [
    re.compile(r"-----BEGIN [A-Z ]*PRIVATE KEY-----"),
    re.compile(r"\bAKIA[0-9A-Z]{16}\b"),
    re.compile(r"\b[0-9a-f]{36}NRAL\b"),
    re.compile(r"\bNRAK-[0-9A-Z]{27}\b"),
    re.compile(r"\bgh[pousr]_[A-Za-z0-9]{36}\b"),
    re.compile(
        r"(?i)(password|passwd|secret|token|api_key|license_key)\w*[\"']?\s*[:=]\s*[\"']"
        r"(?!local-only|orders-local|[a-z_-]*(test|example|staff|change|load-suite|integration)[a-z_-]*[\"'])"
        r"[A-Za-z0-9+/=_-]{16,}[\"']"
    ),
]


def test_no_secret_in_the_repository():
    files = subprocess.run(
        ["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout.split()
    found = []
    for name in files:
        path = ROOT / name
        if not path.is_file() or path.suffix in (".png", ".jpg", ".gz"):
            continue
        text = path.read_text(errors="ignore")
        for pattern in SECRET_PATTERNS:
            found += [f"{name}: {m.group(0)[:60]}" for m in pattern.finditer(text)]
    assert not found, found


def test_the_secret_scan_finds_what_it_looks_for():
    # Put together here, so the scan of this very file finds none of them.
    samples = [
        "-----BEGIN RSA " + "PRIVATE KEY-----",
        "AKIA" + "ABCDEFGHIJKLMNOP",
        "JWT_SECRET_KEY = " + '"Zx81kLmN0pQrStUvWxYz1234"',
        "newrelic_license_key: " + "'a1b2c3d4e5f6a7b8c9d0a1b2c3d4e5f6a7b8" + "NRAL'",
    ]
    for sample in samples:
        assert any(p.search(sample) for p in SECRET_PATTERNS), sample
    assert not any(p.search('EDX_API_KEY = "local-only-edx-api-key"') for p in SECRET_PATTERNS)


LMS_SECRETS = {
    "LMS_SECRET_KEY": "l" * 64,
    "JWT_SECRET_KEY": "j" * 64,
    "EDX_API_KEY": "e" * 40,
    "LMS_DB_PASSWORD": "p" * 20,
}


def lms_check(env_changes: dict) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k not in LMS_SECRETS and k not in OWNER}
    env.update(env_changes, LMS_REQUIRE_SECRETS="true", DJANGO_SETTINGS_MODULE="settings.lms_stub")
    return subprocess.run(
        [sys.executable, "manage.py", "check"], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120
    )


def test_a_deployed_lms_stub_refuses_missing_secrets():
    result = lms_check({"JWT_SECRET_KEY": "j" * 64, "LMS_DB_PASSWORD": "p" * 20})
    assert result.returncode != 0
    assert "need these environment variables: LMS_SECRET_KEY, EDX_API_KEY" in result.stderr


@pytest.mark.parametrize(
    "name, value", published_values(["LMS_SECRET_KEY", "JWT_SECRET_KEY", "EDX_API_KEY", "LMS_DB_PASSWORD"])
)
def test_a_deployed_lms_stub_refuses_the_published_values(name, value):
    result = lms_check({**LMS_SECRETS, name: value})
    assert result.returncode != 0
    assert "still have a value published in the repository (" in result.stderr
    assert result.stderr.rstrip().endswith(f": {name}")


def test_lms_stub_refuses_to_sign_tokens_ecommerce_would_refuse_as_living_too_long():
    result = lms_check({**LMS_SECRETS, "JWT_LIFETIME_SECONDS": "7200", "JWT_MAX_LIFETIME_SECONDS": "3600"})
    assert result.returncode != 0
    assert "JWT_LIFETIME_SECONDS (7200) is over JWT_MAX_LIFETIME_SECONDS (3600)" in result.stderr
    assert lms_check({**LMS_SECRETS, "JWT_LIFETIME_SECONDS": "3600"}).returncode == 0


def test_a_deployed_lms_stub_starts_with_its_secrets():
    result = lms_check(LMS_SECRETS)
    assert result.returncode == 0, result.stderr
    assert "no issues" in result.stdout


# --- Mail (issue 28: a password-reset link in a log file is the account) -----------------------

SEND_MAIL = """
import django
django.setup()
from django.conf import settings
from django.core.mail import send_mail
print(settings.EMAIL_BACKEND)
send_mail("Password reset", "https://orders.example.com/reset/SECRET-LINK-4711/", None, ["x@example.com"])
"""


def test_production_mail_never_reaches_a_log():
    env = {k: v for k, v in os.environ.items() if k not in SECRETS and not k.startswith("ECOMMERCE_SMTP")}
    env.update(SECRETS, DJANGO_SETTINGS_MODULE="settings.production")
    done = processes.succeed([sys.executable, "-c", SEND_MAIL], env)
    assert "SECRET-LINK-4711" not in done.stdout + done.stderr
    assert done.stdout.split()[0] == "django.core.mail.backends.dummy.EmailBackend"


def test_production_mail_goes_to_the_smtp_server_a_deployment_names():
    smtp = {"ECOMMERCE_SMTP_HOST": "smtp.example.com", "ECOMMERCE_SMTP_PORT": "2525"}
    assert production_setting("EMAIL_BACKEND", smtp) == "django.core.mail.backends.smtp.EmailBackend"
    assert production_setting("EMAIL_HOST", smtp) == "smtp.example.com"
    assert production_setting("EMAIL_PORT", smtp) == "2525"


def test_what_the_scripts_start_writes_files_no_other_user_may_read(tmp_path):
    """scripts/lib.sh (sourced by every script, stack.sh included) sets umask 027: the services'
    logs, pid files and databases are the owner's and its group's only."""
    script = f"source {ROOT}/scripts/lib.sh; umask; : >{tmp_path}/service.log; mkdir {tmp_path}/log"
    done = subprocess.run(["bash", "-c", script], capture_output=True, text=True, timeout=60, check=True)
    assert done.stdout.split() == ["0027"]
    assert (tmp_path / "service.log").stat().st_mode & 0o777 == 0o640
    assert (tmp_path / "log").stat().st_mode & 0o777 == 0o750
