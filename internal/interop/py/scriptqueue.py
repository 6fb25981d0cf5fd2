#!/usr/bin/env python3
"""Python side of the salgo SAL script interop test: the ScriptQueue's half
of its conversation with a script (ts_scriptqueue's ScriptInfo and
QueueModel, in our words; shared/docs/salobj-csc.md section 7.9), played
against a Go script on a real broker, with salinterop.py's ts_salobj
stand-in for the wire (confluent-kafka and its registry-aware Avro serde).

  python3 scriptqueue.py --spec FILE

The spec (JSON, written by the Go test) names the script file, the SAL
index, and one case: the configure command's fields, what to do when the
script runs (resume at a pause, stop or SIGTERM at a checkpoint), and what
must be seen: the configure ack, the state events (state, lastCheckpoint,
numCheckpoints, reason), description, metadata, checkpoints, logLevel, the
final log line, the exit code, and with "schema" the --schema output.

As the ScriptQueue does it:
  - showSchema runs `<script> 0 --schema` with stdout captured (20 s) and
    publishes stdout as it is; here it must be PyYAML's safe_dump of the
    schema file plus print's newline;
  - the script is run by its file name with its folder first in PATH and
    the index as the only argument, the environment inherited (the topic
    subname set to the test's);
  - a Script Remote of index 0 without history reads the script's events;
  - on its first UNCONFIGURED state the script gets configure (60 s),
    then setGroupId (5 s), then run (nobody waits for that ack);
  - stop (60 s) and then up to 60 s for the process; terminate is SIGTERM;
  - when the process exits, the state read by then is the script's last:
    unless terminated, it must be the final one (DONE, STOPPED, FAILED or
    CONFIGURE_FAILED), or the ScriptQueue records e.g. a failed script as
    RUNNING.

Exit status: 0 when every check passed (a JSON summary is the last line of
stdout), 1 when a check failed ("FAIL: ..." lines on stderr), 2 on a usage
or environment error.
"""
import sys

sys.dont_write_bytecode = True  # importing salinterop leaves no __pycache__ in the tree

import argparse  # noqa: E402
import faulthandler  # noqa: E402
import json  # noqa: E402
import os  # noqa: E402
import random  # noqa: E402
import signal  # noqa: E402
import subprocess  # noqa: E402
import time  # noqa: E402

import yaml  # noqa: E402
from confluent_kafka import TopicPartition  # noqa: E402
from confluent_kafka.schema_registry import Schema  # noqa: E402
from confluent_kafka.serialization import MessageField, SerializationContext  # noqa: E402

import salinterop as si  # noqa: E402

# ts_scriptqueue's limits (script_info.py, queue_model.py).
CONFIGURE_TIMEOUT = 60
SET_GROUP_ID_TIMEOUT = 5
STOP_TIMEOUT = 60
SHOW_SCHEMA_TIMEOUT = 20
# How long the ScriptQueue waits for a terminated process before warning.
TERMINATE_TIMEOUT = 2

STATE_NAMES = ["UNKNOWN", "UNCONFIGURED", "CONFIGURED", "RUNNING", "PAUSED", "ENDING", "STOPPING",
               "FAILING", "DONE", "STOPPED", "FAILED", "CONFIGURE_FAILED"]
STATE = {name: i for i, name in enumerate(STATE_NAMES)}
FINAL = {"DONE", "STOPPED", "FAILED", "CONFIGURE_FAILED"}
CMD_COMPLETE = 303

EVENTS = ["logevent_state", "logevent_description", "logevent_metadata", "logevent_checkpoints",
          "logevent_logLevel", "logevent_logMessage"]
COMMANDS = ["command_configure", "command_setGroupId", "command_run", "command_resume", "command_stop"]


