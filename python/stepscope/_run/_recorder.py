"""The recorder of ``stepscope run`` (docs/run.md): inside a process that imports torch, finds
the steps without the script's help, records a window of them with ``torch.profiler`` and writes
one trace per rank.

Nothing happens until torch is imported (an import hook waits for it); then global hooks count
steps: the end of an optimizer step, else the start of each outermost ``nn.Module`` forward
(inference), else the calls of a function named by ``--step-fn``. Outside the window the only
cost is these hook calls, and they are removed once the window is written.

While the window is open, the input pipeline's Python stacks are sampled too, in this process
and in its DataLoader workers (``_input_sampler``), so that an input-bound finding can name the
functions that take the time.

This module imports nothing from the stepscope package: the start-up hook loads the ``_run``
folder as a package of its own.
"""

from __future__ import annotations

import atexit
import functools
import gzip
import importlib.abc
import importlib.machinery
import importlib.util
import json
import os
import pickle
import shutil
import signal
import sys
import threading
import traceback
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import FrameType, ModuleType
from typing import Any, BinaryIO

from ._files import replace_atomically

# The settings `stepscope run` passes to every process of the command.
ENV_OUT = "STEPSCOPE_RUN_OUT"
ENV_SKIP = "STEPSCOPE_RUN_SKIP"
ENV_STEPS = "STEPSCOPE_RUN_STEPS"
ENV_STEP_FN = "STEPSCOPE_RUN_STEP_FN"
ENV_SECONDS = "STEPSCOPE_RUN_SECONDS"
ENV_STACKS = "STEPSCOPE_RUN_STACKS"
ENV_STOP_AFTER_WINDOW = "STEPSCOPE_RUN_STOP_AFTER_WINDOW"
ENV_MEMORY = "STEPSCOPE_RUN_MEMORY"
ENV_DISABLE = "STEPSCOPE_RUN_DISABLE"
# The pid of the process whose recorder is installed: a forked child inherits it and differs.
_ENV_INSTALLED_PID = "_STEPSCOPE_RUN_INSTALLED_PID"

HOST_METADATA_KEY = "stepscope_host"
TRACE_SUFFIX = ".pt.trace.json.gz"
NOTE_SUFFIX = ".note.txt"
WINDOW_SNAPSHOT_SUFFIX = ".memory.pickle"
OUT_OF_MEMORY_SUFFIX = ".oom.pickle"
# Allocator events kept by --memory: the most recent ones, enough for a few steps of a large model.
MEMORY_HISTORY_ENTRIES = 200_000


@dataclass(frozen=True)
class Settings:
    out: Path
    skip: int = 5
    steps: int = 5
    step_fn: str = ""
    seconds: float = 0.0  # 0: no time window
    stacks: bool = False
    stop_after_window: bool = False
    memory: bool = False

    @staticmethod
    def from_environment(environ: dict[str, str] | None = None) -> Settings | None:
        """The settings, or None when the recorder is off (no out folder, or disabled)."""
        env = dict(os.environ) if environ is None else environ
        out = env.get(ENV_OUT, "")
        if not out or env.get(ENV_DISABLE, "") not in ("", "0"):
            return None
        return Settings(
            out=Path(out),
            skip=max(0, int(env.get(ENV_SKIP, "5") or 5)),
            steps=max(1, int(env.get(ENV_STEPS, "5") or 5)),
            step_fn=env.get(ENV_STEP_FN, ""),
            seconds=max(0.0, float(env.get(ENV_SECONDS, "0") or 0)),
            stacks=env.get(ENV_STACKS, "") not in ("", "0"),
            stop_after_window=env.get(ENV_STOP_AFTER_WINDOW, "") not in ("", "0"),
            memory=env.get(ENV_MEMORY, "") not in ("", "0"),
        )

    def to_environment(self) -> dict[str, str]:
        env = {
            ENV_OUT: str(self.out),
            ENV_SKIP: str(self.skip),
            ENV_STEPS: str(self.steps),
            ENV_STACKS: "1" if self.stacks else "0",
            ENV_STOP_AFTER_WINDOW: "1" if self.stop_after_window else "0",
            ENV_MEMORY: "1" if self.memory else "0",
        }
        if self.step_fn:
            env[ENV_STEP_FN] = self.step_fn
        if self.seconds > 0:
            env[ENV_SECONDS] = repr(self.seconds)
        return env


def rank_from_environment() -> int:
    for name in ("RANK", "LOCAL_RANK"):
        value = os.environ.get(name, "")
        if value.isdigit():
            return int(value)
    return 0


def _warn(message: str) -> None:
    print(f"stepscope run: {message}", file=sys.stderr, flush=True)


def _is_launcher() -> bool:
    """torchrun and torch.distributed.launch import torch but run no step of their own."""
    program = sys.argv[0] if sys.argv else ""
    name = os.path.basename(program)
    return name == "torchrun" or program.endswith(
        (os.path.join("distributed", "run.py"), os.path.join("distributed", "launch.py"))
    )


class _AfterImportLoader(importlib.abc.Loader):
    """Runs a callback once a module's own loader has executed it."""

    def __init__(self, loader: importlib.abc.Loader, callback: Callable[[ModuleType], None]):
        self._loader = loader
        self._callback = callback

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType | None:
        return self._loader.create_module(spec)

    def exec_module(self, module: ModuleType) -> None:
        self._loader.exec_module(module)
        module.__loader__ = self._loader
        if module.__spec__ is not None:
            module.__spec__.loader = self._loader
        self._callback(module)


class _ImportWatcher(importlib.abc.MetaPathFinder):
    """Calls back when a watched module has been imported (torch; the --step-fn module)."""

    def __init__(self) -> None:
        self._watched: dict[str, Callable[[ModuleType], None]] = {}
        self._finding = threading.local()

    def watch(self, name: str, callback: Callable[[ModuleType], None]) -> None:
        module = sys.modules.get(name)
        if module is not None:
            callback(module)
            return
        self._watched[name] = callback
        if self not in sys.meta_path:
            sys.meta_path.insert(0, self)

    def find_spec(
        self,
        fullname: str,
        path: Sequence[str] | None,
        target: ModuleType | None = None,
    ) -> importlib.machinery.ModuleSpec | None:
        callback = self._watched.get(fullname)
        if callback is None or getattr(self._finding, "active", False):
            return None
        self._finding.active = True
        try:
            spec = importlib.util.find_spec(fullname)
        finally:
            self._finding.active = False
        if spec is None or spec.loader is None:
            return None
        del self._watched[fullname]
        if not self._watched and self in sys.meta_path:
            sys.meta_path.remove(self)
        spec.loader = _AfterImportLoader(spec.loader, callback)
        return spec


