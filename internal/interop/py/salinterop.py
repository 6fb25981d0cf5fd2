#!/usr/bin/env python3
"""Python side of the salgo interop tests: a stand-in for ts_salobj 8 built
on confluent-kafka's registry-aware Avro serializer and deserializer.

It does on the wire what ts_salobj's SalInfo does (docs: shared/docs/
salobj-wire.md, sections 2-6): schema dicts built from ts_xml by Python
(scripts/refschema.py) and registered as json.dumps(schema_dict); topics
lsst.<subname>.<Component>.<sal_name>, subjects <topic>-value; values
framed 0x00 + 4-byte big-endian schema id + Avro; keys
'{ "name": "C", "index": N, "topic": "sal_name" }' (empty for telemetry);
private fields stamped as WriteTopic does.

Subcommands (each takes --spec FILE, a JSON document written by the Go
test; NaN and Infinity may appear as bare tokens, as Python's json allows):

  read      read what Go wrote and check every value, key and the framing (a)
  command   send commands as a Remote and check the acks of a Go CSC (b)
  register  register every schema as ts_salobj does and compare with what
            the Go SDK registered: same id, byte-identical text (c)
  write     write events and telemetry as a Controller would, for a Go
            Remote to read (d)
  testcsc   start a Go CSC program (examples/testcsc) as an operator would,
            with --state and --override, read its configurationApplied
            and summaryState as a Remote does, then stop it with SIGTERM (e)

Exit status: 0 when every check passed (a JSON summary is the last line of
stdout), 1 when a check failed (each failure on stderr as "FAIL: ..."),
2 on a usage or environment error.

Environment: LSST_KAFKA_BROKER_ADDR, LSST_SCHEMA_REGISTRY_URL,
LSST_KAFKA_REPLICATION_FACTOR, LSST_KAFKA_PRODUCER_WAIT_ACKS and
LSST_KAFKA_SECURITY_* as ts_salobj reads them.
"""
import argparse
import contextlib
import faulthandler
import getpass
import importlib.util
import io
import json
import math
import os
import random
import socket
import struct
import sys
import time
from pathlib import Path

from confluent_kafka import OFFSET_BEGINNING, Consumer, KafkaError, KafkaException, Producer, TopicPartition
from confluent_kafka.admin import AdminClient, NewTopic
from confluent_kafka.schema_registry import Schema, SchemaRegistryClient, topic_subject_name_strategy
from confluent_kafka.schema_registry.avro import AvroDeserializer, AvroSerializer
from confluent_kafka.serialization import MessageField, SerializationContext

sys.dont_write_bytecode = True  # loading scripts/refschema.py leaves no __pycache__ in the tree
ROOT = Path(__file__).resolve().parents[3]
REFSCHEMA = ROOT / "scripts" / "refschema.py"
TAI_MINUS_UTC = 37.0
MAX_SEQ_NUM = 2**31 - 1
# SalRetCode values that end a command (ts_salobj CommandInfo).
FINAL_ACKS = {-303, 303, -302, -301, -300, 302, -304}
CMD_INPROGRESS = 301
CMD_ACK = 300
READ_TIMEOUT = 60.0

FAILURES = []


def fail(msg):
    FAILURES.append(msg)


