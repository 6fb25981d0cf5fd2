#!/usr/bin/env python3
"""s3check.py - a round trip through the S3 store of S3_ENDPOINT_URL with boto3, the client that
ts_salobj's AsyncS3Bucket uses. scripts/s3/s3.sh runs it (`s3.sh check`); it needs only boto3.

It creates a bucket, puts and gets a small object, uploads ~20 MiB with boto3's managed transfer
(upload_fileobj, multipart above a 5 MiB threshold, with ExtraArgs ContentType as an LFA upload
sets it), checks size, content type, the multipart ETag and the SHA-256 of the bytes it downloads
back, lists, deletes everything it made and prints one line per step. Exit 0 when all steps pass.

Environment: S3_ENDPOINT_URL (required), AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY,
AWS_DEFAULT_REGION (as `s3.sh env` prints them); S3CHECK_MIB (default 20) sets the size.
"""

import hashlib
import io
import os
import sys
import time

import boto3
from boto3.s3.transfer import TransferConfig
from botocore.config import Config

MiB = 1024 * 1024


def step(name, t0):
    print(f"s3check: {name} ok ({time.monotonic() - t0:.2f} s)", flush=True)


def main() -> int:
    endpoint = os.environ.get("S3_ENDPOINT_URL") or ""
    if not endpoint:
        print("s3check: S3_ENDPOINT_URL is not set", file=sys.stderr)
        return 2
    size = int(os.environ.get("S3CHECK_MIB", "20")) * MiB + 12345  # not a multiple of the part size
    client = boto3.session.Session().client(
        "s3",
        endpoint_url=endpoint,
        config=Config(retries={"max_attempts": 3, "mode": "standard"}, s3={"addressing_style": "path"}),
    )
    # A bucket named by salobj's rule (rubinobs-{category}-{instance}, lower case), unique per run.
    bucket = f"rubinobs-lfa-s3check{os.getpid()}.{int(time.time())}"
    key_small = "S3Check/check/2026/12/05/S3Check_check_2026-12-05T20:00:00.000.txt"
    key_big = "S3Check:1/big/2026/12/05/S3Check:1_big_2026-12-05T20:00:00.000.dat"
    made = []
    t_all = time.monotonic()
    try:
        t0 = time.monotonic()
        names = [b["Name"] for b in client.list_buckets().get("Buckets", [])]
        step(f"list_buckets ({len(names)} buckets)", t0)

        t0 = time.monotonic()
        client.create_bucket(Bucket=bucket)
        client.head_bucket(Bucket=bucket)
        step(f"create_bucket {bucket}", t0)

        t0 = time.monotonic()
        body = b"salgo s3check\n" * 100
        client.put_object(Bucket=bucket, Key=key_small, Body=body, ContentType="text/plain")
        made.append(key_small)
        got = client.get_object(Bucket=bucket, Key=key_small)
        data = got["Body"].read()
        if data != body:
            raise AssertionError(f"get_object {key_small}: {len(data)} bytes differ from the {len(body)} put")
        if got.get("ContentType") != "text/plain":
            raise AssertionError(f"get_object {key_small}: ContentType {got.get('ContentType')!r}, want 'text/plain'")
        step(f"put_object/get_object {len(body)} bytes", t0)

        payload = os.urandom(size)
        want = hashlib.sha256(payload).hexdigest()
        cfg = TransferConfig(multipart_threshold=5 * MiB, multipart_chunksize=5 * MiB, max_concurrency=4)
        sent = [0]

        def progress(n):
            sent[0] += n

        t0 = time.monotonic()
        client.upload_fileobj(
            io.BytesIO(payload), bucket, key_big,
            ExtraArgs={"ContentType": "application/octet-stream"}, Callback=progress, Config=cfg,
        )
        made.append(key_big)
        dt = time.monotonic() - t0
        if sent[0] != size:
            raise AssertionError(f"upload_fileobj progress summed to {sent[0]}, want {size}")
        step(f"upload_fileobj {size} bytes multipart ({size / MiB / dt:.1f} MiB/s)", t0)

        t0 = time.monotonic()
        head = client.head_object(Bucket=bucket, Key=key_big)
        if head["ContentLength"] != size:
            raise AssertionError(f"head_object {key_big}: ContentLength {head['ContentLength']}, want {size}")
        if head.get("ContentType") != "application/octet-stream":
            raise AssertionError(f"head_object {key_big}: ContentType {head.get('ContentType')!r}")
        parts = -(-size // (5 * MiB))
        etag = head["ETag"].strip('"')
        if not etag.endswith(f"-{parts}"):
            raise AssertionError(f"head_object {key_big}: ETag {etag!r} is not a {parts}-part multipart ETag")
        step(f"head_object (ETag {etag})", t0)

        t0 = time.monotonic()
        out = io.BytesIO()
        client.download_fileobj(bucket, key_big, out, Config=cfg)
        got_sum = hashlib.sha256(out.getvalue()).hexdigest()
        if got_sum != want:
            raise AssertionError(f"download_fileobj {key_big}: sha256 {got_sum}, want {want}")
        step(f"download_fileobj sha256 {want[:16]}... equal", t0)

        t0 = time.monotonic()
        keys = sorted(o["Key"] for o in client.list_objects_v2(Bucket=bucket).get("Contents", []))
        if keys != sorted(made):
            raise AssertionError(f"list_objects_v2: {keys}, want {sorted(made)}")
        try:
            client.head_object(Bucket=bucket, Key="no/such/key")
            raise AssertionError("head_object of a missing key did not fail")
        except client.exceptions.ClientError as e:
            if e.response["Error"]["Code"] != "404":
                raise
        step("list_objects_v2 and a missing key's 404", t0)
    finally:
        for k in made:
            try:
                client.delete_object(Bucket=bucket, Key=k)
            except Exception as e:  # noqa: BLE001 - clean-up only
                print(f"s3check: delete_object {k}: {e}", file=sys.stderr)
        try:
            client.delete_bucket(Bucket=bucket)
        except Exception as e:  # noqa: BLE001
            if made or "NoSuchBucket" not in str(e):
                print(f"s3check: delete_bucket {bucket}: {e}", file=sys.stderr)
    print(f"s3check: PASS against {endpoint} in {time.monotonic() - t_all:.1f} s", flush=True)
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except Exception as e:  # noqa: BLE001 - one clear line, then the exit code
        print(f"s3check: FAIL: {type(e).__name__}: {e}", file=sys.stderr)
        sys.exit(1)