class Recorder:
    """One process's window: waits ``skip`` steps, records ``steps`` steps, writes the trace."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.pid = os.getpid()
        self.rank = rank_from_environment()
        self._lock = threading.RLock()
        self._state = "waiting"  # waiting, recording, done
        self._mode = "forward"  # forward, optimizer, function, time
        self._steps_completed = 0
        self._forward_starts = 0
        self._recorded = 0
        self._first_optimizer: Any = None
        self._depth = threading.local()
        self._handles: list[Any] = []
        self._profiler: Any = None
        self._torch: Any = None
        self._step_fn_wrapped = False
        self._own_profiler_starting = False
        self._input_window: Any = None
        self._recording_memory = False  # --memory, on a CUDA device
        self._host_conditions_probe: Callable[[], dict[str, Any]] | None = None
        self._unwatch_workers: Callable[[], None] | None = None

    # -- installation -----------------------------------------------------------------------

    def install(self) -> None:
        watcher = _ImportWatcher()
        if self.settings.step_fn:
            self._mode = "function"
            module_name = self.settings.step_fn.partition(":")[0]
            if module_name != "__main__":
                watcher.watch(module_name, self._wrap_step_fn)
        watcher.watch("torch", self._torch_imported)

    def _torch_imported(self, torch: ModuleType) -> None:
        try:
            self._install_torch_hooks(torch)
        except Exception as error:  # never stop the user's program
            _warn(f"cannot watch the steps of this process: {error}")

    def _install_torch_hooks(self, torch: ModuleType) -> None:
        import torch.nn.modules.module as module_hooks
        import torch.optim.optimizer as optimizer_hooks
        import torch.profiler as profiler_module

        self._torch = torch
        self._handles = [
            optimizer_hooks.register_optimizer_step_post_hook(self._optimizer_stepped),
            module_hooks.register_module_forward_pre_hook(self._forward_starting),
            module_hooks.register_module_forward_hook(self._forward_ended, always_call=True),
        ]
        self._watch_other_profilers(profiler_module.profile)
        self._watch_input_workers()
        if self.settings.memory and not _is_launcher():
            self._record_memory_history(torch)
        # Registered after torch's own exit handlers, so that it runs before them.
        atexit.register(self.finish_at_exit)
        if self.settings.seconds > 0:
            self._arm_time_window()

    def _watch_other_profilers(self, profile_class: Any) -> None:
        """A profiler the script starts itself: this one steps aside (two cannot run at once)."""
        original_start = profile_class.start
        recorder = self

        def start(profiler: Any) -> None:
            if not recorder._own_profiler_starting and profiler is not recorder._profiler:
                recorder._script_profiles()
            original_start(profiler)

        profile_class.start = start

    def _record_memory_history(self, torch: ModuleType) -> None:
        """--memory: the CUDA allocator records each allocation's stack from now on, and an
        out-of-memory error anywhere in the process dumps a snapshot (the error itself is left
        to the program)."""
        if not torch.cuda.is_available():
            self._write_note(
                "--memory: no CUDA device in this process, so no allocator history and no "
                "out-of-memory snapshot were recorded"
            )
            return
        torch.cuda.memory._record_memory_history(max_entries=MEMORY_HISTORY_ENTRIES)
        torch._C._cuda_attach_out_of_memory_observer(self._out_of_memory)
        self._recording_memory = True

    def _out_of_memory(self, *_details: Any) -> None:
        if os.getpid() == self.pid:
            self._dump_memory_snapshot(OUT_OF_MEMORY_SUFFIX)

    def _dump_memory_snapshot(self, suffix: str) -> None:
        try:
            snapshot = self._torch.cuda.memory._snapshot()
            self.settings.out.mkdir(parents=True, exist_ok=True)
            path = self.settings.out / f"rank{self.rank}{suffix}"
            replace_atomically(path, lambda stream: pickle.dump(snapshot, stream))
        except Exception as error:  # never hide the program's own error
            _warn(f"the memory snapshot could not be written: {error}")

    def _watch_input_workers(self) -> None:
        """Each DataLoader worker started from now on watches for this process's window.

        The worker loop is wrapped where the DataLoader looks it up when it starts a worker;
        the wrapper keeps the loop's name, so a worker started by ``spawn`` finds it too.
        """
        from torch.utils.data._utils import worker as worker_module

        from . import _input_sampler

        original = worker_module._worker_loop
        out = self.settings.out

        @functools.wraps(original)
        def _worker_loop(*args: Any, **kwargs: Any) -> Any:
            try:
                _input_sampler.watch_from_worker(out)
            except Exception as error:  # never stop the user's workers
                _warn(f"the input pipeline of this worker is not sampled: {error}")
            return original(*args, **kwargs)

        worker_module._worker_loop = _worker_loop

        def unwatch() -> None:
            worker_module._worker_loop = original

        self._unwatch_workers = unwatch

    def _remove_hooks(self) -> None:
        for handle in self._handles:
            handle.remove()
        self._handles = []
        if self._unwatch_workers is not None:
            self._unwatch_workers()
            self._unwatch_workers = None

    # -- steps ----------------------------------------------------------------------------

    def _ours(self) -> bool:
        """False in a forked child (DataLoader worker) and in a DataLoader worker process."""
        if os.getpid() != self.pid or self._state == "done":
            return False
        data = sys.modules.get("torch.utils.data")
        return data is None or data.get_worker_info() is None

    def _compiling(self) -> bool:
        return bool(self._torch is not None and self._torch.compiler.is_compiling())

    def _optimizer_stepped(self, optimizer: Any, _args: Any, _kwargs: Any) -> None:
        if self._mode == "function" or not self._ours():
            return
        if self._first_optimizer is None:
            self._first_optimizer = optimizer
            if self._mode == "forward":
                self._mode = "optimizer"
                self._steps_completed = 0
        if optimizer is not self._first_optimizer:  # several optimizers: the first one's steps
            return
        self._boundary()

    def _forward_depth(self) -> int:
        depth: int = getattr(self._depth, "value", 0)
        return depth

    def _forward_starting(self, _module: Any, _inputs: Any) -> None:
        if self._compiling():
            return
        depth = self._forward_depth()
        self._depth.value = depth + 1
        if depth != 0 or not self._ours():
            return
        if self._mode == "function" and not self._step_fn_wrapped:
            main = sys.modules.get("__main__")
            if main is not None and self.settings.step_fn.startswith("__main__:"):
                self._wrap_step_fn(main)
        if self._mode != "forward":
            return
        self._forward_starts += 1
        if self._forward_starts > 1:  # a forward's start ends the step before it
            self._boundary()

    def _forward_ended(self, _module: Any, _inputs: Any, _output: Any) -> None:
        if self._compiling():
            return
        self._depth.value = max(0, self._forward_depth() - 1)

    def _wrap_step_fn(self, module: ModuleType) -> None:
        _, _, qualified = self.settings.step_fn.partition(":")
        *owners, name = qualified.split(".")
        owner: Any = module
        for part in owners:
            owner = getattr(owner, part, None)
        function = getattr(owner, name, None) if owner is not None else None
        if not callable(function):
            if module.__name__ != "__main__":
                _warn(f"--step-fn {self.settings.step_fn}: no such function")
            return
        recorder = self

        def step_fn(*args: Any, **kwargs: Any) -> Any:
            try:
                return function(*args, **kwargs)
            finally:
                if recorder._ours():
                    recorder._boundary()

        setattr(owner, name, step_fn)
        self._step_fn_wrapped = True

    def _boundary(self) -> None:
        """A step ended: start, advance or end the window."""
        with self._lock:
            if self._state == "waiting":
                self._steps_completed += 1
                if self._steps_completed >= max(self.settings.skip, 1):
                    self._start(mark_steps=True)
            elif self._state == "recording" and self._mode != "time":
                self._recorded += 1
                if self._recorded >= self.settings.steps:
                    self._finish(complete=True)
                else:
                    self._profiler.step()

    # -- the window -----------------------------------------------------------------------

    def _script_profiles(self) -> None:
        with self._lock:
            if self._state == "done":
                return
            if self._state == "recording":
                self._close_input_window()
                self._stop_profiler()
            self._state = "done"
            self._remove_hooks()
        self._write_note(
            "the script runs torch.profiler itself: stepscope run recorded nothing in this "
            "process (two profilers cannot run at once); analyse the script's own traces with "
            "`stepscope analyze`"
        )

    def _start(self, mark_steps: bool) -> None:
        torch = self._torch
        if torch.autograd._profiler_enabled():
            self._script_profiles()
            return
        self._load_host_conditions()
        activities = [torch.profiler.ProfilerActivity.CPU]
        if torch.cuda.is_available():
            activities.append(torch.profiler.ProfilerActivity.CUDA)
        self._profiler = torch.profiler.profile(
            activities=activities,
            record_shapes=True,
            profile_memory=True,
            with_stack=self.settings.stacks,
        )
        self._profiler.record_steps = mark_steps
        self._own_profiler_starting = True
        try:
            self._profiler.start()
        finally:
            self._own_profiler_starting = False
        self._state = "recording"
        self._open_input_window()

    def _open_input_window(self) -> None:
        from . import _input_sampler

        try:
            window = _input_sampler.InputWindow(self.settings.out)
            window.open()
            self._input_window = window
        except OSError as error:
            _warn(f"the input pipeline is not sampled: {error}")

    def _close_input_window(self) -> dict[str, Any] | None:
        """Ends the input sampling: the ``input_functions`` entry, or None when nothing was
        sampled inside the DataLoader's fetch."""
        window, self._input_window = self._input_window, None
        if window is None:
            return None
        from . import _input_sampler

        counts = window.close()
        return _input_sampler.input_functions(counts) if counts.fetch_samples else None

    def _stop_profiler(self) -> None:
        try:
            self._profiler.stop()
        except Exception as error:
            _warn(f"the profiler did not stop cleanly: {error}")

    def _load_host_conditions(self) -> None:
        """Imports the host-conditions probe before the window, never while the process exits:
        importing the stepscope package there makes Python forget that an unhandled Ctrl-C ended
        the program, and exit with status 1 instead of dying of SIGINT."""
        try:
            from stepscope.torch._profile import host_conditions
        except Exception:  # stepscope not importable by this interpreter: no host figures
            return
        self._host_conditions_probe = host_conditions

    def _host_conditions(self) -> dict[str, Any] | None:
        probe = self._host_conditions_probe
        return None if probe is None else probe()

    def _finish(self, complete: bool) -> None:
        """Stops the window and writes the trace (partial when the process ends inside it)."""
        profiler = self._profiler
        self._state = "done"
        self._remove_hooks()
        input_functions = self._close_input_window()
        host = self._host_conditions()
        if input_functions is not None:
            host = dict(host or {}, input_functions=input_functions)
        if host is not None:
            profiler.add_metadata_json(HOST_METADATA_KEY, json.dumps(host))
        self._stop_profiler()
        if self._recording_memory:
            self._dump_memory_snapshot(WINDOW_SNAPSHOT_SUFFIX)
        path = self._write_trace(profiler)
        if not complete and path is not None:
            steps = (
                ""
                if self._mode == "time"
                else f" ({self._recorded} of {self.settings.steps} steps)"
            )
            self._write_note(f"the process ended inside the window: {path.name} is partial{steps}")
        if complete and self.settings.stop_after_window:
            raise SystemExit(0)

    def _trace_path(self) -> Path:
        path = self.settings.out / f"rank{self.rank}{TRACE_SUFFIX}"
        if path.exists():  # another process of this rank number (a second job on the host)
            path = self.settings.out / f"rank{self.rank}.pid{os.getpid()}{TRACE_SUFFIX}"
        return path

    def _write_trace(self, profiler: Any) -> Path | None:
        try:
            self.settings.out.mkdir(parents=True, exist_ok=True)
            path = self._trace_path()
            plain = path.with_name(f".{path.name}.{os.getpid()}.json")  # the profiler's own
            try:
                profiler.export_chrome_trace(str(plain))

                def pack(stream: BinaryIO) -> None:
                    with (
                        open(plain, "rb") as source,
                        gzip.GzipFile(fileobj=stream, mode="wb") as target,
                    ):
                        shutil.copyfileobj(source, target)

                replace_atomically(path, pack)
            finally:
                plain.unlink(missing_ok=True)
            return path
        except Exception as error:
            _warn(f"the trace could not be written: {error}")
            return None

    def _write_note(self, text: str) -> None:
        try:
            self.settings.out.mkdir(parents=True, exist_ok=True)
            note = self.settings.out / f"rank{self.rank}.pid{os.getpid()}{NOTE_SUFFIX}"
            note.write_text(text + "\n", encoding="utf-8")
        except OSError as error:
            _warn(f"{text} (the note could not be written: {error})")

    def finish_at_exit(self) -> None:
        """atexit: a window still open is written as it is."""
        if os.getpid() != self.pid:
            return
        with self._lock:
            if self._state == "recording":
                try:
                    self._finish(complete=False)
                except Exception:
                    traceback.print_exc()

    # -- the time window (--seconds) ------------------------------------------------------

    def _arm_time_window(self) -> None:
        """No step by ``seconds`` after torch was imported: the next ``seconds`` are recorded.

        SIGALRM runs its handler on the main thread, which the profiler records; the timer is
        only used when the script has not taken SIGALRM for itself.
        """
        if (
            threading.current_thread() is not threading.main_thread()
            or signal.getsignal(signal.SIGALRM) not in (signal.SIG_DFL, None)
            or _is_launcher()
        ):
            return
        signal.signal(signal.SIGALRM, self._alarm)
        signal.setitimer(signal.ITIMER_REAL, self.settings.seconds)

    def _alarm(self, _signum: int, _frame: FrameType | None) -> None:
        with self._lock:
            if self._state == "waiting" and self._steps_completed == 0 and self._ours():
                self._mode = "time"
                self._start(mark_steps=False)
                if self._state == "recording":
                    signal.setitimer(signal.ITIMER_REAL, self.settings.seconds)
                    return
            elif self._state == "recording" and self._mode == "time":
                self._finish(complete=True)
        signal.signal(signal.SIGALRM, signal.SIG_DFL)


