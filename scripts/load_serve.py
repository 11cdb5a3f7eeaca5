#!/usr/bin/env python3
"""Issue 61's musts for `npuzzle serve` under load, measured on the real binary over loopback.

    scripts/load_serve.py [--bin target/release/npuzzle] [--seconds 15] [--compares 200]
                          [--idle 1000]

1. Hard compares: CLIENTS threads each send `/api/compare` of Korf's first 15-puzzle board
   (57 moves) again and again for SECONDS (so about CLIENTS are in flight all the time; the
   server answers some and refuses the rest with 503 + Retry-After), while one client asks
   a 3x3 `/api/board` every 0.1 s: its worst and 99th-percentile latency, the server's peak
   RSS (VmHWM), the statuses of the compares.
2. Idle connections: IDLE sockets opened and left silent (half of them with a request head
   begun and never ended), then 20 `/api/board` requests: their worst latency.

Standard library only. Prints a short report; nothing is written.
"""

import argparse
import http.client
import os
import re
import socket
import subprocess
import sys
import threading
import time

HARD = "13 14 15 7 / 11 12 9 5 / 6 0 2 1 / 4 8 10 3"
BOARD_3X3 = "8 6 7 / 2 5 4 / 3 0 1"


def get(host, port, path, timeout=30.0):
    """One GET on a fresh connection: (status, seconds)."""
    started = time.monotonic()
    conn = http.client.HTTPConnection(host, port, timeout=timeout)
    try:
        conn.request("GET", path)
        response = conn.getresponse()
        response.read()
        return response.status, time.monotonic() - started
    except OSError as e:
        return f"error {type(e).__name__}", time.monotonic() - started
    finally:
        conn.close()


def peak_rss_mb(pid):
    with open(f"/proc/{pid}/status") as f:
        match = re.search(r"VmHWM:\s+(\d+) kB", f.read())
    return int(match.group(1)) / 1024 if match else float("nan")


def quantile(values, q):
    values = sorted(values)
    return values[min(len(values) - 1, int(q * len(values)))]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bin", default="target/release/npuzzle")
    parser.add_argument("--seconds", type=float, default=15.0)
    parser.add_argument("--compares", type=int, default=200)
    parser.add_argument("--idle", type=int, default=1000)
    args = parser.parse_args()

    server = subprocess.Popen(
        [args.bin, "serve", "--port", "0"],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:
        line = server.stdout.readline()
        address = re.search(r"http://([\d.]+):(\d+)/", line)
        host, port = address.group(1), int(address.group(2))
        from urllib.parse import quote

        board_path = f"/api/board?board={quote(BOARD_3X3)}"
        compare_path = f"/api/compare?rows=4&cols=4&board={quote(HARD)}"
        status, seconds = get(host, port, board_path)
        print(f"npuzzle serve on {host}:{port} ({os.cpu_count()} cores); 3x3 table: "
              f"{status} in {seconds:.2f} s")

        # 1. Hard compares in flight, 3x3 boards meanwhile.
        stop = time.monotonic() + args.seconds
        statuses = {}
        lock = threading.Lock()

        def compares():
            while time.monotonic() < stop:
                status, _ = get(host, port, compare_path, timeout=60)
                with lock:
                    statuses[status] = statuses.get(status, 0) + 1
                if status == 503:
                    time.sleep(0.05)

        threads = [threading.Thread(target=compares) for _ in range(args.compares)]
        for t in threads:
            t.start()
        time.sleep(1.0)
        latencies, bad = [], 0
        while time.monotonic() < stop:
            status, seconds = get(host, port, board_path)
            latencies.append(seconds)
            bad += status != 200
            time.sleep(0.1)
        for t in threads:
            t.join()
        print(f"1. {args.compares} clients sending hard 4x4 compares for {args.seconds:.0f} s: "
              f"compare statuses {dict(sorted(statuses.items(), key=str))}")
        print(f"   3x3 /api/board meanwhile: {len(latencies)} requests, {bad} not 200, "
              f"p50 {quantile(latencies, 0.5) * 1e3:.1f} ms, "
              f"p99 {quantile(latencies, 0.99) * 1e3:.1f} ms, "
              f"max {max(latencies) * 1e3:.1f} ms")
        print(f"   server peak RSS (VmHWM): {peak_rss_mb(server.pid):.0f} MB")

        # 2. Idle and slow connections.
        sockets = []
        for k in range(args.idle):
            s = socket.create_connection((host, port))
            if k % 2:
                s.sendall(b"GET /api/shapes HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ")
            sockets.append(s)
        time.sleep(0.5)
        latencies = []
        bad = 0
        for _ in range(20):
            status, seconds = get(host, port, board_path)
            latencies.append(seconds)
            bad += status != 200
        print(f"2. {args.idle} idle connections open (half with a head begun): 20 requests, "
              f"{bad} not 200, max {max(latencies) * 1e3:.1f} ms")
        time.sleep(11.0)
        closed = 0
        for s in sockets:
            s.settimeout(0.01)
            try:
                closed += s.recv(1) == b""
            except (socket.timeout, BlockingIOError):
                pass
            except OSError:
                closed += 1
            s.close()
        print(f"   after 11 s (idle timeout 10 s): {closed} of {args.idle} closed by the server")
        return 0
    finally:
        server.kill()
        server.wait()


if __name__ == "__main__":
    sys.exit(main())
