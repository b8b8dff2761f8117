from django.urls import path

from annotate.views import campaigns, home
from annotate.views import imports as import_views
from annotate.views import pooling as pooling_views

app_name = "annotate"

urlpatterns = [
    path("", home.home, name="home"),
    path("campaigns/", campaigns.campaign_list, name="campaign_list"),
    path("campaigns/<slug:slug>/", campaigns.campaign_detail, name="campaign"),
    path("campaigns/<slug:slug>/pool/", pooling_views.pool, name="pool"),
    path("campaigns/<slug:slug>/import/", import_views.campaign_import, name="import"),
]
