"""Talking to an OpenAI-compatible chat-completions endpoint with the official `openai`
client: a request budget and a rate limit shared by the run's threads, retries with
exponential backoff on 429, 5xx, timeouts and lost connections, and no retry on any other
4xx (a wrong key or model name does not get better by asking again).

The client's own retries are off (max_retries=0): the backoff here is a setting
(LLMJUDGE_BACKOFF_SECONDS), every attempt counts against the budget, and a cancelled run
stops waiting at once.
"""

from __future__ import annotations

import random
import threading
import time
from dataclasses import dataclass

from django.conf import settings


class EndpointError(Exception):
    """The endpoint refused (``fatal``: every other request would be refused too), or kept
    failing after every retry."""

    def __init__(self, message: str, *, fatal: bool = False) -> None:
        super().__init__(message)
        self.fatal = fatal


class BudgetSpent(Exception):
    """The run's budget of requests or tokens is spent: nothing more is sent."""


class Stopped(Exception):
    """The run was cancelled while waiting."""


class Budget:
    """Requests (retries included) and tokens one run may use; shared by its threads."""

    def __init__(self, *, max_requests: int, max_tokens: int) -> None:
        self.max_requests, self.max_tokens = max_requests, max_tokens
        self.requests = self.prompt_tokens = self.completion_tokens = 0
        self._lock = threading.Lock()

    def take_request(self) -> None:
        with self._lock:
            if self.requests >= self.max_requests:
                raise BudgetSpent(f"the budget of {self.max_requests:,} requests is spent")
            if self.prompt_tokens + self.completion_tokens >= self.max_tokens:
                raise BudgetSpent(f"the budget of {self.max_tokens:,} tokens is spent")
            self.requests += 1

    def add_tokens(self, prompt: int, completion: int) -> None:
        with self._lock:
            self.prompt_tokens += prompt
            self.completion_tokens += completion


class RateLimiter:
    """At most ``per_minute`` request starts a minute, spaced evenly."""

    def __init__(self, per_minute: int, stop: threading.Event) -> None:
        self.interval = 60.0 / per_minute
        self.stop = stop
        self._next = 0.0
        self._lock = threading.Lock()

    def wait(self) -> None:
        with self._lock:
            now = time.monotonic()
            start = max(now, self._next)
            self._next = start + self.interval
        if self.stop.wait(max(start - now, 0.0)):
            raise Stopped


@dataclass
class Answer:
    text: str
    prompt_tokens: int
    completion_tokens: int
    latency_ms: int
    attempts: int = 1  # requests sent for it, retries included


def estimate_tokens(text: str) -> int:
    """About four characters a token (OpenAI's rule of thumb), when the endpoint reports no
    usage: the budget still counts something."""
    return max(1, len(text) // 4)


class Endpoint:
    def __init__(
        self, *, base_url: str, model: str, api_key: str, temperature: float,
        max_output_tokens: int, timeout: float, budget: Budget, limiter: RateLimiter,
    ) -> None:  # fmt: skip
        # Imported here, not with the module: openai costs over a second of imports, which
        # every process that loads the URLs (web, tests, workers) would pay unused.
        import openai

        # Local servers (Ollama, vLLM, llama.cpp) take any key; the client insists on one.
        self.client = openai.OpenAI(
            base_url=base_url, api_key=api_key or "none", timeout=timeout, max_retries=0
        )
        self.model, self.temperature = model, temperature
        self.max_output_tokens = max_output_tokens
        self.budget, self.limiter = budget, limiter

    def ask(self, messages: list[dict[str, str]]) -> Answer:
        """One answer, retrying what may pass. Raises EndpointError, BudgetSpent, Stopped."""
        import openai

        retries = settings.LLMJUDGE_RETRIES
        for attempt in range(retries + 1):
            self.budget.take_request()
            self.limiter.wait()
            started = time.monotonic()
            try:
                response = self.client.chat.completions.create(
                    model=self.model, messages=messages, temperature=self.temperature,
                    max_tokens=self.max_output_tokens,
                )  # fmt: skip
            except (openai.RateLimitError, openai.InternalServerError) as exc:
                error, wait = exc, _retry_after(exc)
            except openai.APIStatusError as exc:
                if exc.status_code < 500 and exc.status_code != 408:
                    raise EndpointError(
                        f"the endpoint refused: HTTP {exc.status_code}: {_short(exc.message)}",
                        fatal=True,
                    ) from None
                error, wait = exc, _retry_after(exc)
            except (openai.APIConnectionError, openai.APITimeoutError) as exc:
                error, wait = exc, None
            else:
                return self._answer(response, messages, started, attempt + 1)
            if attempt == retries:
                break
            self._backoff(attempt, wait)
        raise EndpointError(f"no answer after {retries + 1} attempts: {_describe(error)}")

    def _answer(self, response, messages, started: float, attempts: int) -> Answer:
        latency = int((time.monotonic() - started) * 1000)
        try:
            text = response.choices[0].message.content or ""
        except (AttributeError, IndexError, TypeError):
            text = ""
        usage = getattr(response, "usage", None)
        prompt = getattr(usage, "prompt_tokens", None)
        completion = getattr(usage, "completion_tokens", None)
        if not isinstance(prompt, int):
            prompt = estimate_tokens(" ".join(m["content"] for m in messages))
        if not isinstance(completion, int):
            completion = estimate_tokens(text)
        self.budget.add_tokens(prompt, completion)
        return Answer(text, prompt, completion, latency, attempts)

    def _backoff(self, attempt: int, retry_after: float | None) -> None:
        base = settings.LLMJUDGE_BACKOFF_SECONDS
        cap = settings.LLMJUDGE_BACKOFF_MAX_SECONDS
        delay = min(cap, base * 2**attempt) * (0.5 + random.random() / 2)
        if retry_after is not None:
            delay = min(cap, max(delay, retry_after))
        if self.limiter.stop.wait(delay):
            raise Stopped


def _retry_after(exc: Exception) -> float | None:
    try:
        return float(exc.response.headers.get("retry-after", ""))
    except (TypeError, ValueError, AttributeError):
        return None


def _describe(exc: Exception) -> str:
    import openai

    if isinstance(exc, openai.APIStatusError):
        return f"HTTP {exc.status_code}"
    return type(exc).__name__.replace("API", "").replace("Error", " error").strip()


def _short(text: str) -> str:
    return text if len(text) <= 200 else text[:199] + "…"
