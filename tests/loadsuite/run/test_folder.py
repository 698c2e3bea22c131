"""A hand-made run's folder is renamed for what ran, and kept as it is when nothing ran."""

from locustfiles.suite.run import folder


def test_a_hand_made_run_is_named_for_its_users(tmp_path):
    run_dir = tmp_path / "20260101-120000-manual"
    run_dir.mkdir()
    renamed = folder.rename_for(run_dir, {"steps": [{"users": 1}, {"users": 5}]})
    assert renamed.name == "20260101-120000-manual-1-to-5-users" and renamed.is_dir()


def test_a_run_without_steps_keeps_its_folder(tmp_path):
    run_dir = tmp_path / "20260101-120000-manual"
    run_dir.mkdir()
    assert folder.rename_for(run_dir, {"steps": []}) == run_dir
    assert run_dir.is_dir()
