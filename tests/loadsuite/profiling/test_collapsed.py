"""Reading py-spy's collapsed stacks (profiling/collapsed.py): process frames taken off and counted
per process, a frame's function, file and line, the top frames' arithmetic, how far py-spy fell
behind."""

from collections import Counter

import pytest

from locustfiles.suite.profiling import collapsed

HANDLE = "handle (gunicorn/workers/base_async.py:38)"
POST = "post (ecommerce/orders/views.py:42)"
EXECUTE = "execute (pymysql/cursors.py:133)"
FULFIL = "fulfil (ecommerce/fulfillment/api.py:62)"
SEND = "send (gevent/_socketcommon.py:712)"
HUB = "run (gevent/hub.py:631)"
WALK = "walk (ecommerce/tree.py:5)"
MASTER = 'process 10:"python -m gunicorn";'
WORKER_11 = 'process 11:"python -m gunicorn";'
WORKER_12 = 'process 12:"python -m gunicorn";'
# As py-spy writes it with --subprocesses --function: the gunicorn master, then the worker. A
# command line may hold a newline (the third stack): py-spy writes it as it is.
COLLAPSED = (
    f"{MASTER}{WORKER_11}{HANDLE};{POST};{EXECUTE} 6\n"
    f"{MASTER}{WORKER_11}{HANDLE};{POST} 2\n"
    f'{MASTER}process 12:"python -c import x\nrun()";{HANDLE};{POST};{FULFIL};{SEND} 3\n'
    f"{MASTER}{WORKER_12}{HUB} 4\n"
    f"{MASTER}{WORKER_12}{WALK};{WALK};{WALK} 5\n"
)


def test_collapsed_stacks_are_read_without_their_process_frames_and_counted_per_process():
    read = collapsed.read_collapsed(COLLAPSED)
    assert read.samples == 20
    assert read.processes == Counter({11: 8, 12: 12})  # the worker's pid, never the master's
    assert read.stacks[(HUB,)] == 4
    assert read.stacks[(HANDLE, POST, FULFIL, SEND)] == 3  # its command line held a newline
    # Without --subprocesses there are no process frames.
    single = collapsed.read_collapsed("a (x.py:1);b (y.py:2) 7\n")
    assert single.stacks == Counter({("a (x.py:1)", "b (y.py:2)"): 7}) and not single.processes


def test_a_frame_is_its_function_file_and_line():
    assert collapsed.parse_frame("_get_response (django/core/handlers/base.py:174)") == {
        "function": "_get_response",
        "file": "django/core/handlers/base.py",
        "line": 174,
    }
    assert collapsed.parse_frame("<listcomp> (<frozen abc>)") == {
        "function": "<listcomp>",
        "file": "<frozen abc>",
        "line": None,
    }
    assert collapsed.is_event_loop("run (gevent/hub.py:631)")
    assert not collapsed.is_event_loop("run (gevent/threadpool.py:199)")
    assert collapsed.is_own_code("post (ecommerce/orders/views.py:42)")
    assert not collapsed.is_own_code("post (requests/api.py:103)")


def test_top_frames_by_self_and_inclusive_samples_as_shares_of_the_group():
    figures = collapsed.top_frames(collapsed.read_collapsed(COLLAPSED).stacks)
    assert figures["samples"] == 20 and figures["event_loop_samples"] == 4

    def table(key):
        return [(row["frame"], row["samples"], row["percent"]) for row in figures[key]]

    assert table("top_self") == [
        ("execute (pymysql/cursors.py:133)", 6, 30.0),
        ("walk (ecommerce/tree.py:5)", 5, 25.0),
        ("run (gevent/hub.py:631)", 4, 20.0),
        ("send (gevent/_socketcommon.py:712)", 3, 15.0),
        ("post (ecommerce/orders/views.py:42)", 2, 10.0),
    ]
    assert table("top_inclusive") == [
        ("handle (gunicorn/workers/base_async.py:38)", 11, 55.0),
        ("post (ecommerce/orders/views.py:42)", 11, 55.0),
        ("execute (pymysql/cursors.py:133)", 6, 30.0),
        ("walk (ecommerce/tree.py:5)", 5, 25.0),  # recursive: once per sample, not three times
        ("run (gevent/hub.py:631)", 4, 20.0),
        ("fulfil (ecommerce/fulfillment/api.py:62)", 3, 15.0),
        ("send (gevent/_socketcommon.py:712)", 3, 15.0),
    ]
    assert table("top_own") == [
        ("post (ecommerce/orders/views.py:42)", 11, 55.0),
        ("walk (ecommerce/tree.py:5)", 5, 25.0),
        ("fulfil (ecommerce/fulfillment/api.py:62)", 3, 15.0),
    ]
    hub = next(row for row in figures["top_self"] if row["event_loop"])
    assert (hub["function"], hub["file"], hub["line"]) == ("run", "gevent/hub.py", 631)
    assert collapsed.top_frames(Counter(), 10) == {
        "samples": 0,
        "event_loop_samples": 0,
        "top_self": [],
        "top_inclusive": [],
        "top_own": [],
    }


def test_how_far_py_spy_fell_behind_is_read_from_its_output():
    log = (
        "py-spy> Sampling process 49 times a second for 75 seconds. Press Control-C to exit.\n"
        "py-spy> 1.06s behind in sampling, results may be inaccurate. Try reducing the sampling rate\n"
        "py-spy> 5.93s behind in sampling, results may be inaccurate. Try reducing the sampling rate\n"
        "py-spy> 950.2ms behind in sampling, results may be inaccurate. Try reducing the sampling rate\n"
    )
    assert collapsed.behind_seconds(log) == pytest.approx(5.93)
    assert collapsed.behind_seconds("py-spy> Wrote raw flamegraph data. Samples: 3 Errors: 0") == 0.0
