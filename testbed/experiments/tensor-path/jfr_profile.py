#!/usr/bin/python3
"""CPU samples of a JFR recording, attributed per operator (thread) and per stage, as tables, as
collapsed stacks and as an SVG flame graph; and sampled byte[] allocation by site (the tensor's
copies).

    jfr print --json --events jdk.ExecutionSample --stack-depth 96 run.jfr > cpu.json
    jfr print --json --events jdk.ObjectAllocationSample --stack-depth 24 run.jfr > alloc.json
    jfr_profile.py cpu.json alloc.json OUT_PREFIX

writes OUT_PREFIX.md (the tables), OUT_PREFIX.collapsed and OUT_PREFIX.svg. Standard library only.
"""
import collections
import html
import json
import re
import sys

# Threads, by name, to the part of the process they belong to. Flink names a task thread after its
# operator chain, "chain (i/n)#attempt"; the rest are Kafka's (broker, clients) and the bench's own.
THREAD_GROUPS = [
    (r"^data-plane-kafka-request-handler", "broker: request handlers"),
    (r"^data-plane-kafka-network-thread", "broker: network threads"),
    (r"^(kafka-\d+-|quorum-controller|broker-\d+|executor-|kafka-log|LogDirFailure|ExpirationReaper)", "broker: other"),
    (r"^Source Data Fetcher for Source: requests", "job: requests source (Kafka fetch)"),
    (r"^Source: requests", "job: requests source (emit)"),
    (r"^decode \+ validate \+ route", "job: decode + validate + route"),
    (r"^group scheduler", "job: group scheduler"),
    (r"^inference", "job: inference -> results per request -> device reports"),
    (r"^results within the size limit", "job: results sink"),
    (r"^results after preemption", "job: results after preemption"),
    (r"^telemetry", "job: telemetry sink"),
    (r"device reports", "job: device reports source"),
    (r"control decisions", "job: control decisions"),
    (r"^kafka-producer-network-thread \| kairos-requests", "client: request producers (load generator)"),
    (r"^kafka-producer-network-thread", "job: Kafka producers' I/O threads (sinks)"),
    (r"^round-trip-", "bare round trip: relay and receiver"),
    (r"^bench-results", "client: results consumer"),
    (r"^main$", "client: load generator (main)"),
    (r"^(AsyncOperations|Checkpoint|flink-|jobmanager|pekko|Flink)", "Flink runtime (checkpoints, RPC)"),
]

# Stages, by frame: the frame nearest the leaf that matches one names the stage of a sample.
STAGES = [
    ("tensor copy: Avro deepCopy", r"org/apache/avro/generic/GenericData\.deepCopy"),
    ("Avro decode", r"org/apache/avro/(io/(BinaryDecoder|ResolvingDecoder|ValidatingDecoder)|generic/GenericDatumReader|specific/SpecificDatumReader)|DataInputDecoder|FramedDecoder|AvroCodec\.decode"),
    ("Avro encode", r"org/apache/avro/(io/(BinaryEncoder|BufferedBinaryEncoder|DirectBinaryEncoder)|generic/GenericDatumWriter|specific/SpecificDatumWriter)|DataOutputEncoder|AvroCodec\.encode|AvroRecordSerializer"),
    ("Flink network (de)serialisation", r"org/apache/flink/runtime/io/network/api/(serialization|writer)|SpanningWrapper|StreamTaskNetworkInput|RecordWriter"),
    ("device (hand-over, execution)", r"io/kairos/flink/AsyncInference|io/kairos/core/device|io/kairos/onnx/OnnxDevice"),
    ("scheduler (policy, queues)", r"io/kairos/core/(scheduling|plan|request/RequestQueue)|GroupSchedulerFunction"),
    ("admission (validate, route)", r"io/kairos/flink/AdmitRequests|io/kairos/core/request/RequestValidator"),
    ("results (per request, telemetry)", r"io/kairos/flink/EmitResults|io/kairos/core/result"),
    ("Kafka produce (client)", r"org/apache/kafka/clients/producer|KafkaWriter|org/apache/flink/connector/kafka/sink"),
    ("Kafka fetch (client)", r"org/apache/kafka/clients/consumer|org/apache/flink/connector/kafka/source|SplitFetcher"),
    ("Kafka broker: produce", r"kafka/server/(KafkaApis\.handleProduceRequest|ReplicaManager\.appendRecords)|UnifiedLog\.append|LogValidator"),
    ("Kafka broker: fetch", r"kafka/server/(KafkaApis\.handleFetchRequest|ReplicaManager\.fetchMessages)|FetchSession"),
    ("Kafka broker: network, other", r"^kafka/|org/apache/kafka/(common/network|server|storage|raft|metadata|controller)"),
    ("Kafka client: network", r"org/apache/kafka/(common|clients)/"),
    ("Flink runtime (mailbox, checkpoints, timers)", r"org/apache/flink/"),
    ("JVM, JDK", r"^(java|jdk|sun)/"),
]


