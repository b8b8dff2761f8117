from django.urls import path

from annotate.views import campaigns, home
from annotate.views import exports as export_views
from annotate.views import imports as import_views
from annotate.views import pooling as pooling_views

app_name = "annotate"

urlpatterns = [
    path("", home.home, name="home"),
    path("campaigns/", campaigns.campaign_list, name="campaign_list"),
    path("campaigns/<slug:slug>/", campaigns.campaign_detail, name="campaign"),
    path("campaigns/<slug:slug>/pool/", pooling_views.pool, name="pool"),
    path("campaigns/<slug:slug>/export/qrels/", export_views.qrels, name="export_qrels"),
    path("campaigns/<slug:slug>/export/grades/", export_views.grades, name="export_grades"),
    path("campaigns/<slug:slug>/export/verdicts/", export_views.verdicts, name="export_verdicts"),
    path("campaigns/<slug:slug>/import/", import_views.campaign_import, name="import"),
]
