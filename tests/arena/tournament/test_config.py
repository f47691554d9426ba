"""The tournament configuration: the TOML file, the command line, one validator."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from arena.bots.sandbox.select import SandboxLevel
from arena.match.config import Score
from arena.settings.catalog import ExecutorKind, Format, Luck
from arena.stats.sprt import Sprt
from arena.tournament.config import (
    DEFAULT_TABLE_SEATS,
    BotEntry,
    TournamentConfig,
    TournamentConfigError,
    build_config,
    difference,
    fingerprint,
    merge,
)
from arena.tournament.plan import plan
from engine.config import BettingStructure, Variant
from tests.arena.tournament.helpers import FOLDER, STATION

DATA = Path(__file__).resolve().parent / "data"
BOTS = DATA / "bots"


def manifest(name: str) -> Path:
    return BOTS / name / "bot.toml"


def write(tmp_path: Path, body: str, *, bots: tuple[str, ...] = ("alpha", "beta")) -> Path:
    """A tournament file in ``tmp_path``: the bots' absolute manifest paths, then ``body``."""
    listed = ", ".join(json.dumps(str(manifest(name))) for name in bots)
    path = tmp_path / "tournament.toml"
    path.write_text(f"bots = [{listed}]\n{body}\n", encoding="utf-8")
    return path


def error_of(path: Path) -> str:
    with pytest.raises(TournamentConfigError) as caught:
        build_config(file=path)
    return str(caught.value)


# -- a complete file -----------------------------------------------------------------------


def test_every_key_of_a_complete_file_is_read() -> None:
    config = build_config(file=DATA / "weekly.toml")
    assert config.name == "weekly"
    assert config.format is Format.GAUNTLET
    assert config.bots == (
        BotEntry("alpha", manifest("alpha")),
        BotEntry("beta", manifest("beta")),
        BotEntry("gamma", manifest("gamma")),
    )
    assert (config.challenger, config.challenger_name) == ("beta", "beta")
    assert (config.deals, config.block_deals, config.seed) == (300, 120, 7)
    assert (config.concurrency, config.worker_count()) == (3, 3)
    assert config.sandbox is SandboxLevel.LIMITS
    assert config.out == DATA / "results" / "weekly" == config.out_dir
    game = config.game
    assert (game.variant, game.betting) == (Variant.FIVE_CARD_DRAW, BettingStructure.POT_LIMIT)
    assert (game.small_blind, game.big_blind, game.ante, game.starting_stack) == (5, 10, 1, 1000)
    limits = config.time
    assert (limits.decision_timeout_s, limits.startup_timeout_s, limits.time_bank_s) == (
        0.25,
        2.5,
        1.0,
    )
    assert limits.check_on_timeout is True
    assert config.resource_limits == {"memory_bytes": 512 * 1024**2, "processes": 8}
    sprt = config.sprt
    assert (sprt.enabled, sprt.mbb0, sprt.mbb1, sprt.alpha, sprt.beta) == (
        True,
        -10.0,
        40.0,
        0.01,
        0.1,
    )
    assert config.sit_and_go.games == 9
    assert config.sit_and_go.seats == 3
    assert config.sit_and_go.double_every_hands == 25
    assert config.sit_and_go.max_hands == 500
    assert config.ring_seats == 3
    assert config.source == str(DATA / "weekly.toml")


def test_defaults_of_a_file_with_only_bots(tmp_path: Path) -> None:
    config = build_config(file=write(tmp_path, ""))
    assert config.name == "tournament"
    assert config.format is Format.ROUND_ROBIN
    assert (config.deals, config.block_deals, config.seed, config.concurrency) == (
        200,
        100,
        None,
        None,
    )
    assert config.sandbox is None
    assert config.out_dir == Path("runs") / "tournament"
    assert config.worker_count() >= 1
    assert (config.game.small_blind, config.game.big_blind, config.game.starting_stack) == (
        1,
        2,
        200,
    )
    assert config.time.decision_timeout_s == 5.0
    assert config.resource_limits == {}
    assert config.sprt.enabled is False
    assert config.sprt_test() is None
    assert config.challenger_name is None
    assert config.seats == 2


