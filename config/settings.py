"""Settings for the relevance-judgment project.

Everything that differs between a laptop and production comes from the environment:
DATABASE_URL, SECRET_KEY, DEBUG, ALLOWED_HOSTS, CSRF_TRUSTED_ORIGINS, THROTTLE_CACHE_URL,
API_TRUSTED_PROXIES, DATABASE_PREPARED_STATEMENTS, TIME_ZONE. With nothing set the project runs
in DEBUG on a SQLite file in the project folder.
"""

from __future__ import annotations

import os
import sys
from datetime import timedelta
from pathlib import Path

from django.core.exceptions import ImproperlyConfigured

from config.env import (
    env_bool,
    env_cache,
    env_database,
    env_float,
    env_int,
    env_list,
    env_origins,
    env_time_zone,
    jobs_database,
)

BASE_DIR = Path(__file__).resolve().parent.parent

DEBUG = env_bool("DEBUG", default=True)

_DEV_SECRET_KEY = "django-insecure-dev-only-key-never-use-in-production-7f3a9c"
SECRET_KEY = os.environ.get("SECRET_KEY", "")
if not SECRET_KEY:
    if not DEBUG:
        raise ImproperlyConfigured("SECRET_KEY must be set when DEBUG is off")
    SECRET_KEY = _DEV_SECRET_KEY
elif not DEBUG and (len(SECRET_KEY) < 50 or SECRET_KEY == _DEV_SECRET_KEY):
    raise ImproperlyConfigured("SECRET_KEY must be a random string of at least 50 characters")

ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", ["127.0.0.1", "localhost", "[::1]"] if DEBUG else [])
if not DEBUG and not ALLOWED_HOSTS:
    raise ImproperlyConfigured("ALLOWED_HOSTS must be set when DEBUG is off")
CSRF_TRUSTED_ORIGINS = env_origins("CSRF_TRUSTED_ORIGINS", [])

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "rest_framework",
    "knox",
    "django_filters",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "axes",
    "django_tasks",
    "django_tasks_db",
    "annotate",
    "metrics",
    "jobs",
    "llmjudge",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    # A body above INPUT_LIMITS["upload_bytes"] is refused (413) before anything reads it.
    "config.uploads.UploadLimitMiddleware",
    "csp.middleware.CSPMiddleware",
    "config.csp.CampaignImageHostsMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    # Accept-Language and the language cookie; config.locale below puts the user's own choice
    # and their campaign's language first once the user is known.
    "django.middleware.locale.LocaleMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "config.locale.UserLanguageMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    # Last, as django-axes asks: turns a locked-out sign-in into the lockout page (429).
    "axes.middleware.AxesMiddleware",
]

ROOT_URLCONF = "config.urls"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "annotate.context_processors.navigation",
            ],
        },
    },
]

WSGI_APPLICATION = "config.wsgi.application"
ASGI_APPLICATION = "config.asgi.application"

DATABASES = {"default": env_database("DATABASE_URL", f"sqlite:///{BASE_DIR / 'db.sqlite3'}")}
if os.environ.get("TEST_DATABASE_NAME"):
    # Lets several test runs share one PostgreSQL server without dropping each other's database.
    DATABASES["default"]["TEST"] = {"NAME": os.environ["TEST_DATABASE_NAME"]}
DATABASES["jobs"] = jobs_database(DATABASES["default"])
DATABASE_ROUTERS = ["jobs.routers.JobsRouter"]
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# Background jobs (jobs/): the Django Tasks API (DEP 14, django.tasks from Django 6.0; the
# django-tasks backport until then) on its database backend, so the queue needs no server.
# Workers: `manage.py jobs_worker` (README, deployment).
TASKS = {"default": {"BACKEND": "django_tasks_db.DatabaseBackend"}}
# A running job's worker writes its heartbeat this often; a job whose heartbeat is older than
# JOBS_STALE_SECONDS is marked failed (its worker died; its transaction was rolled back).
JOBS_HEARTBEAT_SECONDS = env_float("JOBS_HEARTBEAT_SECONDS", 2.0, minimum=0.05)
JOBS_STALE_SECONDS = env_float("JOBS_STALE_SECONDS", 30.0, minimum=0.5)
# Uploads up to this size are imported in the request (well under a second); larger ones run
# as jobs. Uploads stored for a job may not exceed JOBS_MAX_UPLOAD_BYTES.
JOBS_SYNC_MAX_BYTES = env_int("JOBS_SYNC_MAX_BYTES", 1024 * 1024, minimum=0)
JOBS_MAX_UPLOAD_BYTES = env_int("JOBS_MAX_UPLOAD_BYTES", 1024**3, minimum=1)
# Pooling and label derivation from a log run as jobs past this many input rows.
JOBS_SYNC_MAX_ITEMS = env_int("JOBS_SYNC_MAX_ITEMS", 200_000, minimum=0)

