from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from annotate.models import Role
from annotate.selectors import campaign_managed_by, campaign_overview, campaigns_for


@login_required
def campaign_list(request: HttpRequest) -> HttpResponse:
    campaigns = campaigns_for(request.user, role=Role.MANAGER)
    return render(request, "annotate/campaign_list.html", {"campaigns": campaigns})


@login_required
def campaign_detail(request: HttpRequest, slug: str) -> HttpResponse:
    campaign = campaign_managed_by(request.user, slug)
    return render(
        request,
        "annotate/campaign_detail.html",
        {"campaign": campaign, "overview": campaign_overview(campaign)},
    )
