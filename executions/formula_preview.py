"""`GET /api/v1/formula/?check_type=&operator=&threshold=` → `{"formula": "Pass when actual − expected ≤ 0"}`.

The check form's live preview of a rule being written. The words come from the server's own
evaluation (executions/evaluation.py), so the preview reads exactly like the verdicts of the
results later; the browser keeps no copy of them.
"""

from __future__ import annotations

import math

from drf_spectacular.utils import extend_schema, inline_serializer
from rest_framework import serializers
from rest_framework.decorators import api_view
from rest_framework.response import Response

from .evaluation import CHECK_TYPES, OPERATORS, rule_in_words


class FormulaRequest(serializers.Serializer):
    check_type = serializers.ChoiceField(choices=list(CHECK_TYPES))
    operator = serializers.ChoiceField(choices=list(OPERATORS))
    threshold = serializers.FloatField(error_messages={"invalid": "The threshold must be a number."})

    def validate_threshold(self, value: float) -> float:
        if not math.isfinite(value):
            raise serializers.ValidationError("The threshold must be a finite number.")
        return value


@extend_schema(
    parameters=[FormulaRequest],
    responses=inline_serializer("Formula", {"formula": serializers.CharField()}),
)
@api_view(["GET"])
def formula_preview(request):
    """The rule in words for a formula, an operator and a threshold, before any run."""
    given = FormulaRequest(data=request.query_params)
    given.is_valid(raise_exception=True)
    rule = given.validated_data
    return Response({"formula": rule_in_words(rule["check_type"], rule["operator"], rule["threshold"])})
