"""deploy/kubernetes: every manifest is valid against the Kubernetes API's schemas
(strict: an unknown or misspelt field fails), and the desktops' pod keeps what
docs/deploy.md promises: non-root without privileges, probes on the health
endpoints, resources set, the token from the Secret where the image reads it,
and the same user and port as deploy/Containerfile, and a NetworkPolicy that
admits only labelled clients. Needs no desktop or cluster."""
import copy
import re
from pathlib import Path

import kubernetes_validate
import pytest
import yaml

REPO = Path(__file__).resolve().parents[2]
MANIFESTS = REPO / "deploy" / "kubernetes"
CONTAINERFILE = REPO / "deploy" / "Containerfile"
# The oldest Kubernetes still commonly run, and the newest the validator knows.
VERSIONS = ("1.29", kubernetes_validate.latest_version())


def documents():
    """(file name, document) for each YAML document in deploy/kubernetes."""
    found = []
    for path in sorted(MANIFESTS.glob("*.y*ml")):
        for doc in yaml.safe_load_all(path.read_text()):
            if doc is not None:
                found.append((path.name, doc))
    return found


DOCUMENTS = documents()


def of_kind(kind):
    docs = [doc for _, doc in DOCUMENTS if doc.get("kind") == kind]
    assert len(docs) == 1, f"want one {kind} in {MANIFESTS}, found {len(docs)}"
    return docs[0]


def image_setting(pattern):
    """The first group of PATTERN in deploy/Containerfile."""
    found = re.search(pattern, CONTAINERFILE.read_text(), re.MULTILINE)
    assert found, f"{pattern} not in {CONTAINERFILE}"
    return found[1]


def test_the_manifests_are_there():
    kinds = sorted(doc["kind"] for _, doc in DOCUMENTS)
    assert kinds == ["NetworkPolicy", "Secret", "Service", "StatefulSet"], kinds


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize("name,doc", DOCUMENTS, ids=[f"{n}:{d['kind']}" for n, d in DOCUMENTS])
def test_each_manifest_is_valid(name, doc, version):
    kubernetes_validate.validate(doc, version, strict=True)


def test_the_validator_rejects_a_misspelt_field():
    # So that a pass above means something: the same StatefulSet with one field
    # misspelt, and one of the wrong type, fail.
    bad = copy.deepcopy(of_kind("StatefulSet"))
    bad["spec"]["template"]["spec"]["containers"][0]["readinessprobe"] = {}
    with pytest.raises(kubernetes_validate.ValidationError):
        kubernetes_validate.validate(bad, VERSIONS[-1], strict=True)
    bad = copy.deepcopy(of_kind("StatefulSet"))
    bad["spec"]["replicas"] = "two"
    with pytest.raises(kubernetes_validate.ValidationError):
        kubernetes_validate.validate(bad, VERSIONS[-1], strict=True)


def pod():
    return of_kind("StatefulSet")["spec"]["template"]["spec"]


def desktop_container():
    containers = pod()["containers"]
    assert len(containers) == 1, "one desktop per pod"
    return containers[0]


def test_the_pod_runs_as_the_image_user_without_privileges():
    context = pod()["securityContext"]
    assert context["runAsNonRoot"] is True
    assert str(context["runAsUser"]) == image_setting(r"^USER (\d+)")
    assert context["seccompProfile"]["type"] == "RuntimeDefault"
    assert pod()["automountServiceAccountToken"] is False
    for container in pod()["containers"]:
        own = container["securityContext"]
        assert own["allowPrivilegeEscalation"] is False
        assert own.get("privileged", False) is False
        assert own["readOnlyRootFilesystem"] is True
        assert own["capabilities"]["drop"] == ["ALL"]
        assert "add" not in own["capabilities"]
    # A read-only root needs a writable /tmp for the desktop's sockets and HOME.
    assert "/tmp" in {m["mountPath"] for m in desktop_container()["volumeMounts"]}


def test_the_probes_ask_the_health_endpoints_on_the_served_port():
    container = desktop_container()
    port = image_setting(r"AXSIGHT_PORT=(\d+)")
    ports = {p["name"]: p["containerPort"] for p in container["ports"]}
    assert ports == {"mcp": int(port)}
    for probe, path in (("readinessProbe", "/readyz"), ("livenessProbe", "/healthz"),
                        ("startupProbe", "/healthz")):
        get = container[probe]["httpGet"]
        assert (get["path"], get["port"]) == (path, "mcp"), probe


def quantity(value):
    """A CPU or memory quantity as a number (cores, bytes)."""
    units = {"m": 1e-3, "Ki": 2**10, "Mi": 2**20, "Gi": 2**30}
    text = str(value)
    for unit, factor in units.items():
        if text.endswith(unit):
            return float(text[: -len(unit)]) * factor
    return float(text)


def test_resources_are_requested_and_limited():
    resources = desktop_container()["resources"]
    for what in ("cpu", "memory"):
        request = quantity(resources["requests"][what])
        limit = quantity(resources["limits"][what])
        assert 0 < request <= limit, (what, request, limit)


def test_the_token_comes_from_the_secret_where_the_image_reads_it():
    secret = of_kind("Secret")
    token_file = image_setting(r"AXSIGHT_TOKEN_FILE=(\S+)")
    env = {e["name"]: e.get("value") for e in desktop_container().get("env", [])}
    token_file = env.get("AXSIGHT_TOKEN_FILE", token_file)
    directory, key = token_file.rsplit("/", 1)
    assert key in secret["stringData"]
    volumes = {v["name"]: v for v in pod()["volumes"]}
    mounts = [m for m in desktop_container()["volumeMounts"] if m["mountPath"] == directory]
    assert len(mounts) == 1 and mounts[0]["readOnly"] is True, mounts
    assert volumes[mounts[0]["name"]]["secret"]["secretName"] == secret["metadata"]["name"]
    # The placeholder must not work as a token: the entrypoint wants 32 characters.
    assert len(secret["stringData"][key].strip()) < 32


def test_the_service_names_each_desktop():
    service = of_kind("Service")
    statefulset = of_kind("StatefulSet")
    assert service["spec"]["clusterIP"] == "None", "headless: a session lives in one pod"
    assert statefulset["spec"]["serviceName"] == service["metadata"]["name"]
    labels = statefulset["spec"]["template"]["metadata"]["labels"]
    assert service["spec"]["selector"].items() <= labels.items()
    port_names = {p["name"] for p in desktop_container()["ports"]}
    assert {p["targetPort"] for p in service["spec"]["ports"]} <= port_names


def test_the_network_policy_guards_the_desktops_port():
    policy = of_kind("NetworkPolicy")["spec"]
    labels = of_kind("StatefulSet")["spec"]["template"]["metadata"]["labels"]
    assert policy["podSelector"]["matchLabels"].items() <= labels.items()
    assert "Ingress" in policy["policyTypes"]
    port_names = {p["name"] for p in desktop_container()["ports"]}
    for rule in policy["ingress"]:
        assert rule["from"], "an ingress rule without sources admits everyone"
        assert {p["port"] for p in rule["ports"]} <= port_names
