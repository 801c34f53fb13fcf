#!/usr/bin/env python3
"""The public API of a library crate, one item a line, from rustdoc's JSON output.

    public_api.py CRATE.json > api/CRATE.txt

Reads the JSON that `cargo rustdoc --lib -- -Z unstable-options --output-format json` writes
(`scripts/public-api.sh` runs it on the stable toolchain) and prints every item a user of the
crate can name, under the path they name it by: modules, re-exports followed to what they
re-export, structs with their public fields, enums with their variants, traits with their items,
functions and methods with their signatures, constants, statics, type aliases and macros, the
trait impls of public types (auto and blanket impls left out), and `#[non_exhaustive]`. The lines
are sorted, so a diff against the committed baseline shows exactly what a change added, removed
or changed.
"""

import json
import sys


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: public_api.py CRATE.json")
    with open(sys.argv[1], encoding="utf-8") as f:
        doc = json.load(f)
    lines = set()
    Walker(doc, lines).module(doc["root"], [doc["index"][str(doc["root"])]["name"]], set())
    for line in sorted(lines):
        print(line)


class Walker:
    def __init__(self, doc, lines):
        self.index = doc["index"]
        self.lines = lines

    def item(self, id_):
        return self.index.get(str(id_))

    # ---- items -----------------------------------------------------------------------------

    def module(self, id_, path, seen):
        if id_ in seen:
            return
        seen = seen | {id_}
        module = self.item(id_)
        for child_id in module["inner"]["module"]["items"]:
            child = self.item(child_id)
            if child is None or not public(child):
                continue
            self.named(child, path, seen)

    def named(self, item, path, seen, name=None):
        kind, inner = kind_of(item)
        name = name or item.get("name")
        if kind == "use":
            self.reexport(inner, path, seen)
            return
        if name is None:
            return
        here = path + [name]
        full = "::".join(here)
        attrs = non_exhaustive(item)
        if kind == "module":
            self.emit(f"pub mod {full}")
            self.module(item["id"], here, seen)
        elif kind == "struct":
            self.emit(f"{attrs}pub struct {full}{self.generics(inner['generics'])}")
            self.fields(inner["kind"], full)
            self.impls(inner.get("impls", []), full)
        elif kind == "union":
            self.emit(f"pub union {full}{self.generics(inner['generics'])}")
            self.impls(inner.get("impls", []), full)
        elif kind == "enum":
            self.emit(f"{attrs}pub enum {full}{self.generics(inner['generics'])}")
            for variant_id in inner["variants"]:
                variant = self.item(variant_id)
                if variant is not None:
                    self.variant(variant, full)
            self.impls(inner.get("impls", []), full)
        elif kind == "trait":
            unsafe = "unsafe " if inner.get("is_unsafe") else ""
            bounds = self.bounds(inner.get("bounds", []))
            self.emit(
                f"pub {unsafe}trait {full}{self.generics(inner['generics'])}"
                + (f": {bounds}" if bounds else "")
            )
            for member_id in inner["items"]:
                member = self.item(member_id)
                if member is not None:
                    self.member(member, full, "trait")
        elif kind == "function":
            self.emit(f"pub {self.function(name, inner)}".replace(f" fn {name}", f" fn {full}", 1))
        elif kind == "type_alias":
            self.emit(f"pub type {full}{self.generics(inner['generics'])} = {self.ty(inner['type'])}")
        elif kind == "constant":
            self.emit(f"pub const {full}: {self.ty(inner['type'])}")
        elif kind == "static":
            mutable = "mut " if inner.get("is_mutable") else ""
            self.emit(f"pub static {mutable}{full}: {self.ty(inner['type'])}")
        elif kind in ("macro", "proc_macro"):
            self.emit(f"pub macro {full}!")
        elif kind == "trait_alias":
            self.emit(f"pub trait {full} = {self.bounds(inner.get('params', []))}")
        else:
            self.emit(f"pub {kind} {full}")

    def reexport(self, use, path, seen):
        target = self.item(use["id"]) if use.get("id") is not None else None
        if use.get("is_glob"):
            if target is not None and kind_of(target)[0] == "module":
                self.module(target["id"], path, seen)
            elif target is not None and kind_of(target)[0] == "enum":
                for variant_id in kind_of(target)[1]["variants"]:
                    variant = self.item(variant_id)
                    if variant is not None:
                        self.emit(f"pub use {'::'.join(path)}::{variant['name']}")
            else:
                self.emit(f"pub use {'::'.join(path)}::* (from {use['source']})")
            return
        if target is None:
            # From another crate: the path users name, and where it comes from.
            self.emit(f"pub use {'::'.join(path + [use['name']])} = {use['source']}")
            return
        self.named(target, path, seen, name=use["name"])

    def fields(self, struct_kind, owner):
        if isinstance(struct_kind, str):
            return
        if "plain" in struct_kind:
            for field_id in struct_kind["plain"]["fields"]:
                field = self.item(field_id)
                if field is not None and public(field):
                    self.emit(f"pub {owner}::{field['name']}: {self.ty(field['inner']['struct_field'])}")
        elif "tuple" in struct_kind:
            for position, field_id in enumerate(struct_kind["tuple"]):
                field = self.item(field_id) if field_id is not None else None
                if field is not None and public(field):
                    self.emit(f"pub {owner}::{position}: {self.ty(field['inner']['struct_field'])}")

    def variant(self, variant, owner):
        kind = variant["inner"]["variant"]["kind"]
        name = f"{owner}::{variant['name']}"
        if kind == "plain":
            self.emit(f"pub variant {name}")
        elif "tuple" in kind:
            types = [
                self.ty(self.item(f)["inner"]["struct_field"]) if f is not None else "_"
                for f in kind["tuple"]
            ]
            self.emit(f"pub variant {name}({', '.join(types)})")
        elif "struct" in kind:
            fields = []
            for field_id in kind["struct"]["fields"]:
                field = self.item(field_id)
                fields.append(f"{field['name']}: {self.ty(field['inner']['struct_field'])}")
            self.emit(f"pub variant {name} {{ {', '.join(fields)} }}")

    def impls(self, impl_ids, owner):
        for impl_id in impl_ids:
            item = self.item(impl_id)
            if item is None:
                continue
            impl = item["inner"]["impl"]
            if impl.get("is_synthetic") or impl.get("blanket_impl") is not None:
                continue
            generics = self.generics(impl["generics"])
            if impl.get("trait") is not None:
                if impl["trait"].get("path") in HIDDEN_TRAITS:
                    continue
                negative = "!" if impl.get("is_negative") else ""
                target = self.ty(impl["for"])
                if target.split("<")[0] == owner.rsplit("::", 1)[-1]:
                    target = owner + target[len(target.split("<")[0]):]
                self.emit(f"impl{generics} {negative}{self.path(impl['trait'])} for {target}")
                continue
            for member_id in impl["items"]:
                member = self.item(member_id)
                if member is not None and public(member):
                    self.member(member, owner, "impl")

    def member(self, member, owner, where):
        kind, inner = kind_of(member)
        name = member["name"]
        prefix = "" if where == "trait" else "pub "
        if kind == "function":
            signature = self.function(name, inner)
            self.emit(f"{prefix}{signature}".replace(f"fn {name}", f"fn {owner}::{name}", 1))
        elif kind == "assoc_const":
            self.emit(f"{prefix}const {owner}::{name}: {self.ty(inner['type'])}")
        elif kind == "assoc_type":
            bounds = self.bounds(inner.get("bounds", []))
            default = inner.get("type")
            text = f"type {owner}::{name}" + (f": {bounds}" if bounds else "")
            if default is not None:
                text += f" = {self.ty(default)}"
            self.emit(prefix + text)

    # ---- rendering ---------------------------------------------------------------------------

    def function(self, name, inner):
        header = inner.get("header", {})
        qualifiers = "".join(
            word
            for flag, word in (("is_const", "const "), ("is_async", "async "), ("is_unsafe", "unsafe "))
            if header.get(flag)
        )
        sig = inner["sig"]
        inputs = ", ".join(
            self.argument(arg_name, arg_type) for arg_name, arg_type in sig["inputs"]
        )
        output = f" -> {self.ty(sig['output'])}" if sig.get("output") is not None else ""
        generics = self.generics(inner["generics"])
        where = self.where_clause(inner["generics"])
        return f"{qualifiers}fn {name}{generics}({inputs}){output}{where}"

    def argument(self, name, ty):
        if name == "self":
            return self.receiver(ty)
        return f"{name}: {self.ty(ty)}"

    def receiver(self, ty):
        if ty == {"generic": "Self"}:
            return "self"
        if isinstance(ty, dict) and "borrowed_ref" in ty:
            ref = ty["borrowed_ref"]
            if ref["type"] == {"generic": "Self"}:
                return "&mut self" if ref["is_mutable"] else "&self"
        return f"self: {self.ty(ty)}"

    def generics(self, generics):
        params = []
        for param in generics.get("params", []):
            kind = param["kind"]
            if "lifetime" in kind:
                params.append(param["name"])
            elif "type" in kind:
                if kind["type"].get("is_synthetic"):
                    continue
                bounds = self.bounds(kind["type"].get("bounds", []))
                params.append(param["name"] + (f": {bounds}" if bounds else ""))
            elif "const" in kind:
                params.append(f"const {param['name']}: {self.ty(kind['const']['type'])}")
        return f"<{', '.join(params)}>" if params else ""

    def where_clause(self, generics):
        clauses = []
        for predicate in generics.get("where_predicates", []):
            if "bound_predicate" in predicate:
                bound = predicate["bound_predicate"]
                bounds = self.bounds(bound["bounds"])
                if bounds:
                    clauses.append(f"{self.ty(bound['type'])}: {bounds}")
            elif "lifetime_predicate" in predicate:
                lifetime = predicate["lifetime_predicate"]
                clauses.append(f"{lifetime['lifetime']}: {' + '.join(lifetime['outlives'])}")
            elif "eq_predicate" in predicate:
                eq = predicate["eq_predicate"]
                clauses.append(f"{self.ty(eq['lhs'])} = {self.term(eq['rhs'])}")
        return f" where {', '.join(clauses)}" if clauses else ""

    def bounds(self, bounds):
        out = []
        for bound in bounds:
            if "trait_bound" in bound:
                trait_bound = bound["trait_bound"]
                modifier = {"maybe": "?", "maybe_const": "~const "}.get(trait_bound.get("modifier"), "")
                out.append(modifier + self.path(trait_bound["trait"]))
            elif "outlives" in bound:
                out.append(bound["outlives"])
            elif "use" in bound:
                out.append(f"use<{', '.join(str(u) for u in bound['use'])}>")
        return " + ".join(out)

    def path(self, path):
        return path.get("path", path.get("name", "?")) + self.args(path.get("args"))

    def args(self, args):
        if not args:
            return ""
        if "angle_bracketed" in args:
            angle = args["angle_bracketed"]
            parts = []
            for arg in angle.get("args", []):
                if "type" in arg:
                    parts.append(self.ty(arg["type"]))
                elif "lifetime" in arg:
                    parts.append(arg["lifetime"])
                elif "const" in arg:
                    parts.append(str(arg["const"].get("expr", "_")))
                else:
                    parts.append("_")
            for constraint in angle.get("constraints", []):
                binding = constraint.get("binding", {})
                if "equality" in binding:
                    parts.append(f"{constraint['name']} = {self.term(binding['equality'])}")
                elif "constraint" in binding:
                    parts.append(f"{constraint['name']}: {self.bounds(binding['constraint'])}")
            return f"<{', '.join(parts)}>" if parts else ""
        if "parenthesized" in args:
            paren = args["parenthesized"]
            inputs = ", ".join(self.ty(t) for t in paren.get("inputs", []))
            output = f" -> {self.ty(paren['output'])}" if paren.get("output") is not None else ""
            return f"({inputs}){output}"
        return ""

    def term(self, term):
        if isinstance(term, dict) and "type" in term:
            return self.ty(term["type"])
        if isinstance(term, dict) and "constant" in term:
            return str(term["constant"].get("expr", "_"))
        return "_"

    def ty(self, ty):
        if ty is None:
            return "()"
        if isinstance(ty, str):
            return "_" if ty == "infer" else ty
        (kind, value), = ty.items()
        if kind == "resolved_path":
            return self.path(value)
        if kind == "generic":
            return value
        if kind == "primitive":
            return value
        if kind == "tuple":
            return f"({', '.join(self.ty(t) for t in value)})"
        if kind == "slice":
            return f"[{self.ty(value)}]"
        if kind == "array":
            return f"[{self.ty(value['type'])}; {value['len']}]"
        if kind == "borrowed_ref":
            lifetime = f"{value['lifetime']} " if value.get("lifetime") else ""
            mutable = "mut " if value["is_mutable"] else ""
            return f"&{lifetime}{mutable}{self.ty(value['type'])}"
        if kind == "raw_pointer":
            return f"*{'mut' if value['is_mutable'] else 'const'} {self.ty(value['type'])}"
        if kind == "dyn_trait":
            traits = [self.path(t["trait"]) for t in value["traits"]]
            if value.get("lifetime"):
                traits.append(value["lifetime"])
            return f"dyn {' + '.join(traits)}"
        if kind == "impl_trait":
            return f"impl {self.bounds(value)}"
        if kind == "qualified_path":
            trait = value.get("trait")
            self_type = self.ty(value["self_type"])
            if trait is None or not trait.get("path"):
                return f"{self_type}::{value['name']}"
            return f"<{self_type} as {self.path(trait)}>::{value['name']}"
        if kind == "function_pointer":
            sig = value["sig"]
            inputs = ", ".join(self.ty(t) for _, t in sig["inputs"])
            output = f" -> {self.ty(sig['output'])}" if sig.get("output") is not None else ""
            return f"fn({inputs}){output}"
        if kind == "pat":
            return self.ty(value["type"])
        return kind

    def emit(self, line):
        self.lines.add(line)


# Marker traits the compiler implements with a derive; they say nothing a user can rely on.
HIDDEN_TRAITS = {"StructuralPartialEq"}


def kind_of(item):
    inner = item["inner"]
    if isinstance(inner, str):
        return inner, {}
    (kind, value), = inner.items()
    return kind, value


def public(item):
    return item.get("visibility") == "public"


def non_exhaustive(item):
    for attr in item.get("attrs", []):
        if "non_exhaustive" in json.dumps(attr):
            return "#[non_exhaustive] "
    return ""


if __name__ == "__main__":
    main()
