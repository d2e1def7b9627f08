#include "stepscope/analysis/code_location.h"

#include <algorithm>
#include <array>
#include <cctype>

namespace stepscope {

namespace {

constexpr std::string_view kModulePrefix = "nn.Module: ";

// Python's standard library (sys.stdlib_module_names of CPython 3.11, sorted), less names that a
// user's own script is likely to have (`test`, `code`, `profile`, `trace`, ...).
// std::to_array, not deduction: clang caps a deduced std::array at 256 elements.
constexpr auto kStandardLibrary = std::to_array<const char*>({
    "__future__",
    "_abc",
    "_aix_support",
    "_ast",
    "_asyncio",
    "_bisect",
    "_blake2",
    "_bootsubprocess",
    "_bz2",
    "_codecs",
    "_codecs_cn",
    "_codecs_hk",
    "_codecs_iso2022",
    "_codecs_jp",
    "_codecs_kr",
    "_codecs_tw",
    "_collections",
    "_collections_abc",
    "_compat_pickle",
    "_compression",
    "_contextvars",
    "_crypt",
    "_csv",
    "_ctypes",
    "_curses",
    "_curses_panel",
    "_datetime",
    "_dbm",
    "_decimal",
    "_elementtree",
    "_frozen_importlib",
    "_frozen_importlib_external",
    "_functools",
    "_gdbm",
    "_hashlib",
    "_heapq",
    "_imp",
    "_io",
    "_json",
    "_locale",
    "_lsprof",
    "_lzma",
    "_markupbase",
    "_md5",
    "_msi",
    "_multibytecodec",
    "_multiprocessing",
    "_opcode",
    "_operator",
    "_osx_support",
    "_overlapped",
    "_pickle",
    "_posixshmem",
    "_posixsubprocess",
    "_py_abc",
    "_pydecimal",
    "_pyio",
    "_queue",
    "_random",
    "_scproxy",
    "_sha1",
    "_sha256",
    "_sha3",
    "_sha512",
    "_signal",
    "_sitebuiltins",
    "_socket",
    "_sqlite3",
    "_sre",
    "_ssl",
    "_stat",
    "_statistics",
    "_string",
    "_strptime",
    "_struct",
    "_symtable",
    "_thread",
    "_threading_local",
    "_tkinter",
    "_tokenize",
    "_tracemalloc",
    "_typing",
    "_uuid",
    "_warnings",
    "_weakref",
    "_weakrefset",
    "_winapi",
    "_zoneinfo",
    "abc",
    "aifc",
    "argparse",
    "array",
    "ast",
    "asynchat",
    "asyncio",
    "asyncore",
    "atexit",
    "audioop",
    "base64",
    "bdb",
    "binascii",
    "bisect",
    "builtins",
    "bz2",
    "cProfile",
    "calendar",
    "cgi",
    "cgitb",
    "chunk",
    "cmath",
    "cmd",
    "codecs",
    "codeop",
    "collections",
    "colorsys",
    "compileall",
    "concurrent",
    "configparser",
    "contextlib",
    "contextvars",
    "copy",
    "copyreg",
    "crypt",
    "csv",
    "ctypes",
    "curses",
    "dataclasses",
    "datetime",
    "dbm",
    "decimal",
    "difflib",
    "dis",
    "distutils",
    "doctest",
    "email",
    "encodings",
    "ensurepip",
    "enum",
    "errno",
    "faulthandler",
    "fcntl",
    "filecmp",
    "fileinput",
    "fnmatch",
    "fractions",
    "ftplib",
    "functools",
    "gc",
    "genericpath",
    "getopt",
    "getpass",
    "gettext",
    "glob",
    "graphlib",
    "grp",
    "gzip",
    "hashlib",
    "heapq",
    "hmac",
    "html",
    "http",
    "imaplib",
    "imghdr",
    "imp",
    "importlib",
    "inspect",
    "io",
    "ipaddress",
    "itertools",
    "json",
    "keyword",
    "lib2to3",
    "linecache",
    "locale",
    "logging",
    "lzma",
    "mailbox",
    "mailcap",
    "marshal",
    "math",
    "mimetypes",
    "mmap",
    "modulefinder",
    "msilib",
    "msvcrt",
    "multiprocessing",
    "netrc",
    "nis",
    "nntplib",
    "nt",
    "ntpath",
    "nturl2path",
    "numbers",
    "opcode",
    "operator",
    "optparse",
    "os",
    "ossaudiodev",
    "pathlib",
    "pdb",
    "pickle",
    "pickletools",
    "pipes",
    "pkgutil",
    "platform",
    "plistlib",
    "poplib",
    "posix",
    "posixpath",
    "pprint",
    "pstats",
    "pty",
    "pwd",
    "py_compile",
    "pyclbr",
    "pydoc",
    "pydoc_data",
    "pyexpat",
    "queue",
    "quopri",
    "random",
    "re",
    "readline",
    "reprlib",
    "resource",
    "rlcompleter",
    "runpy",
    "sched",
    "secrets",
    "select",
    "selectors",
    "shelve",
    "shlex",
    "shutil",
    "signal",
    "site",
    "smtpd",
    "smtplib",
    "sndhdr",
    "socket",
    "socketserver",
    "spwd",
    "sqlite3",
    "sre_compile",
    "sre_constants",
    "sre_parse",
    "ssl",
    "stat",
    "statistics",
    "string",
    "stringprep",
    "struct",
    "subprocess",
    "sunau",
    "symtable",
    "sys",
    "sysconfig",
    "syslog",
    "tabnanny",
    "tarfile",
    "telnetlib",
    "tempfile",
    "termios",
    "textwrap",
    "threading",
    "time",
    "timeit",
    "tkinter",
    "token",
    "tokenize",
    "tomllib",
    "traceback",
    "tracemalloc",
    "tty",
    "turtle",
    "types",
    "typing",
    "unicodedata",
    "unittest",
    "urllib",
    "uu",
    "uuid",
    "venv",
    "warnings",
    "wave",
    "weakref",
    "webbrowser",
    "winreg",
    "winsound",
    "wsgiref",
    "xdrlib",
    "xml",
    "xmlrpc",
    "zipapp",
    "zipfile",
    "zipimport",
    "zlib",
    "zoneinfo",
});

// Packages found in site-packages that a training or serving script calls into: PyTorch and its
// relatives first. The tracer strips the site-packages prefix, so their files look relative.
// std::to_array, not deduction: clang caps a deduced std::array at 256 elements.
constexpr auto kLibraryPackages = std::to_array<const char*>({
    "IPython",
    "PIL",
    "_pytest",
    "accelerate",
    "albumentations",
    "apex",
    "bitsandbytes",
    "cupy",
    "cv2",
    "datasets",
    "debugpy",
    "deepspeed",
    "einops",
    "fairscale",
    "filelock",
    "flash_attn",
    "fsspec",
    "functorch",
    "google",
    "h5py",
    "huggingface_hub",
    "hydra",
    "ipykernel",
    "jax",
    "jinja2",
    "lightning",
    "lightning_fabric",
    "megatron",
    "mpmath",
    "networkx",
    "numpy",
    "nvidia",
    "omegaconf",
    "onnx",
    "onnxruntime",
    "packaging",
    "pandas",
    "peft",
    "pluggy",
    "pytest",
    "pytorch_lightning",
    "regex",
    "requests",
    "safetensors",
    "scipy",
    "sklearn",
    "stepscope",
    "sympy",
    "tensorboard",
    "timm",
    "tokenizers",
    "torch",
    "torch_tensorrt",
    "torch_xla",
    "torchao",
    "torchaudio",
    "torchdata",
    "torchmetrics",
    "torchrec",
    "torchtext",
    "torchtnt",
    "torchvision",
    "tornado",
    "tqdm",
    "transformers",
    "triton",
    "typing_extensions",
    "urllib3",
    "vllm",
    "wandb",
    "webdataset",
    "xformers",
    "yaml",
    "zmq",
});

constexpr bool less(std::string_view a, std::string_view b) { return a < b; }
static_assert(std::is_sorted(kStandardLibrary.begin(), kStandardLibrary.end(), less));
static_assert(std::is_sorted(kLibraryPackages.begin(), kLibraryPackages.end(), less));

template <std::size_t N>
bool contains(const std::array<const char*, N>& sorted, std::string_view name) {
  return std::binary_search(sorted.begin(), sorted.end(), name, [](auto a, auto b) {
    return std::string_view(a) < std::string_view(b);
  });
}

bool is_context_event(const Trace& trace, EventIndex i) {
  const EventClass c = trace.events.event_class[i];
  if (c == EventClass::kPython) return true;
  return c == EventClass::kAnnotation && !module_name(trace.name_of(i)).empty();
}

bool is_user_frame(const Trace& trace, EventIndex i) {
  if (trace.events.event_class[i] != EventClass::kPython) return false;
  const std::optional<PythonFrame> frame = parse_python_frame(trace.name_of(i));
  return frame && !is_library_file(frame->file);
}

}  // namespace

std::optional<PythonFrame> parse_python_frame(std::string_view name) {
  // `file(LINE): function`: the first `(digits): ` decides, so that file names with parentheses
  // after the line are not misread.
  for (std::size_t open = name.find('('); open != std::string_view::npos;
       open = name.find('(', open + 1)) {
    std::size_t at = open + 1;
    std::int64_t line = 0;
    while (at < name.size() && std::isdigit(static_cast<unsigned char>(name[at])) != 0) {
      line = line * 10 + (name[at] - '0');
      ++at;
      if (line > 100'000'000) break;
    }
    if (at == open + 1 || name.substr(at, 3) != "): ") continue;
    if (open == 0) return std::nullopt;
    return PythonFrame{name.substr(0, open), line, name.substr(at + 3)};
  }
  return std::nullopt;
}

bool is_library_file(std::string_view file) {
  if (file.empty() || file.front() == '<') return true;  // <built-in …>, <frozen …>, <string>
  for (std::string_view marker : {"/site-packages/", "/dist-packages/", "/lib/python3"}) {
    if (file.find(marker) != std::string_view::npos) return true;
  }
  if (file.front() == '/') return false;  // an absolute path outside the above: the user's
  std::string_view first = file.substr(0, file.find('/'));
  if (first.ends_with(".py")) first.remove_suffix(3);
  return contains(kLibraryPackages, first) || contains(kStandardLibrary, first);
}

std::string_view module_name(std::string_view event_name) {
  if (!event_name.starts_with(kModulePrefix)) return {};
  return event_name.substr(kModulePrefix.size());
}

CodeContext compute_code_context(const Trace& trace) {
  CodeContext context;
  const EventTable& e = trace.events;
  const auto n = static_cast<EventIndex>(e.size());
  for (EventIndex i = 0; i < n; ++i) {
    if (!is_context_event(trace, i)) continue;
    const bool is_module = !module_name(trace.name_of(i)).empty();
    if (is_module) {
      ++context.module_events;
    } else {
      ++context.python_events;
      if (!context.has_stacks && parse_python_frame(trace.name_of(i))) context.has_stacks = true;
    }
  }
  context.has_modules = context.module_events > 0;
  if (context.python_events == 0 && context.module_events == 0) return context;
  context.user_frame.assign(e.size(), kNoEvent);
  context.module.assign(e.size(), kNoEvent);
  context.parent_module.assign(e.size(), kNoEvent);
  // Events arrive sorted by start, longer first on ties: an enclosing frame precedes what it
  // encloses. A frame that has ended by an event's start is off the stack.
  std::vector<std::vector<EventIndex>> open(trace.threads.size());
  for (EventIndex i = 0; i < n; ++i) {
    if (is_device_activity(e.event_class[i])) continue;
    std::vector<EventIndex>& stack = open[e.thread[i]];
    while (!stack.empty() && e.end_ns(stack.back()) <= e.start_ns[i]) stack.pop_back();
    const EventIndex top = stack.empty() ? kNoEvent : stack.back();
    const EventIndex outer_user = top == kNoEvent ? kNoEvent : context.user_frame[top];
    const EventIndex outer_module = top == kNoEvent ? kNoEvent : context.module[top];
    if (!is_context_event(trace, i)) {
      context.user_frame[i] = outer_user;
      context.module[i] = outer_module;
      continue;
    }
    const bool is_module = !module_name(trace.name_of(i)).empty();
    context.user_frame[i] = is_user_frame(trace, i) ? i : outer_user;
    context.module[i] = is_module ? i : outer_module;
    if (is_module) context.parent_module[i] = outer_module;
    stack.push_back(i);
  }
  return context;
}

std::string module_path(const Trace& trace, const CodeContext& context, EventIndex module_event) {
  std::vector<std::string_view> names;
  for (EventIndex m = module_event; m != kNoEvent && names.size() < 256;
       m = context.parent_module[m]) {
    names.push_back(module_name(trace.name_of(m)));
  }
  std::string path;
  for (auto it = names.rbegin(); it != names.rend(); ++it) {
    if (!path.empty()) path += '/';
    path += *it;
  }
  return path;
}

CodeLocation locate(const Trace& trace, const CodeContext& context, EventIndex event) {
  CodeLocation location;
  if (context.empty() || event < 0 || static_cast<std::size_t>(event) >= trace.events.size()) {
    return location;
  }
  if (is_device_activity(trace.events.event_class[event])) {
    const EventIndex owner = trace.events.owner_op[event];
    event = owner != kNoEvent ? owner : trace.events.launcher[event];
    if (event == kNoEvent) return location;
  }
  if (const EventIndex frame = context.user_frame[event]; frame != kNoEvent) {
    if (const std::optional<PythonFrame> parsed = parse_python_frame(trace.name_of(frame))) {
      location.file = std::string(parsed->file);
      location.line = parsed->line;
      location.function = std::string(parsed->function);
    }
  }
  if (const EventIndex module = context.module[event]; module != kNoEvent) {
    location.module_path = module_path(trace, context, module);
  }
  return location;
}

std::string_view how_to_record_code_context() {
  return "the trace has no Python stacks or module hierarchy; to see the file:line and nn.Module "
         "behind each finding, record with stepscope.torch.profile() (module hierarchy by "
         "default; with_stack=True adds file:line) or torch.profiler.profile(with_stack=True)";
}

}  // namespace stepscope