def test_bot_tables_name_bots_and_may_share_a_manifest_name(tmp_path: Path) -> None:
    config = build_config(file=DATA / "named_bots.toml")
    assert config.bot_names == ("first", "second", "gamma")
    assert config.bots[1].manifest == manifest("alpha_copy")


def test_manifest_paths_are_relative_to_the_files_folder(tmp_path: Path) -> None:
    folder = tmp_path / "elsewhere"
    folder.mkdir()
    path = folder / "t.toml"
    relative = Path("..") / ".." / manifest("alpha").relative_to(tmp_path.anchor)
    path.write_text(
        f'bots = ["{manifest("beta")}", "{"../" * len(folder.parts)}{relative}"]\n',
        encoding="utf-8",
    )
    assert build_config(file=path).bot_names == ("beta", "alpha")


def test_the_docs_example_loads(tmp_path: Path) -> None:
    repo = Path(__file__).resolve().parents[3]
    text = (repo / "docs" / "tournament-config.md").read_text(encoding="utf-8")
    example = text.split("```toml\n", 1)[1].split("```", 1)[0]
    (tmp_path / "sample_bots").symlink_to(repo / "sample_bots")
    path = tmp_path / "weekly.toml"
    path.write_text(example, encoding="utf-8")
    config = build_config(file=path)
    assert config.name == "weekly"
    assert len(config.bots) == 3
    assert config.match_count() == 3 * 2 * 2


def test_the_docs_key_table_lists_every_key_with_its_default_and_flag() -> None:
    from arena.settings import file_keys

    repo = Path(__file__).resolve().parents[3]
    text = (repo / "docs" / "tournament-config.md").read_text(encoding="utf-8")
    rows = {}
    for line in text.split("## Every key", 1)[1].splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if line.startswith("| `"):
            rows[cells[0].strip("`")] = (cells[2].strip("`"), cells[4])
    assert list(rows) == list(file_keys())
    for setting in file_keys().values():
        flag = f"`{setting.flag}`" if setting.flag else "MANIFEST arguments"
        assert rows[setting.key] == (setting.shown, flag), setting.key


# -- bad files -----------------------------------------------------------------------------


def test_a_toml_syntax_error_is_named_with_its_line() -> None:
    message = error_of(DATA / "syntax_error.toml")
    assert message.startswith(f"{DATA / 'syntax_error.toml'}: not valid TOML: ")
    assert "line 2" in message


def test_a_missing_file_is_a_clear_error(tmp_path: Path) -> None:
    message = error_of(tmp_path / "nowhere.toml")
    assert (
        message == f"{tmp_path / 'nowhere.toml'}: cannot read the file: No such file or directory"
    )


def test_a_file_that_is_not_utf8_is_a_clear_error(tmp_path: Path) -> None:
    path = tmp_path / "latin1.toml"
    path.write_bytes(b'name = "caf\xe9"\n')
    assert "not UTF-8 text" in error_of(path)


