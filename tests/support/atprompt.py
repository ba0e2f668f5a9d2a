#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Runs a program on a pseudo-terminal and answers its prompts, as a person at a terminal would.

RedisLens asks for passwords and passphrases on the terminal only, so a test that types one
needs a terminal: this is it.

    atprompt.py PROMPT VARIABLE [PROMPT VARIABLE ...] -- PROGRAM [ARGS ...]

Each time the output shows PROMPT (a piece of text) after the last answer, the value of the
environment variable VARIABLE and a newline are typed (the value never appears in the
arguments). Everything the program printed is copied to stdout; the exit status is the
program's (1 if it was killed by a signal).
"""
import os
import pty
import select
import sys


def main(argv):
    if "--" not in argv:
        sys.exit("usage: atprompt.py PROMPT VARIABLE [...] -- PROGRAM [ARGS ...]")
    split = argv.index("--")
    pairs = argv[1:split]
    command = argv[split + 1:]
    if not command or len(pairs) % 2:
        sys.exit("usage: atprompt.py PROMPT VARIABLE [...] -- PROGRAM [ARGS ...]")
    answers = [(pairs[i].encode(), os.environ.get(pairs[i + 1], "").encode()) for i in range(0, len(pairs), 2)]

    pid, fd = pty.fork()
    if pid == 0:
        os.execvp(command[0], command)
    seen = b""
    output = bytearray()
    while True:
        ready, _, _ = select.select([fd], [], [], 120)
        if not ready:
            os.kill(pid, 9)
            break
        try:
            chunk = os.read(fd, 4096)
        except OSError:
            break  # the program closed the terminal
        if not chunk:
            break
        output += chunk
        seen += chunk
        for prompt, answer in answers:
            if prompt in seen:
                os.write(fd, answer + b"\n")
                seen = b""
                break
    _, status = os.waitpid(pid, 0)
    sys.stdout.buffer.write(bytes(output))
    sys.stdout.flush()
    sys.exit(os.waitstatus_to_exitcode(status) if os.WIFEXITED(status) else 1)


if __name__ == "__main__":
    main(sys.argv)
