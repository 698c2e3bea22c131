"""The web UI is the operator's control plane (the design's rule 10): every web UI the suite
makes (make run's, a load target's with UI=1, a deployed master's) answers its operator only.

* Who may drive it. A request that starts, stops, resets or changes a run (any method but
  GET, HEAD and OPTIONS) must come from the UI's own page. Locust's page posts /swarm with
  fetch and carries no token, so the proof is the one a browser gives and no page can forge:
  its Origin header (without one, its Referer), and Sec-Fetch-Site, naming the UI's own
  origin. A request with none of them comes from no browser (curl, the tests): the operator's,
  behind the login when there is one. Locust answers CORS for every origin; here only for the
  UI's own.
* Where it listens. Without a login only on a loopback address, answering only requests
  addressed to a loopback name: a page on a name made to resolve to 127.0.0.1 (DNS
  rebinding) is refused. With Locust's login (--web-login; WEB_LOGIN=true sets it) every
  page and call but the login's own wants the user ``operator`` and the password kept in
  WEB_LOGIN_PASSWORD_FILE (the owner's alone; made once if missing; its path is logged, never
  its value).
* What /swarm takes. Locust copies every form key that names one of its options into the
  parsed options, hidden ones included (the run folder, --json-file, --html ...): only Locust's
  standard fields and the custom parameters the page offers are taken, any other is refused
  (400) naming it. A capitalised name is left to make run's start form where there is one
  (run/start_form.py): it names the nearest setting. There its PROFILE picks the run's
  profile, and the page neither shows nor posts Locust's own "profile" (a label grouping
  Locust's test runs, easily taken for it): /swarm refuses that one too.
* What every answer carries: never framed (a framed Start button is clickjacking), never
  sniffed; the suite's own pages add a policy of their own (run/webpages.py).
"""

import hmac
import ipaddress
import os
import secrets
from collections.abc import Mapping
from pathlib import Path
from urllib.parse import urlsplit

from flask import Response, jsonify, redirect, request, session, url_for
from flask_login import UserMixin, current_user, login_user
from werkzeug.datastructures import Headers

from common.environment import get
from locustfiles.suite.core.names import WEB_OPERATOR as OPERATOR
from locustfiles.suite.run.session import logger

SWARM = "locust.swarm"  # the endpoint of Locust's POST /swarm (its blueprint's name, "locust")
# What Locust's own page posts to /swarm besides its custom parameters (webui/dist: the start
# form, the edit form of a running test, the user class picker).
SWARM_FIELDS = frozenset(
    {"user_count", "spawn_rate", "host", "run_time", "user_classes", "shape_class", "profile"}
)
# Locust's --profile, which make run's page hides where its start form's PROFILE is
# (run/static/suite-ui.js).
LOCUST_PROFILE = "profile"
READS = frozenset({"GET", "HEAD", "OPTIONS"})
# A form of some 30 fields of at most 200 characters (core/start_form.py) fits many times over.
MAX_BODY = 64 * 1024
LOGIN = "/suite/login"
# What a browser may load without the login: the login page, its script and styles, its form.
OPEN_ENDPOINTS = frozenset({"locust.login", "locust.send_assets", "suite_login", "static"})
NO_FRAMING = "frame-ancestors 'none'"


