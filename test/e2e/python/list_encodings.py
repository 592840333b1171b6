"""The official Python client listing ConfigMaps, as it is and asking for gzip.

Usage: list_encodings.py KUBECONFIG NAMESPACE

urllib3 sends `Accept-Encoding: identity` unless told otherwise; with the
header set to gzip it decodes the gzipped answer itself. Prints one JSON
object: the item count and the total data length of each list.
"""
import json
import sys

from kubernetes import client, config

kubeconfig, namespace = sys.argv[1], sys.argv[2]
config.load_kube_config(config_file=kubeconfig)


def listed(api_client):
    items = client.CoreV1Api(api_client).list_namespaced_config_map(namespace).items
    return {"items": len(items), "bytes": sum(len(v) for i in items for v in (i.data or {}).values())}


as_is = client.ApiClient()
gzip = client.ApiClient()
gzip.set_default_header("Accept-Encoding", "gzip")
print(json.dumps({"identity": listed(as_is), "gzip": listed(gzip)}))
