"""Runs a command against a fresh moto S3 server on loopback: `with_moto.py -- CMD ARGS...`.

The server listens on 127.0.0.1 on a port the OS picks (no race for a free port), with the
bucket `lro-test` created. The command gets the standard AWS environment pointing at it
(AWS_ENDPOINT_URL, AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_REGION) and
LRO_TEST_S3_BUCKET. The server stops when the command ends; its exit status is ours.
"""

import logging
import os
import subprocess
import sys

import boto3
from moto.server import ThreadedMotoServer

BUCKET = "lro-test"


def main() -> int:
    args = sys.argv[1:]
    if args[:1] == ["--"]:
        args = args[1:]
    if not args:
        print("usage: with_moto.py -- COMMAND [ARGS...]", file=sys.stderr)
        return 2
    logging.getLogger("werkzeug").setLevel(logging.ERROR)
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    try:
        host, port = server.get_host_and_port()
        env = dict(
            os.environ,
            AWS_ENDPOINT_URL=f"http://{host}:{port}",
            AWS_ACCESS_KEY_ID="lro-test-key",
            AWS_SECRET_ACCESS_KEY="lro-test-secret",
            AWS_REGION="us-east-1",
            LRO_TEST_S3_BUCKET=BUCKET,
        )
        env.pop("AWS_ENDPOINT_URL_S3", None)
        env.pop("AWS_SESSION_TOKEN", None)
        boto3.client(
            "s3",
            endpoint_url=env["AWS_ENDPOINT_URL"],
            aws_access_key_id=env["AWS_ACCESS_KEY_ID"],
            aws_secret_access_key=env["AWS_SECRET_ACCESS_KEY"],
            region_name=env["AWS_REGION"],
        ).create_bucket(Bucket=BUCKET)
        print(f"with_moto: S3 on {env['AWS_ENDPOINT_URL']}, bucket {BUCKET}", file=sys.stderr)
        return subprocess.call(args, env=env)
    finally:
        server.stop()


if __name__ == "__main__":
    sys.exit(main())
