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
    """Starts the sandbox with the example ONNX models; await_serving() waits until it serves, stop() ends it (closing its stdin ends it too).

    With ``sasl_ssl`` the broker speaks SASL_SSL only, and ``client_config`` holds librdkafka's settings for it.
    """

    def __init__(self, sasl_ssl=False):
        self.registry = Registry()
        self.log = tempfile.NamedTemporaryFile(prefix="kairos-sandbox-", suffix=".log", delete=False)
        self.files = tempfile.mkdtemp(prefix="kairos-sandbox-")
        env = dict(os.environ)
        env.setdefault("KAIROS_JAVA_OPTS", "-Xmx2g")
        command = [os.path.join(REPO, "bin", "kairos"), "sandbox", "--onnx", "--exit-on-stdin-close"]
        if sasl_ssl:
            command += ["--sasl-ssl", self.files]
        command += ["--", "--registry-schema-id", str(SCHEMA_ID), "--schema-registry-url", self.registry.url,
                    "--devices", "2", "--checkpoint-interval-ms", "0"]
        self.process = subprocess.Popen(command, cwd=REPO, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.log, text=True)
        self.bootstrap_servers = None
        self.client_config = {}
        self.lines = []
        self._ready = threading.Event()
        self._started = time.monotonic()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        for line in self.process.stdout:
            line = line.rstrip("\n")
            self.lines.append(line)
            if line.startswith("bootstrap.servers="):
                self.bootstrap_servers = line.split("=", 1)[1]
            if line.startswith("client.config="):
                with open(line.split("=", 1)[1].split(" ")[0], encoding="utf-8") as f:
                    self.client_config = dict(l.strip().split("=", 1) for l in f if "=" in l and not l.startswith("#"))
            if line.startswith("serving"):
                self._ready.set()
        self._ready.set()  # the process ended

    def await_serving(self, timeout=240):
        self._ready.wait(timeout)
        if self.process.poll() is not None or self.bootstrap_servers is None or not any(l.startswith("serving") for l in self.lines):
            self.stop()
            with open(self.log.name, encoding="utf-8", errors="replace") as f:
                tail = f.read()[-3000:]
            raise RuntimeError("the sandbox did not come up within %d s: %s\n%s" % (timeout, "\n".join(self.lines), tail))
        self.startup_seconds = time.monotonic() - self._started
        return self

    def stop(self):
        self.registry.stop()
        if self.process.poll() is None:
            self.process.stdin.close()
            try:
                self.process.wait(30)
            except subprocess.TimeoutExpired:
                self.process.terminate()
                self.process.wait(30)