@pytest.mark.parametrize(
    ("body", "key", "shown", "allowed"),
    [
        ("name = '../up'", "name", '"../up"', "letters, digits"),
        ("name = 5", "name", "5", "letters, digits"),
        ("format = 'swiss'", "format", '"swiss"', "round_robin, gauntlet, ring, sit_and_go"),
        ("deals = 0", "deals", "0", "from 1 to 10,000,000"),
        ("deals = '200'", "deals", '"200"', "whole number"),
        ("deals = 2.5", "deals", "2.5", "whole number"),
        ("deals = true", "deals", "true", "whole number"),
        ("block_deals = -1", "block_deals", "-1", "from 1"),
        ("seed = 'x'", "seed", '"x"', "whole number"),
        ("concurrency = 0", "concurrency", "0", "from 1 to 1,024"),
        ("sandbox = 'jail'", "sandbox", '"jail"', "none, limits, strict"),
        ("out = ''", "out", '""', "a path"),
        ("challenger = ''", "challenger", '""', "a bot's name"),
        ("[game]\nvariant = 'omaha'", "game.variant", '"omaha"', "holdem, five_card_draw"),
        ("[game]\nbetting = 'spread'", "game.betting", '"spread"', "no_limit, pot_limit"),
        ("[game]\nsmall_blind = -1", "game.small_blind", "-1", "from 0"),
        ("[game]\nbig_blind = 1.5", "game.big_blind", "1.5", "whole number"),
        ("[game]\nante = 'none'", "game.ante", '"none"', "whole number"),
        ("[game]\nstarting_stack = 0", "game.starting_stack", "0", "from 1"),
        ("[limits]\ndecision_timeout = 0", "limits.decision_timeout", "0", "above 0"),
        (
            "[limits]\ndecision_timeout = '5 minutes'",
            "limits.decision_timeout",
            '"5 minutes"',
            "250ms",
        ),
        ("[limits]\ndecision_timeout = 7200", "limits.decision_timeout", "7200", "at most 3600"),
        ("[limits]\nstartup_timeout = -1", "limits.startup_timeout", "-1", "above 0"),
        ("[limits]\ntime_bank = true", "limits.time_bank", "true", "0 or more"),
        ("[limits]\ncheck_on_timeout = 'yes'", "limits.check_on_timeout", '"yes"', "true or false"),
        ("[limits]\nmemory_bytes = 'lots'", "limits.memory_bytes", '"lots"', "MiB"),
        ("[limits]\nprocesses = 0", "limits.processes", "0", "at least 1"),
        ("[sprt]\nenabled = 1", "sprt.enabled", "1", "true or false"),
        ("[sprt]\nmbb0 = 'zero'", "sprt.mbb0", '"zero"', "a number"),
        ("[sprt]\nmbb1 = nan", "sprt.mbb1", "NaN", "a number"),
        ("[sprt]\nalpha = 0.7", "sprt.alpha", "0.7", "above 0 and below 0.5"),
        ("[sprt]\nbeta = 0", "sprt.beta", "0", "above 0 and below 0.5"),
        ("[sit_and_go]\ngames = 0", "sit_and_go.games", "0", "from 1 to 10,000"),
        ("[sit_and_go]\nseats = 1", "sit_and_go.seats", "1", "from 2 to 10"),
        ("[sit_and_go]\ndouble_every_hands = 0", "sit_and_go.double_every_hands", "0", "from 1"),
        ("[sit_and_go]\nmax_hands = 0", "sit_and_go.max_hands", "0", "from 1"),
        ("[ring]\nseats = 2", "ring.seats", "2", "from 3 to 10"),
        ("[ring]\nseats = 11", "ring.seats", "11", "from 3 to 10"),
    ],
)
def test_a_bad_value_names_the_file_the_key_the_value_and_what_is_allowed(
    tmp_path: Path, body: str, key: str, shown: str, allowed: str
) -> None:
    path = write(tmp_path, body)
    message = error_of(path)
    assert message.startswith(f"{path}: {key} = {shown}: "), message
    assert allowed in message


@pytest.mark.parametrize(
    ("body", "named", "suggested"),
    [
        ("dels = 100", "dels = 100", "deals"),
        ("decision_timeout = 2", "decision_timeout = 2", "limits.decision_timeout"),
        ("[game]\nbig_blnd = 2", "game.big_blnd = 2", "game.big_blind"),
        ("[gmae]\nvariant = 'holdem'", "gmae = ", "game"),
        ("[sprt]\nenable = true", "sprt.enable = true", "sprt.enabled"),
    ],
)
def test_an_unknown_key_is_named_with_a_suggestion(
    tmp_path: Path, body: str, named: str, suggested: str
) -> None:
    message = error_of(write(tmp_path, body))
    assert named in message
    assert f"unknown key (did you mean {suggested!r}?)" in message


def test_an_unknown_key_far_from_any_is_named_without_a_suggestion(tmp_path: Path) -> None:
    assert error_of(write(tmp_path, "zzzzzz = 1")).endswith("zzzzzz = 1: unknown key")


def test_a_choice_with_a_typo_gets_a_suggestion(tmp_path: Path) -> None:
    message = error_of(write(tmp_path, "[game]\nvariant = 'holdam'"))
    assert "(did you mean 'holdem'?)" in message


def test_a_table_written_as_a_value_is_an_error(tmp_path: Path) -> None:
    message = error_of(write(tmp_path, "game = 5"))
    assert message.endswith("game = 5: must be a table ([game])")


# -- bots ----------------------------------------------------------------------------------


