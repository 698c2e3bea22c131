"""The stand-in's password hash (lms_stub/learners/hashers.py): salted PBKDF2 with a salt as random
as Django's, which Django takes as it is."""

import re

from django.contrib.auth.hashers import check_password, make_password, must_update_salt

from lms_stub.learners.hashers import LoadTestPBKDF2PasswordHasher


def test_each_salt_is_128_random_bits_or_more():
    hasher = LoadTestPBKDF2PasswordHasher()
    salts = {hasher.salt() for _ in range(50)}
    assert len(salts) == 50
    assert all(re.fullmatch(r"[0-9a-f]{32}", salt) for salt in salts)  # 32 hex digits: 128 bits
    assert not any(must_update_salt(salt, hasher.salt_entropy) for salt in salts)  # Django's own check


def test_a_password_hashed_with_it_verifies_and_wants_no_update():
    encoded = make_password("s3cret")
    algorithm, iterations, salt, _ = encoded.split("$")
    assert (algorithm, iterations) == ("pbkdf2_sha256_loadtest", "100")
    assert re.fullmatch(r"[0-9a-f]{32}", salt)
    assert check_password("s3cret", encoded) and not check_password("s3creT", encoded)
    assert not LoadTestPBKDF2PasswordHasher().must_update(encoded)
