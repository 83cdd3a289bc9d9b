"""Run one command under a reaper of its own: ``python -I -S _subreaper.py COMMAND...``.

A process that clears its environment (so it carries no reap token), starts a new session and
double-forks is orphaned; Linux hands an orphan to its nearest subreaper ancestor, and when that is
workbench itself, nothing marks it as the engine's any more. So an engine (or fixture command)
starts as the only child of this small process, which is a subreaper (``PR_SET_CHILD_SUBREAPER``)
and starts nothing else: every orphan the command leaves is adopted here and stays a descendant of
what workbench started, where ``reap`` finds it; and once the command ends, this process kills
whatever it left (frozen first, so nothing forks meanwhile) before it exits with the command's
status. It imports nothing of workbench (it runs without ``site``) and keeps none of the
command's pipes open, so the command's end of file is its own.
"""

import ctypes
import os
import signal
import sys

_PR_SET_CHILD_SUBREAPER = 36
_FORWARDED = (signal.SIGTERM, signal.SIGINT, signal.SIGHUP, signal.SIGQUIT, signal.SIGUSR1, signal.SIGUSR2)


def _descendants(me: int) -> set[int]:
    """Every process below ``me``, from /proc."""
    parents: dict[int, int] = {}
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                with open(f"/proc/{name}/stat", "rb") as handle:
                    parents[int(name)] = int(handle.read().rpartition(b")")[2].split()[1])
            except (OSError, IndexError, ValueError):
                continue
    found, grew = set(), True
    while grew:
        more = {pid for pid, parent in parents.items() if (parent == me or parent in found) and pid not in found}
        found |= more
        grew = bool(more)
    return found


def _signal_all(pids: set[int], number: int) -> None:
    for pid in pids:
        try:
            os.kill(pid, number)
        except OSError:
            pass


def _has_children(me: int) -> bool:
    """Whether this process has a child left (then maybe more below it); True when it cannot tell."""
    try:
        with open(f"/proc/{me}/task/{me}/children", "rb") as handle:
            return bool(handle.read().strip())
    except OSError:
        return True


def _kill_the_rest() -> None:
    """Freeze, then kill, everything left below this process, and collect it."""
    me, stopped = os.getpid(), set[int]()
    if not _has_children(me):  # the common case: the command left nothing; no /proc walk
        return
    for _ in range(50):  # a fork bomb keeps forking: freeze what is found until nothing new appears
        new = _descendants(me) - stopped
        if not new:
            break
        _signal_all(new, signal.SIGSTOP)
        stopped |= new
    _signal_all(stopped, signal.SIGKILL)
    while True:
        try:
            os.waitpid(-1, 0)
        except ChildProcessError:
            return


def _exit_as(status: int) -> None:
    """Exit with the command's status: its exit code, or the signal that ended it."""
    if os.WIFSIGNALED(status):
        number = os.WTERMSIG(status)
        signal.signal(number, signal.SIG_DFL)
        os.kill(os.getpid(), number)
        os._exit(128 + number)
    os._exit(os.waitstatus_to_exitcode(status))


def main(argv: list[str]) -> None:
    try:
        ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
    except (OSError, AttributeError):
        pass  # then this is only a parent, as without it
    child = os.fork()
    if child == 0:
        try:
            os.execvp(argv[0], argv)
        except OSError as exc:
            os.write(2, f"{argv[0]}: {exc.strerror}\n".encode())
            os._exit(127)

    def forward(number: int, frame: object) -> None:
        try:
            os.kill(child, number)
        except OSError:
            pass

    for number in _FORWARDED:
        signal.signal(number, forward)
    null = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(null, fd)
    while True:
        pid, status = os.waitpid(-1, 0)  # collects adopted orphans as they end, too
        if pid == child:
            break
    _kill_the_rest()
    _exit_as(status)


if __name__ == "__main__":
    main(sys.argv[1:])
