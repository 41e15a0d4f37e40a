"""SimGrid's engine is one per process; the package runs every simulation in a forked child, so the same call gives
the same answer however often it is made, and calls from many threads at once each get their own answer."""

from concurrent.futures import ThreadPoolExecutor

import pytest

import ccsim
from conftest import without_wall

CONFIGS = [
    dict(topology="v100x4-eth40g", workload="bert-large", algorithm="onebit-adam", gpus=64),
    dict(topology="a100x8-ib100", workload="bert-large", algorithm="slamb", gpus=32),
    dict(topology="v100x1-wan", workload="gpt2-xl", algorithm="aq-sgd", gpus=8, pp=4),
    dict(topology="h800x8-ib400x8", workload="gpt-1.3b", algorithm="sdp4bit", gpus=32, allow_oom=True),
]


def answer(config):
    return without_wall(ccsim.simulate(**config).to_dict())


def test_repeated_calls_give_identical_answers():
    first = answer(CONFIGS[0])
    for _ in range(5):
        assert answer(CONFIGS[0]) == first


def test_calls_from_many_threads_at_once_give_the_answers_of_calls_one_at_a_time():
    one_at_a_time = [answer(c) for c in CONFIGS]
    # The four configurations differ, so a mixed-up answer would show.
    assert len({a["samples_per_s"] for a in one_at_a_time}) == len(CONFIGS)
    jobs = [i % len(CONFIGS) for i in range(32)]
    with ThreadPoolExecutor(max_workers=16) as pool:
        answers = list(pool.map(lambda i: answer(CONFIGS[i]), jobs))
    for i, a in zip(jobs, answers):
        assert a == one_at_a_time[i]


def test_errors_from_many_threads_stay_with_their_call():
    def call(i):
        try:
            ccsim.simulate(topology="a100x8-ib100", workload="bert-large", algorithm="adam", gpus=32,
                           global_batch=33 + 2 * i)  # odd batches never divide among 32 GPUs
        except ccsim.InputError as e:
            return str(e)
        return None

    with ThreadPoolExecutor(max_workers=8) as pool:
        messages = list(pool.map(call, range(16)))
    for i, m in enumerate(messages):
        assert m is not None and str(33 + 2 * i) in m, m


def test_ctrl_c_stops_a_simulation_and_ends_its_child():
    """KeyboardInterrupt (Ctrl-C in a notebook) reaches a call that is waiting for its simulation: the child is killed
    and reaped, and the call raises at once instead of after the run. This exact-fidelity run of 1,024 GPUs simulates
    4.5 million messages, minutes of work; interrupted after 0.5 s it must be back well within a minute."""
    import _thread
    import os
    import signal
    import threading
    import time

    # A process started in the background by a non-interactive shell (`cmd &`, nohup) inherits SIGINT ignored, and
    # Python then leaves it ignored: interrupt_main() does nothing and Ctrl-C could not reach the call either. Python's
    # own handler, as a notebook or terminal has it, for the length of the test.
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    timer = threading.Timer(0.5, _thread.interrupt_main)
    start = time.monotonic()
    timer.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            ccsim.simulate("a100x8-fattree16k", "bert-large", "onebit-adam", 1024, global_batch=65536,
                           fidelity="exact")
    finally:
        timer.cancel()
        signal.signal(signal.SIGINT, previous)
    assert time.monotonic() - start < 60
    with pytest.raises(ChildProcessError):  # no child left behind, running or unreaped
        os.waitpid(-1, os.WNOHANG)
    # The package goes on working.
    assert answer(CONFIGS[0]) == answer(CONFIGS[0])
