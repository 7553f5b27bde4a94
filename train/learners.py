"""A run's learner processes (``ppo.processes``): the trainer, and helpers that learn beside it.

Each process plays ``n_envs / processes`` of the games on its own core and takes its share of
each minibatch; after every backward pass the gradients are averaged (``train.exchange``),
so every process makes the same update and the weights stay identical, the update one process
would make on the whole batch (``train.ppo.BalootPPO.train``). Collection and update both run
on every core.

Rank 0 is the ``Trainer``: it owns the run (schedule, evaluations, logs, checkpoints) and leads
its helpers (``Helpers``) through a pipe each. After each update it sends each helper what
changed in the opponent pool (a snapshot of the shared weights, a promoted champion's bundle)
and then lets it go on; at a checkpoint it asks each helper for its state (games, pool,
generators: ``train.ppo.learner_state``) and saves them with its own, and a resumed run hands
them back. A helper that dies ends the run with ``LearnerError`` (and one whose trainer dies
ends itself), never a run that waits forever.
"""

from __future__ import annotations

import io
import os
import traceback
from multiprocessing.connection import Connection
from typing import Any

import torch
import torch.multiprocessing as tmp
from stable_baselines3.common.logger import Logger

from agents.neural.bundle import load_net
from baloot_io.processes import die_with_parent
from train.config import TrainConfig, config_from_dict, to_dict
from train.exchange import WAIT_SECONDS, ExchangeError, GradientExchange
from train.ppo import build_learner, learner_state, restore_learner

START_SECONDS = 300.0  # for a helper to build its games and report ready, after the warm start


class LearnerError(ExchangeError):
    """A learner process of the run died or failed; the run stops."""


class Helpers:
    """Rank 0's side: starts ranks 1..processes-1 and leads them (module docstring)."""

    def __init__(self, cfg: TrainConfig, backend: str, exchange: GradientExchange, context: Any):
        self.exchange = exchange
        self.pending: list[tuple[str, ...]] = []
        self.links: list[tuple[Any, Connection]] = []
        plain = to_dict(cfg)
        for rank in range(1, cfg.ppo.processes):
            mine, theirs = context.Pipe()
            proc = context.Process(
                target=helper_main,
                args=(plain, rank, backend, exchange, theirs, os.getpid()),
                name=f"baloot-learner-{rank}",
                daemon=True,
            )
            proc.start()
            theirs.close()
            self.links.append((proc, mine))

    def start(self, weights: dict[str, Any], optimizer: dict[str, Any], states: list[dict[str, Any]] | None) -> None:
        """Once each helper has built its games, hand it the shared weights and optimizer, and
        its own state on a resume."""
        for _, conn in self.links:
            self._reply(conn, START_SECONDS)  # ready
        for i, (_, conn) in enumerate(self.links):
            self._send(
                conn, {"weights": weights, "optimizer": optimizer, "state": None if states is None else states[i]}
            )
            self._reply(conn)

    def snapshot(self, name: str) -> None:
        self.pending.append(("snapshot", name))

    def champion(self, name: str, bundle: str) -> None:
        self.pending.append(("champion", name, bundle))

    def set_weights(self, weights: dict[str, Any]) -> None:
        """The helpers' networks take rank 0's ``weights`` (changed outside PPO: an expert round)."""
        self._all({"events": self._events(), "weights": weights}, reply=True)

    def go(self, learn: tuple[int, bool] | None = None) -> None:
        """Send what changed, then let the helpers collect and update again (``learn``: at the
        start, the decisions each plays and whether the step count starts at 0)."""
        self._all({"events": self._events(), "go": True, "learn": learn}, reply=False)

    def states(self) -> list[dict[str, Any]]:
        """Each helper's state (``train.ppo.learner_state``), after what changed is sent."""
        return self._all({"events": self._events(), "state": True}, reply=True)

    def close(self) -> None:
        """Stop every helper (a run that ends, or fails)."""
        self.exchange.abort()  # a helper waiting at a gradient exchange stops too
        for _, conn in self.links:
            try:
                send(conn, {"stop": True})
            except (BrokenPipeError, OSError):
                pass
        for proc, conn in self.links:
            proc.join(10)
            if proc.is_alive():
                proc.terminate()
                proc.join(5)
            conn.close()
        self.links = []

    def _events(self) -> list[tuple[str, ...]]:
        out, self.pending = self.pending, []
        return out

    def _all(self, msg: dict[str, Any], reply: bool) -> list[Any]:
        for _, conn in self.links:
            self._send(conn, msg)
        return [self._reply(conn) for _, conn in self.links] if reply else []

    def _send(self, conn: Connection, msg: dict[str, Any]) -> None:
        try:
            send(conn, msg)
        except (BrokenPipeError, OSError):
            raise self._died() from None

    def _reply(self, conn: Connection, timeout: float = WAIT_SECONDS) -> Any:
        try:
            if not conn.poll(timeout):
                raise LearnerError(f"a learner process of this run did not answer in {timeout:.0f} s")
            answer = receive(conn)
        except (EOFError, OSError):
            raise self._died() from None
        if isinstance(answer, dict) and "error" in answer:
            raise LearnerError(f"a learner process of this run failed:\n{answer['error']}")
        return answer

    def _died(self) -> LearnerError:
        codes = [p.exitcode for p, _ in self.links if p.exitcode is not None]
        return LearnerError(f"a learner process of this run died (exit code {codes[0] if codes else '?'})")


