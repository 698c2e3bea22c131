# Written by `python3 -m locustfiles.suite.core.help --write` from the catalogue of profiles
# (locustfiles/suite/core/catalogue.py) and the load runs' settings (common/environment/load.py);
# `make lint` fails when it is stale. Never edited by hand.
PROFILES := smoke ramp rpm capacity overload soak chaos edx2015 profile
LOAD_SETTINGS := USERS STEP_SECONDS RPM DURATION HOURS BUCKET_SECONDS RPM_START RPM_STEP RPM_MAX COURSES WORKERS THRESHOLDS HOST_PROFILE UI WAIT_MIN WAIT_MAX BUY_WEIGHT PAY_WEIGHT READ_WEIGHT NOISE_PCT NOISE_MS FAULTS PHASE_SECONDS FAULT_SECONDS PRELOAD WARMUP_SECONDS SAMPLE_HZ CAPACITY_RPM KNEE_PCT
