"""The one supervised loop (``train.supervised.fit``): minibatches in the caller's order, figures
summed over the epoch and divided by its rows, Adam on the given parameters only, cosine annealing."""

import torch

from train.supervised import Fit, fit


def test_minibatches_follow_the_order_and_figures_are_means_over_the_rows():
    w = torch.nn.Parameter(torch.zeros(1))
    seen, means = [], []
    rows = torch.tensor([4, 0, 3, 1, 2])

    def batch_loss(idx):
        seen.append(idx.tolist())
        return (w - 1.0).pow(2).sum(), {"rows": float(len(idx)), "ones": 1.0}

    fit(
        [w],
        Fit(epochs=2, batch_size=2, learning_rate=0.1),
        lambda epoch: rows,
        batch_loss,
        lambda e, m: means.append((e, m)),
    )
    assert seen == [[4, 0], [3, 1], [2]] * 2
    # "rows" sums to 5 over 5 rows; "ones" counts 3 batches over 5 rows
    assert means == [(0, {"rows": 1.0, "ones": 0.6}), (1, {"rows": 1.0, "ones": 0.6})]
    assert 0.0 < w.item() < 1.0  # Adam moved it toward the minimum


def test_only_the_given_parameters_learn_and_the_loss_falls():
    torch.manual_seed(0)
    x = torch.randn(64, 3)
    y = x @ torch.tensor([1.0, -2.0, 0.5])
    a, b = torch.nn.Linear(3, 1, bias=False), torch.nn.Linear(3, 1, bias=False)
    before_b = b.weight.detach().clone()
    losses = []

    def batch_loss(idx):
        loss = ((a(x[idx]).squeeze(1) + b(x[idx]).squeeze(1) - y[idx]) ** 2).mean()
        return loss, {"loss": loss.item() * len(idx)}

    fit(
        a.parameters(),
        Fit(30, 16, 0.05),
        lambda e: torch.randperm(64),
        batch_loss,
        lambda e, m: losses.append(m["loss"]),
    )
    assert torch.equal(b.weight, before_b)
    assert losses[-1] < 0.1 * losses[0]


def test_cosine_annealing_shrinks_the_steps_toward_zero():
    def steps(cosine):
        w = torch.nn.Parameter(torch.full((1,), 5.0))
        values = []

        def batch_loss(idx):
            values.append(w.item())
            return w.sum(), {}  # a constant gradient: each Adam step is about the step size

        fit([w], Fit(3, 2, 0.1, cosine=cosine), lambda e: torch.arange(4), batch_loss)
        values.append(w.item())
        return [a - b for a, b in zip(values, values[1:], strict=False)]

    plain, annealed = steps(False), steps(True)
    assert len(plain) == len(annealed) == 6
    assert min(plain) > 0.9 * max(plain)  # a constant step size
    assert annealed[-1] < 0.1 * annealed[0]  # 0.1 * (1 + cos(5 pi / 6)) / 2 = 0.0067 at the last step


def test_bf16_fits_in_bfloat16_with_fp32_weights_and_learns_like_fp32():
    """``Fit.precision="bf16"``: the minibatch's matrix work in bfloat16 (autocast), the weights
    and the optimizer in fp32; it learns the same problem to about the same loss."""
    torch.manual_seed(0)
    x = torch.randn(512, 16)
    y = x @ torch.randn(16, 1)
    runs = {}
    for precision in ("fp32", "bf16"):
        torch.manual_seed(1)
        net = torch.nn.Sequential(torch.nn.Linear(16, 32), torch.nn.ReLU(), torch.nn.Linear(32, 1))
        dtypes = []

        def loss(idx, net=net, dtypes=dtypes):
            out = net(x[idx])
            dtypes.append(out.dtype)
            return torch.nn.functional.mse_loss(out.float(), y[idx]), {}

        order = lambda epoch: torch.arange(512)  # noqa: E731
        fit(net.parameters(), Fit(30, 64, 1e-2, precision=precision), order, loss)
        assert all(p.dtype == torch.float32 for p in net.parameters())
        runs[precision] = (set(dtypes), torch.nn.functional.mse_loss(net(x), y).item())
    assert runs["fp32"][0] == {torch.float32} and runs["bf16"][0] == {torch.bfloat16}
    start = y.var().item()
    assert runs["fp32"][1] < 0.05 * start and runs["bf16"][1] < 0.05 * start


