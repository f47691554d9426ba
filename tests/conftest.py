"""Shared fixtures: no test may leave a child process running or log at ERROR unexpectedly;
and which tests must have the machine to themselves.

``make test`` runs the suite on every core (pytest-xdist), then the tests marked ``serial``
alone. A test is serial when another test beside it could change its verdict: it holds a
bot to a kernel limit (memory, processes, CPU share), lets a bot go after the machine's
resources, or measures CPU or memory. Such a test goes in a module of its own kind, named
with the reason in :data:`tests.serial.SERIAL_MODULES` (a ``serial`` mark anywhere else is
refused: the second pass runs only those modules).
"""

from __future__ import annotations

import contextlib
import logging
import os
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import coverage
import psutil
import pytest
from hypothesis import HealthCheck, settings

from tests.serial import SERIAL_MODULES

# Hypothesis's own timing checks (a 200 ms deadline per example, the "input generation is
# slow" health check) fail a test on a loaded machine for the machine's load, not the code
# (seen: test_codec's round trip at a load of 17 on two cores). Off for every test; the
# examples and how many stay as each test says.
settings.register_profile(
    "shared-machine", deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.load_profile("shared-machine")


#: Property tests that replay thousands of random hands through code that other, smaller
#: tests cover line by line: coverage's tracer would double their time and add no line, so
#: pytest-cov pauses it while they run (its ``no_cover`` marker). Test ids from the
#: repository's root, a module's or a test's; the gate still counts every other test, and
#: ``make test`` checks that engine/ and protocol/ stay fully covered.
NO_COVER_TESTS: tuple[str, ...] = (
    "tests/protocol/test_hiding.py::test_no_message_to_a_bot_leaks_hidden_cards_in_random",
    "tests/protocol/test_hiding.py::test_no_message_leaks_hidden_cards_with_a_dead_button",
    "tests/engine/test_pokerkit_differential.py::test_no_limit_holdem_matches_pokerkit",
    "tests/engine/test_pokerkit_differential.py::test_pot_limit_holdem_matches_pokerkit",
    "tests/engine/test_pokerkit_differential.py::test_fixed_limit_holdem_matches_pokerkit",
    "tests/engine/test_history.py::test_dead_button_hands_replay_byte_identical",
    "tests/engine/test_history.py::test_thousands_of_random_hands_replay",
    "tests/engine/test_phh.py::test_pokerkit_replays_",
    "tests/engine/test_speed.py::test_cached_views_equal_views_built_field_by_field",
    "tests/engine/test_speed.py::test_compiled_event_dicts_equal_the_generic_algorithm",
    "tests/engine/test_speed.py::test_cached_views_and_histories_equal_views_built_from_scratch",
    "tests/protocol/test_request_encoder.py::test_fast_request_lines_are_the_plain_lines",
    "tests/engine/test_hand_properties.py::test_thousands_of_seeded_random_hands",
    "tests/engine/test_button.py::test_big_blind_never_skipped_or_repeated_in_freezeout",
    "tests/engine/test_button.py::test_chips_are_conserved_over_thousands",
    "tests/arena/export/test_phh_pokerkit.py::test_no_limit_hands_load_in_pokerkit",
    "tests/arena/export/test_acpc.py::test_pokerkit_reads_our_no_limit_lines",
    "tests/arena/export/test_acpc.py::test_random_hands_follow_the_acpc_rules",
    "tests/engine/test_evaluator_exhaustive.py::test_all_five_card_hands_reproduce",
    "tests/engine/test_hand_properties.py::test_random_legal_play_ends_conserves_chips",
    "tests/arena/stats/test_engine_matches.py::test_a_bot_against_its_copy_is_covered",
    "tests/arena/stats/test_engine_matches.py::test_duplicate_deals_have_lower_variance",
    "tests/arena/session/test_latency.py::test_a_million_latencies",
    "tests/arena/session/test_faults.py::test_the_ledger_does_not_grow",
    "tests/arena/store/sqlite/test_schema.py::test_any_outcome_comes_back_exactly",
    "tests/arena/ladder/test_convergence.py::test_the_ladder_",
    "tests/arena/ladder/test_coverage.py::test_the_95_percent_intervals_cover",
    "tests/engine/test_evaluator.py::test_agrees_with_treys_on_random_seven_card_hands",
    "tests/engine/test_evaluator.py::test_orders_random_hand_pairs_like_treys",
    # Each below reaches no branch that the traced tests of its own module and of the other
    # modules named here miss (checked with coverage's per-test contexts); a branch that
    # only a Hypothesis test also reaches does not count, as its examples change each run;
    # nor does one behind a process-wide cache (engine.showdown's descriptions: the first
    # test of a worker to meet a class fills it), so their direct tests stay traced.
    "tests/protocol/test_codec.py::test_encode_then_decode_round_trips_any_json_object",
    "tests/protocol/test_replies.py::test_fast_action_check_agrees_with_the_schema",
    "tests/test_architecture.py::test_arena_parts_import_only_down_their_layers",
    "tests/engine/test_evaluator.py::test_descriptions_of_six_and_seven_cards_equal_evaluate",
    "tests/engine/test_hand_properties.py::test_same_deck_and_actions_give_the_same_events",
    "tests/protocol/test_codec.py::test_decode_of_mangled_valid_lines",
    "tests/arena/match/test_loop.py::test_same_seed_gives_byte_identical_histories",
    "tests/engine/test_draw_pokerkit_differential.py::test_five_card_draw_matches_pokerkit",
    "tests/protocol/test_replies.py::test_fast_discard_check_agrees",
    "tests/test_architecture.py::test_imports_only_point_down",
    "tests/arena/stats/test_sprt.py::test_error_rates_over_many_simulations",
    "tests/arena/match/test_prefetch.py::test_hands_dealt_ahead_change_nothing",
    "tests/engine/test_evaluator_exhaustive.py::test_seven_card_counts_script",
    "tests/arena/stats/test_sprt.py::test_a_true_mean_halfway",
    "tests/test_architecture.py::test_the_server_has_no_import_cycle",
    "tests/protocol/test_codec.py::test_json_text_is_what_json_dumps_writes",
    "tests/engine/test_draw_pokerkit_differential.py::test_the_differential_covers_draws",
    "tests/protocol/test_strategy.py::test_any_weights_normalised",
    "tests/engine/test_evaluator.py::test_agrees_with_treys_on_random_five_and_six",
    "tests/engine/test_draw_properties.py::test_random_draw_play_ends_conserves_chips",
    "tests/engine/test_draw_properties.py::test_seeded_sweep_of_draw_hands",
    "tests/engine/test_draw_properties.py::test_no_view_holds_a_card",
    "tests/engine/test_draw_properties.py::test_same_deck_and_decisions_give_the_same_draw_events",
    "tests/arena/export/test_phh_pokerkit.py::test_fixed_limit_hands_load_in_pokerkit",
    "tests/arena/export/test_acpc.py::test_pokerkit_reads_our_limit_lines",
    "tests/engine/test_hand_properties.py::test_every_rejected_action_changes_nothing",
    "tests/engine/test_evaluator.py::test_agrees_with_treys_on_flushes",
    "tests/engine/test_pots.py::test_dead_money_is_in_the_main_pot",
    "tests/engine/test_pots.py::test_split_pot_shares_add_up",
    "tests/engine/test_pots.py::test_pots_with_the_single_layer_short_cut",
    "tests/engine/test_pots.py::test_pots_hold_every_chip",
    "tests/protocol/test_framing.py::test_any_chunking_of_lines",
    "tests/protocol/test_framing.py::test_over_long_lines_are_flagged_in_place",
    "tests/arena/match/test_fairness.py::test_no_line_before_match_end_carries_the_seed",
    "tests/arena/match/test_prefetch.py::test_the_luck_estimate_in_short_steps",
    "tests/arena/store/sqlite/test_connection.py::test_a_writer_killed_at_random_moments",
    "tests/arena/store/sqlite/test_connection.py::test_a_read_only_reader_reads_complete",
    "tests/protocol/test_strategy.py::test_fast_distribution_check_agrees_with_the_schema",
    "tests/engine/test_hand_properties.py::test_view_of_a_seat_never_contains_another_seats",
    "tests/arena/match/test_collector.py::test_a_match_freezes_its_startup_heap",
    "tests/arena/export/test_phh_pokerkit.py::test_short_antes_are_layered_like_ours",
    "tests/arena/test_untrusted_replies.py::test_a_reply_nested_exactly_to_the_limit",
    "tests/protocol/test_codec.py::test_decoding_and_parsing_any_distribution_line",
    "tests/engine/test_evaluator.py::test_best_five_alone_has_the_same_class",
)

#: The modules whose tests take longest (tens of seconds each on a loaded machine), longest
#: first: ``make test`` runs them before all others. pytest-xdist gives each worker a
#: contiguous share of the collection and an idle worker takes tests from the end of
#: another's queue, so a long test left near the end keeps one core busy while the other
#: waits; run first, the long tests pack beside the short ones (longest first). Whole
#: modules, so that a module-scoped fixture is made once. The order only, nothing else.
RUN_FIRST: tuple[str, ...] = (
    "tests/test_bench.py",
    "tests/protocol/test_hiding.py",
    "tests/arena/server/test_run.py",
    "tests/protocol/test_request_encoder.py",
    "tests/engine/test_pokerkit_differential.py",
    "tests/arena/server/browser/test_participant.py",
    "tests/engine/test_button.py",
    "tests/arena/stats/test_engine_matches.py",
    "tests/engine/test_speed.py",
    "tests/arena/cluster/test_dask_command.py",
    "tests/arena/test_sample_bots.py",
    "tests/engine/test_history.py",
    "tests/test_compare_revisions.py",
)

_ROOT = Path(__file__).resolve().parent.parent

#: The test bots are programs the matches run, not test modules: doctest collection would
#: import each one (slow, and its bytecode cache would appear in folders tests list).
collect_ignore = ["bots"]


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Mark the tests of :data:`SERIAL_MODULES` ``serial`` and those of
    :data:`NO_COVER_TESTS` ``no_cover``; put the modules of :data:`RUN_FIRST` first, in
    its order (a stable sort: every other test keeps its place)."""
    rank: dict[str, int] = {}
    for item in items:
        try:
            module = item.path.resolve().relative_to(_ROOT).as_posix()
        except ValueError:  # a test outside the repository (pytester's)
            continue
        if module in SERIAL_MODULES:
            item.add_marker(pytest.mark.serial)
        elif item.get_closest_marker("serial") is not None:
            raise pytest.UsageError(
                f"{item.nodeid} is marked serial outside tests/serial.py's SERIAL_MODULES: "
                "make test's serial pass runs only those modules"
            )
        test_id = f"{module}::{item.nodeid.partition('::')[2]}"
        if test_id.startswith(NO_COVER_TESTS):
            item.add_marker(pytest.mark.no_cover)
        if module in RUN_FIRST:
            rank[item.nodeid] = RUN_FIRST.index(module)
    items.sort(key=lambda item: rank.get(item.nodeid, len(RUN_FIRST)))


@pytest.hookimpl(wrapper=True, trylast=True)
def pytest_runtest_setup(item: pytest.Item) -> Iterator[None]:
    """A ``no_cover`` test's fixtures too are made without coverage's tracer (pytest-cov
    pauses only the call): a fixture that deals a property test's sample (100,000 hands
    for the evaluator's) paid the tracer as the test itself would (measured: 5.9 s of CPU
    against 1.5 s for that test and its fixture). Not under ``--cov-context=test``:
    pytest-cov names each test's context in its own setup hook, which needs coverage
    running."""
    if item.config.pluginmanager.has_plugin("_cov_contexts"):
        return (yield)
    with _untraced(item):
        return (yield)


@pytest.hookimpl(wrapper=True, trylast=True)
def pytest_runtest_call(item: pytest.Item) -> Iterator[None]:
    """Pause coverage's tracer for a ``no_cover`` test where pytest-cov's own pause left it
    running: in an xdist worker its pause stops a collector that is not the one tracing
    (measured: the tracer stayed on and the hiding tests ran three times slower). Innermost
    wrapper (``trylast``): it runs after pytest-cov's pause, and does nothing where that
    pause worked."""
    with _untraced(item):
        return (yield)


@contextlib.contextmanager
def _untraced(item: pytest.Item) -> Iterator[None]:
    """Without coverage's tracer while the block runs, if ``item`` is ``no_cover``: each
    running :class:`coverage.Coverage` is stopped, the latest first, then started again in
    the order they ran, so their data is kept. Stopping one resumes the one started
    before it: an xdist worker runs two (pytest-cov's and the one its start-up hook
    began), so one stop is not enough there."""
    if item.get_closest_marker("no_cover") is None:
        yield
        return
    stopped: list[coverage.Coverage] = []
    while sys.gettrace() is not None and (running := coverage.Coverage.current()) is not None:
        running.stop()
        stopped.append(running)
    try:
        yield
    finally:
        for paused in reversed(stopped):
            paused.start()


def _children() -> set[int]:
    """This process's descendants, read from the kernel's per-thread lists of children
    (Linux: ``/proc/PID/task/TID/children``), which touches only our own processes; psutil's
    ``children(recursive=True)`` reads every process of the machine instead (measured:
    3.5 ms against 0.15 ms, twice per test, about 30 s of CPU over ``make test``)."""
    if not _PROC_CHILDREN:
        return {child.pid for child in psutil.Process(os.getpid()).children(recursive=True)}
    found: set[int] = set()
    parents = [os.getpid()]
    while parents:
        parent = parents.pop()
        try:
            threads = os.listdir(f"/proc/{parent}/task")
        except OSError:  # ended meanwhile
            continue
        for thread in threads:
            try:
                with open(f"/proc/{parent}/task/{thread}/children", encoding="ascii") as listed:
                    pids = {int(pid) for pid in listed.read().split()}
            except OSError:  # the thread or the process ended meanwhile
                continue
            pids -= found
            found |= pids
            parents.extend(pids)
    return found


#: Whether this kernel lists each thread's children (CONFIG_PROC_CHILDREN); psutil otherwise.
_PROC_CHILDREN = os.path.exists(f"/proc/{os.getpid()}/task/{os.getpid()}/children")


@pytest.fixture(autouse=True)
def no_leftover_processes() -> Iterator[None]:
    """Fail the test if it leaves a child process behind (and kill what it left)."""
    before = _children()
    yield
    running = _running(_children() - before)
    # A process already on its way out (a pool's worker told to stop, its command line
    # already gone) is given two seconds to finish; one still there after is a leak. The
    # wait ends as soon as none still runs: a grandchild that has ended stays a zombie
    # until its own parent reaps it, and psutil.wait_procs would wait out the whole two
    # seconds on such a zombie (measured: 2 s at the end of a Chromium page test).
    deadline = time.monotonic() + 2.0
    while running and time.monotonic() < deadline:
        time.sleep(0.02)
        running = _running({proc.pid for proc in running})
    leftover = []
    for proc in running:
        with contextlib.suppress(psutil.NoSuchProcess):
            leftover.append(f"{proc.pid} {' '.join(proc.cmdline())}")
            proc.kill()
    assert not leftover, f"test left processes running: {leftover}"


def _running(pids: set[int]) -> list[psutil.Process]:
    """The processes of ``pids`` that still run (a zombie has ended: its parent reaps it)."""
    found = []
    for pid in pids:
        with contextlib.suppress(psutil.NoSuchProcess):
            proc = psutil.Process(pid)
            if proc.status() != psutil.STATUS_ZOMBIE:
                found.append(proc)
    return found


@pytest.fixture
def one_pool_worker(monkeypatch: pytest.MonkeyPatch) -> None:
    """Tournaments and ladder games that name no ``concurrency`` play on one worker process,
    not one per core: each worker of a local pool is a new interpreter that imports the
    arena, plus a referee zygote that does too (about half a second of CPU together), and
    a test that plays a few short matches gains nothing from a second one (``make test``
    already keeps every core busy). For tests whose promise does not depend on the pool's
    size; the tests that set ``concurrency`` keep theirs. (Named by its path: this file
    imports no arena module, which coverage would not see being imported.)"""
    monkeypatch.setattr("arena.tournament.config.default_concurrency", lambda: 1)


class _ErrorCollector(logging.Handler):
    def __init__(self) -> None:
        super().__init__(level=logging.ERROR)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)


@pytest.fixture(autouse=True)
def no_unexpected_error_logs(request: pytest.FixtureRequest) -> Iterator[None]:
    """Fail a test that logs at ERROR unless it is marked ``allow_error_logs``."""
    collector = _ErrorCollector()
    root = logging.getLogger()
    root.addHandler(collector)
    try:
        yield
    finally:
        root.removeHandler(collector)
    if request.node.get_closest_marker("allow_error_logs") is None:
        messages = [record.getMessage() for record in collector.records]
        assert not messages, f"unexpected ERROR log records: {messages}"
