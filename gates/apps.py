from django.apps import AppConfig


class GatesConfig(AppConfig):
    name = "gates"
    verbose_name = "Batches and quality gates"

    def ready(self) -> None:
        from executions.signals import run_finished, run_started

        from . import receivers

        run_started.connect(receivers.validating_on_run_start, dispatch_uid="gates.validating_on_run_start")
        run_finished.connect(receivers.verdict_on_run_finish, dispatch_uid="gates.verdict_on_run_finish")
