"""The order API client of the 2015 payment task, written here in place of
edx-ecommerce-api-client 1.1.2 over slumber 0.7.1 (whose 1.1.2 release exists only as a Python 2
wheel; see locustfile.py).

What it keeps, because it is what reached the wire or decided the outcome:

* the learner's token is attached to the *Locust user's* session (``session.auth``), so from
  then on every request that user makes carries ``Authorization: JWT <token>``, the
  notification to ecommerce and the later LMS calls included, until the next payment task
  replaces it;
* a fresh token is signed for every request: HS256, claims ``username``, ``full_name`` (null:
  the task gives none), ``email``, ``iss`` and ``exp`` 30 s ahead, in that order, no ``iat``;
* a resource URL is the API root joined with its path segments, with a trailing slash;
* every call sends ``accept`` and ``content-type: application/json`` (lower case, GETs
  included), a JSON body when there is one, no query string, and a Locust stats name only when
  one is given (else Locust names it by its path);
* an answer of 400-499 raises ``ClientError`` (404: ``NotFound``) and 500-599 raises
  ``ServerError``, after Locust has already counted the request as failed; a 2xx JSON answer is
  returned decoded; anything else (a connection failure is status 0) returns None.
"""

import json
import posixpath
import time
from urllib.parse import urlsplit, urlunsplit

import jwt
from requests.auth import AuthBase

JSON = "application/json"
TOKEN_SECONDS = 30


class ApiError(Exception):
    """An answer the API client refuses: the status, the answer and its body come with it."""

    def __init__(self, message: str, response):
        super().__init__(message)
        self.response = response
        self.content = response.content


class ClientError(ApiError):
    """A 4xx answer."""


class NotFound(ClientError):
    """A 404 answer."""


class ServerError(ApiError):
    """A 5xx answer."""


class LearnerToken(AuthBase):
    """Signs each request it is attached to with a new token for one learner."""

    def __init__(self, secret: str, issuer: str | None, username: str, email: str, full_name=None):
        self.secret, self.issuer = secret, issuer
        self.username, self.email, self.full_name = username, email, full_name

    def claims(self) -> dict:
        claims = {"username": self.username, "full_name": self.full_name, "email": self.email}
        if self.issuer:
            claims["iss"] = self.issuer
        claims["exp"] = int(time.time()) + TOKEN_SECONDS
        return claims

    def __call__(self, request):
        request.headers["Authorization"] = "JWT " + jwt.encode(self.claims(), self.secret, algorithm="HS256")
        return request


class OrderApi:
    """ecommerce's API at ``root`` (``.../api/v2/``), called through a Locust user's session
    on behalf of one learner."""

    def __init__(self, root: str, session, secret: str, issuer: str | None, username: str, email: str):
        self.root = root
        self.session = session
        session.auth = LearnerToken(secret, issuer, username, email)

    def url(self, *segments) -> str:
        scheme, host, path, query, fragment = urlsplit(self.root)
        path = posixpath.join(path or "/", *(str(s) for s in segments))
        return urlunsplit((scheme, host, path if path.endswith("/") else path + "/", query, fragment))

    def get(self, *segments, name: str | None = None):
        return self._call("GET", segments, None, name)

    def post(self, *segments, body):
        return self._call("POST", segments, body, None)

    def _call(self, method: str, segments, body, name):
        url = self.url(*segments)
        response = self.session.request(
            method,
            url,
            data=None if body is None else json.dumps(body),
            params={},
            files=None,
            headers={"accept": JSON, "content-type": JSON},
            name=name,
        )
        status = response.status_code
        if 400 <= status <= 499:
            refusal = NotFound if status == 404 else ClientError
            raise refusal(f"Client Error {status}: {url}", response)
        if 500 <= status <= 599:
            raise ServerError(f"Server Error {status}: {url}", response)
        return _decoded(response)


def _decoded(response):
    """A 2xx answer's body: JSON decoded when it says it is JSON, else the raw bytes."""
    if not 200 <= response.status_code <= 299 or response.status_code in (204, 205):
        return None
    kind = (response.headers.get("content-type") or "").split(";")[0].strip()
    if not kind or not response.content:
        return response.content
    if kind not in (JSON, "application/x-javascript", "text/javascript", "text/x-javascript", "text/x-json"):
        return response.content
    try:
        return json.loads(response.content)  # bytes: UTF-8, -16 or -32, as JSON allows
    except ValueError:
        return response.content
