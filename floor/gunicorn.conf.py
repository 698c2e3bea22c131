# gunicorn configuration of a bare handler (floor/server.py): the service's own settings, one
# worker answering the canned answers. gunicorn -c floor/gunicorn.conf.py, with FLOOR_SERVICE,
# FLOOR_BIND and FLOOR_ANSWERS set by floor.server.BareServer.
import os

from floor.bare import bare_config

globals().update(bare_config(os.environ))
