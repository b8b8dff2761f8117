from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from annotate.judging.leasing import PAUSED_MESSAGE
from annotate.judging.progress import rater_progress
from annotate.models import Membership, Role
from annotate.selectors import campaigns_for
from annotate.selectors_judge import campaign_progress


@login_required
def home(request: HttpRequest) -> HttpResponse:
    """The signed-in user's start page: their queues as a rater, their campaigns as a manager."""
    queues = [
        {
            "campaign": campaign,
            "progress": rater_progress(rater=request.user, campaign=campaign),
            "overall": campaign_progress(campaign),
        }
        for campaign in campaigns_for(request.user, role=Role.RATER)
    ]
    paused = Membership.objects.filter(
        user=request.user, role=Role.RATER, paused_at__isnull=False
    ).select_related("campaign")
    context = {
        "paused": [m.campaign for m in paused],
        "paused_message": PAUSED_MESSAGE,
        "queues": queues,
        "rater_campaigns": [queue["campaign"] for queue in queues],
        "managed_campaigns": campaigns_for(request.user, role=Role.MANAGER),
    }
    return render(request, "annotate/home.html", context)
