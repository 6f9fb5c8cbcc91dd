#!/usr/bin/env python3
"""Derive a JSON Schema (2020-12) for the A2A 1.0 ProtoJSON wire from specification/a2a.proto.

The A2A project does not commit its generated a2a.json (specification/json/README.md: "generated during
builds and intentionally not committed"), and its generator (bufbuild's protoc-gen-jsonschema) is not
available from the registries this project builds with. This script applies the ProtoJSON mapping
(https://protobuf.dev/programming-guides/json) to the proto's messages and enums, as the published
generator does, and is stricter in three places that a JSON serializer of the proto never violates:
  * only lowerCamelCase field names (what ProtoJSON printers emit; parsers also accept snake_case),
  * fields marked (google.api.field_behavior) = REQUIRED are "required",
  * at most one member of each oneof is present.
Usage: a2a-proto-to-schema.py a2a.proto SOURCE_COMMIT > a2a-v1.schema.json
"""
import json
import re
import sys

SCALARS = {
    "string": {"type": "string"},
    "bool": {"type": "boolean"},
    "bytes": {"type": "string", "contentEncoding": "base64"},
    "int32": {"type": "integer"}, "sint32": {"type": "integer"}, "sfixed32": {"type": "integer"},
    "uint32": {"type": "integer", "minimum": 0}, "fixed32": {"type": "integer", "minimum": 0},
    # ProtoJSON prints 64-bit integers as decimal strings and accepts numbers too
    "int64": {"type": ["string", "integer"], "pattern": "^-?[0-9]+$"},
    "sint64": {"type": ["string", "integer"], "pattern": "^-?[0-9]+$"},
    "uint64": {"type": ["string", "integer"], "pattern": "^[0-9]+$"},
    "float": {"type": "number"}, "double": {"type": "number"},
}
WELL_KNOWN = {
    "google.protobuf.Struct": {"type": "object"},
    "google.protobuf.Value": {},
    "google.protobuf.Timestamp": {"type": "string", "format": "date-time",
                                  "pattern": "^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\\.[0-9]{1,9})?Z$"},
    "google.protobuf.Empty": {"type": "object", "additionalProperties": False},
}


def camel(name):
    return re.sub(r"_([a-z0-9])", lambda m: m.group(1).upper(), name)


def strip_comments(text):
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    return re.sub(r"//[^\n]*", "", text)


def parse(text):
    text = strip_comments(text)
    messages, enums = {}, {}
    tokens = re.findall(r'"[^"]*"|[A-Za-z_][\w.]*|-?\d+|[{}\[\]=;<>,()]', text)
    i = 0

    def skip_block(j):
        depth = 0
        while True:
            if tokens[j] == "{":
                depth += 1
            elif tokens[j] == "}":
                depth -= 1
                if depth == 0:
                    return j + 1
            j += 1

    def parse_enum(j):
        name = tokens[j + 1]
        j += 3
        values = []
        while tokens[j] != "}":
            if tokens[j] == "option" or tokens[j] == "reserved":
                while tokens[j] != ";":
                    j += 1
                j += 1
                continue
            values.append(tokens[j])
            while tokens[j] != ";":
                j += 1
            j += 1
        enums[name] = values
        return j + 1

    def parse_field(j, oneof):
        label = None
        if tokens[j] in ("repeated", "optional"):
            label = tokens[j]
            j += 1
        if tokens[j] == "map":
            key, value = tokens[j + 2], tokens[j + 4]
            ftype = ("map", key, value)
            j += 6
        else:
            ftype = tokens[j]
            j += 1
        fname = tokens[j]
        j += 3  # name = number
        required = False
        if tokens[j] == "[":
            k = j
            while tokens[k] != "]":
                k += 1
            required = "REQUIRED" in tokens[j:k]
            j = k + 1
        assert tokens[j] == ";", (fname, tokens[j])
        return j + 1, {"name": fname, "type": ftype, "label": label, "required": required, "oneof": oneof}

    def parse_message(j):
        name = tokens[j + 1]
        j += 3
        fields, oneofs = [], {}
        while tokens[j] != "}":
            t = tokens[j]
            if t == "oneof":
                group = tokens[j + 1]
                oneofs[group] = []
                j += 3
                while tokens[j] != "}":
                    j, f = parse_field(j, group)
                    fields.append(f)
                    oneofs[group].append(f["name"])
                j += 1
            elif t == "message":
                j = parse_message(j)
            elif t == "enum":
                j = parse_enum(j)
            elif t in ("option", "reserved"):
                while tokens[j] != ";":
                    j += 1
                j += 1
            else:
                j, f = parse_field(j, None)
                fields.append(f)
        messages[name] = {"fields": fields, "oneofs": oneofs}
        return j + 1

    while i < len(tokens):
        t = tokens[i]
        if t == "message":
            i = parse_message(i)
        elif t == "enum":
            i = parse_enum(i)
        elif t == "service":
            i = skip_block(i)
        else:
            i += 1
    return messages, enums


def type_schema(t, messages, enums):
    if isinstance(t, tuple):
        _, key, value = t
        return {"type": "object", "additionalProperties": type_schema(value, messages, enums)}
    if t in SCALARS:
        return dict(SCALARS[t])
    if t in WELL_KNOWN:
        return dict(WELL_KNOWN[t])
    short = t.split(".")[-1]
    if short in messages or short in enums:
        return {"$ref": "#/$defs/" + short}
    raise SystemExit("unknown type " + t)


def main():
    proto, commit = sys.argv[1], sys.argv[2]
    with open(proto) as f:
        messages, enums = parse(f.read())
    defs = {}
    for name, values in enums.items():
        defs[name] = {"type": "string", "enum": values}
    for name, m in messages.items():
        props, required = {}, []
        for f in m["fields"]:
            s = type_schema(f["type"], messages, enums)
            if f["label"] == "repeated":
                s = {"type": "array", "items": s}
            props[camel(f["name"])] = s
            if f["required"]:
                required.append(camel(f["name"]))
        d = {"type": "object", "properties": props, "additionalProperties": False}
        if required:
            d["required"] = required
        exclusive = [
            {"not": {"required": [camel(a), camel(b)]}}
            for members in m["oneofs"].values()
            for x, a in enumerate(members) for b in members[x + 1:]
        ]
        if exclusive:
            d["allOf"] = exclusive
        defs[name] = d
    schema = {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": "urn:a2a:v1:schema",
        "title": "A2A 1.0 ProtoJSON messages",
        "$comment": ("Derived by scripts/a2a-proto-to-schema.py from specification/a2a.proto of "
                     "https://github.com/a2aproject/A2A at tag v1.0.1, commit " + commit +
                     " (Apache License 2.0, Copyright The A2A Authors). Do not edit: regenerate."),
        "$defs": dict(sorted(defs.items())),
    }
    json.dump(schema, sys.stdout, indent=2)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
