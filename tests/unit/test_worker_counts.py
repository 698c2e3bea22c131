"""Each gunicorn worker's request count, kept in a file of its own (common/worker_counts.py) for
the load suite's per-worker table (issue 29, item 2)."""

import multiprocessing

from common import worker_counts


def _count_in_another_process(where, pid, n, ready, done):
    counter = worker_counts.Counter(where, pid)
    for _ in range(n):
        counter.add()
    ready.set()
    done.wait(10)
    counter.remove()


def test_a_reader_sees_what_a_live_worker_counted_and_nothing_once_it_is_gone(tmp_path):
    where = worker_counts.folder(tmp_path, "ecommerce")
    worker_counts.clear(where)
    ready, done = multiprocessing.Event(), multiprocessing.Event()
    worker = multiprocessing.Process(
        target=_count_in_another_process, args=(where, 4242, 70_000, ready, done)
    )
    worker.start()
    try:
        assert ready.wait(10)
        # Read from another process while the worker still runs: the map is the file.
        assert worker_counts.read(where, 4242) == 70_000
    finally:
        done.set()
        worker.join(10)
    assert worker.exitcode == 0
    assert worker_counts.read(where, 4242) is None
    assert list(where.iterdir()) == []


def test_a_count_starts_at_zero_and_a_worker_without_a_file_reads_none(tmp_path):
    where = worker_counts.folder(tmp_path, "lms_stub")
    assert where == tmp_path / "run" / "lms_stub-workers"
    worker_counts.clear(where)
    counter = worker_counts.Counter(where, 7)
    assert worker_counts.read(where, 7) == 0
    counter.add()
    counter.add()
    assert worker_counts.read(where, 7) == 2
    assert worker_counts.read(where, 8) is None
    (where / "9").write_bytes(b"\x01")  # not a count
    assert worker_counts.read(where, 9) is None


def test_a_starting_master_clears_the_files_its_earlier_workers_left(tmp_path):
    where = worker_counts.folder(tmp_path, "ecommerce")
    worker_counts.clear(where)
    worker_counts.Counter(where, 11).add()  # a worker killed outright: its file stays
    worker_counts.clear(where)
    assert list(where.iterdir()) == []
