"""deploy/kubernetes/: no cluster runs here, so every YAML document is
loaded and the fields a working deployment needs are asserted, and the
ConfigMap's configuration is checked by the collector itself."""
import glob
import json
import os
import re
import subprocess
import tempfile
import unittest

import yaml

from build_paths import COLLECTOR, TOP

DIR = os.path.join(TOP, "deploy", "kubernetes")


def documents():
    docs = []
    for path in sorted(glob.glob(os.path.join(DIR, "*.yaml"))):
        with open(path) as f:
            docs += [(os.path.basename(path), d) for d in yaml.safe_load_all(f) if d is not None]
    return docs


def one(kind):
    found = [d for _, d in documents() if d["kind"] == kind]
    assert len(found) == 1, (kind, len(found))
    return found[0]


def mounts_by_volume(container, spec):
    volumes = {v["name"]: v for v in spec["volumes"]}
    return {m["mountPath"]: (m, volumes[m["name"]]) for m in container["volumeMounts"]}


class KubernetesManifests(unittest.TestCase):
    def test_every_document_has_the_fields_every_object_needs(self):
        docs = documents()
        self.assertEqual(sorted(d["kind"] for _, d in docs),
                         ["ConfigMap", "DaemonSet", "Namespace", "Pod"])
        api = {"Namespace": "v1", "ConfigMap": "v1", "Pod": "v1", "DaemonSet": "apps/v1"}
        for path, d in docs:
            with self.subTest(path=path, kind=d["kind"]):
                self.assertEqual(d["apiVersion"], api[d["kind"]])
                self.assertRegex(d["metadata"]["name"], r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$")

    def test_the_daemonset_runs_the_collector_hardened_over_the_sandbox_logs(self):
        ds = one("DaemonSet")
        self.assertEqual(ds["metadata"]["namespace"], "agt-system")
        template = ds["spec"]["template"]
        labels = template["metadata"]["labels"]
        for k, v in ds["spec"]["selector"]["matchLabels"].items():
            self.assertEqual(labels[k], v)  # else the API server refuses it
        spec = template["spec"]
        self.assertFalse(spec["automountServiceAccountToken"])
        [c] = spec["containers"]
        self.assertEqual(c["args"][:1], ["run"])
        sc = c["securityContext"]
        self.assertEqual(sc["capabilities"], {"drop": ["ALL"], "add": ["DAC_READ_SEARCH"]})
        self.assertTrue(sc["readOnlyRootFilesystem"])
        self.assertFalse(sc["allowPrivilegeEscalation"])
        self.assertFalse(sc["privileged"])
        mounts = mounts_by_volume(c, spec)
        logs_mount, logs_volume = mounts["/var/log/agt/sandboxes"]
        self.assertTrue(logs_mount["readOnly"])
        self.assertEqual(logs_volume["hostPath"]["path"], "/var/log/agt/sandboxes")
        for path in ("/var/log/agt-collector", "/var/lib/agt-collector"):
            self.assertIn("hostPath", mounts[path][1])  # the audit file outlives the pod
            self.assertFalse(mounts[path][0].get("readOnly", False))
        self.assertEqual(mounts["/etc/agt-collector/key"][1]["secret"]["secretName"],
                         "agt-collector-key")
        config_mount, config_volume = mounts["/etc/agt-collector/config.json"]
        self.assertEqual(config_volume["configMap"]["name"], one("ConfigMap")["metadata"]["name"])
        self.assertEqual(c["args"], ["run", "--config", "/etc/agt-collector/config.json"])

    def test_the_configmap_is_a_configuration_the_collector_accepts(self):
        config = json.loads(one("ConfigMap")["data"]["config.json"])
        ds = one("DaemonSet")
        mounts = mounts_by_volume(ds["spec"]["template"]["spec"]["containers"][0],
                                  ds["spec"]["template"]["spec"])
        # Every path it names is inside a writable or read mount of the pod.
        for key in ("output", "state_dir", "metrics_file", "key_file"):
            self.assertTrue(any(config[key].startswith(m + "/") or config[key] == m
                                for m in mounts), (key, config[key]))
        with tempfile.TemporaryDirectory() as tmp:
            key = os.path.join(tmp, "audit.key")
            subprocess.run([COLLECTOR, "keygen", "--out", key], check=True, capture_output=True)
            config["key_file"] = key  # the Secret's file, here
            path = os.path.join(tmp, "config.json")
            with open(path, "w") as f:
                json.dump(config, f)
            os.chmod(path, 0o600)
            r = subprocess.run([COLLECTOR, "check-config", path], capture_output=True, text=True)
            self.assertEqual((r.returncode, r.stderr), (0, ""), r.stdout)

    def test_the_sandbox_pod_writes_where_the_daemonset_watches(self):
        pod = one("Pod")
        spec = pod["spec"]
        self.assertTrue(spec["securityContext"]["runAsNonRoot"])
        self.assertEqual(spec["securityContext"]["runAsUser"], 65534)
        self.assertFalse(spec["automountServiceAccountToken"])
        [c] = spec["containers"]
        self.assertEqual(c["image"], "agt-sandbox/python-minimal-path:3.11")
        sc = c["securityContext"]
        self.assertEqual(sc["capabilities"], {"drop": ["ALL"]})
        self.assertTrue(sc["readOnlyRootFilesystem"])
        self.assertFalse(sc["allowPrivilegeEscalation"])
        env = {e["name"]: e["value"] for e in c["env"]}
        log_in_pod = env["AGT_DENIED_LOG"]
        mounts = mounts_by_volume(c, spec)
        mount_path = os.path.dirname(log_in_pod)
        mount, volume = mounts[mount_path]
        self.assertFalse(mount.get("readOnly", False))
        log_on_node = os.path.join(volume["hostPath"]["path"], os.path.basename(log_in_pod))
        # The node path matches the collector's watch pattern, and the
        # {sandbox_id} it yields is the pod's name.
        watch = json.loads(one("ConfigMap")["data"]["config.json"])["watch"][0]
        pattern = "^" + re.escape(watch).replace(re.escape("{sandbox_id}"),
                                                 "([A-Za-z0-9._-]+)") + "$"
        m = re.match(pattern, log_on_node)
        self.assertIsNotNone(m, (log_on_node, watch))
        self.assertEqual(m.group(1), pod["metadata"]["name"])
        self.assertTrue(log_on_node.startswith(
            mounts_by_volume(one("DaemonSet")["spec"]["template"]["spec"]["containers"][0],
                             one("DaemonSet")["spec"]["template"]["spec"])
            ["/var/log/agt/sandboxes"][1]["hostPath"]["path"] + "/"))


if __name__ == "__main__":
    unittest.main()