class Queue:
    """The ScriptQueue's Script Remote (index 0, no history) on the wire."""

    def __init__(self, sal_dir, sub):
        self.sub = sub
        self.topics = si.load_topics(sal_dir, "Script")
        used = [self.topics[n] for n in EVENTS + COMMANDS + ["ackcmd"]]
        si.create_topics(used, sub)
        self.client = si.registry()
        self.ids = {t.sal_name: self.client.register_schema(t.subject(sub), Schema(t.text, "AVRO")) for t in used}
        self.deser = {t.sal_name: si.deserializer(self.client, t) for t in used if t.kind != "command"}
        self.ser = {t.sal_name: si.serializer(self.client, t) for t in used if t.kind == "command"}
        self.by_kafka = {t.kafka(sub): t for t in used if t.kind != "command"}
        self.consumer = si.make_consumer()
        parts = []
        for name in self.by_kafka:
            _, high = self.consumer.get_watermark_offsets(TopicPartition(name, 0), timeout=10, cached=False)
            parts.append(TopicPartition(name, 0, high))  # no history: from the end
        self.consumer.assign(parts)
        self.producer = si.make_producer()
        self.identity, self.origin = si.user_host(), os.getpid()
        names = sorted(s[len("command_"):] for s in self.topics if s.startswith("command_"))
        inc = si.MAX_SEQ_NUM // len(names)
        # Each command name owns a slice of the seqNum range, from a random start.
        self.seq = {n: random.randint(i * inc + 1, i * inc + inc // 2) for i, n in enumerate(names)}
        self.sal_topic_names = sorted(self.topics)
        self.acks = {}  # seq -> final ack data
        self.events = {}  # sal_name -> [data] of our script's index

    def send(self, name, index, **params):
        t = self.topics["command_" + name]
        self.seq[name] += 1
        seq = self.seq[name]
        data = t.defaults()
        data.update(params)
        tai = si.tai_now()
        data.update(salIndex=index, private_sndStamp=tai, private_rcvStamp=0.0,
                    private_efdStamp=tai - si.TAI_MINUS_UTC, private_kafkaStamp=tai, private_seqNum=seq,
                    private_revCode=t.revcode, private_identity=self.identity, private_origin=self.origin)
        value = self.ser[t.sal_name](data, SerializationContext(t.kafka(self.sub), MessageField.VALUE))
        # An index-0 Remote's key carries index 0.
        self.producer.produce(t.kafka(self.sub), key=t.key(0).encode(), value=value)
        if self.producer.flush(30) != 0:
            si.fail(f"command {name}: not delivered in 30 s")
        return seq

    def poll(self, index, timeout=0.2):
        """Read what is there (waiting up to timeout for the first record);
        return the new records of index as (sal_name, data)."""
        out = []
        msg = self.consumer.poll(timeout)
        while msg is not None:
            if msg.error():
                if msg.error().code() != si.KafkaError._PARTITION_EOF:
                    si.fail(f"consume: {msg.error()}")
            else:
                t = self.by_kafka[msg.topic()]
                try:
                    d = self.deser[t.sal_name](msg.value(), SerializationContext(msg.topic(), MessageField.VALUE))
                except Exception as e:  # noqa: BLE001 - report any deserializer failure
                    si.fail(f"{t.sal_name}: AvroDeserializer: {type(e).__name__}: {e}")
                    d = None
                if d is not None and d["salIndex"] == index:
                    si.check_key(t.sal_name, msg.key(), t.key(index))
                    if t.sal_name == "ackcmd":
                        if d["identity"] == self.identity and d["origin"] == self.origin and d["ack"] in si.FINAL_ACKS:
                            self.acks[d["private_seqNum"]] = d
                    else:
                        self.events.setdefault(t.sal_name, []).append(d)
                        out.append((t.sal_name, d))
            msg = self.consumer.poll(0)
        return out

    def wait_ack(self, name, index, seq, limit):
        deadline = time.monotonic() + limit
        while seq not in self.acks and time.monotonic() < deadline:
            self.poll(index)
        ack = self.acks.get(seq)
        if ack is None:
            si.fail(f"{name}: no final ack within the ScriptQueue's {limit} s")
            return None
        cmdtype = self.sal_topic_names.index("command_" + name)
        if ack["cmdtype"] != cmdtype:
            si.fail(f"{name}: ack cmdtype {ack['cmdtype']}, want {cmdtype}")
        return ack


def show_schema(path, env):
    """showSchema: `<script> 0 --schema`, stdout captured, 20 s."""
    res = subprocess.run([path, "0", "--schema"], env=env, stdout=subprocess.PIPE, timeout=SHOW_SCHEMA_TIMEOUT)
    return res.returncode, res.stdout.decode()


def state_tuple(d):
    return [STATE_NAMES[d["state"]] if d["state"] < len(STATE_NAMES) else d["state"],
            d["lastCheckpoint"], d["numCheckpoints"], d["reason"]]


def run_case(spec):
    sub, index, case = spec["subname"], spec["index"], spec["case"]
    env = dict(os.environ)
    env["LSST_TOPIC_SUBNAME"] = sub
    # ScriptInfo puts the script's folder first in PATH and runs it by name.
    env["PATH"] = spec["script_dir"] + os.pathsep + env.get("PATH", "")
    name = spec["script_name"]
    summary = {"case": case["name"], "index": index}

    if spec.get("schema_file"):
        code, text = show_schema(name, env)
        with open(spec["schema_file"], encoding="utf-8") as f:
            want = yaml.safe_dump(yaml.safe_load(f)) + "\n"
        if code != 0 or text != want:
            si.fail(f"--schema: exit {code}, stdout {text!r}, want {want!r} (print(yaml.safe_dump(schema)))")
        summary["schema_bytes"] = len(text)

    q = Queue(spec["sal_dir"], sub)
    proc = subprocess.Popen([name, str(index)], env=env)
    configured = sent_action = False
    terminated_at = exited_at = None
    configure_ack = None
    act = case.get("action")
    handled = 0
    deadline = time.monotonic() + si.READ_TIMEOUT
    try:
        while time.monotonic() < deadline:
            q.poll(index)
            seen = q.events.setdefault("logevent_state", [])
            # wait_ack below reads on, so the list may grow while handled.
            while handled < len(seen):
                st = state_tuple(seen[handled])
                handled += 1
                if st[0] == "UNCONFIGURED" and not configured:
                    configured = True
                    c = case["configure"]
                    seq = q.send("configure", index, config=c.get("config", ""), logLevel=c.get("logLevel", 0),
                                 pauseCheckpoint=c.get("pause", ""), stopCheckpoint=c.get("stop", ""),
                                 blockId=c.get("blockId", ""))
                    configure_ack = q.wait_ack("configure", index, seq, CONFIGURE_TIMEOUT)
                    if configure_ack is not None and configure_ack["ack"] == CMD_COMPLETE:
                        seq = q.send("setGroupId", index, groupId=spec["group_id"])
                        q.wait_ack("setGroupId", index, seq, SET_GROUP_ID_TIMEOUT)
                        q.send("run", index)  # nobody waits for run's ack
                act = case.get("action")
                if act and not sent_action and st[0] == act["when_state"] and st[1] == act["checkpoint"]:
                    sent_action = True
                    if act["do"] == "terminate":
                        proc.send_signal(signal.SIGTERM)
                        terminated_at = time.monotonic()
                    else:  # resume, stop
                        seq = q.send(act["do"], index)
                        q.wait_ack(act["do"], index, seq, STOP_TIMEOUT)
            if proc.poll() is not None:
                if exited_at is None:
                    exited_at = time.monotonic()
                    # The ScriptQueue learns of the exit by SIGCHLD and takes
                    # the state it has read by then as the script's last: the
                    # final state must be on the bus before the process exits
                    # (the script waits final_state_delay after writing it).
                    q.poll(index, timeout=0.05)
                    last = seen[-1]["state"] if seen else 0
                    summary["final_state_before_exit"] = STATE_NAMES[last] in FINAL
                    expect_final = case["states"] and case["states"][-1][0] in FINAL
                    if expect_final and (not act or act["do"] != "terminate") and STATE_NAMES[last] not in FINAL:
                        si.fail(f"the script exited before its final state was read: the ScriptQueue would "
                                f"record it as {STATE_NAMES[last]}")
                done = handled >= len(case["states"]) or (seen and STATE_NAMES[seen[-1]["state"]] in FINAL)
                # What the script wrote before it exited may still be on the way.
                if done or time.monotonic() - exited_at > 10:
                    break
        try:
            proc.wait(timeout=STOP_TIMEOUT)
        except subprocess.TimeoutExpired:
            si.fail(f"the script did not exit within {STOP_TIMEOUT} s")
        if terminated_at is not None:
            took = time.monotonic() - terminated_at
            summary["terminate_seconds"] = round(took, 2)
            if took > TERMINATE_TIMEOUT:
                print(f"warning: the script took {took:.1f} s to exit after SIGTERM; the ScriptQueue waits "
                      f"{TERMINATE_TIMEOUT} s and then warns", file=sys.stderr)
        q.poll(index)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        q.consumer.close()
    states = [state_tuple(d) for d in q.events.get("logevent_state", [])]

    summary["exit_code"] = proc.returncode
    summary["states"] = states
    check(case, q, states, proc.returncode, configure_ack)
    return summary


def check(case, q, states, code, configure_ack):
    want = case["states"]
    if len(states) != len(want) or any(g[:3] != w[:3] or not g[3].startswith(w[3]) for g, w in zip(states, want)):
        si.fail(f"state events (state, lastCheckpoint, numCheckpoints, reason):\n  got  {states}\n  want {want}"
                " (reasons compared by prefix)")
    if code != case["exit_code"]:
        si.fail(f"exit code {code}, want {case['exit_code']}")
    if configure_ack is not None and not configure_ack["result"].startswith(case["configure_result"]):
        si.fail(f"configure ack {configure_ack['ack']} {configure_ack['result']!r}, want {case['configure_result']!r}...")
    ev = q.events
    desc = ev.get("logevent_description", [])
    if len(desc) != 1:
        si.fail(f"{len(desc)} description events, want 1")
    else:
        for k, v in case["description"].items():
            if desc[0][k] != v:
                si.fail(f"description.{k} = {desc[0][k]!r}, want {v!r}")
    levels = [d["level"] for d in ev.get("logevent_logLevel", [])]
    if levels[:1] != [20]:
        si.fail(f"logLevel events {levels}, want 20 first (INFO at start)")
    md = ev.get("logevent_metadata", [])
    if "metadata" in case:
        if len(md) != 1:
            si.fail(f"{len(md)} metadata events, want 1")
        else:
            for k, v in case["metadata"].items():
                if md[0][k] != v:
                    si.fail(f"metadata.{k} = {md[0][k]!r}, want {v!r}")
    elif md:
        si.fail(f"metadata written after a failed configure: {md}")
    cps = ev.get("logevent_checkpoints", [])
    if "checkpoints" in case and [[d["pause"], d["stop"]] for d in cps] != [case["checkpoints"]]:
        si.fail(f"checkpoints events {[[d['pause'], d['stop']] for d in cps]}, want {[case['checkpoints']]}")
    logs = ev.get("logevent_logMessage", [])
    for msg in case.get("logs", []):
        found = [d for d in logs if d["message"] == msg]
        if not found:
            si.fail(f"no logMessage {msg!r}; got {[d['message'] for d in logs]}")
        elif found[0]["name"] != "Script":
            si.fail(f"logMessage {msg!r} from logger {found[0]['name']!r}, want 'Script'")


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--spec", required=True, help="JSON file written by the Go test")
    a = p.parse_args()
    faulthandler.dump_traceback_later(170, exit=True)
    with open(a.spec, encoding="utf-8") as f:
        spec = json.load(f)
    t0 = time.monotonic()
    summary = run_case(spec)
    summary["seconds"] = round(time.monotonic() - t0, 2)
    for msg in si.FAILURES:
        print(f"FAIL: {msg}", file=sys.stderr)
    summary["ok"] = not si.FAILURES
    summary["failures"] = len(si.FAILURES)
    print(json.dumps(summary))
    sys.exit(1 if si.FAILURES else 0)


if __name__ == "__main__":
    main()
