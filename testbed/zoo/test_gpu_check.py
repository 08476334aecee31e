"""infra/gpu-check without a GPU: what it finds of CUDA's libraries, and where it stops and why.

    python3 -m unittest discover -s testbed/zoo -v
"""
import contextlib
import importlib.machinery
import importlib.util
import io
import os
import tempfile
import unittest
from pathlib import Path
from unittest import mock

SCRIPT = Path(__file__).resolve().parents[2] / "infra" / "gpu-check"


def load():
    loader = importlib.machinery.SourceFileLoader("gpu_check", str(SCRIPT))
    spec = importlib.util.spec_from_loader("gpu_check", loader)
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    return module


class GpuCheckTest(unittest.TestCase):

    def setUp(self):
        self.check = load()
        self.dir = tempfile.TemporaryDirectory()
        self.libs = Path(self.dir.name)
        self.addCleanup(self.dir.cleanup)

    def touch(self, *names):
        for n in names:
            (self.libs / n).write_bytes(b"")

    def run_main(self, gpus, args=()):
        out = io.StringIO()
        with mock.patch.dict(os.environ, {"LD_LIBRARY_PATH": str(self.libs)}), \
                mock.patch.object(self.check, "ldconfig", return_value={}), \
                mock.patch.object(self.check, "library_dirs", return_value=[str(self.libs)]), \
                mock.patch.object(self.check, "find_gpus", return_value=gpus), \
                contextlib.redirect_stdout(out):
            code = self.check.main(list(args))
        return code, out.getvalue()

    def test_finds_the_libraries_by_soname_and_tells_another_major_version(self):
        self.touch("libcudart.so.12", "libcudart.so.12.4.127", "libcudnn.so.8", "libcublas.so")
        with mock.patch.object(self.check, "ldconfig", return_value={}), \
                mock.patch.object(self.check, "library_dirs", return_value=[str(self.libs)]):
            found = self.check.find_libraries()
        # Sonames only (name.so.MAJOR): not the bare .so nor the full version's file.
        self.assertEqual({"libcudart.so.12", "libcudnn.so.8"}, set(found))
        code, out = self.run_main(([], "no nvidia-smi on the PATH and no /dev/nvidia* device"))
        self.assertIn("libcudart.so.12      found", out)
        self.assertIn("libcudnn.so.9        missing (cuDNN 9); found libcudnn.so.8: another version", out)

    def test_no_gpu_stops_with_exit_3_and_one_line_saying_why(self):
        code, out = self.run_main(([], "no nvidia-smi on the PATH and no /dev/nvidia* device"))
        self.assertEqual(3, code)
        self.assertEqual("gpu-check: no GPU found: no nvidia-smi on the PATH and no /dev/nvidia* device; nothing measured",
                         out.strip().splitlines()[-1])

    def test_a_gpu_without_cuda_12_and_cudnn_9_stops_with_exit_4_naming_what_is_missing(self):
        self.touch("libcudart.so.12", "libcublas.so.12", "libcublasLt.so.12", "libcufft.so.11", "libcurand.so.10")
        code, out = self.run_main((["0, NVIDIA H100, 550.54, 81559 MiB"], None))
        self.assertEqual(4, code)
        self.assertIn("  0, NVIDIA H100, 550.54, 81559 MiB", out)
        self.assertTrue(out.strip().splitlines()[-1].startswith("gpu-check: cannot run the zoo on CUDA: missing libcudnn.so.9;"))

    def test_with_gpu_and_libraries_but_no_runner_it_says_so_with_exit_5(self):
        self.touch("libcudart.so.12", "libcublas.so.12", "libcublasLt.so.12", "libcufft.so.11", "libcurand.so.10", "libcudnn.so.9")
        zoo = self.libs / "zoo" / "m"
        zoo.mkdir(parents=True)
        (zoo / "model.json").write_text("{}")
        with mock.patch.object(self.check, "runner", return_value=(None, "no runner: no Kairos command line")):
            code, out = self.run_main((["0, NVIDIA H100, 550.54, 81559 MiB"], None), ["--zoo", str(self.libs / "zoo")])
        self.assertEqual(5, code)
        self.assertEqual("gpu-check: no runner: no Kairos command line", out.strip().splitlines()[-1])

    def test_the_papers_figures_are_the_reference_profiles(self):
        device, tau = self.check.PAPERS["resnet50"]
        self.assertAlmostEqual(2.7, tau(1))
        self.assertAlmostEqual(14.7, tau(16))
        device, tau = self.check.PAPERS["googlenet"]
        self.assertAlmostEqual(0.3051 * 32 + 1.052, tau(32))


if __name__ == "__main__":
    unittest.main()
