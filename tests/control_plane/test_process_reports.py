"""Reports of node and gateway processes, against the real Redis."""

from __future__ import annotations

from control_plane.plane import ControlPlane
from control_plane.process_reports import ProcessReports


async def test_reports_are_read_back_by_role_and_pruned(plane: ControlPlane) -> None:
    reports = ProcessReports(plane.redis)
    await reports.publish("node", "n1", {"pid": 10, "partitions": [["s", 0, 3]]})
    await reports.publish("node", "n2", {"pid": 11, "partitions": []})
    await reports.publish("gateway", "n1", {"pid": 12})
    assert await reports.read("node", ["n1", "n3"]) == {
        "n1": {"pid": 10, "partitions": [["s", 0, 3]]}
    }
    assert await reports.read("gateway", ["n1"]) == {"n1": {"pid": 12}}
    assert await reports.read("node", []) == {}
    await reports.prune("node", ["n2"])
    assert await reports.read("node", ["n1", "n2"]) == {"n2": {"pid": 11, "partitions": []}}
    assert await reports.read("gateway", ["n1"]) == {"n1": {"pid": 12}}
    await reports.remove("gateway", "n1")
    assert await reports.read("gateway", ["n1"]) == {}