# Model judges (llmjudge/): retries of a request that failed with 429, 5xx or a timeout, with
# exponential backoff from LLMJUDGE_BACKOFF_SECONDS (doubling, jittered, capped; a server's
# Retry-After is honoured up to the cap).
LLMJUDGE_RETRIES = env_int("LLMJUDGE_RETRIES", 4, minimum=0)
LLMJUDGE_BACKOFF_SECONDS = env_float("LLMJUDGE_BACKOFF_SECONDS", 1.0, minimum=0.0)
LLMJUDGE_BACKOFF_MAX_SECONDS = env_float("LLMJUDGE_BACKOFF_MAX_SECONDS", 30.0, minimum=0.0)
# A judge names the environment variable of its API key. Only variables whose name starts with
# LLMJUDGE_KEY_, or that are listed here, may be named: the key goes to the endpoint the
# manager chose, so a manager must not be able to send the worker's SECRET_KEY or
# DATABASE_URL there.
LLMJUDGE_KEY_VARIABLES = env_list("LLMJUDGE_KEY_VARIABLES", [])
# Base URLs a judge may use (prefixes, such as https://api.openai.com/v1); empty: any. Set it
# where managers must not make the worker send requests (and documents) anywhere they like.
LLMJUDGE_ENDPOINTS = env_list("LLMJUDGE_ENDPOINTS", [])

CACHES = {
    "default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"},
    # API throttle counters (annotate.api.throttling). They must be shared by every worker
    # process, or a client gets its limit once per worker: a file cache under var/ by default.
    "throttle": env_cache("THROTTLE_CACHE_URL", BASE_DIR / "var" / "throttle"),
}

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

# Interface languages (issue 20). A user's language: their own choice (Preferences, the picker
# in the header), else the default language of the campaign they rate in, else the browser's
# Accept-Language (config/locale.py). Adding one: README, "Languages".
LANGUAGE_CODE = "en"
LANGUAGES = [("en", "English"), ("zh-hans", "简体中文")]
LOCALE_PATHS = [BASE_DIR / "locale"]
# The zone pages show times in (stored times stay UTC); rater screens name it beside them.
TIME_ZONE = env_time_zone("TIME_ZONE", "UTC")
# Date formats per language (config/formats/<lang>/formats.py): "Jan 5, 14:30", "1月5日 14:30".
FORMAT_MODULE_PATH = ["config.formats"]
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATIC_ROOT = BASE_DIR / "staticfiles"
STATICFILES_DIRS = [BASE_DIR / "static"]
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        "BACKEND": "whitenoise.storage.CompressedManifestStaticFilesStorage"
        if not DEBUG
        else "django.contrib.staticfiles.storage.StaticFilesStorage"
    },
}

# Database sessions (logout deletes the row), read without the ORM: config/sessions.py.
SESSION_ENGINE = "config.sessions"

# Django's ModelBackend, reading the signed-in user with one prepared statement (config/auth.py).
# Listing Django's own as well would keep sessions made before it alive, but a failed
# sign-in would then hash the password twice.
# It also refuses a sign-in while its account or address is locked out (django-axes, below).
AUTHENTICATION_BACKENDS = ["config.auth.ModelBackend"]

