"""The bot's current policy and the swap to a newer version, only ever between turns.

Offered weights (WeightsUpdate from the learner, or tensors from a package) are checked against
the bot's contract and tensor shapes; a mismatch is refused with a message naming both ids and
the bot keeps playing its current weights.
"""

import threading
from collections.abc import Collection, Mapping

import numpy as np
import numpy.typing as npt

from tankrl.shared.contracts import Contract, ContractError
from tankrl.shared.policy import NumpyPolicy, PolicyShapeError, init_tensors
from tankrl.shared.wire import WeightsUpdate


class PolicySlot:
    """Holds (policy, version); `offer` stages a newer one, `swap` applies it between turns."""

    def __init__(
        self,
        contract: Contract,
        tensors: Mapping[str, npt.NDArray[np.generic]] | None = None,
        version: int = 0,
        seed: int = 0,
        play_sampled: Collection[str] = (),
    ) -> None:
        self.contract = contract
        self.play_sampled = tuple(play_sampled)
        """Kept for every newer version too (see NumpyPolicy.play_sampled)."""
        self.policy = NumpyPolicy(
            contract, tensors or init_tensors(contract, seed=seed), self.play_sampled
        )
        self.version = version
        self.refused = 0
        """Weights offered with the wrong contract or shapes (each logged, then ignored)."""
        self.last_refusal = ""
        self._pending: tuple[NumpyPolicy, int] | None = None
        self._lock = threading.Lock()

    def offer(self, update: WeightsUpdate) -> bool:
        """Stage `update` if it is newer and valid; return whether it was staged."""
        if update.policy_version <= self.version:
            return False
        try:
            if update.contract_sha256 != self.contract.sha256:
                raise ContractError(
                    f"weights for contract {update.contract_sha256} refused: this bot plays "
                    f"contract {self.contract.name} ({self.contract.sha256})"
                )
            policy = NumpyPolicy(self.contract, update.tensors, self.play_sampled)
        except (ContractError, PolicyShapeError) as error:
            with self._lock:
                self.refused += 1
                self.last_refusal = str(error)
            print(f"tankrl bot: keeping policy_version {self.version}: {error}", flush=True)
            return False
        with self._lock:
            if self._pending is None or self._pending[1] < update.policy_version:
                self._pending = (policy, update.policy_version)
        return True

    def swap(self) -> bool:
        """Apply the staged policy (call between turns); return whether the version changed."""
        with self._lock:
            pending, self._pending = self._pending, None
        if pending is None or pending[1] <= self.version:
            return False
        self.policy, self.version = pending
        return True
