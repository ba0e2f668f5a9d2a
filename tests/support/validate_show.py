#!/usr/bin/python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Validates the output of `redislens show` against the panel's JSON Schema (docs/schemas/).

    validate_show.py SCHEMA OUTPUT json|jsonl

json: OUTPUT is one document, validated as a whole. jsonl: every line of OUTPUT is a record,
validated against the schema's $defs/record. Prints one line per problem and exits 1 when there
is any, 0 when the output conforms. Needs python3-jsonschema (Debian: /usr/bin/python3).
"""
import json
import sys

import jsonschema


def main(argv):
    if len(argv) != 4 or argv[3] not in ("json", "jsonl"):
        print(__doc__.strip().splitlines()[2].strip(), file=sys.stderr)
        return 2
    with open(argv[1], encoding="utf-8") as f:
        schema = json.load(f)
    cls = jsonschema.validators.validator_for(schema)
    cls.check_schema(schema)
    checker = jsonschema.FormatChecker()
    with open(argv[2], encoding="utf-8") as f:
        text = f.read()
    problems = []
    if argv[3] == "json":
        documents = [("document", json.loads(text))]
        validator = cls(schema, format_checker=checker)
    else:
        resolver = jsonschema.RefResolver.from_schema(schema)
        validator = cls(schema["$defs"]["record"], resolver=resolver, format_checker=checker)
        documents = []
        for number, line in enumerate(text.splitlines(), 1):
            try:
                documents.append(("line %d" % number, json.loads(line)))
            except ValueError as e:
                problems.append("line %d: not JSON: %s" % (number, e))
    for where, document in documents:
        for error in validator.iter_errors(document):
            path = "/".join(str(p) for p in error.absolute_path)
            problems.append("%s: %s: %s" % (where, path or "(top)", error.message))
    for p in problems[:20]:
        print(p)
    if len(problems) > 20:
        print("… and %d more" % (len(problems) - 20))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