def install(settings: Settings) -> Recorder | None:
    """Installs the recorder in this process (once); None when it already is."""
    if os.environ.get(_ENV_INSTALLED_PID) == str(os.getpid()):
        return None
    os.environ[_ENV_INSTALLED_PID] = str(os.getpid())
    recorder = Recorder(settings)
    recorder.install()
    return recorder


def take_back_interrupts() -> None:
    """Lets the Ctrl-C that ``stepscope run`` passes on stop this process.

    A command started in the background by a non-interactive shell (``stepscope run ... &`` in a
    CI script) inherits SIGINT ignored, and Python then installs no KeyboardInterrupt handler. The
    SIGINT that stepscope passes on would be dropped, and stepscope would kill the process after
    its grace period, before the trace of the window is written. Only an ignored SIGINT inherited
    at start-up is undone: a program that ignores SIGINT itself does so later, and keeps it.
    """
    if threading.current_thread() is not threading.main_thread():
        return
    if signal.getsignal(signal.SIGINT) == signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)


def install_from_environment() -> Recorder | None:
    """The start-up hook's entry: installs the recorder when ``stepscope run`` asked for it."""
    try:
        settings = Settings.from_environment()
    except ValueError as error:
        _warn(f"bad setting, recording nothing: {error}")
        return None
    if settings is None:
        return None
    take_back_interrupts()
    return install(settings)
