"""The exec wrapper a sandboxed bot runs under: limits, death with the arena, no leftovers.

This file is a standalone script that uses nothing but the standard library, run as::

    python -I -S supervisor.py [--cpu=S] [--fsize=B] [--nofile=N] [--as=B]
                               [--nproc=N] [--uid=U --gid=G] [--private-dir=PATH]
                               [--private-tmp=1] [--stdin-fd=N --stdout-fd=M]
                               -- program arg...

so a wrapping layer (``bwrap``) needs to make only this one file and an interpreter
visible. It does what ``preexec_fn`` cannot do safely in a threaded arena:

0. given ``--stdin-fd``/``--stdout-fd``, it moves those descriptors onto its standard
   input and output first (and closes the originals): a wrapping layer whose own process
   must not hold the bot's pipes (bwrap's monitor) hands them over that way;
1. it asks the kernel for a death signal (``PR_SET_PDEATHSIG``): when the arena dies, even
   by ``kill -9``, the supervisor gets :data:`DEATH_SIGNAL`, kills the bot's whole tree and
   exits. The signal comes when the *thread* that started the supervisor ends, so the arena
   starts bots from a thread that lives as long as they do;
1b. given ``--private-tmp=1`` (the limits layer, as root; it needs ``--private-dir``),
   it moves into a mount namespace of its own, private to it and the bot, in which the
   places every user may write (:data:`SHARED_TMP_DIRS`) are the private directory's
   ``tmp/`` (a tmpfs of the bot's disk size: :mod:`arena.bots.sandbox.disk`), and the
   private directory is shown again at its own path, should it lie in one of them; and
   into an IPC namespace of its own, so that no shared memory segment, semaphore or
   message queue it makes outlives it. What the bot leaves there is gone with it: nothing
   passes from one match to the next through them;
2. it makes itself a child subreaper (``PR_SET_CHILD_SUBREAPER``): every process the bot
   starts that is orphaned, even one that called ``setsid()`` and exec'd with an empty
   environment, becomes the supervisor's child instead of init's, so it can be found;
3. it forks the bot with the same standard streams, and in the child sets the resource
   limits (CPU seconds, open files, file size, no core dumps, address space as a
   backstop; processes only with a user id of its own, where the count means something),
   drops to ``--uid``/``--gid`` when given (the arena gives them when it runs as root: the
   bot then cannot read other processes' ``/proc`` entries or signal the arena, the
   supervisor or another bot; without root the bot keeps the arena's user), and execs it;
4. it closes its own copies of the standard streams, so the arena sees the bot close its
   output or input exactly as without a wrapper;
5. it waits for the bot, reaping orphans meanwhile; when the bot has ended it kills
   whatever is left of the tree and exits the way the bot did: the same exit code, or
   killed by the same signal, so the arena reports how the bot ended (as the first
   process of a PID namespace, which cannot be killed from inside, it exits with 128 plus
   the signal's number instead, as shells do);
6. when it stops because the arena died (its death signal, or the bot ended and the
   supervisor's parent is no longer the arena), it also removes ``--private-dir`` (the
   bot's private directory), which the arena would have removed.

Exit code 125 means the supervisor's own arguments were wrong, 127 that the bot's program
could not be executed (the reason is on stderr).
"""

from __future__ import annotations

import ctypes
import os
import resource
import signal
import sys
import time
from collections.abc import Sequence
from typing import NoReturn

__all__ = [
    "DEATH_SIGNAL",
    "OPTIONS",
    "Arguments",
    "SupervisorError",
    "descendants",
    "parse_arguments",
]

#: The signal the supervisor gets when the arena dies (and handles by killing the tree).
DEATH_SIGNAL = signal.SIGTERM

#: Each option and the resource limit it sets (None: not a limit).
OPTIONS: dict[str, int | None] = {
    "cpu": resource.RLIMIT_CPU,
    "fsize": resource.RLIMIT_FSIZE,
    "nofile": resource.RLIMIT_NOFILE,
    "as": resource.RLIMIT_AS,
    "nproc": resource.RLIMIT_NPROC,
    "uid": None,
    "gid": None,
    "stdin-fd": None,
    "stdout-fd": None,
    "private-tmp": None,
}

