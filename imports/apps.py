from django.apps import AppConfig


class ImportsConfig(AppConfig):
    name = "imports"
    verbose_name = "Imports from other tools"