class Topic:
    """One topic of one component, as ts_xml's TopicInfo describes it."""

    def __init__(self, component, sal_name, text, revcode):
        self.component = component
        self.sal_name = sal_name
        self.text = text  # json.dumps(schema_dict): what ts_salobj registers
        self.revcode = revcode
        self.schema = json.loads(text)
        self.fields = self.schema["fields"]
        self.types = {f["name"]: f["type"] for f in self.fields}
        self.indexed = self.fields[0]["name"] == "salIndex"
        if sal_name.startswith("command_"):
            self.kind = "command"
        elif sal_name.startswith("logevent_"):
            self.kind = "event"
        elif sal_name == "ackcmd":
            self.kind = "ack"
        else:
            self.kind = "telemetry"

    def kafka(self, subname):
        return f"lsst.{subname}.{self.component}.{self.sal_name}"

    def subject(self, subname):
        return self.kafka(subname) + "-value"

    def key(self, index):
        """The key ts_salobj writes (sal_info.py _blocking_create_serializers)."""
        if self.kind == "telemetry":
            return ""
        if self.indexed:
            return f'{{ "name": "{self.component}", "index": {index}, "topic": "{self.sal_name}" }}'
        return f'{{ "name": "{self.component}", "topic": "{self.sal_name}" }}'

    def defaults(self):
        return {f["name"]: (list(f["default"]) if isinstance(f["default"], list) else f["default"]) for f in self.fields}


def load_topics(sal_dir, component):
    """Every topic of the component, with the schema text Python makes for
    it: scripts/refschema.py rebuilds the schema dicts from the XML with
    ElementTree following ts_xml's rules and renders them with json.dumps."""
    spec = importlib.util.spec_from_file_location("refschema", REFSCHEMA)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    buf = io.StringIO()
    argv = sys.argv
    sys.argv = [str(REFSCHEMA), sal_dir]
    try:
        with contextlib.redirect_stdout(buf):
            mod.main()
    finally:
        sys.argv = argv
    topics = {}
    for line in buf.getvalue().splitlines():
        d = json.loads(line)
        if d["component"] == component:
            topics[d["sal_name"]] = Topic(component, d["sal_name"], d["schema"], d["revcode"])
    if not topics:
        raise SystemExit(f"salinterop: no component {component} in {sal_dir}")
    return topics


def client_conf():
    """The broker client configuration of ts_salobj's SalInfo."""
    addr = os.environ.get("LSST_KAFKA_BROKER_ADDR")
    if not addr:
        raise SystemExit("salinterop: LSST_KAFKA_BROKER_ADDR is unset")
    conf = {"bootstrap.servers": addr}
    user = os.environ.get("LSST_KAFKA_SECURITY_USERNAME")
    password = os.environ.get("LSST_KAFKA_SECURITY_PASSWORD")
    if user and password:
        conf.update({
            "sasl.username": user,
            "sasl.password": password,
            "security.protocol": os.environ.get("LSST_KAFKA_SECURITY_PROTOCOL", "SASL_PLAINTEXT"),
            "sasl.mechanism": os.environ.get("LSST_KAFKA_SECURITY_MECHANISM", "SCRAM-SHA-512"),
        })
    return conf


def registry():
    url = os.environ.get("LSST_SCHEMA_REGISTRY_URL")
    if not url:
        raise SystemExit("salinterop: LSST_SCHEMA_REGISTRY_URL is unset")
    # ts_salobj passes only the url; the timeout keeps a stuck request from
    # hanging the test (the client's default is no timeout at all).
    return SchemaRegistryClient({"url": url, "timeout": 30})


# ts_salobj's serializers take the library's default subject name strategy,
# which was topic_subject_name_strategy ({topic}-value) when salobj 8 was
# written. In confluent-kafka 2.16 the default is the "associated" strategy:
# it first asks the registry GET /associations/resources/-/{topic} (which
# Apicurio and srfake answer 404, and one run here hung on), then falls back
# to the topic strategy. Name the strategy salobj relies on explicitly.
SERDE_CONF = {"subject.name.strategy": topic_subject_name_strategy}


def serializer(client, t):
    return AvroSerializer(client, schema_str=t.text, conf={**SERDE_CONF, "auto.register.schemas": False})


def deserializer(client, t):
    return AvroDeserializer(client, schema_str=t.text, conf=dict(SERDE_CONF))


def make_consumer():
    rand = "".join(random.choice("abcdefghijklmnopqrstuvwxyz0123456789") for _ in range(16))
    return Consumer({
        **client_conf(),
        "group.id": f"salinterop-{os.getpid()}-{rand}",
        "auto.offset.reset": "earliest",
        "allow.auto.create.topics": False,
        "enable.auto.commit": False,
    })


