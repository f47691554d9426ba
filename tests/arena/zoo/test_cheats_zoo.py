"""Zoo cheaters: each tries one way to learn or break what it must not, says on stderr
whether it worked (``CHEAT <name>: success ...`` / ``failed ...``), and otherwise plays
like a calling station. Under the default layer every cheat must fail, and the victim's
results must show no fault the attacker caused.

Some cheats only the strict layer stops (its own PID and network namespaces): the limits
layer gives a bot its own uid, which keeps it from reading another process's input or
memory and from signalling it, but not from opening a loopback connection or reading the
arena's command line. Those tests say so in their names and ask for the strict layer
explicitly.
"""

from __future__ import annotations

import errno
import json
import re
import socket
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from arena.bots.sandbox.select import SandboxLevel, choose
from arena.match.config import new_secret_seed
from tests.arena.zoo.harness import bot, cheat_verdicts, play, station


def strict_layer() -> SandboxLevel:
    """The strict layer, or a skip naming why this machine cannot run it."""
    try:
        return choose(SandboxLevel.STRICT)[0]
    except RuntimeError as exc:  # SandboxUnavailableError
        pytest.skip(f"the strict layer does not work here: {exc}")


def assert_all_failed(verdicts: list[str]) -> None:
    assert verdicts, "the cheater gave no verdict"
    assert all(verdict.startswith("failed") for verdict in verdicts), verdicts


def assert_victim_untouched(faults: list[dict[str, object]]) -> None:
    assert not faults, f"the victim has faults the attacker caused: {faults}"


@pytest.fixture
def loopback_server() -> Iterator[tuple[int, list[bytes]]]:
    """A TCP server on a free loopback port; the list gets one entry per connection."""
    server = socket.create_server(("127.0.0.1", 0))
    server.settimeout(0.2)
    accepted: list[bytes] = []
    stop = threading.Event()

    def serve() -> None:
        while not stop.is_set():
            try:
                conn, _ = server.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            with conn:
                conn.sendall(b"secret from the host")
                accepted.append(b"connected")

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    try:
        yield server.getsockname()[1], accepted
    finally:
        stop.set()
        thread.join(5)
        server.close()


def test_strict_stops_a_loopback_tcp_connection(
    loopback_server: tuple[int, list[bytes]], tmp_path: Path
) -> None:
    """Only the strict layer stops this: its network namespace has no route to the host."""
    port, accepted = loopback_server
    network = bot("zoo_network", env={"ZOO_PORT": str(port)})
    played = play([network, station("victim")], tmp_path, hands=2, level=strict_layer())
    assert_all_failed(cheat_verdicts(played.stderr(0), "network"))
    assert not accepted


def test_the_default_layer_stops_a_loopback_tcp_connection(
    loopback_server: tuple[int, list[bytes]], tmp_path: Path
) -> None:
    port, accepted = loopback_server
    network = bot("zoo_network", env={"ZOO_PORT": str(port)})
    played = play([network, station("victim")], tmp_path, hands=2)
    assert_all_failed(cheat_verdicts(played.stderr(0), "network"))
    assert not accepted


def test_another_bots_stdin_cannot_be_read_through_proc(tmp_path: Path) -> None:
    victim_marker = f"zoo-victim-{new_secret_seed():x}"[:40]
    thief = bot("zoo_stdin_thief", env={"ZOO_TARGET": victim_marker})
    played = play([thief, station(victim_marker)], tmp_path, hands=3)
    verdicts = cheat_verdicts(played.stderr(0), "stdin")
    assert len(verdicts) == 3
    assert_all_failed(verdicts)
    assert_victim_untouched(played.faults(1))
    assert "station: answered" in played.stderr(1)


def test_strict_hides_the_arenas_environment_command_line_and_memory(tmp_path: Path) -> None:
    """The limits layer's own uid already keeps the environment and the memory from the
    bot, but not the command line (readable by every user): only the strict layer's PID
    namespace hides the arena altogether."""
    played = play(
        [bot("zoo_arena_reader"), station("victim")], tmp_path, hands=2, level=strict_layer()
    )
    for what in ("environ", "cmdline", "mem"):
        assert_all_failed(cheat_verdicts(played.stderr(0), f"arena-{what}"))


def test_the_default_layer_hides_the_arenas_environment_command_line_and_memory(
    tmp_path: Path,
) -> None:
    played = play([bot("zoo_arena_reader"), station("victim")], tmp_path, hands=2)
    for what in ("environ", "cmdline", "mem"):
        assert_all_failed(cheat_verdicts(played.stderr(0), f"arena-{what}"))


@pytest.mark.parametrize("seed", [None, 7], ids=["secret seed", "seed 7"])
def test_the_deck_cannot_be_predicted_from_what_a_bot_is_told(
    seed: int | None, tmp_path: Path
) -> None:
    """The old recipe (Mersenne Twister keyed by ``<seed>:<hand>``, the seed in the hand
    ids) is tried with every seed the bot can guess; even a small seed given on the
    command line (7, in the guesses) predicts nothing, as decks come from a keyed
    cryptographic stream and no seed is in any message."""
    match_seed = new_secret_seed() if seed is None else seed
    played = play(
        [bot("zoo_deck_predictor"), station("victim")], tmp_path, hands=30, seed=match_seed
    )
    verdicts = cheat_verdicts(played.stderr(0), "deck")
    assert len(verdicts) == 1
    assert_all_failed(verdicts)
    showdowns = re.search(r"of (\d+) showdowns", verdicts[0])
    assert showdowns is not None and int(showdowns.group(1)) > 0  # it had chances


def test_a_bot_cannot_stop_or_kill_another_bot(tmp_path: Path) -> None:
    victim_marker = f"zoo-victim-{new_secret_seed():x}"[:40]
    signaller = bot("zoo_signaller", "bot", env={"ZOO_TARGET": victim_marker})
    played = play([signaller, station(victim_marker)], tmp_path, hands=3)
    assert_all_failed(cheat_verdicts(played.stderr(0), "signal-bot"))
    # The victim was neither blamed (crash, restart, timeout) nor benched.
    assert_victim_untouched(played.faults(1))
    assert not played.result.player("p1").is_sitting_out
    assert "station: answered" in played.stderr(1)


def test_system_calls_the_strict_filter_denies_fail_with_eperm_and_the_match_goes_on(
    tmp_path: Path,
) -> None:
    # The strict layer's seccomp filter: ptrace, process_vm_*, mounts, namespaces, bpf,
    # perf, key rings, userfaultfd, kexec, modules, io_uring... each answers EPERM, and a
    # bot that probes them is not stopped for it: it plays its hands.
    played = play(
        [bot("strict_syscalls"), station("victim")], tmp_path, hands=2, level=strict_layer()
    )
    report = json.loads(played.stderr(0).strip().splitlines()[0])
    assert report["errno"] and set(report["errno"].values()) == {errno.EPERM}, report
    assert report["clone_newuser"] == errno.EPERM
    assert played.codes(0) == {"not_ready"}  # its report line, dropped before ready
    assert not played.codes(1)
