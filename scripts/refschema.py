#!/usr/bin/env python3
"""Independent cross-check of the Go schema text: rebuild every topic's Avro
schema dict from ts_xml with Python's ElementTree, following the rules the
reference (ts_xml ComponentInfo/TopicInfo/FieldInfo) documents, render it
with Python's own json.dumps, and print one JSON line per topic:
{"component", "sal_name", "schema", "revcode"}.

Usage: refschema.py SAL_INTERFACES_DIR [INTERFACES_DIR]
"""
import hashlib
import json
import os
import sys
from xml.etree import ElementTree

AVRO = {"boolean": "boolean", "byte": "int", "short": "int", "int": "int",
        "long": "int", "long long": "long", "unsigned short": "int",
        "unsigned int": "long", "float": "float", "double": "double",
        "string": "string"}
PYDEF = {"boolean": False, "float": 0.0, "double": 0.0, "string": ""}

PRIVATE = [
    ("salIndex", "long", "unitless", "SAL index (only present for indexed SAL components)"),
    ("private_sndStamp", "double", "second", "Time of instance publication"),
    ("private_rcvStamp", "double", "second", "Time of instance reception"),
    ("private_efdStamp", "double", "second", "UTC time for EFD timestamp. An integer (the number of leap seconds) different from private_sndStamp."),
    ("private_kafkaStamp", "double", "second", "TAI time at which the Kafka message was created."),
    ("private_seqNum", "long", "unitless", "Sequence number"),
    ("private_revCode", "string", "unitless", "Revision hashcode"),
    ("private_identity", "string", "unitless", "Identity of publisher: SAL component name for a CSC or user@host for a user"),
    ("private_origin", "long", "unitless", "Process ID of publisher"),
]
ACK = [
    ("ack", "long", "unitless", "Acknowledgement code"),
    ("error", "long", "unitless", "An error code; only relevant if ack=FAILED"),
    ("result", "string", "unitless", "Message"),
    ("identity", "string", "unitless", "private_identity field of the command being acknowledged"),
    ("origin", "long", "unitless", "private_origin field of the command being acknowledged"),
    ("cmdtype", "long", "unitless", "Index of command in alphabetical list of commands, with 0 being the first"),
    ("timeout", "double", "second", "Estimated remaining duration of command; only relevant if ack=INPROGRESS"),
]


def text(elt, name, default):
    sub = elt.find(name)
    if sub is None or sub.text is None:
        return default
    return sub.text


def field(name, sal_type, count, units, description):
    if sal_type == "string":
        count = 1
    d = PYDEF.get(sal_type, 0)
    if count > 1:
        return dict(name=name, type={"type": "array", "items": AVRO[sal_type]},
                    default=[d] * count, description=description, units=units)
    return dict(name=name, type=AVRO[sal_type], default=d, description=description, units=units)


def private(indexed):
    return [field(n, t, 1, u, d) for (n, t, u, d) in PRIVATE if indexed or n != "salIndex"]


def main():
    sal = sys.argv[1]
    avdir = sys.argv[2] if len(sys.argv) > 2 else os.path.join(os.path.dirname(os.path.abspath(sal)), "interfaces")
    gen = ElementTree.parse(os.path.join(sal, "SALGenerics.xml")).getroot()
    by_name, cats = {}, {}
    for g in gen.findall("*/"):
        if g.tag == "Enumeration":
            continue
        n = text(g, "EFDB_Topic", "")[len("SALGeneric_"):]
        by_name[n] = g
        c = g.find("Category")
        if c is not None and c.text is not None:
            cats.setdefault(c.text, []).append(g)
    subs = ElementTree.parse(os.path.join(sal, "SALSubsystems.xml")).getroot()
    out = sys.stdout
    for s in subs:
        name = text(s, "Name", "")
        indexed = text(s, "IndexEnumeration", "").strip() != "no"
        added = ["mandatory"] + [x.strip() for x in text(s, "AddedGenerics", "").split(",")]
        elts = {}
        for a in added:
            for e in ([by_name[a]] if "_" in a else cats[a]):
                elts[text(e, "EFDB_Topic", "").split("_", 1)[1]] = e
        for kind, suffix in (("Command", "Commands"), ("Event", "Events"), ("Telemetry", "Telemetry")):
            p = os.path.join(sal, name, f"{name}_{suffix}.xml")
            if os.path.isfile(p):
                for e in ElementTree.parse(p).getroot().findall(f"SAL{kind}"):
                    elts[text(e, "EFDB_Topic", "").split("_", 1)[1]] = e
        topics = {}
        for sal_name, e in elts.items():
            fields = private(indexed)
            for it in e.findall("item"):
                fields.append(field(text(it, "EFDB_Name", ""), text(it, "IDL_Type", ""),
                                    int(text(it, "Count", "1")), text(it, "Units", "unitless"),
                                    text(it, "Description", "")))
            topics[sal_name] = dict(type="record", name=sal_name, namespace=f"lsst.sal.{name}",
                                    fields=fields, description=text(e, "Description", ""))
        topics["ackcmd"] = dict(type="record", name="ackcmd", namespace=f"lsst.sal.{name}",
                                fields=private(indexed) + [field(*a[:2], 1, *a[2:]) for a in ACK],
                                description="Command acknowledgement")
        cdir = os.path.join(avdir, name)
        if os.path.isdir(cdir):
            for fn in sorted(os.listdir(cdir)):
                if fn.endswith(".avsc"):
                    with open(os.path.join(cdir, fn), encoding="utf-8") as f:
                        doc = json.load(f)
                    doc["fields"] = doc["fields"] + private(indexed)
                    topics[fn[:-5]] = doc
        for sal_name, schema in topics.items():
            rev = hashlib.md5(json.dumps(schema, indent=4).encode("utf-8")).hexdigest()[:8]
            out.write(json.dumps({"component": name, "sal_name": sal_name,
                                  "schema": json.dumps(schema), "revcode": rev}) + "\n")


if __name__ == "__main__":
    main()
