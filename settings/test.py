"""The test run: base settings with fast password hashing and mail kept in memory."""

from settings.base import *  # noqa: F403

PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
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
