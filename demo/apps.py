from django.apps import AppConfig


class DemoConfig(AppConfig):
    """The first-run experience of `make run`: demo data with documented defects, the demo
    datasources and the demo checks (`manage.py load_demo`). Depends on datasources and rules;
    neither depends on it."""

    name = "demo"
    verbose_name = "Demo data"