# Login throttling (django-axes): after AXES_FAILURE_LIMIT failed sign-ins, on /login/ and
# /admin/login/ alike, the account is locked, and so is the address they came from, each on its
# own, for AXES_COOLOFF_TIME. A manager unlocks the raters of their campaigns on its Raters page;
# a superuser unlocks anyone in the admin (Axes > Access attempts). A good sign-in resets the
# count. Addresses are read like the API's throttle does (API_TRUSTED_PROXIES hops).
AXES_FAILURE_LIMIT = env_int("LOGIN_FAILURE_LIMIT", 5, minimum=1)
AXES_COOLOFF_TIME = timedelta(minutes=env_int("LOGIN_LOCKOUT_MINUTES", 15, minimum=1))
AXES_LOCKOUT_PARAMETERS = ["username", "ip_address"]
AXES_RESET_ON_SUCCESS = True
AXES_LOCKOUT_CALLABLE = "config.auth.lockout_response"
AXES_CLIENT_IP_CALLABLE = "config.auth.client_address"
AXES_USERNAME_FORM_FIELD = "username"

# E-mail (issue 20): invitations and password-reset links can also go out by e-mail. Set
# EMAIL_HOST (and EMAIL_PORT, EMAIL_HOST_USER, EMAIL_HOST_PASSWORD, EMAIL_USE_TLS,
# DEFAULT_FROM_EMAIL) for SMTP; in DEBUG without it the mails are printed on the console.
# Without either, the pages offer links to copy and no e-mail.
EMAIL_HOST = os.environ.get("EMAIL_HOST", "")
EMAIL_PORT = env_int("EMAIL_PORT", 587, minimum=1)
EMAIL_HOST_USER = os.environ.get("EMAIL_HOST_USER", "")
EMAIL_HOST_PASSWORD = os.environ.get("EMAIL_HOST_PASSWORD", "")
EMAIL_USE_TLS = env_bool("EMAIL_USE_TLS", default=True)
EMAIL_TIMEOUT = 20
DEFAULT_FROM_EMAIL = os.environ.get("DEFAULT_FROM_EMAIL", "relevance@localhost")
if EMAIL_HOST:
    EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend"
elif DEBUG:
    EMAIL_BACKEND = "django.core.mail.backends.console.EmailBackend"
EMAIL_ENABLED = bool(EMAIL_HOST) or DEBUG

LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "annotate:home"
LOGOUT_REDIRECT_URL = "login"

# Uploads are streamed to a temporary file past this size, so a large run never sits in memory.
FILE_UPLOAD_MAX_MEMORY_SIZE = 2 * 1024 * 1024
DATA_UPLOAD_MAX_MEMORY_SIZE = 10 * 1024 * 1024

# Limits on untrusted input (annotate/inputs.py has the defaults and what each bounds): text
# lengths at import, extra fields per document, JSON nesting, the upload size (413 above it).
# Each import refuses a value above its limit with the file's name and line. Set a key here
# to change one, e.g. INPUT_LIMITS = {"snippet": 50_000, "upload_bytes": 4 * 1024**3}.
INPUT_LIMITS: dict[str, int] = {}

REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        # Token first, so an unauthenticated script gets 401 with WWW-Authenticate, not 403.
        # knox stores only a hash of each token, and every token expires.
        "knox.auth.TokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    "DEFAULT_SCHEMA_CLASS": "annotate.api.schema.ContractSchema",
    "DEFAULT_FILTER_BACKENDS": ["django_filters.rest_framework.DjangoFilterBackend"],
    # One pagination style for every list: a cursor, 500 rows a page unless ?page_size= (at
    # most 5,000).
    "DEFAULT_PAGINATION_CLASS": "annotate.api.pagination.IdCursorPagination",
    # JSON read by annotate.inputs.loads: NaN, NUL, lone surrogates, huge numbers and deep
    # nesting are a 400 with a message, not a 500.
    "DEFAULT_PARSER_CLASSES": [
        "annotate.api.parsers.SafeJSONParser",
        "rest_framework.parsers.FormParser",
        "rest_framework.parsers.MultiPartParser",
    ],
    "DEFAULT_RENDERER_CLASSES": [
        "rest_framework.renderers.JSONRenderer",
        "rest_framework.renderers.BrowsableAPIRenderer",
        "annotate.api.formats.CSVRenderer",
    ],
    "EXCEPTION_HANDLER": "annotate.api.errors.api_exception_handler",
    # Anonymous callers and scripts with a token; the browser's session is not throttled.
    # Both count in the shared "throttle" cache, not the per-process default one.
    "DEFAULT_THROTTLE_CLASSES": [
        "annotate.api.throttling.AnonThrottle",
        "annotate.api.throttling.TokenRateThrottle",
    ],
    "DEFAULT_THROTTLE_RATES": {
        "anon": "60/minute",
        "token": "6000/minute",
    },
    # Anonymous callers are counted by address. Unset, DRF would take X-Forwarded-For as sent,
    # and a client changing that header on every request would never reach its limit. Behind
    # reverse proxies, say how many: the address is then read that many hops from the end.
    "NUM_PROXIES": env_int("API_TRUSTED_PROXIES", 0, minimum=0),
}

