# gunicorn configuration of the ecommerce service: gunicorn -c ecommerce/gunicorn.conf.py
import os

from settings.gunicorn_common import service_config

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "settings.local")

globals().update(service_config("ecommerce", "ECOMMERCE"))