def make_producer():
    return Producer({
        **client_conf(),
        "acks": os.environ.get("LSST_KAFKA_PRODUCER_WAIT_ACKS", "1"),
        "queue.buffering.max.ms": 0,
    })


def create_topics(topics, subname):
    """Create missing topics as SalInfo._blocking_create_topics does: one
    partition, events compacted, TOPIC_ALREADY_EXISTS ignored."""
    admin = AdminClient(client_conf())
    repl = int(os.environ.get("LSST_KAFKA_REPLICATION_FACTOR", "1"))
    names = {t.kafka(subname): t for t in topics}
    deadline = time.monotonic() + 60
    while True:
        existing = set(admin.list_topics(timeout=10).topics)
        missing = [n for n in names if n not in existing]
        if not missing:
            return
        if time.monotonic() > deadline:
            raise SystemExit(f"salinterop: topics still missing after 60 s: {missing}")
        new = [
            NewTopic(n, num_partitions=1, replication_factor=repl,
                     config={"cleanup.policy": "compact"} if names[n].kind == "event" else {})
            for n in missing
        ]
        for name, fut in admin.create_topics(new).items():
            try:
                fut.result()
            except KafkaException as e:
                if e.args[0].code() != KafkaError.TOPIC_ALREADY_EXISTS:
                    raise
        time.sleep(0.2)


def tai_now():
    return time.time() + TAI_MINUS_UTC


def user_host():
    return f"{getpass.getuser()}@{socket.getfqdn()}"


def f32(x):
    return struct.unpack("<f", struct.pack("<f", x))[0]


def same(avro_type, got, want):
    """got (decoded by fastavro) equals want (from the Go test's JSON)."""
    if isinstance(avro_type, dict):
        if avro_type.get("type") != "array" or not isinstance(got, list) or len(got) != len(want):
            return False
        return all(same(avro_type["items"], g, w) for g, w in zip(got, want))
    if avro_type in ("float", "double"):
        if not isinstance(got, float):
            return False
        if avro_type == "float":
            want = f32(want)
        if math.isnan(want):
            return math.isnan(got)
        return got == want
    if avro_type == "boolean":
        return got is want
    if avro_type in ("int", "long"):
        return type(got) is int and got == want
    if avro_type == "string":
        return isinstance(got, str) and got == want
    return got == want


def check_frame(where, value, want_id):
    if value is None or len(value) < 6:
        fail(f"{where}: value of {0 if value is None else len(value)} bytes: not Confluent-framed Avro")
        return None
    if value[0] != 0:
        fail(f"{where}: magic byte {value[0]:#x}, want 0x00")
    sid = int.from_bytes(value[1:5], "big")
    if want_id is not None and sid != want_id:
        fail(f"{where}: framed schema id {sid}, but registering Python's schema text gave id {want_id}")
    return sid


def check_key(where, got, want):
    if want == "":
        if got not in (None, b""):
            fail(f"{where}: telemetry key {got!r}, want empty or null")
    elif got != want.encode():
        fail(f"{where}: key {got!r}, want {want.encode()!r}")


