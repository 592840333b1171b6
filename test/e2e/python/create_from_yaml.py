"""utils.create_from_yaml of the official Python client: a multi-document
file creates every object; creating it again fails with one
FailToCreateError that aggregates the server's conflicts, whose text is the
Status bodies as the server sent them (the client's own tests compare it).

Usage: create_from_yaml.py KUBECONFIG NAMESPACE YAML_FILE
Prints one JSON object: the kinds created, then each failure's HTTP status,
reason and the aggregated message.
"""
import json
import sys

from kubernetes import client, config, utils

kubeconfig, namespace, path = sys.argv[1], sys.argv[2], sys.argv[3]
config.load_kube_config(config_file=kubeconfig)
api = client.ApiClient()

created = utils.create_from_yaml(api, path, namespace=namespace)
kinds = [type(objs[0]).__name__ for objs in created]
try:
    utils.create_from_yaml(api, path, namespace=namespace)
    failure = None
except utils.FailToCreateError as e:
    failure = {
        "statuses": [x.status for x in e.api_exceptions],
        "reasons": [json.loads(x.body)["reason"] for x in e.api_exceptions],
        "message": str(e),
    }
print(json.dumps({"created": kinds, "failure": failure}))
