"""Accounts: a manager's one-time password-reset links and deactivation for the raters of their
campaign, the page behind a reset link, and the user's own preferences.

A manager reaches a rater through the campaign in the URL (404 when they do not manage it,
or the account is not its rater); whether they may act on that account at all is
annotate.services.accounts.account_administered_by (403 with the reason when not).
"""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth import get_user_model
from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import translation
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.translation import gettext as _
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_http_methods, require_POST

from annotate.forms.accounts import LanguageForm, NewPasswordForm, PreferencesForm
from annotate.models import Campaign, Role
from annotate.selectors import campaign_managed_by
from annotate.services.accounts import (
    RESET_LINK_HOURS,
    AccountRefused,
    account_administered_by,
    account_deactivate,
    reset_link_create,
    reset_link_find,
    reset_link_use,
)
from annotate.services.mail import mail_enabled, reset_mail
from annotate.services.preferences import language_save, preferences_of, preferences_save
from config.locale import set_language_cookie


def _rater_of(campaign: Campaign, user_id: int):
    user = get_user_model().objects.filter(
        pk=user_id, memberships__campaign=campaign, memberships__role=Role.RATER
    )
    found = user.first()
    if found is None:
        raise Http404("No such rater")
    return found


def _refused(request, campaign, message: str) -> HttpResponse:
    context = {"campaign": campaign, "message": message}
    return render(request, "annotate/manage_refused.html", context, status=403)


@never_cache
@login_required
@require_POST
def rater_reset_link(request: HttpRequest, slug: str, user_id: int) -> HttpResponse:
    """Make a one-time reset link for a rater; it is shown once, in this answer."""
    campaign = campaign_managed_by(request.user, slug)
    user = _rater_of(campaign, user_id)
    try:
        secret = reset_link_create(actor=request.user, user=user)
    except AccountRefused as exc:
        return _refused(request, campaign, exc.message)
    path = reverse("annotate:password_reset_link", kwargs={"secret": secret})
    link = request.build_absolute_uri(path)
    mailed = None
    if request.POST.get("send_email") and mail_enabled() and user.email:
        mailed = reset_mail(
            user=user, campaign=campaign, link=link, sender=request.user.get_username()
        )
    context = {
        "campaign": campaign,
        "rater": user,
        "link": link,
        "hours": RESET_LINK_HOURS,
        "mailed": mailed,
    }
    return render(request, "annotate/manage_reset_link.html", context)


@login_required
@require_http_methods(["GET", "POST"])
def rater_deactivate(request: HttpRequest, slug: str, user_id: int) -> HttpResponse:
    """GET asks to confirm (it cannot be undone from these pages); POST deactivates."""
    campaign = campaign_managed_by(request.user, slug)
    user = _rater_of(campaign, user_id)
    if request.method == "GET":
        if not account_administered_by(request.user, user):
            return _refused(request, campaign, _("Only an administrator can change this account."))
        context = {"campaign": campaign, "rater": user}
        return render(request, "annotate/manage_deactivate.html", context)
    try:
        account_deactivate(actor=request.user, user=user)
    except AccountRefused as exc:
        return _refused(request, campaign, exc.message)
    messages.success(
        request,
        _(
            "%(name)s's account is deactivated: signed out everywhere, API tokens revoked, "
            "held items back in the queue. Their grades stay."
        )
        % {"name": user.get_username()},
    )
    return redirect("annotate:manage_raters", slug=slug)


@never_cache
@require_http_methods(["GET", "POST"])
def password_reset_link(request: HttpRequest, secret: str) -> HttpResponse:
    """The page behind a reset link: choose a new password, once."""
    link = reset_link_find(secret)
    if link is None:
        problem = _("This link is not valid: it was used, replaced or has expired.")
        return render(request, "registration/reset_link.html", {"problem": problem}, status=404)
    form = NewPasswordForm(request.POST if request.method == "POST" else None)
    if request.method == "POST" and form.is_valid():
        try:
            reset_link_use(secret=secret, password=form.cleaned_data["password1"])
        except AccountRefused as exc:
            form.add_error(None, exc.message)
        except ValidationError as exc:
            form.add_error("password1", exc)
        else:
            messages.success(request, _("Your password is set. Sign in with it."))
            return redirect("login")
    context = {"form": form, "username": link.user.get_username()}
    status = 400 if form.errors else 200
    return render(request, "registration/reset_link.html", context, status=status)


@login_required
@require_http_methods(["GET", "POST"])
def preferences(request: HttpRequest) -> HttpResponse:
    current = preferences_of(request.user)
    # An unticked box sends nothing at all: an empty POST is still a submitted form.
    data = request.POST if request.method == "POST" else None
    form = PreferencesForm(data, initial={"csv_bom": current.csv_bom, "language": current.language})
    if request.method == "POST" and form.is_valid():
        language = form.cleaned_data["language"]
        preferences_save(user=request.user, csv_bom=form.cleaned_data["csv_bom"], language=language)
        translation.activate(language or translation.get_language())
        messages.success(request, _("Preferences saved."))
        response = redirect("annotate:preferences")
        set_language_cookie(response, language or None)
        return response
    status = 400 if form.errors else 200
    return render(request, "annotate/preferences.html", {"form": form}, status=status)


@require_POST
def language(request: HttpRequest) -> HttpResponse:
    """The language picker in the header: stored in the user's preferences (and a cookie, so
    the sign-in page speaks it too); anyone signed out gets the cookie only."""
    form = LanguageForm(request.POST)
    if not form.is_valid():
        return HttpResponse(_("Unknown language."), status=400, content_type="text/plain")
    chosen = form.cleaned_data["language"]
    if request.user.is_authenticated:
        language_save(user=request.user, language=chosen)
    target = form.cleaned_data["next"]
    safe = url_has_allowed_host_and_scheme(
        target, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    )
    response = redirect(target if target and safe else "annotate:home")
    set_language_cookie(response, chosen or None)
    return response
