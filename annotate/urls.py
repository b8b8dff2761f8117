from django.urls import path

from annotate.views import campaigns, home, manage_campaign, manage_people
from annotate.views import exports as export_views
from annotate.views import imports as import_views
from annotate.views import judge as judge_views
from annotate.views import judge_api as judge_api_views
from annotate.views import pooling as pooling_views

app_name = "annotate"

urlpatterns = [
    path("", home.home, name="home"),
    path("campaigns/", campaigns.campaign_list, name="campaign_list"),
    path("campaigns/new/", manage_campaign.campaign_new, name="manage_new"),
    path("campaigns/<slug:slug>/", campaigns.campaign_detail, name="campaign"),
    path(
        "campaigns/<slug:slug>/settings/", manage_campaign.campaign_settings, name="manage_settings"
    ),
    path("campaigns/<slug:slug>/scale/", manage_campaign.campaign_scale, name="manage_scale"),
    path("campaigns/<slug:slug>/raters/", manage_people.raters, name="manage_raters"),
    path(
        "campaigns/<slug:slug>/raters/add/", manage_people.rater_add_view, name="manage_rater_add"
    ),
    path(
        "campaigns/<slug:slug>/raters/<int:user_id>/remove/",
        manage_people.rater_remove_view,
        name="manage_rater_remove",
    ),
    path("campaigns/<slug:slug>/raters-needed/", manage_people.raters_needed, name="manage_needed"),
    path("campaigns/<slug:slug>/leases/", manage_people.leases, name="manage_leases"),
    path(
        "campaigns/<slug:slug>/leases/release/",
        manage_people.lease_release_view,
        name="manage_release",
    ),
    path("campaigns/<slug:slug>/pool/", pooling_views.pool, name="pool"),
    path("campaigns/<slug:slug>/export/qrels/", export_views.qrels, name="export_qrels"),
    path("campaigns/<slug:slug>/export/grades/", export_views.grades, name="export_grades"),
    path("campaigns/<slug:slug>/export/verdicts/", export_views.verdicts, name="export_verdicts"),
    path("campaigns/<slug:slug>/import/", import_views.campaign_import, name="import"),
    path("judge/<slug:slug>/", judge_views.judge, name="judge"),
    path("judge/<slug:slug>/history/", judge_views.judge_history, name="judge_history"),
    path("judge/<slug:slug>/item/<int:item_id>/", judge_views.judge_item, name="judge_item"),
    path("judge/<slug:slug>/api/queue/", judge_api_views.queue, name="judge_api_queue"),
    path("judge/<slug:slug>/api/judgments/", judge_api_views.judgments, name="judge_api"),
    path("judge/<slug:slug>/api/progress/", judge_api_views.progress, name="judge_api_progress"),
]
