"""A model judge: a language model on an OpenAI-compatible endpoint that labels a campaign's
pool items as a label source `model:<name>`, the replies it gave (the cache a rerun reads),
and its labelling runs.

The API key is never stored: the judge names the environment variable that holds it, read in
the worker when a run starts (README, "Labels from a language model").
"""

from __future__ import annotations

from django.core.validators import MaxValueValidator, MinValueValidator, RegexValidator
from django.db import models
from django.utils.translation import gettext_lazy
from django.utils.translation import gettext_lazy as _

from annotate.models import Campaign, Document, Query

ENV_NAME = RegexValidator(
    r"^[A-Z_][A-Z0-9_]{0,99}$",
    gettext_lazy(
        "An environment variable name: capital letters, digits and underscores, such as "
        "LLMJUDGE_KEY_OPENAI."
    ),
)


class Scope(models.TextChoices):
    POOL = "pool", gettext_lazy("every pool item")
    UNJUDGED = "unjudged", gettext_lazy("pool items no rater has graded yet")
    DISAGREED = "disagreed", gettext_lazy("pool items the raters disagree on")


class ModelJudge(models.Model):
    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="model_judges")
    name = models.SlugField(max_length=80, help_text=_("The label source is model:<name>."))
    base_url = models.URLField(max_length=500, help_text=_("e.g. https://api.openai.com/v1"))
    model = models.CharField(max_length=200)
    api_key_env = models.CharField(
        _("API key variable"), max_length=100, blank=True, validators=[ENV_NAME],
        help_text=_("The environment variable of the job worker that holds the API key (never "
        "the key itself), such as LLMJUDGE_KEY_OPENAI; empty for a local server without a key."),
    )  # fmt: skip
    temperature = models.FloatField(
        default=0.0, validators=[MinValueValidator(0.0), MaxValueValidator(2.0)]
    )
    samples = models.PositiveSmallIntegerField(
        default=1,
        validators=[MinValueValidator(1), MaxValueValidator(9)],
        help_text=_("Answers asked per item, aggregated by the campaign's rule."),
    )
    max_concurrency = models.PositiveSmallIntegerField(
        default=4, validators=[MinValueValidator(1), MaxValueValidator(64)]
    )
    requests_per_minute = models.PositiveIntegerField(
        default=60, validators=[MinValueValidator(1), MaxValueValidator(100_000)]
    )
    max_requests = models.PositiveIntegerField(
        default=1000,
        validators=[MinValueValidator(1)],
        help_text=_("Budget: requests sent per run, retries included."),
    )
    max_tokens = models.PositiveBigIntegerField(
        default=1_000_000,
        validators=[MinValueValidator(1)],
        help_text=_("Budget: prompt and reply tokens per run."),
    )
    max_output_tokens = models.PositiveIntegerField(
        default=300, validators=[MinValueValidator(1), MaxValueValidator(100_000)]
    )
    timeout_seconds = models.FloatField(
        default=60.0, validators=[MinValueValidator(0.1), MaxValueValidator(3600)]
    )
    examples = models.PositiveSmallIntegerField(
        _("few-shot examples"), default=0, validators=[MaxValueValidator(20)],
        help_text=_("Items a manager adjudicated, shown in the prompt with their ruling (and "
        "then not judged by the model: it would see its own answer)."),
    )  # fmt: skip
    template = models.TextField(help_text=_("The prompt; {placeholders} are filled per item."))
    scope = models.CharField(max_length=10, choices=Scope.choices, default=Scope.POOL)
    query_ids = models.TextField(
        _("only these queries"), blank=True,
        help_text=_("External query ids, one per line or comma-separated; empty: every query."),
    )  # fmt: skip
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["campaign", "name"]
        constraints = [
            models.UniqueConstraint(fields=["campaign", "name"], name="modeljudge_unique_name")
        ]

    def __str__(self) -> str:
        return f"model:{self.name}"

    @property
    def source_name(self) -> str:
        return f"model:{self.name}"


class ModelReply(models.Model):
    """One answer of a model on one item and sample: the cache. `key` hashes the endpoint,
    the model, the temperature, the template's hash, the item's content hash and the sample
    number, so a rerun finds it and a changed template or document misses it."""

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="+")
    key = models.CharField(max_length=64)
    endpoint = models.CharField(max_length=500)
    model = models.CharField(max_length=200)
    template_hash = models.CharField(max_length=64)
    item_hash = models.CharField(max_length=64)
    prompt_hash = models.CharField(max_length=64)
    sample = models.PositiveSmallIntegerField()
    query = models.ForeignKey(Query, on_delete=models.CASCADE, related_name="+")
    document = models.ForeignKey(Document, on_delete=models.CASCADE, related_name="+")
    reply = models.TextField(help_text=_("The model's last reply, as sent."))
    grade = models.FloatField(null=True, blank=True, help_text=_("Empty: no answer that parses."))
    attempts = models.PositiveSmallIntegerField(default=1)
    latency_ms = models.PositiveIntegerField(default=0)
    prompt_tokens = models.PositiveIntegerField(default=0)
    completion_tokens = models.PositiveIntegerField(default=0)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["campaign", "key"], name="modelreply_unique_key")
        ]

    def __str__(self) -> str:
        return f"{self.model} on {self.query_id}/{self.document_id}#{self.sample}"


class JudgeRun(models.Model):
    """One labelling run (a job): what it sent and what it cost, written as it goes so the
    job's page shows the cost so far."""

    judge = models.ForeignKey(ModelJudge, on_delete=models.CASCADE, related_name="runs")
    job_id = models.BigIntegerField(null=True, blank=True)
    items = models.PositiveIntegerField(default=0)
    requests = models.PositiveIntegerField(default=0, help_text=_("Sent, retries included."))
    cache_hits = models.PositiveIntegerField(default=0)
    no_answer = models.PositiveIntegerField(default=0)
    failed = models.PositiveIntegerField(default=0)
    prompt_tokens = models.PositiveBigIntegerField(default=0)
    completion_tokens = models.PositiveBigIntegerField(default=0)
    labelled = models.PositiveIntegerField(default=0)
    stopped = models.CharField(max_length=200, blank=True, help_text=_("Why it stopped early."))
    created_at = models.DateTimeField(auto_now_add=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return f"run {self.pk} of {self.judge}"

    @property
    def tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens
