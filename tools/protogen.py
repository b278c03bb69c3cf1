#!/usr/bin/env python3
"""Generates src/sim/proto/table.rs: the protobuf messages of the built-in
kinds the embedded cluster serves, read from the Go types of k8s.io/api and
k8s.io/apimachinery (their `json` and `protobuf` struct tags).

    python3 tools/protogen.py API_DIR APIMACHINERY_DIR VERSION > src/sim/proto/table.rs
    rustfmt --edition 2021 src/sim/proto/table.rs

API_DIR and APIMACHINERY_DIR are checkouts of kubernetes/api and
kubernetes/apimachinery at the tag VERSION (e.g. v0.37.0-beta.0).

Each Go field becomes a `Field`: its protobuf number (from the `protobuf`
tag), its JSON name and `omitempty` (from the `json` tag), whether it is
inlined (`json:",inline"`), and its shape from its Go type: a pointer is
written only when set, a plain value always (what go-to-protobuf's
generated marshalling does), a slice is repeated, a map is a map.
"""
import os
import re
import sys

API, MACHINERY, VERSION = sys.argv[1], sys.argv[2], sys.argv[3]

# Packages whose kinds are served, by Go import path, with (group, version).
PACKAGES = {
    "k8s.io/api/core/v1": ("", "v1"),
    "k8s.io/api/apps/v1": ("apps", "v1"),
    "k8s.io/api/batch/v1": ("batch", "v1"),
    "k8s.io/api/policy/v1": ("policy", "v1"),
    "k8s.io/api/autoscaling/v1": ("autoscaling", "v1"),
    "k8s.io/api/discovery/v1": ("discovery.k8s.io", "v1"),
    "k8s.io/api/rbac/v1": ("rbac.authorization.k8s.io", "v1"),
    "k8s.io/api/storage/v1": ("storage.k8s.io", "v1"),
    "k8s.io/api/coordination/v1": ("coordination.k8s.io", "v1"),
    "k8s.io/api/events/v1": ("events.k8s.io", "v1"),
    "k8s.io/api/authorization/v1": ("authorization.k8s.io", "v1"),
    "k8s.io/apimachinery/pkg/apis/meta/v1": ("meta.k8s.io", "v1"),
}
META = "k8s.io/apimachinery/pkg/apis/meta/v1"

# Go types with their own protobuf and JSON forms.
SPECIAL = {
    META + ".Time": "Time",
    META + ".MicroTime": "MicroTime",
    META + ".Duration": "Duration",
    META + ".FieldsV1": "FieldsV1",
    "k8s.io/apimachinery/pkg/api/resource.Quantity": "Quantity",
    "k8s.io/apimachinery/pkg/util/intstr.IntOrString": "IntOrString",
    "k8s.io/apimachinery/pkg/runtime.RawExtension": "RawExtension",
    "k8s.io/apimachinery/pkg/types.UID": "String",
}
BASIC = {"string": "String", "int32": "Int32", "int": "Int64", "int64": "Int64",
         "bool": "Bool", "float64": "Double", "uint32": "Uint32", "uint64": "Uint64"}


def package_dir(path):
    if path.startswith("k8s.io/api/"):
        return os.path.join(API, path[len("k8s.io/api/"):])
    return os.path.join(MACHINERY, path[len("k8s.io/apimachinery/"):])


class Package:
    def __init__(self, path):
        self.path = path
        self.structs = {}   # name -> [(name, type, tag, imports)]
        self.named = {}     # name -> (type, imports)
        d = package_dir(path)
        for f in sorted(os.listdir(d)):
            if not f.endswith(".go") or f.endswith("_test.go") or f.startswith(("zz_", "generated")):
                continue
            self.parse(open(os.path.join(d, f)).read())

    def parse(self, src):
        src = re.sub(r"/\*.*?\*/", "", src, flags=re.S)
        imports = {}
        for m in re.finditer(r'^\s*(\w+\s+)?"(k8s\.io/[^"]+)"', src, re.M):
            alias = (m.group(1) or "").strip() or m.group(2).rsplit("/", 1)[1]
            imports[alias] = m.group(2)
        lines = src.split("\n")
        i = 0
        while i < len(lines):
            line = lines[i]
            m = re.match(r"^type (\w+) struct \{\s*$", line)
            if m:
                fields, i = [], i + 1
                while not lines[i].startswith("}"):
                    code = lines[i].strip()
                    if code and not code.startswith("//"):
                        fm = re.match(r"^(?:(\w+)\s+)?([\w.*\[\]]+(?:\[[\w.]+\][\w.*\[\]]+)?)\s*(`.*`)?$", code)
                        if not fm and "protobuf:" not in code:
                            pass  # a field protobuf never carries
                        elif not fm:
                            raise SystemExit(f"cannot parse field of {m.group(1)}: {code}")
                        else:
                            fields.append((fm.group(1), fm.group(2), fm.group(3) or "", imports))
                    i += 1
                self.structs[m.group(1)] = fields
            else:
                m = re.match(r"^type (\w+) ([\w.*\[\]]+)\s*(//.*)?$", line)
                if m and m.group(2) not in ("struct", "interface"):
                    self.named[m.group(1)] = (m.group(2), imports)
            i += 1


PKGS = {}


def pkg(path):
    if path not in PKGS:
        PKGS[path] = Package(path)
    return PKGS[path]


MESSAGES = []      # [(key, fields)] in index order
INDEX = {}         # key -> index


def qualify(expr, imports, here):
    if "." in expr:
        alias, name = expr.split(".", 1)
        return imports[alias], name
    return here, expr


def base_type(expr, imports, here):
    """A Go element type (no pointer, slice or map) as a Rust `Ty`."""
    if expr in BASIC:
        return BASIC[expr]
    path, name = qualify(expr, imports, here)
    key = f"{path}.{name}"
    if key in SPECIAL:
        return SPECIAL[key]
    p = pkg(path)
    if name in p.structs:
        return f"Msg({message(path, name)})"
    if name in p.named:
        under, imps = p.named[name]
        if under.startswith(("[]", "map[")):
            raise SystemExit(f"{key}: a named {under} as an element is not supported")
        return base_type(under, imps, path)
    raise SystemExit(f"unknown type {key}")


def shape(expr, imports, here):
    """(card, ty) of a field's Go type."""
    if expr == "[]byte":
        return "Ptr", "Bytes"  # written when not nil, as a pointer
    if expr.startswith("*"):
        return "Ptr", base_type(expr[1:], imports, here)
    if expr.startswith("[]"):
        return "Repeated", base_type(expr[2:], imports, here)
    m = re.match(r"^map\[([\w.]+)\](.+)$", expr)
    if m:
        val = m.group(2)
        if val == "[]byte":
            return f"Map({base_type(m.group(1), imports, here)})", "Bytes"
        vpath, vname = qualify(val, imports, here) if not val.startswith("[]") and val not in BASIC else (here, val)
        if val not in BASIC and vname in pkg(vpath).named and pkg(vpath).named[vname][0].startswith("[]"):
            # A named slice as a map value (authorization's ExtraValue) is
            # a message of one repeated field, `items`.
            return f"Map({base_type(m.group(1), imports, here)})", f"Items({message_of_items(vpath, vname)})"
        return f"Map({base_type(m.group(1), imports, here)})", base_type(val, imports, here)
    if expr in BASIC:
        return "One", BASIC[expr]
    path, name = qualify(expr, imports, here)
    p = pkg(path)
    if f"{path}.{name}" not in SPECIAL and name in p.named:
        under, imps = p.named[name]
        if under.startswith(("[]", "map[", "*")):
            return shape(under, imps, path)
    return "One", base_type(expr, imports, here)


def message_of_items(path, name):
    key = f"{path}.{name}"
    if key in INDEX:
        return INDEX[key]
    INDEX[key] = len(MESSAGES)
    MESSAGES.append([key, None])
    under, imps = pkg(path).named[name]
    card, ty = shape(under, imps, path)
    MESSAGES[INDEX[key]][1] = [(1, "items", ty, card, True, False)]
    return INDEX[key]


def message(path, name):
    key = f"{path}.{name}"
    if key in INDEX:
        return INDEX[key]
    INDEX[key] = len(MESSAGES)
    MESSAGES.append([key, None])
    fields = []
    for fname, ftype, tag, imports in pkg(path).structs[name]:
        pm = re.search(r'protobuf:"[a-z0-9]+,(\d+),', tag)
        if not pm:
            continue  # TypeMeta and fields protobuf never carries
        jm = re.search(r'json:"([^"]*)"', tag)
        jparts = (jm.group(1) if jm else (fname or "")).split(",")
        if not jparts[0] and fname:
            jparts[0] = fname
        if jparts[0] == "-":
            continue
        # encoding/json promotes the fields of an embedded struct that has
        # no JSON name (`json:""` or `json:",inline"`).
        inline = fname is None and jparts[0] == ""
        omit = "omitempty" in jparts[1:]
        card, ty = shape(ftype, imports, path)
        fields.append((int(pm.group(1)), "" if inline else jparts[0], ty, card, omit, inline))
    MESSAGES[INDEX[key]][1] = fields
    return INDEX[key]


KINDS = []
for path, (group, version) in PACKAGES.items():
    p = pkg(path)
    for name, fields in sorted(p.structs.items()):
        embeds_type_meta = any(f[0] is None and f[1] in ("metav1.TypeMeta", "TypeMeta") for f in fields)
        if embeds_type_meta and any("protobuf:" in f[2] for f in fields) or (embeds_type_meta and name.endswith("Options")):
            KINDS.append((group, version, name, message(path, name)))

print(f"//! The protobuf messages of the served built-in kinds, generated by")
print(f"//! `tools/protogen.py` from the Go types of k8s.io/api and")
print(f"//! k8s.io/apimachinery {VERSION} (their `json` and `protobuf` tags).")
print("//! Do not edit: run the generator again.")
print()
print("use super::schema::{Card::*, Field, Kind, Message, Ty::*};")
print()
print("/// Every message, by index (`Ty::Msg` names one by its index).")
print("pub static MESSAGES: &[Message] = &[")
for key, fields in MESSAGES:
    print(f'    Message {{ name: "{key}", fields: &[')
    for num, json, ty, card, omit, inline in fields:
        print(f'        Field {{ num: {num}, json: "{json}", ty: {ty}, card: {card}, omit: {str(omit).lower()}, inline: {str(inline).lower()} }},')
    print("    ] },")
print("];")
print()
print("/// The kinds (objects, lists and options) by group, version and kind.")
print("pub static KINDS: &[Kind] = &[")
for group, version, kind, idx in KINDS:
    print(f'    Kind {{ group: "{group}", version: "{version}", kind: "{kind}", msg: {idx} }},')
print("];")
