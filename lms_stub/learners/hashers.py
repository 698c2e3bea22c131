"""The stand-in's password hash: PBKDF2-SHA256 at a cost fit for throwaway load-test learners.

Django's default (a million iterations, about a third of a second of CPU here) would make
/auto_auth, which creates a learner for every purchase of a load run, the stand-in's
bottleneck. The hash stays salted PBKDF2; only the iteration count is lower. lms_stub is test
equipment: real learners and their passwords never reach it.
"""

from django.contrib.auth.hashers import PBKDF2PasswordHasher


class LoadTestPBKDF2PasswordHasher(PBKDF2PasswordHasher):
    algorithm = "pbkdf2_sha256_loadtest"
    iterations = 1000
