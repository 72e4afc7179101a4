"""A registered batch in the browser (gates/): its evidence chain, a release with a reason and an
expiry, a re-validation, the table page and a backfill run for a business date."""

from __future__ import annotations

import re
from datetime import datetime, timedelta

import pytest
from playwright.sync_api import expect

from executions.models import Run
from gates.models import Batch
from gates.tests.conftest import create_check, register, wait_for_outcome

from .conftest import SCHEMA, sign_in, unexpected

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True, serialized_rollback=True)]


def test_an_author_reads_a_quarantined_batchs_evidence_releases_it_and_revalidates_it(
    live_server, page, shots, console_errors, cast, api_as, warehouse, browser_worker, built_app
):
    client = api_as(cast.author)
    warehouse.owner_groups.set([cast.analysts])  # the author answers for it: releases, re-validates
    check = create_check(
        client,
        "emails present",
        "null_check",
        src_datasource_id=warehouse.pk,
        src_table=f"{SCHEMA}.orders",
        src_field="customer_email",
        check_type="statistics_minus_comparison",
        operator="le",
        threshold=0,
        failure_strategy="block",
        comparison_type="fix_value",
        comparison_value=0,
    )
    body = register(
        client,
        warehouse,
        f"{SCHEMA}.orders",
        partition={"status": "paid"},
        data_version="commit-42",
        producer={"instance_id": "dolphin-1", "attempt": 2},
    )
    assert wait_for_outcome(client, body["id"])["state"] == "quarantined"

    sign_in(page, live_server.url, "author", "author-pass-123", f"/batches/{body['id']}")
    expect(page.get_by_test_id("batch-state")).to_have_text("Quarantined")
    expect(page.get_by_test_id("batch-consume")).to_have_text("Downstream held")
    expect(page.get_by_test_id("producer")).to_contain_text("Instance dolphin-1, attempt 2")
    expect(page.get_by_test_id("data-version")).to_contain_text("commit-42 · status=paid")
    first = page.get_by_test_id("attempt-1")
    expect(first).to_contain_text("emails present v1")
    expect(first).to_contain_text("Pass when actual − expected ≤ 0: 1 − 0 = 1 > 0 → fail")  # the server's sentence
    expect(page.get_by_test_id("transitions")).to_contain_text("Failed → Quarantined")
    shots("batch-quarantined", readme="batch")

    page.get_by_test_id("release-open").click()
    page.get_by_test_id("release-reason").fill("finance month end, checked by hand")
    until = (datetime.now() + timedelta(days=1)).strftime("%Y-%m-%dT%H:%M")
    page.get_by_test_id("release-expiry").fill(until)
    page.get_by_test_id("release-submit").click()
    expect(page.get_by_test_id("batch-state")).to_have_text("Published")
    expect(page.get_by_test_id("releases")).to_contain_text("author: “finance month end, checked by hand”")
    release = Batch.objects.get(pk=body["id"]).releases.get()
    assert release.released_by == cast.author and release.expires_at > release.created_at + timedelta(hours=23)

    page.get_by_test_id("revalidate").click()
    expect(page.get_by_test_id("attempt-2")).to_contain_text("re-validation by author")
    expect(page.get_by_test_id("batch-state")).to_have_text("Quarantined", timeout=180_000)
    expect(page.get_by_test_id("attempt-1")).to_contain_text("→ fail")  # the first attempt's evidence stays
    expect(page.get_by_test_id("releases")).to_contain_text("ended by author's re-validation")

    page.get_by_role("link", name="Table").click()
    expect(page.get_by_test_id("bound-checks")).to_contain_text("emails present")
    expect(page.get_by_test_id("batches-table")).to_contain_text(f"#{body['id']}")
    page.get_by_test_id("run-for-date").click()
    page.get_by_test_id("run-biz-date").fill("2026-11-20")
    page.get_by_test_id("run-backfill").click()
    page.get_by_test_id("run-for-date-start").click()
    page.wait_for_url(re.compile(r".*/runs/\d+$"))
    run = Run.objects.get(pk=int(page.url.rsplit("/", 1)[1]))
    assert (run.trigger, str(run.biz_date), list(run.check_versions.values_list("parent_check", flat=True))) == (
        "backfill",
        "2026-11-20",
        [check],
    )
    assert not unexpected(console_errors)
