from django.urls import path

from annotate.views import (
    accounts,
    campaigns,
    home,
    invitations,
    judging_api,
    manage_campaign,
    manage_people,
    quiz_manage,
)
from annotate.views import exports as export_views
from annotate.views import gold as gold_views
from annotate.views import imports as import_views
from annotate.views import judge as judge_views
from annotate.views import pooling as pooling_views
from annotate.views import preview as preview_views
from annotate.views import quiz as quiz_views
from annotate.views import sxs as sxs_views
from annotate.views import sxs_manage as sxs_manage_views
from annotate.views import tokens as token_views

app_name = "annotate"

urlpatterns = [
    path("", home.home, name="home"),
    path("tokens/", token_views.tokens, name="tokens"),
    path("tokens/<str:token_key>/revoke/", token_views.token_revoke_view, name="token_revoke"),
    path("preferences/", accounts.preferences, name="preferences"),
    path("language/", accounts.language, name="language"),
    # The secret in these two links is the permission (issue 20); both work once.
    path("invite/<str:secret>/", invitations.invitation, name="invitation"),
    path("reset/<str:secret>/", accounts.password_reset_link, name="password_reset_link"),
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
    path(
        "campaigns/<slug:slug>/raters/<int:user_id>/unlock/",
        manage_people.rater_unlock_view,
        name="manage_rater_unlock",
    ),
    path(
        "campaigns/<slug:slug>/raters/<int:user_id>/reset/",
        accounts.rater_reset_link,
        name="manage_rater_reset",
    ),
    path(
        "campaigns/<slug:slug>/raters/<int:user_id>/deactivate/",
        accounts.rater_deactivate,
        name="manage_rater_deactivate",
    ),
    path("campaigns/<slug:slug>/invitations/", invitations.invitations, name="manage_invitations"),
    path(
        "campaigns/<slug:slug>/invitations/bulk/",
        invitations.invitations_bulk,
        name="manage_invitations_bulk",
    ),
    path(
        "campaigns/<slug:slug>/invitations/<int:invitation_id>/revoke/",
        invitations.invitation_revoke_view,
        name="manage_invitation_revoke",
    ),
    path("campaigns/<slug:slug>/raters-needed/", manage_people.raters_needed, name="manage_needed"),
    path("campaigns/<slug:slug>/leases/", manage_people.leases, name="manage_leases"),
    path("campaigns/<slug:slug>/gold/", gold_views.gold, name="manage_gold"),
    path("campaigns/<slug:slug>/gold/mark/", gold_views.gold_item_mark, name="gold_mark"),
    path(
        "campaigns/<slug:slug>/gold/<int:item_id>/unmark/",
        gold_views.gold_item_unmark,
        name="gold_unmark",
    ),
    path(
        "campaigns/<slug:slug>/gold/tasks/mark/", gold_views.gold_task_mark, name="gold_task_mark"
    ),
    path(
        "campaigns/<slug:slug>/gold/tasks/<int:task_id>/unmark/",
        gold_views.gold_task_unmark,
        name="gold_task_unmark",
    ),
    path("campaigns/<slug:slug>/gold/import/", gold_views.gold_import, name="gold_import"),
    path(
        "campaigns/<slug:slug>/gold/tasks/import/",
        gold_views.gold_task_import,
        name="gold_task_import",
    ),
    path(
        "campaigns/<slug:slug>/gold/from-rulings/",
        gold_views.gold_from_rulings,
        name="gold_from_rulings",
    ),
    path("campaigns/<slug:slug>/gold/honeypots/", gold_views.honeypot_share, name="gold_share"),
    path(
        "campaigns/<slug:slug>/export/gold-answers/",
        gold_views.gold_answers_export,
        name="export_gold_answers",
    ),
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
    path("judge/<slug:slug>/quiz/", quiz_views.quiz, name="quiz"),
    path("sxs/<slug:slug>/<int:comparison_id>/quiz/", quiz_views.sxs_quiz, name="sxs_quiz"),
    path("campaigns/<slug:slug>/quiz/", quiz_manage.quiz_results, name="manage_quiz"),
    path(
        "campaigns/<slug:slug>/quiz/settings/",
        quiz_manage.quiz_settings,
        name="manage_quiz_settings",
    ),
    path("campaigns/<slug:slug>/quiz/grant/", quiz_manage.quiz_grant_view, name="quiz_grant"),
    path("judge/<slug:slug>/history/", judge_views.judge_history, name="judge_history"),
    path("judge/<slug:slug>/preview/", preview_views.judge_preview, name="judge_preview"),
    path(
        "sxs/<slug:slug>/<int:comparison_id>/preview/",
        preview_views.sxs_preview,
        name="sxs_preview",
    ),
    path("judge/<slug:slug>/item/<str:handle>/", judge_views.judge_item, name="judge_item"),
    path("judge/<slug:slug>/api/queue/", judging_api.judge_queue, name="judge_api_queue"),
    path("judge/<slug:slug>/api/judgments/", judging_api.judge_answer, name="judge_api"),
    path("judge/<slug:slug>/api/progress/", judging_api.judge_progress, name="judge_api_progress"),
    # Side-by-side comparisons (issue 5): the manager's pages, then the rater's.
    path(
        "campaigns/<slug:slug>/comparisons/", sxs_manage_views.comparisons, name="sxs_comparisons"
    ),
    path(
        "campaigns/<slug:slug>/comparisons/<int:comparison_id>/",
        sxs_manage_views.report,
        name="sxs_report",
    ),
    path(
        "campaigns/<slug:slug>/comparisons/<int:comparison_id>/plan/",
        sxs_manage_views.plan,
        name="sxs_plan",
    ),
    path(
        "campaigns/<slug:slug>/comparisons/<int:comparison_id>/review/",
        sxs_manage_views.review,
        name="sxs_review",
    ),
    path(
        "campaigns/<slug:slug>/comparisons/<int:comparison_id>/memo.md",
        sxs_manage_views.memo,
        name="sxs_memo",
    ),
    path(
        "campaigns/<slug:slug>/comparisons/<int:comparison_id>/report.csv",
        sxs_manage_views.report_csv,
        name="sxs_report_csv",
    ),
    path(
        "campaigns/<slug:slug>/comparisons/<int:comparison_id>/queries.csv",
        sxs_manage_views.queries_csv,
        name="sxs_queries_csv",
    ),
    path(
        "campaigns/<slug:slug>/comparisons/<int:comparison_id>/queries/<int:query_id>/",
        sxs_manage_views.query_lists,
        name="sxs_query",
    ),
    path("sxs/<slug:slug>/<int:comparison_id>/", sxs_views.sxs_queue_view, name="sxs"),
    path(
        "sxs/<slug:slug>/<int:comparison_id>/history/",
        sxs_views.sxs_history,
        name="sxs_history",
    ),
    path(
        "sxs/<slug:slug>/<int:comparison_id>/task/<str:handle>/",
        sxs_views.sxs_task_view,
        name="sxs_task",
    ),
    path(
        "sxs/<slug:slug>/<int:comparison_id>/api/queue/",
        judging_api.sxs_queue,
        name="sxs_api_queue",
    ),
    path(
        "sxs/<slug:slug>/<int:comparison_id>/api/progress/",
        judging_api.sxs_progress,
        name="sxs_api_progress",
    ),
    path(
        "sxs/<slug:slug>/<int:comparison_id>/api/verdicts/", judging_api.sxs_answer, name="sxs_api"
    ),
]
