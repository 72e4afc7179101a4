"""An emitted OpenLineage event read back through openlineage-python's own classes: every key
must be one the classes know, every required one present, every schema URL the classes' own; the
classes' serialisation must then give the event back."""

from __future__ import annotations

from typing import Any

from openlineage.client.event_v2 import InputDataset, Job, Run, RunEvent, RunState
from openlineage.client.generated.data_quality_assertions_dataset import Assertion, DataQualityAssertionsDatasetFacet
from openlineage.client.generated.data_quality_metrics_input_dataset import (
    ColumnMetrics,
    DataQualityMetricsInputDatasetFacet,
)
from openlineage.client.generated.error_message_run import ErrorMessageRunFacet
from openlineage.client.serde import Serde

FACETS = {
    "dataQualityAssertions": DataQualityAssertionsDatasetFacet,
    "dataQualityMetrics": DataQualityMetricsInputDatasetFacet,
    "errorMessage": ErrorMessageRunFacet,
}


def read_back(event: dict[str, Any]) -> RunEvent:
    """The event as openlineage-python's RunEvent; TypeError or ValueError when it is not one."""
    return RunEvent(
        eventType=RunState(event["eventType"]),
        eventTime=event["eventTime"],
        producer=event["producer"],
        run=Run(runId=event["run"]["runId"], facets=_facets(event["run"]["facets"])),
        job=Job(namespace=event["job"]["namespace"], name=event["job"]["name"]),
        inputs=[
            InputDataset(namespace=i["namespace"], name=i["name"], inputFacets=_facets(i["inputFacets"]))
            for i in event["inputs"]
        ],
        outputs=[],
    )


def _facets(found: dict[str, Any]) -> dict[str, Any]:
    made = {}
    for key, body in found.items():
        kind = FACETS[key]
        assert body["_schemaURL"] == kind._get_schema(), (key, body["_schemaURL"])
        fields = {k: v for k, v in body.items() if not k.startswith("_")}
        if kind is DataQualityAssertionsDatasetFacet:
            fields["assertions"] = [Assertion(**a) for a in fields["assertions"]]
        if kind is DataQualityMetricsInputDatasetFacet:
            fields["columnMetrics"] = {c: ColumnMetrics(**m) for c, m in fields["columnMetrics"].items()}
        facet = kind(**fields)
        facet._producer = body["_producer"]
        made[key] = facet
    return made


def round_trip(event: dict[str, Any]) -> dict[str, Any]:
    """The event as openlineage-python writes it back, less the empty quantiles its ColumnMetrics
    adds by default."""
    written = Serde.to_dict(read_back(event))
    for dataset in written["inputs"]:
        for metrics in dataset["inputFacets"].get("dataQualityMetrics", {}).get("columnMetrics", {}).values():
            if metrics.get("quantiles") == {}:
                del metrics["quantiles"]
    return written
