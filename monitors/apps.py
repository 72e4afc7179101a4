from django.apps import AppConfig


class MonitorsConfig(AppConfig):
    name = "monitors"
    verbose_name = "Table monitors"
