"""LearnerActor: the learner's Ray shell (an async actor) around the pure PPO modules.

Bots `submit` msgpack Trajectory bytes (validated, then the inbox's staleness rules); a background
thread trains whenever enough turns are queued, publishes each new policy_version once
(publisher.py), rewrites `latest/` and rotates checkpoints. Intake never waits for training:
the event loop only takes a lock around the inbox, which the trainer holds just to take rounds.
"""

import asyncio
import json
import logging
import threading
import time
from pathlib import Path
from typing import Any

import ray
import torch

from tankrl.learner import checkpoints, heap
from tankrl.learner.inbox import DROP_REASONS, Inbox, LagStats, Verdict
from tankrl.learner.metrics import LearnerMetrics
from tankrl.learner.publisher import Fetched, Publisher
from tankrl.learner.round_stats import RoundStats
from tankrl.learner.trainer import Demonstrator, Trainer
from tankrl.shared.config import RAY_TASK_EVENTS, RunConfig
from tankrl.shared.contracts import get_contract
from tankrl.shared.policy import check_tensors
from tankrl.shared.policy_files import encode_policy
from tankrl.shared.wire import Trajectory, WireError

log = logging.getLogger(__name__)
ROUND_LOG = "rounds.jsonl"
"""Written when learner.round_log is on: one JSON object per round received (bench/adapt.py)."""
_DECODE_ERRORS = (WireError, ValueError, TypeError, KeyError, OverflowError)


