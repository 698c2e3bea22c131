"""The stand-in's password hash: PBKDF2-SHA256 at a cost fit for throwaway load-test learners.

Django's default (a million iterations, about a third of a second of CPU here) would make
/auto_auth, which creates a learner for every purchase of a load run, the stand-in's
bottleneck, and even 1,000 iterations cost 0.38 ms per purchase; 100 cost 0.04 ms. The hash
stays salted PBKDF2; only the iteration count is lower (hashes made with more still verify).
lms_stub is test equipment: real learners and their passwords never reach it.

The salt is as random as Django's (128 bits and more), read from the system's generator at once:
Django draws its 22 characters one by one (``secrets.choice``, a read each).
"""

import secrets

from django.contrib.auth.hashers import PBKDF2PasswordHasher


class LoadTestPBKDF2PasswordHasher(PBKDF2PasswordHasher):
    algorithm = "pbkdf2_sha256_loadtest"
    iterations = 100

    def salt(self) -> str:
        return secrets.token_hex(self.salt_entropy // 8)  # 32 hex digits for Django's 128 bits
