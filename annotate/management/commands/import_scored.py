from annotate.management.commands._imports import ImportCommand
from annotate.services.imports import import_scored


class Command(ImportCommand):
    help = (
        "Import scored labels, one 'label qid score' line per document (the grade, the query's "
        "id, the ranker's score), as a run and a label source at once; each line is its own "
        "document. Missing queries are created with their id as text."
    )

    def add_arguments(self, parser):
        super().add_arguments(parser)
        parser.add_argument("--name", required=True, help="the run's name")
        parser.add_argument("--system", metavar="NAME", help="the system (default: --name)")
        parser.add_argument("--source", metavar="NAME", help="label source (default: --name)")
        parser.add_argument(
            "--any-grade", action="store_true", help="accept labels the label scale does not have"
        )
        parser.add_argument(
            "--replace", action="store_true", help="replace a run and source of the same name"
        )

    def run_import(self, *, campaign, file, filename, progress, options):
        return import_scored(
            campaign=campaign,
            file=file,
            filename=filename,
            name=options["name"],
            system=options["system"],
            source_name=options["source"],
            strict_scale=not options["any_grade"],
            replace=options["replace"],
            progress=progress,
        )