def thread_group(name):
    for pattern, group in THREAD_GROUPS:
        if re.search(pattern, name):
            return group
    return "other: " + re.sub(r"[-_ ]?\d+$", "", name)


def frame_name(f):
    return f["method"]["type"]["name"] + "." + f["method"]["name"]


def short_name(frame):
    """org/apache/flink/x/Y.method -> Y.method: the flame graph's boxes are narrow."""
    return frame.rsplit("/", 1)[-1]


def stage(frames):
    """frames leaf first"""
    names = [frame_name(f) for f in frames]
    for stage_name, pattern in STAGES:
        if any(re.search(pattern, n) for n in names[:12]):
            return stage_name
    for stage_name, pattern in STAGES:
        if any(re.search(pattern, n) for n in names):
            return stage_name
    return "other"


def table(rows, headers):
    out = ["| " + " | ".join(headers) + " |", "| " + " | ".join(["---"] + ["---:"] * (len(headers) - 1)) + " |"]
    out += ["| " + " | ".join(str(c) for c in r) + " |" for r in rows]
    return "\n".join(out)


def cpu(path):
    events = json.load(open(path))["recording"]["events"]
    by_group, by_stage, cross = collections.Counter(), collections.Counter(), collections.Counter()
    collapsed = collections.Counter()
    for e in events:
        v = e["values"]
        frames = (v.get("stackTrace") or {}).get("frames") or []
        g = thread_group(v["sampledThread"]["javaName"] or v["sampledThread"]["osName"])
        s = stage(frames)
        by_group[g] += 1
        by_stage[s] += 1
        cross[(g, s)] += 1
        stack = [g] + [short_name(frame_name(f)).replace(";", ":") for f in reversed(frames)]
        collapsed[";".join(stack)] += 1
    return len(events), by_group, by_stage, cross, collapsed


# Sites of byte[] allocation that copy a tensor, by the frame that allocates it.
ALLOC_SITES = [
    ("Flink network: reading a record that spans buffers (SpanningWrapper)", r"SpanningWrapper"),
    ("Flink Avro serializer reading bytes on an internal hop (DataInputDecoder)", r"DataInputDecoder\.readBytes"),
    ("Avro deepCopy (a copy between operators)", r"GenericData\.deepCopy"),
    ("admission's Avro decode (BinaryDecoder.readBytes)", r"BinaryDecoder\.readBytes"),
    ("Kafka client receiving a record (NetworkReceive)", r"NetworkReceive"),
    ("Kafka deserializer's copy of the value (Utils.toArray)", r"common/utils/Utils\.toArray"),
    ("load generator encoding a request (AvroCodec.encode)", r"AvroCodec\.encode"),
    ("result encoding (AvroRecordSerializer)", r"AvroRecordSerializer"),
    ("the device's output split (OnnxDevice)", r"OnnxDevice"),
    ("Kafka producer buffers", r"org/apache/kafka/clients/producer"),
    ("Kafka broker", r"^kafka/|org/apache/kafka/(storage|server|raft)"),
]


