"""Approve and abort check the curator role and the tenant inside the engine, not only on the page; a run
without a tenant (CLI, bench, an older demo) is shown to no tenant (issue 17). No graph is needed: every
refusal happens before the workflow touches it."""

from __future__ import annotations

import pytest

from regintel.config import load_settings
from regintel.errors import ExtractionError, Forbidden
from regintel.extraction.workflow import ExtractionWorkflow
from regintel.identity.roles import Identity
from regintel.store import Database
from regintel.tenancy import TenantDirectory


@pytest.fixture
def workflow(tmp_path):
    settings = load_settings(data_dir=tmp_path / "data")
    db = Database(settings.sql_url)
    db.create_schema()
    tenants = TenantDirectory(db)
    for name in ("alpha", "beta", "demo"):
        TENANTS[f"t-{name}"] = tenants.ensure_tenant(name).id
    yield ExtractionWorkflow(settings, db, store=None, embedder=None)  # type: ignore[arg-type]
    db.dispose()


TENANTS: dict[str, str] = {}  # t-alpha, t-beta, t-demo -> the ids of this test's tenants


def person(role: str, tenant: str = "t-alpha") -> Identity:
    return Identity(TENANTS[tenant], tenant, f"u-{role}", role, role, "local")


def test_an_analyst_or_another_tenants_curator_cannot_approve_or_abort(workflow):
    run = workflow.runs.create("eu-gdpr|Article 33", "GDPR Article 33", "offline", "carol", TENANTS["t-alpha"], status="review")
    for actor, why in ((person("analyst"), "needs curator"), (person("curator", "t-beta"), "another tenant"),
                       (person("admin", "t-beta"), "another tenant")):
        with pytest.raises(Forbidden, match=why):
            workflow.approve(run.id, by=actor)
        with pytest.raises(Forbidden, match=why):
            workflow.abort(run.id, by=actor)
        assert workflow.run(run.id).status == "review"  # refused before anything changed
    assert workflow.abort(run.id, by=person("curator")).status == "aborted"


def test_a_run_without_a_tenant_is_shown_to_no_tenant_and_approved_by_no_signed_in_user(workflow):
    shared = workflow.runs.create("dora|Article 3", "DORA Article 3", "offline", "demo", None, status="review")
    own = workflow.runs.create("eu-gdpr|Article 4", "GDPR Article 4", "offline", "carol", TENANTS["t-alpha"], status="review")
    alpha, demo = TENANTS["t-alpha"], TENANTS["t-demo"]
    assert [r.id for r in workflow.list_runs(tenant_id=alpha)] == [own.id]
    assert [r.id for r in workflow.list_runs(status="review", tenant_id=alpha)] == [own.id]
    with pytest.raises(ExtractionError, match="No extraction run"):
        workflow.run(shared.id, tenant_id=alpha)
    with pytest.raises(Forbidden):
        workflow.abort(shared.id, by=person("admin"))
    assert {r.id for r in workflow.list_runs()} == {shared.id, own.id}  # the command line sees both
    assert workflow.runs.assign_tenant("demo", demo) == 1  # what `python -m regintel demo` does to old runs
    assert [r.id for r in workflow.list_runs(tenant_id=demo)] == [shared.id]
    assert workflow.abort(shared.id, by=person("curator", "t-demo")).status == "aborted"
