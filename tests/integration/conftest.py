"""Shared fixture for the integration tests: `ray_local`, one local Ray instance per test module
(2 CPUs, listening on 127.0.0.1 only, metrics exported on a free port every second), always
shut down."""

import socket
from collections.abc import Iterator
from dataclasses import dataclass

import pytest


@dataclass(frozen=True)
class LocalRay:
    """What a test needs to know about the running instance."""

    metrics_port: int

    @property
    def metrics_url(self) -> str:
        """Prometheus text of this node's metrics (Ray prefixes custom metrics with `ray_`)."""
        return f"http://127.0.0.1:{self.metrics_port}/metrics"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture(scope="module")
def ray_local() -> Iterator[LocalRay]:
    import ray
    import ray._private.ray_constants as ray_constants

    port = _free_port()
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("RAY_metrics_report_interval_ms", "1000")  # export every second, not every 10
        # loopback only, as `tankrl train` runs its local instance: the processes Ray starts
        # read the variable; this process read it when it imported Ray, so it is set here too
        mp.setenv("RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER", "0")
        mp.setattr(ray_constants, "ENABLE_RAY_CLUSTER", False)
        ray.init(
            num_cpus=2,
            include_dashboard=False,
            _node_ip_address="127.0.0.1",
            _metrics_export_port=port,
            log_to_driver=False,
        )
    try:
        yield LocalRay(metrics_port=port)
    finally:
        ray.shutdown()