#: The options that name a descriptor to take as standard input and output.
_STREAM_OPTIONS = {"stdin-fd": 0, "stdout-fd": 1}

#: The places every user may write, which the bot gets as its own with --private-tmp (a
#: link, as /var/lock often is, is left alone: its target is in the list).
SHARED_TMP_DIRS = ("/tmp", "/var/tmp", "/dev/shm", "/run/lock", "/var/lock")

_CLONE_NEWNS = 0x00020000
_CLONE_NEWIPC = 0x08000000
_MS_BIND = 0x1000
_MS_REC = 0x4000
_MS_PRIVATE = 1 << 18
_PR_SET_PDEATHSIG = 1
_PR_SET_CHILD_SUBREAPER = 36
_BAD_ARGUMENTS = 125
_CANNOT_EXECUTE = 127
_CPU_GRACE_S = 2  # SIGXCPU at the limit, SIGKILL this much later
_KILL_DEADLINE_S = 5.0  # longest the supervisor spends killing what is left
_KILL_PAUSE_S = 0.002
# Python ignores these at start-up; an ignored signal stays ignored across exec.
_RESTORED_SIGNALS = ("SIGPIPE", "SIGXFSZ", "SIGXFZ")
_STOP_SIGNALS = (DEATH_SIGNAL, signal.SIGHUP, signal.SIGINT)
_private_dirs: list[str] = []  # removed when the supervisor outlives the arena


class SupervisorError(Exception):
    """The supervisor's arguments are wrong (exit code 125)."""


#: What the supervisor was asked: numeric options, the private directory, the command.
Arguments = tuple[dict[str, int], str | None, list[str]]


def parse_arguments(argv: Sequence[str]) -> Arguments:
    """``--name=value`` options (whole numbers, but for ``--private-dir``) up to ``--``,
    then the bot's argv.

    >>> parse_arguments(["--cpu=5", "--uid=1000", "--gid=1000", "--", "bot", "-x"])
    ({'cpu': 5, 'uid': 1000, 'gid': 1000}, None, ['bot', '-x'])
    """
    options: dict[str, int] = {}
    private_dir: str | None = None
    for index, argument in enumerate(argv):
        if argument == "--":
            command = list(argv[index + 1 :])
            if not command:
                raise SupervisorError("no command after '--'")
            if ("uid" in options) != ("gid" in options):
                raise SupervisorError("--uid and --gid go together")
            if options.get("private-tmp") and private_dir is None:
                raise SupervisorError("--private-tmp needs --private-dir")
            streams = [options[name] for name in _STREAM_OPTIONS if name in options]
            if any(fd <= 2 for fd in streams) or len(set(streams)) != len(streams):
                raise SupervisorError(
                    f"--stdin-fd and --stdout-fd need two different descriptors above 2, "
                    f"not {streams}"
                )
            return options, private_dir, command
        name, equals, value = argument.removeprefix("--").partition("=")
        if name == "private-dir" and equals:
            if not os.path.isabs(value):
                raise SupervisorError(f"option {argument!r} needs an absolute path")
            private_dir = value
            continue
        if not argument.startswith("--") or not equals or name not in OPTIONS:
            known = ", ".join([*OPTIONS, "private-dir"])
            raise SupervisorError(f"unknown option {argument!r} (known: {known})")
        if not value.isascii() or not value.isdigit():
            raise SupervisorError(f"option {argument!r} needs a whole number")
        options[name] = int(value)
    raise SupervisorError("missing '--' before the command")


def descendants(pid: int, proc: str = "/proc") -> list[int]:
    """Every process below ``pid`` (children, their children...), as ``/proc`` lists them."""
    children: dict[int, list[int]] = {}
    for entry in os.listdir(proc):
        if not entry.isdigit():
            continue
        try:
            with open(f"{proc}/{entry}/stat", "rb") as file:
                stat = file.read()
        except OSError:  # gone meanwhile
            continue
        # The name in parentheses may hold anything, spaces and parentheses included.
        fields = stat[stat.rfind(b")") + 2 :].split()
        if len(fields) > 1:
            children.setdefault(int(fields[1]), []).append(int(entry))
    found: list[int] = []
    waiting = [pid]
    while waiting:
        for child in children.get(waiting.pop(), ()):
            found.append(child)
            waiting.append(child)
    return found