def _linear_fit(exchange, rank: int = 0):
    """A float64 least-squares fit of 37 rows in minibatches of 8 (the last one 5 rows, split
    3 + 2 between two processes), rows in a seeded order: its weights and its epoch figures."""
    torch.set_num_threads(1)
    g = torch.Generator().manual_seed(11)
    x = torch.randn(37, 3, generator=g, dtype=torch.float64)
    y = x @ torch.tensor([1.0, -2.0, 0.5], dtype=torch.float64) + 0.1 * torch.randn(
        37, generator=g, dtype=torch.float64
    )
    w = torch.nn.Parameter(torch.zeros(3, dtype=torch.float64))
    order = torch.Generator().manual_seed(5)
    means = []
    if exchange is not None:
        exchange.rank = rank

    def batch_loss(idx):
        loss = ((x[idx] @ w - y[idx]) ** 2).mean()
        return loss, {"loss": loss.item() * len(idx), "rows": float(len(idx))}

    fit(
        [w],
        Fit(epochs=3, batch_size=8, learning_rate=0.05),
        lambda e: torch.randperm(37, generator=order),
        batch_loss,
        lambda e, m: means.append(m),
        exchange,
    )
    return w.detach().numpy().copy(), means


def _linear_fit_rank1(exchange, out) -> None:
    out.put(_linear_fit(exchange, 1))


def test_a_fit_in_two_processes_takes_the_steps_of_one_process_on_whole_minibatches():
    import torch.multiprocessing as tmp

    from train.exchange import GradientExchange

    alone, alone_means = _linear_fit(None)
    context = tmp.get_context("spawn")
    exchange = GradientExchange(2, 3, context)
    out = context.Queue()
    other = context.Process(target=_linear_fit_rank1, args=(exchange, out))
    other.start()
    try:
        mine, my_means = _linear_fit(exchange, 0)
        theirs, their_means = out.get(timeout=120)
    finally:
        other.join(30)
    assert (mine == theirs).all()  # the same bits in both processes
    assert abs(mine - alone).max() < 1e-12  # the steps of one process, up to the order of additions
    assert my_means == their_means
    for a, b in zip(my_means, alone_means, strict=True):
        assert a["rows"] == b["rows"] == 1.0  # every row counted once, across the two
        assert abs(a["loss"] - b["loss"]) < 1e-12


def test_a_fit_process_that_dies_releases_the_others_at_once():
    import sys
    import threading
    import time

    import pytest
    import torch.multiprocessing as tmp

    from train.exchange import ExchangeError, GradientExchange
    from train.fitting import _abort_if_failed

    context = tmp.get_context("spawn")
    exchange = GradientExchange(2, 4, context)
    dying = context.Process(target=sys.exit, args=(3,))
    dying.start()
    threading.Thread(target=_abort_if_failed, args=(dying, exchange), daemon=True).start()
    start = time.perf_counter()
    with pytest.raises(ExchangeError, match="stopped during a step"):
        exchange.sum(torch.ones(4))
    assert time.perf_counter() - start < 60  # not the exchange's 600 s wait


def test_a_fit_helper_whose_parent_is_gone_stops_at_once():
    import time

    import pytest
    import torch.multiprocessing as tmp

    from train.exchange import ExchangeError, GradientExchange
    from train.fitting import _abort_if_orphaned

    exchange = GradientExchange(2, 4, tmp.get_context("spawn"))
    start = time.perf_counter()
    _abort_if_orphaned(-1, exchange)  # a parent id that is not this process's parent: it is gone
    with pytest.raises(ExchangeError):
        exchange.sum(torch.ones(4))
    assert time.perf_counter() - start < 30
