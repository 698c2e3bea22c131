#!/usr/bin/env bash
# make edx2015-original EDX_LOAD_TESTS=PATH: edX's own 2015 ecommerce Locust client against this
# stack, run exactly as `make edx2015` runs our re-creation of it (locustfiles/edx2015/): same
# profile, users (USERS), duration (DURATION), task set (LOCUST_TASK_SET), report and audit.
#
#   scripts/edx2015-original.sh PATH
#   scripts/edx2015-original.sh --prepare DIR PATH   steps 1-3 only, the copy in DIR (kept); prints
#                                                    its locustfile and the PYTHONPATH it needs
#
# PATH is your own checkout (or `git archive` export) of github.com/edx/load-tests at
# 860f6fa43c4c92513971dde2b3b6f922c8e57171, the last commit with the ecommerce client; nothing of
# it is kept in this repository. This script:
#
# 1. checks that PATH holds that commit's client files (their git blob ids);
# 2. copies PATH/locust to a temporary folder and makes there the edits today's Locust forces,
#    and only those (the FORCED list below; the copy is deleted at the end);
# 3. installs, once, into var/edx2015-original/deps/ (on PYTHONPATH, in front of .venv) what
#    the client needs that .venv lacks: slumber 0.7.1 and edx-ecommerce-api-client 1.1.2, whose
#    only release file is a Python 2 wheel (pip on Python 3 would pick 1.1.1, which lacks the
#    `session` argument the client passes), so it is downloaded as a wheel for Python 2.7 and
#    unpacked; both are checked against their PyPI SHA-256. Locust and PyJWT (2 or later: 1.x
#    returns bytes on Python 3) are .venv's;
# 4. sets the client's settings for this stack (python -m locustfiles.edx2015.config --shell:
#    the same values our re-creation takes) and runs `python -m locustfiles.suite.run edx2015`
#    with EDX2015_LOCUSTFILE pointing at the edited copy: headless, 127.0.0.1, bounded by
#    DURATION, the stack started if it is not up.
set -euo pipefail
source "$(dirname "$0")/lib.sh"

