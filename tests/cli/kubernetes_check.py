"""Checks examples/kubernetes (docs/kubernetes.md) as far as a machine without a cluster or a container engine can:
the Job manifest parses and is consistent with itself and with examples/experiments/sweep.yaml; the command its
container runs, run here with the ConfigMap's files where the Job mounts them, gives the sweep, and the documented
way of reading the CSV from the pod's log works; the Dockerfile's runtime stage installs the packages that provide
every shared library the built CLI needs, and its build stage only packages scripts/install-deps.sh installs.

Usage: kubernetes_check.py MFUSIM REPO
"""
import csv
import io
import pathlib
import re
import subprocess
import sys
import tempfile

import yaml

cli, repo = sys.argv[1], pathlib.Path(sys.argv[2])
kube = repo / "examples" / "kubernetes"
failures = []


def check(name, ok):
    if not ok:
        failures.append(name)
        print("FAIL: kubernetes: " + name, file=sys.stderr)


docs = list(yaml.safe_load_all((kube / "mfusim-sweep-job.yaml").read_text()))
configmap = next(d for d in docs if d["kind"] == "ConfigMap")
job = next(d for d in docs if d["kind"] == "Job")
check("the ConfigMap's sweep.yaml is examples/experiments/sweep.yaml",
      configmap["data"]["sweep.yaml"] == (repo / "examples" / "experiments" / "sweep.yaml").read_text())
check("Job apiVersion", job["apiVersion"] == "batch/v1")
pod = job["spec"]["template"]["spec"]
check("a Job's pod never restarts in place", pod["restartPolicy"] == "Never")
(container,) = pod["containers"]
(mount,) = container["volumeMounts"]
volume = next(v for v in pod["volumes"] if v["name"] == mount["name"])
check("the mounted volume is the ConfigMap", volume["configMap"]["name"] == configmap["metadata"]["name"])
args = container["args"]
config = args[args.index("--config") + 1]
check("--config reads a file of the mounted ConfigMap",
      config.startswith(mount["mountPath"] + "/") and config[len(mount["mountPath"]) + 1:] in configmap["data"])

# The container's command, here: the ConfigMap's files where the pod has them, stdout and stderr together as
# `kubectl logs` gives them, then the documented filter.
with tempfile.TemporaryDirectory() as tmp:
    for name, text in configmap["data"].items():
        pathlib.Path(tmp, name).write_text(text)
    local = [a.replace(mount["mountPath"], tmp, 1) if a.startswith(mount["mountPath"] + "/") else a for a in args]
    run = subprocess.run([cli] + local, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=120)
check("the Job's command runs", run.returncode == 0)
documented = re.search(r"kubectl logs job/\S+ \| grep -v '(\^mfusim )' > sweep\.csv",
                       (kube / "mfusim-sweep-job.yaml").read_text())
check("the manifest documents how to read the CSV", documented is not None)
kept = [line for line in run.stdout.splitlines() if not re.match(documented.group(1) if documented else "^$", line)]
rows = list(csv.DictReader(io.StringIO("\n".join(kept) + "\n")))
check("the log, filtered as documented, is the sweep's CSV: 9 concurrencies x 2 TP",
      len(rows) == 18 and all(float(r["tpot_ms"]) > 0 for r in rows))

# The Dockerfile: the packages of each stage.
stages = (kube / "Dockerfile").read_text().split("\nFROM ")[1:]  # the text before the first FROM is no stage
def apt_packages(stage):
    m = re.search(r"apt-get install -y --no-install-recommends (.*?)\s*\\\n \&\& rm", stage, re.S)
    return set(m.group(1).replace("\\\n", " ").split()) if m else set()
build_packages, runtime_packages = apt_packages(stages[0]), apt_packages(stages[-1])
deps = (repo / "scripts" / "install-deps.sh").read_text()
check("the build stage installs only what scripts/install-deps.sh installs",
      bool(build_packages) and all(re.search(r"(?<![\w+-])" + re.escape(p) + r"(?![\w+-])", deps) for p in build_packages))
runtime_libraries = {"libc.so.6", "libm.so.6", "libstdc++.so.6", "libgcc_s.so.1", "libpthread.so.0", "libdl.so.2"}
for line in subprocess.run(["ldd", cli], stdout=subprocess.PIPE, text=True, check=True).stdout.splitlines():
    m = re.match(r"\s*(\S+) => (\S+)", line)
    # The sanitizer runtimes of ci/sanitizers.sh's build of the CLI: never part of the image's build.
    if not m or m.group(1) in runtime_libraries or re.match(r"lib(asan|ubsan|tsan|lsan)\.so", m.group(1)):
        continue
    owner = subprocess.run(["dpkg", "-S", m.group(2)], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    if owner.returncode != 0:  # /lib is a link to /usr/lib on Debian 12: dpkg knows one of the two paths
        owner = subprocess.run(["dpkg", "-S", "/usr" + m.group(2)], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                               text=True)
    package = owner.stdout.split(":")[0] if owner.returncode == 0 else "(no package)"
    check(f"the runtime stage installs {package} ({m.group(1)})", package in runtime_packages)

print(f"kubernetes checks: {len(failures)} failed")
sys.exit(1 if failures else 0)