# What follows runs only in the supervisor's own process, where coverage does not follow;
# tests/arena/bots/sandbox/test_supervisor.py runs it for real.


def _prctl(option: int, value: int) -> None:  # pragma: no cover
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(option, ctypes.c_ulong(value), 0, 0, 0) != 0:
        error = ctypes.get_errno()
        raise OSError(error, f"prctl({option}): {os.strerror(error)}")


def _kill_tree() -> None:  # pragma: no cover
    """SIGKILL every descendant until none is left (orphans come back to us to be reaped)."""
    me = os.getpid()
    deadline = time.monotonic() + _KILL_DEADLINE_S
    while time.monotonic() < deadline:
        for pid in descendants(me):
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:  # gone, or a zombie's parent reaps it
                continue
        try:
            while os.waitpid(-1, os.WNOHANG)[0] > 0:
                pass
        except ChildProcessError:
            return  # no child left, so no descendant: every orphan comes to us
        time.sleep(_KILL_PAUSE_S)


def _exit_like(status: int) -> NoReturn:  # pragma: no cover
    """End the way the bot ended (``status`` from ``waitpid``): the same code or signal."""
    if os.WIFSIGNALED(status):
        _die_by(os.WTERMSIG(status))
    os._exit(os.WEXITSTATUS(status) if os.WIFEXITED(status) else 1)


def _die_by(number: int) -> NoReturn:  # pragma: no cover
    """Be killed by signal ``number`` (no core dump: the core limit is 0)."""
    try:
        signal.signal(number, signal.SIG_DFL)
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {number})
    except (OSError, ValueError):  # SIGKILL and SIGSTOP keep their action anyway
        pass
    os.kill(os.getpid(), number)
    # Still here: a signal whose default is not to terminate, or this is the first process
    # of a PID namespace, which no signal of its own kills. Say it as shells do.
    os._exit(128 + number)


def _on_stop_signal(number: int, _frame: object) -> None:  # pragma: no cover
    """The arena died (or asked us to stop): take the whole tree down, then go, killed
    by SIGKILL as the bot was (whatever ``number`` was)."""
    _kill_tree()
    _remove_private_dir()
    _die_by(signal.SIGKILL)


def _remove_private_dir() -> None:  # pragma: no cover
    """Remove the bot's private directory: the arena, gone, cannot."""
    if _private_dirs:
        import shutil  # only on this path: it costs start-up time

        shutil.rmtree(_private_dirs[0], ignore_errors=True)


def _private_tmp(private_dir: str) -> None:  # pragma: no cover
    """Enter a mount namespace of our own where the shared temporary directories are the
    private directory's ``tmp/`` (see the module docstring, step 1b)."""
    libc = ctypes.CDLL(None, use_errno=True)

    def check(result: int, what: str) -> None:
        if result != 0:
            error = ctypes.get_errno()
            raise OSError(error, f"{what}: {os.strerror(error)}")

    check(libc.unshare(_CLONE_NEWNS | _CLONE_NEWIPC), "unshare(CLONE_NEWNS | CLONE_NEWIPC)")
    # Nothing mounted here reaches the machine's namespace, nor the other way round.
    check(
        libc.mount(None, b"/", None, ctypes.c_ulong(_MS_REC | _MS_PRIVATE), None), "make / private"
    )
    # Held open: once /tmp is covered, the private directory (in /tmp) is reached by these.
    folder = os.open(private_dir, os.O_PATH | os.O_DIRECTORY)
    tmp = os.open(os.path.join(private_dir, "tmp"), os.O_PATH | os.O_DIRECTORY | os.O_NOFOLLOW)
    try:
        covered = []
        for target in SHARED_TMP_DIRS:
            if os.path.isdir(target) and not os.path.islink(target):
                source = f"/proc/self/fd/{tmp}".encode()
                check(libc.mount(source, target.encode(), None, ctypes.c_ulong(_MS_BIND), None),
                      f"bind the private tmp/ on {target}")  # fmt: skip
                covered.append(target)
        if any(private_dir.startswith(target + "/") for target in covered):
            os.makedirs(private_dir, mode=0o700, exist_ok=True)  # in tmp/: where it is shown
            source = f"/proc/self/fd/{folder}".encode()
            flags = ctypes.c_ulong(_MS_BIND | _MS_REC)
            check(libc.mount(source, private_dir.encode(), None, flags, None),
                  "show the private directory at its path")  # fmt: skip
    finally:
        os.close(folder)
        os.close(tmp)


