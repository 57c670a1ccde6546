"""The Python stubs of URL Frontier's gRPC API, generated from the
project's proto/urlfrontier.proto with protoc and grpc_python_plugin
(protobuf-compiler-grpc) into a directory the caller owns and removes;
for tests/python/urlfrontier_test.py and clients/bench/urlfrontier-bench.py.
"""
import os
import shutil
import subprocess
import sys

PROTO_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..",
                         "..", "proto")


def generate(out_dir):
    """Returns the modules (urlfrontier_pb2, urlfrontier_pb2_grpc)."""
    subprocess.run([
        "protoc", "-I", PROTO_DIR, "--python_out=" + out_dir,
        "--grpc_out=" + out_dir,
        "--plugin=protoc-gen-grpc=" + shutil.which("grpc_python_plugin"),
        os.path.join(PROTO_DIR, "urlfrontier.proto")
    ], check=True)
    sys.path.insert(0, out_dir)
    import urlfrontier_pb2
    import urlfrontier_pb2_grpc
    return urlfrontier_pb2, urlfrontier_pb2_grpc