def alloc(path):
    events = json.load(open(path))["recording"]["events"]
    sites = collections.Counter()
    total = 0
    for e in events:
        v = e["values"]
        if v["objectClass"]["name"] not in ("byte[]", "[B"):
            continue
        w = v["weight"]
        total += w
        names = [frame_name(f) for f in ((v.get("stackTrace") or {}).get("frames") or [])]
        site = next((label for label, p in ALLOC_SITES if any(re.search(p, n) for n in names)), None)
        if site is None:
            site = "other: " + (names[0] if names else "?")
        sites[site] += w
    return total, sites


def flame_svg(collapsed, title, width=1600, row=16, min_width=1.5):
    root = {"n": 0, "c": {}}
    for stack, count in collapsed.items():
        node = root
        node["n"] += count
        for f in stack.split(";"):
            node = node["c"].setdefault(f, {"n": 0, "c": {}})
            node["n"] += count
    total = root["n"]
    rects = []

    def walk(node, name, x, depth):
        w = node["n"] / total * width
        if w < min_width:
            return
        rects.append((x, depth, w, name, node["n"]))
        cx = x
        for child_name, child in sorted(node["c"].items()):
            walk(child, child_name, cx, depth + 1)
            cx += child["n"] / total * width

    cx = 0
    for name, child in sorted(root["c"].items(), key=lambda kv: -kv[1]["n"]):
        walk(child, name, cx, 0)
        cx += child["n"] / total * width
    depth = max(d for _, d, _, _, _ in rects) + 1
    height = (depth + 3) * row
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" font-family="monospace" font-size="11">',
           f'<text x="4" y="{row}">{html.escape(title)} ({total} samples; hover a box for its frame and share)</text>']
    for x, d, w, name, n in rects:
        y = height - (d + 1) * row
        hue = 10 + (sum(map(ord, name.split(".")[0])) % 50)
        colour = "#%02x%02x%02x" % (220, 90 + hue * 2, 40 + hue) if d else "#6a8fd0"
        label = html.escape(name)
        chars = int(w / 7)
        text = label[:chars] if chars >= 3 else ""
        out.append(f'<g><title>{label} ({n} samples, {100.0 * n / total:.1f}%)</title>'
                   f'<rect x="{x:.1f}" y="{y}" width="{w:.1f}" height="{row - 1}" fill="{colour}"/>'
                   f'<text x="{x + 2:.1f}" y="{y + row - 4}">{text}</text></g>')
    out.append("</svg>")
    return "\n".join(out)


def main():
    cpu_path, alloc_path, prefix = sys.argv[1:4]
    n, by_group, by_stage, cross, collapsed = cpu(cpu_path)
    md = [f"CPU samples: {n}", "", "By thread (operator chain):", ""]
    md.append(table([(g, c, f"{100.0 * c / n:.1f}") for g, c in by_group.most_common()], ["thread group", "samples", "%"]))
    md += ["", "By stage (the frame nearest the leaf that names one):", ""]
    md.append(table([(s, c, f"{100.0 * c / n:.1f}") for s, c in by_stage.most_common()], ["stage", "samples", "%"]))
    md += ["", "The job's threads by stage:", ""]
    rows = [(g, s, c, f"{100.0 * c / n:.1f}") for (g, s), c in cross.most_common() if g.startswith("job:")]
    md.append(table(rows, ["thread group", "stage", "samples", "% of all"]))
    if alloc_path != "-":
        total, sites = alloc(alloc_path)
        md += ["", f"Sampled byte[] allocation: {total / 1e9:.2f} GB", ""]
        md.append(table([(s, f"{w / 1e9:.3f}", f"{100.0 * w / total:.1f}") for s, w in sites.most_common(14)], ["site", "GB", "%"]))
    open(prefix + ".md", "w").write("\n".join(md) + "\n")
    with open(prefix + ".collapsed", "w") as f:
        for stack, c in sorted(collapsed.items()):
            f.write(f"{stack} {c}\n")
    open(prefix + ".svg", "w").write(flame_svg(collapsed, "CPU, by thread group then frames"))
    print("\n".join(md))


if __name__ == "__main__":
    main()
