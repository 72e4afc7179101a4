"""`GET /api/v1/formula/?check_type=&operator=&threshold=[&comparison_type=]` →
`{"formula": "Pass when actual − expected ≤ 0"}`.

The check form's live preview of a rule being written. A dynamic range or anomaly detection
(`comparison_type` of source range or anomaly) decides by the range it learns, not by the formula
(executions/recording.py): the preview then words that range's rule, and the formula's fields are
not needed. The words come from the server's own
evaluation (executions/evaluation.py), so the preview reads exactly like the verdicts of the
results later; the browser keeps no copy of them.
"""

from __future__ import annotations

import math

from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from drf_spectacular.utils import extend_schema, inline_serializer
from rest_framework import serializers
from rest_framework.decorators import api_view
from rest_framework.response import Response

from rules.models import ComparisonType

from .evaluation import CHECK_TYPES, OPERATORS, rule_in_words

# The comparison types that decide by a learned range, whatever the formula says.
DECIDED_BY_RANGE = (ComparisonType.Source.RANGE, ComparisonType.Source.ANOMALY)


class FormulaRequest(serializers.Serializer):
    check_type = serializers.ChoiceField(choices=list(CHECK_TYPES), required=False)
    operator = serializers.ChoiceField(choices=list(OPERATORS), required=False)
    threshold = serializers.FloatField(
        required=False, error_messages={"invalid": gettext_lazy("The threshold must be a number.")}
    )
    comparison_type = serializers.SlugRelatedField(
        slug_field="key",
        queryset=ComparisonType.objects.all(),
        required=False,
        error_messages={
            "does_not_exist": gettext_lazy('Unknown comparison type "{value}"; see /api/v1/comparison-types/.')
        },
    )

    def validate_threshold(self, value: float) -> float:
        if not math.isfinite(value):
            raise serializers.ValidationError(_("The threshold must be a finite number."))
        return value

    def validate(self, attrs):
        kind = attrs.get("comparison_type")
        if kind is not None and kind.source in DECIDED_BY_RANGE:
            return attrs
        missing = {
            field: [_("This field is required.")]
            for field in ("check_type", "operator", "threshold")
            if field not in attrs
        }
        if missing:
            raise serializers.ValidationError(missing)
        return attrs


@extend_schema(
    parameters=[FormulaRequest],
    responses=inline_serializer(
        "Formula",
        {
            "formula": serializers.CharField(),
            "by_range": serializers.BooleanField(help_text="The learned range decides; the formula is not used"),
        },
    ),
)
@api_view(["GET"])
def formula_preview(request):
    """The rule in words for a formula, an operator and a threshold, before any run; for a
    dynamic range or anomaly detection, the rule of the range it learns."""
    given = FormulaRequest(data=request.query_params)
    given.is_valid(raise_exception=True)
    rule = given.validated_data
    kind = rule.get("comparison_type")
    if kind is not None and kind.source in DECIDED_BY_RANGE:
        words = kind.description or _("Pass when the statistic lies within the range of %(name)s") % {"name": kind.name}
        return Response({"formula": words, "by_range": True})
    return Response(
        {"formula": rule_in_words(rule["check_type"], rule["operator"], rule["threshold"]), "by_range": False}
    )