def check_private(where, t, d, *, index, seq, identity, origin):
    names = [f["name"] for f in t.fields]
    if list(d.keys()) != names:
        fail(f"{where}: decoded fields {list(d.keys())}, want {names}")
        return
    if t.indexed and d["salIndex"] != index:
        fail(f"{where}: salIndex {d['salIndex']}, want {index}")
    if seq is not None and d["private_seqNum"] != seq:
        fail(f"{where}: private_seqNum {d['private_seqNum']}, want {seq}")
    if d["private_seqNum"] <= 0:
        fail(f"{where}: private_seqNum {d['private_seqNum']} <= 0")
    if d["private_identity"] != identity:
        fail(f"{where}: private_identity {d['private_identity']!r}, want {identity!r}")
    if d["private_origin"] != origin:
        fail(f"{where}: private_origin {d['private_origin']}, want {origin}")
    if d["private_revCode"] != t.revcode:
        fail(f"{where}: private_revCode {d['private_revCode']!r}, want {t.revcode!r} (md5 of json.dumps(schema, indent=4))")
    if d["private_rcvStamp"] != 0.0:
        fail(f"{where}: private_rcvStamp {d['private_rcvStamp']}, want 0 from a writer")
    snd, efd, kst = d["private_sndStamp"], d["private_efdStamp"], d["private_kafkaStamp"]
    if kst != snd:
        fail(f"{where}: private_kafkaStamp {kst!r} != private_sndStamp {snd!r}")
    if abs((snd - efd) - TAI_MINUS_UTC) > 1e-6:
        fail(f"{where}: private_sndStamp - private_efdStamp = {snd - efd!r}, want {TAI_MINUS_UTC} (TAI - UTC)")
    if abs(snd - tai_now()) > 600:
        fail(f"{where}: private_sndStamp {snd!r} is not TAI now ({tai_now()!r})")


def poll_messages(consumer, what, done):
    """Yield the messages consumer reads until done() or READ_TIMEOUT; an
    error other than a partition's end is a failure of what."""
    deadline = time.monotonic() + READ_TIMEOUT
    while not done() and time.monotonic() < deadline:
        msg = consumer.poll(0.5)
        if msg is None:
            continue
        if msg.error():
            if msg.error().code() != KafkaError._PARTITION_EOF:
                fail(f"{what}: {msg.error()}")
            continue
        yield msg


def poll_topics(consumer, want):
    """Poll until want[topic] messages were read from each topic, or READ_TIMEOUT."""
    got = {t: [] for t in want}
    for msg in poll_messages(consumer, "consume", lambda: not any(len(got[t]) < n for t, n in want.items())):
        if msg.topic() in got:
            got[msg.topic()].append(msg)
    return got


# (a) ------------------------------------------------------------------------


def cmd_read(spec):
    sub, comp = spec["subname"], spec["component"]
    topics = load_topics(spec["sal_dir"], comp)
    client = registry()
    by_topic = {}
    for rec in spec["records"]:
        by_topic.setdefault(rec["sal_name"], []).append(rec)
    # A ts_salobj Remote registers the schemas of what it reads at start.
    ids = {}
    for sal in by_topic:
        t = topics[sal]
        ids[sal] = client.register_schema(t.subject(sub), Schema(t.text, "AVRO"))
    consumer = make_consumer()
    consumer.assign([TopicPartition(topics[s].kafka(sub), 0, OFFSET_BEGINNING) for s in by_topic])
    got = poll_topics(consumer, {topics[s].kafka(sub): len(r) for s, r in by_topic.items()})
    consumer.close()
    n = 0
    for sal, exp in by_topic.items():
        t = topics[sal]
        msgs = got[t.kafka(sub)]
        if len(msgs) != len(exp):
            fail(f"{sal}: read {len(msgs)} records in {READ_TIMEOUT:.0f} s, want {len(exp)}")
        deser = deserializer(client, t)
        for i, (msg, want) in enumerate(zip(msgs, exp)):
            where = f"{comp}.{sal}[{i}]"
            check_key(where, msg.key(), t.key(spec["index"]))
            check_frame(where, msg.value(), ids[sal])
            try:
                d = deser(msg.value(), SerializationContext(msg.topic(), MessageField.VALUE))
            except Exception as e:  # noqa: BLE001 - report any deserializer failure
                fail(f"{where}: AvroDeserializer: {type(e).__name__}: {e}")
                continue
            check_private(where, t, d, index=spec["index"], seq=want["seq"],
                          identity=spec["identity"], origin=spec["origin"])
            for name, value in want["values"].items():
                if name not in d:
                    fail(f"{where}: field {name} missing")
                elif not same(t.types[name], d[name], value):
                    fail(f"{where}: {name} = {d[name]!r}, want {value!r} ({t.types[name]})")
            n += 1
    return {"records": n, "topics": len(by_topic), "schema_ids": ids}


# (b) ------------------------------------------------------------------------


def cmd_command(spec):
    sub, comp, index = spec["subname"], spec["component"], spec["index"]
    topics = load_topics(spec["sal_dir"], comp)
    cmd_names = sorted(s[len("command_"):] for s in topics if s.startswith("command_"))
    sal_topic_names = sorted(topics)
    identity, origin = user_host(), os.getpid()
    ack = topics["ackcmd"]
    used = [t for s, t in topics.items() if t.kind == "command"] + [ack]
    create_topics(used, sub)
    client = registry()
    # SalInfo.start registers the schema of every topic it reads or writes.
    ids = {t.sal_name: client.register_schema(t.subject(sub), Schema(t.text, "AVRO")) for t in used}

    consumer = make_consumer()
    tp = TopicPartition(ack.kafka(sub), 0)
    _, high = consumer.get_watermark_offsets(tp, timeout=10, cached=False)
    # A reader without history starts at the high watermark.
    consumer.assign([TopicPartition(ack.kafka(sub), 0, high if high > 0 else OFFSET_BEGINNING)])
    producer = make_producer()
    ack_deser = deserializer(client, ack)
    results = []
    inc = MAX_SEQ_NUM // len(cmd_names)
    for step in spec["steps"]:
        name = step["command"]
        t = topics["command_" + name]
        i = cmd_names.index(name)
        seq = random.randint(i * inc + 1, i * inc + inc)
        ser = serializer(client, t)
        data = t.defaults()
        data.update(step.get("params", {}))
        tai = tai_now()
        if t.indexed:
            data["salIndex"] = index
        data.update(private_sndStamp=tai, private_rcvStamp=0.0, private_efdStamp=tai - TAI_MINUS_UTC,
                    private_kafkaStamp=tai, private_seqNum=seq, private_revCode=t.revcode,
                    private_identity=identity, private_origin=origin)
        value = ser(data, SerializationContext(t.kafka(sub), MessageField.VALUE))
        check_frame(f"command {name} (Python's own framing)", value, ids[t.sal_name])
        producer.produce(t.kafka(sub), key=t.key(index).encode(), value=value)
        if producer.flush(30) != 0:
            fail(f"command {name}: not delivered in 30 s")
            continue
        acks, final = [], None
        for msg in poll_messages(consumer, "consume ackcmd", lambda: final is not None):
            where = f"ackcmd of {name}"
            try:
                d = ack_deser(msg.value(), SerializationContext(msg.topic(), MessageField.VALUE))
            except Exception as e:  # noqa: BLE001
                fail(f"{where}: AvroDeserializer: {type(e).__name__}: {e}")
                continue
            # AckCmdReader keeps only acks of this identity and origin, then
            # SalInfo matches private_seqNum.
            if d["identity"] != identity or d["origin"] != origin or d["private_seqNum"] != seq:
                continue
            check_key(where, msg.key(), ack.key(index))
            check_frame(where, msg.value(), ids["ackcmd"])
            check_private(where, ack, d, index=index, seq=seq,
                          identity=spec["csc_identity"], origin=spec["csc_origin"])
            want_cmdtype = sal_topic_names.index(t.sal_name)
            if d["cmdtype"] != want_cmdtype:
                fail(f"{where}: cmdtype {d['cmdtype']}, want {want_cmdtype} (index of {t.sal_name} in the sorted SAL topic names)")
            acks.append(d["ack"])
            if d["ack"] in FINAL_ACKS:
                final = d
            elif d["ack"] not in (CMD_INPROGRESS, CMD_ACK):
                fail(f"{where}: intermediate ack {d['ack']}")
        if final is None:
            fail(f"command {name} (seqNum {seq}): no final ack in {READ_TIMEOUT:.0f} s; acks seen: {acks}")
            continue
        for field in ("ack", "error", "result"):
            if final[field] != step[field]:
                fail(f"command {name}: final ack {field} = {final[field]!r}, want {step[field]!r}")
        results.append({"command": name, "seq": seq, "acks": acks, "result": final["result"]})
    consumer.close()
    return {"identity": identity, "origin": origin, "results": results}


# (c) ------------------------------------------------------------------------


def first_diff(a, b):
    for i, (x, y) in enumerate(zip(a, b)):
        if x != y:
            return i
    return min(len(a), len(b))


def cmd_register(spec):
    sub, comp = spec["subname"], spec["component"]
    topics = load_topics(spec["sal_dir"], comp)
    go = spec["go"]  # subject -> {"schema": text Go posted, "id": id the registry answered}
    client = registry()
    ids = {}
    for sal, t in sorted(topics.items()):
        subj = t.subject(sub)
        g = go.get(subj)
        if g is None:
            fail(f"{subj}: the Go SDK registered no schema for this subject")
            continue
        if g["schema"] != t.text:
            i = first_diff(g["schema"], t.text)
            fail(f"{subj}: the schema text Go registered differs from Python's json.dumps at byte {i}: "
                 f"Go ...{g['schema'][max(0, i - 40):i + 40]!r}... Python ...{t.text[max(0, i - 40):i + 40]!r}...")
        sid = client.register_schema(subj, Schema(t.text, "AVRO"))
        ids[sal] = sid
        if sid != g["id"]:
            fail(f"{subj}: ts_salobj-style registration got id {sid}, the Go SDK's got {g['id']}")
        versions = client.get_versions(subj)
        if len(versions) != 1:
            fail(f"{subj}: {len(versions)} versions {versions} after Python registered: want the Go SDK's one")
        # What a ts_salobj writer does next (auto.register.schemas False).
        looked = client.lookup_schema(subj, Schema(t.text, "AVRO"))
        if looked.schema_id != g["id"]:
            fail(f"{subj}: lookup_schema gave id {looked.schema_id}, want {g['id']}")
    mine = {t.subject(sub) for t in topics.values()}
    for subj in sorted(set(go) - mine):
        fail(f"{subj}: registered by the Go SDK, but not a topic of {comp} for Python")
    return {"subjects": len(ids), "schema_ids": ids}


# (d) ------------------------------------------------------------------------


def cmd_write(spec):
    sub, comp = spec["subname"], spec["component"]
    topics = load_topics(spec["sal_dir"], comp)
    used = {r["sal_name"]: topics[r["sal_name"]] for r in spec["records"]}
    create_topics(used.values(), sub)
    client = registry()
    ids = {s: client.register_schema(t.subject(sub), Schema(t.text, "AVRO")) for s, t in used.items()}
    sers = {s: serializer(client, t) for s, t in used.items()}
    producer = make_producer()
    origin = os.getpid()
    errors = []

    def delivered(err, msg):
        if err is not None:
            errors.append(f"{msg.topic()}: {err}")

    seqs, out = {}, []
    for r in spec["records"]:
        t, index = used[r["sal_name"]], r["index"]
        identity = r.get("identity") or (f"{comp}:{index}" if index else comp)
        seq = seqs.get((t.sal_name, index), 0) + 1
        seqs[(t.sal_name, index)] = seq
        data = t.defaults()
        data.update(r["values"])
        tai = tai_now()
        if t.indexed:
            data["salIndex"] = index
        data.update(private_sndStamp=tai, private_rcvStamp=0.0, private_efdStamp=tai - TAI_MINUS_UTC,
                    private_kafkaStamp=tai, private_seqNum=seq, private_revCode=t.revcode,
                    private_identity=identity, private_origin=origin)
        value = sers[t.sal_name](data, SerializationContext(t.kafka(sub), MessageField.VALUE))
        check_frame(f"{t.sal_name} (Python's own framing)", value, ids[t.sal_name])
        producer.produce(t.kafka(sub), key=t.key(index).encode(), value=value, on_delivery=delivered)
        producer.poll(0)
        out.append({"sal_name": t.sal_name, "index": index, "seq": seq, "identity": identity})
    left = producer.flush(30)
    if left:
        fail(f"{left} records not delivered in 30 s")
    for e in errors:
        fail(f"delivery: {e}")
    return {"origin": origin, "records": out, "schema_ids": ids}