# knox's default, written out because a migration that points at knox's swappable token model
# (annotate 0008, the tokens' names) reads it from the settings.
KNOX_TOKEN_MODEL = "knox.AuthToken"
REST_KNOX = {
    # The web page lets a user choose a shorter or longer life (annotate.views.tokens).
    "TOKEN_TTL": timedelta(days=90),
    "AUTO_REFRESH": False,
}

SPECTACULAR_SETTINGS = {
    "TITLE": "Relevance judgments API",
    "DESCRIPTION": (
        "Labels, judgments, NDCG scores and GSB launch decisions. Raters see items and "
        "side-by-side tasks by their own opaque handles (strings), never by database ids: "
        "`id` in a rater's queue, `item`/`task` in grades and verdicts. Deprecated: an "
        "integer id is still taken in a grade, skip or verdict for a task the rater held "
        "when handles were introduced."
    ),
    "VERSION": "1.0.0",
    "SERVE_INCLUDE_SCHEMA": False,
    "SCHEMA_PATH_PREFIX": "/api/v1",
    # Request bodies as their own components (RunUploadRequest), so an upload's file is
    # `format: binary` in multipart, not the URI the response shows.
    "COMPONENT_SPLIT_REQUEST": True,
    # One name per closed set that several fields share.
    "ENUM_NAME_OVERRIDES": {
        "AggregationEnum": "annotate.models.campaigns.Aggregation",
        "LabelRuleEnum": ["mean", "median", "majority", "dawid_skene", "source"],
        "AnswerResultEnum": ["created", "changed", "unchanged"],
        "SkipResultEnum": ["skipped", "unskipped", "unchanged"],
        "LaunchStateEnum": [
            "collecting",
            "launch",
            "do_not_launch",
            "no_meaningful_difference",
            "inconclusive",
        ],
        "JobStateEnum": "jobs.models.State",
    },
    "POSTPROCESSING_HOOKS": [
        "drf_spectacular.hooks.postprocess_schema_enums",
        "annotate.api.schema.global_security",
    ],
    # Swagger UI and ReDoc from the installed drf-spectacular-sidecar package: no CDN.
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
}

# Production hardening: on whenever DEBUG is off, so `check --deploy` is clean.
if not DEBUG:
    SECURE_SSL_REDIRECT = env_bool("SECURE_SSL_REDIRECT", default=True)
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    SESSION_COOKIE_SECURE = True
    CSRF_COOKIE_SECURE = True
    SECURE_HSTS_SECONDS = env_int("SECURE_HSTS_SECONDS", 31536000, minimum=0)
    SECURE_HSTS_INCLUDE_SUBDOMAINS = True
    SECURE_HSTS_PRELOAD = True
    SECURE_CONTENT_TYPE_NOSNIFF = True
    SECURE_REFERRER_POLICY = "same-origin"
X_FRAME_OPTIONS = "DENY"

# Content-Security-Policy (django-csp; Django 5.2 has none of its own): everything from this
# site only, no inline script (the pages and Swagger UI load theirs from files). Inline styles
# stay allowed: the charts are matplotlib SVGs whose elements carry style attributes. The
# judging pages add the image hosts a campaign allows for its guidelines (config/csp.py).
_SELF = "'self'"
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": [_SELF],
        "script-src": [_SELF],
        "style-src": [_SELF, "'unsafe-inline'"],
        "img-src": [_SELF, "data:"],
        "font-src": [_SELF],
        "connect-src": [_SELF],
        # ReDoc parses the schema in a web worker it makes from a blob.
        "worker-src": [_SELF, "blob:"],
        "object-src": ["'none'"],
        "base-uri": ["'none'"],
        "form-action": [_SELF],
        "frame-ancestors": ["'none'"],
    }
}

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler", "stream": sys.stderr}},
    "root": {"handlers": ["console"], "level": os.environ.get("LOG_LEVEL", "WARNING")},
}
