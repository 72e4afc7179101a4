"""One health answer, the same shape for the platform, a datasource and a table: scores overall and
per dimension, their trend, coverage, incident timing and the worst tables (the table scope also
lists its checks)."""

from __future__ import annotations

from django.utils.translation import gettext

from . import coverage, incident_times, scope, scores, tables, trend

TREND_DAYS = 30
WORST_LISTED = 10


def health_of(user, where: scope.Scope) -> dict:
    checks = scope.checks_in(user, where)
    ids = [c.id for c in checks]
    statuses = scores.latest_statuses(user, ids)
    scored = scores.scores_of(checks, statuses)
    ranked = tables.ranked_tables(checks, statuses, where.datasources)
    body = {
        "scope": {
            "kind": where.kind,
            "datasource": where.datasource_id,
            "datasource_name": where.datasources.get(where.datasource_id, "") if where.datasource_id else "",
            "table": where.table,
        },
        "formula": gettext(scores.FORMULA),
        "overall": scored.overall.as_dict(),
        "dimensions": scores.dimension_rows(scored),
        "trend": {"definition": gettext(trend.DEFINITION), "days": trend.daily_scores(user, ids, TREND_DAYS)},
        "coverage": coverage.coverage_of(where, checks),
        "incidents": incident_times.incidents_of(user, ids, {c.id: c.name for c in checks}, TREND_DAYS),
        "tables_with_checks": len(ranked),
        "worst_tables": ranked[:WORST_LISTED] if where.kind == "platform" else ranked,
    }
    if where.kind == "platform":
        body["datasources"] = tables.datasource_rows(checks, statuses, where.datasources)
    if where.kind == "table":
        body["checks"] = [
            {"id": c.id, "name": c.name, "dimension": c.dimension, "status": statuses.get(c.id)} for c in checks
        ]
    return body
