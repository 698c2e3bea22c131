import logging

from django.apps import AppConfig
from django.conf import settings
from django.contrib.auth.signals import user_logged_in

log = logging.getLogger(__name__)


class LearnersConfig(AppConfig):
    """Learners of the stand-in LMS, created and logged in by /auto_auth."""

    name = "lms_stub.learners"
    label = "learners"

    def ready(self):
        # auto_auth sets last_login when it creates the learner; Django's receiver would add an
        # UPDATE to every login, which is cost the test equipment should not have.
        user_logged_in.disconnect(dispatch_uid="update_last_login")
        if "LMS_AUTO_AUTH" in settings.LOAD_TEST_MACHINERY:
            log.warning(
                "LMS_AUTO_AUTH is on in a deployed stand-in: GET /auto_auth creates and logs in a "
                "learner for anyone. Only a load-test deployment should set it."
            )