def test_no_bots_is_an_error(tmp_path: Path) -> None:
    path = tmp_path / "t.toml"
    path.write_text("deals = 10\n", encoding="utf-8")
    assert error_of(path) == (
        f"{path}: no bots: list their manifests (bots = [...] or on the command line)"
    )


@pytest.mark.parametrize("bots", ["[]", "'a/bot.toml'", "5"])
def test_bots_must_be_a_non_empty_list(tmp_path: Path, bots: str) -> None:
    path = tmp_path / "t.toml"
    path.write_text(f"bots = {bots}\n", encoding="utf-8")
    assert "bots = " in error_of(path)
    assert "must be a list of bot manifests" in error_of(path)


def test_a_missing_manifest_is_named(tmp_path: Path) -> None:
    path = tmp_path / "t.toml"
    path.write_text(f'bots = ["{manifest("alpha")}", "nowhere/bot.toml"]\n', encoding="utf-8")
    message = error_of(path)
    assert message == (
        f'{path}: bots[1] = "nowhere/bot.toml": no bot manifest at {tmp_path / "nowhere/bot.toml"}'
    )


def test_a_bad_manifest_is_named_with_the_manifests_own_error(tmp_path: Path) -> None:
    message = error_of(write(tmp_path, "", bots=("alpha", "broken")))
    assert "bots[1] = " in message
    assert "bad manifest: " in message
    assert "key 'command': is missing" in message


def test_two_bots_with_the_same_name_are_an_error(tmp_path: Path) -> None:
    message = error_of(write(tmp_path, "", bots=("alpha", "beta", "alpha_copy")))
    assert "bots[2] = " in message
    assert "two bots are named 'alpha' (bots[0] too)" in message
    assert "[[bots]]" in message


@pytest.mark.parametrize(
    ("table", "named", "why"),
    [
        ('{ manifest = "M", nmae = "x" }', "bots[1].nmae = ", "(did you mean 'name'?)"),
        ('{ name = "x" }', "bots[1] = ", "has no manifest"),
        ('{ manifest = "M", name = "" }', 'bots[1].name = ""', "a bot's name"),
        ("{ manifest = 5 }", "bots[1].manifest = 5", "must be a manifest path"),
        ("3", "bots[1] = 3", "must be a manifest path or a table"),
    ],
)
def test_a_bad_bot_entry_is_named(tmp_path: Path, table: str, named: str, why: str) -> None:
    path = tmp_path / "t.toml"
    table = table.replace('"M"', json.dumps(str(manifest("beta"))))
    path.write_text(f'bots = ["{manifest("alpha")}", {table}]\n', encoding="utf-8")
    message = error_of(path)
    assert named in message
    assert why in message


# -- rules between keys --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("body", "bots", "named", "why"),
    [
        ("[game]\nsmall_blind = 5\nbig_blind = 2", 2, "game.small_blind = 5", "game.big_blind (2)"),
        ("[game]\nbig_blind = 0\nsmall_blind = 0", 2, "game.big_blind = 0", "big blind or an ante"),
        ("format = 'ring'", 2, "bots = ", "ring needs at least 3 bots"),
        ("format = 'round_robin'", 1, "bots = ", "round_robin needs at least 2 bots"),
        ("format = 'ring'\n[ring]\nseats = 4", 3, "ring.seats = 4", "more seats than the 3 bots"),
        ("format = 'sit_and_go'\n[sit_and_go]\nseats = 4", 3, "sit_and_go.seats = 4", "at most 3"),
        (
            "format = 'gauntlet'\nchallenger = 'gama'",
            3,
            'challenger = "gama"',
            "did you mean 'gamma'",
        ),
        (
            "format = 'ring'\n[sprt]\nenabled = true",
            3,
            "sprt.enabled = true",
            "only round_robin and gauntlet",
        ),
        (
            "[sprt]\nenabled = true\nmbb0 = 10\nmbb1 = 10",
            2,
            "sprt.mbb1 = 10",
            "above sprt.mbb0 (10)",
        ),
    ],
)
def test_a_rule_between_keys_names_the_key_to_change(
    tmp_path: Path, body: str, bots: int, named: str, why: str
) -> None:
    names = ("alpha", "beta", "gamma", "delta")[:bots]
    message = error_of(write(tmp_path, body, bots=names))
    assert named in message
    assert why in message


