"""``arena server``: host a competition web site (needs the ``server`` extra).

``arena server init SITE_DIR --competition FILE`` makes the site (database, secret key, an
administrator); ``arena server run SITE_DIR`` serves it with waitress and runs the
validation and ladder workers until Ctrl-C or SIGTERM; on another machine, ``arena server
join WORKER_DIR --database URL ...`` makes a worker folder for the same site and ``arena
server work WORKER_DIR`` runs its workers only; ``arena server import-tournament SITE_DIR
RUN_FOLDER`` puts a tournament's standings and matches on the site. A bad competition file
is one line naming the key and the value, exit code 2.
"""

from __future__ import annotations

import argparse
import getpass
from pathlib import Path
from typing import TextIO

from arena.settings import UsageError
from arena.settings.flags import value_type
from arena.settings.grammar import whole

__all__ = ["DESCRIPTION", "add_arguments", "run"]

DESCRIPTION = (
    "Host a competition: teams sign up, upload bots (each checked in the sandbox against a "
    "house bot) and see the results. init makes the site folder, run serves it and runs "
    "the workers, join and work run more workers on other machines, import-tournament "
    "shows a tournament's results on it. See docs/server.md."
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """``arena server``'s subcommands and their arguments."""
    actions = parser.add_subparsers(
        dest="action",
        metavar="ACTION",
        required=True,
        help="init, run, join, work or import-tournament",
    )
    init = actions.add_parser("init", help="make a site folder from a competition file")
    init.add_argument("site", type=Path, metavar="SITE_DIR", help="a new (or empty) folder")
    init.add_argument("--competition", type=Path, required=True, metavar="FILE",
                      help="the competition file (a tournament file's game keys, plus "
                      "[site], [upload] and [validation])")  # fmt: skip
    init.add_argument("--admin", default="admin", metavar="NAME",
                      help="the administrator's user name (default: %(default)s)")  # fmt: skip
    source = init.add_mutually_exclusive_group()
    source.add_argument("--admin-password-file", type=Path, metavar="FILE",
                        help="read the administrator's password from FILE's 1st line")  # fmt: skip
    source.add_argument("--prompt-password", action="store_true",
                        help="ask for the administrator's password (default: draw one "
                        "and print it once)")  # fmt: skip
    init.add_argument(
        "--host-name",
        action="append",
        default=[],
        metavar="NAME",
        help="a host name the site answers to (repeat; default: localhost)",
    )
    init.add_argument("--behind-tls", action="store_true",
                      help="TLS ends at a proxy in front: secure cookies, HTTPS only (run "
                      "it with --trusted-proxy)")  # fmt: skip
    init.add_argument("--database", metavar="URL",
                      help="postgresql://USER:PASSWORD@HOST:PORT/NAME (default: SQLite in "
                      "the site folder)")  # fmt: skip
    serve = actions.add_parser("run", help="serve the site and run its workers")
    serve.add_argument("site", type=Path, metavar="SITE_DIR", help="the site folder")
    serve.add_argument(
        "--host", default="127.0.0.1", help="address to listen on (default: %(default)s)"
    )
    serve.add_argument("--port", type=value_type(whole(0, 65535), "int"), default=8000,
                       help="port (default: %(default)s; 0: any free one)")  # fmt: skip
    serve.add_argument("--workers", type=value_type(whole(0, 64), "int"), default=1,
                       metavar="N", help="validation workers (default: %(default)s)")  # fmt: skip
    serve.add_argument("--ladder-workers", type=value_type(whole(0, 64), "int"), default=1,
                       metavar="N", help="ladder workers (default: %(default)s)")  # fmt: skip
    serve.add_argument("--threads", type=value_type(whole(1, 256), "int"), default=8,
                       metavar="N", help="web server threads (default: %(default)s)")  # fmt: skip
    serve.add_argument("--trusted-proxy", type=_proxy, metavar="ADDR",
                       help="the address of the proxy in front that ends TLS: its "
                       "X-Forwarded-Proto and X-Forwarded-For are believed, no one "
                       "else's (see docs/server.md)")  # fmt: skip
    work = actions.add_parser("work", help="run a site's workers only (a worker machine)")
    work.add_argument("site", type=Path, metavar="DIR",
                      help="a worker folder (arena server join) or the site folder")  # fmt: skip
    work.add_argument("--workers", type=value_type(whole(0, 64), "int"), default=0,
                      metavar="N", help="validation workers (default: %(default)s)")  # fmt: skip
    work.add_argument("--ladder-workers", type=value_type(whole(0, 64), "int"), default=1,
                      metavar="N", help="ladder workers (default: %(default)s)")  # fmt: skip
    join = actions.add_parser("join", help="make a worker machine's folder for a site")
    join.add_argument("site", type=Path, metavar="WORKER_DIR", help="a new (or empty) folder")
    join.add_argument("--database", required=True, metavar="URL",
                      help="the site's PostgreSQL database")  # fmt: skip
    join.add_argument("--competition", type=Path, required=True, metavar="FILE",
                      help="a copy of the site's competition file")  # fmt: skip
    join.add_argument("--secret-key-file", type=Path, required=True, metavar="FILE",
                      help="a copy of the site folder's secret_key")  # fmt: skip
    join.add_argument("--archives", type=Path, required=True, metavar="DIR",
                      help="the site's uploads folder as this machine mounts it")  # fmt: skip
    load = actions.add_parser("import-tournament", help="show a tournament's results on the site")
    load.add_argument("site", type=Path, metavar="SITE_DIR", help="the site folder")
    load.add_argument(
        "run_folder", type=Path, metavar="RUN_FOLDER", help="a tournament's run folder"
    )


def run(args: argparse.Namespace, out: TextIO) -> int:
    """Run the subcommand."""
    try:
        import django  # noqa: F401
        import waitress  # noqa: F401
    except ImportError:
        raise UsageError(
            "arena server needs the server extra: pip install 'poker-arena[server]'"
        ) from None
    if args.action == "init":
        return _init(args, out)
    if args.action == "run":
        from arena.server.serve import serve

        return serve(args.site, host=args.host, port=args.port, workers=args.workers,
                     threads=args.threads, out=out,
                     ladder_workers=args.ladder_workers,
                     trusted_proxy=args.trusted_proxy)  # fmt: skip
    if args.action == "work":
        from arena.server.serve import work

        return work(args.site, workers=args.workers, ladder_workers=args.ladder_workers, out=out)
    if args.action == "join":
        from arena.server.worker_folder import join_site

        joined = join_site(
            args.site,
            database=args.database,
            competition=args.competition,
            secret_key_file=args.secret_key_file,
            archives=args.archives,
        )
        out.write(f"made the worker folder {joined.root}\n")
        out.write(f"run its workers: arena server work {joined.root} --ladder-workers N\n")
        return 0
    from arena.server.site.importer import import_tournament

    imported = import_tournament(args.site, args.run_folder)
    out.write(f"imported {imported.name}: {imported.rows} leaderboard rows, "
              f"{imported.matches} matches\n")  # fmt: skip
    return 0


def _proxy(text: str) -> str:
    """``--trusted-proxy``'s value (:func:`arena.server.serve.proxy_address`)."""
    from arena.server.serve import proxy_address

    try:
        return proxy_address(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def _init(args: argparse.Namespace, out: TextIO) -> int:
    from arena.server.init_site import init_site

    password = None
    if args.admin_password_file is not None:
        try:
            password = args.admin_password_file.read_text(encoding="utf-8").splitlines()[0]
        except (OSError, IndexError, UnicodeDecodeError) as error:
            raise UsageError(f"--admin-password-file: cannot read a password: {error}") from None
    elif args.prompt_password:
        password = getpass.getpass("administrator's password: ")
    site = init_site(
        args.site,
        args.competition,
        admin=args.admin,
        password=password,
        allowed_hosts=tuple(args.host_name),
        behind_tls=args.behind_tls,
        database=args.database,
    )
    out.write(f"made the site {site.site.root}\n")
    if site.generated_password is not None:
        out.write(f"administrator {site.admin}, password {site.generated_password} "
                  "(shown this once)\n")  # fmt: skip
    else:
        out.write(f"administrator {site.admin}\n")
    out.write(f"serve it: arena server run {site.site.root}\n")
    return 0
