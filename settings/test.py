"""The test run: base settings with fast password hashing, mail kept in memory and a staff
token key (tests/support/tokens.py signs with the same; a test that needs none unsets it)."""

from settings.base import *  # noqa: F403

PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
STAFF_JWT_SECRET_KEY = STAFF_JWT_SECRET_KEY or "test-only-staff-jwt-secret-not-the-learners-key"  # noqa: F405
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
}

# Tests never serve static files (and var/static does not exist before `make up`).
MIDDLEWARE = [name for name in MIDDLEWARE if not name.startswith("whitenoise.")]  # noqa: F405

# In-process tests run requests from several threads at once; the pool's gevent primitives are
# for one thread of greenlets, so these tests use plain connections. The pooled backend is
# tested through real gunicorn workers (tests/integration).
DATABASES["default"]["ENGINE"] = "common.dbpool.unpooled"  # noqa: F405
