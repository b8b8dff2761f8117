"""Manager pages for the people of a campaign: its raters with their progress, the items they
hold (leases), and how many raters the items need. Managers of the campaign only (404 for
anyone else); every change is a POST that redirects back with a message."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth import get_user_model
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from django.views.decorators.http import require_POST

from annotate.forms.accounts import InviteForm
from annotate.forms.manage import LeaseReleaseForm, RaterAddForm, RatersNeededForm
from annotate.judging.graded import lease_release
from annotate.models import Query
from annotate.selectors import campaign_managed_by
from annotate.selectors.progress import live_leases, pool_completion, rater_progress_table
from annotate.services.accounts import accounts_administered
from annotate.services.lockouts import locked_out_raters, rater_unlock
from annotate.services.mail import mail_enabled
from annotate.services.manage import ManageRefused, rater_add, rater_remove, raters_needed_set


def _form_errors(request: HttpRequest, form) -> None:
    for field, errors in form.errors.items():
        name = form.fields[field].label if field in form.fields else ""
        for error in errors:
            messages.error(request, f"{name}: {error}" if name else error)


def _raters_page(request, campaign, *, status=200, add_form=None, needed_form=None):
    rows = rater_progress_table(campaign=campaign)
    ids = [row.user_id for row in rows]
    users = get_user_model().objects.filter(pk__in=ids, is_active=False)
    context = {
        "campaign": campaign,
        "rows": rows,
        # Which rows get "New password link" and "Deactivate" (services.accounts says who).
        "administered": accounts_administered(request.user, ids),
        "inactive": set(users.values_list("pk", flat=True)),
        "invite_form": InviteForm(mail=mail_enabled()),
        "mail_enabled": mail_enabled(),
        "completion": pool_completion(campaign=campaign),
        "add_form": add_form or RaterAddForm(),
        "needed_form": needed_form or RatersNeededForm(),
        "locked": locked_out_raters(campaign=campaign),
    }
    return render(request, "annotate/manage_raters.html", context, status=status)


def _leases_page(request, campaign, *, status=200):
    context = {"campaign": campaign, "holdings": live_leases(campaign=campaign).holdings}
    return render(request, "annotate/manage_leases.html", context, status=status)


@login_required
def raters(request: HttpRequest, slug: str) -> HttpResponse:
    return _raters_page(request, campaign_managed_by(request.user, slug))


@login_required
@require_POST
def rater_add_view(request: HttpRequest, slug: str) -> HttpResponse:
    campaign = campaign_managed_by(request.user, slug)
    form = RaterAddForm(request.POST)
    if not form.is_valid():
        _form_errors(request, form)
        return _raters_page(request, campaign, status=400, add_form=form)
    try:
        user = rater_add(campaign=campaign, username=form.cleaned_data["username"])
    except ManageRefused as exc:
        messages.error(request, exc.message)
        return _raters_page(request, campaign, status=400, add_form=form)
    messages.success(
        request, _("%(name)s is now a rater of this campaign.") % {"name": user.get_username()}
    )
    return redirect("annotate:manage_raters", slug=slug)


@login_required
@require_POST
def rater_remove_view(request: HttpRequest, slug: str, user_id: int) -> HttpResponse:
    campaign = campaign_managed_by(request.user, slug)
    user = get_object_or_404(get_user_model(), pk=user_id)
    try:
        released = rater_remove(campaign=campaign, user=user)
    except ManageRefused as exc:
        messages.error(request, exc.message)
        return _raters_page(request, campaign, status=400)
    messages.success(
        request,
        _(
            "%(name)s is no longer a rater; their grades stay, %(released)s held item(s) went "
            "back to the queue."
        )
        % {"name": user.get_username(), "released": released},
    )
    return redirect("annotate:manage_raters", slug=slug)


@login_required
@require_POST
def rater_unlock_view(request: HttpRequest, slug: str, user_id: int) -> HttpResponse:
    """Let a locked-out rater of the campaign sign in again at once."""
    campaign = campaign_managed_by(request.user, slug)
    user = get_object_or_404(get_user_model(), pk=user_id)
    try:
        rater_unlock(campaign=campaign, user=user)
    except ManageRefused as exc:
        messages.error(request, exc.message)
        return _raters_page(request, campaign, status=400)
    messages.success(request, _("%(name)s can sign in again.") % {"name": user.get_username()})
    return redirect("annotate:manage_raters", slug=slug)


@login_required
@require_POST
def raters_needed(request: HttpRequest, slug: str) -> HttpResponse:
    campaign = campaign_managed_by(request.user, slug)
    form = RatersNeededForm(request.POST)
    if not form.is_valid():
        _form_errors(request, form)
        return _raters_page(request, campaign, status=400, needed_form=form)
    external_id = form.cleaned_data["query"].strip()
    query = Query.objects.filter(campaign=campaign, external_id=external_id).first()
    if query is None:
        messages.error(
            request, _("This campaign has no query with the id “%(id)s”.") % {"id": external_id}
        )
        return _raters_page(request, campaign, status=400, needed_form=form)
    needed = form.cleaned_data["raters_needed"]
    changed = raters_needed_set(campaign=campaign, query=query, raters_needed=needed)
    values = {"n": changed, "query": external_id, "needed": needed, "overlap": campaign.overlap}
    if needed:
        text = ngettext(
            "%(n)s item of query %(query)s now needs %(needed)s rater(s).",
            "%(n)s items of query %(query)s now need %(needed)s rater(s).",
            changed,
        )
    else:
        text = ngettext(
            "%(n)s item of query %(query)s now needs the campaign's overlap (%(overlap)s).",
            "%(n)s items of query %(query)s now need the campaign's overlap (%(overlap)s).",
            changed,
        )
    messages.success(request, text % values)
    return redirect("annotate:manage_raters", slug=slug)


@login_required
def leases(request: HttpRequest, slug: str) -> HttpResponse:
    return _leases_page(request, campaign_managed_by(request.user, slug))


@login_required
@require_POST
def lease_release_view(request: HttpRequest, slug: str) -> HttpResponse:
    campaign = campaign_managed_by(request.user, slug)
    form = LeaseReleaseForm(request.POST)
    if not form.is_valid():
        messages.error(request, _("Choose a rater whose items to release."))
        return _leases_page(request, campaign, status=400)
    rater = get_user_model().objects.filter(pk=form.cleaned_data["rater"]).first()
    if rater is None:
        messages.error(request, _("No such rater."))
        return _leases_page(request, campaign, status=400)
    released = lease_release(campaign=campaign, rater=rater, query_id=form.cleaned_data["query"])
    messages.success(
        request,
        _("Released %(released)s item(s) held by %(name)s; they are open again.")
        % {"released": released, "name": rater.get_username()},
    )
    return redirect("annotate:manage_leases", slug=slug)