class LearnerActor:
    """Intake, training thread, weight publishing and checkpoints for one run (see module doc)."""

    def __init__(
        self, config: dict[str, Any], run_dir: str, demonstrator: Demonstrator | None = None
    ):
        if not logging.getLogger().handlers:
            logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s: %(message)s")
        heap.configure()  # before the training thread allocates its first pass
        self.cfg = RunConfig.from_dict(config).validate()
        self.contract = get_contract(self.cfg.contract)
        self.run_dir = Path(run_dir)
        self.demonstrator = demonstrator  # labels ppo.bc_opponents' rounds when ppo.bc_coef > 0
        torch.set_num_threads(self.cfg.learner.torch_threads)
        start = self._restore()
        checkpoints.write_config(self.run_dir, self.cfg.to_dict())
        self.inbox = Inbox(self.contract, self.cfg.learner.max_policy_lag)
        self.round_stats = RoundStats()
        self.metrics = LearnerMetrics(self.run_dir / "tb", tb_every_s=self.cfg.learner.tb_every_s)
        self._round_log = (
            (self.run_dir / ROUND_LOG).open("a", buffering=1)
            if self.cfg.learner.round_log
            else None
        )
        self.last_pass: dict[str, float] = {}
        self.last_lag: LagStats | None = None
        self.train_errors = 0
        self.save_errors = 0
        self._cv = threading.Condition()
        self._train_lock = threading.Lock()
        self._stopping = False
        self.publisher = Publisher(self.contract.sha256)
        version = 0 if start.loaded is None else start.loaded.policy_version
        self._good_tensors = self.trainer.policy_tensors()
        self.publisher.publish(version, self._good_tensors)
        self._saved_version = version if start.source == checkpoints.LATEST else -1
        self._saved_at = time.monotonic()
        if self._saved_version != version:
            self._save(version, rotate=False)
        self.metrics.set("policy_version", version)
        self._thread = threading.Thread(target=self._train_loop, name="tankrl-train", daemon=True)
        self._thread.start()

    def _restore(self) -> checkpoints.Startup:
        """Load latest/, else the newest valid checkpoint, else random init (logged and kept)."""
        start = checkpoints.startup(self.run_dir, self.contract)
        level = logging.INFO if start.source == checkpoints.LATEST else logging.WARNING
        log.log(level, "learner %s: %s", self.run_dir.name, start.message)
        self.startup = {"source": start.source, "message": start.message}
        loaded = start.loaded
        self.trainer = Trainer(
            self.contract,
            self.cfg.ppo,
            self.cfg.seed,
            None if loaded is None else loaded.tensors,
            self.demonstrator,
        )
        state: dict[str, Any] = {}
        if loaded is not None:
            state = loaded.state
            self.trainer.load_training_state(loaded.optimizer, state.get("trainer", {}))
        self.rounds_trained = int(state.get("rounds_trained", 0))
        self.turns_trained = int(state.get("turns_trained", 0))
        return start

    # ---- intake -------------------------------------------------------------------------

    async def submit(self, data: bytes) -> dict[str, Any]:
        """Validate one Trajectory message and apply the staleness rules; never raises."""
        self.metrics.inc("rounds_received")
        try:
            if not isinstance(data, bytes | bytearray | memoryview):
                raise WireError(f"expected msgpack bytes, got {type(data).__name__}")
            tr = Trajectory.decode(bytes(data), max_bytes=self.cfg.learner.max_trajectory_bytes)
        except _DECODE_ERRORS as e:
            with self._cv:
                verdict = self.inbox.reject("invalid", f"{type(e).__name__}: {e}")
        else:
            with self._cv:
                verdict = self.inbox.offer(tr, self.publisher.version)
                played = verdict.reason not in ("contract", "invalid")  # a round that was played
                if played:
                    self.round_stats.add(tr)
                if self.inbox.pass_due(self.cfg.ppo.min_turns_per_update):
                    self._cv.notify()
            if self._round_log is not None and played:
                self._log_round(tr, verdict)
        self._count(verdict)
        return {
            "accepted": verdict.accepted,
            "reason": verdict.reason,
            "detail": verdict.detail,
            "policy_version": self.publisher.version,
        }

    def _log_round(self, tr: Trajectory, verdict: Verdict) -> None:
        """One line of <run>/rounds.jsonl: when the round arrived, what it was, how it went."""
        assert self._round_log is not None
        row = {
            "t": round(time.time(), 3),
            "bot": tr.bot_id,
            "round": tr.round_id,
            "policy_version": tr.policy_version,
            "turns": tr.turns,
            "accepted": verdict.accepted,
            **{k: v for k, v in tr.info.items() if k in ("kind", "opponent", "won", "score")},
        }
        self._round_log.write(json.dumps(row) + "\n")

    def _count(self, verdict: Verdict) -> None:
        if verdict.accepted:
            self.metrics.inc("rounds_accepted")
            if verdict.replaced_round is not None:
                self.metrics.inc("rounds_dropped", reason="stale_pass")
        else:
            self.metrics.inc("rounds_dropped", reason=verdict.reason)
        self.metrics.set("queue_depth", self.inbox.depth)

    # ---- weights ------------------------------------------------------------------------

    async def get_weights(self, have_version: int) -> list[ray.ObjectRef[bytes]] | None:
        """None when `have_version` is current; else [ObjectRef of the WeightsUpdate bytes]."""
        return self.publisher.newer_than(have_version)

    async def wait_weights(
        self, have_version: int, timeout_s: float = 30.0, inline: bool = True
    ) -> Fetched:
        """Long poll: wait up to `timeout_s` for a version newer than `have_version`; returns its
        WeightsUpdate bytes (small policies, if `inline`) or [ObjectRef], or None on timeout."""
        return await self.publisher.wait_newer(have_version, timeout_s, inline)

    async def policy_version(self) -> int:
        return self.publisher.version

    async def publish_times(self) -> dict[int, float]:
        """policy_version -> wall time of its publish (recent versions), for latency checks."""
        return self.publisher.published_at()

    # ---- training -----------------------------------------------------------------------

    def _train_loop(self) -> None:
        torch.set_num_threads(self.cfg.learner.torch_threads)
        min_turns = self.cfg.ppo.min_turns_per_update
        while True:
            with self._cv:
                self._cv.wait_for(lambda: self._stopping or self.inbox.pass_due(min_turns))
                if self._stopping:
                    return
                lag_drops = self.inbox.dropped["lag"]
                rounds, lag = self.inbox.take(
                    self.publisher.version, self.cfg.ppo.max_turns_per_update
                )
                lag_drops = self.inbox.dropped["lag"] - lag_drops
                next_version = max(self.publisher.version, self.inbox.max_version_seen) + 1
            if lag_drops:
                self.metrics.inc("rounds_dropped", lag_drops, reason="lag")
            if not rounds:
                continue
            try:
                self._train_once(rounds, lag, next_version)
            except Exception:  # keep the service alive; the error is logged and counted
                self.train_errors += 1
                log.exception("training pass failed; its %d rounds are lost", len(rounds))
                self._recover()
            del rounds  # the pass's buffers are garbage now: hand their pages back
            heap.trim()

    def _recover(self) -> None:
        """After a failed pass, go back to the last published weights with a fresh optimizer."""
        with self._train_lock:
            self.trainer = Trainer(
                self.contract, self.cfg.ppo, self.cfg.seed, self._good_tensors, self.demonstrator
            )

    def _train_once(self, rounds: list[Trajectory], lag: LagStats | None, version: int) -> None:
        with self._train_lock:
            t0 = time.perf_counter()
            stats = self.trainer.train(rounds)
            pass_s = time.perf_counter() - t0
            tensors = self.trainer.policy_tensors()
            check_tensors(self.contract, tensors)  # non-finite weights are never published
            if version != self.publisher.version + 1:
                log.warning("policy_version jumps to %d: bots already play newer weights", version)
            self.publisher.publish(version, tensors)
            self._good_tensors = tensors
            before = self.rounds_trained
            self.rounds_trained += len(rounds)
            self.turns_trained += sum(tr.turns for tr in rounds)
            every = self.cfg.learner.checkpoint_every_rounds
            rotate = checkpoints.checkpoint_due(before, self.rounds_trained, every)
            due = time.monotonic() - self._saved_at >= self.cfg.learner.latest_every_s
            try:
                if rotate or due:  # shutdown and checkpoint_now write the newest in any case
                    self._save(version, rotate)
            except OSError:  # e.g. a full disk: keep training; the next pass tries again
                self.save_errors += 1
                log.exception("writing latest/ for policy_version %d failed", version)
        stats["pass_s"] = pass_s
        stats["samples_per_s"] = stats["turns"] / pass_s if pass_s > 0 else 0.0
        self.last_pass, self.last_lag = stats, lag
        self._report(version, len(rounds), stats, lag)

    def _save(self, version: int, rotate: bool) -> None:
        """Write latest/ (and checkpoint_1 when `rotate`); the caller holds the train lock."""
        files = encode_policy(self.contract, version, self._good_tensors, self.cfg.to_dict())
        optimizer, trainer_state = self.trainer.training_state()
        state = {
            "policy_version": version,
            "rounds_trained": self.rounds_trained,
            "turns_trained": self.turns_trained,
            "trainer": trainer_state,
        }
        checkpoints.write_latest(self.run_dir, files, optimizer, state)
        self._saved_at = time.monotonic()
        if rotate:
            keep = self.cfg.learner.keep_checkpoints
            checkpoints.rotate_checkpoints(self.run_dir, files, optimizer, state, keep)
        self._saved_version = version

    def _report(
        self, version: int, n_rounds: int, stats: dict[str, float], lag: LagStats | None
    ) -> None:
        with self._cv:
            play = self.round_stats.summary()
            depth = self.inbox.depth
        self.metrics.report_pass(version, n_rounds, stats, lag, play, depth)

    # ---- control ------------------------------------------------------------------------

    async def stats(self) -> dict[str, Any]:
        """Counters, queue, lag, the last pass's figures and play statistics."""
        with self._cv:
            dropped = dict(self.inbox.dropped)
            depth, turns = self.inbox.depth, self.inbox.queued_turns
            queue_lag = self.inbox.queued_lag(self.publisher.version)
            accepted = self.inbox.accepted
            play = self.round_stats.summary()
        return {
            "policy_version": self.publisher.version,
            "rounds_received": int(self.metrics.value("rounds_received")),
            "rounds_accepted": accepted,
            "rounds_dropped": {r: dropped.get(r, 0) for r in DROP_REASONS},
            "rounds_trained": self.rounds_trained,
            "turns_trained": self.turns_trained,
            "queue_depth": depth,
            "queued_turns": turns,
            "queue_lag": None if queue_lag is None else vars(queue_lag),
            "last_lag": None if self.last_lag is None else vars(self.last_lag),
            "last_pass": dict(self.last_pass),
            **play,
            "train_errors": self.train_errors,
            "save_errors": self.save_errors,
            "startup": dict(self.startup),
        }

    async def checkpoint_now(self) -> dict[str, Any]:
        """Make sure latest/ holds the current version (e.g. before shutdown); returns it."""
        return await asyncio.to_thread(self._checkpoint_now)

    def _checkpoint_now(self) -> dict[str, Any]:
        with self._train_lock:
            version = self.publisher.version
            if self._saved_version != version:
                self._save(version, rotate=False)
        return {"path": str(self.run_dir / checkpoints.LATEST), "policy_version": version}

    async def shutdown(self) -> dict[str, Any]:
        """Stop the training thread after its current pass, write latest/ and close metrics."""
        with self._cv:
            self._stopping = True
            self._cv.notify_all()
        await asyncio.to_thread(self._thread.join)
        saved = await self.checkpoint_now()
        self.metrics.close()
        if self._round_log is not None:
            self._round_log.close()
        return saved


def get_or_create_learner(
    name: str,
    config: RunConfig,
    run_dir: str | Path,
    *,
    max_restarts: int = 3,
    num_cpus: float = 1.0,
    namespace: str | None = None,
    demonstrator: Demonstrator | None = None,
) -> Any:
    """The named LearnerActor (created if absent); a restart resumes from latest/.
    `demonstrator` labels the anchored rounds when the config sets ppo.bc_coef."""
    cls = ray.remote(LearnerActor)
    return cls.options(
        name=name,
        namespace=namespace,
        get_if_exists=True,
        max_restarts=max_restarts,
        num_cpus=num_cpus,
        enable_task_events=RAY_TASK_EVENTS,
    ).remote(config.to_dict(), str(run_dir), demonstrator)