# (e) ------------------------------------------------------------------------


def cmd_testcsc(spec):
    import signal
    import subprocess
    sub, comp, index = spec["subname"], spec["component"], spec["index"]
    topics = load_topics(spec["sal_dir"], comp)
    client = registry()
    env = dict(os.environ, **spec["env"])
    argv = [spec["program"], str(index), "--state", spec["state"], "--override", spec["override"]]
    proc = subprocess.Popen(argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    want = {"logevent_configurationApplied": 1, "logevent_summaryState": len(spec["states"])}
    consumer = make_consumer()
    out = {}
    try:
        deadline = time.monotonic() + READ_TIMEOUT
        # The topics appear once the CSC has started.
        while time.monotonic() < deadline:
            md = consumer.list_topics(timeout=5)
            if all(topics[s].kafka(sub) in md.topics for s in want):
                break
            time.sleep(0.2)
        consumer.assign([TopicPartition(topics[s].kafka(sub), 0, OFFSET_BEGINNING) for s in want])
        got = poll_topics(consumer, {topics[s].kafka(sub): n for s, n in want.items()})
        for sal, n in want.items():
            t = topics[sal]
            msgs = got[t.kafka(sub)]
            if len(msgs) < n:
                fail(f"{sal}: read {len(msgs)} records in {READ_TIMEOUT:.0f} s, want {n}")
                continue
            deser = deserializer(client, t)
            values = [deser(m.value(), SerializationContext(m.topic(), MessageField.VALUE)) for m in msgs]
            if sal == "logevent_configurationApplied":
                out["configurations"] = values[0]["configurations"]
                out["schemaVersion"] = values[0]["schemaVersion"]
            else:
                out["states"] = [v["summaryState"] for v in values]
    finally:
        consumer.close()
        proc.send_signal(signal.SIGTERM)
        try:
            stdout, stderr = proc.communicate(timeout=60)
        except subprocess.TimeoutExpired:
            proc.kill()
            stdout, stderr = proc.communicate()
            fail("the program did not exit within 60 s of SIGTERM")
    out["exit"] = proc.returncode
    out["stdout"] = stdout
    if proc.returncode != 0:
        fail(f"exit status {proc.returncode} after SIGTERM; stderr:\n{stderr}")
    return out


# (f) ------------------------------------------------------------------------
# The Large File Annex: what a Python consumer of largeFileObjectAvailable
# does with boto3 (as salobj's AsyncS3Bucket uses it), and what a Python CSC
# does to save a file. The store is S3_ENDPOINT_URL with the AWS_* test
# credentials.


def s3_client():
    import boto3
    endpoint = os.environ.get("S3_ENDPOINT_URL")
    if not endpoint:
        raise SystemExit("salinterop: S3_ENDPOINT_URL is unset")
    return boto3.client("s3", endpoint_url=endpoint), endpoint


def cmd_lfaread(spec):
    """Read the newest largeFileObjectAvailable of the component, download
    the object its url names with boto3, and return its MD5 and size."""
    import hashlib
    sub, comp = spec["subname"], spec["component"]
    topics = load_topics(spec["sal_dir"], comp)
    t = topics["logevent_largeFileObjectAvailable"]
    client = registry()
    consumer = make_consumer()
    consumer.assign([TopicPartition(t.kafka(sub), 0, OFFSET_BEGINNING)])
    msgs = poll_topics(consumer, {t.kafka(sub): spec["events"]})[t.kafka(sub)]
    consumer.close()
    if len(msgs) < spec["events"]:
        fail(f"read {len(msgs)} largeFileObjectAvailable in {READ_TIMEOUT:.0f} s, want {spec['events']}")
        return {}
    d = deserializer(client, t)(msgs[-1].value(), SerializationContext(msgs[-1].topic(), MessageField.VALUE))
    s3, endpoint = s3_client()
    prefix = endpoint.rstrip("/") + "/"
    url = d["url"]
    if not url.startswith(prefix):
        fail(f"url {url!r} is not on the store {endpoint}")
        return {}
    bucket, _, key = url[len(prefix):].partition("/")
    out = io.BytesIO()
    s3.download_fileobj(Bucket=bucket, Key=key, Fileobj=out)
    body = out.getvalue()
    md5 = hashlib.md5(body).hexdigest()
    if md5 != d["checkSum"]:
        fail(f"{key}: downloaded MD5 {md5}, announced {d['checkSum']}")
    if len(body) != d["byteSize"]:
        fail(f"{key}: downloaded {len(body)} bytes, announced {d['byteSize']}")
    return {"url": url, "bucket": bucket, "key": key, "md5": md5, "size": len(body),
            "generator": d["generator"], "mimeType": d["mimeType"]}


def cmd_lfawrite(spec):
    """Upload bytes with boto3 under the key given (salobj's make_key), as
    AsyncS3Bucket.upload does, then write largeFileObjectAvailable as a
    Python CSC would."""
    import hashlib
    s3, endpoint = s3_client()
    body = bytes(range(256)) * (spec["size"] // 256) + b"x" * (spec["size"] % 256)
    bucket, key = spec["bucket"], spec["key"]
    try:
        s3.create_bucket(Bucket=bucket)
    except s3.exceptions.BucketAlreadyOwnedByYou:
        pass
    except s3.exceptions.BucketAlreadyExists:
        pass
    s3.upload_fileobj(Fileobj=io.BytesIO(body), Bucket=bucket, Key=key,
                      ExtraArgs={"ContentType": spec["mimeType"]})
    url = f"{endpoint.rstrip('/')}/{bucket}/{key}"
    values = {"url": url, "generator": spec["generator"], "byteSize": len(body),
              "checkSum": hashlib.md5(body).hexdigest(), "mimeType": spec["mimeType"], "version": 1.0, "id": ""}
    out = cmd_write({"subname": spec["subname"], "component": spec["component"], "sal_dir": spec["sal_dir"],
                     "records": [{"sal_name": "logevent_largeFileObjectAvailable", "index": spec["index"], "values": values}]})
    out.update(values)
    return out


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("command", choices=["read", "command", "register", "write", "testcsc", "lfaread", "lfawrite"])
    p.add_argument("--spec", required=True, help="JSON file written by the Go test")
    a = p.parse_args()
    # A hang shows where it is: every thread's stack on stderr, then exit
    # (before the Go test's own deadline kills the process silently).
    faulthandler.dump_traceback_later(120, exit=True)
    with open(a.spec, encoding="utf-8") as f:
        spec = json.load(f)
    fn = {"read": cmd_read, "command": cmd_command, "register": cmd_register, "write": cmd_write,
          "testcsc": cmd_testcsc, "lfaread": cmd_lfaread, "lfawrite": cmd_lfawrite}[a.command]
    t0 = time.monotonic()
    summary = fn(spec)
    summary["seconds"] = round(time.monotonic() - t0, 2)
    for msg in FAILURES:
        print(f"FAIL: {msg}", file=sys.stderr)
    summary["ok"] = not FAILURES
    summary["failures"] = len(FAILURES)
    print(json.dumps(summary))
    sys.exit(1 if FAILURES else 0)


if __name__ == "__main__":
    main()
