"""The official Python client's watch against k8ts.

Usage: watch.py KUBECONFIG NAMESPACE

1. A watch as Watch.stream starts one (the client sends watch=True): the
   namespaces that exist arrive as ADDED events.
2. A watch from a list's resourceVersion sees a ConfigMap created, changed
   and deleted after that list, in order, and stops at the DELETED event.
Prints one JSON object with what each watch saw.
"""
import json
import sys

from kubernetes import client, config, watch

kubeconfig, namespace = sys.argv[1], sys.argv[2]
config.load_kube_config(config_file=kubeconfig)
core = client.CoreV1Api()

existing = []
w = watch.Watch()
for event in w.stream(core.list_namespace, timeout_seconds=30):
    existing.append([event["type"], event["object"].metadata.name])
    if event["object"].metadata.name == "default":
        w.stop()

rv = core.list_namespaced_config_map(namespace).metadata.resource_version
name = "watched"
core.create_namespaced_config_map(namespace, {"metadata": {"name": name}, "data": {"a": "1"}})
core.patch_namespaced_config_map(name, namespace, {"data": {"a": "2"}})
core.delete_namespaced_config_map(name, namespace)

changes = []
w = watch.Watch()
for event in w.stream(core.list_namespaced_config_map, namespace, resource_version=rv, timeout_seconds=30):
    obj = event["object"]
    if obj.metadata.name != name:
        continue
    changes.append([event["type"], (obj.data or {}).get("a")])
    if event["type"] == "DELETED":
        w.stop()

print(json.dumps({"existing": existing, "changes": changes}))