PREPARE=
if [ "${1:-}" = --prepare ] && [ $# -eq 3 ]; then
  PREPARE=$2
  shift 2
fi
[ $# -eq 1 ] || die "usage: scripts/edx2015-original.sh [--prepare DIR] <checkout of edx/load-tests at 860f6fa>"
SOURCE=$(cd "$1" 2>/dev/null && pwd) || die "no folder $1"
COMMIT=860f6fa43c4c92513971dde2b3b6f922c8e57171

# The client's files at $COMMIT, by their git blob ids (git hash-object FILE).
declare -A BLOBS=(
  [locust/ecommerce/__init__.py]=e69de29bb2d1d6434b8b29ae775ad8c2e48c5391
  [locust/ecommerce/api.py]=bda2bbf6e555230a05c4b3c09779bb0ff739f81d
  [locust/ecommerce/baskets.py]=63f40ea8d81b817876665bf31a0b6477fb436b9a
  [locust/ecommerce/commerce.py]=7e302693afb6aece4ee8fdb71d6c8d8ec6854e45
  [locust/ecommerce/config.py]=9660f34729bc4e3408b1af0a0cbcd9c640b1b1a1
  [locust/ecommerce/locustfile.py]=8de9ec389a75422cae4ffd8d70cd056d668ae888
  [locust/ecommerce/payment.py]=7f7db910dc6c365f10ab8575e5e56b561004ac75
  [locust/helpers/__init__.py]=8b137891791fe96927ad78e64b0aad7bded08bdc
  [locust/helpers/auto_auth_tasks.py]=58e64cf31357e91c5dcc41a5fc0327d4e917a404
)

# What today's Locust forces, as sed edits: file, expression, and the line it must produce.
FORCED=(
  # Locust 1.0 renamed HttpLocust to HttpUser (the old name refuses to be subclassed); the
  # 3-5 s wait is now a wait_time function.
  "locust/ecommerce/locustfile.py|s/^from locust import HttpLocust, TaskSet$/from locust import HttpUser, TaskSet, between/|from locust import HttpUser, TaskSet, between"
  "locust/ecommerce/locustfile.py|s/^class EcommerceLocust(HttpLocust):$/class EcommerceLocust(HttpUser):/|class EcommerceLocust(HttpUser):"
  # task_set is ignored now: the chosen task set goes in the tasks list.
  "locust/ecommerce/locustfile.py|s/^    task_set = \(globals().*\)$/    tasks = [\1]/|    tasks = [globals()[os.getenv('LOCUST_TASK_SET', 'EcommerceTest')]]"
  # min_wait/max_wait (ms) are ignored now, and the users would not wait at all.
  "locust/ecommerce/locustfile.py|s/^    min_wait = 3 \* 1000$/    wait_time = between(3, 5)/|    wait_time = between(3, 5)"
  "locust/ecommerce/locustfile.py|/^    max_wait = 5 \* 1000$/d|"
  # Task sets have .user, no longer .locust.
  "locust/ecommerce/commerce.py|s/'Referer': self\.locust\.host,/'Referer': self.user.host,/|            'Referer': self.user.host,"
  "locust/helpers/auto_auth_tasks.py|s/if self\.parent != self\.locust:/if self.parent != self.user:/|        if self.parent != self.user:"
)

REQUIREMENTS="slumber==0.7.1 --hash=sha256:96899ce914f8d7862ce34f4e50af3a82e35588ab61b4912b85844479f4d177cb"
CLIENT_WHEEL="edx-ecommerce-api-client==1.1.2 --hash=sha256:731016e134a91f1f6fd8d4e68d6c38b8156358a0dff91b79ba1f415773d763f0"

blob_id() {
  "$PYTHON" -c 'import hashlib, sys
data = open(sys.argv[1], "rb").read()
print(hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest())' "$1"
}

for file in "${!BLOBS[@]}"; do
  [ -f "$SOURCE/$file" ] || die "$SOURCE has no $file: is it a checkout of edx/load-tests at $COMMIT?"
  [ "$(blob_id "$SOURCE/$file")" = "${BLOBS[$file]}" ] ||
    die "$SOURCE/$file is not the file of edx/load-tests at $COMMIT (git checkout $COMMIT there)"
done

if [ -n "$PREPARE" ]; then
  WORK=$PREPARE/edx-load-tests-860f6fa
  rm -rf "$WORK"
else
  TEMPORARY=$(mktemp -d "${TMPDIR:-/tmp}/edx2015-original.XXXXXX")
  trap 'rm -rf "$TEMPORARY"' EXIT
  WORK=$TEMPORARY/edx-load-tests-860f6fa
fi
mkdir -p "$WORK/locust"
cp -R "$SOURCE/locust/ecommerce" "$SOURCE/locust/helpers" "$WORK/locust/"
for edit in "${FORCED[@]}"; do
  IFS='|' read -r file expression result <<<"$edit"
  sed -i "$expression" "$WORK/$file"
  if [ -n "$result" ]; then
    grep -qxF -- "$result" "$WORK/$file" || die "the edit $expression did not apply to $file"
  fi
done
leftover=$(grep -nE 'HttpLocust|self\.locust|min_wait|max_wait|task_set =' \
  "$WORK/locust/ecommerce/locustfile.py" "$WORK/locust/ecommerce/commerce.py" \
  "$WORK/locust/helpers/auto_auth_tasks.py" || true)
[ -z "$leftover" ] || die "Locust 0.7 left after the edits: $leftover"
say "edX's client, with the edits today's Locust forces (diff against $SOURCE):"
(cd "$WORK" && for file in locust/ecommerce/locustfile.py locust/ecommerce/commerce.py locust/helpers/auto_auth_tasks.py; do
  diff -u --label "a/$file" --label "b/$file" "$SOURCE/$file" "$file" || true
done) >&2

DEPS=$VAR_DIR/edx2015-original/deps
if [ ! -f "$DEPS/.installed" ]; then
  say "installing slumber 0.7.1 and edx-ecommerce-api-client 1.1.2 into $DEPS"
  rm -rf "$DEPS" "$DEPS.partial"
  mkdir -p "$DEPS.partial/download"
  echo "$REQUIREMENTS" >"$DEPS.partial/download/requirements.txt"
  echo "$CLIENT_WHEEL" >"$DEPS.partial/download/client.txt"
  "$PYTHON" -m pip install -q --no-deps --require-hashes --target "$DEPS.partial" \
    -r "$DEPS.partial/download/requirements.txt"
  "$PYTHON" -m pip download -q --no-deps --require-hashes --only-binary=:all: --python-version 2.7 \
    -d "$DEPS.partial/download" -r "$DEPS.partial/download/client.txt"
  "$PYTHON" -m zipfile -e "$DEPS.partial/download/edx_ecommerce_api_client-1.1.2-py2-none-any.whl" "$DEPS.partial"
  rm -rf "$DEPS.partial/download"
  touch "$DEPS.partial/.installed"
  mv "$DEPS.partial" "$DEPS"
fi
"$PYTHON" -c 'import jwt, sys; sys.exit(int(jwt.__version__.split(".")[0]) < 2)' ||
  die "PyJWT in .venv is older than 2 (it returns bytes on Python 3); run scripts/bootstrap.sh"

if [ -n "$PREPARE" ]; then
  echo "EDX2015_LOCUSTFILE=$WORK/locust/ecommerce/locustfile.py"
  echo "PYTHONPATH=$DEPS:$ROOT"
  exit 0
fi

cd "$ROOT"
export PYTHONPATH="$DEPS:$ROOT"
settings=$("$PYTHON" -m locustfiles.edx2015.config --shell) || die "the client's settings could not be read"
eval "$settings"
export EDX2015_LOCUSTFILE="$WORK/locust/ecommerce/locustfile.py"
# The run needs the copy until it ends, so this script waits for it rather than exec it. TERM
# (make passes its own on) or HUP may reach this script alone: each is passed on to the run,
# which stops its Locust as Ctrl-C does and ignores a second signal, and this script waits on.
run=
trap 'if [ -n "$run" ]; then kill -TERM "$run" 2>/dev/null || true; else exit 1; fi' INT TERM HUP
"$PYTHON" -m locustfiles.suite.run edx2015 &
run=$!
status=0
wait "$run" || status=$?
while kill -0 "$run" 2>/dev/null; do wait "$run" || status=$?; done
exit "$status"