def helper_main(
    plain: dict[str, Any], rank: int, backend: str, exchange: GradientExchange, conn: Connection, parent: int
) -> None:
    """A helper process (rank >= 1): build, follow the trainer, stop when told or when it is gone
    (``parent``, the trainer's process, killed: ``die_with_parent``)."""
    die_with_parent(parent)
    exchange.rank = rank
    try:
        Helper(config_from_dict(plain), rank, backend, exchange, conn).run()
    except (EOFError, BrokenPipeError, ConnectionResetError, ExchangeError):
        pass  # the trainer is gone or stopped the run: nothing to report to
    except BaseException:
        exchange.abort()
        try:
            send(conn, {"error": traceback.format_exc()})
        except (BrokenPipeError, OSError):
            pass
        raise


class Stop(Exception):
    """The trainer ended the run."""


class Helper:
    """Learner process ``rank`` >= 1 (module docstring): the trainer's games, its share of them."""

    def __init__(self, cfg: TrainConfig, rank: int, backend: str, exchange: GradientExchange, conn: Connection):
        torch.set_num_threads(cfg.torch_threads)
        self.conn = conn
        self.pool, self.venv, self.model = build_learner(cfg, rank, backend, self.follow)
        self.model.exchange = exchange
        self.model.set_logger(Logger(folder=None, output_formats=[]))  # the trainer logs the run
        send(conn, {"ready": rank})

    @property
    def net(self) -> Any:
        return self.model.policy.net

    def run(self) -> None:
        msg = receive(self.conn)
        if msg.get("stop"):
            return
        policy = self.model.policy
        policy.load_state_dict(msg["weights"])
        policy.optimizer.load_state_dict(msg["optimizer"])
        if msg["state"] is not None:
            restore_learner(self.model, self.pool, self.venv, msg["state"])
        else:
            self.pool.add_snapshot("step_0", self.net.state_dict())
        send(self.conn, {"started": True})
        try:
            learn = self.follow()
            if learn is not None:
                steps, reset = learn
                self.model.learn(total_timesteps=steps, reset_num_timesteps=reset, log_interval=None)  # type: ignore[arg-type]
            while True:
                self.follow()
        except Stop:
            return

    def follow(self) -> tuple[int, bool] | None:
        """Take the trainer's messages until it says go on (returns its ``learn``) or stop."""
        while True:
            msg = receive(self.conn)
            if msg.get("stop"):
                raise Stop
            for event in msg.get("events", ()):
                if event[0] == "snapshot":
                    self.pool.add_snapshot(event[1], self.net.state_dict())
                else:
                    net, _ = load_net(event[2])
                    self.pool.add_champion(event[1], net.state_dict(), net.spec)
            if "weights" in msg:
                self.model.policy.load_state_dict(msg["weights"])
                send(self.conn, {"weights": True})
            if msg.get("state"):
                send(self.conn, learner_state(self.model, self.pool, self.venv))
            if msg.get("go"):
                learn = msg.get("learn")
                return None if learn is None else (int(learn[0]), bool(learn[1]))


def send(conn: Connection, msg: dict[str, Any]) -> None:
    """A message as ``torch.save`` bytes: copies, never torch's shared memory (a tensor sent
    by pickling would be moved into memory both processes then write, weights included)."""
    buf = io.BytesIO()
    torch.save(msg, buf)
    conn.send_bytes(buf.getvalue())


def receive(conn: Connection) -> Any:
    """The next ``send`` message (plain data and tensors only: ``weights_only``)."""
    return torch.load(io.BytesIO(conn.recv_bytes()), weights_only=True)


def start_helpers(cfg: TrainConfig, backend: str, parameters: int) -> tuple[Helpers, GradientExchange]:
    """Start ``ppo.processes - 1`` helpers (spawned: a fresh interpreter each, safe with torch)
    for a network of ``parameters`` numbers (the gradients' size)."""
    context = tmp.get_context("spawn")
    exchange = GradientExchange(
        cfg.ppo.processes, parameters, context, "a PPO update", "a learner process", LearnerError
    )
    return Helpers(cfg, backend, exchange, context), exchange
