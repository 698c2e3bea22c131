# gunicorn configuration of the LMS stand-in: gunicorn -c lms_stub/gunicorn.conf.py
#
# gevent workers (the default of LMS_WORKER_CLASS in common/environment): the commerce
# endpoint waits on ecommerce, which calls back the enrollment API; with a fixed number of
# synchronous workers the LMS could deadlock on itself.
import os

from settings.gunicorn_common import service_config

os.environ["DJANGO_SETTINGS_MODULE"] = "settings.lms_stub"

globals().update(service_config("lms_stub", "LMS"))
