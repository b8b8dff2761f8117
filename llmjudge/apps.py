from django.apps import AppConfig


class LlmjudgeConfig(AppConfig):
    name = "llmjudge"
    verbose_name = "Model judges"
