"""The Python stubs of URL Frontier's gRPC API, generated from the
project's proto/urlfrontier.proto with protoc and grpc_python_plugin
(protobuf-compiler-grpc) into a directory the caller owns and removes;
for tests/python/urlfrontier_*test.py and clients/bench/urlfrontier-bench.py.
"""
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

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


def run_tests(module_globals):
    """The __main__ of a test file of the gRPC API: takes frontierd's path
    from argv, generates the stubs into a temporary directory (removed
    after), sets BINARY, pb and rpc in each of `module_globals` (the
    globals of the test file and of the modules it builds on), then runs
    unittest.main()."""
    binary = sys.argv.pop(1)
    stub_dir = tempfile.mkdtemp(prefix="urlfrontier-stubs-")
    try:
        pb, rpc = generate(stub_dir)
        for g in module_globals:
            g.update(BINARY=binary, pb=pb, rpc=rpc)
        unittest.main()
    finally:
        shutil.rmtree(stub_dir, ignore_errors=True)
