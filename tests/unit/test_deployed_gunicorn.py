"""The gunicorn configurations the Ansible roles write (roles/*/templates/gunicorn.conf.py.j2)
load: they call settings/gunicorn_common.py, and a change of its signature must not reach a
deployed host first."""

import json
import os
import subprocess
import sys
from pathlib import Path

import jinja2
import pytest

ROOT = Path(__file__).resolve().parents[2]


def render(role: str, prefix: str, port: int, run_dir: Path) -> str:
    environment = jinja2.Environment(undefined=jinja2.StrictUndefined)
    environment.filters["bool"] = lambda value: str(value).lower() in ("1", "true", "yes", "on")
    environment.filters["to_json"] = json.dumps  # Ansible's filter
    template = (ROOT / "ansible" / "roles" / role / "templates" / "gunicorn.conf.py.j2").read_text()
    values = {
        "binds": [f"127.0.0.1:{port}"],
        "forwarded_allow_ips": ["127.0.0.1"],
        "run_dir": str(run_dir),
        "log_dir": str(run_dir),
        "workers": 3,
        "worker_class": "gevent",
        "worker_connections": 100,
        "timeout": 30,
        "graceful_timeout": 30,
        "max_requests": 20000,
        "max_requests_jitter": 2000,
        "access_log": False,
    }
    return environment.from_string(template).render(
        ansible_managed="test",
        **{f"{prefix}_{name}": value for name, value in values.items()},
    )


@pytest.mark.parametrize(
    "role, prefix, port", [("ecommerce", "ecommerce", 28130), ("lms_stub", "lms_stub", 28000)]
)
def test_the_deployed_configuration_loads_with_the_hosts_values(tmp_path, role, prefix, port):
    config = tmp_path / "gunicorn.conf.py"
    config.write_text(render(role, prefix, port, tmp_path))
    probe = (
        "import json, runpy, sys; c = runpy.run_path(sys.argv[1]); "
        "print(json.dumps({k: c[k] for k in ('bind', 'workers', 'wsgi_app', 'pidfile')} "
        "| {'post_worker_init': callable(c.get('post_worker_init'))}))"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe, str(config)],
        cwd=ROOT,
        env={**os.environ, "VAR_DIR": str(tmp_path / "var")},
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr
    loaded = json.loads(done.stdout.strip().splitlines()[-1])
    assert loaded == {
        "bind": [f"127.0.0.1:{port}"],
        "workers": 3,
        "wsgi_app": f"{role}.wsgi:application",
        "pidfile": str(tmp_path / f"{role}.pid"),
        "post_worker_init": True,
    }