def test_a_ring_plan_above_the_limit_is_refused_with_its_numbers(tmp_path: Path) -> None:
    path = tmp_path / "t.toml"
    tables = "".join(
        f'[[bots]]\nmanifest = "{manifest("alpha")}"\nname = "bot-{index}"\n' for index in range(12)
    )
    path.write_text(f'format = "ring"\n[ring]\nseats = 6\n{tables}', encoding="utf-8")
    message = error_of(path)
    assert "12 bots at 6 seats make 924 groups" in message
    assert "924 x 2 blocks x 6 seatings = 11,088 matches" in message
    assert "more than the limit of 10,000" in message
    assert "fewer bots or a bigger table (ring.seats)" in message


def test_a_heads_up_plan_above_the_limit_suggests_longer_blocks(tmp_path: Path) -> None:
    path = tmp_path / "t.toml"
    tables = "".join(
        f'[[bots]]\nmanifest = "{manifest("alpha")}"\nname = "b{index}"\n' for index in range(10)
    )
    path.write_text(f"deals = 12000\n{tables}", encoding="utf-8")
    message = error_of(path)
    assert "45 pairs: 45 x 120 blocks x 2 seatings = 10,800 matches" in message
    assert "block_deals" in message


def test_keys_of_a_table_the_format_does_not_use_have_no_effect(tmp_path: Path) -> None:
    config = build_config(file=write(tmp_path, "[ring]\nseats = 9\n[sit_and_go]\nseats = 7"))
    assert config.seats == 2
    assert config.match_count() == 1 * 2 * 2


# -- resolved defaults ---------------------------------------------------------------------


def entries(count: int) -> tuple[BotEntry, ...]:
    return tuple(BotEntry(f"bot{index}", Path(f"/bots/{index}.toml")) for index in range(count))


@pytest.mark.parametrize(("count", "seats"), [(3, 3), (10, 10), (11, DEFAULT_TABLE_SEATS)])
def test_a_table_seats_every_bot_up_to_ten_else_six(count: int, seats: int) -> None:
    for format_ in (Format.RING, Format.SIT_AND_GO):
        assert TournamentConfig(bots=entries(count), format=format_).seats == seats


def test_a_sit_and_go_plays_two_games_per_bot_by_default() -> None:
    config = TournamentConfig(bots=entries(5), format=Format.SIT_AND_GO)
    assert config.games == 10 == config.match_count() == config.group_count()
    assert config.block_sizes() == ()


def test_the_gauntlets_challenger_is_the_first_bot_by_default() -> None:
    assert TournamentConfig(bots=entries(3), format=Format.GAUNTLET).challenger_name == "bot0"


def test_blocks_split_the_deals_and_the_last_may_be_shorter() -> None:
    config = TournamentConfig(bots=entries(4), deals=250, block_deals=100)
    assert config.block_sizes() == (100, 100, 50)
    assert config.group_count() == 6
    assert config.match_count() == 6 * 3 * 2
    assert TournamentConfig(bots=entries(2), deals=50, block_deals=100).block_sizes() == (50,)


def test_the_sequential_test_is_built_from_the_settings(tmp_path: Path) -> None:
    config = build_config(file=write(tmp_path, "[sprt]\nenabled = true\nmbb1 = 30\nalpha = 0.1"))
    assert config.sprt_test() == Sprt(0.0, 30.0, 0.1, 0.05)


# -- the command line ----------------------------------------------------------------------


def test_flags_win_over_the_file(tmp_path: Path) -> None:
    path = write(tmp_path, "deals = 300\nseed = 4\n[game]\nbig_blind = 10")
    config = build_config(
        file=path, overrides={"deals": 500, "game.big_blind": 4, "seed": None, "name": "cli"}
    )
    assert (config.deals, config.game.big_blind, config.seed, config.name) == (500, 4, 4, "cli")
    assert config.source == f"{path} and the command line"


