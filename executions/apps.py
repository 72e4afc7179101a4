from django.apps import AppConfig


class ExecutionsConfig(AppConfig):
    name = "executions"
    verbose_name = "Runs and results"
