from django.apps import AppConfig


class WatchingConfig(AppConfig):
    name = "watching"
    verbose_name = "Schedules, alerts and incidents"

    def ready(self) -> None:
        from executions.signals import run_finished
        from rules.signals import check_deleted

        from . import receivers

        run_finished.connect(receivers.alert_on_finished_run, dispatch_uid="watching.alert_on_finished_run")
        check_deleted.connect(receivers.close_incidents_of_deleted_check, dispatch_uid="watching.close_incidents")
        receivers.install_log_scrubbing()
