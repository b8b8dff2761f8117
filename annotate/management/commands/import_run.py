from annotate.management.commands._imports import ImportCommand
from annotate.services.imports import import_run


class Command(ImportCommand):
    help = (
        "Import a TREC run (qid Q0 docno rank score tag). One run per file, named after its "
        "tag, unless --per-tag. Unknown documents become placeholders."
    )

    def add_arguments(self, parser):
        super().add_arguments(parser)
        parser.add_argument("--name", help="the run's name (default: the tag)")
        parser.add_argument("--system", metavar="NAME", help="the system (default: the tag)")
        parser.add_argument("--per-tag", action="store_true", help="one run and one system per tag")
        parser.add_argument("--replace", action="store_true", help="replace a run of the same name")

    def run_import(self, *, campaign, file, filename, progress, options):
        return import_run(
            campaign=campaign,
            file=file,
            filename=filename,
            name=options["name"],
            system=options["system"],
            per_tag=options["per_tag"],
            replace=options["replace"],
            progress=progress,
        )
