"""An informer as Python users write one with the official client: list,
then watch from the list's resourceVersion in a thread, keeping a cache of
the objects. The main thread changes ConfigMaps through the API and waits
until the cache shows them.

Usage: informer.py KUBECONFIG NAMESPACE
Prints one JSON object: the cache's final contents and the events applied.
"""
import json
import queue
import sys
import threading

from kubernetes import client, config, watch

kubeconfig, namespace = sys.argv[1], sys.argv[2]
config.load_kube_config(config_file=kubeconfig)
core = client.CoreV1Api()

listed = core.list_namespaced_config_map(namespace)
cache = {cm.metadata.name: (cm.data or {}) for cm in listed.items}
applied = queue.Queue()
stopper = watch.Watch()


def run():
    for event in stopper.stream(core.list_namespaced_config_map, namespace,
                                resource_version=listed.metadata.resource_version, timeout_seconds=60):
        obj = event["object"]
        if event["type"] == "DELETED":
            cache.pop(obj.metadata.name, None)
        else:
            cache[obj.metadata.name] = obj.data or {}
        applied.put([event["type"], obj.metadata.name])


thread = threading.Thread(target=run, daemon=True)
thread.start()

core.create_namespaced_config_map(namespace, {"metadata": {"name": "inf-a"}, "data": {"v": "1"}})
core.create_namespaced_config_map(namespace, {"metadata": {"name": "inf-b"}, "data": {"v": "1"}})
core.replace_namespaced_config_map("inf-a", namespace, {"metadata": {"name": "inf-a"}, "data": {"v": "2"}})
core.delete_namespaced_config_map("inf-b", namespace)

events = []
while len(events) < 4:
    events.append(applied.get(timeout=60))
stopper.stop()
print(json.dumps({"cache": {k: cache[k] for k in sorted(cache) if k.startswith("inf-")}, "events": events}))