def test_flag_text_is_read_by_the_keys_kind(tmp_path: Path) -> None:
    config = build_config(
        file=write(tmp_path, ""),
        overrides={
            "deals": "300",
            "sprt.enabled": "yes",
            "sprt.mbb1": "25.5",
            "limits.decision_timeout": "250ms",
            "limits.memory_bytes": "256MiB",
            "format": "gauntlet",
        },
    )
    assert config.deals == 300
    assert (config.sprt.enabled, config.sprt.mbb1) == (True, 25.5)
    assert config.time.decision_timeout_s == 0.25
    assert config.resource_limits == {"memory_bytes": 256 * 1024**2}


@pytest.mark.parametrize(
    ("key", "value", "shown"),
    [
        ("deals", "many", '"many"'),
        ("sprt.enabled", "perhaps", '"perhaps"'),
        ("sprt.alpha", "0.9", '"0.9"'),
        ("format", "swiss", '"swiss"'),
    ],
)
def test_a_bad_flag_names_the_command_line(
    tmp_path: Path, key: str, value: str, shown: str
) -> None:
    with pytest.raises(TournamentConfigError) as caught:
        build_config(file=write(tmp_path, ""), overrides={key: value})
    assert str(caught.value).startswith(f"command line: {key} = {shown}: ")


def test_an_unknown_flag_key_is_named() -> None:
    with pytest.raises(TournamentConfigError, match=r"^command line: dealz = 5: unknown key"):
        build_config(overrides={"dealz": 5})


def test_flag_bots_replace_the_files_and_start_from_the_base_folder(tmp_path: Path) -> None:
    config = build_config(
        file=write(tmp_path, "", bots=("alpha", "beta")),
        overrides={"bots": ["gamma/bot.toml", Path("delta/bot.toml")]},
        base_dir=BOTS,
    )
    assert config.bot_names == ("gamma", "delta")
    assert config.bots[0].manifest == manifest("gamma")


def test_the_same_manifest_listed_twice_on_the_command_line_is_named_apart() -> None:
    path = str(manifest("alpha"))
    config = build_config(overrides={"bots": [path, path, path]})
    assert config.bot_names == ("alpha", "alpha-2", "alpha-3")


def test_the_difference_names_the_first_setting_that_decides_the_results(tmp_path: Path) -> None:
    config = build_config(file=write(tmp_path, "deals = 300\nseed = 5"))
    stored = config.to_dict()
    assert difference(stored, config) == ""
    assert difference(stored, config.with_overrides({"concurrency": 3})) == ""
    assert difference(stored, config.with_overrides({"deals": 400})) == "deals = 300, now 400"
    changed = config.with_overrides({"game.big_blind": 4})
    assert difference(stored, changed) == "game.big_blind = 2, now 4"
    assert difference(stored, config.with_overrides({"seed": 6})) == "seed = 5, now 6"


def test_flags_alone_make_a_config() -> None:
    config = build_config(
        overrides={"bots": [str(manifest("alpha")), str(manifest("beta"))], "deals": "10"}
    )
    assert (config.deals, config.source) == (10, "command line")
    assert merge(None, {"bots": [str(manifest("alpha")), str(manifest("beta"))]}).deals == 200


def test_merge_puts_flags_into_a_loaded_config(tmp_path: Path) -> None:
    path = write(tmp_path, "deals = 300\nout = 'here'\n[sprt]\nenabled = true")
    loaded = build_config(file=path)
    merged = merge(loaded, {"concurrency": "4", "format": "round_robin"})
    assert (merged.deals, merged.concurrency, merged.sprt.enabled) == (300, 4, True)
    assert merged.out == tmp_path / "here"
    assert merged.bots == loaded.bots
    assert merged.source == f"{path} and the command line"
    assert merged.with_overrides({"deals": 9}).source == merged.source
    assert loaded.with_overrides({"deals": 7}).deals == 7
    assert merge(loaded, {}) == loaded


def test_merge_checks_everything_again(tmp_path: Path) -> None:
    loaded = build_config(
        file=write(tmp_path, "[sprt]\nenabled = true", bots=("alpha", "beta", "gamma"))
    )
    with pytest.raises(TournamentConfigError) as caught:
        merge(loaded, {"format": "ring"})
    assert str(caught.value).startswith(f"{loaded.source}: sprt.enabled = true: ")


def test_to_values_rebuilds_the_same_config() -> None:
    config = build_config(file=DATA / "weekly.toml")
    assert build_config(overrides=config.to_values()) == config


