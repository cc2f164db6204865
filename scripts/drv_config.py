#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""What scripts/drv_env.sh asks of Python when it reads net.config:

  drv_config.py lex TEXT   TEXT's shell-lexed words (comments dropped) on
                           stdout, each NUL-terminated; exit 1 with one line
                           on stderr when it does not lex (an unterminated
                           quote)
  drv_config.py v6 ADDR    exit 0 when ADDR is an IPv6 address, else 1"""
import ipaddress
import shlex
import sys


def main(argv):
    if len(argv) != 3 or argv[1] not in ("lex", "v6"):
        sys.stderr.write("usage: drv_config.py lex TEXT | v6 ADDR\n")
        return 2
    if argv[1] == "v6":
        try:
            ipaddress.IPv6Address(argv[2])
        except ValueError:
            return 1
        return 0
    try:
        words = shlex.split(argv[2], comments=True)
    except ValueError as e:
        sys.stderr.write("%s\n" % e)
        return 1
    sys.stdout.write("".join(w + "\0" for w in words))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