def _take_streams(options: dict[str, int]) -> None:  # pragma: no cover
    """Move the descriptors of ``--stdin-fd``/``--stdout-fd`` onto 0 and 1 (and drop
    those options: they are the supervisor's, not the bot's)."""
    for name, target in _STREAM_OPTIONS.items():
        fd = options.pop(name, None)
        if fd is not None:
            os.dup2(fd, target)
            os.close(fd)


def _become_bot(
    options: dict[str, int], command: list[str], supervisor: int
) -> NoReturn:  # pragma: no cover
    """In the forked child: limits, user, death signal, then exec the bot's program."""
    try:
        for name in _RESTORED_SIGNALS:
            if hasattr(signal, name):
                signal.signal(getattr(signal, name), signal.SIG_DFL)
        for number in _STOP_SIGNALS:
            signal.signal(number, signal.SIG_DFL)
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
        for name, value in options.items():
            limit = OPTIONS[name]
            if limit is None:
                continue
            soft = value
            hard = value + _CPU_GRACE_S if name == "cpu" else value
            _, current_hard = resource.getrlimit(limit)
            if current_hard != resource.RLIM_INFINITY and os.geteuid() != 0:
                soft, hard = min(soft, current_hard), min(hard, current_hard)
            resource.setrlimit(limit, (soft, hard))
        if "uid" in options:
            os.setgroups([])
            os.setresgid(options["gid"], options["gid"], options["gid"])
            os.setresuid(options["uid"], options["uid"], options["uid"])
        # Set after the change of user, which clears it; then die with the supervisor.
        _prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)
        if os.getppid() != supervisor:
            os._exit(_CANNOT_EXECUTE)
        os.execvp(command[0], command)
    except OSError as exc:
        reason = exc.strerror or str(exc)
        os.write(2, f"supervisor: cannot run {command[0]!r}: {reason}\n".encode(errors="replace"))
    os._exit(_CANNOT_EXECUTE)


def main(argv: Sequence[str]) -> NoReturn:  # pragma: no cover
    """Run the bot of ``argv`` (see the module docstring); never returns."""
    parent = os.getppid()
    try:
        options, private_dir, command = parse_arguments(argv)
    except SupervisorError as exc:
        os.write(2, f"supervisor: {exc}\n".encode())
        os._exit(_BAD_ARGUMENTS)
    try:
        _take_streams(options)
    except OSError as exc:
        os.write(2, f"supervisor: cannot take the bot's streams: {exc.strerror}\n".encode())
        os._exit(_BAD_ARGUMENTS)
    if private_dir is not None:
        _private_dirs.append(private_dir)
    if options.pop("private-tmp", 0) and private_dir is not None:
        try:
            _private_tmp(private_dir)
        except OSError as exc:
            os.write(2, f"supervisor: cannot give the bot a private /tmp: {exc}\n".encode())
            os._exit(_CANNOT_EXECUTE)
    for number in _STOP_SIGNALS:
        signal.signal(number, _on_stop_signal)
    _prctl(_PR_SET_PDEATHSIG, DEATH_SIGNAL)
    if os.getppid() != parent or parent == 1:  # the arena died before we asked
        os._exit(_CANNOT_EXECUTE)
    _prctl(_PR_SET_CHILD_SUBREAPER, 1)
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))  # ending by the bot's signal dumps none
    supervisor = os.getpid()
    bot = os.fork()
    if bot == 0:
        _become_bot(options, command, supervisor)
    # The bot's streams are the bot's: holding them open would hide its closing them.
    null = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(null, fd)
    os.close(null)
    while True:
        pid, status = os.waitpid(-1, 0)  # orphans of the bot are reaped here too
        if pid == bot:
            break
    _kill_tree()
    if os.getppid() != parent:
        # The arena died and the bot ended first (it read the end of its input before our
        # death signal was handled): nobody else will remove the directory.
        _remove_private_dir()
    _exit_like(status)


if __name__ == "__main__":  # pragma: no cover
    main(sys.argv[1:])
