"""What a setting is (:class:`Setting`), the registry every :func:`declare` call goes into
(see :mod:`arena.settings` for what is derived from it), and the errors a person's settings
raise."""

from __future__ import annotations

from dataclasses import dataclass

from arena.settings.grammar import Parser, from_text, show

__all__ = [
    "COMMAND_LINE",
    "REGISTRY",
    "Setting",
    "SettingsError",
    "UsageError",
    "declare",
    "group",
]

#: Where the command line's values come from, in messages.
COMMAND_LINE = "command line"


class UsageError(ValueError):
    """A mistake in how a command was used (a bad flag, manifest, file or combination):
    ``arena`` prints ``arena <command>: error: <message>`` and exits with :attr:`exit_code`.

    Use cases raise it (or a subclass) for what the person gave them; :func:`arena.cli.main`
    catches it once.
    """

    exit_code = 2


class SettingsError(UsageError):
    """A setting that cannot be used. The message names the source (a file, or
    ``command line``), the dotted key and the bad value, and says what is allowed:

    >>> str(SettingsError("weekly.toml", "sprt.alpha", 0.7, "must be below 0.5"))
    'weekly.toml: sprt.alpha = 0.7: must be below 0.5'
    >>> str(SettingsError("weekly.toml", None, None, "not valid TOML"))
    'weekly.toml: not valid TOML'
    """

    code = "bad_setting"

    def __init__(self, source: str, key: str | None, value: object, message: str) -> None:
        self.source = source
        self.key = key
        self.value = value
        self.reason = message
        where = source if key is None else f"{source}: {key} = {show(value)}"
        super().__init__(f"{where}: {message}")


@dataclass(frozen=True, slots=True)
class Setting:
    """One setting, declared once.

    ``key``: the dotted name (the TOML key of a file that holds it). ``parse``: the
    value as given to the setting, ``ValueError`` saying what is allowed. ``default``: the
    value when nobody gives one (``None``: decided by others, see ``shown``). ``shown``:
    the default as people read it (help, docs). ``flag``: the command line's name;
    ``aliases``: old spellings that still work but are not shown. ``help``: one line with
    the unit. ``kind``: how a flag's text is read (``int``, ``number``, ``bool`` for a
    switch, ``list`` for a flag given once per value, ``text``). ``group``: the flags it
    is shown with. ``metavar``: the flag's value in ``--help``. ``choices``: the values
    allowed, shown in ``--help``. ``dest``: the attribute of the parsed arguments.
    ``decides_results``: part of a tournament's fingerprint. ``in_file``: a key a
    tournament file may hold.
    """

    key: str
    parse: Parser
    default: object
    flag: str | None
    help: str
    group: str
    kind: str = "text"
    shown: str = ""
    aliases: tuple[str, ...] = ()
    metavar: str | None = None
    choices: tuple[str, ...] = ()
    dest: str = ""
    decides_results: bool = True
    in_file: bool = True

    @property
    def leaf(self) -> str:
        """The key without its table: ``sprt.alpha`` -> ``alpha``."""
        return self.key.rpartition(".")[2]

    @property
    def table(self) -> str:
        """The key's table (``sprt``), or ``""`` for a top-level key."""
        return self.key.rpartition(".")[0]

    def read(self, value: object, *, source: str, is_text: bool = False) -> object:
        """The setting from a given value (a command line's text is first read by
        ``kind``); :class:`SettingsError` names ``source``, the key and the value."""
        raw = from_text(self.kind, value) if is_text else value
        try:
            return self.parse(raw)
        except ValueError as exc:
            raise SettingsError(source, self.key, value, str(exc)) from None


#: Every setting by its dotted key, in declaration order (the order of help and docs).
REGISTRY: dict[str, Setting] = {}


def declare(
    key: str,
    parse: Parser,
    default: object,
    flag: str | None,
    help: str,
    *,
    group: str,
    **options: object,
) -> Setting:
    """Add a setting to :data:`REGISTRY` (see :class:`Setting` for the options); a key or
    an attribute name given twice is a bug of the declarations."""
    dest = str(options.pop("dest", "") or key.rpartition(".")[2])
    shown = str(options.pop("shown", "") or _shown(default))
    setting = Setting(
        key,
        parse,
        default,
        flag,
        help,
        group,
        shown=shown,
        dest=dest,
        **options,  # type: ignore[arg-type]
    )
    if key in REGISTRY or any(other.dest == dest for other in REGISTRY.values()):
        raise AssertionError(f"setting {key!r} (dest {dest!r}) is declared twice")
    REGISTRY[key] = setting
    return setting


def group(*names: str) -> tuple[Setting, ...]:
    """The settings of the groups named, in declaration order."""
    known = {setting.group for setting in REGISTRY.values()}
    for name in names:
        if name not in known:
            raise KeyError(f"no settings group {name!r} (known: {', '.join(sorted(known))})")
    return tuple(setting for setting in REGISTRY.values() if setting.group in names)


def _shown(default: object) -> str:
    if isinstance(default, bool):
        return "true" if default else "false"
    if isinstance(default, str):
        return f'"{default}"'
    if hasattr(default, "value"):  # an enum member
        return f'"{default.value}"'
    return "" if default is None else f"{default:g}" if isinstance(default, float) else str(default)
