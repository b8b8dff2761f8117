"""One judging mechanism for every task kind: graded pool items and side-by-side tasks.

How it works. A rater leases the open tasks of one query at a time (leasing.py). A task is
open to a rater while its counted answers plus other raters' live leases stay below the
answers it needs, and the rater has neither answered nor holds it (open.py, one SQL rule read
from the trigger-kept counters of annotate/counted.py). The walk to the next open query keeps
a cursor on the query id; leasing locks the query's open rows with FOR UPDATE SKIP LOCKED,
recounts under the lock and upserts the leases. Working renews the rater's leases once they
are within a minute of their end; a manager's release locks the tasks before deleting leases
(the lease triggers update the task rows, and an answer holds its task before deleting its
lease). An answer (answers.py) locks its task in one prepared statement that also reads the
rater's answer and lease, stores a new answer once however often it is sent, refuses one the
task no longer needs, and keeps the earlier value of a changed answer in its history; the
outcome is "created", "changed" or "unchanged" (kinds.Outcome).

How a task kind plugs in. A kind is a `TaskKind` (kinds.py): its tables and counters, the
scope a task belongs to (a campaign, a comparison), how many answers a task needs, any extra
rule for an open task, the lease columns it sets when leasing (the candidate's side), the
columns it loads to present a task, how the held tasks are ordered, what an answer stores and
when it counts, and the words of its refusals. graded.py and sxs.py are the two kinds with
their service calls; rules about answers (#14), blindness (#24) or gold tasks (#18) belong on
the kind or in the shared steps here, written once for both.

Modules: kinds.py (the protocol, Refused, Outcome), open.py (the open rule and the held
tasks, reads), leasing.py, answers.py, graded.py and sxs.py (the kinds), progress.py (a
rater's own progress, reads), screens.py (what a judging screen asks: record an answer from a
form's data, the next tasks as the rater may see them), handles.py (#24: a rater sees each
task by an opaque per-rater handle, never its id; screens.py turns handles back into ids
before answers.py is called, and the payloads name tasks by handle). The faces are
annotate/views/judging_api.py (the pages' JSON, both kinds), the page views judge.py and
sxs.py, and the REST API's judging.py and sxs.py; all validate answers with the forms of
annotate/forms/judge.py (AnswerForm, JudgeForm) and forms/sxs.py (VerdictForm).
"""