def test_to_dict_is_the_files_layout_with_defaults_filled_in(tmp_path: Path) -> None:
    data = build_config(
        file=write(tmp_path, "format = 'sit_and_go'", bots=("alpha", "beta"))
    ).to_dict()
    json.dumps(data)
    assert data["format"] == "sit_and_go"
    assert data["sit_and_go"]["seats"] == 2
    assert data["sit_and_go"]["games"] == 4
    assert data["ring"]["seats"] is None
    assert data["game"]["variant"] == "holdem"
    assert data["limits"]["decision_timeout"] == 5.0
    assert data["out"] == str(Path("runs") / "tournament")
    assert (data["seed"], data["concurrency"], data["sandbox"], data["challenger"]) == (
        None,
        None,
        None,
        None,
    )
    assert data["bots"][0] == {"name": "alpha", "manifest": str(manifest("alpha"))}
    heads_up = build_config(file=write(tmp_path, "")).to_dict()
    assert heads_up["sit_and_go"]["seats"] is None
    assert heads_up["ring"]["seats"] is None


# -- fingerprint ---------------------------------------------------------------------------


def test_the_fingerprint_ignores_how_a_run_is_played_but_not_what_it_plays(
    tmp_path: Path,
) -> None:
    config = build_config(file=write(tmp_path, "deals = 300\nseed = 5"))
    same = config.with_overrides(
        {"concurrency": 2, "out": "other", "sandbox": "none", "name": "renamed"}
    )
    assert fingerprint(same) == fingerprint(config)
    assert len(fingerprint(config)) == 64
    for changed in (
        {"deals": 301},
        {"block_deals": 50},
        {"seed": 6},
        {"game.big_blind": 4},
        {"limits.decision_timeout": 1},
        {"limits.memory_bytes": "100MiB"},
        {"sprt.enabled": True},
        {"format": "gauntlet"},
        {"bots": [str(manifest("beta")), str(manifest("alpha"))]},
    ):
        assert fingerprint(config.with_overrides(changed)) != fingerprint(config), changed


def test_the_fingerprint_ignores_settings_the_format_does_not_use(tmp_path: Path) -> None:
    config = build_config(file=write(tmp_path, ""))
    for unused in ({"sprt.mbb1": 70}, {"sit_and_go.max_hands": 5}, {"ring.seats": 3}):
        assert fingerprint(config.with_overrides(unused)) == fingerprint(config), unused
    sit_and_go = config.with_overrides({"format": "sit_and_go"})
    assert fingerprint(sit_and_go.with_overrides({"deals": 7})) == fingerprint(sit_and_go)
    changed = sit_and_go.with_overrides({"sit_and_go.max_hands": 5})
    assert fingerprint(changed) != fingerprint(sit_and_go)


# -- luck and score --------------------------------------------------------------------------
# The tournament's luck and score settings: read from the declarations (file and flags),
# checked together, carried to every match, and kept out of an older run's fingerprint.


def test_luck_is_on_and_the_adjusted_score_ranks_by_default(tmp_path: Path) -> None:
    config = build_config(file=write(tmp_path, ""))
    assert config.luck is Luck.ON and config.score is None
    assert config.score_used is Score.ADJUSTED
    match = plan(config, 5)[0].match_config(config)
    assert match.luck is True and match.score is Score.ADJUSTED


def test_a_file_with_luck_off_scores_raw_and_its_matches_skip_the_estimator(
    tmp_path: Path,
) -> None:
    config = build_config(file=write(tmp_path, 'luck = "off"'))
    assert config.score_used is Score.RAW
    assert plan(config, 5)[0].match_config(config).luck is False
    assert config.to_dict()["luck"] == "off" and config.to_dict()["score"] is None


def test_a_flag_asks_for_the_raw_score_with_luck_on(tmp_path: Path) -> None:
    config = build_config(file=write(tmp_path, 'score = "adjusted"'), overrides={"score": "raw"})
    assert config.luck is Luck.ON and config.score_used is Score.RAW
    assert plan(config, 5)[0].match_config(config).score is Score.RAW


def test_the_adjusted_score_with_luck_off_is_refused_naming_both(tmp_path: Path) -> None:
    with pytest.raises(TournamentConfigError) as caught:
        build_config(file=write(tmp_path, 'luck = "off"\nscore = "adjusted"'))
    message = str(caught.value)
    assert 'score = "adjusted"' in message and "luck is off" in message