class ControlPlane:
    """The rules above on ``web_ui`` (Locust's WebUI); ``offered``: the custom parameters its
    page shows (Locust's template arguments), ``form_names_settings``: make run's start form
    refuses capitalised names itself, and its page does not post Locust's own profile."""

    def __init__(self, web_ui, form_names_settings: bool):
        self.web_ui = web_ui
        standard = SWARM_FIELDS - {LOCUST_PROFILE} if form_names_settings else SWARM_FIELDS
        self.fields = standard | set(web_ui.template_args.get("extra_options") or {})
        self.form_names_settings = form_names_settings
        self.login = bool(web_ui.web_login)
        self.password: str | None = None

    def attach(self) -> None:
        """Before the UI serves: refused at once (SystemExit) when it would listen beyond this
        machine with no login, or its password file is not the owner's alone."""
        bound = self.web_ui.host
        if not self.login and not loopback(bound):
            raise SystemExit(
                f"the web UI would listen on {bound or 'every address'} with no login: listen on "
                "127.0.0.1 (--web-host) or require the login (--web-login, WEB_LOGIN=true)"
            )
        app = self.web_ui.app
        app.config["MAX_CONTENT_LENGTH"] = MAX_BODY
        if self.login:
            self.password = login_password(Path(get("WEB_LOGIN_PASSWORD_FILE")))
            self.add_login()
        app.before_request(self.check)
        app.after_request(self.headers)

    def add_login(self) -> None:
        app, web_ui = self.web_ui.app, self.web_ui
        app.config["SECRET_KEY"] = secrets.token_bytes(32)  # a session lasts as long as the process
        # Cookies ignore ports: each web UI of this machine keeps its own.
        app.config["SESSION_COOKIE_NAME"] = f"locust-session-{web_ui.port}"
        app.config["SESSION_COOKIE_SAMESITE"] = "Strict"
        web_ui.login_manager.user_loader(lambda user_id: Operator() if user_id == OPERATOR else None)
        web_ui.auth_args = {"username_password_callback": LOGIN, "title": "Locust: log in"}
        app.add_url_rule(LOGIN, "suite_login", self.log_in, methods=["POST"])
        logger.info(f"web login required: user {OPERATOR}, the password in {get('WEB_LOGIN_PASSWORD_FILE')}")

    def log_in(self):
        given = request.form.get("password", "").encode()
        if request.form.get("username") == OPERATOR and hmac.compare_digest(given, self.password.encode()):
            login_user(Operator())
            return redirect(url_for("locust.index"))
        session["auth_error"] = "Wrong user name or password."
        return redirect(url_for("locust.login"))

    def check(self) -> Response | None:
        """A refusal, or None to let the request through."""
        addressed = host_name(request.host)
        if not self.login and not loopback(addressed):
            return refused(403, f"this web UI answers requests to 127.0.0.1 or localhost, not to {addressed}")
        if request.method not in READS:
            foreign = foreign_origin(request.headers, request.host)
            if foreign is not None:
                return refused(
                    403,
                    f"refused: {request.method} {request.path} from {foreign}: only the web UI's own page "
                    "starts, stops or changes a run",
                )
        if self.login and not current_user.is_authenticated and request.endpoint not in OPEN_ENDPOINTS:
            if request.method in READS:
                return self.web_ui.login_manager.unauthorized()
            return refused(401, "log in first")
        if request.endpoint == SWARM and request.method == "POST":
            field = self.refused_field(request.form)
            if field is not None:
                return refused(
                    400,
                    f"{field[:100]}: /swarm does not take it (only Locust's start fields and the form's own)",
                )
        return None

    def refused_field(self, form: Mapping[str, str]) -> str | None:
        """The first of ``form``'s names /swarm does not take, or None."""
        for name in form:
            if name in self.fields or (name.isupper() and self.form_names_settings):
                continue
            return name
        return None

    def headers(self, response: Response) -> Response:
        # Locust's CORS (flask-cors, for every origin) leaves alone an answer that already names
        # its origin; on an error it has named the asker's already: that goes too.
        for name in [name for name in response.headers.keys() if name.lower().startswith("access-control-")]:
            del response.headers[name]
        response.headers["Access-Control-Allow-Origin"] = f"{request.scheme}://{request.host}"
        response.vary.add("Origin")
        response.headers.setdefault("Content-Security-Policy", NO_FRAMING)
        response.headers["X-Frame-Options"] = "DENY"
        response.headers["X-Content-Type-Options"] = "nosniff"
        return response


class Operator(UserMixin):
    """The one user of a web UI with a login."""

    def get_id(self) -> str:
        return OPERATOR


def refused(status: int, message: str) -> Response:
    """A refusal in the shape of Locust's own /swarm answers (its page shows ``message``)."""
    answer = jsonify({"success": False, "message": message})
    answer.status_code = status
    return answer


def foreign_origin(headers: Mapping[str, str] | Headers, own: str) -> str | None:
    """The other origin a browser says a request comes from (``own``: the UI's host[:port] as
    the request addressed it), or None: the UI's own page, or no browser."""
    site = headers.get("Sec-Fetch-Site")
    if site and site not in ("same-origin", "none"):
        return headers.get("Origin") or f"a {site} page"
    origin = headers.get("Origin")
    if origin is not None:  # "null" included: a sandboxed frame, a page that hides its origin
        return None if netloc(origin) == own else origin[:100]
    referer = headers.get("Referer")
    if referer:
        return None if netloc(referer) == own else referer[:100]
    return None


def netloc(url: str) -> str:
    try:
        return urlsplit(url).netloc
    except ValueError:
        return ""


def host_name(host: str) -> str:
    """The name in a Host header ("127.0.0.1:PORT", "[::1]:PORT"), lower case."""
    try:
        return urlsplit(f"//{host}").hostname or ""
    except ValueError:
        return ""


def loopback(name: str) -> bool:
    if name.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(name).is_loopback
    except ValueError:
        return False


def login_password(path: Path) -> str:
    """The login's password, read from ``path``, which must be the owner's alone; made there
    once if there is none (its value never printed)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        made = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        pass
    else:
        with os.fdopen(made, "w") as handle:
            handle.write(secrets.token_urlsafe(18))
        logger.warning(f"web login: a password was made in {path}")
    mode = path.stat().st_mode & 0o777
    if mode & 0o077:
        raise SystemExit(f"{path} may be read by others (mode {mode:o}): chmod 600 {path}")
    password = path.read_text().strip()
    if not password:
        raise SystemExit(f"{path} is empty: write the web UI's password into it, or remove it for a new one")
    return password
