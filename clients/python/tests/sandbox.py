"""A real Kairos to test against: `bin/kairos sandbox` (an embedded Kafka broker and the serving job on a Flink mini-cluster) as a child process."""

import http.server
import json
import os
import subprocess
import tempfile
import threading
import time

from kairos_client import schemas

REPO = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", ".."))
#: The id under which the sandbox's job reads requests in a schema registry's wire format (serve --registry-schema-id).
SCHEMA_ID = 7
#: The id that the sandbox's schema registry (a stand-in answering GET /schemas/ids/{id}) has the InferenceRequest schema under.
REGISTERED_ID = 21


class Registry:
    """The one call of a schema registry the job makes, GET /schemas/ids/{id}, answered for REGISTERED_ID with the client's schema."""

    def __init__(self):
        with open(os.path.join(schemas.schema_dir(), "InferenceRequest.avsc"), encoding="utf-8") as f:
            body = json.dumps({"schema": f.read()}).encode("utf-8")
        self.asked = []
        asked = self.asked

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self):
                asked.append(self.path)
                found = self.path == "/schemas/ids/%d" % REGISTERED_ID
                answer = body if found else b'{"error_code": 40403, "message": "Schema not found"}'
                self.send_response(200 if found else 404)
                self.send_header("Content-Type", "application/vnd.schemaregistry.v1+json")
                self.send_header("Content-Length", str(len(answer)))
                self.end_headers()
                self.wfile.write(answer)

            def log_message(self, *args):
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = "http://127.0.0.1:%d" % self.server.server_address[1]
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def stop(self):
        self.server.shutdown()


class Sandbox:
    """Starts the sandbox with the example ONNX models and waits until it serves; stop() ends it (closing its stdin ends it too)."""

    def __init__(self, timeout=240):
        self.registry = Registry()
        self.log = tempfile.NamedTemporaryFile(prefix="kairos-sandbox-", suffix=".log", delete=False)
        env = dict(os.environ)
        env.setdefault("KAIROS_JAVA_OPTS", "-Xmx2g")
        self.process = subprocess.Popen(
            [os.path.join(REPO, "bin", "kairos"), "sandbox", "--onnx", "--exit-on-stdin-close", "--",
             "--registry-schema-id", str(SCHEMA_ID), "--schema-registry-url", self.registry.url, "--devices", "2", "--checkpoint-interval-ms", "0"],
            cwd=REPO, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.log, text=True)
        self.bootstrap_servers = None
        lines = []
        ready = threading.Event()

        def read():
            for line in self.process.stdout:
                lines.append(line.rstrip("\n"))
                if line.startswith("bootstrap.servers="):
                    self.bootstrap_servers = line.strip().split("=", 1)[1]
                if line.startswith("serving"):
                    ready.set()
            ready.set()  # the process ended

        threading.Thread(target=read, daemon=True).start()
        started = time.monotonic()
        ready.wait(timeout)
        if self.process.poll() is not None or self.bootstrap_servers is None or not any(l.startswith("serving") for l in lines):
            self.stop()
            with open(self.log.name, encoding="utf-8", errors="replace") as f:
                tail = f.read()[-3000:]
            raise RuntimeError("the sandbox did not come up within %d s: %s\n%s" % (timeout, "\n".join(lines), tail))
        self.startup_seconds = time.monotonic() - started

    def stop(self):
        self.registry.stop()
        if self.process.poll() is None:
            self.process.stdin.close()
            try:
                self.process.wait(30)
            except subprocess.TimeoutExpired:
                self.process.terminate()
                self.process.wait(30)
