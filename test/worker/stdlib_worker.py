"""A worker that speaks the serverless worker protocol (reference/worker-protocol.md) with the
standard library only: take long-poll (batch when more than one slot is free), the stop channel,
results as raw JSON labelled form-urlencoded, stream posts, progress updates and heartbeats.

Its handler reads the job's input: sleep_ms, fail, progress (n updates), stream (n chunks),
and echoes the input as {"echo": input}. WORKER_CONCURRENCY sets the slots (default 1);
WORKER_STARTUP_MS delays its first take, as a model load at start-up would (default 0).
"""
import faulthandler
import json
import os
import signal
import sys
import threading
import time
import traceback
import urllib.error
import urllib.request

WORKER_ID = os.environ.get("RUNPOD_POD_ID", "stdlib-worker")
KEY = os.environ.get("RUNPOD_AI_API_KEY", "")
TAKE = os.environ["RUNPOD_WEBHOOK_GET_JOB"].replace("$ID", WORKER_ID)
STOP = TAKE.replace("/job-take/", "/job-stop/")
BATCH = TAKE.replace("/job-take/", "/job-take-batch/")
DONE = os.environ["RUNPOD_WEBHOOK_POST_OUTPUT"].replace("$RUNPOD_POD_ID", WORKER_ID)
STREAM = os.environ["RUNPOD_WEBHOOK_POST_STREAM"].replace("$RUNPOD_POD_ID", WORKER_ID)
PING = os.environ.get("RUNPOD_WEBHOOK_PING", "").replace("$RUNPOD_POD_ID", WORKER_ID)
PING_S = int(os.environ.get("RUNPOD_PING_INTERVAL", "10000")) // 1000
SLOTS = int(os.environ.get("WORKER_CONCURRENCY", "1"))

lock = threading.Lock()
running = {}  # job id -> threading.Event set when the job is stopped
stopping = threading.Event()


def log(*parts):
    print(WORKER_ID, *parts, flush=True)


def call(method, url, body=None, timeout=90):
    headers = {"Authorization": KEY, "Content-Type": "application/json"}
    data = None
    if body is not None:
        data = json.dumps(body, ensure_ascii=False).encode("utf-8")
        headers["Content-Type"] = "application/x-www-form-urlencoded"
        headers["charset"] = "utf-8"
    req = urllib.request.Request(url, data=data, method=method, headers=headers)
    try:
        with urllib.request.urlopen(req, timeout=timeout) as res:
            return res.status, res.read()
    except urllib.error.HTTPError as err:
        return err.code, err.read()


def post(url, body):
    for wait in (0, 2, 3):
        time.sleep(wait)
        try:
            status, _ = call("POST", url, body, timeout=600)
        except OSError as err:
            log("post lost:", err)
            return
        if status < 500:
            return


def run_job(job):
    job_id = job["id"]
    inp = job.get("input") or {}
    stopped = running[job_id]
    done_url = DONE.replace("$ID", job_id)
    try:
        steps = max(1, int(inp.get("progress", 0)))
        sleep_s = float(inp.get("sleep_ms", 0)) / 1000.0
        chunks = []
        for step in range(steps):
            if stopped.wait(sleep_s / steps):
                break
            if inp.get("progress"):
                post(done_url + "&isStream=false", {"status": "IN_PROGRESS", "output": {"step": step + 1, "of": steps}})
        for n in range(int(inp.get("stream", 0))):
            if stopped.is_set():
                break
            chunk = {"chunk": n, "text": "piece %d" % n}
            chunks.append(chunk)
            post(STREAM.replace("$ID", job_id) + "&isStream=false", {"output": chunk})
        if stopped.is_set():
            log("stopped", job_id)
            return
        if inp.get("fail"):
            raise RuntimeError(str(inp["fail"]))
        if inp.get("stream"):
            post(done_url + "&isStream=true", {"output": chunks})
        else:
            post(done_url + "&isStream=false", {"output": {"echo": inp}})
    except Exception as err:  # the SDK's shape: the error as a JSON string
        post(done_url + "&isStream=false", {"error": json.dumps({
            "error_type": str(type(err)), "error_message": str(err),
            "error_traceback": traceback.format_exc(), "worker_id": WORKER_ID})})
    finally:
        with lock:
            running.pop(job_id, None)


def start(job):
    if not isinstance(job, dict) or "id" not in job or "input" not in job:
        log("dropped", job)
        return
    with lock:
        running[job["id"]] = threading.Event()
    threading.Thread(target=run_job, args=(job,), daemon=True).start()


def take_loop():
    while not stopping.is_set():
        with lock:
            free = SLOTS - len(running)
            busy = 1 if running else 0
        if free <= 0:
            time.sleep(0.05)
            continue
        url = (BATCH + "&batch_size=%d" % free if free > 1 else TAKE) + "&job_in_progress=%d" % busy
        try:
            status, body = call("GET", url)
        except OSError:
            time.sleep(0.2)
            continue
        if status == 429:
            time.sleep(5)
        if status != 200:
            continue
        try:
            got = json.loads(body)
        except ValueError:
            continue
        for job in got if isinstance(got, list) else [got]:
            start(job)


def stop_loop():
    while True:
        try:
            status, body = call("GET", STOP)
        except OSError:
            time.sleep(1)
            continue
        ids = []
        if status == 200:
            try:
                ids = json.loads(body).get("jobsToStop", [])
            except (ValueError, AttributeError):
                ids = []
        if not ids:
            time.sleep(0.2 if status == 204 else 1)
        with lock:
            for job_id in ids:
                if isinstance(job_id, str) and job_id in running:
                    running[job_id].set()


def ping_loop():
    while PING:
        with lock:
            ids = ",".join(running)
        url = PING + ("&job_id=" + ids.replace(",", "%2C") if ids else "") + "&runpod_version=stdlib-test"
        try:
            call("GET", url, timeout=2 * max(PING_S, 1))
        except OSError:
            pass
        time.sleep(max(PING_S, 1))


def on_term(_sig, _frame):
    stopping.set()


signal.signal(signal.SIGTERM, on_term)
faulthandler.register(signal.SIGUSR1)  # a stack dump on demand, for debugging a stuck worker
time.sleep(int(os.environ.get("WORKER_STARTUP_MS", "0")) / 1000.0)
log("started")
threading.Thread(target=stop_loop, daemon=True).start()
threading.Thread(target=ping_loop, daemon=True).start()
taker = threading.Thread(target=take_loop, daemon=True)
taker.start()
while not stopping.is_set():
    time.sleep(0.1)
# SIGTERM: no new takes (a held take may still bring jobs), in-flight jobs finish and post.
taker.join(timeout=95)
while True:
    with lock:
        if not running:
            break
    time.sleep(0.05)
log("exiting")
sys.exit(0)