def test_a_bad_score_is_refused_by_name(tmp_path: Path) -> None:
    with pytest.raises(TournamentConfigError, match="score"):
        build_config(file=write(tmp_path, 'score = "lucky"'))


def test_a_run_stored_before_the_luck_setting_is_found_again_with_luck_off() -> None:
    bots = [str(manifest("alpha")), str(manifest("beta"))]
    off = build_config(overrides={"bots": bots, "luck": "off"})
    on = build_config(overrides={"bots": bots})
    stored = off.to_dict()
    del stored["luck"], stored["score"]  # as a run written before the settings existed
    assert difference(stored, off) == ""
    assert difference(stored, on) == 'luck = "off", now "on"'
    assert fingerprint(off) != fingerprint(on)


# -- the executor ----------------------------------------------------------------------------
# The executor settings: ``executor`` and ``scheduler``, from TOML and flags; they decide
# nothing a bot does, so they are not part of the tournament's fingerprint.


DASK_BOTS = [str(FOLDER), str(STATION)]


def _file(tmp_path: Path, body: str) -> Path:
    path = tmp_path / "t.toml"
    path.write_text(f"bots = {json.dumps(DASK_BOTS)}\n{body}\n", encoding="utf-8")
    return path


def test_the_local_pool_is_the_default_executor() -> None:
    config = build_config(overrides={"bots": DASK_BOTS})
    assert (config.executor, config.scheduler) == (ExecutorKind.LOCAL, None)


def test_a_file_asks_for_a_dask_cluster_at_a_scheduler(tmp_path: Path) -> None:
    config = build_config(
        file=_file(tmp_path, 'executor = "dask"\nscheduler = "tcp://10.0.0.5:8786"')
    )
    assert (config.executor, config.scheduler) == (ExecutorKind.DASK, "tcp://10.0.0.5:8786")
    assert build_config(overrides=config.to_values()) == config
    assert config.to_dict()["executor"] == "dask"


@pytest.mark.parametrize(
    "address", ["tcp://10.0.0.5:8786", "tls://scheduler.lan:8786", "host-1:8786", "[::1]:8786"]
)
def test_a_scheduler_is_an_address_with_a_port(address: str) -> None:
    config = build_config(overrides={"bots": DASK_BOTS, "executor": "dask", "scheduler": address})
    assert config.scheduler == address


@pytest.mark.parametrize(
    "address", ["http://host:8786", "tcp://host", "tcp://host:0", "tcp://host:70000", "", 8786]
)
def test_a_bad_scheduler_address_is_named_with_the_shape_wanted(address: object) -> None:
    with pytest.raises(TournamentConfigError) as caught:
        build_config(overrides={"bots": DASK_BOTS, "executor": "dask", "scheduler": address})
    assert caught.value.key == "scheduler"
    assert "must be a Dask scheduler's address: tcp://HOST:PORT or tls://HOST:PORT" in str(
        caught.value
    )


def test_an_unknown_executor_suggests_the_closest() -> None:
    with pytest.raises(TournamentConfigError, match=r"one of local, dask \(did you mean 'dask'"):
        build_config(overrides={"bots": DASK_BOTS, "executor": "dsk"})


def test_a_scheduler_without_the_dask_executor_is_an_error() -> None:
    with pytest.raises(TournamentConfigError) as caught:
        build_config(overrides={"bots": DASK_BOTS, "scheduler": "tcp://10.0.0.5:8786"})
    assert str(caught.value) == (
        'command line: scheduler = "tcp://10.0.0.5:8786": is used only by executor = dask'
        " (--executor dask)"
    )


def test_the_executor_leaves_the_fingerprint_alone() -> None:
    # A run started on the local pool resumes on a cluster, and the other way round.
    local = build_config(overrides={"bots": DASK_BOTS, "seed": 3})
    cluster = build_config(
        overrides={
            "bots": DASK_BOTS,
            "seed": 3,
            "executor": "dask",
            "scheduler": "tcp://10.0.0.5:8786",
        }
    )
    assert fingerprint(local) == fingerprint(cluster)
