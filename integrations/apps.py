from django.apps import AppConfig


class IntegrationsConfig(AppConfig):
    name = "integrations"
    verbose_name = "Orchestrator and lineage integrations"

    def ready(self) -> None:
        from executions.signals import run_finished

        from . import receivers

        run_finished.connect(receivers.report_finished_run, dispatch_uid="integrations.report_finished_run")
